package protocoltest_test

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/moot-dev/moot/internal/testkit/modeltest"
	"github.com/moot-dev/moot/internal/testkit/protocoltest"
)

func TestUnder(t *testing.T) {
	files := map[string]string{
		"messages/":           "",
		"messages/002_b.md":   "b",
		"messages/001_a.md":   "a",
		"messages/sub/":       "",
		"messages/sub/x.md":   "x",
		"scores/001_a.md":     "s",
		"debate.md":           "d",
		"messages-not/003.md": "n",
	}
	tests := []struct {
		prefix string
		want   []string
	}{
		{"messages/", []string{"001_a.md", "002_b.md", "sub/x.md"}},
		{"scores/", []string{"001_a.md"}},
		{"rounds/", nil},
	}
	for _, tt := range tests {
		t.Run(tt.prefix, func(t *testing.T) {
			if got := protocoltest.Under(files, tt.prefix); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Under(%q) = %q, want %q", tt.prefix, got, tt.want)
			}
		})
	}
}

func TestStopAtHoldsOnlyItsRequest(t *testing.T) {
	stopped := 0
	h, asked := protocoltest.StopAt(func(modeltest.Request) modeltest.Reply {
		return modeltest.Reply{Content: "ok"}
	}, 2, func() { stopped++ })
	for i, want := range []modeltest.Reply{{Content: "ok"}, {Delay: time.Minute}, {Content: "ok"}} {
		if got := h(modeltest.Request{}); !reflect.DeepEqual(got, want) {
			t.Errorf("request %d: %+v, want %+v", i+1, got, want)
		}
	}
	if stopped != 1 || asked() != 3 {
		t.Errorf("at called %d times and %d requests counted, want 1 and 3", stopped, asked())
	}
}

// TestSharedRunsOncePerKey: Shared runs a key's debate once, whoever asks
// first, and gives every caller a copy of its own, whose changes no other
// caller sees; another key runs again.
func TestSharedRunsOncePerKey(t *testing.T) {
	defer protocoltest.RemoveShared()
	runs := 0
	run := func() (string, []modeltest.Request) {
		runs++
		dir := filepath.Join(t.TempDir(), "d")
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "debate.md"), []byte(fmt.Sprint("run ", runs)), 0o644); err != nil {
			t.Fatal(err)
		}
		return dir, []modeltest.Request{{Model: "m"}}
	}
	first, reqs := protocoltest.Shared(t, "a", run)
	if err := os.WriteFile(filepath.Join(first, "debate.md"), []byte("changed"), 0o644); err != nil {
		t.Fatal(err)
	}
	reqs[0].Model = "changed"
	second, reqs2 := protocoltest.Shared(t, "a", run)
	if runs != 1 {
		t.Fatalf("the same key ran %d times", runs)
	}
	if first == second || filepath.Base(second) != "d" {
		t.Errorf("the copies are %s and %s, want two folders named d", first, second)
	}
	if got := protocoltest.Files(t, second)["debate.md"]; got != "run 1" {
		t.Errorf("the second copy has %q, want the run's own %q", got, "run 1")
	}
	if reqs2[0].Model != "m" {
		t.Errorf("the second caller's requests have %q, changed by the first", reqs2[0].Model)
	}
	other, _ := protocoltest.Shared(t, "b", run)
	if got := protocoltest.Files(t, other)["debate.md"]; runs != 2 || got != "run 2" {
		t.Errorf("another key ran %d times in all and gave %q, want a second run", runs, got)
	}
}

// TestAdded: Added lists the files a step added, folders left out, and
// fails the test for a file it changed or removed.
func TestAdded(t *testing.T) {
	before := map[string]string{"debate.md": "d", "scores/001.md": "s"}
	after := map[string]string{"debate.md": "d", "scores/001.md": "s", "judgments/": "", "judgments/x/judge.json": "r", "judgments/x/r01.md": "v"}
	if got := protocoltest.Added(t, before, after); !reflect.DeepEqual(got, []string{"judgments/x/judge.json", "judgments/x/r01.md"}) {
		t.Errorf("Added = %q", got)
	}
	for _, changed := range []map[string]string{
		{"debate.md": "d2", "scores/001.md": "s"},
		{"debate.md": "d"},
	} {
		var rec recorder
		protocoltest.Added(&rec, before, changed)
		if !rec.failed {
			t.Errorf("Added passed %v, which is not before with files added", changed)
		}
	}
}

// recorder is a testing.TB that records that a test failed, for tests of
// helpers that fail them.
type recorder struct {
	testing.TB
	failed bool
}

func (r *recorder) Helper()               {}
func (r *recorder) Errorf(string, ...any) { r.failed = true }
