package store

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

func TestDebates(t *testing.T) {
	root := t.TempDir()
	mk := func(rel string, data string) {
		p := filepath.Join(root, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	mk("b/debate.md", "x")
	mk("a/debate.md", "x")
	mk(".hidden/debate.md", "x")
	mk("notes/readme.md", "x")
	mk("loose.md", "x")
	if err := os.MkdirAll(filepath.Join(root, "dirmarker", "debate.md"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(root, "a"), filepath.Join(root, "link")); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(root, "linked"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(root, "a", "debate.md"), filepath.Join(root, "linked", "debate.md")); err != nil {
		t.Fatal(err)
	}
	got, err := Debates(root, "debate.md")
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"a", "b"}; !slices.Equal(got, want) {
		t.Errorf("Debates = %q, want %q: folders holding a regular debate.md, no links, no hidden ones, in order", got, want)
	}
	// Holds tells the same of one name, without listing root.
	for _, name := range []string{"a", "b", ".hidden", "notes", "loose.md", "dirmarker", "link", "linked", "missing", "", ".", "..", "a/..", "../a", `a\..`} {
		if h := Holds(root, name, "debate.md"); h != slices.Contains(got, name) {
			t.Errorf("Holds(%q) = %v, where Debates lists %q", name, h, got)
		}
	}
	if got, err := Debates(filepath.Join(root, "missing"), "debate.md"); err != nil || len(got) != 0 {
		t.Errorf("Debates of a missing root = %q, %v; want none and no error", got, err)
	}
}

func TestAbsent(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, ".moot"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, ".moot", "live.json"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]bool{".moot/live.json": false, ".moot": false, ".moot/none.json": true, "none/live.json": true} {
		if got := Absent(dir, name); got != want {
			t.Errorf("Absent(%q) = %v, want %v", name, got, want)
		}
	}
}

func TestSignature(t *testing.T) {
	dir := t.TempDir()
	write := func(name, data string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("debate.md", "one")
	before := Signature(dir, "debate.md", "journal.json")
	if again := Signature(dir, "debate.md", "journal.json"); again != before {
		t.Fatal("two signatures of unchanged files differ")
	}
	// Replaced by a file of the same size, as a commit's rename does: the
	// identity tells them apart even within the clock's resolution.
	tmp := filepath.Join(dir, "tmp")
	if err := os.WriteFile(tmp, []byte("two"), 0o644); err != nil {
		t.Fatal(err)
	}
	st, _ := os.Stat(filepath.Join(dir, "debate.md"))
	if err := os.Chtimes(tmp, st.ModTime(), st.ModTime()); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, filepath.Join(dir, "debate.md")); err != nil {
		t.Fatal(err)
	}
	replaced := Signature(dir, "debate.md", "journal.json")
	if replaced == before {
		t.Error("the signature did not change when debate.md was replaced")
	}
	write("journal.json", "{}")
	if Signature(dir, "debate.md", "journal.json") == replaced {
		t.Error("the signature did not change when a journal appeared")
	}
}
