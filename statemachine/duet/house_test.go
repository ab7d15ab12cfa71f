package duet

// The proof of issue 28: duet is added to moot by its package, its
// templates and one line in cmd/moot (example.go, built with -tags
// moot_example), nothing else touched, and every command runs it. These
// tests build that moot and run it as a user does.

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"io/fs"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/moot-dev/moot/internal/testkit/crashtest"
	"github.com/moot-dev/moot/internal/testkit/modeltest"
	"github.com/moot-dev/moot/internal/testkit/scriptcmd"
	sm "github.com/moot-dev/moot/statemachine"
)

// module is moot's module path.
const module = "github.com/moot-dev/moot"

// tag is the build tag that adds duet to moot.
const tag = "moot_example"

// moduleRoot returns the folder of moot's go.mod, asking the go command;
// the test is skipped, saying why, without one.
func moduleRoot(t *testing.T) string {
	t.Helper()
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("the go command is not on PATH, and the test builds moot with it")
	}
	out, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil {
		t.Fatalf("go env GOMOD: %v", err)
	}
	return filepath.Dir(strings.TrimSpace(string(out)))
}

var (
	buildOnce sync.Once
	binDir    string
	buildErr  error
)

// builtEnv names a moot built with -tags moot_example, named moot, that
// test.sh builds once for both of its passes; without it the tests build
// their own.
const builtEnv = "MOOT_TEST_EXAMPLE_BIN"

// mootWithDuet returns the folder of a moot built with -tags
// moot_example: the real binary, with duet added by cmd/moot/example.go.
func mootWithDuet(t *testing.T) string {
	t.Helper()
	if built := os.Getenv(builtEnv); built != "" {
		if filepath.Base(built) != "moot" {
			t.Fatalf("%s=%s: the binary must be named moot, as the scripts run it", builtEnv, built)
		}
		return filepath.Dir(built)
	}
	root := moduleRoot(t)
	buildOnce.Do(func() {
		dir, err := os.MkdirTemp("", "moot-duet-")
		if err != nil {
			buildErr = err
			return
		}
		binDir = dir
		cmd := exec.Command("go", "build", "-tags", tag, "-o", filepath.Join(dir, "moot"), module+"/cmd/moot")
		cmd.Dir = root
		if out, err := cmd.CombinedOutput(); err != nil {
			buildErr = errors.New("go build -tags " + tag + ": " + err.Error() + "\n" + string(out))
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return binDir
}

func TestMain(m *testing.M) {
	code := m.Run()
	if binDir != "" {
		os.RemoveAll(binDir)
	}
	os.Exit(code)
}

// TestCommands runs the scripts of testdata/script with the moot built
// with duet: new, run, step, status, check, show, report, export, judges,
// rejudge, demo, and a person's answers (--human, moot answer,
// $MOOT_EDITOR). $FAKE is an OpenAI-compatible server that answers as the
// built-in model's script does.
func TestCommands(t *testing.T) {
	bin := mootWithDuet(t)
	fake := modeltest.NewServer(t, fakeModel)
	testscript.Run(t, testscript.Params{
		Dir:                 "testdata/script",
		RequireExplicitExec: true,
		Setup: func(e *testscript.Env) error {
			e.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
			e.Setenv("FAKE", fake.URL)
			for _, k := range []string{"OPENAI_API_KEY", "OPENAI_BASE_URL", "MOOT_DIR", "MOOT_MODEL", "MOOT_EDITOR", "MOOT_PRICES", "MOOT_SEARCH"} {
				e.Setenv(k, "")
			}
			e.Setenv("NO_COLOR", "1")
			return nil
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"code": scriptcmd.Code,
		},
	})
}

// fakeModel answers a request of a duet debate as the built-in model's
// script does, from the request alone.
func fakeModel(req modeltest.Request) modeltest.Reply {
	call := sm.ScriptCall{Role: fakeRole(req), Repair: len(req.Messages) > 2}
	for _, m := range req.Messages {
		call.Messages = append(call.Messages, sm.Message{Role: m.Role, Content: m.Content})
	}
	text, err := Protocol{}.Script(call)
	if err != nil {
		return modeltest.Failf("the fake cannot answer: %v", err)
	}
	return modeltest.Reply{Content: text}
}

// TestKilledAtEveryCall: the moot built with duet, killed with SIGKILL
// while each call of a debate is in flight and run again, ends with the
// files of a run never killed, and only the call in flight is asked
// twice; so does a re-judging of the debate, its record's time aside.
func TestKilledAtEveryCall(t *testing.T) {
	if testing.Short() {
		t.Skip("crash test of ten kills, each a moot process run twice: run without -short")
	}
	bin := filepath.Join(mootWithDuet(t), "moot")
	newArgs := []string{"--protocol", "duet", "--motion", "Tea is better than coffee.", "--rounds", "2"}
	t.Run("run", func(t *testing.T) {
		// Round 1: two statements, the judge's answer and its repair;
		// round 2: two statements and the judge's answer.
		crashtest.KillAtEveryCall(t, crashtest.CallKills{Bin: bin, New: newArgs, Model: fakeModel, Requests: 7})
	})
	t.Run("rejudge", func(t *testing.T) {
		created := regexp.MustCompile(`"created": "[^"]*"`)
		crashtest.KillAtEveryCall(t, crashtest.CallKills{Bin: bin, New: newArgs, Model: fakeModel, Requests: 3,
			Prepare: [][]string{{"run", "d", "--all", "--quiet"}},
			Command: []string{"rejudge", "d", "--judge-model", "m2"},
			Normalise: func(name, data string) string {
				return created.ReplaceAllString(data, `"created": "*"`)
			},
		})
	})
}

// fakeRole is the role a request to $FAKE is made for, from what its
// prompts say: the judge's asks for the scores' schema, a speaker's
// system prompt names its role.
func fakeRole(req modeltest.Request) string {
	if req.SchemaName == "scores" {
		return Judge
	}
	if len(req.Messages) > 0 && strings.HasPrefix(req.Messages[0].Content, "You are con") {
		return Con
	}
	return Pro
}

// TestServe runs moot serve on a root that holds a duet debate and
// fetches its pages over HTTP, as a browser would: the list of debates,
// which says who won, the debate's page, its report and its calls.
func TestServe(t *testing.T) {
	bin := filepath.Join(mootWithDuet(t), "moot")
	root := t.TempDir()
	env := append(os.Environ(), "NO_COLOR=1", "MOOT_DIR=", "OPENAI_API_KEY=", "OPENAI_BASE_URL=")
	run := func(args ...string) {
		t.Helper()
		cmd := exec.Command(bin, append([]string{"--dir", root}, args...)...)
		cmd.Env = env
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("moot %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
	run("new", "tea", "--protocol", "duet", "--motion", "Tea is better than coffee.", "--rounds", "2")
	run("run", "tea", "--all", "--model", "builtin")

	serve := exec.Command(bin, "--dir", root, "serve", "--addr", "127.0.0.1:0")
	serve.Env = env
	stderr, err := serve.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := serve.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	t.Cleanup(func() {
		if serve.ProcessState == nil {
			serve.Process.Kill()
			<-done
		}
	})
	// The server is ready when it says where it listens: the test reads
	// its address from that line, and waits for nothing else.
	lines := make(chan string)
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
		done <- serve.Wait()
	}()
	listening := regexp.MustCompile(`at (http://[^/ ]+)/`)
	var base string
	guard := time.After(2 * time.Minute)
	for base == "" {
		select {
		case l, ok := <-lines:
			if !ok {
				t.Fatalf("moot serve ended before it said where it listens: %v", <-done)
			}
			if m := listening.FindStringSubmatch(l); m != nil {
				base = m[1]
			}
		case <-guard:
			t.Fatal("waited two minutes for moot serve to say where it listens")
		}
	}
	get := func(path string) string {
		t.Helper()
		resp, err := http.Get(base + path)
		if err != nil {
			t.Fatalf("GET %s: %v", path, err)
		}
		defer resp.Body.Close()
		body, err := io.ReadAll(resp.Body)
		if err != nil {
			t.Fatalf("GET %s: %v", path, err)
		}
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("GET %s: %s\n%s", path, resp.Status, body)
		}
		return string(body)
	}
	index := get("/")
	for _, want := range []string{"tea", "duet", "won, "} {
		if !strings.Contains(index, want) {
			t.Errorf("the list of debates lacks %q:\n%s", want, index)
		}
	}
	page := get("/debates/tea/")
	if !strings.Contains(page, "Tea is better than coffee.") {
		t.Errorf("the debate's page lacks its motion:\n%s", page)
	}
	report := get("/debates/tea/report")
	for _, want := range []string{"<h2>Round 2</h2>", "I speak against the motion", "Scripted."} {
		if !strings.Contains(report, want) {
			t.Errorf("the report page lacks %q:\n%s", want, report)
		}
	}
	calls := get("/debates/tea/calls")
	for _, want := range []string{"The calls of tea", "r02-con"} {
		if !strings.Contains(calls, want) {
			t.Errorf("the page of the calls lacks %q:\n%s", want, calls)
		}
	}
	// Ctrl-C stops it, and it says so.
	if err := serve.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	var said []string
	for l := range lines {
		said = append(said, l)
	}
	if err := <-done; err != nil {
		t.Errorf("moot serve after Ctrl-C: %v", err)
	}
	if !slices.Contains(said, "moot: serve stopped") {
		t.Errorf("moot serve did not say it stopped: %q", said)
	}
}

// houseImports are the packages of moot that make up its commands and
// the reports of other protocols: a protocol needs none of them, as it
// reaches moot only through the step model's interfaces.
var houseImports = []string{"internal/cli", "internal/driver", "internal/serve", "internal/live", "internal/human", "internal/report", "internal/tournament", "cmd/moot"}

// TestImportsOnlyWhatAProtocolMay fails when duet's package imports
// anything of moot but the step model, the store, the templates and
// internal helpers: none of the packages of moot's commands
// (houseImports) and no other protocol, not even through another package.
func TestImportsOnlyWhatAProtocolMay(t *testing.T) {
	root := moduleRoot(t)
	cmd := exec.Command("go", "list", "-json=ImportPath,Imports,Deps", module+"/statemachine/duet")
	cmd.Dir = root
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	var pkg struct {
		Imports, Deps []string
	}
	if err := json.Unmarshal(out, &pkg); err != nil {
		t.Fatal(err)
	}
	if len(pkg.Imports) == 0 {
		t.Fatal("go list gave duet no imports at all: the test reads nothing")
	}
	for _, imp := range pkg.Imports {
		rel, ok := strings.CutPrefix(imp, module+"/")
		if !ok {
			continue // the standard library or another module
		}
		allowed := rel == "statemachine" || rel == "store" || rel == "templates" ||
			(strings.HasPrefix(rel, "internal/") && !slices.ContainsFunc(houseImports, func(h string) bool { return rel == h || strings.HasPrefix(rel, h+"/") }))
		if !allowed {
			t.Errorf("duet imports %s: a protocol imports only the step model (statemachine), store, templates and internal helpers", rel)
		}
	}
	for _, dep := range pkg.Deps {
		rel := strings.TrimPrefix(dep, module+"/")
		if strings.HasPrefix(rel, "statemachine/") && rel != "statemachine/duet" {
			t.Errorf("duet depends on %s: a protocol depends on no other", rel)
		}
		if slices.Contains(houseImports, rel) {
			t.Errorf("duet depends on %s, a package of moot's commands", rel)
		}
	}
}

// ownFile reports whether the file rel may name duet: a file of its package, its templates
// and the one file of cmd/moot that adds it.
func ownFile(rel string) bool {
	return strings.HasPrefix(rel, "statemachine/duet/") || strings.HasPrefix(rel, "templates/duet/") || rel == "cmd/moot/example.go"
}

// TestNothingElseNamesIt fails when a file of moot outside duet's own
// (ownFile) names it: the commands, the driver, the reports and the other
// tests run it without knowing it. The documentation may point to it (a
// markdown file outside templates/), as it points to every protocol.
func TestNothingElseNamesIt(t *testing.T) {
	root := moduleRoot(t)
	name := regexp.MustCompile(`(?i)\bduet\b`)
	checked := 0
	err := filepath.WalkDir(root, func(path string, e fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel := filepath.ToSlash(strings.TrimPrefix(path, root+string(filepath.Separator)))
		if e.IsDir() {
			if path != root && (strings.HasPrefix(e.Name(), ".") || e.Name() == "testdata" && strings.HasPrefix(rel, "statemachine/duet/")) {
				return filepath.SkipDir
			}
			return nil
		}
		if !e.Type().IsRegular() || ownFile(rel) || (strings.HasSuffix(rel, ".md") && !strings.HasPrefix(rel, "templates/")) {
			return nil
		}
		info, err := e.Info()
		if err != nil || info.Size() > 8<<20 {
			return err
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		checked++
		if loc := name.FindIndex(data); loc != nil {
			line := 1 + bytes.Count(data[:loc[0]], []byte("\n"))
			t.Errorf("%s:%d names duet: only its package, templates/duet and cmd/moot/example.go may (a protocol is added by them alone)", rel, line)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if checked < 100 {
		t.Fatalf("only %d files were read under %s: the test reads too little to prove anything", checked, root)
	}
}

// TestReleaseBuildLacksIt fails when moot built without the tag knows
// duet: a user of a release build never sees the example.
func TestReleaseBuildLacksIt(t *testing.T) {
	root := moduleRoot(t)
	cmd := exec.Command("go", "list", "-deps", module+"/cmd/moot")
	cmd.Dir = root
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	if !strings.Contains(string(out), module+"/statemachine/dialectic\n") {
		t.Fatalf("go list -deps of cmd/moot lacks dialectic: the test reads the wrong list\n%s", out)
	}
	if strings.Contains(string(out), module+"/statemachine/duet\n") {
		t.Error("moot built without -tags " + tag + " depends on duet: only the tagged file cmd/moot/example.go may add it")
	}
	cmd = exec.Command("go", "list", "-deps", "-tags", tag, module+"/cmd/moot")
	cmd.Dir = root
	if out, err = cmd.Output(); err != nil {
		t.Fatalf("go list -tags %s: %v", tag, err)
	}
	if !strings.Contains(string(out), module+"/statemachine/duet\n") {
		t.Error("moot built with -tags " + tag + " does not depend on duet: cmd/moot/example.go no longer adds it")
	}
}
