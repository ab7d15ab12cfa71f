package cli

import (
	"testing"

	"github.com/moot-dev/moot/internal/driver"
	sm "github.com/moot-dev/moot/statemachine"
)

// TestTallyGoal: a run of a debate told in exchanges stops where the
// request says, and a debate with an end runs to it and no further.
func TestTallyGoal(t *testing.T) {
	for _, tc := range []struct {
		name string
		req  runRequest
		st   sm.Status
		want driver.UnitGoal
	}{
		{"N more", runRequest{n: 3}, sm.Status{Done: 2}, driver.UnitGoal{Done: 5}},
		{"until", runRequest{until: 4, hasU: true}, sm.Status{Done: 2}, driver.UnitGoal{Done: 4}},
		{"one step", runRequest{step: true}, sm.Status{Done: 2, Total: 3}, driver.UnitGoal{Steps: 1}},
		{"all, to the end", runRequest{all: true}, sm.Status{Done: 1, Total: 3}, driver.UnitGoal{Done: 3}},
		{"N past the end", runRequest{n: 5}, sm.Status{Done: 1, Total: 3}, driver.UnitGoal{Done: 3}},
		{"until past the end", runRequest{until: 9, hasU: true}, sm.Status{Done: 1, Total: 3}, driver.UnitGoal{Done: 3}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := tallyGoal(tc.req, tc.st); got != tc.want {
				t.Errorf("tallyGoal = %+v, want %+v", got, tc.want)
			}
		})
	}
}

// TestStepsDone: the summary says what a run took the debate through.
func TestStepsDone(t *testing.T) {
	for _, tc := range []struct {
		start, end tallyPoint
		steps      int
		want       string
	}{
		{tallyPoint{2, true}, tallyPoint{3, false}, 1, "judged exchange 2"},
		{tallyPoint{2, false}, tallyPoint{2, true}, 1, "argued exchange 2"},
		{tallyPoint{0, false}, tallyPoint{3, false}, 6, "3 exchanges"},
		{tallyPoint{0, false}, tallyPoint{1, false}, 2, "1 exchange"},
		{tallyPoint{1, true}, tallyPoint{3, true}, 4, "4 steps"},
		{tallyPoint{1, false}, tallyPoint{1, false}, 0, "0 steps"},
	} {
		if got := stepsDone("exchange", tc.start, tc.end, tc.steps); got != tc.want {
			t.Errorf("stepsDone(%+v, %+v, %d) = %q, want %q", tc.start, tc.end, tc.steps, got, tc.want)
		}
	}
}
