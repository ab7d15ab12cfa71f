package human

import (
	"os"
	"strings"
	"testing"
)

func TestEditorCommand(t *testing.T) {
	devnull, err := os.Open(os.DevNull)
	if err != nil {
		t.Fatal(err)
	}
	defer devnull.Close()
	env := func(vars map[string]string) func(string) string {
		return func(k string) string { return vars[k] }
	}
	for _, tc := range []struct {
		name   string
		vars   map[string]string
		stdin  *os.File
		want   string
		whyHas []string
	}{
		// /dev/null is a character device but no terminal: an editor
		// opened on it would hang or fail, so none is chosen.
		{"EDITOR with stdin from /dev/null", map[string]string{"EDITOR": "vi"}, devnull, "", []string{"no terminal", "$MOOT_EDITOR"}},
		{"VISUAL with stdin from /dev/null", map[string]string{"VISUAL": "vi"}, devnull, "", []string{"no terminal"}},
		{"MOOT_EDITOR needs no terminal", map[string]string{"MOOT_EDITOR": "ed-script", "EDITOR": "vi"}, devnull, "ed-script", nil},
		{"nothing at all", nil, devnull, "", []string{"no terminal", "$MOOT_EDITOR"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, why := EditorCommand(env(tc.vars), tc.stdin)
			if got != tc.want {
				t.Errorf("editor %q, want %q", got, tc.want)
			}
			for _, w := range tc.whyHas {
				if !strings.Contains(why, w) {
					t.Errorf("why %q does not say %q", why, w)
				}
			}
			if tc.want != "" && why != "" {
				t.Errorf("an editor was chosen, yet why says %q", why)
			}
		})
	}
}
