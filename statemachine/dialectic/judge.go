package dialectic

import (
	"bytes"
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
	// whole is set when the judge wrote the score as a whole number (1,
	// not 1.0), which Python's json reads as an int.
	whole bool
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
	// newWhole and oldWhole are set when the judge wrote new_score and
	// old_score as whole numbers.
	newWhole, oldWhole bool
	// index is the rescore's place in the judge's "rescores", for messages.
	index int
}

// Judgment is what a judge hands in for one exchange.
type Judgment struct {
	Scores   []Score
	Rescores []Rescore
	// dialectic is set on a judgment read under dialectic's rules.
	dialectic bool
}

// Skipped is a rescore that dialectic's rules leave out with a warning
// instead of refusing the judgment (see ParseDialecticJudgment).
type Skipped struct {
	// Raw is the rescore as the judge wrote it.
	Raw json.RawMessage
	// Incomplete is set when the rescore has no argument_id (or a false
	// one: "", 0, null) or no new_score. Otherwise ID and Delta tell a
	// rescore whose new_score minus old_score is outside [-0.5, 0.5].
	Incomplete bool
	ID         string
	Delta      float64
}

// Scoring limits.
const (
	MinScore       = -1.0
	MaxScore       = 1.0
	ZeroSumEpsilon = 0.01
	MaxRescoreStep = 0.5
	// MaxJudgmentSwing bounds what one judgment's rescores, together, may
	// move the margin (the proposition's total less the opposition's):
	// each rescore moves at most MaxRescoreStep, and without this bound
	// a judge that obeys an instruction planted in an argument could
	// move every earlier argument at once.
	MaxJudgmentSwing = 1.0
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
	j, _, p := parseJudgment(data, exchange, known, current, false)
	return j, p
}

// ParseDialecticJudgment is ParseJudgment under the rules of dialectic's
// debate_ops, for moot debate-ops, which stands in for it. The scores are
// checked as ParseJudgment checks them. A rescore without argument_id or
// new_score, or whose new_score is more than 0.5 from the judge's own
// old_score, is skipped and returned in skipped, as dialectic skipped it
// with a warning; a rescore without old_score is not held to the 0.5 step,
// and triggered_by is ignored. The judgment's entries then follow
// dialectic too (see Judgment.Entries).
func ParseDialecticJudgment(data []byte, exchange int, known Known, current map[string]float64) (j Judgment, skipped []Skipped, p Problems) {
	return parseJudgment(data, exchange, known, current, true)
}

func parseJudgment(data []byte, exchange int, known Known, current map[string]float64, dialectic bool) (Judgment, []Skipped, Problems) {
	j := Judgment{dialectic: dialectic}
	var skipped []Skipped
	var p Problems
	single := false // the judgment gave one score as the whole object
	// Errors of the JSON as a whole name the judgment, as a debater's
	// name theirs ("proposition: invalid JSON ...").
	raw, err := answerJSON(data)
	if err != nil {
		p.errorf("judgment: %s", err)
		return j, nil, p
	}
	top, err := decodeObject(raw)
	if err != nil {
		p.errorf("the judgment %s", err)
		return j, nil, p
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
		return j, nil, p
	}
	if items, ok := top.list(&p, "", "rescores"); ok {
		for i, it := range items {
			if dialectic {
				if sk, ok := skipRescore(it); ok {
					skipped = append(skipped, sk)
					continue
				}
			}
			if r, ok := parseRescore(&p, fmt.Sprintf("rescores[%d]", i), it); ok {
				r.index = i
				j.Rescores = append(j.Rescores, r)
			}
		}
	}
	if !p.OK() {
		return Judgment{}, nil, p
	}
	checkScores(&p, j.Scores, exchange, single)
	checkRescores(&p, j.Rescores, exchange, known, current, dialectic)
	if !p.OK() {
		return Judgment{}, nil, p
	}
	return j, skipped, p
}

// skipRescore tells whether dialectic's rules skip the rescore raw. A
// rescore they do not skip goes through moot's checks, which refuse what
// dialectic could not take at all (a rescore that is not an object, a
// new_score that is not a number).
func skipRescore(raw json.RawMessage) (Skipped, bool) {
	f, err := decodeObject(raw)
	if err != nil {
		return Skipped{}, false
	}
	sk := Skipped{Raw: raw}
	if !truthy(f.vals["argument_id"]) || !f.present("new_score") {
		sk.Incomplete = true
		return sk, true
	}
	if !f.present("old_score") {
		return Skipped{}, false
	}
	var id string
	var newScore, oldScore float64
	if json.Unmarshal(f.vals["argument_id"], &id) != nil ||
		json.Unmarshal(f.vals["new_score"], &newScore) != nil ||
		json.Unmarshal(f.vals["old_score"], &oldScore) != nil {
		return Skipped{}, false
	}
	// dialectic compared the difference as computed, without slack.
	if d := newScore - oldScore; d < -MaxRescoreStep || d > MaxRescoreStep {
		sk.ID, sk.Delta = id, d
		return sk, true
	}
	return Skipped{}, false
}

// truthy tells whether Python counts the JSON value raw as true: it is
// present and not null, false, 0, "", [] or {}.
func truthy(raw json.RawMessage) bool {
	if raw == nil {
		return false
	}
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		return false
	}
	switch x := v.(type) {
	case nil:
		return false
	case bool:
		return x
	case float64:
		return x != 0
	case string:
		return x != ""
	case []any:
		return len(x) > 0
	case map[string]any:
		return len(x) > 0
	}
	return true
}

// whole tells whether the number field key was written as a whole number,
// which Python's json reads as an int.
func (f *fields) whole(key string) bool {
	t := bytes.TrimSpace(f.vals[key])
	return len(t) > 0 && !bytes.ContainsAny(t, ".eE")
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
	s.whole = f.whole("score")
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
			r.oldWhole = f.whole("old_score")
		}
	}
	r.NewScore, _ = f.num(p, at+".", "new_score")
	r.newWhole = f.whole("new_score")
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

func checkRescores(p *Problems, rescores []Rescore, exchange int, known Known, current map[string]float64, dialectic bool) {
	seen := map[string]bool{}
	// swing is what the rescores move the margin, toward the proposition.
	swing := 0.0
	defer func() {
		if math.Abs(swing) <= MaxJudgmentSwing+slack {
			return
		}
		toward := Prop
		if swing < 0 {
			toward = Opp
		}
		if dialectic {
			p.warnf("the rescores move the margin by %s toward the %s, more than the %g moot takes from one judgment; dialectic took it", exact(Round3(math.Abs(swing))), toward.Name(), MaxJudgmentSwing)
			return
		}
		p.errorf("the rescores move the margin by %s toward the %s; one judgment's rescores may move it by at most %g in all: keep only the rescores the arguments of exchange %d call for, or make them smaller", exact(Round3(math.Abs(swing))), toward.Name(), MaxJudgmentSwing, exchange)
	}()
	for _, r := range rescores {
		at := fmt.Sprintf("rescores[%d]", r.index)
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
		if id.Side == Prop {
			swing += r.NewScore - cur
		} else {
			swing -= r.NewScore - cur
		}
		if dialectic {
			// dialectic held a rescore to the 0.5 step from the judge's
			// old_score only (see skipRescore), and recorded old_score as
			// the previous score.
			if r.OldScore != nil && math.Abs(*r.OldScore-cur) > slack {
				p.warnf("%s: old_score %g of %s differs from its current score %s; previous_score records old_score, as dialectic did", at, *r.OldScore, r.ArgumentID, exact(cur))
			}
			if r.OldScore == nil {
				if d := math.Abs(r.NewScore - cur); d > MaxRescoreStep+slack {
					p.warnf("%s: new_score %g moves %s by %s from its current %s, more than %g; without old_score dialectic did not check the step", at, r.NewScore, r.ArgumentID, exact(Round3(d)), exact(cur), MaxRescoreStep)
				}
			}
			continue
		}
		if d := math.Abs(r.NewScore - cur); d > MaxRescoreStep+slack {
			p.errorf("%s: new_score %g moves %s by %s from its current %s; a rescore moves at most %g", at, r.NewScore, r.ArgumentID, exact(Round3(d)), exact(cur), MaxRescoreStep)
		}
		if r.OldScore != nil && math.Abs(*r.OldScore-cur) > slack {
			p.warnf("%s: old_score %g of %s differs from its current score %s; the current score was used", at, *r.OldScore, r.ArgumentID, exact(cur))
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
	// whole and prevWhole are set when the judge wrote Score and
	// PreviousScore as whole numbers (see Scores.RenderDialectic).
	whole, prevWhole bool
}

// Entries lists the history entries j appends, scores first in the order
// the judge gave them, then rescores. A rescore the judge did not attribute
// is attributed to the first argument of the exchange that attacks or
// defends its target, or else to the first argument scored.
//
// A judgment read under dialectic's rules (ParseDialecticJudgment) gives
// dialectic's entries instead: a rescore's previous_score is the judge's
// old_score (none when absent) and its diff is taken from it, and every
// rescore is attributed to the first argument the judgment scored.
func (j Judgment) Entries(known Known, current map[string]float64) []Entry {
	var out []Entry
	for _, s := range j.Scores {
		out = append(out, Entry{ArgumentID: s.ArgumentID, Score: s.Score, Reasoning: s.Reasoning, whole: s.whole})
	}
	if j.dialectic {
		for _, r := range j.Rescores {
			e := Entry{ArgumentID: r.ArgumentID, Score: r.NewScore, Reasoning: r.Reasoning, whole: r.newWhole}
			if len(j.Scores) > 0 {
				e.TriggeredBy = j.Scores[0].ArgumentID
			}
			if r.OldScore != nil {
				prev, diff := *r.OldScore, Round3(r.NewScore-*r.OldScore)
				e.PreviousScore, e.Diff = &prev, &diff
				e.prevWhole = r.oldWhole
			}
			out = append(out, e)
		}
		return out
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
