// Package judging measures a debate's judges against one another: how
// much they agree (Krippendorff's alpha, rank correlations, the items
// they disagree on most), what leans each one has (side, first speaker,
// length), and how their scores follow the structure of the debate,
// against the strength of each argument computed from the attack and
// support graph alone (DF-QuAD). It is pure: it reads a
// statemachine.Judgments and returns figures.
package judging

import (
	"math"
	"slices"
	"sort"

	"github.com/moot-dev/moot/internal/dfquad"
	"github.com/moot-dev/moot/internal/stats"
	sm "github.com/moot-dev/moot/statemachine"
)

// Resamples is how many bootstrap resamples give each interval, and Seed
// the seed they are drawn with, so that the same judgments always give
// the same figures.
const (
	Resamples = 2000
	Seed      = 20261123
)

// Interval is an estimate with its 95% bootstrap interval. It is nil
// where the figure is undefined (too few items, no variance).
type Interval struct {
	Estimate float64 `json:"estimate"`
	Low      float64 `json:"low"`
	High     float64 `json:"high"`
	// N is how many units were resampled: units for a bias, items for a
	// correlation, debates across a root.
	N int `json:"n"`
}

// Excludes reports whether v is outside the interval: the figure means
// something at the 95% level.
func (i *Interval) Excludes(v float64) bool { return i != nil && (v < i.Low || v > i.High) }

func interval(iv stats.Interval) *Interval {
	// One unit resampled gives an interval of a single point, which
	// would look certain: such a figure is undefined instead.
	if !iv.OK || math.IsNaN(iv.Estimate) || iv.N < 2 {
		return nil
	}
	return &Interval{Estimate: iv.Estimate, Low: iv.Low, High: iv.High, N: iv.N}
}

// Report compares the judges of one debate.
type Report struct {
	Debate string `json:"debate"`
	Unit   string `json:"unit"`
	// Min and Max bound a score.
	Min float64 `json:"min"`
	Max float64 `json:"max"`
	// Aggregate names the official judgment when it is a panel's
	// aggregate rather than a judge.
	Aggregate bool          `json:"aggregate"`
	Judges    []JudgeReport `json:"judges"`
	// Alpha is Krippendorff's alpha (interval) over the judges' final
	// scores; nil with fewer than two judges or no variance.
	Alpha *float64 `json:"alpha"`
	// Items is how many items at least two judges scored.
	Items         int            `json:"items"`
	Pairs         []Pair         `json:"pairs"`
	Disagreements []Disagreement `json:"disagreements"`
	// Strength is the judge-free strength of every argument, for a
	// debate whose items attack and support one another.
	Strength *Strength `json:"strength,omitempty"`
}

// JudgeReport is what one judge's scores show.
type JudgeReport struct {
	Name   string `json:"name"`
	Model  string `json:"model"`
	Kind   string `json:"kind"`
	Scored int    `json:"scored"`
	// SideBias is the judge's mean margin for the proposition: per unit,
	// its mean score of the proposition's items less that of the
	// opposition's.
	SideBias *Interval `json:"side_bias"`
	// RootSideBias is the side bias of the judge's model over every debate
	// of the debates root, each debate's scores mapped to [0, 1]; nil when
	// the model judged fewer than two debates there.
	RootSideBias *Interval `json:"root_side_bias"`
	// FirstSpeakerBias is the same margin for the side that spoke first,
	// where the protocol has a speaking order.
	FirstSpeakerBias *Interval `json:"first_speaker_bias"`
	// LengthBias is the correlation (Pearson) of the judge's scores with
	// the items' lengths.
	LengthBias *Interval `json:"length_bias"`
	// Agreement is the rank correlation (Spearman) of the judge's scores
	// with the mean of the other judges'.
	Agreement *Interval `json:"agreement"`
	// StrengthCorrelation is the correlation (Pearson) of the judge's
	// final scores with the graph strength of the arguments, computed
	// from its own first scores.
	StrengthCorrelation *Interval `json:"strength_correlation,omitempty"`
}

// Pair is the rank correlation of two judges' scores.
type Pair struct {
	A        string   `json:"a"`
	B        string   `json:"b"`
	Spearman *float64 `json:"spearman"`
	N        int      `json:"n"`
}

// Disagreement is an item the judges scored far apart.
type Disagreement struct {
	ID     string             `json:"id"`
	Unit   int                `json:"unit"`
	Title  string             `json:"title"`
	Spread float64            `json:"spread"`
	Scores map[string]float64 `json:"scores"`
}

// Strength is the DF-QuAD strength of every argument, with the official
// judgment's first scores, mapped to [0, 1], as the base scores.
type Strength struct {
	Items []ItemStrength `json:"items"`
	// Unevaluated lists the arguments on a cycle of attacks and supports,
	// or depending on one, whose strength is not computed.
	Unevaluated []string `json:"unevaluated"`
	// Correlation is that of the strengths with the official final
	// scores, mapped the same way.
	Correlation *float64 `json:"correlation"`
}

// ItemStrength is one argument's strength.
type ItemStrength struct {
	ID       string   `json:"id"`
	Base     float64  `json:"base"`
	Strength *float64 `json:"strength"`
	Final    float64  `json:"final"`
}

// Compare measures the judges of one debate.
func Compare(name string, j sm.Judgments) Report {
	r := Report{Debate: name, Unit: j.Unit, Min: j.Min, Max: j.Max, Aggregate: j.Aggregate != nil,
		Judges: []JudgeReport{}, Pairs: []Pair{}, Disagreements: []Disagreement{}}
	for _, js := range j.Judges {
		r.Judges = append(r.Judges, judgeReport(j, js))
	}
	// Agreement over the items at least two judges scored.
	matrix := make([][]float64, len(j.Judges))
	for a, js := range j.Judges {
		matrix[a] = make([]float64, len(j.Items))
		for u, it := range j.Items {
			v, ok := js.Final[it.ID]
			if !ok {
				v = math.NaN()
			}
			matrix[a][u] = v
		}
	}
	for u := range j.Items {
		n := 0
		for a := range matrix {
			if !math.IsNaN(matrix[a][u]) {
				n++
			}
		}
		if n >= 2 {
			r.Items++
		}
	}
	if len(j.Judges) >= 2 {
		if alpha, ok := stats.KrippendorffInterval(matrix); ok {
			r.Alpha = &alpha
		}
		for a := range j.Judges {
			for b := a + 1; b < len(j.Judges); b++ {
				x, y := pairs(matrix[a], matrix[b])
				p := Pair{A: j.Judges[a].Name, B: j.Judges[b].Name, N: len(x)}
				if rho, ok := stats.Spearman(x, y); ok {
					p.Spearman = &rho
				}
				r.Pairs = append(r.Pairs, p)
			}
		}
		for a := range j.Judges {
			r.Judges[a].Agreement = agreement(matrix, a)
		}
		r.Disagreements = disagreements(j)
	}
	if official := officialOf(j); j.Graph && official != nil {
		r.Strength = strength(j, *official)
	}
	return r
}

// officialOf returns the debate's official judgment: the panel's
// aggregate, or its own judge's; nil when neither is known.
func officialOf(j sm.Judgments) *sm.JudgeScores {
	if j.Aggregate != nil {
		return j.Aggregate
	}
	for i := range j.Judges {
		if j.Judges[i].Kind == sm.KindOfficial {
			return &j.Judges[i]
		}
	}
	return nil
}

// pairs returns the values of x and y where both are known.
func pairs(x, y []float64) ([]float64, []float64) {
	var a, b []float64
	for i := range x {
		if !math.IsNaN(x[i]) && !math.IsNaN(y[i]) {
			a, b = append(a, x[i]), append(b, y[i])
		}
	}
	return a, b
}

// agreement is the rank correlation of judge a's scores with the mean of
// the other judges' scores of the same items, with a bootstrap interval
// over the items.
func agreement(matrix [][]float64, a int) *Interval {
	var mine, others []float64
	for u := range matrix[a] {
		if math.IsNaN(matrix[a][u]) {
			continue
		}
		sum, n := 0.0, 0
		for b := range matrix {
			if b != a && !math.IsNaN(matrix[b][u]) {
				sum += matrix[b][u]
				n++
			}
		}
		if n > 0 {
			mine, others = append(mine, matrix[a][u]), append(others, sum/float64(n))
		}
	}
	return interval(stats.CorrelationInterval(mine, others, true, Resamples, Seed))
}

// judgeReport measures one judge's leans.
func judgeReport(j sm.Judgments, js sm.JudgeScores) JudgeReport {
	r := JudgeReport{Name: js.Name, Model: js.Model, Kind: js.Kind, Scored: len(js.Final)}
	r.SideBias = interval(stats.MeanInterval(margins(j, js, func(it sm.Item) int {
		switch it.Side {
		case "proposition":
			return 1
		case "opposition":
			return -1
		}
		return 0
	}), Resamples, Seed))
	if j.FirstSpeaker {
		r.FirstSpeakerBias = interval(stats.MeanInterval(margins(j, js, func(it sm.Item) int {
			if it.Side == "" {
				return 0
			}
			if it.First {
				return 1
			}
			return -1
		}), Resamples, Seed))
	}
	var lengths, scores []float64
	for _, it := range j.Items {
		if v, ok := js.Final[it.ID]; ok {
			lengths, scores = append(lengths, float64(it.Length)), append(scores, v)
		}
	}
	r.LengthBias = interval(stats.CorrelationInterval(lengths, scores, false, Resamples, Seed))
	if j.Graph {
		res, err := dfquad.Strengths(graph(j, js.First, j.Min, j.Max))
		if err == nil {
			var s, f []float64
			for _, it := range j.Items {
				st, ok := res.Strength[it.ID]
				v, scored := js.Final[it.ID]
				if ok && scored {
					s, f = append(s, st), append(f, unit(v, j.Min, j.Max))
				}
			}
			r.StrengthCorrelation = interval(stats.CorrelationInterval(s, f, false, Resamples, Seed))
		}
	}
	return r
}

// margins returns, for every unit in which the judge scored items of both
// groups, its mean score of the items group says are +1 less the mean of
// those it says are -1.
func margins(j sm.Judgments, js sm.JudgeScores, group func(sm.Item) int) []float64 {
	type sums struct {
		plus, minus   float64
		nPlus, nMinus int
	}
	byUnit := map[int]*sums{}
	var units []int
	for _, it := range j.Items {
		v, ok := js.Final[it.ID]
		g := group(it)
		if !ok || g == 0 {
			continue
		}
		s := byUnit[it.Unit]
		if s == nil {
			s = &sums{}
			byUnit[it.Unit] = s
			units = append(units, it.Unit)
		}
		if g > 0 {
			s.plus, s.nPlus = s.plus+v, s.nPlus+1
		} else {
			s.minus, s.nMinus = s.minus+v, s.nMinus+1
		}
	}
	slices.Sort(units)
	var out []float64
	for _, u := range units {
		s := byUnit[u]
		if s.nPlus > 0 && s.nMinus > 0 {
			out = append(out, s.plus/float64(s.nPlus)-s.minus/float64(s.nMinus))
		}
	}
	return out
}

// disagreements lists up to five items the judges scored furthest apart.
func disagreements(j sm.Judgments) []Disagreement {
	var out []Disagreement
	for _, it := range j.Items {
		scores := map[string]float64{}
		lo, hi := math.Inf(1), math.Inf(-1)
		for _, js := range j.Judges {
			if v, ok := js.Final[it.ID]; ok {
				scores[js.Name] = v
				lo, hi = math.Min(lo, v), math.Max(hi, v)
			}
		}
		if len(scores) < 2 || hi-lo < 1e-9 {
			continue
		}
		out = append(out, Disagreement{ID: it.ID, Unit: it.Unit, Title: it.Title, Spread: hi - lo, Scores: scores})
	}
	sort.SliceStable(out, func(a, b int) bool { return out[a].Spread > out[b].Spread })
	if len(out) > 5 {
		out = out[:5]
	}
	return out
}

// unit maps a score in [min, max] to [0, 1].
func unit(v, min, max float64) float64 {
	if max <= min {
		return 0.5
	}
	return math.Max(0, math.Min(1, (v-min)/(max-min)))
}

// graph is the items' attack and support graph with base scores from
// first, mapped to [0, 1]; an item without a score has base 0.5.
func graph(j sm.Judgments, first map[string]float64, min, max float64) []dfquad.Node {
	ids := map[string]bool{}
	for _, it := range j.Items {
		ids[it.ID] = true
	}
	nodes := make([]dfquad.Node, len(j.Items))
	index := map[string]int{}
	for i, it := range j.Items {
		base := 0.5
		if v, ok := first[it.ID]; ok {
			base = unit(v, min, max)
		}
		nodes[i] = dfquad.Node{ID: it.ID, Base: base}
		index[it.ID] = i
	}
	for _, it := range j.Items {
		for _, t := range it.Attacks {
			if ids[t] {
				nodes[index[t]].Attackers = append(nodes[index[t]].Attackers, it.ID)
			}
		}
		for _, t := range it.Supports {
			if ids[t] {
				nodes[index[t]].Supporters = append(nodes[index[t]].Supporters, it.ID)
			}
		}
	}
	return nodes
}

// strength computes every argument's DF-QuAD strength from the official
// first scores.
func strength(j sm.Judgments, official sm.JudgeScores) *Strength {
	nodes := graph(j, official.First, j.Min, j.Max)
	res, err := dfquad.Strengths(nodes)
	if err != nil {
		return nil
	}
	s := &Strength{Unevaluated: append([]string{}, res.Unevaluated...)}
	var xs, ys []float64
	for i, it := range j.Items {
		is := ItemStrength{ID: it.ID, Base: nodes[i].Base}
		if v, ok := official.Final[it.ID]; ok {
			is.Final = v
		}
		if v, ok := res.Strength[it.ID]; ok {
			v := v
			is.Strength = &v
			if f, scored := official.Final[it.ID]; scored {
				xs, ys = append(xs, v), append(ys, unit(f, j.Min, j.Max))
			}
		}
		s.Items = append(s.Items, is)
	}
	if c, ok := stats.Pearson(xs, ys); ok {
		s.Correlation = &c
	}
	return s
}

// Strengths returns the DF-QuAD strength of every argument of a debate
// whose items form a graph, from the official first scores: what show,
// the report and export put beside each argument. Arguments on a cycle
// are missing from the map.
func Strengths(j sm.Judgments) map[string]float64 {
	official := officialOf(j)
	if !j.Graph || official == nil {
		return nil
	}
	res, err := dfquad.Strengths(graph(j, official.First, j.Min, j.Max))
	if err != nil {
		return nil
	}
	return res.Strength
}

// WithRoot puts beside every judge of r its model's side bias over the
// debates of a root.
func (r *Report) WithRoot(root RootReport) {
	by := map[string]*Interval{}
	for _, m := range root.Models {
		by[m.Model] = m.SideBias
	}
	for i := range r.Judges {
		r.Judges[i].RootSideBias = by[cmpOr(r.Judges[i].Model, unknownModel)]
	}
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}
