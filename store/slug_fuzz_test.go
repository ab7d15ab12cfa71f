package store

import (
	"path/filepath"
	"strings"
	"testing"
)

// FuzzValidSlug checks that an accepted slug is what FORMAT.md allows
// (lowercase letters, digits and hyphens, starting with a letter or
// digit, at most 64 characters) and so names exactly one folder directly
// under the debates root.
func FuzzValidSlug(f *testing.F) {
	f.Add("climate-policy")
	f.Fuzz(func(t *testing.T, s string) {
		if !ValidSlug(s) {
			return
		}
		if s == "" || len(s) > 64 || s[0] == '-' {
			t.Fatalf("ValidSlug accepted %q", s)
		}
		for _, c := range []byte(s) {
			if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-') {
				t.Fatalf("ValidSlug accepted %q, with %q", s, c)
			}
		}
		root := filepath.Join("some", "root")
		dir := filepath.Join(root, s)
		if filepath.Dir(dir) != root || filepath.Base(dir) != s || strings.HasPrefix(s, ".") {
			t.Fatalf("slug %q names %s, not a folder directly under %s", s, dir, root)
		}
	})
}
