package crashtest

import (
	"bytes"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/moot-dev/moot/internal/testkit/fixture"
	"github.com/moot-dev/moot/internal/testkit/researchfake"
	"github.com/moot-dev/moot/statemachine/dialectic/dialectictest/researchdebate"
)

// TestResearchKilledAndResumed kills moot (SIGKILL) while the
// opposition's research waits on a page, after the proposition's answer
// was accepted, and resumes: nothing the proposition searched or read is
// asked again, and the files equal an uninterrupted run's.
func TestResearchKilledAndResumed(t *testing.T) {
	Apart(t)
	web := researchfake.NewWeb()
	defer web.Close()
	release := make(chan struct{})
	defer close(release)
	fake := &researchdebate.Model{Web: web}
	model := httptest.NewServer(fake)
	defer model.Close()
	env := []string{"OPENAI_BASE_URL=" + model.URL + "/v1", "OPENAI_API_KEY=", "MOOT_MODEL=fake", "MOOT_SEARCH=searxng:" + web.URL}
	made := t.TempDir()
	h := &Harness{Bin: bin, Root: made, Slug: "d", Env: env}
	if o, err := h.Exec([]string{"new", "d", "--motion", "Water boils at a lower temperature on mountains."}, nil, 0); err != nil || o.Code != 0 {
		t.Fatalf("moot new: %v %s", err, o)
	}
	run := []string{"run", "d", "--until", "1", "--research", "--research-allow-private", "--quiet"}
	copyTo := func() *Harness {
		root := t.TempDir()
		if err := fixture.CopyTree(filepath.Join(made, "d"), filepath.Join(root, "d")); err != nil {
			t.Fatal(err)
		}
		return &Harness{Bin: bin, Root: root, Slug: "d", Env: env}
	}

	ref := copyTo()
	if o, err := ref.Exec(run, nil, 0); err != nil || o.Code != 0 {
		t.Fatalf("uninterrupted run: %v %s", err, o)
	}
	web.Reset()

	killed := copyTo()
	held := make(chan struct{}, 4)
	hold := func(path string) {
		if path == "/a2" {
			held <- struct{}{}
			<-release
		}
	}
	web.Hold.Store(&hold)
	cmd := exec.Command(bin, append([]string{"--dir", killed.Root}, run...)...)
	cmd.Env = append(os.Environ(), env...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	select {
	case <-held:
	case <-time.After(time.Minute): // a guard
		cmd.Process.Kill()
		t.Fatalf("the opposition never read its page: %s", stderr.String())
	}
	// The proposition's answer is kept once its research is done.
	kept := filepath.Join(killed.Dir(), ".moot", "answers", "00000-proposition.json")
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(20 * time.Millisecond) {
		if _, err := os.Stat(kept); err == nil {
			break
		}
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			t.Fatalf("the proposition's answer was never kept: %s", stderr.String())
		}
	}
	time.Sleep(settle)
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	web.Hold.Store(nil)
	if _, err := os.Stat(filepath.Join(killed.Dir(), "sources")); err == nil {
		entries, _ := os.ReadDir(filepath.Join(killed.Dir(), "sources"))
		if len(entries) > 0 {
			t.Fatalf("the killed step committed %d pages", len(entries))
		}
	}
	if o, err := killed.Check(); err != nil || o.Code != 0 {
		t.Fatalf("moot check after the kill: %v %s", err, o)
	}
	searches, a, b := web.Searches(), web.Reads("/a"), web.Reads("/b")
	if o, err := killed.Exec(run, nil, 0); err != nil || o.Code != 0 {
		t.Fatalf("resumed run: %v %s", err, o)
	}
	if web.Searches() != searches+1 || web.Reads("/a") != a || web.Reads("/b") != b {
		t.Errorf("the resumed run searched %d times and read the proposition's pages %d and %d times: want 1 search (the opposition's) and no read",
			web.Searches()-searches, web.Reads("/a")-a, web.Reads("/b")-b)
	}
	want, got := researchFiles(t, ref), researchFiles(t, killed)
	if diffs := fixture.Diff(want, got); len(diffs) > 0 {
		t.Errorf("the resumed debate differs from the uninterrupted one: %s", strings.Join(diffs, ", "))
	}
}

var stamp = regexp.MustCompile(`\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)`)

// researchFiles reads a debate's files, .moot aside, with their times
// blanked: the pages' read times and the judgment's.
func researchFiles(t *testing.T, h *Harness) map[string]string {
	t.Helper()
	tree, err := fixture.Tree(h.Dir())
	if err != nil {
		t.Fatal(err)
	}
	tree = fixture.Without(tree, func(p string) bool { return strings.HasPrefix(p, ".moot") })
	n := 0
	for name, data := range tree {
		tree[name] = stamp.ReplaceAllString(data, "TIME")
		if strings.HasPrefix(name, "sources/") && strings.HasSuffix(name, ".md") {
			n++
		}
	}
	if n != 4 {
		t.Errorf("%d pages stored, want 4", n)
	}
	return tree
}
