package tournament

import (
	"strings"
	"testing"
)

// TestRenderCounts: tournament.md says how many models, motions, debates
// and runs the tournament has in words a person reads, in the singular
// where there is one.
func TestRenderCounts(t *testing.T) {
	for _, tc := range []struct {
		name string
		t    Tournament
		want string
	}{
		{
			name: "a batch of one",
			t: Tournament{Name: "solo", Protocol: "dialectic", Models: []string{"llama3.1"}, Motions: []Motion{{Text: "Tea is better."}},
				Runs: 1, Debates: []Debate{{Slug: "d1", Proposition: "llama3.1", Opposition: "llama3.1", Round: 1, Run: 1}}},
			want: "1 model, 1 motion, 1 debate of the dialectic protocol: a batch, each model debating itself 1 time on every motion, a fresh draw each time.",
		},
		{
			name: "pairs",
			t: Tournament{Name: "pairs", Protocol: "forum", Models: []string{"a", "b"}, Motions: []Motion{{Text: "Tea is better."}},
				Rounds: 1, Debates: []Debate{{Slug: "d1", Proposition: "a", Opposition: "b", Round: 1}, {Slug: "d2", Proposition: "b", Opposition: "a", Round: 1}}},
			want: "2 models, 1 motion, 2 debates of the forum protocol: every pair of models meets on every motion twice, sides swapped.",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, err := tc.t.Render()
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(string(out), "\n"+tc.want+"\n") {
				t.Errorf("tournament.md does not say %q:\n%s", tc.want, out)
			}
		})
	}
}
