package statemachine

import (
	"strings"
	"testing"
)

func TestStatusProgress(t *testing.T) {
	for _, tc := range []struct {
		name string
		st   Status
		want string
	}{
		{"no end", Status{Unit: "exchange", Done: 3}, "3 exchanges"},
		{"one of no end", Status{Unit: "exchange", Done: 1}, "1 exchange"},
		{"with an end", Status{Unit: "exchange", Done: 2, Total: 5}, "2 of 5 exchanges"},
		// An 8-turn forum debate with a judge has 9 units: the verdict
		// is no turn.
		{"turns before the verdict", Status{Unit: "turn", Done: 3, Total: 9, Closing: "the verdict"}, "3 of 8 turns, then the verdict"},
		{"turns done, verdict to come", Status{Unit: "turn", Done: 8, Total: 9, Closing: "the verdict"}, "8 of 8 turns, then the verdict"},
		{"verdict given", Status{Unit: "turn", Done: 9, Total: 9, Closing: "the verdict", Complete: true}, "8 of 8 turns and the verdict"},
		{"refine at the start", Status{Unit: "round", Done: 0, Total: 6, Closing: "the synthesis", AtMost: true}, "0 of at most 5 rounds, then the synthesis"},
		{"refine stopped early", Status{Unit: "round", Done: 4, Total: 4, Closing: "the synthesis", Complete: true}, "3 of 3 rounds and the synthesis"},
		{"one round", Status{Unit: "round", Done: 0, Total: 2, Closing: "the synthesis"}, "0 of 1 round, then the synthesis"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.st.Progress(); got != tc.want {
				t.Errorf("Progress() = %q, want %q", got, tc.want)
			}
			unit := " " + tc.st.Unit
			count := strings.NewReplacer(unit+"s", "", unit, "").Replace(tc.want)
			if got := tc.st.Count(); got != count {
				t.Errorf("Count() = %q, want %q", got, count)
			}
		})
	}
}
