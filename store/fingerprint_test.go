package store

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestStamp: a shallow fingerprint's stamp sees every change the shallow
// fingerprint sees, by moot or by hand, without reading a folder; the
// live file a run replaces at every call changes the stamp (the folder
// it is in) but not the fingerprint, so a page is not rebuilt for it.
func TestStamp(t *testing.T) {
	skip := func(name string) bool {
		return name == PrivateDir+"/live.json" || name == TempDir || strings.HasPrefix(name, TempDir+"/")
	}
	for _, tc := range []struct {
		name string
		// change changes the debate at dir.
		change func(t *testing.T, dir string)
		// stamp and shallow say whether the stamp and the shallow
		// fingerprint see the change; the deep fingerprint sees every
		// one but the live file's.
		stamp, shallow bool
	}{
		{"nothing", func(*testing.T, string) {}, false, false},
		{"a commit's mark renamed over", func(t *testing.T, dir string) { replace(t, dir, CommitFile, "next") }, true, true},
		{"a line appended to the usage log", func(t *testing.T, dir string) {
			f, err := os.OpenFile(filepath.Join(dir, "usage.jsonl"), os.O_APPEND|os.O_WRONLY, 0)
			if err != nil {
				t.Fatal(err)
			}
			f.WriteString("{}\n")
			f.Close()
		}, true, true},
		{"a file added to a folder", func(t *testing.T, dir string) { write(t, dir, "arguments/prop_002.md", "new") }, true, true},
		{"a file of a folder renamed over", func(t *testing.T, dir string) { replace(t, dir, "arguments/prop_001.md", "other") }, true, true},
		{"a file removed from a folder below a folder", func(t *testing.T, dir string) {
			if err := os.Remove(filepath.Join(dir, "arguments", "old", "opp_001.md")); err != nil {
				t.Fatal(err)
			}
		}, true, true},
		{"a folder added", func(t *testing.T, dir string) { write(t, dir, "notes/a.md", "x") }, true, true},
		{"the live file replaced", func(t *testing.T, dir string) { replace(t, dir, PrivateDir+"/live.json", "calls") }, true, false},
		{"a temporary file written", func(t *testing.T, dir string) { write(t, dir, TempDir+"/x", "x") }, false, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			for name, data := range map[string]string{
				"debate.md": "state", "usage.jsonl": "", CommitFile: "first", PrivateDir + "/live.json": "run",
				"arguments/prop_001.md": "one", "arguments/old/opp_001.md": "two", TempDir + "/.keep": "",
			} {
				write(t, dir, name, data)
			}
			sum, stamp, err := ShallowFingerprint(dir, skip)
			if err != nil {
				t.Fatal(err)
			}
			deep, err := Fingerprint(dir, skip, true)
			if err != nil {
				t.Fatal(err)
			}
			if !stamp.Unchanged() {
				t.Fatal("the stamp changed with nothing done")
			}
			// A folder's times have the file system's clock's grain:
			// the change is made once that clock has moved on.
			tick(t)
			tc.change(t, dir)
			if got := !stamp.Unchanged(); got != tc.stamp {
				t.Errorf("the stamp sees the change: %v, want %v", got, tc.stamp)
			}
			sum2, _, err := ShallowFingerprint(dir, skip)
			if err != nil {
				t.Fatal(err)
			}
			if got := sum2 != sum; got != tc.shallow {
				t.Errorf("the shallow fingerprint sees the change: %v, want %v", got, tc.shallow)
			}
			if tc.shallow && !tc.stamp {
				t.Errorf("a change the shallow fingerprint sees and its stamp does not")
			}
			deep2, err := Fingerprint(dir, skip, true)
			if err != nil {
				t.Fatal(err)
			}
			if got := deep2 != deep; got != tc.shallow {
				t.Errorf("the deep fingerprint sees the change: %v, want %v", got, tc.shallow)
			}
		})
	}
	var zero Stamp
	if zero.Unchanged() {
		t.Error("the zero Stamp is Unchanged")
	}
}

// TestDeepSeesInPlaceEditBelowAFolder: a file below a folder rewritten in
// place, which the shallow fingerprint does not stat, changes the deep
// one.
func TestDeepSeesInPlaceEditBelowAFolder(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "arguments/prop_001.md", "one")
	deep, err := Fingerprint(dir, nil, true)
	if err != nil {
		t.Fatal(err)
	}
	tick(t)
	if err := os.WriteFile(filepath.Join(dir, "arguments", "prop_001.md"), []byte("ONE"), 0o644); err != nil {
		t.Fatal(err)
	}
	if deep2, _ := Fingerprint(dir, nil, true); deep2 == deep {
		t.Error("the deep fingerprint missed a file rewritten in place")
	}
}

func write(t *testing.T, dir, name, data string) {
	t.Helper()
	p := filepath.Join(dir, filepath.FromSlash(name))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}

// replace writes name anew and renames it over the old one, as a commit
// does.
func replace(t *testing.T, dir, name, data string) {
	t.Helper()
	p := filepath.Join(dir, filepath.FromSlash(name))
	if err := os.WriteFile(p+".new", []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(p+".new", p); err != nil {
		t.Fatal(err)
	}
}

// tick waits until the file system's clock has moved on from now.
func tick(t *testing.T) {
	t.Helper()
	probe := filepath.Join(t.TempDir(), "probe")
	stamp := func() time.Time {
		if err := os.WriteFile(probe, nil, 0o644); err != nil {
			t.Fatal(err)
		}
		info, err := os.Stat(probe)
		if err != nil {
			t.Fatal(err)
		}
		return info.ModTime()
	}
	start := stamp()
	deadline := time.Now().Add(time.Minute) // a guard
	for !stamp().After(start) {
		if time.Now().After(deadline) {
			t.Fatal("the file system's clock never moved on")
		}
		time.Sleep(time.Millisecond)
	}
}

// TestFingerprintOfAFileRemovedMeanwhile: a file removed after its folder
// was listed (a commit removes its journal as a reader walks) leaves the
// fingerprint to be taken, as the folder's, whose times the removal
// changes.
func TestFingerprintOfAFileRemovedMeanwhile(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "a.md", "a")
	for _, deep := range []bool{false, true} {
		write(t, dir, "b.md", "b")
		// skip is asked of a.md after the folder is listed and before
		// b.md is looked at: it removes b.md then.
		skip := func(name string) bool {
			if name == "a.md" {
				if err := os.Remove(filepath.Join(dir, "b.md")); err != nil {
					t.Fatal(err)
				}
			}
			return false
		}
		if _, _, err := fingerprint(dir, skip, deep); err != nil {
			t.Errorf("deep %v: %v", deep, err)
		}
	}
}
