package motion_test

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/moot-dev/moot/internal/motion"
)

// TestRenderMotionKeepsPlainMotions checks that a motion without headings
// is written as before, byte for byte.
func TestRenderMotionKeepsPlainMotions(t *testing.T) {
	m := motion.Motion{Text: "This house would test.\n\nA *second* paragraph \\ with a backslash.", Scope: "Some - scope =", Definitions: []motion.Definition{{Term: "a", Meaning: "b"}}}
	want := "# Motion\n\nThis house would test.\n\nA *second* paragraph \\ with a backslash.\n\n## Definitions\n\n- **a**: b\n\n## Scope\n\nSome - scope =\n"
	if got := motion.Render(m); got != want {
		t.Errorf("got\n%q\nwant\n%q", got, want)
	}
}

// TestCheckMotionRefuses checks what debate.md cannot hold as given: each
// refusal names the part at fault.
func TestCheckMotionRefuses(t *testing.T) {
	tests := []struct {
		name  string
		m     motion.Motion
		field string
		index int
	}{
		{"motion with an open code fence", motion.Motion{Text: "M.\n\n```\ncode", Scope: "S."}, "motion", 0},
		{"motion with an open HTML comment", motion.Motion{Text: "M.\n\n<!-- note", Scope: "S."}, "motion", 0},
		{"scope with an open code fence", motion.Motion{Text: "M.", Scope: "S.\n\n~~~\nx", Definitions: nil}, "", 0},
		{"motion fence swallowing the definitions", motion.Motion{Text: "M.\n\n```", Definitions: []motion.Definition{{Term: "a", Meaning: "b"}}}, "motion", 0},
		{"term with stars", motion.Motion{Text: "M.", Definitions: []motion.Definition{{Term: "ok", Meaning: "fine"}, {Term: "a**b", Meaning: "c"}}}, "definition", 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := motion.Check(tc.m)
			if tc.field == "" {
				// An open fence at the very end runs into nothing: it is
				// stored as it is.
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				return
			}
			var me *motion.Error
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
			got := motion.Parse(body)
			want := motion.Motion{Text: "M.\n\n" + nested, Scope: "S."}
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
		motion.Parse(body)
	}
}

// BenchmarkParseMotionOpenLinks times a motion of 200,000 unclosed links,
// a quadratic case of inline parsing, which moot does not need.
func BenchmarkParseMotionOpenLinks(b *testing.B) {
	body := "# Motion\n\n" + strings.Repeat("[a](", 200_000) + "\n"
	for b.Loop() {
		motion.Parse(body)
	}
}
