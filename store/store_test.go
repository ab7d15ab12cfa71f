package store

import (
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/moot-dev/moot/internal/faults"
	"github.com/moot-dev/moot/internal/testkit/fixture"
)

// newDebate makes a debate directory holding the given files.
func makeDebate(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "debate")
	for name, data := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

// openDir opens dir for writing, holding its lock.
func openDir(t *testing.T, dir string) *Dir {
	t.Helper()
	d, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	if err := d.Lock(context.Background(), "test", false); err != nil {
		t.Fatal(err)
	}
	return d
}

// readTree reads the files and links under dir, as fixture.Tree does,
// without folders, the lock file and CommitFile, which record moot's own
// bookkeeping rather than anything of the debate.
func readTree(t *testing.T, dir string) map[string]string {
	t.Helper()
	return fixture.Without(tree(t, dir), func(p string) bool { return fixture.Folder(p) || fixture.LockFile(p) || p == CommitFile })
}

func sameTree(t *testing.T, got, want map[string]string) {
	t.Helper()
	if diffs := fixture.Diff(want, got); len(diffs) > 0 {
		t.Errorf("directory differs: %s", strings.Join(diffs, ", "))
	}
}

var before = map[string]string{
	"debate.md":             "state 1\n",
	"scores.json":           "{}\n",
	"arguments/prop_001.md": "old prop\n",
}

var step = []File{
	{Name: "arguments/prop_001.md", Data: []byte("new prop\n")},
	{Name: "arguments/opp_001.md", Data: []byte("new opp\n")},
	{Name: "nested/dir/graph.mmd", Data: []byte("graph\n")},
	{Name: "debate.md", Data: []byte("state 2\n")},
}

// after is the directory once step is committed over before.
func after() map[string]string {
	m := map[string]string{}
	for k, v := range before {
		m[k] = v
	}
	for _, f := range step {
		m[f.Name] = string(f.Data)
	}
	return m
}

func TestCommit(t *testing.T) {
	dir := makeDebate(t, before)
	d := openDir(t, dir)
	if err := d.Commit(step); err != nil {
		t.Fatal(err)
	}
	// Everything written, nothing else left: no journal, no temporary file.
	sameTree(t, readTree(t, dir), after())
	if d.Pending() {
		t.Error("Pending after a completed commit")
	}
	for _, f := range step {
		got, err := d.ReadFile(f.Name)
		if err != nil || string(got) != string(f.Data) {
			t.Errorf("ReadFile(%s) = %q, %v", f.Name, got, err)
		}
	}
	names, err := d.List("arguments", ".md")
	if err != nil || strings.Join(names, " ") != "opp_001.md prop_001.md" {
		t.Errorf("List = %v, %v", names, err)
	}
}

func TestOpenAndCreate(t *testing.T) {
	if _, err := Open(filepath.Join(t.TempDir(), "nope")); err == nil || !strings.Contains(err.Error(), "no such debate directory") {
		t.Errorf("Open of a missing directory: %v", err)
	}
	file := filepath.Join(t.TempDir(), "file")
	os.WriteFile(file, nil, 0o644)
	if _, err := Open(file); err == nil || !strings.Contains(err.Error(), "not a directory") {
		t.Errorf("Open of a file: %v", err)
	}
	dir := filepath.Join(t.TempDir(), "a", "b")
	d, err := Create(dir, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	d.Close()
	if _, err := Create(dir, nil, nil); err == nil || !strings.Contains(err.Error(), "already exists") {
		t.Errorf("Create of an existing directory: %v", err)
	}
}

// countOps runs a commit with fault injection armed but never firing, and
// returns how many operations it counts.
func countOps(t *testing.T, files []File) int {
	t.Helper()
	dir := makeDebate(t, before)
	d := openDir(t, dir)
	d.hooks = faults.Plan{At: 1 << 62}.Hook()
	faults.ResetCount()
	if err := d.Commit(files); err != nil {
		t.Fatal(err)
	}
	return int(faults.Count())
}

// TestCommitFaults fails every operation of a commit in turn, as
// MOOT_FAULT=fail:N does, and checks what readers then see: the old files
// when the journal was not written, else the new ones, which Recover then
// puts on disk.
func TestCommitFaults(t *testing.T) {
	ops := countOps(t, step)
	// Journal and each file: write (all first) and rename; the removal of
	// the journal.
	if want := 2 + 2*len(step) + 1; ops != want {
		t.Fatalf("a commit of %d files counts %d operations, want %d", len(step), ops, want)
	}
	sawOld, sawNew := false, false
	for n := 1; n <= ops; n++ {
		t.Run("fail:"+strconv.Itoa(n), func(t *testing.T) {
			dir := makeDebate(t, before)
			d, err := Open(dir)
			if err != nil {
				t.Fatal(err)
			}
			if err := d.Lock(context.Background(), "test", false); err != nil {
				t.Fatal(err)
			}
			// Armed after the lock, so that N counts the commit's operations.
			plan, ok := faults.Parse("fail:" + strconv.Itoa(n))
			if !ok {
				t.Fatal("faults.Parse refuses fail:N")
			}
			d.hooks = plan.Hook()
			faults.ResetCount()
			err = d.Commit(step)
			d.Close()
			if err == nil || !strings.Contains(err.Error(), "injected fault") {
				t.Fatalf("Commit = %v, want the injected fault", err)
			}

			// A reader opening the directory afterwards.
			r := openDir(t, dir)
			pending := r.Pending()
			want := before
			if pending {
				want = after()
				sawNew = true
			} else {
				sawOld = true
			}
			for name, data := range want {
				got, err := r.ReadFile(name)
				if err != nil || string(got) != data {
					t.Errorf("ReadFile(%s) = %q, %v; want %q", name, got, err, data)
				}
			}
			names, _ := r.List("arguments", ".md")
			if pending != (strings.Join(names, " ") == "opp_001.md prop_001.md") {
				t.Errorf("List sees %v (pending %v)", names, pending)
			}
			if pending != r.Exists("arguments/opp_001.md") {
				t.Errorf("Exists(opp_001.md) is %v (pending %v)", !pending, pending)
			}

			// The next writer completes it; the disk then holds exactly the
			// new files, or still the old ones (moot's private dir aside).
			if err := r.Recover(); err != nil {
				t.Fatal(err)
			}
			if r.Pending() {
				t.Error("still pending after Recover")
			}
			got := readTree(t, dir)
			for k := range got {
				if strings.HasPrefix(k, PrivateDir+"/") {
					delete(got, k)
				}
			}
			sameTree(t, got, want)
			if _, err := os.Stat(filepath.Join(dir, filepath.FromSlash(JournalFile))); !errors.Is(err, fs.ErrNotExist) {
				t.Errorf("journal still there: %v", err)
			}
		})
	}
	if !sawOld || !sawNew {
		t.Errorf("faults never left the old state (%v) or never the journal (%v)", sawOld, sawNew)
	}
}

// TestFailedCommitSeenBySameDir checks that the Dir whose commit failed
// after writing its journal also reads the step as applied, and completes
// it on its next commit, rather than reading half-written files.
func TestFailedCommitSeenBySameDir(t *testing.T) {
	ops := countOps(t, step)
	// Operations 1 to len(step)+1 write the journal and the files to
	// temporary files; len(step)+2 renames the journal into place.
	for n := len(step) + 3; n <= ops; n++ {
		t.Run("fail:"+strconv.Itoa(n), func(t *testing.T) {
			dir := makeDebate(t, before)
			d := openDir(t, dir)
			d.hooks = faults.Plan{At: int64(n)}.Hook()
			faults.ResetCount()
			if err := d.Commit(step); err == nil {
				t.Fatal("no fault")
			}
			d.hooks = nil
			for name, data := range after() {
				got, err := d.ReadFile(name)
				if err != nil || string(got) != data {
					t.Errorf("ReadFile(%s) = %q, %v; want %q", name, got, err, data)
				}
			}
			// The next commit completes the interrupted one first.
			if err := d.Commit([]File{{Name: "scores.json", Data: []byte("{\"x\": 1}\n")}}); err != nil {
				t.Fatal(err)
			}
			want := after()
			want["scores.json"] = "{\"x\": 1}\n"
			sameTree(t, readTree(t, dir), want)
		})
	}
}

func TestHandWrittenJournal(t *testing.T) {
	dir := makeDebate(t, before)
	j, _ := json.Marshal(journal{Files: step})
	os.MkdirAll(filepath.Join(dir, PrivateDir), 0o755)
	if err := os.WriteFile(filepath.Join(dir, filepath.FromSlash(JournalFile)), j, 0o644); err != nil {
		t.Fatal(err)
	}
	d := openDir(t, dir)
	if !d.Pending() {
		t.Fatal("journal not seen")
	}
	for name, data := range after() {
		got, err := d.ReadFile(name)
		if err != nil || string(got) != data {
			t.Errorf("ReadFile(%s) = %q, %v", name, got, err)
		}
	}
	if names, _ := d.List("nested/dir", ".mmd"); strings.Join(names, " ") != "graph.mmd" {
		t.Errorf("List of a directory only the journal has: %v", names)
	}
	if err := d.Recover(); err != nil {
		t.Fatal(err)
	}
	sameTree(t, readTree(t, dir), after())
	// Recover with nothing pending does nothing.
	if err := d.Recover(); err != nil {
		t.Fatal(err)
	}
}

func TestBadJournal(t *testing.T) {
	tests := map[string]string{
		"climbs out":     `{"files": [{"name": "../outside", "data": "eA=="}]}`,
		"absolute":       `{"files": [{"name": "/etc/passwd", "data": "eA=="}]}`,
		"private file":   `{"files": [{"name": ".moot/lock", "data": "eA=="}]}`,
		"not JSON":       `{"files": [`,
		"dot dot inside": `{"files": [{"name": "arguments/../../x", "data": "eA=="}]}`,
	}
	for name, j := range tests {
		t.Run(name, func(t *testing.T) {
			dir := makeDebate(t, before)
			os.MkdirAll(filepath.Join(dir, PrivateDir), 0o755)
			os.WriteFile(filepath.Join(dir, filepath.FromSlash(JournalFile)), []byte(j), 0o644)
			if d, err := Open(dir); err == nil {
				d.Close()
				t.Fatal("Open accepted the journal")
			} else if !strings.Contains(err.Error(), JournalFile) {
				t.Errorf("error %q does not name the journal", err)
			}
		})
	}
}

func TestBadNames(t *testing.T) {
	dir := makeDebate(t, before)
	outside := filepath.Join(filepath.Dir(dir), "outside.md")
	os.WriteFile(outside, []byte("secret\n"), 0o644)
	d := openDir(t, dir)
	for _, name := range []string{"", "..", "../outside.md", "arguments/../../outside.md", "/etc/passwd", outside, "./debate.md", "arguments//x.md", "arguments/", `arguments\x.md`, "a\x00b"} {
		t.Run(name, func(t *testing.T) {
			if _, err := d.ReadFile(name); err == nil {
				t.Error("ReadFile accepted it")
			}
			if d.Exists(name) {
				t.Error("Exists accepted it")
			}
			if _, err := d.List(name, ".md"); err == nil {
				t.Error("List accepted it")
			}
			if err := d.Commit([]File{{Name: "debate.md", Data: []byte("changed\n")}, {Name: name, Data: []byte("x")}}); err == nil {
				t.Error("Commit accepted it")
			}
			if err := d.Mkdir(name); err == nil {
				t.Error("Mkdir accepted it")
			}
		})
	}
	// Nothing was written anywhere.
	sameTree(t, readTree(t, dir), before)
	if data, _ := os.ReadFile(outside); string(data) != "secret\n" {
		t.Errorf("outside file changed: %q", data)
	}
}

// TestSymlinks checks that links inside a debate are neither read through
// nor written through, whether they point outside or inside.
func TestSymlinks(t *testing.T) {
	tests := []struct {
		name string
		// link is the path inside the debate; target where it points,
		// relative to the parent of the debate directory when it starts
		// with "out/".
		link, target string
		read         string // a file to read through the link
		write        string // a file to write through the link
	}{
		{name: "file pointing outside", link: "arguments/opp_001.md", target: "out/file.md", read: "arguments/opp_001.md", write: "arguments/opp_001.md"},
		{name: "debate.md pointing outside", link: "debate.md", target: "out/file.md", read: "debate.md", write: "debate.md"},
		{name: "arguments pointing outside", link: "arguments", target: "out", read: "arguments/file.md", write: "arguments/prop_002.md"},
		{name: "file pointing inside", link: "arguments/opp_001.md", target: "prop_001.md", read: "arguments/opp_001.md", write: "arguments/opp_001.md"},
		{name: "arguments pointing inside", link: "arguments", target: "sub", read: "arguments/file.md", write: "arguments/prop_002.md"},
		{name: "private dir pointing outside", link: ".moot", target: "out", read: ".moot/file.md", write: "scores.json"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			files := map[string]string{}
			for k, v := range before {
				files[k] = v
			}
			if tc.link == "arguments" {
				delete(files, "arguments/prop_001.md")
			}
			if tc.link == "debate.md" {
				delete(files, "debate.md")
			}
			if tc.target == "sub" {
				files["sub/file.md"] = "inside\n"
			}
			dir := makeDebate(t, files)
			out := filepath.Join(filepath.Dir(dir), "out")
			os.MkdirAll(out, 0o755)
			os.WriteFile(filepath.Join(out, "file.md"), []byte("outside\n"), 0o644)
			target := tc.target
			if strings.HasPrefix(target, "out") {
				target = filepath.Join(filepath.Dir(dir), target)
			}
			link := filepath.Join(dir, filepath.FromSlash(tc.link))
			os.MkdirAll(filepath.Dir(link), 0o755)
			if err := os.Symlink(target, link); err != nil {
				t.Fatal(err)
			}
			wantInside, wantOutside := readTree(t, dir), readTree(t, out)

			d, err := Open(dir)
			if err != nil {
				// Refusing the whole directory is refusing too.
				if !strings.Contains(err.Error(), tc.link) {
					t.Errorf("Open refused with %q, which does not name %s", err, tc.link)
				}
				sameTree(t, readTree(t, out), wantOutside)
				return
			}
			defer d.Close()
			if data, err := d.ReadFile(tc.read); err == nil {
				t.Errorf("ReadFile(%s) read through the link: %q", tc.read, data)
			}
			if tc.link == "arguments" {
				if names, err := d.List("arguments", ".md"); err == nil {
					t.Errorf("List read through the link: %v", names)
				}
			}
			err = d.Commit([]File{{Name: tc.write, Data: []byte("written\n")}, {Name: "debate.md", Data: []byte("state 2\n")}})
			if err == nil {
				t.Fatalf("Commit wrote %s through the link", tc.write)
			}
			sameTree(t, readTree(t, out), wantOutside)
			// The refused commit changed nothing inside either, and left no
			// journal that would make readers see it as done.
			got := readTree(t, dir)
			for k := range got {
				if strings.HasPrefix(k, PrivateDir+"/") && tc.link != ".moot" {
					delete(got, k)
				}
			}
			sameTree(t, got, wantInside)
			d2, err := Open(dir)
			if err != nil {
				t.Fatalf("reopen: %v", err)
			}
			defer d2.Close()
			if d2.Pending() {
				t.Error("the refused commit left a journal behind")
			}
		})
	}
}

func TestListAndExists(t *testing.T) {
	dir := makeDebate(t, map[string]string{
		"debate.md":             "x",
		"arguments/b.md":        "b",
		"arguments/a.md":        "a",
		"arguments/.tmp-c.md-1": "tmp",
		"arguments/notes.txt":   "n",
	})
	os.Mkdir(filepath.Join(dir, "arguments", "sub.md"), 0o755)
	d := openDir(t, dir)
	names, err := d.List("arguments", ".md")
	if err != nil {
		t.Fatal(err)
	}
	// Sorted, hidden temporary files left out. (A directory whose name ends
	// in .md is listed; reading it fails.)
	if got := strings.Join(names, " "); got != "a.md b.md sub.md" {
		t.Errorf("List = %q", got)
	}
	if _, err := d.ReadFile("arguments/sub.md"); err == nil {
		t.Error("ReadFile read a directory")
	}
	if names, err := d.List("missing", ".md"); err != nil || len(names) != 0 {
		t.Errorf("List of a missing directory = %v, %v", names, err)
	}
	if !d.Exists("arguments/a.md") || d.Exists("arguments/z.md") {
		t.Error("Exists is wrong")
	}
	if _, err := d.ReadFile("arguments/z.md"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("ReadFile of a missing file: %v, want fs.ErrNotExist", err)
	}
}

// TestSnapshotSeesAReplacedFolder checks that a Dir kept open (as moot
// watch keeps one) reads a folder replaced since its last read, not the
// folder it read then.
func TestSnapshotSeesAReplacedFolder(t *testing.T) {
	dir := makeDebate(t, before)
	d, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	read := func() string {
		var data []byte
		if err := d.Snapshot(func() (err error) {
			data, err = d.ReadFile("arguments/prop_001.md")
			return err
		}); err != nil {
			t.Fatal(err)
		}
		return string(data)
	}
	if got := read(); got != before["arguments/prop_001.md"] {
		t.Fatalf("first read %q", got)
	}
	args := filepath.Join(dir, "arguments")
	if err := os.Rename(args, args+".old"); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(args, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(args, "prop_001.md"), []byte("replaced\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := read(); got != "replaced\n" {
		t.Errorf("after the folder was replaced, read %q, want the new file", got)
	}
}

// TestSnapshotRetriesWhenAFolderIsReplacedDuringTheRead checks that a
// folder replaced while a snapshot reads it makes the snapshot read again,
// rather than accept what the old folder held; and that a Dir read outside
// any snapshot sees the new folder too.
func TestSnapshotRetriesWhenAFolderIsReplacedDuringTheRead(t *testing.T) {
	dir := makeDebate(t, before)
	d, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	args := filepath.Join(dir, "arguments")
	replace := func(content string) {
		t.Helper()
		os.RemoveAll(args + ".old")
		if err := os.Rename(args, args+".old"); err != nil {
			t.Fatal(err)
		}
		if err := os.Mkdir(args, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(args, "prop_001.md"), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	attempts := 0
	var data []byte
	if err := d.Snapshot(func() (err error) {
		attempts++
		data, err = d.ReadFile("arguments/prop_001.md")
		if attempts == 1 {
			replace("replaced\n")
		}
		return err
	}); err != nil {
		t.Fatal(err)
	}
	if string(data) != "replaced\n" || attempts != 2 {
		t.Errorf("the snapshot read %q in %d attempts, want the new file in 2", data, attempts)
	}
	if got, err := d.ReadFile("arguments/prop_001.md"); err != nil || string(got) != "replaced\n" {
		t.Fatalf("read outside a snapshot: %q, %v", got, err)
	}
	replace("again\n")
	if got, err := d.ReadFile("arguments/prop_001.md"); err != nil || string(got) != "again\n" {
		t.Errorf("after the folder was replaced again, a read outside a snapshot gave %q, %v; want the new file", got, err)
	}
}
