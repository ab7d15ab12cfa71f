// Package protocoltest drives a step-model protocol's debates in tests the
// way moot new and moot run do: it makes a debate in a temporary folder,
// advances it with a model client under a fixed clock, and reads back its
// files. What a protocol's tests need besides (their flags, their fake's
// answers) stays in the protocol's own tests.
package protocoltest

import (
	"context"
	"maps"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/moot-dev/moot/internal/driver"
	"github.com/moot-dev/moot/internal/model"
	"github.com/moot-dev/moot/internal/testkit/fixture"
	"github.com/moot-dev/moot/internal/testkit/modeltest"
	"github.com/moot-dev/moot/internal/testkit/storetest"
	sm "github.com/moot-dev/moot/statemachine"
	"github.com/moot-dev/moot/store"
)

// When is the time a test's debates are made and run at.
var When = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

// Create makes a debate of p from in, as moot new does, in a folder named
// in.Slug under a new temporary folder, and returns its path.
func Create(t testing.TB, p sm.Protocol, in sm.NewInput) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), in.Slug)
	d, err := driver.CreateDebate(dir, p, in)
	if err != nil {
		t.Fatal(err)
	}
	d.Close()
	return dir
}

// Advance runs the debate of p in dir towards goal with o, as moot run
// does, holding the debate's lock for the run.
func Advance(t testing.TB, ctx context.Context, p sm.Protocol, dir string, goal driver.UnitGoal, o driver.Options) (driver.Summary, error) {
	t.Helper()
	return locked(t, dir, func(d *store.Dir) (driver.Summary, error) { return driver.Advance(ctx, d, p, goal, o) })
}

// SetPanel makes judges on models, each named after its model, the
// panel of the debate of p in dir, as moot run --judges does, and returns
// it.
func SetPanel(t testing.TB, p sm.Protocol, dir string, models ...string) []sm.Judge {
	t.Helper()
	panel, err := sm.NewPanel(models)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := locked(t, dir, func(d *store.Dir) (bool, error) { return driver.SetPanel(d, p, panel) }); err != nil {
		t.Fatal(err)
	}
	return panel
}

// Rejudge judges the debate of p in dir again as rj with o, as moot
// rejudge does, holding the debate's lock for the run.
func Rejudge(t testing.TB, ctx context.Context, p sm.Protocol, dir string, rj sm.Rejudging, o driver.Options) (driver.Summary, error) {
	t.Helper()
	return locked(t, dir, func(d *store.Dir) (driver.Summary, error) { return driver.Rejudge(ctx, d, p, rj, o) })
}

// Load reads the debate of p in dir as a run does before its first step
// (driver.LoadDebate): a debate whose check finds a problem fails t.
func Load(t testing.TB, p sm.Protocol, dir string) sm.Debate {
	t.Helper()
	return read(t, p, dir, driver.LoadDebate)
}

// Read reads the debate of p in dir as moot check and moot show do
// (driver.ReadDebate), whatever its check finds.
func Read(t testing.TB, p sm.Protocol, dir string) sm.Debate {
	t.Helper()
	return read(t, p, dir, driver.ReadDebate)
}

// read reads the debate of p in dir by how.
func read(t testing.TB, p sm.Protocol, dir string, how func(*store.Dir, sm.Protocol) (sm.Debate, error)) sm.Debate {
	t.Helper()
	d, err := store.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	deb, err := how(d, p)
	if err != nil {
		t.Fatal(err)
	}
	return deb
}

// locked calls f with the debate in dir open for writing, as moot opens
// it for a run, holding its lock until f returns.
func locked[T any](t testing.TB, dir string, f func(*store.Dir) (T, error)) (T, error) {
	t.Helper()
	d, err := storetest.OpenForWrite(dir, "test")
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	return f(d)
}

// Served returns the options of a run against the fake server at url:
// the model "fake" by default, two repairs and the clock stopped at When.
func Served(t testing.TB, url string) driver.Options {
	t.Helper()
	client, err := model.New(model.Config{BaseURL: url, APIKey: "k"})
	if err != nil {
		t.Fatal(err)
	}
	return driver.Options{Client: client, DefaultModel: "fake", Repairs: 2, Now: func() time.Time { return When }}
}

// Files returns the files and folders of the debate in dir, as
// fixture.Tree names them, without moot's own .moot folder.
func Files(t testing.TB, dir string) map[string]string {
	t.Helper()
	tree, err := fixture.Tree(dir)
	if err != nil {
		t.Fatal(err)
	}
	return fixture.Without(tree, func(p string) bool { return strings.HasPrefix(p, ".moot") })
}

// Under lists the files of files whose paths start with prefix, without
// the prefix and sorted; folders are left out.
func Under(files map[string]string, prefix string) []string {
	var out []string
	for k := range files {
		if strings.HasPrefix(k, prefix) && !strings.HasSuffix(k, "/") {
			out = append(out, strings.TrimPrefix(k, prefix))
		}
	}
	sort.Strings(out)
	return out
}

// Added returns the files of after that before has not, sorted, folders
// left out; each file of before that after lacks, or holds otherwise,
// fails t: a step that may only add files, such as a re-judging's, changed
// it.
func Added(t testing.TB, before, after map[string]string) []string {
	t.Helper()
	for _, name := range slices.Sorted(maps.Keys(before)) {
		if text, ok := after[name]; !ok || text != before[name] {
			t.Errorf("%s changed", name)
		}
	}
	var out []string
	for name := range after {
		if _, ok := before[name]; !ok && !strings.HasSuffix(name, "/") {
			out = append(out, name)
		}
	}
	slices.Sort(out)
	return out
}

// StopAt returns a handler that answers as h does but, at its request
// number stop (counting from 1), calls at and then holds the request
// until the client goes away; and a function that says how many requests
// it has had.
func StopAt(h modeltest.Handler, stop int, at func()) (modeltest.Handler, func() int) {
	var mu sync.Mutex
	n := 0
	return func(req modeltest.Request) modeltest.Reply {
			mu.Lock()
			n++
			here := n
			mu.Unlock()
			if here == stop {
				at()
				return modeltest.Reply{Delay: time.Minute}
			}
			return h(req)
		}, func() int {
			mu.Lock()
			defer mu.Unlock()
			return n
		}
}
