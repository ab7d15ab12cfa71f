package panel_test

import (
	"strings"
	"testing"

	"github.com/moot-dev/moot/statemachine/panel"
)

// TestBuiltinPersonas: every persona moot ships reads, and the default
// panel is among them.
func TestBuiltinPersonas(t *testing.T) {
	ps, _, err := panel.Builtin()
	if err != nil {
		t.Fatal(err)
	}
	if len(ps) < 5 {
		t.Errorf("%d built-in personas, want at least 5", len(ps))
	}
	for _, id := range panel.DefaultPanel() {
		p, ok := ps[id]
		if !ok {
			t.Fatalf("the default panel's %q is not built in", id)
		}
		if p.Bias == "" || p.Stakes == "" || p.Thinks == "" || len(p.ChangesMind) == 0 || p.Voice.Hint == "" || len(p.Never) == 0 || len(p.Anchors) == 0 {
			t.Errorf("%s's contract lacks a part: %+v", id, p)
		}
	}
}

// TestParsePersona: a persona file that breaks the format is refused with
// what is wrong.
func TestParsePersona(t *testing.T) {
	tests := []struct{ name, file, text, want string }{
		{"no frontmatter", "a.md", "id: a\n", `"---" line opening`},
		{"BOM and no frontmatter", "a.md", "\ufeffid: a\n", `"---" line opening`},
		{"unclosed", "a.md", "---\nid: a\n", `closing its YAML`},
		{"unknown key", "a.md", "---\nid: a\nname: A\nidentity: x\ncolour: red\n---\n", "colour"},
		{"id differs from the file", "b.md", "---\nid: a\nname: A\nidentity: x\n---\n", `differs from the file's name "b"`},
		{"bad id", "A.md", "---\nid: A\nname: A\nidentity: x\n---\n", "lower-case"},
		{"no identity", "a.md", "---\nid: a\nname: A\n---\n", "identity is missing"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := panel.ParsePersona(tc.file, []byte(tc.text))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("got %v, want an error with %q", err, tc.want)
			}
		})
	}
	for name, text := range map[string]string{
		"plain": "---\nid: a\nname: Ann Lee\nidentity: x\n---\nMore prose.\n",
		// Written on Windows, its closing line with a space after it.
		"CRLF": "---\r\nid: a\r\nname: Ann Lee\r\nidentity: x\r\n--- \r\n\r\nMore prose.\r\n",
		// Saved by a Windows editor with a byte-order mark.
		"BOM":      "\ufeff---\nid: a\nname: Ann Lee\nidentity: x\n---\nMore prose.\n",
		"BOM CRLF": "\ufeff---\r\nid: a\r\nname: Ann Lee\r\nidentity: x\r\n---\r\nMore prose.\r\n",
		// A rule in the body is the body's.
		"rule in the body": "---\nid: a\nname: Ann Lee\nidentity: x\n---\nMore prose.\n\n---\n",
	} {
		t.Run(name, func(t *testing.T) {
			p, err := panel.ParsePersona("a.md", []byte(text))
			want := "More prose."
			if name == "rule in the body" {
				want = "More prose.\n\n---"
			}
			if err != nil || p.More != want || p.First() != "Ann" || p.Identity != "x" {
				t.Errorf("got %+v, %v", p, err)
			}
		})
	}
}
