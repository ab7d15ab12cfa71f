package stats

import (
	"math"
	"testing"
)

// nan marks a missing value in the tables below.
var nan = math.NaN()

// near reports whether got is within tol of want.
func near(got, want, tol float64) bool {
	return math.Abs(got-want) <= tol
}

func TestKrippendorffInterval(t *testing.T) {
	tests := []struct {
		name    string
		ratings [][]float64
		want    float64
		tol     float64
		ok      bool
	}{
		{
			// Krippendorff's worked example: 4 observers (rows) by 12 units
			// (columns), with missing values. Source: K. Krippendorff,
			// "Computing Krippendorff's Alpha-Reliability" (2011), section C,
			// which publishes interval alpha = .849 (nominal .743, ordinal
			// .815, ratio .797) for these data; the same matrix is the
			// example of Stata's kalpha help (r-stata/tssc,
			// ssc/kalpha/kalpha.sthlp). Unit 12 has one value and is left
			// out, leaving 40 pairable values. The exact value, 951/1120 =
			// 0.849107..., was computed apart from this package, through the
			// coincidence matrix.
			name: "Krippendorff 2011 example",
			ratings: [][]float64{
				{1, 2, 3, 3, 2, 1, 4, 1, 2, nan, nan, nan},
				{1, 2, 3, 3, 2, 2, 4, 1, 2, 5, nan, 3},
				{nan, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, nan},
				{1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, nan},
			},
			want: 0.849, tol: 0.0005, ok: true,
		},
		{
			name: "Krippendorff 2011 example, exact",
			ratings: [][]float64{
				{1, 2, 3, 3, 2, 1, 4, 1, 2, nan, nan, nan},
				{1, 2, 3, 3, 2, 2, 4, 1, 2, 5, nan, 3},
				{nan, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, nan},
				{1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, nan},
			},
			want: 951.0 / 1120, tol: 1e-9, ok: true,
		},
		{
			// Units (1,1), (2,2), (3,4): n = 6 pairable values.
			// Do = 1/6 · [0 + 0 + (1/1)·2·(3-4)²] = 2/6 = 1/3.
			// Values 1,1,2,2,3,4: Σv = 13, Σv² = 35, so over ordered pairs
			// Σ(vi-vj)² = 2(6·35 - 13²) = 82 and De = 82/(6·5) = 41/15.
			// alpha = 1 - (1/3)/(41/15) = 1 - 5/41 = 36/41 = 0.878049.
			name:    "hand computed, two judges",
			ratings: [][]float64{{1, 2, 3}, {1, 2, 4}},
			want:    36.0 / 41, tol: 1e-9, ok: true,
		},
		{
			// Units (1,1), (2,2,3), (3,4) and (5) alone, which is left out;
			// the third judge's short row counts as missing values.
			// n = 2 + 3 + 2 = 7.
			// Unit (2,2,3): ordered pairs Σ(vi-vj)² = 4, over m-1 = 2: 2.
			// Unit (3,4): 2, over m-1 = 1: 2.  Do = (0 + 2 + 2)/7 = 4/7.
			// Values 1,1,2,2,3,3,4: Σv = 16, Σv² = 44, so Σ(vi-vj)² =
			// 2(7·44 - 16²) = 104 and De = 104/(7·6) = 52/21.
			// alpha = 1 - (4/7)(21/52) = 1 - 3/13 = 10/13 = 0.769231.
			name:    "hand computed, missing values and a lone value",
			ratings: [][]float64{{1, 2, 3, 5}, {1, 2, 4, nan}, {nan, 3}},
			want:    10.0 / 13, tol: 1e-9, ok: true,
		},
		{
			name:    "perfect agreement",
			ratings: [][]float64{{0.1, -0.4, 0.9, nan}, {0.1, -0.4, 0.9, 0.3}, {nan, -0.4, 0.9, 0.3}},
			want:    1, tol: 1e-12, ok: true,
		},
		{
			// Every judge gives every unit the same two values crossed:
			// units (0,1) and (1,0). Do = 1/4·(2+2) = 1, De = 2·4·1/(4·3)
			// = 2/3, alpha = 1 - 3/2 = -0.5: worse than chance.
			name:    "systematic disagreement",
			ratings: [][]float64{{0, 1}, {1, 0}},
			want:    -0.5, tol: 1e-9, ok: true,
		},
		{name: "no judges", ratings: nil, ok: false},
		{name: "one judge", ratings: [][]float64{{1, 2, 3}}, ok: false},
		{name: "no unit with two values", ratings: [][]float64{{1, nan}, {nan, 2}}, ok: false},
		{name: "all missing", ratings: [][]float64{{nan, nan}, {nan, nan}}, ok: false},
		{name: "no expected disagreement", ratings: [][]float64{{2, 2, nan}, {2, 2, 5}}, ok: false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := KrippendorffInterval(tc.ratings)
			if ok != tc.ok {
				t.Fatalf("KrippendorffInterval ok = %v (alpha %v), want %v", ok, got, tc.ok)
			}
			if ok && !near(got, tc.want, tc.tol) {
				t.Errorf("KrippendorffInterval = %.6f, want %.6f ± %g", got, tc.want, tc.tol)
			}
		})
	}
}

func TestCorrelation(t *testing.T) {
	tests := []struct {
		name     string
		x, y     []float64
		pearson  float64
		spearman float64
		ok       bool
	}{
		{
			// Pearson: mean x = 3, mean y = 4; dx = -2,-1,0,1,2 and
			// dy = -2,0,1,0,1; Σdx·dy = 4+0+0+0+2 = 6, Σdx² = 10, Σdy² = 6;
			// r = 6/√60 = 0.774597.
			// Spearman: ranks of x are 1..5; y = 2,4,5,4,5 ranks 1, 2.5, 4.5,
			// 2.5, 4.5 (mean 3); dr = -2,-0.5,1.5,-0.5,1.5; Σdx·dr =
			// 4+0.5+0-0.5+3 = 7, Σdr² = 4+0.25+2.25+0.25+2.25 = 9;
			// rho = 7/√(10·9) = 0.737865.
			name:    "hand computed",
			x:       []float64{1, 2, 3, 4, 5},
			y:       []float64{2, 4, 5, 4, 5},
			pearson: 6 / math.Sqrt(60), spearman: 7 / math.Sqrt(90), ok: true,
		},
		{
			// Spearman with ties in both: x ranks 1, 2.5, 2.5, 4, 5;
			// y = 2,1,3,3,5 ranks 2, 1, 3.5, 3.5, 5. Both mean 3:
			// dx = -2,-0.5,-0.5,1,2 and dy = -1,-2,0.5,0.5,2;
			// Σdx·dy = 2+1-0.25+0.5+4 = 7.25, Σdx² = Σdy² = 9.5;
			// rho = 7.25/9.5 = 0.763158.
			// Pearson on the values: mean x = 2.4, mean y = 2.8;
			// dx = -1.4,-0.4,-0.4,0.6,1.6 and dy = -0.8,-1.8,0.2,0.2,2.2;
			// Σdx·dy = 1.12+0.72-0.08+0.12+3.52 = 5.4, Σdx² = 1.96+0.16+0.16
			// +0.36+2.56 = 5.2, Σdy² = 0.64+3.24+0.04+0.04+4.84 = 8.8;
			// r = 5.4/√(5.2·8.8) = 0.797724.
			name:    "ties",
			x:       []float64{1, 2, 2, 3, 4},
			y:       []float64{2, 1, 3, 3, 5},
			pearson: 5.4 / math.Sqrt(5.2*8.8), spearman: 7.25 / 9.5, ok: true,
		},
		{
			name:    "pairs with a NaN are dropped",
			x:       []float64{1, nan, 2, 3, 4, 7, 5},
			y:       []float64{2, 9, 4, 5, 4, nan, 5},
			pearson: 6 / math.Sqrt(60), spearman: 7 / math.Sqrt(90), ok: true,
		},
		{
			// The hand-computed case moved by 10⁹: a one-pass sum of squares
			// would lose the deviations to rounding; the two-pass one keeps r.
			name:    "large offset",
			x:       []float64{1e9 + 1, 1e9 + 2, 1e9 + 3, 1e9 + 4, 1e9 + 5},
			y:       []float64{2, 4, 5, 4, 5},
			pearson: 6 / math.Sqrt(60), spearman: 7 / math.Sqrt(90), ok: true,
		},
		{
			// A monotone relation that is not linear: the ranks agree, so
			// rho = 1, while r is not. Mean x = 2.5, mean y = 106/4 = 26.5;
			// dx = -1.5,-0.5,0.5,1.5 and dy = -25.5,-24.5,-23.5,73.5;
			// Σdx·dy = 38.25+12.25-11.75+110.25 = 149,
			// Σdx² = 5, Σdy² = 650.25+600.25+552.25+5402.25 = 7205;
			// r = 149/√(5·7205) = 0.785088.
			name:    "monotone",
			x:       []float64{1, 2, 3, 4},
			y:       []float64{1, 2, 3, 100},
			pearson: 149 / math.Sqrt(5*7205), spearman: 1, ok: true,
		},
		{name: "two pairs", x: []float64{1, 2}, y: []float64{2, 1}, ok: false},
		{name: "two pairs after dropping NaN", x: []float64{1, 2, nan}, y: []float64{2, 1, 3}, ok: false},
		{name: "constant x", x: []float64{3, 3, 3, 3}, y: []float64{1, 2, 3, 4}, ok: false},
		{name: "constant y", x: []float64{1, 2, 3, 4}, y: []float64{0, 0, 0, 0}, ok: false},
		{name: "lengths differ", x: []float64{1, 2, 3, 4}, y: []float64{1, 2, 3}, ok: false},
		{name: "empty", ok: false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r, ok := Pearson(tc.x, tc.y)
			if ok != tc.ok {
				t.Fatalf("Pearson ok = %v (r %v), want %v", ok, r, tc.ok)
			}
			if ok && !near(r, tc.pearson, 1e-9) {
				t.Errorf("Pearson = %.6f, want %.6f", r, tc.pearson)
			}
			rho, ok := Spearman(tc.x, tc.y)
			if ok != tc.ok {
				t.Fatalf("Spearman ok = %v (rho %v), want %v", ok, rho, tc.ok)
			}
			if ok && !near(rho, tc.spearman, 1e-9) {
				t.Errorf("Spearman = %.6f, want %.6f", rho, tc.spearman)
			}
		})
	}
}

func TestRanks(t *testing.T) {
	tests := []struct {
		name string
		x    []float64
		want []float64
	}{
		{name: "distinct", x: []float64{30, 10, 20}, want: []float64{3, 1, 2}},
		{name: "pair tied", x: []float64{10, 20, 20, 30}, want: []float64{1, 2.5, 2.5, 4}},
		{name: "three tied at the bottom", x: []float64{5, 5, 9, 5}, want: []float64{2, 2, 4, 2}},
		{name: "all tied", x: []float64{1, 1}, want: []float64{1.5, 1.5}},
		{name: "empty", x: nil, want: []float64{}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := Ranks(tc.x)
			if len(got) != len(tc.want) {
				t.Fatalf("Ranks(%v) = %v, want %v", tc.x, got, tc.want)
			}
			for i := range got {
				if got[i] != tc.want[i] {
					t.Fatalf("Ranks(%v) = %v, want %v", tc.x, got, tc.want)
				}
			}
		})
	}
}

func TestMean(t *testing.T) {
	tests := []struct {
		name string
		x    []float64
		want float64 // NaN: want NaN
	}{
		{name: "values", x: []float64{1, 2, 4}, want: 7.0 / 3},
		{name: "NaN is missing", x: []float64{nan, 1, 2, nan, 4}, want: 7.0 / 3},
		{name: "empty", x: nil, want: nan},
		{name: "all missing", x: []float64{nan, nan}, want: nan},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := Mean(tc.x)
			if math.IsNaN(tc.want) != math.IsNaN(got) || !math.IsNaN(got) && !near(got, tc.want, 1e-12) {
				t.Errorf("Mean(%v) = %v, want %v", tc.x, got, tc.want)
			}
		})
	}
}
