package dialectic

import (
	"math"
	"strconv"
	"strings"
)

// Total is one side's cumulative score: the sum of the current scores of
// its arguments, and how many of its arguments have a score.
type Total struct {
	Total float64 `json:"total"`
	Count int     `json:"count"`
}

// Totals is the cumulative score of both sides.
type Totals struct {
	Proposition Total `json:"proposition"`
	Opposition  Total `json:"opposition"`
}

// Of returns the total of side.
func (t Totals) Of(side Side) Total {
	if side == Opp {
		return t.Opposition
	}
	return t.Proposition
}

// Round3 rounds x to three decimals, as every total and diff is stored. It
// rounds exactly as Python's round(x, 3), which dialectic uses: the exact
// binary value of x is rounded, and a value exactly half way between two
// results goes to the even one (0.0625 gives 0.062, 2.0675 gives 2.067
// because its binary value lies below the half). strconv does the same:
// FormatFloat rounds the exact value half to even, and ParseFloat reads the
// result back to the nearest float64, as Python does. Unlike Python, the
// result is never a negative zero, which would be written as -0.
func Round3(x float64) float64 {
	r, err := strconv.ParseFloat(strconv.FormatFloat(x, 'f', 3, 64), 64)
	if err != nil {
		return x
	}
	if r == 0 {
		return 0 // no negative zero in files
	}
	return r
}

// Cumulative sums current scores per side. Ids are summed in moot's order so
// that the same scores always give the same bits; strings that are not ids
// count for neither side.
func Cumulative(current map[string]float64) Totals {
	ids := make([]string, 0, len(current))
	for id := range current {
		ids = append(ids, id)
	}
	SortIDs(ids)
	var t Totals
	for _, id := range ids {
		pid, err := ParseID(id)
		if err != nil {
			continue
		}
		if pid.Side == Prop {
			t.Proposition.Total += current[id]
			t.Proposition.Count++
		} else {
			t.Opposition.Total += current[id]
			t.Opposition.Count++
		}
	}
	t.Proposition.Total = Round3(t.Proposition.Total)
	t.Opposition.Total = Round3(t.Opposition.Total)
	return t
}

// Leader names the side ahead and by how much; side is "" on a tie.
func (t Totals) Leader() (side Side, margin float64) {
	d := Round3(t.Proposition.Total - t.Opposition.Total)
	switch {
	case d > 0:
		return Prop, d
	case d < 0:
		return Opp, -d
	}
	return "", 0
}

// exact writes a score with every digit it has, so that a message never
// shows a score rounded (-0.0625, not -0.062).
func exact(x float64) string {
	return strconv.FormatFloat(x, 'g', -1, 64)
}

// PythonNumber writes x as Python's json module writes a number: an int
// (whole set) as its digits, a float as Python's repr of it (0.0, 0.35,
// 1e-05), so that a file debate-ops writes matches dialectic's.
func PythonNumber(x float64, whole bool) string {
	if whole && x == math.Trunc(x) && math.Abs(x) < 1e15 {
		return strconv.FormatFloat(x, 'f', -1, 64)
	}
	if x != 0 && (math.Abs(x) < 1e-4 || math.Abs(x) >= 1e16) {
		return strconv.FormatFloat(x, 'e', -1, 64)
	}
	s := strconv.FormatFloat(x, 'f', -1, 64)
	if !strings.ContainsAny(s, ".") {
		s += ".0"
	}
	return s
}

// formatScore writes a score the way people read it: at most three
// decimals, no trailing zeros.
func formatScore(x float64) string {
	return strconv.FormatFloat(Round3(x), 'f', -1, 64)
}

// FormatScore writes a score with a sign and two to three decimals, as
// moot shows scores to people: +0.35, -2.05, 0.00.
func FormatScore(x float64) string {
	x = Round3(x)
	s := strconv.FormatFloat(x, 'f', 2, 64)
	if Round3(x*100) != math.Trunc(Round3(x*100)) {
		s = strconv.FormatFloat(x, 'f', 3, 64)
	}
	if x > 0 {
		return "+" + s
	}
	return s
}
