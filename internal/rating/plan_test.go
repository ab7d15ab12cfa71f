package rating

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/moot-dev/moot/store"
)

// validSlug is the rule for a debate's name (store.ValidSlug), with Plan's
// stricter promise of no hyphen at the end and none doubled.
func validSlug(s string) bool {
	return store.ValidSlug(s) && !strings.HasSuffix(s, "-") && !strings.Contains(s, "--")
}

func TestPlan(t *testing.T) {
	tests := []struct {
		name    string
		models  []string
		motions []string
		rounds  int
	}{
		{name: "2 models, 1 motion, 1 round", models: []string{"a", "b"}, motions: []string{"m"}, rounds: 1},
		{name: "3 models, 3 motions, 1 round", models: []string{"gpt-4o", "llama3", "claude"}, motions: []string{"x", "y", "z"}, rounds: 1},
		{name: "4 models, 2 motions, 3 rounds", models: []string{"a", "b", "c", "d"}, motions: []string{"x", "y"}, rounds: 3},
		{name: "10 models, 20 motions, 1 round", models: numbered("model", 10), motions: numbered("motion", 20), rounds: 1},
		{name: "3 models, 120 motions, 12 rounds", models: []string{"a", "b", "c"}, motions: numbered("motion", 120), rounds: 12},
		{
			name: "hostile names",
			models: []string{"GPT-4o", "gpt 4o", "gpt-4o", "日本語", "!!!", "x-vs", "vs-y", "x", "y",
				strings.Repeat("Long Model Name ", 10), strings.Repeat("Long Model Name ", 9) + "Two"},
			motions: []string{"m"}, rounds: 2,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			plan, err := Plan(tc.models, tc.motions, tc.rounds)
			if err != nil {
				t.Fatal(err)
			}
			n, m, r := len(tc.models), len(tc.motions), tc.rounds
			if len(plan) != n*(n-1)*m*r {
				t.Fatalf("%d debates, want n·(n-1)·m·r = %d", len(plan), n*(n-1)*m*r)
			}
			// Every ordered pair (the first on the proposition) meets once
			// on every motion in every round.
			meets := map[string]int{}
			slugs := map[string]bool{}
			for _, p := range plan {
				if p.Prop == p.Opp {
					t.Errorf("%s argues against itself", p.Prop)
				}
				if p.MotionIndex < 0 || p.MotionIndex >= m || tc.motions[p.MotionIndex] != p.Motion {
					t.Errorf("motion %d %q is not motions[%d]", p.MotionIndex, p.Motion, p.MotionIndex)
				}
				if p.Round < 1 || p.Round > r {
					t.Errorf("round %d outside 1..%d", p.Round, r)
				}
				meets[fmt.Sprintf("%q %q %d %d", p.Prop, p.Opp, p.MotionIndex, p.Round)]++
				if !validSlug(p.Slug) {
					t.Errorf("slug %q is not a valid name", p.Slug)
				}
				if slugs[p.Slug] {
					t.Errorf("slug %q twice", p.Slug)
				}
				slugs[p.Slug] = true
			}
			for _, x := range tc.models {
				for _, y := range tc.models {
					for mi := range m {
						for round := 1; round <= r; round++ {
							k := fmt.Sprintf("%q %q %d %d", x, y, mi, round)
							if want := map[bool]int{true: 0, false: 1}[x == y]; meets[k] != want {
								t.Errorf("%s on the proposition against %s on motion %d round %d: %d debates, want %d",
									x, y, mi, round, meets[k], want)
							}
						}
					}
				}
			}
			again, err := Plan(tc.models, tc.motions, tc.rounds)
			if err != nil || !reflect.DeepEqual(plan, again) {
				t.Errorf("a second plan differs: %v", err)
			}
		})
	}
}

// numbered returns n names prefix-1, prefix-2, ...
func numbered(prefix string, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprint(prefix, "-", i+1)
	}
	return out
}

func TestPlanOrderAndSlugs(t *testing.T) {
	plan, err := Plan([]string{"gpt-4o", "llama3", "Claude 3.5 Sonnet"}, []string{"x", "y", "z"}, 1)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, p := range plan {
		got = append(got, fmt.Sprintf("%s %s/%s %d %d %s", p.Slug, p.Prop, p.Opp, p.MotionIndex, p.Round, p.Motion))
	}
	want := []string{
		"m01-r1-gpt-4o-vs-llama3 gpt-4o/llama3 0 1 x",
		"m01-r1-llama3-vs-gpt-4o llama3/gpt-4o 0 1 x",
		"m01-r1-gpt-4o-vs-claude-3-5-sonnet gpt-4o/Claude 3.5 Sonnet 0 1 x",
		"m01-r1-claude-3-5-sonnet-vs-gpt-4o Claude 3.5 Sonnet/gpt-4o 0 1 x",
		"m01-r1-llama3-vs-claude-3-5-sonnet llama3/Claude 3.5 Sonnet 0 1 x",
		"m01-r1-claude-3-5-sonnet-vs-llama3 Claude 3.5 Sonnet/llama3 0 1 x",
	}
	if !reflect.DeepEqual(got[:6], want) {
		t.Errorf("the first motion's debates:\n%s\nwant\n%s", strings.Join(got[:6], "\n"), strings.Join(want, "\n"))
	}
	if got[12] != "m03-r1-gpt-4o-vs-llama3 gpt-4o/llama3 2 1 z" {
		t.Errorf("the third motion's first debate is %q", got[12])
	}

	tests := []struct {
		name    string
		models  []string
		motions []string
		rounds  int
		slug    string // the first debate's
	}{
		{name: "names that come out the same", models: []string{"GPT-4o", "gpt 4o"}, motions: []string{"x"}, rounds: 1, slug: "m01-r1-gpt-4o-vs-gpt-4o-2"},
		{name: "no letter or digit", models: []string{"日本語", "!!!"}, motions: []string{"x"}, rounds: 1, slug: "m01-r1-model-vs-model-2"},
		{name: "a hundred motions", models: []string{"a", "b"}, motions: numbered("m", 100), rounds: 1, slug: "m001-r1-a-vs-b"},
		{name: "ten rounds", models: []string{"a", "b"}, motions: []string{"x"}, rounds: 10, slug: "m01-r01-a-vs-b"},
		{
			// 64 - len("m01-r1-") - len("-vs-") leaves 53, 26 a name.
			name: "long names", models: []string{strings.Repeat("abcdefghij", 4), strings.Repeat("0123456789", 4)},
			motions: []string{"x"}, rounds: 1,
			slug: "m01-r1-abcdefghijabcdefghijabcdef-vs-01234567890123456789012345",
		},
		{
			name: "a cut that ends in a hyphen", models: []string{"abcdefghijklmnopqrstuvwxy-z", "b"},
			motions: []string{"x"}, rounds: 1, slug: "m01-r1-abcdefghijklmnopqrstuvwxy-vs-b",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			plan, err := Plan(tc.models, tc.motions, tc.rounds)
			if err != nil {
				t.Fatal(err)
			}
			if plan[0].Slug != tc.slug {
				t.Errorf("slug %q, want %q", plan[0].Slug, tc.slug)
			}
		})
	}
}

func TestPlanErrors(t *testing.T) {
	tests := []struct {
		name    string
		models  []string
		motions []string
		rounds  int
		want    string
	}{
		{name: "no models", motions: []string{"x"}, rounds: 1, want: "at least two models, got 0"},
		{name: "one model", models: []string{"a"}, motions: []string{"x"}, rounds: 1, want: "at least two models, got 1"},
		{name: "a model twice", models: []string{"a", "b", "a"}, motions: []string{"x"}, rounds: 1, want: `model "a" is named twice`},
		{name: "an empty model", models: []string{"a", " "}, motions: []string{"x"}, rounds: 1, want: "model 2 of 2 has no name"},
		{name: "no motions", models: []string{"a", "b"}, rounds: 1, want: "at least one motion"},
		{name: "an empty motion", models: []string{"a", "b"}, motions: []string{"x", ""}, rounds: 1, want: "motion 2 of 2 is empty"},
		{name: "no rounds", models: []string{"a", "b"}, motions: []string{"x"}, rounds: 0, want: "rounds is 0: it must be at least 1"},
		{name: "negative rounds", models: []string{"a", "b"}, motions: []string{"x"}, rounds: -2, want: "rounds is -2"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			plan, err := Plan(tc.models, tc.motions, tc.rounds)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Plan = %d debates, error %v; want an error with %q", len(plan), err, tc.want)
			}
			if plan != nil {
				t.Errorf("a plan of %d debates with the error", len(plan))
			}
		})
	}
}

// TestBatch: each model debates itself runs times on every motion, run by
// run, with slugs that number the runs; bad input is refused.
func TestBatch(t *testing.T) {
	ps, err := Batch([]string{"GPT-4o", "llama"}, []string{"M1", "M2"}, 3)
	if err != nil {
		t.Fatal(err)
	}
	if len(ps) != 12 {
		t.Fatalf("%d debates, want 2 models × 2 motions × 3 runs", len(ps))
	}
	if p := ps[0]; p.Prop != "GPT-4o" || p.Opp != "GPT-4o" || p.Run != 1 || p.MotionIndex != 0 || p.Slug != "m01-run001-gpt-4o" {
		t.Errorf("first %+v", p)
	}
	if p := ps[11]; p.Prop != "llama" || p.Opp != "llama" || p.Run != 3 || p.MotionIndex != 1 || p.Slug != "m02-run003-llama" {
		t.Errorf("last %+v", p)
	}
	for _, tc := range []struct {
		name    string
		models  []string
		motions []string
		runs    int
	}{
		{"no model", nil, []string{"M"}, 1},
		{"model twice", []string{"a", "a"}, []string{"M"}, 1},
		{"no motion", []string{"a"}, nil, 1},
		{"no runs", []string{"a"}, []string{"M"}, 0},
		{"too many runs", []string{"a"}, []string{"M"}, MaxRuns + 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := Batch(tc.models, tc.motions, tc.runs); err == nil {
				t.Error("accepted")
			}
		})
	}
}
