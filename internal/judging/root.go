package judging

import (
	"cmp"
	"math"
	"slices"

	"github.com/moot-dev/moot/internal/stats"
	sm "github.com/moot-dev/moot/statemachine"
)

// Debate is one debate's judgments, by the debate's name.
type Debate struct {
	Name      string
	Judgments sm.Judgments
}

// RootReport compares judge models over every debate of a root. Scores
// of debates of different protocols are on different scales, so every
// figure here is on each debate's scale mapped to [0, 1]: a side bias of
// 0.1 is a tenth of the score range.
type RootReport struct {
	Debates int `json:"debates"`
	// Alpha is Krippendorff's alpha over every item any two models
	// scored, a model's scores of a debate averaged when it judged it
	// more than once.
	Alpha *float64 `json:"alpha"`
	Items int      `json:"items"`
	// Models are ranked by their agreement with the other models,
	// strongest first.
	Models []ModelReport `json:"models"`
	// ByBias lists the models from the least side bias to the most.
	ByBias []string `json:"by_bias"`
}

// ModelReport is one judge model across the root.
type ModelReport struct {
	Model   string `json:"model"`
	Debates int    `json:"debates"`
	Items   int    `json:"items"`
	// Alpha is Krippendorff's alpha between the model and the mean of the
	// other models (the panel's majority view) on the items both scored.
	Alpha *float64 `json:"alpha"`
	// Agreement is the rank correlation with that mean.
	Agreement *Interval `json:"agreement"`
	// SideBias is the mean, over debates, of the model's mean margin for
	// the proposition; the interval is a bootstrap over debates.
	SideBias         *Interval `json:"side_bias"`
	FirstSpeakerBias *Interval `json:"first_speaker_bias,omitempty"`
	// LengthBias is the correlation of its scores with length, pooled.
	LengthBias *Interval `json:"length_bias"`
}

// unknownModel names the judge of a debate whose model is not recorded.
const unknownModel = "(unknown model)"

// CompareAll compares the judge models over debates.
func CompareAll(debates []Debate) RootReport {
	r := RootReport{Debates: len(debates), Models: []ModelReport{}, ByBias: []string{}}
	type unitKey struct {
		debate int
		item   string
	}
	// values[model][unit] is the model's score of the unit on [0, 1].
	values := map[string]map[unitKey][]float64{}
	type perModel struct {
		debates map[int]bool
		// side and first hold the model's biases by debate, several
		// when it judged a debate more than once.
		side, first           map[int][]float64
		lengths, lengthScores []float64
	}
	models := map[string]*perModel{}
	var units []unitKey
	seenUnit := map[unitKey]bool{}
	for d, deb := range debates {
		j := deb.Judgments
		for _, js := range j.Judges {
			m := cmp.Or(js.Model, unknownModel)
			pm := models[m]
			if pm == nil {
				pm = &perModel{debates: map[int]bool{}, side: map[int][]float64{}, first: map[int][]float64{}}
				models[m] = pm
				values[m] = map[unitKey][]float64{}
			}
			pm.debates[d] = true
			for _, it := range j.Items {
				v, ok := js.Final[it.ID]
				if !ok {
					continue
				}
				k := unitKey{d, it.ID}
				values[m][k] = append(values[m][k], unit(v, j.Min, j.Max))
				if !seenUnit[k] {
					seenUnit[k] = true
					units = append(units, k)
				}
				pm.lengths, pm.lengthScores = append(pm.lengths, float64(it.Length)), append(pm.lengthScores, unit(v, j.Min, j.Max))
			}
			scale := j.Max - j.Min
			if scale <= 0 {
				scale = 1
			}
			rep := judgeReport(sm.Judgments{Unit: j.Unit, Min: j.Min, Max: j.Max, Items: j.Items, FirstSpeaker: j.FirstSpeaker}, js)
			if rep.SideBias != nil {
				pm.side[d] = append(pm.side[d], rep.SideBias.Estimate/scale)
			}
			if rep.FirstSpeakerBias != nil {
				pm.first[d] = append(pm.first[d], rep.FirstSpeakerBias.Estimate/scale)
			}
		}
	}
	names := make([]string, 0, len(models))
	for m := range models {
		names = append(names, m)
	}
	slices.Sort(names)
	mean := func(xs []float64) float64 {
		s := 0.0
		for _, x := range xs {
			s += x
		}
		return s / float64(len(xs))
	}
	matrix := make([][]float64, len(names))
	for a, m := range names {
		matrix[a] = make([]float64, len(units))
		for u, k := range units {
			if vs, ok := values[m][k]; ok {
				matrix[a][u] = mean(vs)
			} else {
				matrix[a][u] = math.NaN()
			}
		}
	}
	for u := range units {
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
	if len(names) >= 2 {
		if alpha, ok := stats.KrippendorffInterval(matrix); ok {
			r.Alpha = &alpha
		}
	}
	for a, m := range names {
		pm := models[m]
		mr := ModelReport{Model: m, Debates: len(pm.debates)}
		var mine, others []float64
		for u := range units {
			if math.IsNaN(matrix[a][u]) {
				continue
			}
			mr.Items++
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
		if alpha, ok := stats.KrippendorffInterval([][]float64{mine, others}); ok && len(mine) > 0 {
			mr.Alpha = &alpha
		}
		mr.Agreement = interval(stats.CorrelationInterval(mine, others, true, Resamples, Seed))
		mr.SideBias = interval(stats.MeanInterval(byDebate(pm.side, mean), Resamples, Seed))
		if len(pm.first) > 0 {
			mr.FirstSpeakerBias = interval(stats.MeanInterval(byDebate(pm.first, mean), Resamples, Seed))
		}
		mr.LengthBias = interval(stats.CorrelationInterval(pm.lengths, pm.lengthScores, false, Resamples, Seed))
		r.Models = append(r.Models, mr)
	}
	slices.SortStableFunc(r.Models, func(a, b ModelReport) int {
		return cmp.Compare(estimate(b.Agreement, math.Inf(-1)), estimate(a.Agreement, math.Inf(-1)))
	})
	bias := slices.Clone(r.Models)
	slices.SortStableFunc(bias, func(a, b ModelReport) int {
		return cmp.Compare(math.Abs(estimate(a.SideBias, math.Inf(1))), math.Abs(estimate(b.SideBias, math.Inf(1))))
	})
	for _, m := range bias {
		r.ByBias = append(r.ByBias, m.Model)
	}
	return r
}

// estimate is i's estimate, or def when i is undefined.
func estimate(i *Interval, def float64) float64 {
	if i == nil {
		return def
	}
	return i.Estimate
}

// byDebate returns one value per debate, in debate order: the mean of the
// values a model had in it.
func byDebate(values map[int][]float64, mean func([]float64) float64) []float64 {
	keys := make([]int, 0, len(values))
	for k := range values {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	out := make([]float64, len(keys))
	for i, k := range keys {
		out[i] = mean(values[k])
	}
	return out
}
