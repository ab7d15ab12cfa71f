package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/moot-dev/moot/statemachine/dialectic"
)

func TestVisible(t *testing.T) {
	for _, tc := range []struct {
		name, in     string
		keepNewlines bool
		want         string
	}{
		{"plain text stays", "Tea beats coffee — 🦀", false, "Tea beats coffee — 🦀"},
		{"escape in caret notation", "a\x1b[31mred\x1b[0m", false, "a^[[31mred^[[0m"},
		{"bell and backspace", "x\a\by", false, "x^G^Hy"},
		{"carriage return", "over\rwrite", false, "over^Mwrite"},
		{"delete", "a\x7fb", false, "a^?b"},
		{"C1 CSI", "a\u009b2Jb", false, "a\ufffd2Jb"},
		{"bidi override and isolate", "a\u202eb\u2066c", false, "a\ufffdb\ufffdc"},
		{"invalid UTF-8", "a\xffb", false, "a\ufffdb"},
		{"newline folded when not kept", "a\nb", false, "a^Jb"},
		{"newline kept in bodies", "a\nb\tc", true, "a\nb\tc"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := visible(tc.in, tc.keepNewlines); got != tc.want {
				t.Errorf("visible(%q) = %q, want %q", tc.in, got, tc.want)
			}
		})
	}
}

func TestNearest(t *testing.T) {
	slugs := []string{"climate", "sugar-tax", "tea"}
	for _, tc := range []struct {
		word       string
		candidates []string
		want       string
	}{
		{"sugar tax", slugs, "sugar-tax"},
		{"Sugar_Tax", slugs, "sugar-tax"},
		{"sugr-tax", slugs, "sugar-tax"},
		{"suagr-tax", slugs, "sugar-tax"},
		{"tae", slugs, "tea"},
		{"coffee", slugs, ""},
		{"jsn", []string{"json", "wait", "dir"}, "json"},
		{"bogus", []string{"json", "wait", "dir"}, ""},
		{"jud", []string{"judge", "judge-system", "repair"}, "judge"},
	} {
		t.Run(tc.word, func(t *testing.T) {
			got, ok := nearest(tc.word, tc.candidates)
			if got != tc.want || ok != (tc.want != "") {
				t.Errorf("nearest(%q) = %q, %v; want %q", tc.word, got, ok, tc.want)
			}
		})
	}
}

func TestNearestID(t *testing.T) {
	ids := []string{"prop_000a", "prop_000b", "opp_000a", "prop_001", "opp_001", "prop_012"}
	for _, tc := range []struct{ in, want string }{
		{"prop_1", "prop_001"},
		{"PROP_1", "prop_001"},
		{"opp-1", "opp_001"},
		{"prop_12", "prop_012"},
		{"prop_0", "prop_000a"},
		{"opp_0a", "opp_000a"},
		{"prop_000c", "prop_000a"},
		{"prop_9", ""},
	} {
		t.Run(tc.in, func(t *testing.T) {
			got, ok := nearestID(tc.in, dialectic.Protocol{}.PartIDsMeant(tc.in), ids)
			if got != tc.want || ok != (tc.want != "") {
				t.Errorf("nearestID(%q) = %q, %v; want %q", tc.in, got, ok, tc.want)
			}
		})
	}
}

func TestWrapLinesNeverCuts(t *testing.T) {
	long := strings.Repeat("word ", 50) + strings.Repeat("x", 120)
	lines := wrapLines(long, 40)
	if got := strings.Join(lines, " "); got != strings.TrimSpace(long) {
		t.Fatalf("wrapping lost text:\n%q\nwant\n%q", got, long)
	}
	for _, l := range lines[:len(lines)-1] {
		if len(l) > 40 {
			t.Errorf("line over 40 characters: %q", l)
		}
	}
}

func TestVersionOf(t *testing.T) {
	local := func(mod, rev, at, modified string) *debug.BuildInfo {
		info := &debug.BuildInfo{Main: debug.Module{Path: "github.com/moot-dev/moot", Version: mod}}
		for k, v := range map[string]string{"vcs.revision": rev, "vcs.time": at, "vcs.modified": modified} {
			if v != "" {
				info.Settings = append(info.Settings, debug.BuildSetting{Key: k, Value: v})
			}
		}
		return info
	}
	for _, tc := range []struct {
		name string
		set  string
		info *debug.BuildInfo
		ok   bool
		want string
	}{
		{"ldflags win", "v1.2.3", local("v1.0.0", "", "", ""), true, "v1.2.3"},
		{"go install of a tag", "", local("v0.4.1", "", "", ""), true, "v0.4.1"},
		{"go install of a commit", "", local("v0.0.0-20260101000000-abcdef123456", "", "", ""), true, "v0.0.0-20260101000000-abcdef123456"},
		{"local build", "", local("(devel)", "0123456789abcdef0123", "2026-11-20T10:00:00Z", "false"), true, "dev 0123456789ab (2026-11-20T10:00:00Z)"},
		{"local build with changes", "", local("(devel)", "0123456789abcdef0123", "2026-11-20T10:00:00Z", "true"), true, "dev 0123456789ab with local changes (2026-11-20T10:00:00Z)"},
		{"no VCS information", "", local("(devel)", "", "", ""), true, "dev"},
		{"no build information", "", nil, false, "dev"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := versionOf(tc.set, tc.info, tc.ok); got != tc.want {
				t.Errorf("versionOf = %q, want %q", got, tc.want)
			}
		})
	}
}

// TestFlagPlaceholders reads every command's help and checks that each
// flag taking a value names it with an upper-case word, not a Go type.
func TestFlagPlaceholders(t *testing.T) {
	a := &app{}
	root := a.command([]string{"moot", "help"})
	names := []string{""}
	for _, c := range root.Commands {
		names = append(names, c.Name)
	}
	cell := regexp.MustCompile(`^   (-[^ ].*?)(  |$)`)
	upper := regexp.MustCompile(`^[A-Z][A-Z0-9_]*$`)
	for _, name := range names {
		t.Run("help "+name, func(t *testing.T) {
			args := []string{"help"}
			if name != "" {
				args = append(args, name)
			}
			code, out, stderr := runMoot(t, args...)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			if !strings.Contains(out, "\nEXAMPLES:\n") {
				t.Errorf("no EXAMPLES section:\n%s", out)
			}
			flags := 0
			for _, line := range strings.Split(out, "\n") {
				m := cell.FindStringSubmatch(line)
				if m == nil {
					continue
				}
				flags++
				for _, tok := range strings.Fields(m[1]) {
					tok = strings.TrimSuffix(tok, ",")
					if strings.HasPrefix(tok, "-") || tok == "[" || tok == "]" || tok == "..." {
						continue
					}
					if !upper.MatchString(tok) {
						t.Errorf("placeholder %q is not an upper-case word in %q", tok, line)
					}
				}
			}
			if flags == 0 {
				t.Errorf("found no flag lines in:\n%s", out)
			}
		})
	}
}

// TestTerminalControlsShownHarmless puts escape sequences, C1 controls
// and bidi overrides into a motion, argument texts and a judge's
// reasoning, and checks that status, list and show print none of them
// raw, while --json keeps the text exact.
func TestTerminalControlsShownHarmless(t *testing.T) {
	root := t.TempDir()
	motion := "Tax \x1b[31mred\x1b[0m drinks \u202eevil\u202c now \u009b2J end"
	if code, _, stderr := runMoot(t, "--dir", root, "new", "esc", "--motion", motion); code != 0 {
		t.Fatalf("new: %s", stderr)
	}
	arg := func(title string) map[string]any {
		return map[string]any{"title": title, "claim": "c\x1b]0;pwned\a", "warrant": "W\u2066x",
			"grounds": []any{map[string]string{"source": "A\x1b[2J", "content": "B", "relevance": "C"}}}
	}
	write := func(name string, v any) string {
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(t.TempDir(), name)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	prop := write("p.json", []any{arg("Tea \x1b[31mRed\x1b[0m Wins Again Now"), arg("Tea Is \u202eCheaper\u202c Per Cup"), arg("Tea Has \u009b2J Older Traditions")})
	opp := write("o.json", []any{arg("Coffee Sharpens Focus More Reliably"), arg("Coffee Culture Builds Local Communities"), arg("Coffee Has Proven Health Benefits")})
	if code, out, stderr := runMoot(t, "--dir", root, "process-exchange", "esc", "0", "--prop-file", prop, "--opp-file", opp); code != 0 {
		t.Fatalf("process-exchange: %s %s", out, stderr)
	}
	var scores []map[string]any
	for i, id := range dialectic.ExchangeIDs(0) {
		scores = append(scores, map[string]any{"argument_id": id, "score": []float64{0.1, 0, -0.1}[i%3], "reasoning": "fine \x1b[5mblink\x1b[0m"})
	}
	if code, out, stderr := runMoot(t, "--dir", root, "process-judge", "esc", "--json-file", write("j.json", map[string]any{"scores": scores})); code != 0 {
		t.Fatalf("process-judge: %s %s", out, stderr)
	}
	unsafe := regexp.MustCompile("[\x00-\x08\x0b-\x1f\x7f\u0080-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")
	for _, args := range [][]string{
		{"status", "esc"}, {"status"}, {"list"}, {"show", "esc"}, {"show", "esc", "prop_000a"},
		{"show", "esc", "prop_000b"}, {"show", "esc", "prop_000c"},
	} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			code, out, stderr := runMoot(t, append([]string{"--dir", root}, args...)...)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			if loc := unsafe.FindStringIndex(out); loc != nil {
				t.Errorf("raw control character %q printed:\n%s", out[loc[0]:loc[1]], out)
			}
			if !strings.Contains(out, "^[[") && !strings.Contains(out, "\ufffd") {
				t.Errorf("the controls are not shown at all:\n%s", out)
			}
		})
	}
	_, out, _ := runMoot(t, "--dir", root, "status", "--json", "esc")
	var st struct{ Motion string }
	if err := json.Unmarshal([]byte(out), &st); err != nil || st.Motion != motion {
		t.Errorf("status --json motion = %q (%v), want %q", st.Motion, err, motion)
	}
}

// TestStatusKeepsMotionLines: a motion of several lines is shown line by
// line in the status of one debate, not folded into control characters.
func TestStatusKeepsMotionLines(t *testing.T) {
	root := t.TempDir()
	motion := "This house would tax sugar.\n\nThe tax is paid by makers, not shops."
	if code, _, stderr := runMoot(t, "--dir", root, "new", "sugar", "--motion", motion); code != 0 {
		t.Fatalf("new: exit %d: %s", code, stderr)
	}
	code, out, stderr := runMoot(t, "--dir", root, "status", "sugar")
	if code != 0 {
		t.Fatalf("status: exit %d: %s", code, stderr)
	}
	want := "motion    This house would tax sugar.\n          The tax is paid by makers, not shops.\n"
	if !strings.Contains(out, want) || strings.Contains(out, "^J") {
		t.Errorf("status shows the motion as\n%s\nwant it to hold\n%s", out, want)
	}
}
