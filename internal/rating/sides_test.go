package rating

import (
	"math"
	"reflect"
	"testing"
)

// repeat returns n games of x against y, A's score taken in turn from
// scores, each with First first (when it is x or y) and the motion.
func repeat(n int, x, y, first string, scores ...float64) []Game {
	games := make([]Game, n)
	for i := range games {
		games[i] = Game{A: x, B: y, Score: scores[i%len(scores)], First: first, Motion: "m"}
	}
	return games
}

func TestSideAdvantage(t *testing.T) {
	tests := []struct {
		name        string
		games       []Game
		est         float64
		n           int
		excludeZero bool
	}{
		{name: "A always wins", games: repeat(30, "a", "b", "", 1), est: 0.5, n: 30, excludeZero: true},
		{name: "A mostly wins", games: repeat(40, "a", "b", "", 1, 1, 1, 0), est: 0.25, n: 40, excludeZero: true},
		{name: "balanced", games: repeat(40, "a", "b", "", 1, 0), est: 0, n: 40, excludeZero: false},
		{name: "balanced with draws", games: repeat(40, "a", "b", "", 1, 0.5, 0, 0.5), est: 0, n: 40, excludeZero: false},
		{
			name:  "no score left out, self-play in",
			games: append(repeat(20, "a", "a", "", 1, 0), Game{A: "a", B: "b", Score: math.NaN()}),
			est:   0, n: 20, excludeZero: false,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			est, low, high, n := SideAdvantage(tc.games, 1000, 3)
			if !near(est, tc.est, 1e-12) || n != tc.n {
				t.Errorf("estimate %v over %d games, want %v over %d", est, n, tc.est, tc.n)
			}
			if !(low <= est && est <= high) {
				t.Errorf("estimate %v outside [%v, %v]", est, low, high)
			}
			if excludes := low > 0 || high < 0; excludes != tc.excludeZero {
				t.Errorf("[%v, %v] excludes zero: %v, want %v", low, high, excludes, tc.excludeZero)
			}
		})
	}
	t.Run("no games", func(t *testing.T) {
		est, low, high, n := SideAdvantage(nil, 100, 1)
		if !math.IsNaN(est) || !math.IsNaN(low) || !math.IsNaN(high) || n != 0 {
			t.Errorf("got %v [%v, %v] n %d, want NaN and 0", est, low, high, n)
		}
	})
	t.Run("no resamples", func(t *testing.T) {
		est, low, high, n := SideAdvantage(repeat(4, "a", "b", "", 1), 0, 1)
		if est != 0.5 || !math.IsNaN(low) || !math.IsNaN(high) || n != 4 {
			t.Errorf("got %v [%v, %v] n %d, want 0.5, NaN and 4", est, low, high, n)
		}
	})
}

func TestFirstSpeakerAdvantage(t *testing.T) {
	tests := []struct {
		name        string
		games       []Game
		est         float64
		n           int
		excludeZero bool
	}{
		{
			// The first speaker wins every game, from either side.
			name:  "first always wins",
			games: append(repeat(15, "a", "b", "a", 1), repeat(15, "a", "b", "b", 0)...),
			est:   0.5, n: 30, excludeZero: true,
		},
		{
			// The proposition always wins and speaks first half the time:
			// no advantage to speaking first.
			name:  "the side, not the order",
			games: append(repeat(20, "a", "b", "a", 1), repeat(20, "a", "b", "b", 1)...),
			est:   0, n: 40, excludeZero: false,
		},
		{
			name: "no order or an unknown first speaker left out",
			games: append(append(repeat(10, "a", "b", "b", 1), repeat(10, "a", "b", "", 1)...),
				repeat(10, "a", "b", "c", 1)...),
			est: -0.5, n: 10, excludeZero: true,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			est, low, high, n := FirstSpeakerAdvantage(tc.games, 1000, 3)
			if !near(est, tc.est, 1e-12) || n != tc.n {
				t.Errorf("estimate %v over %d games, want %v over %d", est, n, tc.est, tc.n)
			}
			if excludes := low > 0 || high < 0; excludes != tc.excludeZero {
				t.Errorf("[%v, %v] excludes zero: %v, want %v", low, high, excludes, tc.excludeZero)
			}
		})
	}
}

func TestPerMotion(t *testing.T) {
	games := []Game{
		{A: "a", B: "b", Score: 1, Motion: "tax"},
		{A: "b", B: "a", Score: 0, Motion: "war"},
		{A: "a", B: "b", Score: 0.5, Motion: "tax"},
		{A: "b", B: "a", Score: 1, Motion: "tax"},
		{A: "a", B: "b", Score: math.NaN(), Motion: "war"},
		{A: "a", B: "b", Score: 0.7, Motion: "peace"},
		{A: "a", B: "b", Score: 0.3, Motion: "peace"},
	}
	tests := []struct {
		name  string
		games []Game
		want  []MotionResult
	}{
		{name: "no games", games: nil, want: nil},
		{
			name:  "three motions",
			games: games,
			want: []MotionResult{
				{Motion: "tax", Games: 3, PropWins: 2, Draws: 1},
				{Motion: "war", Games: 1, OppWins: 1},
				{Motion: "peace", Games: 2, PropWins: 1, OppWins: 1},
			},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := PerMotion(tc.games); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("PerMotion = %+v, want %+v", got, tc.want)
			}
		})
	}
}
