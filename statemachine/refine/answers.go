package refine

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strings"

	"github.com/moot-dev/moot/internal/frontmatter"
	"github.com/moot-dev/moot/internal/lenient"
	sm "github.com/moot-dev/moot/statemachine"
)

// Decision is what the stop rule decided at the commit of a critique.
type Decision struct {
	// Stop ends the rounds; Reason is then ready_signal, max_rounds or
	// no_critical.
	Stop   bool   `json:"stop"`
	Reason string `json:"reason,omitempty"`
	// Why says it in a sentence.
	Why string `json:"why"`
}

// Facts are what the stop rule reads of a critique.
type Facts struct {
	Ready    bool
	Critical int
	Major    int
	Minor    int
	Score    int
}

// Decide is the stop rule, applied once, at the commit of round's
// critique: the skeptic's ready signal stops at once, whatever the
// minimum; then the last round stops; then, from the minimum on, a
// critique with no critical point open stops.
func Decide(f Facts, round, minRounds, maxRounds int) Decision {
	switch {
	case f.Ready:
		return Decision{Stop: true, Reason: ReasonReady, Why: fmt.Sprintf("the skeptic says the answer is ready (score %d)", f.Score)}
	case round >= maxRounds:
		return Decision{Stop: true, Reason: ReasonMaxRounds, Why: fmt.Sprintf("round %d is the last of %d", round, maxRounds)}
	case round >= minRounds && f.Critical == 0:
		return Decision{Stop: true, Reason: ReasonNoCritical, Why: fmt.Sprintf("no critical point is open after round %d (minimum %d)", round, minRounds)}
	case f.Critical > 0:
		return Decision{Why: fmt.Sprintf("%d critical %s open after round %d of %d", f.Critical, plural(f.Critical, "point", "points"), round, maxRounds)}
	}
	return Decision{Why: fmt.Sprintf("round %d is below the minimum of %d", round, minRounds)}
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// The severities of a point, and the statuses of an earlier one.
var (
	Severities = []string{"critical", "major", "minor"}
	Statuses   = []string{"resolved", "partly_resolved", "unresolved"}
)

func oneOf(s string, list []string) bool {
	for _, x := range list {
		if s == x {
			return true
		}
	}
	return false
}

// skepticAnswer is the skeptic's JSON answer.
type skepticAnswer struct {
	Critique string `json:"critique"`
	Previous []struct {
		ID     string `json:"id"`
		Status string `json:"status"`
		Note   string `json:"note"`
	} `json:"previous"`
	Points []struct {
		Severity string `json:"severity"`
		Text     string `json:"text"`
	} `json:"points"`
	Score *float64 `json:"score"`
	Ready *bool    `json:"ready"`
}

// extractObject takes the JSON object out of a reply (sm.JSONObject).
// A number written as a string ("7", "7/10", "7 out of 10") where
// numbers says one is asked is read as the number it is, on the scale
// from 1 to 10; a flag written "true" or "yes" as the boolean; a status
// or severity in capitals or with spaces ("Partly resolved") as the one
// it is.
func extractObject(text []byte, numbers func(p lenient.Path) bool) ([]byte, bool) {
	body, ok := sm.JSONObject(text)
	if !ok {
		return nil, false
	}
	body = lenient.Numbers(body, func(p lenient.Path) float64 {
		if numbers(p) {
			return 10
		}
		return 0
	})
	body = lenient.Bools(body, "ready", "would_benefit_from_finetune")
	body = lenient.Enums(body, "status", Statuses)
	return lenient.Enums(body, "severity", Severities), true
}

// wholeScore reads a score that must be a whole number from 1 to 10; a
// number outside is an error, never clamped.
func wholeScore(name string, x *float64) (int, string) {
	switch {
	case x == nil:
		return 0, name + ": missing"
	case math.IsNaN(*x) || *x != math.Trunc(*x):
		return 0, fmt.Sprintf("%s: %v is not a whole number", name, *x)
	case *x < 1 || *x > 10:
		return 0, fmt.Sprintf("%s: %v is outside 1 to 10", name, *x)
	}
	return int(*x), ""
}

// parseCritique reads the skeptic's answer to round r, whose earlier open
// points are open: every one must be rated once, and nothing else. It
// returns the critique with its facts, or every error found.
func parseCritique(text []byte, r, earlyStop int, open []openPoint) (*critique, []string) {
	body, ok := extractObject(text, func(p lenient.Path) bool { return len(p) == 1 && p[0] == "score" })
	if !ok {
		return nil, []string{"the answer holds no JSON object"}
	}
	var a skepticAnswer
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&a); err != nil {
		return nil, []string{"the answer is not the JSON object asked for: " + frontmatter.JSONError(err).Error()}
	}
	if err := frontmatter.CheckDuplicates(body[:dec.InputOffset()]); err != nil {
		return nil, []string{err.Error() + ": give each field once"}
	}
	var errs []string
	c := &critique{Round: r, Text: strings.TrimSpace(a.Critique), Points: []Point{}, Previous: []Rating{}}
	if c.Text == "" {
		errs = append(errs, "critique: want the critique's text, not empty")
	}
	score, e := wholeScore("score", a.Score)
	if e != "" {
		errs = append(errs, e)
	}
	c.Score = score
	if a.Ready == nil {
		errs = append(errs, "ready: missing (true or false)")
	} else {
		c.Ready = *a.Ready
		if c.Ready && e == "" && score < earlyStop {
			// The original stopped here; moot's rule asks the score too.
			// Refusing would ask again and again, so the answer is read
			// as not ready, and the round's file says why.
			c.Ready = false
			c.Note = fmt.Sprintf("the skeptic said ready, but its score %d is below the early-stop score %d: read as not ready", score, earlyStop)
		}
	}
	byID := map[string]openPoint{}
	for _, p := range open {
		byID[p.ID] = p
	}
	rated := map[string]bool{}
	for i, p := range a.Previous {
		if _, known := byID[p.ID]; !known {
			// " R1.2", "**R1.2**", "“R1.2”": the id it is.
			p.ID = lenient.Clean(p.ID)
		}
		o, known := byID[p.ID]
		switch {
		case !known:
			errs = append(errs, fmt.Sprintf("previous[%d]: %q is not an earlier point still open", i, p.ID))
			continue
		case rated[p.ID]:
			errs = append(errs, fmt.Sprintf("previous[%d]: %s is rated twice", i, p.ID))
			continue
		case !oneOf(p.Status, Statuses):
			errs = append(errs, fmt.Sprintf("previous[%d]: status %q is none of %s", i, p.Status, strings.Join(Statuses, ", ")))
			continue
		}
		rated[p.ID] = true
		c.Previous = append(c.Previous, Rating{ID: p.ID, Status: p.Status, Note: strings.TrimSpace(p.Note)})
		if p.Status != "resolved" {
			c.count(o.Severity)
		}
	}
	for _, p := range open {
		if !rated[p.ID] {
			errs = append(errs, fmt.Sprintf("previous: %s is not rated (want resolved, partly_resolved or unresolved)", p.ID))
		}
	}
	for i, p := range a.Points {
		if !oneOf(p.Severity, Severities) {
			errs = append(errs, fmt.Sprintf("points[%d]: severity %q is none of %s", i, p.Severity, strings.Join(Severities, ", ")))
			continue
		}
		if strings.TrimSpace(p.Text) == "" {
			errs = append(errs, fmt.Sprintf("points[%d]: the text is empty", i))
			continue
		}
		c.Points = append(c.Points, Point{ID: fmt.Sprintf("R%d.%d", r, len(c.Points)+1), Severity: p.Severity, Text: strings.TrimSpace(p.Text)})
		c.count(p.Severity)
	}
	if len(errs) > 0 {
		return nil, errs
	}
	return c, nil
}

func (c *critique) count(severity string) {
	switch severity {
	case "critical":
		c.Critical++
	case "major":
		c.Major++
	case "minor":
		c.Minor++
	}
}

// skepticSchema is the JSON schema of the skeptic's answer to a round
// whose earlier open points are open: each of them rated once (none in the
// first round, where there is no earlier point), new points of a known
// severity, a whole score from 1 to 10 and the ready flag.
func skepticSchema(open []openPoint) map[string]any {
	ids := make([]string, len(open))
	for i, p := range open {
		ids[i] = p.ID
	}
	str := sm.SchemaString()
	rating := sm.SchemaObject(map[string]any{"id": sm.SchemaEnum(ids), "status": sm.SchemaEnum(Statuses), "note": str}, "id", "status", "note")
	point := sm.SchemaObject(map[string]any{"severity": sm.SchemaEnum(Severities), "text": str}, "severity", "text")
	return sm.SchemaObject(map[string]any{
		"critique": str,
		"previous": sm.SchemaArray(rating, len(ids), len(ids)),
		"points":   sm.SchemaArray(point, 0, -1),
		"score":    sm.SchemaInteger(1, 10),
		"ready":    sm.SchemaBool(),
	}, "critique", "previous", "points", "score", "ready")
}

// Criterion is one criterion of the judge's score.
type Criterion struct {
	Name   string
	Weight int
}

// criteria are the design's, with their weights in percent.
var criteria = []Criterion{{"correctness", 40}, {"completeness", 25}, {"clarity", 20}, {"depth", 15}}

// ScoreTolerance is how far the judge's overall score may be from the
// weighted mean of its criteria.
const ScoreTolerance = 1.5

// Mark is one criterion's mark: a judge's whole number from 1 to 10, or
// for a panel the mean of its judges' marks, to two decimals. A whole
// mark is written as one ("7"), so that a judge's file reads as before.
type Mark struct {
	Score  float64 `json:"score"`
	Weight int     `json:"weight"`
}

// Score is what score.json holds.
type Score struct {
	Score         int             `json:"score"`
	WeightedScore float64         `json:"weighted_score"`
	Criteria      map[string]Mark `json:"criteria"`
	Justification string          `json:"justification"`
	Finetune      bool            `json:"would_benefit_from_finetune"`
	Model         string          `json:"model"`
	// Parse says how the answer was read: "json" at once, or "repaired"
	// after Attempts requests; "panel" for a panel's aggregate.
	Parse     string `json:"parse"`
	Attempts  int    `json:"attempts"`
	ElapsedMS int64  `json:"elapsed_ms"`
	Time      string `json:"time"`
	// Panel, in the score of a debate a panel judged, lists its judges,
	// whose own scores are in judgments/NAME/score.json.
	Panel []PanelJudge `json:"panel,omitempty"`
}

// MissingScore is score.json when the judge's score got no acceptable
// answer in a run with --keep-going: the record of the call, who answered
// and when; no score stands in for it.
type MissingScore struct {
	Missing   *sm.Missing `json:"missing"`
	Model     string      `json:"model"`
	Attempts  int         `json:"attempts"`
	ElapsedMS int64       `json:"elapsed_ms"`
	Time      string      `json:"time"`
	// Panel, when a panel judged, lists its judges, none of which scored.
	Panel []PanelJudge `json:"panel,omitempty"`
}

// PanelJudge is one judge of a panel as the aggregate names it. A judge
// whose score is missing (moot run --keep-going) has neither score nor
// weighted score; a judge that scored has both, from 1 to 10.
type PanelJudge struct {
	Name          string  `json:"name"`
	Model         string  `json:"model"`
	Score         int     `json:"score,omitempty"`
	WeightedScore float64 `json:"weighted_score,omitempty"`
	Missing       bool    `json:"missing,omitempty"`
}

// Weighted returns Σ score × weight / 100, to two decimals.
func Weighted(marks map[string]Mark) float64 {
	sum := 0.0
	for _, c := range criteria {
		sum += marks[c.Name].Score * float64(c.Weight)
	}
	return math.Round(sum) / 100
}

// ParseScore reads the judge's answer: a whole score from 1 to 10, each
// criterion's from 1 to 10, a justification and the finetune flag. A
// reply that breaks any rule is refused with every error found; nothing is
// defaulted or clamped.
func ParseScore(text []byte) (*Score, []string) {
	body, ok := extractObject(text, func(p lenient.Path) bool {
		return len(p) == 1 && p[0] == "score" || len(p) == 2 && p[0] == "criteria"
	})
	if !ok {
		return nil, []string{"the answer holds no JSON object"}
	}
	var a struct {
		Score         *float64            `json:"score"`
		Criteria      map[string]*float64 `json:"criteria"`
		Justification string              `json:"justification"`
		Finetune      *bool               `json:"would_benefit_from_finetune"`
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&a); err != nil {
		return nil, []string{"the answer is not the JSON object asked for: " + frontmatter.JSONError(err).Error()}
	}
	if err := frontmatter.CheckDuplicates(body[:dec.InputOffset()]); err != nil {
		return nil, []string{err.Error() + ": give each field once"}
	}
	var errs []string
	s := &Score{Criteria: map[string]Mark{}, Justification: strings.TrimSpace(a.Justification)}
	score, e := wholeScore("score", a.Score)
	if e != "" {
		errs = append(errs, e)
	}
	s.Score = score
	known := map[string]bool{}
	for _, c := range criteria {
		known[c.Name] = true
		v, e := wholeScore("criteria."+c.Name, a.Criteria[c.Name])
		if e != "" {
			errs = append(errs, e)
			continue
		}
		s.Criteria[c.Name] = Mark{Score: float64(v), Weight: c.Weight}
	}
	for k := range a.Criteria {
		if !known[k] {
			errs = append(errs, fmt.Sprintf("criteria.%s: not a criterion (want correctness, completeness, clarity, depth)", k))
		}
	}
	if s.Justification == "" {
		errs = append(errs, "justification: want two or three sentences, not empty")
	}
	if a.Finetune == nil {
		errs = append(errs, "would_benefit_from_finetune: missing (true or false)")
	} else {
		s.Finetune = *a.Finetune
	}
	if len(errs) == 0 {
		s.WeightedScore = Weighted(s.Criteria)
		if math.Abs(float64(s.Score)-s.WeightedScore) > ScoreTolerance {
			errs = append(errs, fmt.Sprintf("score %d is more than %.1f from %.2f, the weighted mean of the criteria", s.Score, ScoreTolerance, s.WeightedScore))
		}
	}
	if len(errs) > 0 {
		return nil, errs
	}
	return s, nil
}

// judgeSchema is the JSON schema of the judge's answer.
func judgeSchema() map[string]any {
	crit := map[string]any{}
	names := make([]string, len(criteria))
	for i, c := range criteria {
		names[i] = c.Name
		crit[c.Name] = map[string]any{"type": "integer", "minimum": 1, "maximum": 10}
	}
	return map[string]any{
		"type": "object",
		"properties": map[string]any{
			"score":                       map[string]any{"type": "integer", "minimum": 1, "maximum": 10},
			"criteria":                    map[string]any{"type": "object", "properties": crit, "required": names, "additionalProperties": false},
			"justification":               map[string]any{"type": "string"},
			"would_benefit_from_finetune": map[string]any{"type": "boolean"},
		},
		"required":             []string{"score", "criteria", "justification", "would_benefit_from_finetune"},
		"additionalProperties": false,
	}
}
