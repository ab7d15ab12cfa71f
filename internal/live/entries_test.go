package live

import (
	"testing"

	sm "github.com/moot-dev/moot/statemachine"
)

// TestEntries: the chart counts a score for the part's own role, a score
// given in a part of its own for the part before it, and a part that
// says whom its score counts for as it says; private parts are left out.
func TestEntries(t *testing.T) {
	score := func(v float64) *float64 { return &v }
	tests := []struct {
		name  string
		parts []sm.Part
		want  []string // For, entry by entry
	}{
		{"own score", []sm.Part{{ID: "a", Role: "alpha", Score: score(1)}, {ID: "b", Role: "beta", Score: score(-1)}}, []string{"alpha", "beta"}},
		{"judge's part scores the one before", []sm.Part{{ID: "t1", Unit: 1, Role: "speaker"}, {ID: "v1", Unit: 1, Role: "judge", Score: score(7)}}, []string{"speaker", "speaker"}},
		{"not across units", []sm.Part{{ID: "t1", Unit: 1, Role: "speaker"}, {ID: "v2", Unit: 2, Role: "judge", Score: score(7)}}, []string{"speaker", "judge"}},
		{"a part that says whom it counts for", []sm.Part{{ID: "prop_000b", Role: "proposition", For: "proposition"}, {ID: "opp_000a", Role: "opposition", For: "opposition", Score: score(0.5)}}, []string{"proposition", "opposition"}},
		{"private parts left out", []sm.Part{{ID: "plan", Role: "alpha", Private: "alpha"}, {ID: "a", Role: "alpha"}}, []string{"alpha"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := entries(tc.parts)
			if len(got) != len(tc.want) {
				t.Fatalf("%d entries, want %d: %+v", len(got), len(tc.want), got)
			}
			for i, e := range got {
				if e.For != tc.want[i] {
					t.Errorf("entry %s counts for %q, want %q", e.ID, e.For, tc.want[i])
				}
			}
		})
	}
}
