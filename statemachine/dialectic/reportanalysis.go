package dialectic

import (
	"encoding/json"
	"math"
	"sort"
	"strings"
	"time"
)

// Event is one entry of an argument's score history, placed at the
// exchange whose judgment gave it.
type Event struct {
	HistoryEntry
	// Exchange is the exchange whose judgment gave this score: the
	// argument's own exchange for its first score; for a rescore, the
	// exchange of the argument that triggered it or, failing that, the
	// judgment its scored_at falls in.
	Exchange int
	// Rescore is true for every entry but the first.
	Rescore bool
}

// Diff is the change a rescore made; zero for a first score.
func (e Event) Diff() float64 {
	if !e.Rescore || e.PreviousScore == nil {
		return 0
	}
	return Round3(e.Score - *e.PreviousScore)
}

// GraphLink is an attack or defence seen from either end.
type GraphLink struct {
	From, To string // attacker or defender, and target
	Type     string
	Exchange int // the exchange of From
}

// ScoredArg is an argument with everything the report says about it.
type ScoredArg struct {
	*Argument
	Scored  bool
	Score   float64 // current score
	First   float64 // first score
	History []Event
	// AttackedBy and DefendedBy list the links that point at this argument.
	AttackedBy []GraphLink
	DefendedBy []GraphLink
}

// Rescores counts the rescores of a.
func (a *ScoredArg) Rescores() int {
	if len(a.History) == 0 {
		return 0
	}
	return len(a.History) - 1
}

// LastReasoning is the reasoning of a's latest score, or "".
func (a *ScoredArg) LastReasoning() string {
	if len(a.History) == 0 {
		return ""
	}
	return a.History[len(a.History)-1].Reasoning
}

// scoreBefore is a's score as it stood before the judgment of exchange.
func (a *ScoredArg) scoreBefore(exchange int) (float64, bool) {
	s, ok := 0.0, false
	for _, e := range a.History {
		if e.Exchange >= exchange {
			break
		}
		s, ok = e.Score, true
	}
	return s, ok
}

// Point is both sides' cumulative totals after the judgment of an exchange.
type Point struct {
	Exchange int
	Prop     float64
	Opp      float64
}

// Margin is how far the proposition is ahead (negative: behind).
func (p Point) Margin() float64 { return Round3(p.Prop - p.Opp) }

// Models are the models moot ran a debate with, from the "moot" key of
// debate.md; empty when the debate was not run by moot.
type Models struct {
	Proposition string `json:"proposition"`
	Opposition  string `json:"opposition"`
	Judge       string `json:"judge"`
}

// Analysis is a debate with what the report computes from it.
type Analysis struct {
	Debate *Debate
	State  State
	// Judged is how many exchanges have been judged (0 to Judged-1).
	Judged int
	// Args lists the arguments in moot's order.
	Args []*ScoredArg
	byID map[string]*ScoredArg
	// Totals are recomputed from scores.json; Recorded is what debate.md says.
	Totals   Totals
	Recorded Totals
	// Trajectory has a point per judged exchange.
	Trajectory []Point
	Links      []GraphLink // every attack and defence, in argument order
	Models     Models
}

// Arg returns the argument with id.
func (an *Analysis) Arg(id string) (*ScoredArg, bool) {
	a, ok := an.byID[id]
	return a, ok
}

// Analyze computes what the report shows from a loaded debate.
func Analyze(d *Debate) *Analysis {
	h := d.Header
	an := &Analysis{
		Debate:   d,
		State:    h.State,
		Judged:   h.State.Exchange,
		byID:     make(map[string]*ScoredArg, len(d.Arguments)),
		Recorded: h.Totals,
		Models:   readModels(h),
	}
	for _, a := range d.Arguments {
		arg := &ScoredArg{Argument: a}
		an.Args = append(an.Args, arg)
		an.byID[a.ID] = arg
	}
	for _, a := range an.Args {
		for _, t := range a.Attacks {
			l := GraphLink{From: a.ID, To: t.TargetID, Type: t.Type, Exchange: a.Exchange}
			an.Links = append(an.Links, l)
			if target, ok := an.byID[t.TargetID]; ok {
				target.AttackedBy = append(target.AttackedBy, l)
			}
		}
		for _, t := range a.Defends {
			l := GraphLink{From: a.ID, To: t.TargetID, Type: t.Type, Exchange: a.Exchange}
			an.Links = append(an.Links, l)
			if target, ok := an.byID[t.TargetID]; ok {
				target.DefendedBy = append(target.DefendedBy, l)
			}
		}
	}
	an.placeScores()
	an.Totals = Cumulative(d.Scores.Current())
	an.trajectory()
	return an
}

func readModels(h *Header) Models {
	raw, ok := h.Setting("moot")
	if !ok {
		return Models{}
	}
	var s struct {
		Models json.RawMessage `json:"models"`
	}
	if json.Unmarshal(raw, &s) != nil || s.Models == nil {
		return Models{}
	}
	// Each model is read on its own, so that one odd value does not hide
	// the others.
	var m map[string]json.RawMessage
	if json.Unmarshal(s.Models, &m) != nil {
		return Models{}
	}
	str := func(key string) string {
		var v string
		if json.Unmarshal(m[key], &v) != nil {
			return ""
		}
		return strings.TrimSpace(v)
	}
	return Models{Proposition: str("proposition"), Opposition: str("opposition"), Judge: str("judge")}
}

// scoredID is an id in scores.json with its parsed form.
type scoredID struct {
	id  string
	pid ID
	rec *Record
}

// placeScores gives every history entry the exchange whose judgment made
// it. A rescore belongs to the exchange of the argument that triggered it;
// without a usable trigger, to the last judgment whose first scores were
// given at or before its scored_at; failing both, to the judgment right
// after the previous entry. Entries never go back in time nor past the
// last judged exchange.
func (an *Analysis) placeScores() {
	scores := an.Debate.Scores
	var ids []scoredID
	for _, id := range scores.IDs() {
		pid, err := ParseID(id)
		if err != nil {
			continue
		}
		rec, _ := scores.Get(id)
		ids = append(ids, scoredID{id, pid, rec})
	}
	// When each judgment began: the earliest scored_at of its first scores.
	began := map[int]time.Time{}
	for _, s := range ids {
		if len(s.rec.History) == 0 {
			continue
		}
		if t, ok := parseTime(s.rec.History[0].ScoredAt); ok {
			if b, seen := began[s.pid.Exchange]; !seen || t.Before(b) {
				began[s.pid.Exchange] = t
			}
		}
	}
	judgments := make([]int, 0, len(began))
	for e := range began {
		judgments = append(judgments, e)
	}
	sort.Ints(judgments)
	last := an.Judged - 1
	for _, s := range ids {
		var events []Event
		prev := s.pid.Exchange
		for i, h := range s.rec.History {
			ev := Event{HistoryEntry: h, Exchange: s.pid.Exchange, Rescore: i > 0}
			if i > 0 {
				ev.Exchange = prev + 1
				if t, err := ParseID(h.TriggeredBy); err == nil {
					ev.Exchange = t.Exchange
				} else if at, ok := parseTime(h.ScoredAt); ok {
					for _, e := range judgments {
						if !began[e].After(at) {
							ev.Exchange = e
						}
					}
				}
				if ev.Exchange <= prev {
					ev.Exchange = prev + 1
				}
			}
			if ev.Exchange > last && last >= s.pid.Exchange {
				ev.Exchange = last
			}
			if ev.Exchange < prev {
				ev.Exchange = prev
			}
			prev = ev.Exchange
			events = append(events, ev)
		}
		if a, ok := an.byID[s.id]; ok && len(events) > 0 {
			a.History = events
			a.Scored = true
			a.Score = s.rec.CurrentScore
			a.First = events[0].Score
		}
	}
}

func parseTime(s string) (time.Time, bool) {
	t, err := time.Parse(time.RFC3339Nano, s)
	return t, err == nil
}

// trajectory computes both sides' totals after each judged exchange, summing
// in moot's id order as the cumulative scores in debate.md are summed.
func (an *Analysis) trajectory() {
	if an.Judged <= 0 {
		return
	}
	scores := an.Debate.Scores
	type entry struct {
		side   Side
		events []Event
	}
	ids := scores.IDs()
	SortIDs(ids)
	var entries []entry
	for _, id := range ids {
		pid, err := ParseID(id)
		if err != nil {
			continue
		}
		if a, ok := an.byID[id]; ok {
			entries = append(entries, entry{pid.Side, a.History})
			continue
		}
		// Scored without an argument file: count it as debate.md does,
		// at its own exchange, with its current score.
		rec, _ := scores.Get(id)
		entries = append(entries, entry{pid.Side, []Event{{HistoryEntry: HistoryEntry{Score: rec.CurrentScore}, Exchange: pid.Exchange}}})
	}
	cur := make([]float64, len(entries))
	next := make([]int, len(entries)) // index of each entry's next event
	an.Trajectory = make([]Point, 0, an.Judged)
	for e := 0; e < an.Judged; e++ {
		p := Point{Exchange: e}
		for i := range entries {
			evs := entries[i].events
			for next[i] < len(evs) && evs[next[i]].Exchange <= e {
				cur[i] = evs[next[i]].Score
				next[i]++
			}
			if entries[i].side == Prop {
				p.Prop += cur[i]
			} else {
				p.Opp += cur[i]
			}
		}
		p.Prop, p.Opp = Round3(p.Prop), Round3(p.Opp)
		an.Trajectory = append(an.Trajectory, p)
	}
}

// Ranked returns the scored arguments from the highest current score to the
// lowest, ties in moot's order.
func (an *Analysis) Ranked() []*ScoredArg {
	var out []*ScoredArg
	for _, a := range an.Args {
		if a.Scored {
			out = append(out, a)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return Round3(out[i].Score) > Round3(out[j].Score) })
	return out
}

// TypeStat is what became of the targets of one kind of attack or defence.
type TypeStat struct {
	Type  string
	Count int
	// Measured counts the links whose target has a score from before the
	// link's judgment; Fell and Rose count those whose target's score is now
	// lower or higher than it was then, and MeanChange is the mean change.
	Measured   int
	Fell, Rose int
	MeanChange float64
}

// TypeStats summarises the links of the given types (attacks or defences),
// one line per type in the given order.
func (an *Analysis) TypeStats(types []string, attacks bool) []TypeStat {
	stats := make([]TypeStat, len(types))
	index := map[string]int{}
	for i, t := range types {
		stats[i].Type = t
		index[t] = i
	}
	sums := make([]float64, len(types))
	for _, a := range an.Args {
		links := a.Defends
		if attacks {
			links = a.Attacks
		}
		for _, l := range links {
			i, ok := index[l.Type]
			if !ok {
				i = len(stats)
				index[l.Type] = i
				stats = append(stats, TypeStat{Type: l.Type})
				sums = append(sums, 0)
			}
			stats[i].Count++
			target, ok := an.byID[l.TargetID]
			if !ok || !target.Scored || a.Exchange >= an.Judged {
				continue // no judgment has weighed this link yet
			}
			before, ok := target.scoreBefore(a.Exchange)
			if !ok {
				continue
			}
			change := Round3(target.Score - before)
			stats[i].Measured++
			sums[i] += math.Round(change * 1000) // in thousandths, so that the sum is exact
			switch {
			case change < 0:
				stats[i].Fell++
			case change > 0:
				stats[i].Rose++
			}
		}
	}
	for i := range stats {
		if stats[i].Measured > 0 {
			stats[i].MeanChange = Round3(math.Round(sums[i]/float64(stats[i].Measured)) / 1000)
		}
	}
	return stats
}

// MostAttacked lists up to n arguments that were attacked, the most
// attacked first, ties in moot's order.
func (an *Analysis) MostAttacked(n int) []*ScoredArg {
	var out []*ScoredArg
	for _, a := range an.Args {
		if len(a.AttackedBy) > 0 {
			out = append(out, a)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return len(out[i].AttackedBy) > len(out[j].AttackedBy) })
	if len(out) > n {
		out = out[:n]
	}
	return out
}
