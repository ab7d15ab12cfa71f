package judging_test

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/moot-dev/moot/internal/judging"
	sm "github.com/moot-dev/moot/statemachine"
	"github.com/moot-dev/moot/statemachine/dialectic"
)

// ids are the arguments of exchanges 0 and 1, in order.
var ids = append(dialectic.ExchangeIDs(0), dialectic.ExchangeIDs(1)...)

// threeJudges are three judges' scores of exchanges 0 and 1, each
// exchange summing to zero.
var threeJudges = [][]float64{
	{0.3, 0.1, -0.2, 0.1, -0.2, -0.1, 0.15, -0.15},
	{0.2, 0.2, -0.1, 0.0, -0.2, -0.1, 0.1, -0.1},
	{0.4, 0.0, -0.3, 0.2, -0.1, -0.2, -0.05, 0.05},
}

func items(n int) []sm.Item {
	var out []sm.Item
	for x := 0; x < n; x++ {
		for _, id := range dialectic.ExchangeIDs(x) {
			pid, _ := dialectic.ParseID(id)
			out = append(out, sm.Item{ID: id, Unit: x, Side: pid.Side.Name(), Length: 100})
		}
	}
	return out
}

func judge(name string, values map[string]float64) sm.JudgeScores {
	return sm.JudgeScores{Name: name, Model: name, Kind: sm.KindPanel, Final: values, First: values}
}

// TestCompareThreeJudges: alpha and the pairwise rank correlations equal
// values computed independently of this package, with a short Python
// script implementing the coincidence-matrix definition of alpha and
// Spearman's rho as Pearson's r of average ranks:
//
//	units = list(zip(J1, J2, J3)); vals = all values; n = len(vals)
//	Do = sum(sum((a-b)**2 for a, b in permutations(u, 2)) / (len(u)-1) for u in units) / n
//	De = sum((a-b)**2 for a, b in permutations(vals, 2)) / (n*(n-1))
//	alpha = 1 - Do/De
func TestCompareThreeJudges(t *testing.T) {
	j := sm.Judgments{Unit: "exchange", Min: -1, Max: 1, Items: items(2)}
	for k, scores := range threeJudges {
		m := map[string]float64{}
		for i, id := range ids {
			m[id] = scores[i]
		}
		j.Judges = append(j.Judges, judge(fmt.Sprintf("j%d", k+1), m))
	}
	r := judging.Compare("demo", j)
	if r.Alpha == nil || math.Abs(*r.Alpha-0.738056) > 5e-4 {
		t.Errorf("alpha = %v, want 0.738", r.Alpha)
	}
	if r.Items != 8 {
		t.Errorf("items = %d, want 8", r.Items)
	}
	want := map[string]float64{"j1-j2": 0.888353, "j1-j3": 0.674748, "j2-j3": 0.601510}
	if len(r.Pairs) != 3 {
		t.Fatalf("%d pairs, want 3", len(r.Pairs))
	}
	for _, p := range r.Pairs {
		w := want[p.A+"-"+p.B]
		if p.Spearman == nil || math.Abs(*p.Spearman-w) > 5e-4 {
			t.Errorf("spearman %s-%s = %v, want %.3f", p.A, p.B, p.Spearman, w)
		}
		if p.N != 8 {
			t.Errorf("pair %s-%s over %d items, want 8", p.A, p.B, p.N)
		}
	}
	// prop_000c: 3 judges at -0.2, -0.1, -0.3 (spread 0.2); the widest is
	// prop_001 (0.15 vs -0.05) and opp_001, 0.2 as well, and prop_000b
	// 0.2; none is wider than 0.2.
	if len(r.Disagreements) == 0 || math.Abs(r.Disagreements[0].Spread-0.2) > 1e-9 {
		t.Errorf("widest disagreement = %+v, want a spread of 0.2", r.Disagreements)
	}
}

// TestPanelMeans: the official scores of a panel are the judges' means,
// to three places, summing to exactly zero.
func TestPanelMeans(t *testing.T) {
	var judges []map[string]float64
	for _, scores := range threeJudges {
		m := map[string]float64{}
		for i, id := range ids {
			m[id] = scores[i]
		}
		judges = append(judges, m)
	}
	for x, want := range [][]float64{
		{0.3, 0.1, -0.2, 0.1, -0.167, -0.133},
		{0.067, -0.067},
	} {
		got := dialectic.PanelMeans(dialectic.ExchangeIDs(x), judges)
		sum := 0.0
		for i, id := range dialectic.ExchangeIDs(x) {
			if math.Abs(got[id]-want[i]) > 1e-9 {
				t.Errorf("exchange %d: mean of %s = %v, want %v", x, id, got[id], want[i])
			}
			sum += got[id]
		}
		if math.Abs(sum) > 1e-9 {
			t.Errorf("exchange %d: the means sum to %v, not 0", x, sum)
		}
	}
}

// TestSideBias: a judge that favours the proposition by 0.2 in every
// exchange shows a side bias of +0.2 whose interval excludes zero; one
// that favours each side in turn shows an interval that includes it.
func TestSideBias(t *testing.T) {
	const n = 8
	lean, fair := map[string]float64{}, map[string]float64{}
	for x := 0; x < n; x++ {
		for _, id := range dialectic.ExchangeIDs(x) {
			pid, _ := dialectic.ParseID(id)
			sign := 1.0
			if pid.Side == dialectic.Opp {
				sign = -1
			}
			lean[id] = 0.1 * sign
			if x%2 == 1 {
				sign = -sign
			}
			fair[id] = 0.1 * sign
		}
	}
	r := judging.Compare("demo", sm.Judgments{Unit: "exchange", Min: -1, Max: 1, Items: items(n),
		Judges: []sm.JudgeScores{judge("lean", lean), judge("fair", fair)}})
	byName := map[string]judging.JudgeReport{}
	for _, j := range r.Judges {
		byName[j.Name] = j
	}
	if b := byName["lean"].SideBias; b == nil || math.Abs(b.Estimate-0.2) > 1e-9 || !b.Excludes(0) {
		t.Errorf("lean judge's side bias = %+v, want +0.2 with an interval excluding 0", b)
	}
	if b := byName["fair"].SideBias; b == nil || math.Abs(b.Estimate) > 1e-9 || b.Excludes(0) {
		t.Errorf("fair judge's side bias = %+v, want 0 with an interval including 0", b)
	}
}

// TestStrength: on a chain of attacks, the graph strengths follow DF-QuAD
// from the official first scores, and the report says how the final
// scores correlate with them.
func TestStrength(t *testing.T) {
	// a (base 0.8) is attacked by b (0.6), which is attacked by c (0.5).
	// c: 0.5. b: 0.6 - 0.6*0.5 = 0.3. a: 0.8 - 0.8*0.3 = 0.56.
	j := sm.Judgments{Unit: "exchange", Min: -1, Max: 1, Graph: true, Items: []sm.Item{
		{ID: "a", Side: "proposition"},
		{ID: "b", Side: "opposition", Attacks: []string{"a"}},
		{ID: "c", Side: "proposition", Attacks: []string{"b"}},
	}}
	first := map[string]float64{"a": 0.6, "b": 0.2, "c": 0}
	j.Judges = []sm.JudgeScores{{Name: "debate", Kind: sm.KindOfficial, First: first, Final: first}}
	got := judging.Strengths(j)
	for id, want := range map[string]float64{"a": 0.56, "b": 0.3, "c": 0.5} {
		if math.Abs(got[id]-want) > 1e-9 {
			t.Errorf("strength of %s = %v, want %v", id, got[id], want)
		}
	}
	r := judging.Compare("demo", j)
	if r.Strength == nil || r.Strength.Correlation == nil {
		t.Fatalf("no strength correlation: %+v", r.Strength)
	}
}

// TestCompareAll: across debates, a model that favours the proposition in
// every debate shows a side bias whose interval (over debates) excludes
// zero, on the [0, 1] scale (+0.2 on [-1, 1] is +0.1); alpha is under
// "alpha"; a bias over one debate alone is undefined.
func TestCompareAll(t *testing.T) {
	var debates []judging.Debate
	for d := 0; d < 6; d++ {
		lean, other := map[string]float64{}, map[string]float64{}
		for x := 0; x < 3; x++ {
			for i, id := range dialectic.ExchangeIDs(x) {
				pid, _ := dialectic.ParseID(id)
				sign := 1.0
				if pid.Side == dialectic.Opp {
					sign = -1
				}
				lean[id] = 0.1 * sign
				// other follows lean's ranking less closely, favouring
				// the opposition in odd debates.
				other[id] = 0.05*sign*float64(1-2*(d%2)) + 0.01*float64(i)
			}
		}
		j := sm.Judgments{Unit: "exchange", Min: -1, Max: 1, Items: items(3), Judges: []sm.JudgeScores{
			{Name: "a", Model: "lean", Kind: sm.KindPanel, Final: lean, First: lean},
			{Name: "b", Model: "other", Kind: sm.KindPanel, Final: other, First: other},
		}}
		if d == 0 {
			j.Judges = append(j.Judges, sm.JudgeScores{Name: "c", Model: "once", Kind: sm.KindRejudge, Final: lean, First: lean})
		}
		debates = append(debates, judging.Debate{Name: fmt.Sprint(d), Judgments: j})
	}
	r := judging.CompareAll(debates)
	if r.Debates != 6 || r.Alpha == nil {
		t.Fatalf("report %+v: want 6 debates and an alpha", r)
	}
	by := map[string]judging.ModelReport{}
	for _, m := range r.Models {
		by[m.Model] = m
	}
	if b := by["lean"].SideBias; b == nil || math.Abs(b.Estimate-0.1) > 1e-9 || !b.Excludes(0) || b.N != 6 {
		t.Errorf("lean's side bias = %+v, want +0.1 over 6 debates, excluding 0", b)
	}
	if b := by["other"].SideBias; b == nil || b.Excludes(0) {
		t.Errorf("other's side bias = %+v, want an interval including 0", b)
	}
	if by["once"].SideBias != nil {
		t.Errorf("a side bias over one debate: %+v, want none", by["once"].SideBias)
	}
	if r.ByBias[0] != "other" {
		t.Errorf("by bias %v, want other first", r.ByBias)
	}
}

// TestWithRoot: each judge of a debate gets its model's side bias over
// the root beside its own.
func TestWithRoot(t *testing.T) {
	r := judging.Report{Judges: []judging.JudgeReport{{Name: "a", Model: "lean"}, {Name: "b", Model: "other"}}}
	bias := &judging.Interval{Estimate: 0.1, Low: 0.1, High: 0.1, N: 6}
	r.WithRoot(judging.RootReport{Models: []judging.ModelReport{{Model: "lean", SideBias: bias}}})
	if r.Judges[0].RootSideBias != bias || r.Judges[1].RootSideBias != nil {
		t.Errorf("root side biases %v, %v; want lean's and none", r.Judges[0].RootSideBias, r.Judges[1].RootSideBias)
	}
	if md := r.Markdown(2); !strings.Contains(md, "side bias over the root") || !strings.Contains(md, "+0.10 [+0.10, +0.10] ✱") {
		t.Errorf("the markdown lacks the root's column:\n%s", md)
	}
}
