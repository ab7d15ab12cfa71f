package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// An argument whose body was edited without its frontmatter (or the other
// way round) is two versions of one argument: the prompts would carry the
// body and the report the frontmatter. check names the file and the field
// (exit 4), and the commands that read or extend the debate refuse it,
// changing nothing.
func TestEditedArgumentBody(t *testing.T) {
	for _, tc := range []struct {
		name, old, new, want string
	}{
		{"claim", "## Claim\n\n", "## Claim\n\nEdited by hand: ", `the body's "## Claim" says "Edited by hand: `},
		{"claim field", `"claim": "`, `"claim": "Edited by hand: `, `field "claim" says "Edited by hand: `},
		{"attack heading", "### Attacking opp_000", "### Attacking opp_001", `the body's "### Attacking" headings name opp_001`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := stage(t, rebuted)
			file := filepath.Join(root, "demo", "arguments", "prop_001.md")
			data, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(string(data), tc.old) {
				t.Fatalf("prop_001.md lacks %q:\n%s", tc.old, data)
			}
			edited := strings.Replace(string(data), tc.old, tc.new, 1)
			if err := os.WriteFile(file, []byte(edited), 0o644); err != nil {
				t.Fatal(err)
			}
			code, out, _ := runMoot(t, "--dir", root, "check", "demo")
			if code != ExitCheckFailed || !strings.Contains(out, filepath.Join("arguments", "prop_001.md")) || !strings.Contains(out, tc.want) {
				t.Errorf("check: exit %d, want %d naming prop_001.md and %q:\n%s", code, ExitCheckFailed, tc.want, out)
			}
			for _, args := range [][]string{{"report", "demo"}, {"process-judge", "demo", "--json-file", filepath.Join(root, "nothing.json")}} {
				if code, _, errs := runMoot(t, append([]string{"--dir", root}, args...)...); code == 0 {
					t.Errorf("%v took the debate: %s", args, errs)
				}
			}
			if got, _ := os.ReadFile(file); string(got) != edited {
				t.Errorf("prop_001.md changed")
			}
			if _, err := os.Stat(filepath.Join(root, "demo", "README.md")); err == nil {
				t.Errorf("report wrote README.md for a debate that fails check")
			}
		})
	}
	// Rewrapping the body's claim over several lines says the same.
	t.Run("rewrapped", func(t *testing.T) {
		root := stage(t, rebuted)
		file := filepath.Join(root, "demo", "arguments", "prop_001.md")
		data, _ := os.ReadFile(file)
		i := strings.Index(string(data), "## Claim\n\n") + len("## Claim\n\n")
		j := i + strings.Index(string(data[i:]), " ")
		edited := string(data[:j]) + "\n " + string(data[j+1:])
		os.WriteFile(file, []byte(edited), 0o644)
		if code, out, errs := runMoot(t, "--dir", root, "check", "demo"); code != 0 {
			t.Errorf("check of a rewrapped claim: exit %d:\n%s%s", code, out, errs)
		}
	})
}
