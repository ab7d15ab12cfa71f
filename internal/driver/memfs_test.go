package driver

import (
	"errors"
	"io/fs"
	"slices"
	"testing"

	"github.com/moot-dev/moot/store"
)

// TestMemFSWith: the files a load read, with a commit's written over
// them, read as the disk will once the commit is made: a new file in a
// folder listed, a new folder among the folders, a folder that did not
// exist now there; what the load did not read is unknown, never absent.
func TestMemFSWith(t *testing.T) {
	m := newMemFS()
	m.files["debate.md"] = []byte("old")
	m.lists["calls"] = &listing{names: []string{"001.md"}}
	m.lists["scores"] = &listing{absent: true}
	m.folders["judgments"] = []string{"ann"}
	m.errs["verdict.md"] = &fs.PathError{Op: "read", Path: "verdict.md", Err: fs.ErrNotExist}
	next := m.with([]store.File{
		{Name: "calls/002.md", Data: []byte("two")},
		{Name: "scores/001.json", Data: []byte("{}")},
		{Name: "judgments/bob/001.md", Data: []byte("bob")},
		{Name: "verdict.md", Data: []byte("won")},
		{Name: "debate.md", Data: []byte("new")},
	})
	names := func(f *memFS, dir string) ([]string, error) {
		entries, err := f.ReadDir(dir)
		var out []string
		for _, e := range entries {
			out = append(out, e.Name())
		}
		return out, err
	}
	for _, tc := range []struct {
		name string
		got  func() (any, error)
		want any
	}{
		{"a file written over", func() (any, error) { b, err := next.ReadFile("debate.md"); return string(b), err }, "new"},
		{"a file that was missing", func() (any, error) { b, err := next.ReadFile("verdict.md"); return string(b), err }, "won"},
		{"a folder listed", func() (any, error) { return names(next, "calls") }, []string{"001.md", "002.md"}},
		{"a folder that did not exist", func() (any, error) { return names(next, "scores") }, []string{"001.json"}},
		{"a new folder among the folders", func() (any, error) { return next.Folders("judgments") }, []string{"ann", "bob"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := tc.got()
			if err != nil {
				t.Fatal(err)
			}
			switch w := tc.want.(type) {
			case string:
				if got != w {
					t.Errorf("got %q, want %q", got, w)
				}
			case []string:
				if !slices.Equal(got.([]string), w) {
					t.Errorf("got %q, want %q", got, w)
				}
			}
		})
	}
	// The commit changed nothing of what it was written over.
	if b, _ := m.ReadFile("debate.md"); string(b) != "old" {
		t.Errorf("the files before the commit read %q, want old", b)
	}
	if _, err := m.ReadDir("scores"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a folder absent before the commit: %v, want it absent", err)
	}
	// What the load did not read is not known to be absent.
	for _, read := range []func() error{
		func() error { _, err := next.ReadFile("calls/001.md"); return err },
		func() error { _, err := next.ReadDir("judgments/bob"); return err },
		func() error { _, err := next.Folders("calls"); return err },
	} {
		if err := read(); !errors.Is(err, errUnread) || errors.Is(err, fs.ErrNotExist) {
			t.Errorf("reading what was never read: %v, want errUnread", err)
		}
	}
}
