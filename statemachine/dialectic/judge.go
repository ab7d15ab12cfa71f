package dialectic

import (
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"strings"
)

// Score is the judge's score of one argument of the current exchange.
type Score struct {
	ArgumentID string
	Score      float64
	Reasoning  string
}

// Rescore changes the score of an argument from an earlier exchange.
type Rescore struct {
	ArgumentID string
	OldScore   *float64
	NewScore   float64
	Reasoning  string
	// TriggeredBy is the argument of the current exchange that caused the
	// rescore; empty when the judge did not say.
	TriggeredBy string
}

// Judgment is what a judge hands in for one exchange.
type Judgment struct {
	Scores   []Score
	Rescores []Rescore
}

// Scoring limits.
const (
	MinScore       = -1.0
	MaxScore       = 1.0
	ZeroSumEpsilon = 0.01
	MaxRescoreStep = 0.5
	// slack absorbs binary floating point error at the edges of the limits,
	// so that 0.3 + 0.2 - 0.5 counts as exactly zero.
	slack = 1e-9
)

// ParseJudgment reads a judgment for exchange and checks it: every argument
// of the exchange scored exactly once and nothing else, scores in [-1, 1]
// summing to zero, rescores only of earlier arguments, once each, within 0.5
// of the current score. current holds the current score of every argument
// that has one.
func ParseJudgment(data []byte, exchange int, known Known, current map[string]float64) (Judgment, Problems) {
	var j Judgment
	var p Problems
	single := false // the judgment gave one score as the whole object
	// Errors of the JSON as a whole name the judgment, as a debater's
	// name theirs ("proposition: invalid JSON ...").
	body, start, err := extractJSON(data)
	if err != nil {
		p.errorf("judgment: %s", err)
		return j, p
	}
	raw, err := decodeJSON(data, body, start)
	if err != nil {
		p.errorf("judgment: %s", err)
		return j, p
	}
	top, err := decodeObject(raw)
	if err != nil {
		p.errorf("the judgment %s", err)
		return j, p
	}
	switch {
	case top.present("scores"):
		top.unknown(&p, "", "scores", "rescores")
		items, ok := top.list(&p, "", "scores")
		if ok {
			for i, it := range items {
				if s, ok := parseScore(&p, fmt.Sprintf("scores[%d]", i), it); ok {
					j.Scores = append(j.Scores, s)
				}
			}
		}
	case top.present("argument_id"):
		top.unknown(&p, "", "argument_id", "score", "reasoning", "rescores")
		single = true
		if s, ok := parseScore(&p, "", raw); ok {
			j.Scores = append(j.Scores, s)
		}
	default:
		p.errorf(`the judgment needs "scores": [{"argument_id", "score", "reasoning"}, ...]`)
		return j, p
	}
	if items, ok := top.list(&p, "", "rescores"); ok {
		for i, it := range items {
			if r, ok := parseRescore(&p, fmt.Sprintf("rescores[%d]", i), it); ok {
				j.Rescores = append(j.Rescores, r)
			}
		}
	}
	if !p.OK() {
		return Judgment{}, p
	}
	checkScores(&p, j.Scores, exchange, single)
	checkRescores(&p, j.Rescores, exchange, known, current)
	if !p.OK() {
		return Judgment{}, p
	}
	return j, p
}

func parseScore(p *Problems, at string, raw json.RawMessage) (Score, bool) {
	var s Score
	f, err := decodeObject(raw)
	if err != nil {
		p.errorf("%s: %s", at, err)
		return s, false
	}
	prefix := ""
	if at != "" {
		prefix = at + "."
		f.unknown(p, at+": ", "argument_id", "score", "reasoning")
	}
	n := len(p.Errors)
	s.ArgumentID = f.str(p, prefix, "argument_id", true)
	s.Score, _ = f.num(p, prefix, "score")
	s.Reasoning = f.str(p, prefix, "reasoning", true)
	return s, len(p.Errors) == n
}

func parseRescore(p *Problems, at string, raw json.RawMessage) (Rescore, bool) {
	var r Rescore
	f, err := decodeObject(raw)
	if err != nil {
		p.errorf("%s: %s", at, err)
		return r, false
	}
	f.unknown(p, at+": ", "argument_id", "old_score", "new_score", "reasoning", "triggered_by")
	n := len(p.Errors)
	r.ArgumentID = f.str(p, at+".", "argument_id", true)
	if f.present("old_score") {
		if old, ok := f.num(p, at+".", "old_score"); ok {
			r.OldScore = &old
		}
	}
	r.NewScore, _ = f.num(p, at+".", "new_score")
	r.Reasoning = f.str(p, at+".", "reasoning", true)
	r.TriggeredBy = f.str(p, at+".", "triggered_by", false)
	return r, len(p.Errors) == n
}

func inRange(x float64) bool { return x >= MinScore-slack && x <= MaxScore+slack }

func checkScores(p *Problems, scores []Score, exchange int, single bool) {
	want := ExchangeIDs(exchange)
	expected := map[string]bool{}
	for _, id := range want {
		expected[id] = true
	}
	seen := map[string]bool{}
	sum := 0.0
	for i, s := range scores {
		at := fmt.Sprintf("scores[%d]", i)
		if single {
			at = "score"
		}
		if !expected[s.ArgumentID] {
			if id, err := ParseID(s.ArgumentID); err == nil && id.Exchange < exchange {
				p.errorf("%s: %s is from exchange %d; change an earlier score with a rescore, not a score", at, s.ArgumentID, id.Exchange)
			} else {
				p.errorf("%s: %s is not an argument of exchange %d (score exactly %s)", at, truncate(s.ArgumentID, 40), exchange, strings.Join(want, ", "))
			}
			continue
		}
		if seen[s.ArgumentID] {
			p.errorf("%s: %s is scored twice", at, s.ArgumentID)
			continue
		}
		seen[s.ArgumentID] = true
		if !inRange(s.Score) {
			p.errorf("%s: score %g of %s is outside [-1, 1]", at, s.Score, s.ArgumentID)
		}
		sum += s.Score
	}
	var missing []string
	for _, id := range want {
		if !seen[id] {
			missing = append(missing, id)
		}
	}
	if len(missing) > 0 {
		p.errorf("missing scores for %s: every argument of exchange %d is scored exactly once", strings.Join(missing, ", "), exchange)
		return
	}
	if math.Abs(sum) > ZeroSumEpsilon+slack {
		p.errorf("the scores sum to %s, not 0: scoring is zero-sum, so what one side gains the other loses (tolerance %g)", formatScore(sum), ZeroSumEpsilon)
	}
}

func checkRescores(p *Problems, rescores []Rescore, exchange int, known Known, current map[string]float64) {
	seen := map[string]bool{}
	for i, r := range rescores {
		at := fmt.Sprintf("rescores[%d]", i)
		id, err := ParseID(r.ArgumentID)
		if err != nil {
			p.errorf("%s.argument_id: %s", at, err)
			continue
		}
		if _, ok := known[r.ArgumentID]; !ok {
			p.errorf("%s: %s does not exist in this debate", at, r.ArgumentID)
			continue
		}
		if id.Exchange >= exchange {
			p.errorf("%s: %s is from exchange %d; only arguments of earlier exchanges can be rescored", at, r.ArgumentID, id.Exchange)
			continue
		}
		if seen[r.ArgumentID] {
			p.errorf("%s: %s is rescored twice in one judgment", at, r.ArgumentID)
			continue
		}
		seen[r.ArgumentID] = true
		cur, ok := current[r.ArgumentID]
		if !ok {
			p.errorf("%s: %s has no score yet, so it cannot be rescored", at, r.ArgumentID)
			continue
		}
		if !inRange(r.NewScore) {
			p.errorf("%s: new_score %g is outside [-1, 1]", at, r.NewScore)
			continue
		}
		if d := math.Abs(r.NewScore - cur); d > MaxRescoreStep+slack {
			p.errorf("%s: new_score %g moves %s by %s from its current %s; a rescore moves at most %g", at, r.NewScore, r.ArgumentID, formatScore(d), formatScore(cur), MaxRescoreStep)
		}
		if r.OldScore != nil && math.Abs(*r.OldScore-cur) > slack {
			p.warnf("%s: old_score %g of %s differs from its current score %s; the current score was used", at, *r.OldScore, r.ArgumentID, formatScore(cur))
		}
		if r.TriggeredBy != "" {
			if tid, err := ParseID(r.TriggeredBy); err != nil || tid.Exchange != exchange {
				p.errorf("%s.triggered_by: %s is not an argument of exchange %d", at, truncate(r.TriggeredBy, 40), exchange)
			}
		}
	}
}

// Entry is one line of an argument's score history that a judgment appends.
type Entry struct {
	ArgumentID string
	Score      float64
	Reasoning  string
	// TriggeredBy, PreviousScore and Diff are set on rescores only.
	TriggeredBy   string
	PreviousScore *float64
	Diff          *float64
}

// Entries lists the history entries j appends, scores first in the order
// the judge gave them, then rescores. A rescore the judge did not attribute
// is attributed to the first argument of the exchange that attacks or
// defends its target, or else to the first argument scored.
func (j Judgment) Entries(known Known, current map[string]float64) []Entry {
	var out []Entry
	for _, s := range j.Scores {
		out = append(out, Entry{ArgumentID: s.ArgumentID, Score: s.Score, Reasoning: s.Reasoning})
	}
	for _, r := range j.Rescores {
		prev := current[r.ArgumentID]
		diff := Round3(r.NewScore - prev)
		out = append(out, Entry{
			ArgumentID:    r.ArgumentID,
			Score:         r.NewScore,
			Reasoning:     r.Reasoning,
			TriggeredBy:   j.trigger(r, known),
			PreviousScore: &prev,
			Diff:          &diff,
		})
	}
	return out
}

func (j Judgment) trigger(r Rescore, known Known) string {
	if r.TriggeredBy != "" {
		return r.TriggeredBy
	}
	ids := make([]string, 0, len(j.Scores))
	for _, s := range j.Scores {
		ids = append(ids, s.ArgumentID)
	}
	sort.Slice(ids, func(a, b int) bool { return lessID(ids[a], ids[b]) })
	for _, id := range ids {
		for _, t := range known[id].Targets {
			if t == r.ArgumentID {
				return id
			}
		}
	}
	if len(ids) > 0 {
		return ids[0]
	}
	return ""
}

func lessID(a, b string) bool {
	ia, ea := ParseID(a)
	ib, eb := ParseID(b)
	if ea != nil || eb != nil {
		return a < b
	}
	return ia.Less(ib)
}

// SortIDs sorts argument ids in moot's order (see ID.Less); strings that are
// not ids go last, in byte order.
func SortIDs(ids []string) {
	sort.SliceStable(ids, func(a, b int) bool {
		ia, ea := ParseID(ids[a])
		ib, eb := ParseID(ids[b])
		switch {
		case ea == nil && eb == nil:
			return ia.Less(ib)
		case ea == nil:
			return true
		case eb == nil:
			return false
		}
		return ids[a] < ids[b]
	})
}
