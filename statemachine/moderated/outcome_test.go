package moderated_test

import (
	"context"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/moot-dev/moot/internal/driver"
	"github.com/moot-dev/moot/internal/frontmatter"
	"github.com/moot-dev/moot/internal/testkit/modeltest"
	sm "github.com/moot-dev/moot/statemachine"
	"github.com/moot-dev/moot/statemachine/moderated"
	"github.com/moot-dev/moot/statemachine/moderated/moderatedtest"
)

func TestSideRoles(t *testing.T) {
	prop, opp := moderated.Protocol{}.SideRoles()
	if prop != moderated.RoleA || opp != moderated.RoleB {
		t.Errorf("SideRoles = %q, %q; want %q, %q", prop, opp, moderated.RoleA, moderated.RoleB)
	}
}

// scripted answers as moderatedtest does, but scores each statement named
// in marks (by its marker, <<A-argument-r1>>) with its marks, in the
// rubric's order.
func scripted(marks map[string][]float64) modeltest.Handler {
	fake := moderatedtest.Handler(moderatedtest.Options{})
	names := []string{"logical_coherence", "evidence_quality", "responsiveness", "persuasiveness", "rule_adherence"}
	return func(req modeltest.Request) modeltest.Reply {
		if moderatedtest.Kind(req) != "scorer" {
			return fake(req)
		}
		m, ok := marks[moderatedtest.StatementMarker.FindString(req.Messages[1].Content)]
		if !ok {
			return fake(req)
		}
		var parts []string
		for i, n := range names {
			parts = append(parts, fmt.Sprintf("%q: {\"score\": %v, \"justification\": \"scripted\"}", n, m[i]))
		}
		return modeltest.Reply{Content: "{" + strings.Join(parts, ", ") + "}"}
	}
}

// TestOutcome: a debate run a step at a time has no winner until its
// last step; then the advocate with the higher mean of its statements'
// weighted totals wins, by the means worked out by hand and by the score
// files, level means being a draw. A speaks first, so First is always
// the proposition. The marks' totals, weights 0.25, 0.25, 0.20, 0.15,
// 0.15: hi (8, 6, 7, 7, 9) 7.30, lo (7, 5, 9, 6, 8) 6.90.
func TestOutcome(t *testing.T) {
	hi, lo := []float64{8, 6, 7, 7, 9}, []float64{7, 5, 9, 6, 8}
	for _, tc := range []struct {
		name   string
		marks  map[string][]float64
		winner string
		a, b   float64
	}{
		{"A ahead", map[string][]float64{"<<A-argument-r1>>": hi, "<<B-rebuttal-r1>>": lo, "<<B-argument-r1>>": lo}, sm.WinProposition, 7.3, 6.9},
		// A: 7.30 and 6.90, a mean of 7.10; B: 7.30 twice.
		{"B ahead by the mean", map[string][]float64{"<<A-rebuttal-r1>>": lo}, sm.WinOpposition, 7.1, 7.3},
		{"level", nil, sm.Draw, 7.3, 7.3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := modeltest.NewServer(t, scripted(tc.marks))
			dir := newDebate(t, map[string]string{"rounds": "1"})
			for step := 0; ; step++ {
				o := loaded(t, dir).(sm.Outcomer).Outcome()
				if o.First != sm.WinProposition {
					t.Errorf("before step %d: First = %q, want the proposition", step+1, o.First)
				}
				if loaded(t, dir).Status().Complete {
					break
				}
				if o.Winner != "" || o.Columns != nil {
					t.Fatalf("before step %d, the debate unfinished: winner %q, columns %v", step+1, o.Winner, o.Columns)
				}
				if _, err := advance(t, context.Background(), dir, srv.URL, driver.UnitGoal{Steps: 1}); err != nil {
					t.Fatal(err)
				}
			}
			o := loaded(t, dir).(sm.Outcomer).Outcome()
			if o.Winner != tc.winner || o.Proposition != tc.a || o.Opposition != tc.b {
				t.Errorf("outcome %q %v to %v, want %q %v to %v", o.Winner, o.Proposition, o.Opposition, tc.winner, tc.a, tc.b)
			}
			// The score files give the same means.
			got := files(t, dir)
			ids := map[string]string{}
			var st struct {
				Participants []moderated.Participant `json:"participants"`
			}
			if _, _, err := frontmatter.ParseInto([]byte(got["debate.md"]), &st); err != nil {
				t.Fatal(err)
			}
			for _, p := range st.Participants {
				ids[p.ID] = p.Role
			}
			sums, counts := map[string]float64{}, map[string]int{}
			for _, name := range under(got, "scores/") {
				front, _, err := frontmatter.Parse([]byte(got[name]))
				if err != nil {
					t.Fatal(err)
				}
				var who string
				var total float64
				if err := front.Decode("participant", &who); err != nil {
					t.Fatal(err)
				}
				if err := front.Decode("total", &total); err != nil {
					t.Fatal(err)
				}
				sums[ids[who]] += total
				counts[ids[who]]++
			}
			if counts[moderated.RoleA] != 2 || counts[moderated.RoleB] != 2 {
				t.Fatalf("scored statements %v, want 2 of each advocate", counts)
			}
			mean := func(role string) float64 { return math.Round(sums[role]/2*100) / 100 }
			if mean(moderated.RoleA) != o.Proposition || mean(moderated.RoleB) != o.Opposition {
				t.Errorf("the score files' means are %v and %v; the outcome %v and %v", mean(moderated.RoleA), mean(moderated.RoleB), o.Proposition, o.Opposition)
			}
			want := map[string]string{"rounds": "1", "format": "formal", "position_a": "Cities should ban cars.", "position_b": "Cities should keep cars."}
			if fmt.Sprint(o.Columns) != fmt.Sprint(want) {
				t.Errorf("columns %v, want %v", o.Columns, want)
			}
		})
	}
}
