package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/moot-dev/moot/statemachine/dialectic"
)

// TestNewStoresMotionWithHeadings checks that moot new stores a motion and
// a scope that hold markdown headings exactly: the debate reads back what
// was given, and check passes.
func TestNewStoresMotionWithHeadings(t *testing.T) {
	root := t.TempDir()
	motion := "This house would pause AI.\n\n## Scope\n\nNot a scope.\n\n# Something\n\nMore of the motion."
	scope := "Frontier labs.\n\n## Definitions\n\n- **x**: not a definition"
	code, _, stderr := runMoot(t, "--dir", root, "new", "demo", "--motion", motion, "--scope", scope, "--definition", "AI: software")
	if code != 0 {
		t.Fatalf("new: exit %d: %s", code, stderr)
	}
	code, out, stderr := runMoot(t, "--dir", root, "status", "--json", "demo")
	if code != 0 {
		t.Fatalf("status: %s", stderr)
	}
	var st struct{ Motion string }
	if err := json.Unmarshal([]byte(out), &st); err != nil {
		t.Fatal(err)
	}
	if st.Motion != motion {
		t.Errorf("motion read back as %q, want %q", st.Motion, motion)
	}
	data, err := os.ReadFile(filepath.Join(root, "demo", "debate.md"))
	if err != nil {
		t.Fatal(err)
	}
	h, err := dialectic.ParseHeader(data)
	if err != nil {
		t.Fatal(err)
	}
	want := dialectic.Motion{Text: motion, Scope: scope, Definitions: []dialectic.Definition{{Term: "AI", Meaning: "software"}}}
	if h.Motion.Text != want.Text || h.Motion.Scope != want.Scope || len(h.Motion.Definitions) != 1 || h.Motion.Definitions[0] != want.Definitions[0] {
		t.Errorf("read back %#v, want %#v", h.Motion, want)
	}
	if code, out, _ := runMoot(t, "--dir", root, "check", "demo"); code != 0 || !strings.HasPrefix(out, "ok: ") {
		t.Errorf("check: exit %d: %s", code, out)
	}
}

// TestNewRefusesMotionItCannotStore checks that what debate.md cannot hold
// as given is refused, naming the flag and why, with nothing created.
func TestNewRefusesMotionItCannotStore(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"open fence in the motion", []string{"--motion", "M.\n\n```\ncode", "--scope", "S."}, "moot: error: --motion: the motion cannot be stored as given: written to debate.md and read back it would come out different"},
		{"open comment in the motion", []string{"--motion", "M.\n\n<!-- open", "--definition", "a: b"}, "moot: error: --motion: the motion cannot be stored as given"},
		{"stars in a term", []string{"--motion", "M.", "--definition", "a**b: c"}, "moot: error: --definition: definition 1 cannot be stored as given"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			root := t.TempDir()
			code, _, stderr := runMoot(t, append([]string{"--dir", root, "new", "demo"}, tc.args...)...)
			if code != 2 {
				t.Errorf("exit %d, want 2", code)
			}
			if !strings.Contains(stderr, tc.want) {
				t.Errorf("stderr %q lacks %q", stderr, tc.want)
			}
			if _, err := os.Stat(filepath.Join(root, "demo")); !os.IsNotExist(err) {
				t.Errorf("the debate was created: %v", err)
			}
		})
	}
}

// TestNewKeepsMotionSpacing checks that moot new stores the motion exactly
// as given apart from the blank space around it, as docs/format.md says:
// double spaces, blank lines between paragraphs and trailing spaces inside
// lines read back as they were.
func TestNewKeepsMotionSpacing(t *testing.T) {
	root := t.TempDir()
	inner := "This  house   would act.  \nSecond  line.\n\n\n\nThird\tparagraph.\n   \nLast."
	code, _, stderr := runMoot(t, "--dir", root, "new", "demo", "--motion", "\n \t"+inner+"  \n\n")
	if code != 0 {
		t.Fatalf("new: exit %d: %s", code, stderr)
	}
	code, out, stderr := runMoot(t, "--dir", root, "status", "--json", "demo")
	if code != 0 {
		t.Fatalf("status: %s", stderr)
	}
	var st struct{ Motion string }
	if err := json.Unmarshal([]byte(out), &st); err != nil {
		t.Fatal(err)
	}
	if st.Motion != inner {
		t.Errorf("motion read back as %q, want %q", st.Motion, inner)
	}
}
