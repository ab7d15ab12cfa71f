package stats

import (
	"math"
	"math/rand/v2"
	"slices"
)

// DefaultLevel is the confidence level of MeanInterval and
// CorrelationInterval.
const DefaultLevel = 0.95

// redrawFactor bounds how many resamples Bootstrap may draw again: at most
// redrawFactor times resamples in all, before it gives up.
const redrawFactor = 10

// stream is the second word of the PCG state, fixed so that the seed alone
// decides the draws.
const stream = 0x9e3779b97f4a7c15

// Interval is an estimate with a bootstrap confidence interval. Estimate is
// the statistic on the whole sample, Low and High bound the interval, and N
// is the number of items the statistic was computed on. OK is false when
// there is no interval: the statistic is undefined on the whole sample, the
// arguments are out of range, or too many resamples left it undefined; Low
// and High are then NaN.
type Interval struct {
	Estimate, Low, High float64
	N                   int
	OK                  bool
}

// Excludes reports whether v lies outside [Low, High]. It is false for an
// interval that is not OK.
func (i Interval) Excludes(v float64) bool {
	return i.OK && (v < i.Low || v > i.High)
}

// Bootstrap estimates stat on the n items 0..n-1 and a percentile confidence
// interval at level (0.95, say) from resamples resamplings of the items with
// replacement, using a PCG generator seeded with seed, so the same input
// always gives the same interval. stat gets the indices of a sample (a slice
// it may read but not keep, reused from one call to the next); a resample
// where stat reports !ok, or a NaN, is drawn again, and after
// 10·resamples such redraws Bootstrap gives up with OK false. The interval
// runs from the (1-level)/2 to the (1+level)/2 quantile of the resampled
// statistics (the empirical p-quantile: the smallest of them with a share
// of at least p of them at or below it). OK is also false when n < 1,
// resamples < 1, level is not strictly between 0 and 1, or stat reports
// !ok on the whole sample.
func Bootstrap(n int, stat func(idx []int) (float64, bool), resamples int, seed uint64, level float64) Interval {
	fail := Interval{Estimate: math.NaN(), Low: math.NaN(), High: math.NaN(), N: max(n, 0)}
	if n < 1 || resamples < 1 || !(level > 0 && level < 1) {
		return fail
	}
	idx := make([]int, n)
	for i := range idx {
		idx[i] = i
	}
	est, ok := stat(idx)
	if !ok || math.IsNaN(est) {
		return fail
	}
	fail.Estimate = est
	rng := rand.New(rand.NewPCG(seed, stream))
	values := make([]float64, 0, resamples)
	redraws := 0
	for len(values) < resamples {
		for i := range idx {
			idx[i] = rng.IntN(n)
		}
		v, ok := stat(idx)
		if !ok || math.IsNaN(v) {
			redraws++
			if redraws > redrawFactor*resamples {
				return fail
			}
			continue
		}
		values = append(values, v)
	}
	slices.Sort(values)
	tail := (1 - level) / 2
	return Interval{
		Estimate: est,
		Low:      quantile(tail, values),
		High:     quantile(1-tail, values),
		N:        n,
		OK:       true,
	}
}

// Quantile returns the empirical p-quantile of sorted, values in ascending
// order, as Bootstrap's intervals take it: the smallest value with a share p
// of the values at or below it. It lets a caller that resamples a vector of
// statistics at once (a rating per model, say) bound each the same way. It
// returns NaN when sorted is empty or p is not in [0, 1].
func Quantile(p float64, sorted []float64) float64 {
	if len(sorted) == 0 || !(p >= 0 && p <= 1) {
		return math.NaN()
	}
	return quantile(p, sorted)
}

// quantile returns the empirical p-quantile of sorted, which is not empty:
// its k-th smallest value for k = ⌈p·m⌉ over m values, the smallest value
// with a share p of the values at or below it. p·m is first taken down by
// 1e-9, so that the rounding in (1-0.95)/2 = 0.025000000000000022 does not
// turn the 25th of 1000 values into the 26th (gonum's stat.Quantile does).
func quantile(p float64, sorted []float64) float64 {
	k := int(math.Ceil(p*float64(len(sorted)) - 1e-9))
	return sorted[max(1, min(len(sorted), k))-1]
}

// MeanInterval is the mean of the values of x that are not NaN, with a
// bootstrap confidence interval at DefaultLevel from resamples resamplings of
// those values; N is their number. See Bootstrap.
func MeanInterval(x []float64, resamples int, seed uint64) Interval {
	present := dropNaN(x)
	sample := make([]float64, len(present))
	mean := func(idx []int) (float64, bool) {
		for i, k := range idx {
			sample[i] = present[k]
		}
		return mean(sample), true
	}
	return Bootstrap(len(present), mean, resamples, seed, DefaultLevel)
}

// CorrelationInterval is the correlation of x and y (Spearman's when spearman
// is true, Pearson's otherwise) over the pairs where neither is NaN, with a
// bootstrap confidence interval at DefaultLevel from resamples resamplings of
// those pairs; N is their number. A resample on which the correlation is
// undefined (all its x equal, say) is drawn again, as Bootstrap says. OK is
// false when x and y differ in length or the correlation of all the pairs is
// undefined.
func CorrelationInterval(x, y []float64, spearman bool, resamples int, seed uint64) Interval {
	px, py, ok := pairs(x, y)
	if !ok {
		return Bootstrap(0, nil, resamples, seed, DefaultLevel)
	}
	corr := pearson
	if spearman {
		corr = spearmanPairs
	}
	sx := make([]float64, len(px))
	sy := make([]float64, len(py))
	r := func(idx []int) (float64, bool) {
		for i, k := range idx {
			sx[i], sy[i] = px[k], py[k]
		}
		return corr(sx, sy)
	}
	return Bootstrap(len(px), r, resamples, seed, DefaultLevel)
}
