package moderated

import (
	"encoding/json"
	"fmt"
	"math"
	"strings"

	"github.com/moot-dev/moot/internal/frontmatter"
	"github.com/moot-dev/moot/internal/lenient"
	sm "github.com/moot-dev/moot/statemachine"
)

// Mark is one criterion's mark in a score.
type Mark struct {
	Raw           float64 `json:"raw"`
	Weight        float64 `json:"weight"`
	Weighted      float64 `json:"weighted"`
	Justification string  `json:"justification"`
}

// Score is the rubric score of one statement, as scores/NNN_id8.md holds
// it.
type Score struct {
	Message     int
	Participant string
	// Names are the criteria in the rubric's order; Marks holds each.
	Names []string
	Marks map[string]Mark
	Total float64
	Reply string // the moderator's reply as it came
	// Missing, when not nil, records a score that got no acceptable
	// answer in a run with --keep-going: the file then has no criteria
	// and no total, and the statement counts in no mean.
	Missing *sm.Missing
	file    string
}

// round2 rounds to two decimals, as totals are given.
func round2(x float64) float64 { return math.Round(x*100) / 100 }

// Total returns Σ raw·weight / Σ weight over criteria, to two decimals:
// a number from 0 to 10.
func Total(criteria []Criterion, raws map[string]float64) float64 {
	var sum, weights float64
	for _, c := range criteria {
		sum += raws[c.Name] * c.Weight
		weights += c.Weight
	}
	if weights == 0 {
		return 0
	}
	return round2(sum / weights)
}

// extractObject takes the JSON object out of a reply (sm.JSONObject).
// A criterion's score written as a string ("7", "7/10", "7 out of 10")
// is read as the number it is, on the scale from 0 to 10.
func extractObject(text []byte) ([]byte, bool) {
	body, ok := sm.JSONObject(text)
	if !ok {
		return nil, false
	}
	return lenient.Numbers(body, func(p lenient.Path) float64 {
		if len(p) == 2 && p[1] == "score" {
			return 10
		}
		return 0
	}), true
}

// ParseRubric reads a rubric reply: a JSON object with, for every
// criterion and nothing else, {"score": a number from 0 to 10,
// "justification": a text}. A reply that breaks the shape or a range is
// refused with every error found; it is never given a default.
func ParseRubric(criteria []Criterion, text []byte) (map[string]Mark, []string) {
	body, ok := extractObject(text)
	if !ok {
		return nil, []string{"the answer holds no JSON object"}
	}
	var obj frontmatter.Object
	if err := json.Unmarshal(body, &obj); err != nil {
		return nil, []string{"the answer is not valid JSON: " + frontmatter.JSONError(err).Error()}
	}
	known := map[string]Criterion{}
	for _, c := range criteria {
		known[c.Name] = c
	}
	marks := map[string]Mark{}
	var errs []string
	for _, f := range obj.Fields {
		c, ok := known[f.Key]
		if !ok {
			// A criterion's name dressed in spaces, quotes or capitals.
			if i, found := lenient.Match(f.Key, criterionNames(criteria)); found {
				if _, given := obj.Get(criteria[i].Name); !given {
					f.Key, c, ok = criteria[i].Name, criteria[i], true
				}
			}
		}
		if !ok {
			errs = append(errs, fmt.Sprintf("%q is not a criterion of the rubric (%s)", f.Key, names(criteria)))
			continue
		}
		var inner frontmatter.Object
		if err := json.Unmarshal(f.Value, &inner); err != nil {
			errs = append(errs, fmt.Sprintf("%s: want an object {\"score\": 0-10, \"justification\": \"...\"}", f.Key))
			continue
		}
		var m Mark
		var hasScore, hasJust bool
		for _, g := range inner.Fields {
			switch g.Key {
			case "score":
				hasScore = true
				var x float64
				if err := json.Unmarshal(g.Value, &x); err != nil {
					errs = append(errs, fmt.Sprintf("%s.score: %s is not a number", f.Key, g.Value))
					continue
				}
				if x < 0 || x > 10 || math.IsNaN(x) {
					errs = append(errs, fmt.Sprintf("%s.score: %v is outside 0 to 10", f.Key, x))
					continue
				}
				m.Raw = x
			case "justification":
				hasJust = true
				var s string
				if err := json.Unmarshal(g.Value, &s); err != nil || strings.TrimSpace(s) == "" {
					errs = append(errs, fmt.Sprintf("%s.justification: want a text that is not empty", f.Key))
					continue
				}
				m.Justification = strings.TrimSpace(s)
			default:
				errs = append(errs, fmt.Sprintf("%s: unknown key %q (want score and justification)", f.Key, g.Key))
			}
		}
		if !hasScore {
			errs = append(errs, fmt.Sprintf("%s.score: missing", f.Key))
		}
		if !hasJust {
			errs = append(errs, fmt.Sprintf("%s.justification: missing", f.Key))
		}
		m.Weight = c.Weight
		m.Weighted = math.Round(m.Raw*c.Weight*10000) / 10000
		marks[f.Key] = m
	}
	for _, c := range criteria {
		if _, ok := marks[c.Name]; !ok {
			if _, given := obj.Get(c.Name); !given {
				errs = append(errs, fmt.Sprintf("%s: missing", c.Name))
			}
		}
	}
	if len(errs) > 0 {
		return nil, errs
	}
	return marks, nil
}

func criterionNames(criteria []Criterion) []string {
	out := make([]string, len(criteria))
	for i, c := range criteria {
		out[i] = c.Name
	}
	return out
}

func names(criteria []Criterion) string {
	out := make([]string, len(criteria))
	for i, c := range criteria {
		out[i] = c.Name
	}
	return strings.Join(out, ", ")
}

// newScore makes the score of message n by participant from a reply that
// ParseRubric accepted.
func newScore(criteria []Criterion, n int, participant string, marks map[string]Mark, reply string) Score {
	raws := map[string]float64{}
	sc := Score{Message: n, Participant: participant, Marks: marks, Reply: strings.TrimSpace(reply)}
	for _, c := range criteria {
		sc.Names = append(sc.Names, c.Name)
		raws[c.Name] = marks[c.Name].Raw
	}
	sc.Total = Total(criteria, raws)
	return sc
}

// replyKey is the key of the scorer's reply in a JSON score file.
const replyKey = "reply"

// renderScore writes a score file in output format f.
func renderScore(f string, sc Score) ([]byte, error) {
	if sc.Missing != nil {
		var front frontmatter.Object
		for _, kv := range []struct {
			k string
			v any
		}{{"message", sc.Message}, {"participant", sc.Participant}, {"missing", sc.Missing}} {
			if err := front.SetValue(kv.k, kv.v); err != nil {
				return nil, err
			}
		}
		return encodeRecord(f, front, replyKey, missingReply)
	}
	var crit frontmatter.Object
	for _, n := range sc.Names {
		if err := crit.SetValue(n, sc.Marks[n]); err != nil {
			return nil, err
		}
	}
	var front frontmatter.Object
	for _, kv := range []struct {
		k string
		v any
	}{{"message", sc.Message}, {"participant", sc.Participant}, {"criteria", crit}, {"total", sc.Total}} {
		if err := front.SetValue(kv.k, kv.v); err != nil {
			return nil, err
		}
	}
	return encodeRecord(f, front, replyKey, sc.Reply)
}

// parseScoreFile reads a score file written in output format f.
func parseScoreFile(f string, data []byte) (Score, error) {
	front, body, err := decodeRecord(f, data, replyKey)
	if err != nil {
		return Score{}, err
	}
	var sc Score
	if err := front.Decode("message", &sc.Message); err != nil {
		return sc, err
	}
	if err := front.Decode("participant", &sc.Participant); err != nil {
		return sc, err
	}
	if _, ok := front.Get("missing"); ok {
		if err := front.Decode("missing", &sc.Missing); err != nil {
			return sc, err
		}
		if sc.Missing == nil {
			return sc, fmt.Errorf("field \"missing\": want the record of a missing score, found null")
		}
		if _, has := front.Get("total"); has {
			return sc, fmt.Errorf("field \"total\": a missing score has no total")
		}
		sc.Reply = strings.TrimSpace(body)
		return sc, nil
	}
	if err := front.Decode("total", &sc.Total); err != nil {
		return sc, err
	}
	var crit frontmatter.Object
	if err := front.Decode("criteria", &crit); err != nil {
		return sc, err
	}
	sc.Marks = map[string]Mark{}
	for _, f := range crit.Fields {
		var m Mark
		if err := json.Unmarshal(f.Value, &m); err != nil {
			return sc, fmt.Errorf("field \"criteria.%s\": %w", f.Key, frontmatter.JSONError(err))
		}
		sc.Names = append(sc.Names, f.Key)
		sc.Marks[f.Key] = m
	}
	sc.Reply = strings.TrimSpace(body)
	return sc, nil
}

// rubricSchema is the JSON schema of a rubric reply.
func rubricSchema(criteria []Criterion) map[string]any {
	props := map[string]any{}
	req := make([]string, len(criteria))
	for i, c := range criteria {
		req[i] = c.Name
		props[c.Name] = map[string]any{
			"type": "object",
			"properties": map[string]any{
				"score":         map[string]any{"type": "number", "minimum": 0, "maximum": 10},
				"justification": map[string]any{"type": "string"},
			},
			"required":             []string{"score", "justification"},
			"additionalProperties": false,
		}
	}
	return map[string]any{"type": "object", "properties": props, "required": req, "additionalProperties": false}
}

// standing is a participant's scores so far.
type standing struct {
	Count  int
	Mean   float64
	Latest float64
}

// standings returns each advocate's mean and latest statement total.
func (d *debate) standings() map[string]standing {
	out := map[string]standing{}
	sums := map[string]float64{}
	for _, s := range d.sched {
		if s.Kind != kindScore {
			continue
		}
		target := d.sched[s.Target]
		sc, ok := d.scores[target.Number]
		if !ok {
			continue
		}
		st := out[target.Role]
		st.Count++
		sums[target.Role] += sc.Total
		st.Latest = sc.Total
		st.Mean = round2(sums[target.Role] / float64(st.Count))
		out[target.Role] = st
	}
	return out
}

// missingReply is the text of the file of a score recorded as missing.
const missingReply = "(missing: the moderator's answers were refused after every repair; " + sm.MissingNote + ")"
