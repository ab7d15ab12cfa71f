package crashtest

import (
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/moot-dev/moot/internal/cli"
	"github.com/moot-dev/moot/internal/driver"
	"github.com/moot-dev/moot/internal/faults"
	"github.com/moot-dev/moot/internal/testkit/fixture"
	"github.com/moot-dev/moot/internal/testkit/modeltest"
	sm "github.com/moot-dev/moot/statemachine"
	"github.com/moot-dev/moot/store"
)

// SelfEnv, set to "1" in a process's environment, makes a test binary
// whose TestMain calls AsMoot run as moot.
const SelfEnv = "MOOT_CRASHTEST_AS_MOOT"

// AsMoot, called first in a TestMain, runs the test binary as moot,
// knowing protocols (dialectic, the default protocol, among them for a
// moot that reads a debate.md naming none, as cmd/moot's does), when it
// was started with SelfEnv set; otherwise it returns. A test package can
// so start moot without linking a binary of its own. Run so, moot exits at the write that
// faults.Env names, as a moot built with the moot_faults tag does, for
// ExitAtEveryWrite.
func AsMoot(protocols ...sm.Protocol) {
	if os.Getenv(SelfEnv) == "1" {
		faults.ArmFromEnv()
		os.Exit(cli.Main(os.Args, protocols...))
	}
}

// Self returns the running test binary and the environment that makes it
// run as moot, for a package whose TestMain calls AsMoot.
func Self(t testing.TB) (bin string, env []string) {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return self, []string{SelfEnv + "=1"}
}

// CallKills describes a debate of a step-model protocol for
// KillAtEveryCall: the moot binary, how the debate is made, and the fake
// model that answers it.
type CallKills struct {
	// Bin is the moot binary and Env is added to the environment of each
	// of its processes (see Self).
	Bin string
	Env []string
	// New are the arguments of `moot new` after the debate's name, such
	// as --protocol forum --motion "...".
	New []string
	// Model answers every request. Its answers must depend on the request
	// alone, so that a resumed run is answered as the uninterrupted one
	// was. It may be called from several goroutines at once.
	Model modeltest.Handler
	// Embed, when set, answers requests to /v1/embeddings, which are then
	// numbered, held and compared with the chats; without it that path
	// answers 404. Like Model, its vectors must depend on the text alone.
	Embed modeltest.EmbedHandler
	// Run are the arguments of `moot run d` that run the debate to its
	// end; nil means --all. A protocol without an end (dialectic) gives
	// --until E, and a panel --judges.
	Run []string
	// Command, when set, is the command killed and resumed instead of
	// `moot run d`: its arguments after --dir, such as rejudge d
	// --judge-model M.
	Command []string
	// Prepare are commands run once, after `moot new` and before any
	// copy is made, against a fake answering as Model: the debate the
	// Command then works on (a debate to judge again, say).
	Prepare [][]string
	// PrepareModel, when set, answers the Prepare commands in place of
	// Model: a debate whose gaps the Command's model then fills, say.
	PrepareModel modeltest.Handler
	// Requests, when above 0, is how many requests the uninterrupted run
	// must make.
	Requests int
	// Normalise returns a file's content with what may differ between two
	// runs of the same debate (times, durations) blanked; nil compares
	// files as they are. Files under .moot are never compared.
	Normalise func(name, data string) string
	// Repeated, when set, names the kind of a request of the reference
	// run that another KillAtEveryCall test of the package already kills
	// at, one by one, in a debate alike up to that request: the debaters'
	// calls of a debate whose judging alone differs, say. It returns ""
	// for a request of this test's own, which is killed at as every
	// request is without Repeated. Of the requests of each kind it names,
	// only the first and the last are killed at, which still kill this
	// debate's run while such calls are in flight beside its own.
	Repeated func(req modeltest.Request) string
	// Also, when set, are arguments added to the uninterrupted run's for
	// a second uninterrupted run, whose files must be the reference's:
	// --sequential, so that a run whose calls are pipelined is shown to
	// write what a run of one step at a time writes.
	Also []string
}

// runArgs is the command line of the run, after --dir.
func (c CallKills) runArgs() []string {
	if c.Command != nil {
		return append(append([]string(nil), c.Command...), "--quiet")
	}
	run := c.Run
	if run == nil {
		run = []string{"--all"}
	}
	return append(append([]string{"run", "d"}, run...), "--quiet")
}

// settle is how long the debate directory, and the fake model, must have
// been quiet before the process is killed: an answer delivered just
// before request k, by a call asked in parallel with it, is then on disk
// and must not be asked again.
const settle = 200 * time.Millisecond

// KillAtEveryCall runs the debate c describes to its end with `moot run
// --all`, without interruption, as the reference. Then, for each request
// k of the reference, in a subtest, it makes the same debate and runs it
// again, holding request k (and any request after it) unanswered and
// sending moot SIGKILL while it is in flight; runs `moot check`, which
// must pass; resumes with `moot run --all`; and compares the files with
// the reference's. Only the requests in flight at the kill may be asked
// again: the requests answered before the kill and those of the resumed
// run are, together, exactly the reference's requests. Requests are
// numbered as they reach the fake, so that of two calls asked in parallel
// either may be request k. The debate is made once, by `moot new`, and
// copied for every run, so that all share what new drew and stamped.
// Requests of the kinds c.Repeated names, which another test kills at
// one by one, are killed at only at the first and the last of each kind;
// with SampleEnv set, only a sample of the requests is killed at.
func KillAtEveryCall(t *testing.T, c CallKills) Kills {
	t.Helper()
	Apart(t)
	fresh := c.prepare(t)
	ref := fresh(t)
	var refAsked asked
	refSrv := modeltest.NewServer(t, c.Model, c.serverOptions(refAsked.record)...)
	if o, err := c.moot(ref, refSrv.URL, c.runArgs()...); err != nil || o.Code != 0 {
		t.Fatalf("reference run: %v %s", err, o)
	}
	want := c.files(t, ref)
	total := len(refAsked.keys())
	if c.Requests > 0 && total != c.Requests {
		t.Fatalf("the uninterrupted run made %d requests, want %d", total, c.Requests)
	}
	if c.Also != nil {
		also := fresh(t)
		args := append(c.runArgs(), c.Also...)
		alsoSrv := modeltest.NewServer(t, c.Model, c.serverOptions(func(context.Context, modeltest.Request) {})...)
		if o, err := c.moot(also, alsoSrv.URL, args...); err != nil || o.Code != 0 {
			t.Fatalf("run with %s: %v %s", strings.Join(c.Also, " "), err, o)
		}
		if d := Diff(want, c.files(t, also)); len(d) > 0 {
			t.Fatalf("the run with %s differs from the reference:\n%s", strings.Join(c.Also, " "), strings.Join(d, "\n"))
		}
	}
	stops := c.stops(refAsked.all())
	if sampled() {
		t.Logf("killed at a sample of %d of the %d requests, as %s is set: the first, the middle, the last, and the first and the last of each kind", len(stops), total, SampleEnv)
	} else if len(stops) < total {
		t.Logf("killed at %d of the %d requests: the others are of kinds another test kills at every call (Repeated), each killed at here at its first and last", len(stops), total)
	}
	start := time.Now()
	for _, k := range stops {
		t.Run(fmt.Sprintf("killed at request %d", k), func(t *testing.T) {
			root := fresh(t)
			logBefore := usageLines(filepath.Join(root, "d"))
			g := &gate{stop: k, arrived: make(chan struct{})}
			srv := modeltest.NewServer(t, c.Model, c.serverOptions(g.before)...)
			cmd := exec.Command(c.Bin, append([]string{"--dir", root}, c.runArgs()...)...)
			cmd.Env = append(os.Environ(), c.env(srv.URL)...)
			var out strings.Builder
			cmd.Stdout, cmd.Stderr = &out, &out
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			exited := make(chan error, 1)
			go func() { exited <- cmd.Wait() }()
			select {
			case <-g.arrived:
			case err := <-exited:
				t.Fatalf("moot run ended (%v) before request %d:\n%s", err, k, out.String())
			case <-beforeDeadline(t):
				cmd.Process.Kill()
				<-exited
				t.Fatalf("request %d never came, and the test's deadline is near", k)
			}
			if ended, err := g.logged(filepath.Join(root, "d"), logBefore, exited, beforeDeadline(t)); err != nil {
				if !ended {
					cmd.Process.Kill()
					<-exited
				}
				t.Fatalf("request %d held: %v\n%s", k, err, out.String())
			}
			g.quiet(filepath.Join(root, "d"), cmd.Process.Pid)
			cmd.Process.Signal(syscall.SIGKILL)
			if err := <-exited; err == nil {
				t.Fatalf("moot run finished although request %d was held", k)
			}
			answered, held := g.lists()
			if o, err := c.moot(root, "", "check", "d"); err != nil || o.Code != 0 {
				t.Fatalf("moot check after the kill: %v %s\n%s", err, o, o.Stdout)
			}
			transcriptsWhole(t, filepath.Join(root, "d"), "after the kill")
			var again asked
			srv2 := modeltest.NewServer(t, c.Model, c.serverOptions(again.record)...)
			if o, err := c.moot(root, srv2.URL, c.runArgs()...); err != nil || o.Code != 0 {
				t.Fatalf("resumed run: %v %s", err, o)
			}
			if d := Diff(want, c.files(t, root)); len(d) > 0 {
				t.Errorf("the resumed debate differs from the uninterrupted run:\n%s", strings.Join(d, "\n"))
			}
			transcriptsWhole(t, filepath.Join(root, "d"), "after the resumed run")
			resumed := again.keys()
			t.Logf("%d requests answered before the kill, %d in flight, %d after", len(answered), len(held), len(resumed))
			if problems := compareAsked(refAsked.keys(), answered, held, resumed); len(problems) > 0 {
				t.Errorf("only the requests in flight at the kill may be asked again:\n%s", strings.Join(problems, "\n"))
			}
		})
	}
	took := time.Since(start)
	t.Logf("%d kills in %v", len(stops), took.Round(time.Millisecond))
	return Kills{Reference: want, Requests: total, Took: took}
}

// stops are the requests, numbered from 1 in the order they reached the
// fake, at which KillAtEveryCall kills: every one, but of the kinds
// Repeated names, the first and the last of each.
func (c CallKills) stops(reqs []modeltest.Request) []int {
	first, last := map[string]int{}, map[string]int{}
	for i, r := range reqs {
		if c.Repeated == nil {
			break
		}
		if kind := c.Repeated(r); kind != "" {
			if _, ok := first[kind]; !ok {
				first[kind] = i
			}
			last[kind] = i
		}
	}
	var stops []int
	for i, r := range reqs {
		if c.Repeated != nil {
			if kind := c.Repeated(r); kind != "" && i != first[kind] && i != last[kind] {
				continue
			}
		}
		stops = append(stops, i+1)
	}
	if sampled() {
		stops = sample(stops, func(k int) string { return stepKind(reqs[k-1]) })
	}
	return stops
}

// stepKind is the kind of step a request asks for: the path, the model
// and the schema the answer must follow ("text" without one).
func stepKind(req modeltest.Request) string {
	schema := req.SchemaName
	if schema == "" {
		schema = "text"
	}
	return req.Path + " " + req.Model + " " + schema
}

// beforeDeadline fires shortly before the test's deadline (go test
// -timeout), and never for a test without one: the guard of a wait for
// an event that a loaded machine may take long to bring, which names
// what it waited for where go test's timeout would end every test at
// once. No shorter fixed wait decides that the event will not come.
func beforeDeadline(t *testing.T) <-chan time.Time {
	d, ok := t.Deadline()
	if !ok {
		return nil
	}
	return time.After(time.Until(d) - 10*time.Second)
}

// Kills is what KillAtEveryCall did.
type Kills struct {
	// Reference holds the files of the uninterrupted run, normalised, as
	// every resumed run has them.
	Reference map[string]string
	// Requests is how many requests the uninterrupted run made, and so
	// how many times moot was killed.
	Requests int
	// Took is how long the kills took, the reference run aside.
	Took time.Duration
}

// compareAsked checks that the requests answered before a kill and those
// of the resumed run are, together, the reference's, and that every
// request in flight at the kill was asked again.
func compareAsked(ref, answered, held, resumed []string) []string {
	count, inRef := map[string]int{}, map[string]bool{}
	for _, r := range ref {
		count[r]++
		inRef[r] = true
	}
	for _, r := range answered {
		count[r]--
	}
	for _, r := range resumed {
		count[r]--
	}
	var problems []string
	for r, n := range count {
		switch {
		case !inRef[r]:
			problems = append(problems, fmt.Sprintf("asked, though the uninterrupted run never asked it: %s", shorten(r)))
		case n < 0:
			problems = append(problems, fmt.Sprintf("asked again though answered before the kill (%d too many): %s", -n, shorten(r)))
		case n > 0:
			problems = append(problems, fmt.Sprintf("never answered: %s", shorten(r)))
		}
	}
	again := map[string]int{}
	for _, r := range resumed {
		again[r]++
	}
	for _, r := range held {
		if again[r] == 0 {
			problems = append(problems, fmt.Sprintf("in flight at the kill but not asked again: %s", shorten(r)))
		}
		again[r]--
	}
	return problems
}

func shorten(s string) string {
	if len(s) > 200 {
		return s[:100] + " … " + s[len(s)-100:]
	}
	return s
}

// serverOptions are the options of a fake for c that passes every
// request, embeddings included, to before.
func (c CallKills) serverOptions(before func(context.Context, modeltest.Request)) []modeltest.Option {
	opts := []modeltest.Option{modeltest.Before(before)}
	if c.Embed != nil {
		opts = append(opts, modeltest.Embeddings(c.Embed))
	}
	return opts
}

// requestKey is what tells two requests apart: the model asked and the
// conversation, or the texts to embed. Two judges of a panel may be sent
// the same conversation, on different models.
func requestKey(req modeltest.Request) string {
	if req.Path == "/v1/embeddings" {
		b, _ := json.Marshal(req.Input)
		return "embeddings " + string(b)
	}
	b, _ := json.Marshal(req.Messages)
	return req.Model + " " + string(b)
}

// asked records the requests a model was asked.
type asked struct {
	mu   sync.Mutex
	reqs []modeltest.Request
}

// record is a modeltest.Before function.
func (a *asked) record(_ context.Context, req modeltest.Request) {
	a.mu.Lock()
	a.reqs = append(a.reqs, req)
	a.mu.Unlock()
}

// all returns the requests in the order they came.
func (a *asked) all() []modeltest.Request {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]modeltest.Request(nil), a.reqs...)
}

func (a *asked) keys() []string {
	var keys []string
	for _, r := range a.all() {
		keys = append(keys, requestKey(r))
	}
	return keys
}

// gate lets requests be answered until request stop, which it holds, as
// every request after it, until the client goes away.
type gate struct {
	stop    int
	arrived chan struct{}

	mu        sync.Mutex
	n         int
	answered  []string
	held      []string
	lastReply time.Time
}

// before is a modeltest.Before function.
func (g *gate) before(ctx context.Context, req modeltest.Request) {
	g.mu.Lock()
	g.n++
	here := g.n
	if here >= g.stop {
		g.held = append(g.held, requestKey(req))
		if here == g.stop {
			close(g.arrived)
		}
		g.mu.Unlock()
		<-ctx.Done()
		return
	}
	g.answered = append(g.answered, requestKey(req))
	g.lastReply = time.Now()
	g.mu.Unlock()
}

func (g *gate) lists() (answered, held []string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	return append([]string(nil), g.answered...), append([]string(nil), g.held...)
}

// logged waits until moot, running the debate at dir, has logged in its
// usage log every request the gate answered, after the base lines the log
// had before the run: moot has then received each of those answers, which
// a loaded machine can take long to deliver, and only checks and keeps
// them after that (see quiet). Each request of the debates the harness
// runs is one call, logged once (a call with research's tool rounds would
// log several requests as one). It fails, saying whether moot ended, if
// moot exits first or the guard fires.
func (g *gate) logged(dir string, base int, exited <-chan error, guard <-chan time.Time) (ended bool, err error) {
	g.mu.Lock()
	want := base + len(g.answered)
	g.mu.Unlock()
	for {
		n := usageLines(dir)
		if n >= want {
			return false, nil
		}
		select {
		case err := <-exited:
			return true, fmt.Errorf("moot ended (%v) with %d of the %d answers before the held request logged", err, n-base, want-base)
		case <-guard:
			return false, fmt.Errorf("moot logged %d of the %d answers before the held request, and the test's deadline is near", n-base, want-base)
		case <-time.After(5 * time.Millisecond):
		}
	}
}

// usageLines counts the lines of the usage log of the debate at dir.
func usageLines(dir string) int {
	data, _ := os.ReadFile(filepath.Join(dir, store.PrivateDir, driver.UsageFile))
	return strings.Count(string(data), "\n")
}

// quiet waits until, for settle, the model has not answered, no file
// under dir has changed and no thread of the moot process pid has been
// running or waiting to run (Linux's /proc tells; elsewhere only the
// files and answers count), or for at most five seconds: a loaded
// machine can leave moot runnable but not running between an answer it
// logged and the answer's keeping, and a kill then would lose it.
func (g *gate) quiet(dir string, pid int) {
	deadline := time.Now().Add(5 * time.Second)
	var busy time.Time
	for time.Now().Before(deadline) {
		if running(pid) {
			busy = time.Now()
		}
		g.mu.Lock()
		last := g.lastReply
		g.mu.Unlock()
		if busy.After(last) {
			last = busy
		}
		filepath.WalkDir(dir, func(_ string, e fs.DirEntry, err error) error {
			if err != nil {
				return nil
			}
			if info, err := e.Info(); err == nil && info.ModTime().After(last) {
				last = info.ModTime()
			}
			return nil
		})
		if time.Since(last) >= settle {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// running reports whether a thread of process pid is running, waiting to
// run or waiting on the disk (state R or D in /proc/PID/task/*/stat).
func running(pid int) bool {
	tasks, err := os.ReadDir(fmt.Sprintf("/proc/%d/task", pid))
	if err != nil {
		return false
	}
	for _, task := range tasks {
		data, err := os.ReadFile(fmt.Sprintf("/proc/%d/task/%s/stat", pid, task.Name()))
		if err != nil {
			continue
		}
		// The state follows the command's name, which is in parentheses
		// and may hold any byte.
		if i := strings.LastIndexByte(string(data), ')'); i >= 0 && i+2 < len(data) {
			if st := data[i+2]; st == 'R' || st == 'D' {
				return true
			}
		}
	}
	return false
}

// env is what a moot process against the fake at url has in its
// environment besides the test's own.
func (c CallKills) env(url string) []string {
	return append(append([]string(nil), c.Env...), "OPENAI_BASE_URL="+url, "OPENAI_API_KEY=", "MOOT_MODEL=fake")
}

// moot runs moot under root against the fake at url and waits for it.
func (c CallKills) moot(root, url string, args ...string) (Outcome, error) {
	h := &Harness{Bin: c.Bin, Root: root, Slug: "d", Env: c.env(url)}
	return h.Exec(args, nil, 0)
}

// files reads the debate under root, .moot aside, through Normalise.
func (c CallKills) files(t *testing.T, root string) map[string]string {
	t.Helper()
	tree, err := fixture.Tree(filepath.Join(root, "d"))
	if err != nil {
		t.Fatal(err)
	}
	tree = fixture.Without(tree, func(p string) bool { return strings.HasPrefix(p, ".moot") })
	if c.Normalise != nil {
		for name, data := range tree {
			tree[name] = c.Normalise(name, data)
		}
	}
	return tree
}

// ExitAtEveryWrite runs the command c describes (its Command, else `moot
// run d` with its Run) without interruption, as the reference. Then, for
// each write operation N of that run, on a fresh copy of the debate made
// by `moot new` and Prepare, it runs the command again with
// MOOT_FAULT=exit:N, so that moot exits as if killed at that write; runs
// `moot check`, which must pass; runs the command again without the fault,
// which must complete; and compares the files with the reference's. The
// writes counted are every write of the store, moot's private files (kept
// answers, the reasons a call was skipped) included, so that a kill
// between the answers kept for a step and its commit is among them. It
// returns how many writes the command made. With SampleEnv set it exits
// only at every fourth write from the first, and at the last. The test
// binary must arm the faults (see AsMoot), and, as for KillAtEveryCall,
// the test's name must contain "Kill" (see Apart).
func ExitAtEveryWrite(t *testing.T, c CallKills) int {
	t.Helper()
	Apart(t)
	fresh := c.prepare(t)
	srv := modeltest.NewServer(t, c.Model, c.serverOptions(func(context.Context, modeltest.Request) {})...)
	ref := fresh(t)
	if o, err := c.moot(ref, srv.URL, c.runArgs()...); err != nil || o.Code != 0 {
		t.Fatalf("reference run: %v %s", err, o)
	}
	want := c.files(t, ref)
	writes, exits := exitPoints(t, 1000, func(n int) bool {
		root := fresh(t)
		h := &Harness{Bin: c.Bin, Root: root, Slug: "d", Env: c.env(srv.URL)}
		o, err := h.Exec(c.runArgs(), []string{faults.Env + fmt.Sprintf("=exit:%d", n)}, 0)
		if err != nil {
			t.Fatal(err)
		}
		if o.Code == 0 {
			return false
		}
		if o.Code != 137 {
			t.Fatalf("exit at write %d: %s", n, o)
		}
		if o, err := c.moot(root, "", "check", "d"); err != nil || o.Code != 0 {
			t.Fatalf("moot check after an exit at write %d: %v %s\n%s", n, err, o, o.Stdout)
		}
		if o, err := c.moot(root, srv.URL, c.runArgs()...); err != nil || o.Code != 0 {
			t.Fatalf("run again after an exit at write %d: %v %s", n, err, o)
		}
		if d := Diff(want, c.files(t, root)); len(d) > 0 {
			t.Fatalf("exit at write %d: the resumed debate differs from the uninterrupted run:\n%s", n, strings.Join(d, "\n"))
		}
		return true
	})
	if writes == 0 {
		t.Fatalf("%s wrote nothing", strings.Join(c.runArgs(), " "))
	}
	if exits < writes {
		t.Logf("exited at %d of the %d writes, every fourth and the last, as %s is set", exits, writes, SampleEnv)
	}
	return writes
}

// prepare makes the debate c describes once, by `moot new` and then the
// Prepare commands against a fake answering as Model, and returns what
// makes a copy of it under a new root for a run.
func (c CallKills) prepare(t *testing.T) (fresh func(t *testing.T) string) {
	t.Helper()
	made := t.TempDir()
	o, err := c.moot(made, "", append([]string{"new", "d"}, c.New...)...)
	if err != nil || o.Code != 0 {
		t.Fatalf("moot new: %v %s", err, o)
	}
	if len(c.Prepare) > 0 {
		h := c.Model
		if c.PrepareModel != nil {
			h = c.PrepareModel
		}
		prep := modeltest.NewServer(t, h, c.serverOptions(func(context.Context, modeltest.Request) {})...)
		for _, args := range c.Prepare {
			if o, err := c.moot(made, prep.URL, args...); err != nil || o.Code != 0 {
				t.Fatalf("moot %s: %v %s", strings.Join(args, " "), err, o)
			}
		}
	}
	return func(t *testing.T) string {
		root := t.TempDir()
		if err := fixture.CopyTree(filepath.Join(made, "d"), filepath.Join(root, "d")); err != nil {
			t.Fatal(err)
		}
		return root
	}
}

// transcriptsWhole fails t unless every call the usage log of the debate
// at dir records names a transcript that reads back whole, of the same
// role: a kill leaves no line naming a file not yet written.
func transcriptsWhole(t *testing.T, dir, when string) {
	t.Helper()
	d, err := store.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	lines, err := driver.ReadUsageLines(d)
	if err != nil {
		t.Fatalf("%s: %v", when, err)
	}
	for i, u := range lines {
		if u.Transcript == "" {
			t.Errorf("%s: call %d (%s) names no transcript", when, i+1, u.Role)
			continue
		}
		tr, err := driver.ReadTranscript(d, u.Transcript)
		if err != nil {
			t.Errorf("%s: call %d: %v", when, i+1, err)
		} else if tr.Role != u.Role || (len(tr.Messages) == 0 && len(tr.Input) == 0) {
			t.Errorf("%s: call %d is of %s with %d messages, its transcript of %s with %d", when, i+1, u.Role, len(tr.Messages), tr.Role, len(tr.Messages))
		}
	}
}
