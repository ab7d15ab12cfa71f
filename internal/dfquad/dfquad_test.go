package dfquad

import (
	"math"
	"slices"
	"strings"
	"testing"
)

// ids is shorthand for a list of node IDs.
func ids(s ...string) []string { return s }

func TestStrengths(t *testing.T) {
	tests := []struct {
		name        string
		nodes       []Node
		want        map[string]float64
		unevaluated []string
		exact       bool // strengths equal to want to the last bit
	}{
		{
			name:  "one node",
			nodes: []Node{{ID: "a", Base: 0.3}},
			want:  map[string]float64{"a": 0.3},
		},
		{
			// a is attacked by b, which is attacked by c; listed from the
			// root down, so that the order of evaluation is not the input's.
			// σ(c) = 0.4, its base: nothing attacks or supports it.
			// σ(b): va = F(0.4) = 1 - 0.6 = 0.4, vs = F() = 0;
			//       0.6 - 0.6·(0.4 - 0) = 0.6 - 0.24 = 0.36.
			// σ(a): va = F(0.36) = 0.36, vs = 0;
			//       0.5 - 0.5·0.36 = 0.5 - 0.18 = 0.32.
			name: "chain",
			nodes: []Node{
				{ID: "a", Base: 0.5, Attackers: ids("b")},
				{ID: "b", Base: 0.6, Attackers: ids("c")},
				{ID: "c", Base: 0.4},
			},
			want: map[string]float64{"a": 0.32, "b": 0.36, "c": 0.4},
		},
		{
			// a is attacked by b (0.6) and c (0.5) and supported by d (0.3).
			// va = 1 - (1-0.6)(1-0.5) = 1 - 0.4·0.5 = 0.8, vs = F(0.3) = 0.3.
			// va > vs: σ(a) = 0.5 - 0.5·(0.8 - 0.3) = 0.5 - 0.25 = 0.25.
			name: "fan-in, attack wins",
			nodes: []Node{
				{ID: "a", Base: 0.5, Attackers: ids("b", "c"), Supporters: ids("d")},
				{ID: "b", Base: 0.6},
				{ID: "c", Base: 0.5},
				{ID: "d", Base: 0.3},
			},
			want: map[string]float64{"a": 0.25, "b": 0.6, "c": 0.5, "d": 0.3},
		},
		{
			// a is attacked by b (0.2) and c (0.25) and supported by d (0.9).
			// va = 1 - 0.8·0.75 = 1 - 0.6 = 0.4, vs = 0.9.
			// vs > va: σ(a) = 0.5 + (1 - 0.5)·(0.9 - 0.4) = 0.5 + 0.25 = 0.75.
			name: "fan-in, support wins",
			nodes: []Node{
				{ID: "a", Base: 0.5, Attackers: ids("b", "c"), Supporters: ids("d")},
				{ID: "b", Base: 0.2},
				{ID: "c", Base: 0.25},
				{ID: "d", Base: 0.9},
			},
			want: map[string]float64{"a": 0.75, "b": 0.2, "c": 0.25, "d": 0.9},
		},
		{
			// a is attacked by b (0.4) and supported by c (0.4): va = vs = 0.4,
			// so σ(a) = 0.7, its base.
			name: "equal attack and support",
			nodes: []Node{
				{ID: "a", Base: 0.7, Attackers: ids("b"), Supporters: ids("c")},
				{ID: "b", Base: 0.4},
				{ID: "c", Base: 0.4},
			},
			want: map[string]float64{"a": 0.7, "b": 0.4, "c": 0.4},
		},
		{
			// Equal only after aggregation, which rounds: va = 1 - 0.7·0.6 =
			// 0.58 comes out as 0.5800000000000001 in float64, and
			// vs = F(0.58) = 0.58; they differ by less than Tie, so σ(a) is
			// its base, 0.7, exactly.
			name: "equal attack and support after aggregation",
			nodes: []Node{
				{ID: "a", Base: 0.7, Attackers: ids("b", "c"), Supporters: ids("d")},
				{ID: "b", Base: 0.3},
				{ID: "c", Base: 0.4},
				{ID: "d", Base: 0.58},
			},
			want:  map[string]float64{"a": 0.7, "b": 0.3, "c": 0.4, "d": 0.58},
			exact: true,
		},
		{
			// a is attacked by b and supported by c, and d attacks both.
			// σ(d) = 0.5.
			// σ(b) = 0.8 - 0.8·0.5 = 0.4.   σ(c) = 0.6 - 0.6·0.5 = 0.3.
			// σ(a): va = 0.4, vs = 0.3; 0.5 - 0.5·(0.4 - 0.3) = 0.45.
			name: "diamond",
			nodes: []Node{
				{ID: "a", Base: 0.5, Attackers: ids("b"), Supporters: ids("c")},
				{ID: "b", Base: 0.8, Attackers: ids("d")},
				{ID: "c", Base: 0.6, Attackers: ids("d")},
				{ID: "d", Base: 0.5},
			},
			want: map[string]float64{"a": 0.45, "b": 0.4, "c": 0.3, "d": 0.5},
		},
		{
			// b is listed twice as an attacker of a: two edges.
			// va = 1 - (1-0.5)(1-0.5) = 0.75; σ(a) = 0.5 - 0.5·0.75 = 0.125.
			name: "an edge listed twice counts twice",
			nodes: []Node{
				{ID: "a", Base: 0.5, Attackers: ids("b", "b")},
				{ID: "b", Base: 0.5},
			},
			want: map[string]float64{"a": 0.125, "b": 0.5},
		},
		{
			// Base scores at the ends of [0, 1]: a full attack takes 1 to 0,
			// a full support takes 0 to 1.
			// σ(a) = 1 - 1·(1 - 0) = 0.   σ(b) = 0 + (1 - 0)·(1 - 0) = 1.
			name: "extremes",
			nodes: []Node{
				{ID: "a", Base: 1, Attackers: ids("one")},
				{ID: "b", Base: 0, Supporters: ids("one")},
				{ID: "one", Base: 1},
			},
			want: map[string]float64{"a": 0, "b": 1, "one": 1},
		},
		{
			// a and b attack each other: neither is evaluated, nor c, which
			// a supports. d, attacked by e and apart from the cycle, is:
			// σ(e) = 0.5, σ(d) = 0.3 - 0.3·0.5 = 0.15.
			name: "2-cycle",
			nodes: []Node{
				{ID: "a", Base: 0.5, Attackers: ids("b")},
				{ID: "b", Base: 0.5, Attackers: ids("a")},
				{ID: "c", Base: 0.5, Supporters: ids("a")},
				{ID: "d", Base: 0.3, Attackers: ids("e")},
				{ID: "e", Base: 0.5},
			},
			want:        map[string]float64{"d": 0.15, "e": 0.5},
			unevaluated: ids("a", "b", "c"),
		},
		{
			// x is attacked by y, y by z, and z is supported by x: a 3-cycle.
			// w hangs off it (x attacks w): not evaluated. u attacks x from
			// outside the cycle, and is evaluated, as is v, which u supports:
			// σ(u) = 0.4, σ(v) = 0.5 + (1 - 0.5)·0.4 = 0.7.
			name: "3-cycle",
			nodes: []Node{
				{ID: "x", Base: 0.5, Attackers: ids("y", "u")},
				{ID: "y", Base: 0.5, Attackers: ids("z")},
				{ID: "z", Base: 0.5, Supporters: ids("x")},
				{ID: "w", Base: 0.5, Attackers: ids("x")},
				{ID: "u", Base: 0.4},
				{ID: "v", Base: 0.5, Supporters: ids("u")},
			},
			want:        map[string]float64{"u": 0.4, "v": 0.7},
			unevaluated: ids("w", "x", "y", "z"),
		},
		{
			name:        "self-attack",
			nodes:       []Node{{ID: "a", Base: 0.5, Attackers: ids("a")}, {ID: "b", Base: 0.2}},
			want:        map[string]float64{"b": 0.2},
			unevaluated: ids("a"),
		},
		{
			name:  "no nodes",
			nodes: nil,
			want:  map[string]float64{},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res, err := Strengths(tc.nodes)
			if err != nil {
				t.Fatalf("Strengths: %v", err)
			}
			if len(res.Strength) != len(tc.want) {
				t.Errorf("Strength = %v, want %v", res.Strength, tc.want)
			}
			for id, want := range tc.want {
				got, ok := res.Strength[id]
				if !ok || math.Abs(got-want) > 1e-12 || tc.exact && got != want {
					t.Errorf("σ(%s) = %v (evaluated %v), want %v", id, got, ok, want)
				}
			}
			if !slices.Equal(res.Unevaluated, tc.unevaluated) {
				t.Errorf("Unevaluated = %q, want %q", res.Unevaluated, tc.unevaluated)
			}
		})
	}
}

func TestStrengthsErrors(t *testing.T) {
	tests := []struct {
		name  string
		nodes []Node
		want  string // in the error
	}{
		{name: "base above 1", nodes: []Node{{ID: "a", Base: 1.5}}, want: `node "a": base 1.5 is outside [0, 1]`},
		{name: "base below 0", nodes: []Node{{ID: "a", Base: 0.2}, {ID: "b", Base: -0.1}}, want: `node "b": base -0.1`},
		{name: "base NaN", nodes: []Node{{ID: "a", Base: math.NaN()}}, want: `node "a": base NaN`},
		{name: "duplicate ID", nodes: []Node{{ID: "a", Base: 0.5}, {ID: "a", Base: 0.6}}, want: `node "a" appears twice`},
		{
			name:  "unknown attacker",
			nodes: []Node{{ID: "a", Base: 0.5, Attackers: ids("ghost")}},
			want:  `node "a": attacker "ghost" is not a node`,
		},
		{
			name:  "unknown supporter",
			nodes: []Node{{ID: "a", Base: 0.5}, {ID: "b", Base: 0.5, Supporters: ids("a", "ghost")}},
			want:  `node "b": supporter "ghost" is not a node`,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res, err := Strengths(tc.nodes)
			if err == nil {
				t.Fatalf("Strengths = %+v, want an error", res)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %q does not say %q", err, tc.want)
			}
		})
	}
}

func TestCombine(t *testing.T) {
	tests := []struct {
		name         string
		base, va, vs float64
		want         float64
	}{
		{name: "no attack, no support", base: 0.4, want: 0.4},
		{name: "equal", base: 0.4, va: 0.3, vs: 0.3, want: 0.4},
		{name: "within the tie", base: 0.4, va: 0.3, vs: 0.3 + 1e-10, want: 0.4},
		// 0.4 - 0.4·(0.5 - 0.25) = 0.4 - 0.1 = 0.3.
		{name: "attack stronger", base: 0.4, va: 0.5, vs: 0.25, want: 0.3},
		// 0.4 + 0.6·(0.5 - 0.25) = 0.4 + 0.15 = 0.55.
		{name: "support stronger", base: 0.4, va: 0.25, vs: 0.5, want: 0.55},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := Combine(tc.base, tc.va, tc.vs); math.Abs(got-tc.want) > 1e-12 {
				t.Errorf("Combine(%v, %v, %v) = %v, want %v", tc.base, tc.va, tc.vs, got, tc.want)
			}
		})
	}
}

func TestAggregate(t *testing.T) {
	tests := []struct {
		name string
		v    []float64
		want float64
	}{
		{name: "none", v: nil, want: 0},
		{name: "one", v: []float64{0.3}, want: 0.3},
		{name: "two", v: []float64{0.5, 0.5}, want: 0.75},        // 1 - 0.5·0.5
		{name: "three", v: []float64{0.5, 0.2, 0.1}, want: 0.64}, // 1 - 0.5·0.8·0.9 = 1 - 0.36
		{name: "one full", v: []float64{0.2, 1}, want: 1},        // 1 - 0.8·0
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := Aggregate(tc.v); math.Abs(got-tc.want) > 1e-12 {
				t.Errorf("Aggregate(%v) = %v, want %v", tc.v, got, tc.want)
			}
		})
	}
}
