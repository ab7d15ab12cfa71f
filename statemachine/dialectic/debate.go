package dialectic

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/moot-dev/moot/internal/evidence"
	sm "github.com/moot-dev/moot/statemachine"
)

// Names of the files of a debate directory.
const (
	ScoresFile   = "scores.json"
	ArgumentsDir = "arguments"
	GraphFile    = "argument-graph.mmd"
)

// ArgumentFile returns the path of id's file inside the debate directory.
func ArgumentFile(id string) string { return ArgumentsDir + "/" + id + ".md" }

// Raw is the content of a debate directory as the store read it.
type Raw struct {
	Header []byte
	// Scores is nil when scores.json does not exist.
	Scores []byte
	// Arguments maps the file names found in arguments/ to their content;
	// only names ending in .md are read.
	Arguments map[string][]byte
	// Sources holds the stored copies of the pages read (sources/), by
	// URL; nil when there are none.
	Sources map[string]*evidence.Source
}

// Debate is a debate read and parsed.
type Debate struct {
	Header    *Header
	Arguments []*Argument // in moot's order (see statemachine.ID.Less)
	Scores    *Scores
	byID      map[string]*Argument
}

// Error is a problem with one file of a debate.
type Error struct {
	File string
	Err  error
}

func (e *Error) Error() string { return e.File + ": " + e.Err.Error() }
func (e *Error) Unwrap() error { return e.Err }

// Load parses a debate strictly: any file that does not parse, or an
// argument whose id disagrees with its file name, is an error naming the file.
func Load(raw Raw) (*Debate, error) {
	h, err := ParseHeader(raw.Header)
	if err != nil {
		return nil, &Error{sm.StateFile, err}
	}
	d := &Debate{Header: h, Scores: NewScores(), byID: map[string]*Argument{}}
	if raw.Scores != nil {
		if d.Scores, err = ParseScores(raw.Scores); err != nil {
			return nil, &Error{ScoresFile, err}
		}
	}
	for _, name := range slices.Sorted(maps.Keys(raw.Arguments)) {
		file := ArgumentsDir + "/" + name
		a, err := ParseArgument(raw.Arguments[name])
		if err != nil {
			return nil, &Error{file, err}
		}
		if err := checkIdentity(a, name); err != nil {
			return nil, &Error{file, err}
		}
		d.Arguments = append(d.Arguments, a)
		d.byID[a.ID] = a
	}
	sortArguments(d.Arguments)
	return d, nil
}

func sortArguments(args []*Argument) {
	sort.SliceStable(args, func(i, j int) bool {
		a, _ := ParseID(args[i].ID)
		b, _ := ParseID(args[j].ID)
		return a.Less(b)
	})
}

// checkIdentity checks that an argument's id is canonical, matches its file
// name, and agrees with its side and exchange fields.
func checkIdentity(a *Argument, name string) error {
	id, err := ParseID(a.ID)
	if err != nil {
		return fmt.Errorf("field \"id\": %w", err)
	}
	if name != a.ID+".md" {
		return fmt.Errorf("field \"id\" is %s but the file is named %s", a.ID, name)
	}
	if id.Side != a.Side {
		return fmt.Errorf("field \"side\" is %q but the id %s says %q", a.Side, a.ID, id.Side)
	}
	if id.Exchange != a.Exchange {
		return fmt.Errorf("field \"exchange\" is %d but the id %s says %d", a.Exchange, a.ID, id.Exchange)
	}
	return nil
}

// Ended reports whether the debate has an end and has reached it: its
// last exchange judged.
func (d *Debate) Ended() bool {
	return d.Header.End > 0 && d.Header.State.Exchange >= d.Header.End
}

// Argument returns the argument with id.
func (d *Debate) Argument(id string) (*Argument, bool) {
	a, ok := d.byID[id]
	return a, ok
}

// Known returns what the rules need to know of every argument.
func (d *Debate) Known() Known {
	k := make(Known, len(d.Arguments))
	for _, a := range d.Arguments {
		k[a.ID] = Arg{Side: a.Side, Exchange: a.Exchange, Targets: a.Targets()}
	}
	return k
}

// Add puts new arguments into the debate, replacing any with the same id.
func (d *Debate) Add(args ...*Argument) {
	for _, a := range args {
		if _, ok := d.byID[a.ID]; ok {
			for i := range d.Arguments {
				if d.Arguments[i].ID == a.ID {
					d.Arguments[i] = a
				}
			}
		} else {
			d.Arguments = append(d.Arguments, a)
		}
		d.byID[a.ID] = a
	}
	sortArguments(d.Arguments)
}

// Exchange lists the arguments of exchange, proposition first.
func (d *Debate) Exchange(exchange int) []*Argument {
	var out []*Argument
	for _, a := range d.Arguments {
		if a.Exchange == exchange {
			out = append(out, a)
		}
	}
	return out
}

// Problem is one finding of Check: a broken invariant, or an irregularity
// that is only a warning, with the file it is in.
type Problem = sm.Problem

// Findings is what Check finds. Problems are broken invariants: a debate
// with any is refused by every step, since its states or totals cannot be
// trusted. Warnings are irregularities that change no current score, no
// total and no state, such as a rescore in scores.json whose previous_score
// is the judge's old_score rather than the score before it, as dialectic
// wrote them: they are reported, and the debate goes on.
type Findings = sm.Findings

type findings struct{ Findings }

func (f *findings) problem(file, format string, args ...any) {
	f.Problems = append(f.Problems, Problem{File: file, Message: fmt.Sprintf(format, args...)})
}

func (f *findings) warn(file, format string, args ...any) {
	f.Warnings = append(f.Warnings, Problem{File: file, Message: fmt.Sprintf(format, args...)})
}

// Check verifies every invariant of a debate and lists each problem with
// its file: that every file parses, that ids match file names and
// exchanges, that every exchange is complete up to the state, that attacks
// and defences point at the right sides and at earlier exchanges, that each
// judgment sums to zero, that every current score is the last of its
// history and that the cumulative totals equal the recomputed ones. The
// rest of the scores.json history (previous_score, diff, the size of a
// rescore) is checked too, and what is irregular there is a warning.
func Check(raw Raw) Findings {
	var f findings
	h, err := ParseHeader(raw.Header)
	if err != nil {
		f.problem(sm.StateFile, "%s", err)
	}
	scores := NewScores()
	if raw.Scores == nil {
		f.problem(ScoresFile, "is missing")
	} else if s, err := ParseScores(raw.Scores); err != nil {
		f.problem(ScoresFile, "%s", err)
		scores = nil
	} else {
		scores = s
	}
	args := map[string]*Argument{}
	for _, name := range slices.Sorted(maps.Keys(raw.Arguments)) {
		file := ArgumentsDir + "/" + name
		a, err := ParseArgument(raw.Arguments[name])
		if err != nil {
			f.problem(file, "%s", err)
			// The file is there all the same: take it as the argument its
			// name says, with no links, so that the parse error is the one
			// problem reported, not also a missing and unscored argument.
			if named := namedArgument(&Argument{}, name); named != nil {
				args[named.ID] = named
			}
			continue
		}
		if err := checkIdentity(a, name); err != nil {
			f.problem(file, "%s", err)
			// As above: the one wrong field is the one problem reported.
			if a = namedArgument(a, name); a == nil {
				continue
			}
		}
		args[a.ID] = a
	}
	for _, name := range slices.Sorted(maps.Keys(args)) {
		f.missingSources(args[name], raw.Sources)
	}
	if h == nil {
		return f.Findings
	}
	f.invariants(h, scores, args)
	return f.Findings
}

// namedArgument returns a copy of a with the id, side and exchange that the
// file name says, or nil when name is not the name of an argument file.
func namedArgument(a *Argument, name string) *Argument {
	id, err := ParseID(strings.TrimSuffix(name, ".md"))
	if err != nil || !strings.HasSuffix(name, ".md") {
		return nil
	}
	named := *a
	named.ID, named.Side, named.Exchange = id.String(), id.Side, id.Exchange
	return &named
}

// Check verifies the invariants of a debate Load has already parsed; see
// the function Check. It finds what Check would, without parsing again.
func (d *Debate) Check() Findings {
	args := make(map[string]*Argument, len(d.Arguments))
	for _, a := range d.Arguments {
		args[a.ID] = a
	}
	var f findings
	f.invariants(d.Header, d.Scores, args)
	return f.Findings
}

// invariants checks parsed files against each other. scores is nil when
// scores.json did not parse.
func (f *findings) invariants(h *Header, scores *Scores, args map[string]*Argument) {
	add := f.problem
	st := h.State
	if h.End > 0 && (st.Exchange > h.End || (st.Exchange == h.End && st.Phase != AwaitingArguments)) {
		add(sm.StateFile, "the debate is at exchange %d, %s, past its end of %d exchanges (%q)", st.Exchange, st.Phase, h.End, EndKey)
	}

	// Completeness: every exchange before the current one has all its
	// arguments and scores; the current one has its arguments once they
	// have been accepted; nothing exists beyond.
	for e := 0; e <= st.Exchange; e++ {
		argued := e < st.Exchange || st.Phase == AwaitingJudgment
		judged := e < st.Exchange
		for _, id := range ExchangeIDs(e) {
			file := ArgumentFile(id)
			if _, ok := args[id]; !ok && argued {
				add(file, "is missing: exchange %d is past its arguments", e)
			}
			if scores != nil {
				if _, ok := scores.Get(id); !ok && judged {
					add(ScoresFile, "%s has no score, but exchange %d has been judged", id, e)
				}
			}
		}
	}
	ids := make([]string, 0, len(args))
	for id := range args {
		ids = append(ids, id)
	}
	SortIDs(ids)
	for _, id := range ids {
		a := args[id]
		argued := a.Exchange < st.Exchange || (a.Exchange == st.Exchange && st.Phase == AwaitingJudgment)
		if !argued {
			add(ArgumentFile(id), "is from exchange %d, which the debate has not reached (it is at exchange %d, %s)", a.Exchange, st.Exchange, st.Phase)
		}
		for _, msg := range bodyDisagreements(a) {
			add(ArgumentFile(id), "%s", msg)
		}
		checkLinks(add, a, args, "attacks", a.Attacks, a.Side.Other(), AttackTypes())
		checkLinks(add, a, args, "defends", a.Defends, a.Side, DefenceTypes())
	}

	if scores == nil {
		return
	}
	// scores.json: known arguments, current scores, zero-sum judgments.
	for _, id := range scores.IDs() {
		r, _ := scores.Get(id)
		pid, err := ParseID(id)
		if err != nil {
			add(ScoresFile, "%s", err)
			continue
		}
		if _, ok := args[id]; !ok {
			add(ScoresFile, "%s is scored but has no argument file", id)
		}
		if pid.Exchange >= st.Exchange {
			add(ScoresFile, "%s is scored, but exchange %d has not been judged yet", id, pid.Exchange)
		}
		if len(r.History) == 0 {
			add(ScoresFile, "%s has an empty history", id)
			continue
		}
		last := len(r.History) - 1
		if math.Abs(r.History[last].Score-r.CurrentScore) > 1e-9 {
			add(ScoresFile, "%s: current_score %g is not the last score in its history (%g)", id, r.CurrentScore, r.History[last].Score)
		}
		f.history(id, r)
	}
	// Each judgment's scores sum to 0. No current score, total or state
	// depends on it, so a judgment that does not is a warning.
	for _, z := range judgmentSums(scores) {
		if math.Abs(z.sum) > ZeroSumEpsilon+1e-9 {
			f.warn(ScoresFile, "the judgment of exchange %d sums to %g, not 0", z.exchange, Round3(z.sum))
		}
	}

	for _, flag := range rescoreFlags(scores) {
		f.warn(ScoresFile, "%s", flag)
	}

	// Cumulative totals.
	want := Cumulative(scores.Current())
	for _, side := range Sides() {
		got, exp := h.Totals.Of(side), want.Of(side)
		if math.Abs(got.Total-exp.Total) > 0.0015 || got.Count != exp.Count {
			add(sm.StateFile, "cumulative_scores.%s is %g over %d arguments, but scores.json gives %g over %d", side.Name(), got.Total, got.Count, exp.Total, exp.Count)
		}
	}
}

type judgmentSum struct {
	exchange int
	sum      float64
}

// judgmentSums adds up the scores each judgment gave, by exchange. The
// first score of an argument was given by the judgment of its exchange;
// later entries with triggered_by are rescores, which are left out. A later entry without
// triggered_by is an argument a judge listed again under "scores", which
// dialectic records as one more score: it belongs to the judgment whose
// first scores were stamped nearest to it (moot stamps one judgment with
// one time, dialectic each entry a moment after the one before). An entry
// whose scored_at does not parse is left out.
func judgmentSums(scores *Scores) []judgmentSum {
	type stamp struct {
		at       time.Time
		exchange int
	}
	var firsts []stamp
	sums := map[int]float64{}
	for _, id := range scores.IDs() {
		r, _ := scores.Get(id)
		pid, err := ParseID(id)
		if err != nil || len(r.History) == 0 {
			continue
		}
		sums[pid.Exchange] += r.History[0].Score
		if at, err := time.Parse(time.RFC3339Nano, r.History[0].ScoredAt); err == nil {
			firsts = append(firsts, stamp{at, pid.Exchange})
		}
	}
	for _, id := range scores.IDs() {
		r, _ := scores.Get(id)
		for _, e := range r.History[min(1, len(r.History)):] {
			at, err := time.Parse(time.RFC3339Nano, e.ScoredAt)
			if e.TriggeredBy != "" || err != nil || len(firsts) == 0 {
				continue
			}
			best := firsts[0]
			for _, s := range firsts[1:] {
				if d, bd := s.at.Sub(at).Abs(), best.at.Sub(at).Abs(); d < bd || (d == bd && s.exchange > best.exchange) {
					best = s
				}
			}
			sums[best.exchange] += e.Score
		}
	}
	out := make([]judgmentSum, 0, len(sums))
	for e, sum := range sums {
		out = append(out, judgmentSum{e, sum})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].exchange < out[j].exchange })
	return out
}

// history checks the entries of one argument's score history. Only the
// current score counts towards totals and states: a score outside [-1, 1]
// there is a problem, and everything else is a warning. dialectic writes a
// rescore's previous_score as the judge's old_score, which may differ from
// the score before it, and writes neither previous_score nor diff when the
// judge gave no old_score.
func (f *findings) history(id string, r *Record) {
	last := len(r.History) - 1
	for i, e := range r.History {
		if e.Score < MinScore-1e-9 || e.Score > MaxScore+1e-9 {
			if i == last {
				f.problem(ScoresFile, "%s.history[%d]: score %g is outside [-1, 1]", id, i, e.Score)
			} else {
				f.warn(ScoresFile, "%s.history[%d]: score %g is outside [-1, 1]", id, i, e.Score)
			}
		}
		if i == 0 {
			if e.PreviousScore != nil || e.TriggeredBy != "" {
				f.warn(ScoresFile, "%s.history[0]: the first score of an argument is marked as a rescore", id)
			}
			continue
		}
		prev := r.History[i-1].Score
		base := prev
		if e.PreviousScore == nil && e.TriggeredBy == "" {
			f.warn(ScoresFile, "%s.history[%d]: a second score given under \"scores\", not as a rescore (the score before it is %g)", id, i, prev)
		} else if e.PreviousScore == nil {
			f.warn(ScoresFile, "%s.history[%d]: a rescore without previous_score (the score before it is %g)", id, i, prev)
		} else {
			base = *e.PreviousScore
			if math.Abs(*e.PreviousScore-prev) > 1e-9 {
				f.warn(ScoresFile, "%s.history[%d]: previous_score %g is not the score before it (%g)", id, i, *e.PreviousScore, prev)
			}
			if e.Diff == nil {
				f.warn(ScoresFile, "%s.history[%d]: a rescore without diff", id, i)
			}
		}
		if e.Diff != nil && math.Abs(*e.Diff-Round3(e.Score-base)) > 0.0015 {
			f.warn(ScoresFile, "%s.history[%d]: diff %g is not %g", id, i, *e.Diff, Round3(e.Score-base))
		}
		if math.Abs(e.Score-prev) > MaxRescoreStep+1e-9 {
			f.warn(ScoresFile, "%s.history[%d]: a rescore moved the score by %g, more than %g", id, i, Round3(e.Score-prev), MaxRescoreStep)
		}
	}
}

func checkLinks(add func(string, string, ...any), a *Argument, args map[string]*Argument, key string, links []Target, side Side, types []string) {
	file := ArgumentFile(a.ID)
	for i, l := range links {
		at := fmt.Sprintf("%s[%d]", key, i)
		okType := false
		for _, t := range types {
			okType = okType || t == l.Type
		}
		if !okType {
			add(file, "%s: type %q is not one of %s", at, l.Type, strings.Join(types, ", "))
		}
		t, ok := args[l.TargetID]
		if !ok {
			add(file, "%s: target %s does not exist", at, l.TargetID)
			continue
		}
		if t.Exchange >= a.Exchange {
			add(file, "%s: target %s is not from an earlier exchange", at, l.TargetID)
		}
		if t.Side != side {
			add(file, "%s: target %s is on the wrong side (a %s argument)", at, l.TargetID, t.Side.Name())
		}
	}
}

// MassRescore is the fewest rescores of one judgment, all in one side's
// favour, that RescoreFlags names.
const MassRescore = 4

// RescoreFlags names each judgment whose rescores look like a judge that
// obeyed an instruction planted in an argument: MassRescore or more
// rescores, every one in the same side's favour, or rescores that move
// the margin by more than MaxJudgmentSwing together. Such a judgment
// changes no rule moot checks (a debate written before the bound, or by
// debate-ops, may hold one), so check, status and the report show it as
// a warning to read, not a fault.
func (d *Debate) RescoreFlags() []string { return rescoreFlags(d.Scores) }

func rescoreFlags(scores *Scores) []string {
	if scores == nil {
		return nil
	}
	type judgment struct {
		n, forProp, forOpp int
		swing              float64
	}
	byExchange := map[int]*judgment{}
	for _, id := range scores.IDs() {
		r, _ := scores.Get(id)
		pid, err := ParseID(id)
		if err != nil {
			continue
		}
		for i := 1; i < len(r.History); i++ {
			e := r.History[i]
			tid, err := ParseID(e.TriggeredBy)
			if e.TriggeredBy == "" || err != nil {
				continue
			}
			move := e.Score - r.History[i-1].Score
			if pid.Side == Opp {
				move = -move
			}
			j := byExchange[tid.Exchange]
			if j == nil {
				j = &judgment{}
				byExchange[tid.Exchange] = j
			}
			j.n++
			j.swing += move
			switch {
			case move > 1e-9:
				j.forProp++
			case move < -1e-9:
				j.forOpp++
			}
		}
	}
	exchanges := make([]int, 0, len(byExchange))
	for x := range byExchange {
		exchanges = append(exchanges, x)
	}
	sort.Ints(exchanges)
	var out []string
	for _, x := range exchanges {
		j := byExchange[x]
		oneSided := j.n >= MassRescore && (j.forProp == j.n || j.forOpp == j.n)
		if !oneSided && math.Abs(j.swing) <= MaxJudgmentSwing+1e-9 {
			continue
		}
		toward := Prop
		if j.swing < 0 {
			toward = Opp
		}
		how := "together"
		if oneSided {
			how = "every one in the " + toward.Name() + "'s favour"
		}
		out = append(out, fmt.Sprintf("the judgment of exchange %d rescored %d arguments, %s, moving the margin by %s toward the %s: a judge may have obeyed instructions planted in an argument; read its rescores",
			x, j.n, how, exact(Round3(math.Abs(j.swing))), toward.Name()))
	}
	return out
}
