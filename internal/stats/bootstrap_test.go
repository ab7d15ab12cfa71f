package stats

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// noisy returns n values of shift plus normal noise of standard deviation sd,
// the same every time for a seed.
func noisy(n int, shift, sd float64, seed uint64) []float64 {
	rng := rand.New(rand.NewPCG(seed, 1))
	x := make([]float64, n)
	for i := range x {
		x[i] = shift + sd*rng.NormFloat64()
	}
	return x
}

// centred returns x with its mean subtracted, so that its mean is zero (to
// rounding).
func centred(x []float64) []float64 {
	m := Mean(x)
	out := make([]float64, len(x))
	for i, v := range x {
		out[i] = v - m
	}
	return out
}

func TestMeanIntervalShift(t *testing.T) {
	shifted := noisy(30, 0.2, 0.1, 7)
	zero := centred(noisy(30, 0, 0.1, 8))
	tests := []struct {
		name     string
		x        []float64
		excludes bool
	}{
		{name: "shifted by +0.2 with small noise", x: shifted, excludes: true},
		{name: "zero-centred", x: zero, excludes: false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			iv := MeanInterval(tc.x, 2000, 42)
			if !iv.OK {
				t.Fatalf("MeanInterval not OK: %+v", iv)
			}
			if iv.N != len(tc.x) {
				t.Errorf("N = %d, want %d", iv.N, len(tc.x))
			}
			if !near(iv.Estimate, Mean(tc.x), 1e-12) {
				t.Errorf("Estimate = %v, want the mean %v", iv.Estimate, Mean(tc.x))
			}
			if !(iv.Low <= iv.Estimate && iv.Estimate <= iv.High) {
				t.Errorf("estimate %v outside its interval [%v, %v]", iv.Estimate, iv.Low, iv.High)
			}
			if got := iv.Excludes(0); got != tc.excludes {
				t.Errorf("Excludes(0) = %v, want %v; interval %+v", got, tc.excludes, iv)
			}
			// Mean 0.2, standard error about 0.1/√30 = 0.018: a 95% interval
			// is about ±0.036 wide, so well within ±0.1 of the estimate.
			if iv.High-iv.Estimate > 0.1 || iv.Estimate-iv.Low > 0.1 {
				t.Errorf("interval [%v, %v] too wide around %v", iv.Low, iv.High, iv.Estimate)
			}
		})
	}
}

func TestBootstrapDeterministic(t *testing.T) {
	x := noisy(25, 0.1, 0.3, 3)
	y := make([]float64, len(x))
	for i, v := range noisy(25, 0, 0.3, 4) {
		y[i] = x[i] + v
	}
	tests := []struct {
		name string
		run  func(seed uint64) Interval
	}{
		{name: "mean", run: func(seed uint64) Interval { return MeanInterval(x, 500, seed) }},
		{name: "pearson", run: func(seed uint64) Interval { return CorrelationInterval(x, y, false, 500, seed) }},
		{name: "spearman", run: func(seed uint64) Interval { return CorrelationInterval(x, y, true, 500, seed) }},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			a, b := tc.run(99), tc.run(99)
			if !a.OK || a != b {
				t.Fatalf("same seed, different intervals: %+v and %+v", a, b)
			}
			c := tc.run(100)
			if c.Estimate != a.Estimate {
				t.Errorf("the estimate depends on the seed: %v and %v", a.Estimate, c.Estimate)
			}
			if c.Low == a.Low && c.High == a.High {
				t.Errorf("seeds 99 and 100 gave the same interval %+v: is the seed used?", a)
			}
		})
	}
}

func TestBootstrapPercentiles(t *testing.T) {
	// A statistic that ignores its sample and counts its calls: the whole
	// sample gets 0 and the resamples 1..1000. The empirical 0.025 quantile
	// of 1..1000 is the 25th value, 25; the 0.975 quantile the 975th, 975.
	// At level 0.9: the 50th and 950th.
	tests := []struct {
		level     float64
		low, high float64
	}{
		{level: 0.95, low: 25, high: 975},
		{level: 0.9, low: 50, high: 950},
	}
	for _, tc := range tests {
		t.Run(fmt.Sprintf("level %g", tc.level), func(t *testing.T) {
			calls := 0
			count := func([]int) (float64, bool) {
				v := float64(calls)
				calls++
				return v, true
			}
			iv := Bootstrap(5, count, 1000, 1, tc.level)
			want := Interval{Estimate: 0, Low: tc.low, High: tc.high, N: 5, OK: true}
			if iv != want {
				t.Errorf("Bootstrap = %+v, want %+v", iv, want)
			}
		})
	}
}

func TestBootstrapRedraw(t *testing.T) {
	// allSame is undefined on a resample of two items that draws one item
	// twice, as a correlation is on a sample with no variance.
	allSame := func(idx []int) (float64, bool) {
		if idx[0] == idx[1] {
			return 0, false
		}
		return 1, true
	}
	// onlyWhole is defined on the whole sample only.
	onlyWhole := func(idx []int) (float64, bool) {
		for i, k := range idx {
			if i != k {
				return 0, false
			}
		}
		return 0.5, true
	}
	nanResample := func(idx []int) (float64, bool) {
		if idx[0] == 0 && idx[1] == 1 {
			return 2, true
		}
		return math.NaN(), true
	}
	never := func([]int) (float64, bool) { return 0, false }
	tests := []struct {
		name      string
		n         int
		stat      func([]int) (float64, bool)
		resamples int
		level     float64
		want      Interval // Low, High NaN when not OK
	}{
		{name: "undefined resamples are drawn again", n: 2, stat: allSame, resamples: 200, level: 0.95,
			want: Interval{Estimate: 1, Low: 1, High: 1, N: 2, OK: true}},
		{name: "gives up when resamples stay undefined", n: 4, stat: onlyWhole, resamples: 200, level: 0.95,
			want: Interval{Estimate: 0.5, N: 4}},
		{name: "a NaN counts as undefined", n: 2, stat: nanResample, resamples: 50, level: 0.95,
			want: Interval{Estimate: 2, Low: 2, High: 2, N: 2, OK: true}},
		{name: "undefined on the whole sample", n: 3, stat: never, resamples: 10, level: 0.95,
			want: Interval{Estimate: nan, N: 3}},
		{name: "no items", n: 0, stat: never, resamples: 10, level: 0.95, want: Interval{Estimate: nan}},
		{name: "no resamples", n: 2, stat: allSame, resamples: 0, level: 0.95, want: Interval{Estimate: nan, N: 2}},
		{name: "level 1", n: 2, stat: allSame, resamples: 10, level: 1, want: Interval{Estimate: nan, N: 2}},
		{name: "level 0", n: 2, stat: allSame, resamples: 10, level: 0, want: Interval{Estimate: nan, N: 2}},
		{name: "level NaN", n: 2, stat: allSame, resamples: 10, level: nan, want: Interval{Estimate: nan, N: 2}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			iv := Bootstrap(tc.n, tc.stat, tc.resamples, 5, tc.level)
			if !sameInterval(iv, tc.want) {
				t.Errorf("Bootstrap = %+v, want %+v", iv, tc.want)
			}
		})
	}
}

// sameInterval compares intervals, with NaN equal to NaN, and Low and High
// both NaN in want when it is not OK.
func sameInterval(got, want Interval) bool {
	same := func(a, b float64) bool { return a == b || math.IsNaN(a) && math.IsNaN(b) }
	if !want.OK {
		want.Low, want.High = math.NaN(), math.NaN()
	}
	return got.OK == want.OK && got.N == want.N &&
		same(got.Estimate, want.Estimate) && same(got.Low, want.Low) && same(got.High, want.High)
}

func TestCorrelationInterval(t *testing.T) {
	x := noisy(40, 0, 1, 11)
	noise := noisy(40, 0, 0.5, 12)
	related := make([]float64, len(x))
	for i := range x {
		related[i] = x[i] + noise[i]
	}
	unrelated := noisy(40, 0, 1, 13)
	// Missing values are dropped pair by pair.
	xm := append([]float64{nan, 1}, x...)
	rm := append([]float64{3, nan}, related...)
	tests := []struct {
		name     string
		x, y     []float64
		spearman bool
		n        int
		excludes bool
		ok       bool
	}{
		{name: "related, pearson", x: x, y: related, n: 40, excludes: true, ok: true},
		{name: "related, spearman", x: x, y: related, spearman: true, n: 40, excludes: true, ok: true},
		{name: "related with missing values", x: xm, y: rm, n: 40, excludes: true, ok: true},
		{name: "unrelated, pearson", x: x, y: unrelated, n: 40, excludes: false, ok: true},
		{name: "unrelated, spearman", x: x, y: unrelated, spearman: true, n: 40, excludes: false, ok: true},
		{name: "lengths differ", x: x, y: related[1:], ok: false},
		{name: "constant y", x: x[:5], y: []float64{1, 1, 1, 1, 1}, n: 5, ok: false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			iv := CorrelationInterval(tc.x, tc.y, tc.spearman, 1000, 21)
			if iv.OK != tc.ok {
				t.Fatalf("CorrelationInterval OK = %v, want %v: %+v", iv.OK, tc.ok, iv)
			}
			if !tc.ok {
				if iv.Excludes(0) {
					t.Errorf("an interval that is not OK excludes 0: %+v", iv)
				}
				return
			}
			want, _ := Pearson(tc.x, tc.y)
			if tc.spearman {
				want, _ = Spearman(tc.x, tc.y)
			}
			if iv.Estimate != want || iv.N != tc.n {
				t.Errorf("Estimate, N = %v, %d; want %v, %d", iv.Estimate, iv.N, want, tc.n)
			}
			if iv.Low < -1 || iv.High > 1 || iv.Low > iv.High {
				t.Errorf("interval [%v, %v] is not within [-1, 1]", iv.Low, iv.High)
			}
			if got := iv.Excludes(0); got != tc.excludes {
				t.Errorf("Excludes(0) = %v, want %v: %+v", got, tc.excludes, iv)
			}
		})
	}
}

func TestExcludes(t *testing.T) {
	iv := Interval{Estimate: 0.2, Low: 0.1, High: 0.3, N: 10, OK: true}
	tests := []struct {
		name string
		iv   Interval
		v    float64
		want bool
	}{
		{name: "below", iv: iv, v: 0, want: true},
		{name: "at the low end", iv: iv, v: 0.1, want: false},
		{name: "inside", iv: iv, v: 0.2, want: false},
		{name: "at the high end", iv: iv, v: 0.3, want: false},
		{name: "above", iv: iv, v: 0.31, want: true},
		{name: "not OK", iv: Interval{Low: math.NaN(), High: math.NaN()}, v: 0, want: false},
		{name: "not OK with bounds", iv: Interval{Low: 0.1, High: 0.3}, v: 0, want: false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.iv.Excludes(tc.v); got != tc.want {
				t.Errorf("%+v.Excludes(%v) = %v, want %v", tc.iv, tc.v, got, tc.want)
			}
		})
	}
}

func TestQuantile(t *testing.T) {
	sorted := []float64{10, 20, 30, 40}
	tests := []struct {
		p    float64
		want float64
	}{
		// k = ⌈p·4⌉: the k-th smallest value.
		{p: 0.001, want: 10}, // ⌈0.004⌉ = 1
		{p: 0.25, want: 10},  // ⌈1⌉ = 1
		{p: 0.26, want: 20},  // ⌈1.04⌉ = 2
		{p: 0.5, want: 20},   // ⌈2⌉ = 2
		{p: 0.51, want: 30},  // ⌈2.04⌉ = 3
		{p: 0.975, want: 40}, // ⌈3.9⌉ = 4
		{p: 1, want: 40},     // ⌈4⌉ = 4
		{p: (1 - 0.5) / 2, want: 10},
	}
	for _, tc := range tests {
		t.Run(fmt.Sprintf("p %g", tc.p), func(t *testing.T) {
			if got := quantile(tc.p, sorted); got != tc.want {
				t.Errorf("quantile(%v, %v) = %v, want %v", tc.p, sorted, got, tc.want)
			}
		})
	}
}

func TestQuantileExported(t *testing.T) {
	sorted := []float64{10, 20, 30, 40}
	tests := []struct {
		name   string
		p      float64
		sorted []float64
		want   float64 // NaN for none
	}{
		{name: "as quantile", p: 0.26, sorted: sorted, want: 20},
		{name: "p 0", p: 0, sorted: sorted, want: 10},
		{name: "empty", p: 0.5, sorted: nil, want: math.NaN()},
		{name: "p below 0", p: -0.1, sorted: sorted, want: math.NaN()},
		{name: "p above 1", p: 1.1, sorted: sorted, want: math.NaN()},
		{name: "p NaN", p: math.NaN(), sorted: sorted, want: math.NaN()},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := Quantile(tc.p, tc.sorted)
			if math.IsNaN(tc.want) != math.IsNaN(got) || !math.IsNaN(got) && got != tc.want {
				t.Errorf("Quantile(%v, %v) = %v, want %v", tc.p, tc.sorted, got, tc.want)
			}
		})
	}
}
