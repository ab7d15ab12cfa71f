package dialectic

import (
	"errors"
	"fmt"
	"io/fs"
	"math"
	"slices"
	"strings"
	"time"

	sm "github.com/moot-dev/moot/statemachine"
)

// A dialectic debate may be judged by a panel (debate.md's "judges") and
// judged again after the fact (moot rejudge). Every judge other than the
// debate's own keeps its judgment in judgments/NAME/scores.json, in the
// format of scores.json, with its history and rescores.
//
// A panel's judges are asked in parallel, each seeing the earlier
// arguments with its own scores (and, for arguments scored before it sat,
// the official ones). The official score of an argument is the mean of the
// judges' current scores, rounded to three places; the means of an
// exchange's new arguments are moved by the same amount so that they sum
// to exactly zero, as each judge's scores do to within the tolerance.

var _ sm.Panelist = Protocol{}

// JudgeRole returns "judge": a panel takes the judge's calls.
func (Protocol) JudgeRole() string { return string(Judge) }

// JudgeScoresFile returns the path of the scores of the judge called name.
func JudgeScoresFile(name string) string { return sm.JudgeFolder(name) + "/" + ScoresFile }

// judgeFolder is one judge's folder as read: its record (zero before its
// first commit) and its scores.
type judgeFolder struct {
	sm.Seating
	scores *Scores
	// gaps are the exchanges whose judgment is recorded as missing (moot
	// run --keep-going), from missing.json.
	gaps []Gap
}

// readJudges reads the panel debate.md names and the judges' folders, and
// every judge's folder that has a record or is the panel's.
func readJudges(files fs.FS, h *Header) (sm.Bench, map[string]*judgeFolder, error) {
	b, err := sm.ReadBench(files, h.Front)
	if err != nil {
		return sm.Bench{}, nil, err
	}
	folders := map[string]*judgeFolder{}
	read := func(name string) error {
		f := &judgeFolder{scores: NewScores()}
		data, err := fs.ReadFile(files, JudgeScoresFile(name))
		switch {
		case errors.Is(err, fs.ErrNotExist):
		case err != nil:
			return fmt.Errorf("read %s: %w", JudgeScoresFile(name), err)
		default:
			if f.scores, err = ParseScores(data); err != nil {
				return fmt.Errorf("read %s: %w", JudgeScoresFile(name), err)
			}
		}
		data, err = fs.ReadFile(files, JudgeMissingFile(name))
		switch {
		case errors.Is(err, fs.ErrNotExist):
		case err != nil:
			return fmt.Errorf("read %s: %w", JudgeMissingFile(name), err)
		default:
			if f.gaps, err = parseGaps(data); err != nil {
				return fmt.Errorf("read %s: %w", JudgeMissingFile(name), err)
			}
		}
		folders[name] = f
		return nil
	}
	for _, name := range sm.SortedNames(b.Records, nil) {
		if err := read(name); err != nil {
			return sm.Bench{}, nil, err
		}
		folders[name].Record = b.Records[name]
	}
	for _, j := range b.Panel {
		if folders[j.Name] == nil {
			if err := read(j.Name); err != nil {
				return sm.Bench{}, nil, err
			}
		}
	}
	return b, folders, nil
}

// own returns the scores of the judge called name; empty before it judged.
func (s *stepDebate) own(name string) *Scores {
	if f := s.judges[name]; f != nil {
		return f.scores
	}
	return NewScores()
}

// overlay returns base's scores with own's in their place: what a judge
// sees of the earlier arguments. keep, when not nil, says which of base's
// scores it sees at all.
func overlay(base, own map[string]float64, keep func(id string) bool) map[string]float64 {
	out := make(map[string]float64, len(base)+len(own))
	for id, v := range base {
		if keep == nil || keep(id) {
			out[id] = v
		}
	}
	for id, v := range own {
		out[id] = v
	}
	return out
}

// panelCallID is the call of the panel judge called name.
func panelCallID(name string) string { return sm.PanelCallID(string(Judge), name) }

// panelCall is the call of the panel judge j for its judgment of
// exchange x, seeing the earlier arguments under view.
func (s *stepDebate) panelCall(j sm.Judge, x int, view map[string]float64) (sm.Call, error) {
	known := s.deb.Known()
	p, err := judgePrompt(s.tmpl, s.deb, x, view, s.judgeContext)
	if err != nil {
		return sm.Call{}, err
	}
	c := s.call(p, func(text []byte) sm.Report {
		if err := CheckSize("judge", text); err != nil {
			return sm.Report{Errors: []string{err.Error()}}
		}
		_, probs := ParseJudgment(text, x, known, view)
		return report(probs)
	})
	c = c.AskedOf(string(Judge), j)
	return c, nil
}

// panelStep is the judgment of exchange x by the debate's panel. A judge
// whose judgment is refused after every repair may be recorded as
// missing (--keep-going): the panel's scores are then the others'.
func (s *stepDebate) panelStep(x int) (*sm.Step, error) {
	official := s.deb.Scores.Current()
	views := make([]map[string]float64, len(s.panel))
	var calls []sm.Call
	for i, j := range s.panel {
		views[i] = overlay(official, s.own(j.Name).Current(), nil)
		c, err := s.panelCall(j, x, views[i])
		if err != nil {
			return nil, err
		}
		c.Missable = true
		calls = append(calls, c)
	}
	return &sm.Step{
		Key: fmt.Sprintf("%05d", x), Unit: x, Calls: calls,
		Apply: func(answers map[string]sm.Answer, now time.Time) (*sm.Commit, error) {
			return s.applyPanel(x, answers, views, now)
		},
	}, nil
}

// applyPanel commits the panel's judgments of exchange x: each judge's
// scores in its folder, the panel's means in scores.json.
func (s *stepDebate) applyPanel(x int, answers map[string]sm.Answer, views []map[string]float64, now time.Time) (*sm.Commit, error) {
	if err := s.deb.Header.State.AcceptJudgment(); err != nil || s.deb.Header.State.Exchange != x {
		return nil, &sm.Refused{Reasons: []string{fmt.Sprintf("the debate is not awaiting the judgment of exchange %d", x)}}
	}
	known := s.deb.Known()
	judgments := make([]Judgment, len(s.panel))
	c := &sm.Commit{}
	refused := &sm.Refused{Answer: true}
	missing := make([]bool, len(s.panel))
	for i, j := range s.panel {
		if answers[panelCallID(j.Name)].Missing != nil {
			missing[i] = true
			continue
		}
		text := answers[panelCallID(j.Name)].Text
		if err := CheckSize("judge "+j.Name, text); err != nil {
			return nil, err
		}
		jg, p := ParseJudgment(text, x, known, views[i])
		for _, w := range p.Warnings {
			c.Warnings = append(c.Warnings, "judge "+j.Name+": "+w)
		}
		c.Soft = append(c.Soft, p.Soft...)
		if !p.OK() {
			refused.AddJudge(string(Judge), j.Name, p.Errors)
		}
		judgments[i] = jg
	}
	if len(refused.Reasons) > 0 {
		return &sm.Commit{Warnings: c.Warnings, Soft: c.Soft}, refused
	}
	if !slices.Contains(missing, false) {
		// A judgment the debate cannot go on without: the driver stops.
		return nil, &sm.Refused{Answer: true, Role: string(Judge),
			RoleReasons: []string{"no judge of the panel gave a judgment"},
			Reasons:     []string{fmt.Sprintf("no judge of the panel gave a judgment of exchange %d: the debate cannot go on without one", x)}}
	}
	// Each judge's own scores, in its folder.
	after := make([]map[string]float64, len(s.panel))
	perJudge := map[string]any{}
	var gapEvents []sm.Event
	for i, j := range s.panel {
		f := s.judges[j.Name]
		if f == nil {
			f = &judgeFolder{scores: NewScores()}
			s.judges[j.Name] = f
		}
		if f.Record == nil {
			c.Files = append(c.Files, sm.NewJudgeRecord(j, sm.KindPanel, x, -1, now))
			f.Record = &sm.JudgeRecord{Name: j.Name, Model: j.Model, Kind: sm.KindPanel, From: x}
		}
		if missing[i] {
			// No score of the judge's: its view stays as it was, and
			// the means are the other judges'.
			file, err := f.withGap(j.Name, x, answers[panelCallID(j.Name)].Missing)
			if err != nil {
				return nil, err
			}
			c.Files = append(c.Files, file)
			after[i] = views[i]
			perJudge[j.Name] = nil
			gapEvents = append(gapEvents, missingEvent(j.Name, x))
			continue
		}
		f.scores.Apply(judgments[i].Entries(known, views[i]), now)
		data, err := f.scores.Render()
		if err != nil {
			return nil, fmt.Errorf("render %s: %w", JudgeScoresFile(j.Name), err)
		}
		c.Files = append(c.Files, sm.File{Name: JudgeScoresFile(j.Name), Data: data})
		after[i] = overlay(views[i], f.scores.Current(), nil)
		given := map[string]float64{}
		for _, sc := range judgments[i].Scores {
			given[sc.ArgumentID] = sc.Score
		}
		for _, rs := range judgments[i].Rescores {
			given[rs.ArgumentID] = rs.NewScore
		}
		perJudge[j.Name] = given
	}
	// The official scores: the panel's means.
	official := s.deb.Scores.Current()
	newIDs := ExchangeIDs(x)
	means := PanelMeans(newIDs, after)
	var entries []Entry
	for _, id := range newIDs {
		entries = append(entries, Entry{ArgumentID: id, Score: means[id], Reasoning: panelReason(s.panel, after, id, missing)})
	}
	var rescored []string
	for _, jg := range judgments {
		for _, rs := range jg.Rescores {
			if !slices.Contains(rescored, rs.ArgumentID) {
				rescored = append(rescored, rs.ArgumentID)
			}
		}
	}
	SortIDs(rescored)
	var moved []string
	for _, id := range rescored {
		m := Round3(meanOf(after, id))
		prev, had := official[id]
		if had && math.Abs(m-prev) < 1e-9 {
			continue
		}
		e := Entry{ArgumentID: id, Score: m, Reasoning: panelReason(s.panel, after, id, missing), TriggeredBy: rescoreTrigger(judgments, id, known)}
		if had {
			diff := Round3(m - prev)
			e.PreviousScore, e.Diff = &prev, &diff
		}
		entries = append(entries, e)
		moved = append(moved, id)
	}
	s.deb.Scores.Apply(entries, now)
	scores, err := s.deb.Scores.Render()
	if err != nil {
		return nil, fmt.Errorf("render %s: %w", ScoresFile, err)
	}
	c.Files = append(c.Files, sm.File{Name: ScoresFile, Data: scores})
	s.deb.Header.Totals = Cumulative(s.deb.Scores.Current())
	s.deb.Header.State = s.deb.Header.State.Next()
	titles := map[string]string{}
	for _, a := range s.deb.Exchange(x) {
		titles[a.ID] = a.Title
	}
	var ids []string
	var values []float64
	for _, id := range newIDs {
		v := means[id]
		c.Events = append(c.Events, sm.Event{Kind: "scored", Role: string(Judge), ID: id, Title: titles[id], Score: &v})
		ids, values = append(ids, id), append(values, v)
	}
	for _, id := range moved {
		v := s.deb.Scores.Current()[id]
		c.Events = append(c.Events, sm.Event{Kind: "rescored", Role: string(Judge), ID: id, Score: &v})
	}
	totals := s.deb.Header.Totals
	done := sm.Event{Kind: "exchange", Ends: true,
		Message: fmt.Sprintf("panel of %d%s · proposition %s · opposition %s", len(s.panel), missingNote(missing), FormatScore(totals.Proposition.Total), FormatScore(totals.Opposition.Total)),
		Data:    map[string]any{"ids": ids, "scores": values, "cumulative_scores": totals, "judges": perJudge},
	}
	if len(moved) > 0 {
		done.Data["rescored"] = moved
	}
	c.Events = append(c.Events, gapEvents...)
	c.Events = append(c.Events, done)
	return c, finish(s.deb, c)
}

// missingNote is what the message of a panel's judgment adds when some of
// its judges' judgments are missing.
func missingNote(missing []bool) string {
	n := 0
	for _, m := range missing {
		if m {
			n++
		}
	}
	if n == 0 {
		return ""
	}
	return fmt.Sprintf(" (%d missing)", n)
}

// PanelMeans returns the official scores of an exchange's new arguments
// ids from each judge's current scores: their means, rounded to three
// places, moved together so that they sum to zero (the mean's own sum,
// within each judge's tolerance of zero, is taken out first; the last
// thousandth of rounding goes to the largest score).
func PanelMeans(ids []string, judges []map[string]float64) map[string]float64 {
	out := make(map[string]float64, len(ids))
	if len(ids) == 0 {
		return out
	}
	sum := 0.0
	raw := make([]float64, len(ids))
	for i, id := range ids {
		raw[i] = meanOf(judges, id)
		sum += raw[i]
	}
	shift := sum / float64(len(ids))
	total := 0.0
	big := 0
	for i := range raw {
		raw[i] = Round3(raw[i] - shift)
		total += raw[i]
		if math.Abs(raw[i]) > math.Abs(raw[big]) {
			big = i
		}
	}
	raw[big] = Round3(raw[big] - total)
	for i, id := range ids {
		out[id] = raw[i] + 0 // no negative zero
	}
	return out
}

// meanOf is the mean of the judges' scores of id, of those that have one.
func meanOf(judges []map[string]float64, id string) float64 {
	sum, n := 0.0, 0
	for _, j := range judges {
		if v, ok := j[id]; ok {
			sum += v
			n++
		}
	}
	if n == 0 {
		return 0
	}
	return sum / float64(n)
}

// panelReason is the reasoning the official history gives a panel's
// score: every judge's score of id, and the judges whose judgment is
// missing (missing, by judge, may be nil).
func panelReason(panel []sm.Judge, judges []map[string]float64, id string, missing []bool) string {
	parts := make([]string, 0, len(panel))
	var gone []string
	for i, j := range panel {
		if v, ok := judges[i][id]; ok {
			parts = append(parts, j.Name+" "+FormatScore(v))
		} else if i < len(missing) && missing[i] {
			gone = append(gone, j.Name)
		}
	}
	out := fmt.Sprintf("mean of the panel's %d judges: %s", len(parts), strings.Join(parts, ", "))
	if len(gone) > 0 {
		out += fmt.Sprintf("; missing, no score invented: %s", strings.Join(gone, ", "))
	}
	return out
}

// rescoreTrigger is the argument that set off the first rescore of id
// among the judgments.
func rescoreTrigger(judgments []Judgment, id string, known Known) string {
	for _, jg := range judgments {
		for _, r := range jg.Rescores {
			if r.ArgumentID == id {
				return jg.trigger(r, known)
			}
		}
	}
	return ""
}

// checkJudges adds to f what is wrong with the judges' folders
// (sm.Bench.Problems) and scores: scores of arguments that do not exist
// or of exchanges not yet judged, and current scores that are not the
// last of their history.
func (s *stepDebate) checkJudges(f *sm.Findings) {
	st := s.deb.Header.State
	f.Problems = append(f.Problems, s.benched...)
	s.checkGaps(f)
	for _, n := range sm.SortedNames(s.judges, nil) {
		file := JudgeScoresFile(n)
		sc := s.judges[n].scores
		for _, id := range sc.IDs() {
			r, _ := sc.Get(id)
			pid, err := ParseID(id)
			if err != nil {
				f.Problems = append(f.Problems, sm.Problem{File: file, Message: err.Error()})
				continue
			}
			if _, ok := s.deb.Argument(id); !ok {
				f.Problems = append(f.Problems, sm.Problem{File: file, Message: id + " is scored but has no argument file"})
			}
			if pid.Exchange >= st.Exchange {
				f.Problems = append(f.Problems, sm.Problem{File: file, Message: fmt.Sprintf("%s is scored, but exchange %d has not been judged yet", id, pid.Exchange)})
			}
			if len(r.History) == 0 {
				f.Problems = append(f.Problems, sm.Problem{File: file, Message: id + " has an empty history"})
			} else if last := r.History[len(r.History)-1].Score; math.Abs(last-r.CurrentScore) > 1e-9 {
				f.Problems = append(f.Problems, sm.Problem{File: file, Message: fmt.Sprintf("%s: current_score %g is not the last score in its history (%g)", id, r.CurrentScore, last)})
			}
		}
	}
}

// Rejudge returns the debate as its judging again by r.Judge: a step per
// exchange the debate has judged, from r.From to r.To (-1: to the last),
// each asking r.Judge alone, with the exchange's arguments and the
// earlier ones under the scores this judge gave them (or, for exchanges
// before r.From, the official ones), and writing only its folder.
func (s *stepDebate) Rejudge(r sm.Rejudging) (sm.Debate, error) {
	if err := r.Check(); err != nil {
		return nil, err
	}
	last := s.deb.Header.State.Exchange - 1
	from, to := r.Span(0, last)
	if last < 0 {
		return nil, errors.New("the debate has no judged exchange to judge again")
	}
	if from > last {
		return nil, fmt.Errorf("the debate has judged exchanges 0 to %d; --from %d is past them", last, r.From)
	}
	if err := sm.CheckRejudgeRecord(r, sm.RecordOf(s.judges, r.Judge.Name)); err != nil {
		return nil, err
	}
	f := s.judges[r.Judge.Name]
	if f == nil {
		f = &judgeFolder{scores: NewScores()}
	}
	return &rejudgeDebate{s: s, r: r, from: from, to: to, folder: f}, nil
}

// rejudgeDebate is a dialectic debate being judged again.
type rejudgeDebate struct {
	s        *stepDebate
	r        sm.Rejudging
	from, to int
	folder   *judgeFolder
}

// judged reports whether the judge has judged exchange x.
func (d *rejudgeDebate) judged(x int) bool {
	_, ok := d.folder.scores.Get(ExchangeIDs(x)[0])
	return ok
}

// next is the first exchange in range the judge has neither judged nor
// missed (a judgment recorded as missing waits for --retry-missing); -1 when there is none.
func (d *rejudgeDebate) next() int {
	for x := d.from; x <= d.to; x++ {
		if _, gap := d.folder.gap(x); !d.judged(x) && !gap {
			return x
		}
	}
	return -1
}

func (d *rejudgeDebate) Status() sm.Status {
	done := 0
	var gaps []string
	for x := d.from; x <= d.to; x++ {
		if d.judged(x) {
			done++
		}
		if _, ok := d.folder.gap(x); ok {
			gaps = append(gaps, fmt.Sprint(x))
		}
	}
	st := sm.Status{Unit: "exchange", Done: done, Total: d.to - d.from + 1, Phase: "judging again"}
	if n := d.next(); n >= 0 {
		st.Next = fmt.Sprintf("%s judges exchange %d again", d.r.Judge.Model, n)
	} else {
		st.Complete, st.Next = true, "nothing: every exchange is judged again"
	}
	if len(gaps) > 0 {
		st.Lines = append(st.Lines, sm.Line{Label: "missing", Text: fmt.Sprintf("exchange %s: no score invented (moot rejudge --retry-missing asks again)", strings.Join(gaps, ", "))})
		if st.Complete {
			st.Next = "nothing but the missing judgments: moot rejudge --retry-missing asks for them again"
		}
	}
	return st
}

func (d *rejudgeDebate) Check() sm.Findings { return d.s.Check() }

func (d *rejudgeDebate) Next() (*sm.Step, error) {
	x := d.next()
	if x < 0 {
		return nil, nil
	}
	return d.step(x)
}

var _ sm.Filler = (*rejudgeDebate)(nil)

// Gaps lists the re-judging's judgments recorded as missing.
func (d *rejudgeDebate) Gaps() []string {
	var out []string
	for _, g := range d.folder.gaps {
		out = append(out, g.Missing.Call)
	}
	return out
}

// Fill asks again for the re-judging's missing judgment gap.
func (d *rejudgeDebate) Fill(gap string) (*sm.Step, error) {
	for _, g := range d.folder.gaps {
		if g.Missing.Call == gap {
			return d.step(g.Exchange)
		}
	}
	return nil, fmt.Errorf("no call %q is missing", gap)
}

// step is the judging again of exchange x. The judgment may be recorded
// as missing (--keep-going).
func (d *rejudgeDebate) step(x int) (*sm.Step, error) {
	known := d.s.deb.Known()
	from := d.from
	cur := overlay(d.s.deb.Scores.Current(), d.folder.scores.Current(), func(id string) bool {
		pid, err := ParseID(id)
		return err == nil && pid.Exchange < from
	})
	p, err := judgePrompt(d.s.tmpl, d.s.deb, x, cur, d.s.judgeContext)
	if err != nil {
		return nil, err
	}
	c := d.s.call(p, func(text []byte) sm.Report {
		if err := CheckSize("judge", text); err != nil {
			return sm.Report{Errors: []string{err.Error()}}
		}
		_, probs := ParseJudgment(text, x, known, cur)
		return report(probs)
	})
	c.Model = d.r.Judge.Model
	c.Missable = true
	name := d.r.Judge.Name
	return d.r.Step(fmt.Sprintf("%05d", x), x, c, d.folder.Record, d.r.From, func(a sm.Answer, now time.Time) (*sm.Commit, error) {
		c := &sm.Commit{}
		if m := a.Missing; m != nil {
			file, err := d.folder.withGap(name, x, m)
			if err != nil {
				return nil, err
			}
			c.Files = append(c.Files, file)
			ev := missingEvent(name, x)
			ev.Ends = true
			c.Events = append(c.Events, ev)
			return c, nil
		}
		text := a.Text
		if err := CheckSize("judge", text); err != nil {
			return nil, err
		}
		jg, p := ParseJudgment(text, x, known, cur)
		if !p.OK() {
			return &sm.Commit{Warnings: p.Warnings, Soft: p.Soft}, &sm.Refused{Reasons: p.Errors, Role: string(Judge), RoleReasons: p.Errors, Answer: true}
		}
		c.Warnings, c.Soft = p.Warnings, p.Soft
		d.folder.scores.Apply(jg.Entries(known, cur), now)
		data, err := d.folder.scores.Render()
		if err != nil {
			return nil, fmt.Errorf("render %s: %w", JudgeScoresFile(name), err)
		}
		c.Files = append(c.Files, sm.File{Name: JudgeScoresFile(name), Data: data})
		gone, err := d.folder.filled(name, x)
		if err != nil {
			return nil, err
		}
		c.Files = append(c.Files, gone...)
		for _, sc := range jg.Scores {
			v := sc.Score
			c.Events = append(c.Events, sm.Event{Kind: "scored", Role: string(Judge), ID: sc.ArgumentID, Score: &v})
		}
		for _, rs := range jg.Rescores {
			v := rs.NewScore
			c.Events = append(c.Events, sm.Event{Kind: "rescored", Role: string(Judge), ID: rs.ArgumentID, Score: &v})
		}
		t := Cumulative(d.folder.scores.Current())
		c.Events = append(c.Events, sm.Event{Kind: "exchange", Ends: true,
			Message: fmt.Sprintf("judged again by %s · proposition %s · opposition %s", name, FormatScore(t.Proposition.Total), FormatScore(t.Opposition.Total))})
		return c, nil
	}), nil
}

// Judgments returns what the debate's judges made of its arguments: the
// debate's own judge (or, with a panel, the panel's aggregate) and every
// judge with a folder, each argument's first and last score.
func (s *stepDebate) Judgments() sm.Judgments {
	out := sm.Judgments{Unit: "exchange", Min: MinScore, Max: MaxScore, Graph: true}
	for _, a := range s.deb.Arguments {
		it := sm.Item{ID: a.ID, Unit: a.Exchange, Title: a.Title, Side: a.Side.Name(), Length: len([]rune(a.ClaimText())) + len([]rune(a.Body))}
		for _, t := range a.Attacks {
			it.Attacks = append(it.Attacks, t.TargetID)
		}
		for _, t := range a.Defends {
			if t.Type != "concede_and_pivot" {
				it.Supports = append(it.Supports, t.TargetID)
			}
		}
		out.Items = append(out.Items, it)
	}
	official := scoresOf(s.deb.Scores)
	official.Name, official.Model, official.Kind = "debate", s.judgeModel(), sm.KindOfficial
	out.AddOfficial(official, len(s.panel) > 0)
	sm.AddJudges(&out, s.judges, func(f *judgeFolder) sm.JudgeScores { return scoresOf(f.scores) })
	return out
}

// judgeModel is the judge's model as debate.md's settings keep it; empty
// for a debate no moot run has judged.
func (s *stepDebate) judgeModel() string { return sm.RoleModel(s.deb.Header.Front, string(Judge)) }

// scoresOf is a scores file as a judge's first and last scores.
func scoresOf(sc *Scores) sm.JudgeScores {
	js := sm.JudgeScores{Final: map[string]float64{}, First: map[string]float64{}}
	for _, id := range sc.IDs() {
		r, _ := sc.Get(id)
		js.Final[id] = r.CurrentScore
		if len(r.History) > 0 {
			js.First[id] = r.History[0].Score
		} else {
			js.First[id] = r.CurrentScore
		}
	}
	return js
}
