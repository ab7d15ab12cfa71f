package protocoltest

import (
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/moot-dev/moot/internal/testkit/fixture"
	"github.com/moot-dev/moot/internal/testkit/modeltest"
)

// shared holds the debates Shared made, by key, in one folder of the test
// binary, which RemoveShared removes.
var shared struct {
	sync.Mutex
	root  string
	made  map[string]*sharedDebate
	count int
}

// sharedDebate is one debate Shared made: its folder and the requests its
// run made, or the test that failed to make it.
type sharedDebate struct {
	once   sync.Once
	dir    string
	reqs   []modeltest.Request
	failed string
}

// Shared returns a copy, in a new temporary folder of t's, of the debate
// that run makes and runs, and the requests its run made. run is called
// once per test binary for each key, by the first test that asks, and
// fails that test if it cannot make the debate: a test that runs the same
// debate as others (the same flags, the same fake) so takes its files
// without running it again. The key must name everything run's debate
// depends on. The folder returned has the base name of run's, and the
// requests are a copy: the test may change either. A package that calls
// Shared calls RemoveShared in its TestMain.
func Shared(t testing.TB, key string, run func() (dir string, reqs []modeltest.Request)) (string, []modeltest.Request) {
	t.Helper()
	shared.Lock()
	if shared.made == nil {
		shared.made = map[string]*sharedDebate{}
	}
	d := shared.made[key]
	if d == nil {
		d = &sharedDebate{failed: t.Name()}
		shared.made[key] = d
	}
	shared.Unlock()
	d.once.Do(func() {
		dir, reqs := run()
		keep, err := sharedFolder()
		if err != nil {
			t.Fatal(err)
		}
		keep = filepath.Join(keep, filepath.Base(dir))
		if err := fixture.CopyTree(dir, keep); err != nil {
			t.Fatal(err)
		}
		d.dir, d.reqs, d.failed = keep, reqs, ""
	})
	if d.failed != "" {
		t.Fatalf("the shared debate %q was not made: see %s, which made it", key, d.failed)
	}
	dir := filepath.Join(t.TempDir(), filepath.Base(d.dir))
	if err := fixture.CopyTree(d.dir, dir); err != nil {
		t.Fatal(err)
	}
	return dir, append([]modeltest.Request(nil), d.reqs...)
}

// sharedFolder returns a new folder for a shared debate, under the test
// binary's folder of them.
func sharedFolder() (string, error) {
	shared.Lock()
	defer shared.Unlock()
	if shared.root == "" {
		root, err := os.MkdirTemp("", "moot-shared-")
		if err != nil {
			return "", err
		}
		shared.root = root
	}
	shared.count++
	dir := filepath.Join(shared.root, fmt.Sprint(shared.count))
	return dir, os.Mkdir(dir, 0o755)
}

// RemoveShared removes the debates Shared made; a TestMain calls it after
// the tests have run.
func RemoveShared() {
	shared.Lock()
	defer shared.Unlock()
	if shared.root != "" {
		os.RemoveAll(shared.root)
	}
	shared.root, shared.made = "", nil
}
