package protocoltest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/moot-dev/moot/internal/testkit/fixture"
	sm "github.com/moot-dev/moot/statemachine"
)

// An Edit changes the files of the debate in dir by hand, as a test of
// moot check does, failing t when it cannot.
type Edit func(t testing.TB, dir string)

// Write is the edit that writes text to the debate's file name, making
// its folder.
func Write(name, text string) Edit {
	return func(t testing.TB, dir string) {
		t.Helper()
		path := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// Replace is the edit that replaces the first old in the debate's file
// name with new; a file without old fails the test.
func Replace(name, old, new string) Edit {
	return func(t testing.TB, dir string) {
		t.Helper()
		data, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(name)))
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(data), old) {
			t.Fatalf("%s holds no %s", name, old)
		}
		Write(name, strings.Replace(string(data), old, new, 1))(t, dir)
	}
}

// Remove is the edit that removes the debate's file name.
func Remove(name string) Edit {
	return func(t testing.TB, dir string) {
		t.Helper()
		if err := os.Remove(filepath.Join(dir, filepath.FromSlash(name))); err != nil {
			t.Fatal(err)
		}
	}
}

// CheckEdited returns what the check of a copy of the debate of p in dir
// finds once edit changed it, each problem as "FILE: MESSAGE"; the
// debate in dir stays as it is.
func CheckEdited(t testing.TB, p sm.Protocol, dir string, edit Edit) []string {
	t.Helper()
	copied := filepath.Join(t.TempDir(), filepath.Base(dir))
	if err := fixture.CopyTree(dir, copied); err != nil {
		t.Fatal(err)
	}
	edit(t, copied)
	var out []string
	for _, pr := range Read(t, p, copied).Check().Problems {
		out = append(out, pr.String())
	}
	return out
}
