package store

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gofrs/flock"
)

// sparse makes name inside dir a file of size bytes that takes no room.
func sparse(t *testing.T, dir, name string, size int64) {
	t.Helper()
	p := filepath.Join(dir, filepath.FromSlash(name))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	f, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := f.Truncate(size); err != nil {
		t.Fatal(err)
	}
}

// TestEveryReadIsLimited puts a file over MaxFileSize (sparse, so cheap)
// where each read of the store looks, the journal and moot's private
// files included: each read is refused with an error naming the file.
func TestEveryReadIsLimited(t *testing.T) {
	tests := []struct {
		name string
		file string
		size int64
		read func(t *testing.T, dir string) error
	}{
		{"journal just over the limit", JournalFile, MaxFileSize + 1, func(t *testing.T, dir string) error {
			d, err := Open(dir)
			if err == nil {
				d.Close()
			}
			return err
		}},
		{"journal of 6 GiB", JournalFile, 6 << 30, func(t *testing.T, dir string) error {
			d, err := Open(dir)
			if err == nil {
				d.Close()
			}
			return err
		}},
		{"debate file", "arguments/a.md", 6 << 30, func(t *testing.T, dir string) error {
			_, err := open(t, dir).ReadFile("arguments/a.md")
			return err
		}},
		{"private file", ".moot/answers/x.json", 6 << 30, func(t *testing.T, dir string) error {
			_, err := open(t, dir).ReadPrivate("answers/x.json")
			return err
		}},
		{"template in the debate", "templates/judge.md", MaxFileSize + 1, func(t *testing.T, dir string) error {
			_, err := open(t, dir).ReadDebateFolder("templates", ".md")
			return err
		}},
		{"template folder outside", "templates/judge.md", MaxFileSize + 1, func(t *testing.T, dir string) error {
			_, err := ReadFolder(filepath.Join(dir, "templates"), ".md")
			return err
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir, d := newDebate(t)
			d.Close()
			sparse(t, dir, tc.file, tc.size)
			start := time.Now()
			err := tc.read(t, dir)
			var se *SizeError
			if !errors.As(err, &se) || se.Total || !strings.Contains(err.Error(), filepath.Base(tc.file)) {
				t.Fatalf("got %v, want a size error naming %s", err, tc.file)
			}
			if took := time.Since(start); took > 5*time.Second {
				t.Errorf("refusing took %v: the file was read", took)
			}
		})
	}
}

// TestADebateAsAWholeIsLimited gives a debate argument files that are
// each under MaxFileSize but together over the limit of one load (lowered
// here so that the test reads little): the load stops at the file that
// crosses it, naming that file and the limit.
func TestADebateAsAWholeIsLimited(t *testing.T) {
	defer func(was int64) { debateBudget = was }(debateBudget)
	debateBudget = 3 << 20
	dir, d := newDebate(t)
	d.Close()
	for _, n := range []string{"a", "b", "c", "d"} {
		sparse(t, dir, "arguments/"+n+".md", 1<<20)
	}
	r := open(t, dir)
	var read []string
	err := r.Snapshot(func() error {
		read = nil
		if _, err := r.ReadFile("debate.md"); err != nil {
			return err
		}
		names, err := r.List("arguments", ".md")
		if err != nil {
			return err
		}
		for _, n := range names {
			if _, err := r.ReadFile("arguments/" + n); err != nil {
				return err
			}
			read = append(read, n)
		}
		return nil
	})
	var se *SizeError
	if !errors.As(err, &se) || !se.Total || se.Name != "arguments/c.md" || !strings.Contains(err.Error(), "3 MiB") {
		t.Fatalf("got %v, want the limit of the whole debate crossed by arguments/c.md", err)
	}
	if strings.Join(read, " ") != "a.md b.md" {
		t.Errorf("read %v before stopping, want a.md and b.md", read)
	}
	// The limit is per load: the next one starts again.
	if _, err := r.ReadFile("arguments/d.md"); err != nil {
		t.Errorf("a read outside the load: %v", err)
	}
	if _, err := r.ReadDebateFolder("arguments", ".md"); !errors.As(err, &se) || !se.Total {
		t.Errorf("ReadDebateFolder of 4 MiB: %v, want the limit of the whole debate", err)
	}
}

// TestInPlaceWritesRefuseHardLinks links the files moot writes in place
// (the lock file, the usage log) to a file outside the debate: the write
// is refused naming the file, and the outside file keeps its content.
// Files replaced by rename are replaced, leaving the other name alone.
func TestInPlaceWritesRefuseHardLinks(t *testing.T) {
	tests := []struct {
		name  string
		file  string
		write func(d *Dir) error
	}{
		{"lock file", LockFile, func(d *Dir) error {
			err := d.Lock(context.Background(), "moot test", false)
			return err
		}},
		{"usage log", PrivateDir + "/usage.jsonl", func(d *Dir) error {
			return d.AppendPrivate("usage.jsonl", []byte("{}\n"))
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir, d := newDebate(t)
			d.Close()
			outside := linkOutside(t, dir, tc.file)
			err := tc.write(open(t, dir))
			var le *LinkedError
			if !errors.As(err, &le) || le.Name != tc.file || !strings.Contains(err.Error(), tc.file) {
				t.Fatalf("got %v, want a refusal naming %s", err, tc.file)
			}
			if b, _ := os.ReadFile(outside); string(b) != "precious\n" {
				t.Fatalf("the file outside now holds %q", b)
			}
		})
	}
	t.Run("replaced files", func(t *testing.T) {
		dir, d := newDebate(t)
		d.Close()
		outside := linkOutside(t, dir, "arguments/a.md")
		w := openDir(t, dir)
		if err := w.Commit([]File{{Name: "arguments/a.md", Data: []byte("new\n")}}); err != nil {
			t.Fatal(err)
		}
		if b, _ := os.ReadFile(outside); string(b) != "precious\n" {
			t.Fatalf("a commit changed the other name of a replaced file: %q", b)
		}
	})
}

// linkOutside makes name, in the debate at dir, a hard link to a new file
// outside the debate holding "precious\n", and returns that file's path.
func linkOutside(t *testing.T, dir, name string) string {
	t.Helper()
	outside := filepath.Join(t.TempDir(), "precious")
	if err := os.WriteFile(outside, []byte("precious\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, filepath.FromSlash(name))
	os.Remove(p)
	if err := os.Link(outside, p); err != nil {
		t.Fatal(err)
	}
	return outside
}

// TestReadsRefuseHardLinks links each kind of file moot reads to a file
// outside the debate: the read is refused with a *LinkedError naming the
// file and saying why, rather than reading what may be another file's
// content. A lock file so linked names no writer.
func TestReadsRefuseHardLinks(t *testing.T) {
	tests := []struct {
		name string
		file string
		read func(t *testing.T, dir string) error
	}{
		{"debate.md", "debate.md", func(t *testing.T, dir string) error {
			_, err := open(t, dir).ReadFile("debate.md")
			return err
		}},
		{"an argument", "arguments/a.md", func(t *testing.T, dir string) error {
			_, err := open(t, dir).ReadDebateFolder("arguments", ".md")
			return err
		}},
		{"an argument in a snapshot", "arguments/a.md", func(t *testing.T, dir string) error {
			d := open(t, dir)
			return d.Snapshot(func() error {
				_, err := d.ReadFile("arguments/a.md")
				return err
			})
		}},
		{"a private file", PrivateDir + "/usage.jsonl", func(t *testing.T, dir string) error {
			_, err := open(t, dir).ReadPrivate("usage.jsonl")
			return err
		}},
		{"the journal", JournalFile, func(t *testing.T, dir string) error {
			d, err := Open(dir)
			if err == nil {
				d.Close()
			}
			return err
		}},
		{"the commit mark", CommitFile, func(t *testing.T, dir string) error {
			d := open(t, dir)
			return d.Snapshot(func() error { return nil })
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir, d := newDebate(t)
			d.Close()
			linkOutside(t, dir, tc.file)
			err := tc.read(t, dir)
			var le *LinkedError
			if !errors.As(err, &le) || le.Name != tc.file || le.Links != 2 {
				t.Fatalf("got %v, want a *LinkedError for %s with 2 links", err, tc.file)
			}
			for _, want := range []string{tc.file + " has 2 hard links", "outside the debate", "copy it"} {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("message %q does not say %q", err, want)
				}
			}
		})
	}
	t.Run("lock file", func(t *testing.T) {
		dir, d := newDebate(t)
		d.Close()
		outside := linkOutside(t, dir, LockFile)
		holder := fmt.Sprintf(`{"pid": %d, "command": "moot run demo"}`, os.Getpid())
		if err := os.WriteFile(outside, []byte(holder), 0o644); err != nil {
			t.Fatal(err)
		}
		fl := flock.New(outside)
		if ok, err := fl.TryLock(); !ok || err != nil {
			t.Fatalf("flock: %v, %v", ok, err)
		}
		defer fl.Close()
		if h := open(t, dir).Writer(); h != nil {
			t.Fatalf("Writer() = %+v from a hard-linked lock file, want none", h)
		}
	})
}

// TestSnapshotSeesCommitsWhenInodesAreReused pauses a reader between two
// reads while a commit happens, and then gives debate.md back the inode
// the reader saw, with the new content, as a file system that reuses a
// freed inode does: the reader must notice the commit and read again, so
// that it never returns the old debate.md with a new argument.
func TestSnapshotSeesCommitsWhenInodesAreReused(t *testing.T) {
	dir, d := newDebate(t)
	d.Close()
	w := openDir(t, dir)
	if err := w.Commit([]File{{Name: "arguments/a.md", Data: []byte("1")}, {Name: "debate.md", Data: []byte("1")}}); err != nil {
		t.Fatal(err)
	}
	r := open(t, dir)
	keep := filepath.Join(t.TempDir(), "debate.md")
	attempts := 0
	var state, arg []byte
	err := r.Snapshot(func() error {
		attempts++
		var err error
		if state, err = r.ReadFile("debate.md"); err != nil {
			return err
		}
		if attempts == 1 {
			// The reader pauses; a writer commits.
			if err := os.Link(filepath.Join(dir, "debate.md"), keep); err != nil {
				return err
			}
			if err := w.Commit([]File{{Name: "arguments/a.md", Data: []byte("2")}, {Name: "debate.md", Data: []byte("2")}}); err != nil {
				return err
			}
			// The new debate.md gets the inode of the old one.
			if err := os.WriteFile(keep, []byte("2"), 0o644); err != nil {
				return err
			}
			if err := os.Rename(keep, filepath.Join(dir, "debate.md")); err != nil {
				return err
			}
		}
		arg, err = r.ReadFile("arguments/a.md")
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if string(state) != string(arg) {
		t.Fatalf("the reader saw half of a commit: debate.md %q, arguments/a.md %q", state, arg)
	}
	if attempts != 2 {
		t.Errorf("read %d times, want 2", attempts)
	}
}

// TestJournalThatCannotBeCompleted writes journals that name no file a
// writer could ever write: opening the debate fails, for readers and
// writers alike, with a *JournalError naming the journal and the entry,
// and a commit with such a file is refused before anything is written.
func TestJournalThatCannotBeCompleted(t *testing.T) {
	tests := []struct {
		name, entry string
		also        string // a second entry, written first
	}{
		{"the debate folder", ".", ""},
		{"inside debate.md", "debate.md/x", ""},
		{"absolute", "/etc/passwd", ""},
		{"climbing out", "..", ""},
		{"climbing out further", "../x", ""},
		{"under .moot", ".moot/lock", ""},
		{"inside another file of the step", "graph/x.mmd", "graph"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir, d := newDebate(t)
			d.Close()
			var files []File
			if tc.also != "" {
				files = append(files, File{Name: tc.also, Data: []byte("x")})
			}
			files = append(files, File{Name: tc.entry, Data: []byte("x")})
			j, _ := json.Marshal(journal{Files: files})
			if err := os.WriteFile(filepath.Join(dir, filepath.FromSlash(JournalFile)), j, 0o644); err != nil {
				t.Fatal(err)
			}
			_, err := Open(dir)
			var je *JournalError
			if !errors.As(err, &je) || je.Entry != tc.entry || !strings.Contains(err.Error(), filepath.Join(dir, ".moot", "journal.json")) {
				t.Fatalf("Open: %v, want a journal error naming the journal and %q", err, tc.entry)
			}

			os.Remove(filepath.Join(dir, filepath.FromSlash(JournalFile)))
			w := openDir(t, dir)
			before := tree(t, dir)
			if err := w.Commit(append(files, File{Name: "debate.md", Data: []byte("v1\n")})); err == nil {
				t.Fatal("Commit accepted the step")
			}
			if diff := diffTrees(before, tree(t, dir)); len(diff) > 0 {
				t.Fatalf("a refused commit changed the debate: %v", diff)
			}
		})
	}
}

// TestStaleStagesAreRemoved leaves, beside where Create makes a debate,
// the staging folders of killed Creates and look-alikes: only the stale
// ones that are clearly Create's go.
func TestStaleStagesAreRemoved(t *testing.T) {
	root := t.TempDir()
	old := time.Now().Add(-2 * StaleStage)
	mk := func(name string, files []string, mtime time.Time) {
		p := filepath.Join(root, name)
		for _, f := range files {
			sparse(t, p, f, 0)
		}
		os.MkdirAll(p, 0o755)
		if err := os.Chtimes(p, mtime, mtime); err != nil {
			t.Fatal(err)
		}
	}
	mk(".tmp-new-a-0123456789ab", []string{LockFile, "debate.md"}, old) // killed before its rename
	mk(".tmp-new-b-0123456789ab", nil, old)                             // killed right after its mkdir
	mk(".tmp-new-c-0123456789ab", []string{LockFile}, time.Now())       // perhaps still being made
	mk(".tmp-new-d-0123456789ab", []string{"notes.txt"}, old)           // not moot's
	mk(".tmp-new-mine", []string{LockFile}, old)                        // not named as moot names
	gone := []string{".tmp-new-a-0123456789ab", ".tmp-new-b-0123456789ab"}
	kept := []string{".tmp-new-c-0123456789ab", ".tmp-new-d-0123456789ab", ".tmp-new-mine"}
	d, err := Create(filepath.Join(root, "demo"), nil, []File{{Name: "debate.md", Data: []byte("x\n")}})
	if err != nil {
		t.Fatal(err)
	}
	d.Close()
	for _, n := range gone {
		if _, err := os.Lstat(filepath.Join(root, n)); err == nil {
			t.Errorf("%s was left", n)
		}
	}
	for _, n := range kept {
		if _, err := os.Lstat(filepath.Join(root, n)); err != nil {
			t.Errorf("%s was removed", n)
		}
	}
}

// TestJournalWithAKeyTwice: a journal whose object holds a key twice (a
// second "files", which would replace the step recorded) is not one moot
// wrote: opening the debate fails with a *JournalError naming the key.
func TestJournalWithAKeyTwice(t *testing.T) {
	dir, d := newDebate(t)
	d.Close()
	one, _ := json.Marshal(journal{Files: []File{{Name: "debate.md", Data: []byte("v1\n")}}})
	two, _ := json.Marshal(journal{Files: []File{{Name: "debate.md", Data: []byte("v2\n")}}})
	j := append(bytes.TrimSuffix(one, []byte("}")), ',')
	j = append(j, bytes.TrimPrefix(two, []byte("{"))...)
	if err := os.WriteFile(filepath.Join(dir, filepath.FromSlash(JournalFile)), j, 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := Open(dir)
	var je *JournalError
	if !errors.As(err, &je) || !strings.Contains(err.Error(), `"files" appears twice`) {
		t.Fatalf("Open: %v, want a journal error naming the second files", err)
	}
}
