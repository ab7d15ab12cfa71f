package store

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/moot-dev/moot/internal/faults"
	"github.com/moot-dev/moot/internal/testkit/fixture"
)

// tree reads everything under dir, as fixture.Tree does.
func tree(t *testing.T, dir string) map[string]string {
	t.Helper()
	out, err := fixture.Tree(dir)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// diffTrees lists how b differs from a.
var diffTrees = fixture.Diff

func lock(t *testing.T, d *Dir) {
	t.Helper()
	if err := d.Lock(context.Background(), "moot test", false); err != nil {
		t.Fatal(err)
	}
}

func TestCommitNeedsTheLock(t *testing.T) {
	dir, d := newDebate(t)
	before := tree(t, dir)
	if err := d.Commit([]File{{Name: "debate.md", Data: []byte("v1\n")}}); !errors.Is(err, ErrNotLocked) {
		t.Fatalf("Commit without the lock: got %v, want ErrNotLocked", err)
	}
	if err := d.Recover(); !errors.Is(err, ErrNotLocked) {
		t.Fatalf("Recover without the lock: got %v, want ErrNotLocked", err)
	}
	if diff := diffTrees(before, tree(t, dir)); len(diff) > 0 {
		t.Fatalf("files changed: %v", diff)
	}
}

func TestCommitRefusesBeforeWritingAnything(t *testing.T) {
	for _, tc := range []struct {
		name  string
		setup func(t *testing.T, dir, outside string)
		files []string
	}{
		{"link at a file", func(t *testing.T, dir, outside string) {
			os.Symlink(filepath.Join(outside, "graph"), filepath.Join(dir, "argument-graph.mmd"))
		}, []string{"arguments/prop_001.md", "argument-graph.mmd", "debate.md"}},
		{"link at a folder", func(t *testing.T, dir, outside string) {
			os.RemoveAll(filepath.Join(dir, "arguments"))
			os.Symlink(outside, filepath.Join(dir, "arguments"))
		}, []string{"scores.json", "arguments/prop_001.md", "debate.md"}},
		{"folder at a file", func(t *testing.T, dir, outside string) {
			os.Mkdir(filepath.Join(dir, "scores.json"), 0o755)
		}, []string{"arguments/prop_001.md", "scores.json", "debate.md"}},
		{"file at a folder", func(t *testing.T, dir, outside string) {
			os.RemoveAll(filepath.Join(dir, "arguments"))
			os.WriteFile(filepath.Join(dir, "arguments"), []byte("x"), 0o644)
		}, []string{"scores.json", "arguments/prop_001.md", "debate.md"}},
		{"private file", func(t *testing.T, dir, outside string) {}, []string{"scores.json", ".moot/journal.json", "debate.md"}},
		{"climbing name", func(t *testing.T, dir, outside string) {}, []string{"scores.json", "../escape", "debate.md"}},
		{"absolute name", func(t *testing.T, dir, outside string) {}, []string{"scores.json", "/tmp/escape", "debate.md"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir, d := newDebate(t)
			outside := t.TempDir()
			tc.setup(t, dir, outside)
			lock(t, d)
			before, beforeOut := tree(t, dir), tree(t, outside)
			var files []File
			for _, n := range tc.files {
				files = append(files, File{Name: n, Data: []byte("new " + n)})
			}
			if err := d.Commit(files); err == nil {
				t.Fatal("Commit succeeded")
			}
			if diff := diffTrees(before, tree(t, dir)); len(diff) > 0 {
				t.Errorf("the debate changed: %v", diff)
			}
			if diff := diffTrees(beforeOut, tree(t, outside)); len(diff) > 0 {
				t.Errorf("files outside changed: %v", diff)
			}
		})
	}
}

// withFault makes the n-th write operation from now fail in d.
func withFault(d *Dir, n int) {
	d.hooks = faults.Plan{At: faults.Count() + int64(n)}.Hook()
}

// TestFailureAtEveryOperation fails a commit at each of its write
// operations in turn and checks that readers then see either the old or
// the new state, whole, and that the next writer's Recover leaves exactly
// the new state or (when the journal was never written) the old one.
func TestFailureAtEveryOperation(t *testing.T) {
	old := map[string]string{"debate.md": "v0\n"}
	next := map[string]string{"arguments/prop_001.md": "argument\n", "scores.json": "{}\n", "debate.md": "v1\n"}
	files := []File{
		{Name: "arguments/prop_001.md", Data: []byte(next["arguments/prop_001.md"])},
		{Name: "scores.json", Data: []byte(next["scores.json"])},
		{Name: "debate.md", Data: []byte(next["debate.md"])},
	}
	for n := 1; ; n++ {
		dir, d := newDebate(t)
		lock(t, d)
		withFault(d, n)
		err := d.Commit(files)
		if err == nil {
			if n-1 != 2*len(files)+3 {
				t.Fatalf("the commit has %d write operations, want %d", n-1, 2*len(files)+3)
			}
			break
		}
		t.Run(fmt.Sprint("fault ", n), func(t *testing.T) {
			var incomplete *IncompleteError
			journaled := errors.As(err, &incomplete)
			// The journal and each file are written (1 to 1+len(files)),
			// then the journal is renamed into place: the commit point.
			if journaled != (n > len(files)+2) {
				t.Fatalf("fault at operation %d: error %v; the journal is renamed into place by operation %d", n, err, len(files)+2)
			}
			want := old
			if journaled {
				want = next
			}
			reader := open(t, dir)
			for name, content := range want {
				got, err := reader.ReadFile(name)
				if err != nil || string(got) != content {
					t.Errorf("a reader sees %s as %q (%v), want %q", name, got, err, content)
				}
			}
			d.Close()
			writer := open(t, dir)
			lock(t, writer)
			if err := writer.Recover(); err != nil {
				t.Fatalf("Recover: %v", err)
			}
			got := tree(t, dir)
			for name, content := range want {
				if got[name] != content {
					t.Errorf("after Recover %s is %q, want %q", name, got[name], content)
				}
			}
			for name := range got {
				if strings.Contains(name, ".tmp-") || name == JournalFile {
					t.Errorf("%s is left after Recover", name)
				}
			}
		})
	}
}

// TestReplayIsIdempotent replays the same journal twice: files end the
// same as after one replay.
func TestReplayIsIdempotent(t *testing.T) {
	dir, d := newDebate(t)
	lock(t, d)
	withFault(d, 6) // after the journal and the first file
	if err := d.Commit([]File{{Name: "a", Data: []byte("A")}, {Name: "b", Data: []byte("B")}}); err == nil {
		t.Fatal("the fault did not fire")
	}
	journal, err := os.ReadFile(filepath.Join(dir, JournalFile))
	if err != nil {
		t.Fatal(err)
	}
	d.Close()
	for i := 0; i < 2; i++ {
		os.WriteFile(filepath.Join(dir, JournalFile), journal, 0o644)
		w := open(t, dir)
		lock(t, w)
		if err := w.Recover(); err != nil {
			t.Fatal(err)
		}
		w.Close()
		got := tree(t, dir)
		if got["a"] != "A" || got["b"] != "B" || got["debate.md"] != "v0\n" {
			t.Fatalf("replay %d left %v", i+1, got)
		}
	}
}

func TestCreateIsAllOrNothing(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, "demo")
	if _, err := os.Stat(dir); err == nil {
		t.Fatal("exists")
	}
	d, err := Create(dir, []string{"arguments"}, []File{{Name: "debate.md", Data: []byte("x\n")}})
	if err != nil {
		t.Fatal(err)
	}
	d.Close()
	entries, _ := os.ReadDir(root)
	if len(entries) != 1 || entries[0].Name() != "demo" {
		t.Fatalf("the root holds %v, want only demo", entries)
	}
	if got := tree(t, dir); got["debate.md"] != "x\n" || got[LockFile] != "" || got[GitignoreFile] != Gitignore || len(got) != 6 { // .moot/, .moot/lock, .moot/.gitignore, .moot/tmp/, arguments/, debate.md
		t.Fatalf("the new debate holds %v", got)
	}
	before := tree(t, dir)
	if _, err := Create(dir, nil, []File{{Name: "debate.md", Data: []byte("y\n")}}); err == nil || !strings.Contains(err.Error(), "already exists") {
		t.Fatalf("Create over an existing debate: %v", err)
	}
	if diff := diffTrees(before, tree(t, dir)); len(diff) > 0 {
		t.Fatalf("the existing debate changed: %v", diff)
	}
	if entries, _ := os.ReadDir(root); len(entries) != 1 {
		t.Fatalf("a refused Create left %v", entries)
	}
}

// TestSnapshotNeverSeesHalfACommit has a writer commit numbered versions
// of three files, the state file last, while readers read them through
// Snapshot: every read must see one version in all three files.
func TestSnapshotNeverSeesHalfACommit(t *testing.T) {
	dir, w := newDebate(t)
	lock(t, w)
	const versions = 40
	var wg sync.WaitGroup
	done := make(chan struct{})
	wg.Add(1)
	go func() {
		defer wg.Done()
		defer close(done)
		for v := 1; v <= versions; v++ {
			data := []byte(fmt.Sprint(v))
			if err := w.Commit([]File{{Name: "arguments/a", Data: data}, {Name: "b", Data: data}, {Name: "debate.md", Data: data}}); err != nil {
				t.Error(err)
				return
			}
		}
	}()
	var reads atomic.Int64
	for i := 0; i < 2; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := open(t, dir)
			for {
				select {
				case <-done:
					return
				default:
				}
				var got [3][]byte
				err := r.Snapshot(func() error {
					var err error
					got[0], err = r.ReadFile("debate.md")
					if err != nil {
						return err
					}
					if _, err := r.List("arguments", ""); err != nil {
						return err
					}
					if got[1], err = r.ReadFile("b"); errors.Is(err, fs.ErrNotExist) {
						got[1] = []byte("v0\n")
					} else if err != nil {
						return err
					}
					if got[2], err = r.ReadFile("arguments/a"); errors.Is(err, fs.ErrNotExist) {
						got[2] = []byte("v0\n")
					} else if err != nil {
						return err
					}
					return nil
				})
				if err != nil {
					t.Error(err)
					return
				}
				if !bytes.Equal(got[0], got[1]) || !bytes.Equal(got[0], got[2]) {
					t.Errorf("a reader saw a half commit: debate.md %q, b %q, arguments/a %q", got[0], got[1], got[2])
					return
				}
				reads.Add(1)
			}
		}()
	}
	wg.Wait()
	if reads.Load() == 0 {
		t.Fatal("no read completed")
	}
}
