package forum

import (
	"fmt"
	"testing"
)

// TestPanelVerdict: the side most judges name wins; a tie goes to the
// higher mean verdict score, then to the first judge's winner. Expected
// values are worked out by hand.
func TestPanelVerdict(t *testing.T) {
	v := func(winner string, forScore, againstScore int) *verdictState {
		return &verdictState{Winner: winner, Scores: map[string]int{For: forScore, Against: againstScore}}
	}
	for _, tc := range []struct {
		name     string
		verdicts []*verdictState
		winner   string
		source   string
		votes    string
		means    string
	}{
		{"a majority", []*verdictState{v(For, 8, 5), v(Against, 6, 9), v(Against, 6, 7)}, Against, "panel-majority", "1 2", "6.667 7"},
		{"a majority against the means", []*verdictState{v(For, 6, 5), v(For, 6, 5), v(Against, 0, 10)}, For, "panel-majority", "2 1", "4 6.667"},
		{"a tie, the means decide", []*verdictState{v(For, 8, 6), v(Against, 5, 9)}, Against, "panel-tie-scores", "1 1", "6.5 7.5"},
		{"a tie of votes and means, the first judge decides", []*verdictState{v(Against, 6, 8), v(For, 8, 6)}, Against, "panel-tie-first-judge", "1 1", "7 7"},
		{"unanimous", []*verdictState{v(For, 9, 1), v(For, 7, 3)}, For, "panel-majority", "2 0", "8 2"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			winner, source, votes, means := panelVerdict(tc.verdicts)
			gotVotes := fmt.Sprintf("%d %d", votes[For], votes[Against])
			gotMeans := fmt.Sprintf("%v %v", round3(means[For]), round3(means[Against]))
			if winner != tc.winner || source != tc.source || gotVotes != tc.votes || gotMeans != tc.means {
				t.Errorf("got %s by %s, votes %s, means %s; want %s by %s, votes %s, means %s", winner, source, gotVotes, gotMeans, tc.winner, tc.source, tc.votes, tc.means)
			}
		})
	}
}

// TestRoundHalfUp: a panel's mean score is rounded to the nearest whole
// number, halves up.
func TestRoundHalfUp(t *testing.T) {
	for _, tc := range []struct {
		x    float64
		want int
	}{{6.5, 7}, {6.499, 6}, {6.667, 7}, {5.333, 5}, {0, 0}, {9.5, 10}, {0.5, 1}} {
		t.Run(fmt.Sprint(tc.x), func(t *testing.T) {
			if got := roundHalfUp(tc.x); got != tc.want {
				t.Errorf("roundHalfUp(%v) = %d, want %d", tc.x, got, tc.want)
			}
		})
	}
}
