package dialectic_test

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/moot-dev/moot/statemachine/dialectic"
)

// TestMotionWithHeadingsRoundTrips checks that a motion or scope holding
// lines that are markdown headings is stored and read back exactly, through
// debate.md, instead of being cut into sections of its own.
func TestMotionWithHeadingsRoundTrips(t *testing.T) {
	tests := []struct {
		name string
		m    dialectic.Motion
	}{
		{"motion with a Scope heading", dialectic.Motion{Text: "This house would pause AI.\n\n## Scope\n\nAll labs."}},
		{"motion with a top heading", dialectic.Motion{Text: "# Something\n\nThis house would pause AI."}},
		{"motion with a Motion heading", dialectic.Motion{Text: "This house would act.\n\n# Motion\n\nAgain."}},
		{"motion with a Definitions heading and a list", dialectic.Motion{Text: "M.\n\n## Definitions\n\n- **x**: y"}},
		{"scope with a Definitions heading", dialectic.Motion{Text: "M.", Scope: "Labs.\n\n## Definitions\n\n- **AI**: software"}},
		{"scope with headings of every level", dialectic.Motion{Text: "M.", Scope: "# a\n## b\n### c\n#### d\n##### e\n###### f"}},
		{"setext headings", dialectic.Motion{Text: "Scope\n-----\n\nMotion\n======\n\ntext", Scope: "Definitions\n---"}},
		{"heading above a rule", dialectic.Motion{Text: "# A\n---\nB"}},
		{"empty and closed headings", dialectic.Motion{Text: "M.\n#\n## Scope ##\n   # indented"}},
		{"text that looks escaped", dialectic.Motion{Text: "\\# not a heading\n\\\\## two\n\\---\n  \\=== x"}},
		{"hashes that are not headings", dialectic.Motion{Text: "#hashtag and #5\n\n```\n# a comment in code\n```\n\n> # quoted heading\n\n- # heading in a list"}},
		{"a rule and a list", dialectic.Motion{Text: "Intro.\n\n---\n\n- one\n- two", Scope: "S."}},
		{"definitions and scope around it", dialectic.Motion{Text: "## Scope", Definitions: []dialectic.Definition{{Term: "t", Meaning: "m"}}, Scope: "## Motion"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if err := dialectic.CheckMotion(tc.m); err != nil {
				t.Fatalf("CheckMotion: %v", err)
			}
			h := dialectic.NewHeader("demo", tc.m)
			data, err := h.Render()
			if err != nil {
				t.Fatal(err)
			}
			back, err := dialectic.ParseHeader(data)
			if err != nil {
				t.Fatalf("ParseHeader: %v\n%s", err, data)
			}
			if !reflect.DeepEqual(back.Motion, tc.m) {
				t.Errorf("read back\n%#v\nwant\n%#v\nfile:\n%s", back.Motion, tc.m, data)
			}
		})
	}
}

// TestRenderMotionKeepsPlainMotions checks that a motion without headings
// is written as before, byte for byte.
func TestRenderMotionKeepsPlainMotions(t *testing.T) {
	m := dialectic.Motion{Text: "This house would test.\n\nA *second* paragraph \\ with a backslash.", Scope: "Some - scope =", Definitions: []dialectic.Definition{{Term: "a", Meaning: "b"}}}
	want := "# Motion\n\nThis house would test.\n\nA *second* paragraph \\ with a backslash.\n\n## Definitions\n\n- **a**: b\n\n## Scope\n\nSome - scope =\n"
	if got := dialectic.RenderMotion(m); got != want {
		t.Errorf("got\n%q\nwant\n%q", got, want)
	}
}

// TestCheckMotionRefuses checks what debate.md cannot hold as given: each
// refusal names the part at fault.
func TestCheckMotionRefuses(t *testing.T) {
	tests := []struct {
		name  string
		m     dialectic.Motion
		field string
		index int
	}{
		{"motion with an open code fence", dialectic.Motion{Text: "M.\n\n```\ncode", Scope: "S."}, "motion", 0},
		{"motion with an open HTML comment", dialectic.Motion{Text: "M.\n\n<!-- note", Scope: "S."}, "motion", 0},
		{"scope with an open code fence", dialectic.Motion{Text: "M.", Scope: "S.\n\n~~~\nx", Definitions: nil}, "", 0},
		{"motion fence swallowing the definitions", dialectic.Motion{Text: "M.\n\n```", Definitions: []dialectic.Definition{{Term: "a", Meaning: "b"}}}, "motion", 0},
		{"term with stars", dialectic.Motion{Text: "M.", Definitions: []dialectic.Definition{{Term: "ok", Meaning: "fine"}, {Term: "a**b", Meaning: "c"}}}, "definition", 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := dialectic.CheckMotion(tc.m)
			if tc.field == "" {
				// An open fence at the very end runs into nothing: it is
				// stored as it is.
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				return
			}
			var me *dialectic.MotionError
			if !errors.As(err, &me) {
				t.Fatalf("error %v, want *MotionError", err)
			}
			if me.Field != tc.field || me.Index != tc.index {
				t.Errorf("field %s[%d], want %s[%d]: %v", me.Field, me.Index, tc.field, tc.index, err)
			}
			if !strings.Contains(err.Error(), "cannot be stored as given") {
				t.Errorf("message %q", err)
			}
		})
	}
}

// deepQuote is a motion body whose motion holds a block quote nested depth
// times, then a scope.
func deepQuote(depth int) string {
	return "# Motion\n\nM.\n\n" + strings.Repeat(">", depth) + " deep\n\n## Scope\n\nS.\n"
}

// TestParseMotionDeepNesting checks that hostile nesting is read correctly:
// a block quote or list nested a million levels deep. goldmark's work grows
// with the square of the depth, so without a bound this test runs for
// hours (a million levels is some 25 times the 200,000 that took 27 s per
// command); BenchmarkParseMotionDeep measures it.
func TestParseMotionDeepNesting(t *testing.T) {
	const depth = 1_000_000
	for _, tc := range []struct {
		name, marker string
	}{
		{"block quote", ">"},
		{"block quote with spaces", "> "},
		{"list", "- "},
		{"ordered list", "1. "},
		{"mixed", "> - "},
	} {
		t.Run(tc.name, func(t *testing.T) {
			nested := strings.Repeat(tc.marker, depth) + "deep"
			body := "# Motion\n\nM.\n\n" + nested + "\n\n## Scope\n\nS.\n"
			got := dialectic.ParseMotion(body)
			want := dialectic.Motion{Text: "M.\n\n" + nested, Scope: "S."}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("text of %d bytes, scope %q; want the nested text and scope %q", len(got.Text), got.Scope, want.Scope)
			}
		})
	}
}

// BenchmarkParseMotionDeep times reading a motion nested 200,000 levels
// deep, which took 27 s per command before nesting was bounded.
func BenchmarkParseMotionDeep(b *testing.B) {
	body := deepQuote(200_000)
	for b.Loop() {
		dialectic.ParseMotion(body)
	}
}

// BenchmarkParseMotionOpenLinks times a motion of 200,000 unclosed links,
// a quadratic case of inline parsing, which moot does not need.
func BenchmarkParseMotionOpenLinks(b *testing.B) {
	body := "# Motion\n\n" + strings.Repeat("[a](", 200_000) + "\n"
	for b.Loop() {
		dialectic.ParseMotion(body)
	}
}

// TestMotionSpacingRoundTrips checks that a motion is stored exactly as
// given apart from the blank space around it: spaces and tabs inside
// lines, trailing spaces at the end of inner lines (a markdown hard break)
// and several blank lines between paragraphs all read back as they were.
func TestMotionSpacingRoundTrips(t *testing.T) {
	tests := []struct {
		name, given, want string
	}{
		{"double spaces", "This  house   would act.", "This  house   would act."},
		{"blank lines between paragraphs", "First.\n\nSecond.\n\n\n\nThird.", "First.\n\nSecond.\n\n\n\nThird."},
		{"trailing spaces inside", "A hard break  \nafter it.\nAnd a tab\t\nthen more.", "A hard break  \nafter it.\nAnd a tab\t\nthen more."},
		{"blank line holding spaces", "One.\n   \nTwo.", "One.\n   \nTwo."},
		{"indented inner line", "One.\n  two, indented.", "One.\n  two, indented."},
		{"surrounding blank space trimmed", "\n\n  \t This house would act.  \n\n ", "This house would act."},
		{"surrounding blank lines, inner kept", " \nOne.  \n\nTwo. \n\n", "One.  \n\nTwo."},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m := dialectic.Motion{Text: tc.given, Scope: tc.given}
			if err := dialectic.CheckMotion(m); err != nil {
				t.Fatalf("CheckMotion: %v", err)
			}
			data, err := dialectic.NewHeader("demo", m).Render()
			if err != nil {
				t.Fatal(err)
			}
			back, err := dialectic.ParseHeader(data)
			if err != nil {
				t.Fatalf("ParseHeader: %v\n%s", err, data)
			}
			if back.Motion.Text != tc.want || back.Motion.Scope != tc.want {
				t.Errorf("read back motion %q and scope %q, want %q\nfile:\n%s", back.Motion.Text, back.Motion.Scope, tc.want, data)
			}
		})
	}
}
