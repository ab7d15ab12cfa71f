package rating

import (
	"math"

	"github.com/moot-dev/moot/internal/stats"
)

// SideAdvantage is the proposition's (A's) mean score less one half over
// the games with a score, with a 95% bootstrap interval from resamples
// resamplings of those games seeded with seed (see stats.MeanInterval), and
// n their number. A positive estimate favours the proposition. Games of a
// model against itself count here: they measure the side and nothing else.
// With no games est, low and high are NaN; with resamples < 1 low and high
// are.
func SideAdvantage(games []Game, resamples int, seed uint64) (est, low, high float64, n int) {
	scores := make([]float64, 0, len(games))
	for _, g := range games {
		if s, ok := g.score(); ok {
			scores = append(scores, s)
		}
	}
	return advantage(scores, resamples, seed)
}

// FirstSpeakerAdvantage is the first speaker's mean score less one half, as
// SideAdvantage is the proposition's, over the games with a score whose
// First names A or B; games with no First, or a First that is neither, are
// left out of it and of n.
func FirstSpeakerAdvantage(games []Game, resamples int, seed uint64) (est, low, high float64, n int) {
	scores := make([]float64, 0, len(games))
	for _, g := range games {
		s, ok := g.score()
		switch {
		case !ok || g.First == "":
		case g.First == g.A:
			scores = append(scores, s)
		case g.First == g.B:
			scores = append(scores, 1-s)
		}
	}
	return advantage(scores, resamples, seed)
}

// advantage returns the mean of scores less one half, with its interval.
func advantage(scores []float64, resamples int, seed uint64) (est, low, high float64, n int) {
	if len(scores) == 0 {
		return math.NaN(), math.NaN(), math.NaN(), 0
	}
	iv := stats.MeanInterval(scores, resamples, seed)
	est = stats.Mean(scores) - 0.5
	if !iv.OK {
		return est, math.NaN(), math.NaN(), len(scores)
	}
	return est, iv.Low - 0.5, iv.High - 0.5, len(scores)
}

// MotionResult is the record of one motion's games: PropWins counts the
// games A won (a score above one half), OppWins those B won, and Draws the
// rest.
type MotionResult struct {
	Motion                   string
	Games                    int
	PropWins, OppWins, Draws int
}

// PerMotion returns the record of each motion's games with a score, the
// motions in the order they first appear in games.
func PerMotion(games []Game) []MotionResult {
	var out []MotionResult
	at := map[string]int{}
	for _, g := range games {
		s, ok := g.score()
		if !ok {
			continue
		}
		i, seen := at[g.Motion]
		if !seen {
			i = len(out)
			at[g.Motion] = i
			out = append(out, MotionResult{Motion: g.Motion})
		}
		r := &out[i]
		r.Games++
		switch {
		case s > 0.5:
			r.PropWins++
		case s < 0.5:
			r.OppWins++
		default:
			r.Draws++
		}
	}
	return out
}
