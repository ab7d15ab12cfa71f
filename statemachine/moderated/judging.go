package moderated

import (
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"math"
	"slices"
	"strings"
	"time"

	sm "github.com/moot-dev/moot/statemachine"
)

// A moderated debate's judge is the moderator's scoring: the moderator
// scores every argument and rebuttal on the rubric. A panel (debate.md's
// "judges") takes over those calls alone; the moderator's introductions,
// hand-overs, summaries and conclusion stay with the moderator's model.
// Every judge other than the moderator keeps its rubrics in
// judgments/NAME/scores/, named and written as scores/ is.
//
// A panel's judges are asked in parallel, each the same request the
// moderator would get (the scorer never sees earlier scores). The
// official score of a statement is the panel's aggregate: for each
// criterion the mean of the judges' raw scores, rounded to two decimals
// (half away from zero), with its weighted mark from that mean, and the
// total computed from those means as any total is.

// judgeFolder is one folder under judgments/ as read: its record (nil
// before its first commit), its scores by message number, and the files
// of its scores/ that are not a score.
type judgeFolder struct {
	sm.Seating
	scores map[int]Score
	// gaps holds the judge's scores recorded as missing (moot run
	// --keep-going), by message, apart from its scores.
	gaps  map[int]Score
	stray []sm.Problem
}

// judgeScoresDir is the folder of the scores of the judge called name.
func judgeScoresDir(name string) string { return sm.JudgeFolder(name) + "/" + ScoresDir }

// judgeScoreFile names the file of the score the judge called name gave
// the statement of slot t.
func (d *debate) judgeScoreFile(name string, t slot) string {
	return sm.JudgeFolder(name) + "/" + d.scoreFile(t)
}

// readJudges reads the panel debate.md names and every folder under
// judgments/.
func (d *debate) readJudges(files fs.FS) error {
	b, err := sm.ReadBench(files, d.front)
	if err != nil {
		return err
	}
	d.panel = b.Panel
	d.stray = append(d.stray, b.Problems(sm.FolderLayout{Owns: func(n string) bool { return n == ScoresDir+"/" }, Want: []string{ScoresDir + "/"}})...)
	d.judges, err = sm.EachFolder(b, func(name string, rec *sm.JudgeRecord) (*judgeFolder, error) {
		f := &judgeFolder{Seating: sm.Seating{Record: rec}}
		var err error
		if f.scores, f.stray, err = d.readScoreDir(files, judgeScoresDir(name)); err != nil {
			return nil, err
		}
		f.gaps = map[int]Score{}
		for n, sc := range f.scores {
			if sc.Missing != nil {
				f.gaps[n] = sc
				delete(f.scores, n)
			}
		}
		return f, nil
	})
	return err
}

// PanelScore returns the official score of a statement that a panel
// scored, from the judges' scores of it, which name the same message and
// participant: for each criterion the mean of the judges' raw scores,
// rounded to two decimals (half away from zero), its weighted mark from
// that mean, and the total from those means as Total computes it. names
// are the judges' names, in the order of scores, for the
// justifications.
func PanelScore(criteria []Criterion, names []string, scores []Score) Score {
	sc := Score{Marks: map[string]Mark{}}
	if len(scores) == 0 {
		return sc
	}
	sc.Message, sc.Participant = scores[0].Message, scores[0].Participant
	raws := map[string]float64{}
	for _, c := range criteria {
		sc.Names = append(sc.Names, c.Name)
		mean := round2(meanRaw(scores, c.Name))
		raws[c.Name] = mean
		parts := make([]string, len(scores))
		for k, s := range scores {
			parts[k] = names[k] + " " + num(s.Marks[c.Name].Raw)
		}
		sc.Marks[c.Name] = Mark{Raw: mean, Weight: c.Weight, Weighted: weighted(mean, c.Weight),
			Justification: fmt.Sprintf("mean of the panel's %d judges: %s", len(scores), strings.Join(parts, ", "))}
	}
	sc.Total = Total(criteria, raws)
	parts := make([]string, len(scores))
	for k, s := range scores {
		parts[k] = fmt.Sprintf("%s %.2f", names[k], s.Total)
	}
	sc.Reply = fmt.Sprintf("The panel's aggregate of %d judges (%s): each criterion's mean. Each judge's rubric is in %s/NAME/%s/.",
		len(scores), strings.Join(parts, ", "), sm.JudgmentsDir, ScoresDir)
	return sc
}

// meanRaw is the mean of the scores' raw marks of criterion name, summed
// in ascending order so that the judges' order makes no difference.
func meanRaw(scores []Score, name string) float64 {
	xs := make([]float64, len(scores))
	for k, s := range scores {
		xs[k] = s.Marks[name].Raw
	}
	slices.Sort(xs)
	sum := 0.0
	for _, x := range xs {
		sum += x
	}
	return sum / float64(len(xs))
}

// weighted is a mark's weighted value, to four decimals.
func weighted(raw, weight float64) float64 { return math.Round(raw*weight*10000) / 10000 }

// panelStep is the scoring of slot i by the debate's panel: the call c
// the moderator would get, asked of every judge on its own model.
func (d *debate) panelStep(i int, c sm.Call) (*sm.Step, error) {
	for _, j := range d.panel {
		f := d.judges[j.Name]
		if f == nil || f.Record == nil {
			continue
		}
		if f.Record.Kind != sm.KindPanel {
			return nil, fmt.Errorf("%s holds a re-judging, not the scores of a judge of the panel: move it away to let the judge on %s sit", sm.JudgeFolder(j.Name), j.Model)
		}
		if f.Record.Model != j.Model {
			return nil, fmt.Errorf("%s was judged by %s, not %s", sm.JudgeFolder(j.Name), f.Record.Model, j.Model)
		}
	}
	s := d.sched[i]
	return &sm.Step{
		Key: stepKey(i, s), Unit: s.Exchange, Calls: sm.PanelCalls(c, RoleModerator, d.panel),
		Apply: func(answers map[string]sm.Answer, now time.Time) (*sm.Commit, error) {
			return d.applyPanel(i, answers, now)
		},
	}, nil
}

// applyPanel commits the panel's scores of slot i's statement: each
// judge's rubric in its folder (its record with the first), the panel's
// aggregate in scores/. One judge's answer that breaks the rubric
// refuses the whole step.
func (d *debate) applyPanel(i int, answers map[string]sm.Answer, now time.Time) (*sm.Commit, error) {
	if d.st.Step != i {
		return nil, &sm.Refused{Reasons: []string{fmt.Sprintf("the debate is at step %d, not %d", d.st.Step+1, i+1)}}
	}
	s := d.sched[i]
	target := d.sched[s.Target]
	p, _ := d.participant(target.Role)
	refused := &sm.Refused{Answer: true}
	scores := make([]Score, len(d.panel))
	names := make([]string, len(d.panel))
	var gaps []*sm.Missing
	for k, j := range d.panel {
		names[k] = j.Name
		if m := answers[sm.PanelCallID(RoleModerator, j.Name)].Missing; m != nil {
			scores[k] = Score{Message: target.Number, Participant: p.ID, Missing: m}
			gaps = append(gaps, m)
			continue
		}
		text := answers[sm.PanelCallID(RoleModerator, j.Name)].Text
		marks, errs := ParseRubric(d.st.Criteria, text)
		if len(errs) > 0 {
			refused.AddJudge(s.Role, j.Name, errs)
			continue
		}
		scores[k] = newScore(d.st.Criteria, target.Number, p.ID, marks, string(text))
	}
	if len(refused.Reasons) > 0 {
		return nil, refused
	}
	var files []sm.File
	totals := map[string]any{}
	var parts []string
	for k, j := range d.panel {
		files = sm.FirstRecord(files, sm.RecordOf(d.judges, j.Name), j, sm.KindPanel, s.Exchange, -1, now)
		data, err := renderScore(d.out(), scores[k])
		if err != nil {
			return nil, err
		}
		files = append(files, sm.File{Name: d.judgeScoreFile(j.Name, target), Data: data})
		if scores[k].Missing != nil {
			totals[j.Name] = nil
			parts = append(parts, j.Name+" missing")
			continue
		}
		totals[j.Name] = scores[k].Total
		parts = append(parts, fmt.Sprintf("%s %.2f", j.Name, scores[k].Total))
	}
	var scoredNames []string
	var scored []Score
	for k, sc := range scores {
		if sc.Missing == nil {
			scoredNames, scored = append(scoredNames, names[k]), append(scored, sc)
		}
	}
	if len(scored) == 0 {
		// No judge scored: the panel's score is missing too.
		m := sm.PanelMissing(stepKey(i, s)+"/"+s.Role, s.Role, "panel", gaps)
		next := d.clone()
		gap := Score{Message: target.Number, Participant: p.ID, Missing: m}
		next.gaps[target.Number] = gap
		data, err := renderScore(d.out(), gap)
		if err != nil {
			return nil, err
		}
		ev := sm.Event{Kind: "missing", Role: s.Role, ID: fmt.Sprintf("%03d", target.Number),
			Title:   fmt.Sprintf("the panel scores %s's %s", d.name(target.Role), d.label(target)),
			Message: "no judge scored: recorded as missing, no value invented",
			Data:    map[string]any{"message": target.Number, "participant": p.ID, "missing": true}}
		return d.finish(i, next, &sm.Commit{Files: append(files, sm.File{Name: d.scoreFile(target), Data: data}), Events: []sm.Event{ev}})
	}
	sc := PanelScore(d.st.Criteria, scoredNames, scored)
	total := sc.Total
	ev := sm.Event{Kind: "rated", Role: s.Role, ID: fmt.Sprintf("%03d", target.Number), Score: &total,
		Title:   fmt.Sprintf("the panel scores %s's %s", d.name(target.Role), d.label(target)),
		Message: fmt.Sprintf("%.2f, the mean of %s", total, strings.Join(parts, " · ")),
		Data:    map[string]any{"message": target.Number, "participant": p.ID, "total": total, "judges": totals}}
	return d.commitScore(i, sc, files, ev)
}

// panelGap is a panel judge's score recorded as missing: the slot of the
// score, the judge, and the call its record names.
type panelGap struct {
	slot  int
	judge sm.Judge
	call  string
}

// panelGaps lists the panel judges' scores recorded as missing, by slot,
// then in the panel's order.
func (d *debate) panelGaps() []panelGap {
	var out []panelGap
	for i, s := range d.sched {
		if i >= d.st.Step {
			break
		}
		if s.Kind != kindScore {
			continue
		}
		n := d.sched[s.Target].Number
		for _, j := range d.panel {
			if f := d.judges[j.Name]; f != nil {
				if g, ok := f.gaps[n]; ok {
					out = append(out, panelGap{slot: i, judge: j, call: g.Missing.Call})
				}
			}
		}
	}
	return out
}

// fillPanel is the step that asks the panel judge j again for its score
// of slot i's statement, recorded as missing. Its commit writes the
// judge's file, the score or the record again, and, when it scored, the
// panel's score anew as the mean of every judge that has scored, with the
// derived files and debate.md.
func (d *debate) fillPanel(i int, j sm.Judge) (*sm.Step, error) {
	c, err := d.callFor(i)
	if err != nil {
		return nil, err
	}
	s := d.sched[i]
	target := d.sched[s.Target]
	p, _ := d.participant(target.Role)
	return sm.PanelRefill(stepKey(i, s), s.Exchange, c, RoleModerator, j, func(ans sm.Answer, now time.Time) (*sm.Commit, error) {
		own := Score{Message: target.Number, Participant: p.ID, Missing: ans.Missing}
		if ans.Missing == nil {
			marks, errs := ParseRubric(d.st.Criteria, ans.Text)
			if len(errs) > 0 {
				return nil, &sm.Refused{Reasons: prefixed("judge "+j.Name, errs), Role: s.Role, RoleReasons: errs, Answer: true}
			}
			own = newScore(d.st.Criteria, target.Number, p.ID, marks, string(ans.Text))
		}
		data, err := renderScore(d.out(), own)
		if err != nil {
			return nil, err
		}
		files := []sm.File{{Name: d.judgeScoreFile(j.Name, target), Data: data}}
		if own.Missing != nil {
			return &sm.Commit{Files: files, Events: []sm.Event{{Kind: "missing", Role: s.Role, ID: fmt.Sprintf("%03d", target.Number),
				Message: fmt.Sprintf("judge %s's score is still missing: no value invented", j.Name)}}}, nil
		}
		var names []string
		var scored []Score
		for _, pj := range d.panel {
			sc, ok := own, pj.Name == j.Name
			if !ok {
				if f := d.judges[pj.Name]; f != nil {
					sc, ok = f.scores[target.Number]
				}
			}
			if ok {
				names, scored = append(names, pj.Name), append(scored, sc)
			}
		}
		agg := PanelScore(d.st.Criteria, names, scored)
		total := agg.Total
		cm, err := d.refill(target, agg, sm.Event{Kind: "rated", Role: s.Role, ID: fmt.Sprintf("%03d", target.Number), Score: &total,
			Title:   fmt.Sprintf("judge %s scores %s's %s, asked again", j.Name, d.name(target.Role), d.label(target)),
			Message: fmt.Sprintf("the panel's score is now %.2f", total)})
		if err != nil {
			return nil, err
		}
		cm.Files = append(files, cm.Files...)
		return cm, nil
	}), nil
}

// judgeNames lists the names of the folders under judgments/, sorted.
func (d *debate) judgeNames() []string { return sm.SortedNames(d.judges, nil) }

// checkJudges adds to f what is wrong with the judges' scores (what is
// wrong with their folders, sm.Bench.Problems says): files of scores/
// that are not a score, scores of statements not scored (yet), totals
// that are not their rubric's, and official scores that are not the mean
// of the panel's judges who scored them. scored holds the numbers of the
// statements the debate has scored.
func (d *debate) checkJudges(f *sm.Findings, scored map[int]bool) {
	// panelOf[n] are the scores the panel's judges gave message n.
	panelOf := map[int][]Score{}
	panelNames := map[int][]string{}
	for _, name := range d.judgeNames() {
		jf := d.judges[name]
		f.Problems = append(f.Problems, jf.stray...)
		for _, n := range slices.Sorted(maps.Keys(jf.gaps)) {
			g := jf.gaps[n]
			t, ok := d.slotOf(n)
			switch {
			case !ok || !scored[n]:
				f.Problemf(g.file, "message %d is not scored yet, or is not a statement that is scored", n)
			case g.file != d.judgeScoreFile(name, t):
				f.Problemf(g.file, "should be %s", d.judgeScoreFile(name, t))
			}
		}
		for _, n := range slices.Sorted(maps.Keys(jf.scores)) {
			sc := jf.scores[n]
			t, ok := d.slotOf(n)
			if !ok || !scored[n] {
				f.Problemf(sc.file, "message %d is not scored yet, or is not a statement that is scored", n)
				continue
			}
			if want := d.judgeScoreFile(name, t); sc.file != want {
				f.Problemf(sc.file, "should be %s", want)
			}
			if p, _ := d.participant(t.Role); sc.Participant != p.ID {
				f.Problemf(sc.file, "participant is %s, but message %d is %s's", sc.Participant, n, p.ID)
			}
			before := len(f.Problems)
			d.checkScore(f, sc)
			if len(f.Problems) == before && jf.Record != nil && jf.Record.Kind == sm.KindPanel {
				panelOf[n] = append(panelOf[n], sc)
				panelNames[n] = append(panelNames[n], name)
			}
		}
	}
	for _, n := range slices.Sorted(maps.Keys(panelOf)) {
		official, ok := d.scores[n]
		if !ok {
			continue
		}
		want := PanelScore(d.st.Criteria, panelNames[n], panelOf[n])
		for _, c := range d.st.Criteria {
			got, has := official.Marks[c.Name]
			if has && math.Abs(got.Raw-want.Marks[c.Name].Raw) > 1e-6 {
				f.Problemf(official.file, "criteria.%s.raw is %g, but the mean of the panel's judges (%s) is %g",
					c.Name, got.Raw, strings.Join(panelNames[n], ", "), want.Marks[c.Name].Raw)
			}
		}
	}
}

// Rejudge returns the debate as its scoring again by r.Judge: a step per
// statement the debate has scored in exchanges r.From to r.To (-1: to
// the last), in order, each asking r.Judge alone the request the
// moderator got and writing only its folder, the first its record (from
// the first exchange scored again).
func (d *debate) Rejudge(r sm.Rejudging) (sm.Debate, error) {
	if err := r.Check(); err != nil {
		return nil, err
	}
	var done []int
	for i, s := range d.sched[:min(max(d.st.Step, 0), len(d.sched))] {
		if s.Kind == kindScore {
			done = append(done, i)
		}
	}
	if len(done) == 0 {
		return nil, errors.New("the debate has no scored statement to judge again")
	}
	first, last := d.sched[done[0]].Exchange, d.sched[done[len(done)-1]].Exchange
	from, to := r.Span(0, last)
	if from > last {
		return nil, fmt.Errorf("the debate has scored statements in exchanges %d to %d; --from %d is past them", first, last, r.From)
	}
	var slots []int
	for _, i := range done {
		if x := d.sched[i].Exchange; x >= from && x <= to {
			slots = append(slots, i)
		}
	}
	if len(slots) == 0 {
		return nil, fmt.Errorf("exchanges %d to %d have no scored statement; exchanges %d to %d have", from, to, first, last)
	}
	if err := sm.CheckRejudgeSeat(r, d.panel, sm.RecordOf(d.judges, r.Judge.Name)); err != nil {
		return nil, err
	}
	f := d.judges[r.Judge.Name]
	if f == nil {
		f = &judgeFolder{scores: map[int]Score{}}
	}
	return &rejudgeDebate{d: d, r: r, slots: slots, folder: f}, nil
}

// rejudgeDebate is a moderated debate being scored again.
type rejudgeDebate struct {
	d      *debate
	r      sm.Rejudging
	slots  []int // the score slots to do again, in order
	folder *judgeFolder
}

// judged reports whether the judge has scored the statement of score
// slot i.
func (rd *rejudgeDebate) judged(i int) bool {
	_, ok := rd.folder.scores[rd.d.sched[rd.d.sched[i].Target].Number]
	return ok
}

// missed reports whether the judge's score of the statement of slot i is
// recorded as missing (--keep-going).
func (rd *rejudgeDebate) missed(i int) bool {
	_, ok := rd.folder.gaps[rd.d.sched[rd.d.sched[i].Target].Number]
	return ok
}

var _ sm.Filler = (*rejudgeDebate)(nil)

// Gaps lists the re-judging's scores recorded as missing, in order.
func (rd *rejudgeDebate) Gaps() []string {
	var out []string
	for _, i := range rd.slots {
		if rd.missed(i) {
			out = append(out, rd.folder.gaps[rd.d.sched[rd.d.sched[i].Target].Number].Missing.Call)
		}
	}
	return out
}

// Fill asks the judge again for the score recorded as missing that gap
// names.
func (rd *rejudgeDebate) Fill(gap string) (*sm.Step, error) {
	for _, i := range rd.slots {
		if rd.missed(i) && rd.folder.gaps[rd.d.sched[rd.d.sched[i].Target].Number].Missing.Call == gap {
			return rd.step(i)
		}
	}
	return nil, fmt.Errorf("no score %q is missing", gap)
}

// units lists the exchanges of the slots, in order, and whether each is
// scored again in full.
func (rd *rejudgeDebate) units() ([]int, map[int]bool) {
	var xs []int
	whole := map[int]bool{}
	for _, i := range rd.slots {
		x := rd.d.sched[i].Exchange
		if _, seen := whole[x]; !seen {
			xs = append(xs, x)
			whole[x] = true
		}
		whole[x] = whole[x] && rd.judged(i)
	}
	return xs, whole
}

// Status counts the exchanges scored again.
func (rd *rejudgeDebate) Status() sm.Status {
	xs, whole := rd.units()
	st := sm.Status{Unit: "exchange", Total: len(xs), Phase: "judging again"}
	for _, x := range xs {
		if whole[x] {
			st.Done++
		}
	}
	left := 0
	next := -1
	missed := 0
	for _, i := range rd.slots {
		if rd.missed(i) {
			missed++
		}
		if !rd.judged(i) {
			if next < 0 && !rd.missed(i) {
				next = i
			}
			left++
		}
	}
	if next < 0 {
		st.Complete, st.Next = true, "nothing: every statement is scored again"
	} else {
		t := rd.d.sched[rd.d.sched[next].Target]
		st.Next = fmt.Sprintf("%s scores %s's %s again (message %03d)", rd.r.Judge.Model, rd.d.name(t.Role), rd.d.label(t), t.Number)
	}
	st.Lines = []sm.Line{{Label: "statements", Text: fmt.Sprintf("%d of %d scored again", len(rd.slots)-left, len(rd.slots))}}
	if missed > 0 {
		st.RetryMissing(missed, "score")
	}
	return st
}

// Check is the debate's own.
func (rd *rejudgeDebate) Check() sm.Findings { return rd.d.Check() }

// Next is the scoring again of the first statement not yet scored again.
func (rd *rejudgeDebate) Next() (*sm.Step, error) {
	k := slices.IndexFunc(rd.slots, func(i int) bool { return !rd.judged(i) && !rd.missed(i) })
	if k < 0 {
		return nil, nil
	}
	return rd.step(rd.slots[k])
}

// step is the scoring again of the statement of score slot i; with
// --keep-going it may be recorded as missing in the judge's folder.
func (rd *rejudgeDebate) step(i int) (*sm.Step, error) {
	c, err := rd.d.callFor(i)
	if err != nil {
		return nil, err
	}
	j := rd.r.Judge
	c = c.AskedOf(RoleModerator, j)
	c.Missable = true
	s := rd.d.sched[i]
	t := rd.d.sched[s.Target]
	// ends: every other statement of the exchange is scored again.
	ends := true
	for _, o := range rd.slots {
		if o != i && rd.d.sched[o].Exchange == s.Exchange && !rd.judged(o) && !rd.missed(o) {
			ends = false
		}
	}
	return rd.r.Step(stepKey(i, s), s.Exchange, c, rd.folder.Record, rd.d.sched[rd.slots[0]].Exchange, func(a sm.Answer, _ time.Time) (*sm.Commit, error) {
		p, _ := rd.d.participant(t.Role)
		sc := Score{Message: t.Number, Participant: p.ID, Missing: a.Missing}
		if a.Missing == nil {
			marks, errs := ParseRubric(rd.d.st.Criteria, a.Text)
			if len(errs) > 0 {
				return nil, &sm.Refused{Reasons: prefixed("judge "+j.Name, errs), Role: s.Role, RoleReasons: errs, Answer: true}
			}
			sc = newScore(rd.d.st.Criteria, t.Number, p.ID, marks, string(a.Text))
		}
		data, err := renderScore(rd.d.out(), sc)
		if err != nil {
			return nil, err
		}
		commit := &sm.Commit{Files: []sm.File{{Name: rd.d.judgeScoreFile(j.Name, t), Data: data}}}
		if a.Missing != nil {
			commit.Events = append(commit.Events, sm.Event{Kind: "missing", Role: s.Role, ID: fmt.Sprintf("%03d", t.Number), Ends: ends,
				Message: fmt.Sprintf("%s's score of %s's %s is recorded as missing: no value invented", j.Name, rd.d.name(t.Role), rd.d.label(t))})
			return commit, nil
		}
		total := sc.Total
		commit.Events = append(commit.Events, sm.Event{Kind: "rated", Role: s.Role, ID: fmt.Sprintf("%03d", t.Number), Score: &total,
			Title:   fmt.Sprintf("%s scores %s's %s again", j.Name, rd.d.name(t.Role), rd.d.label(t)),
			Message: fmt.Sprintf("%.2f", total), Ends: ends,
			Data: map[string]any{"message": t.Number, "participant": p.ID, "total": total, "judge": j.Name}})
		return commit, nil
	}), nil
}

// Judgments returns what the debate's judges made of its scored
// statements: the moderator's scores (with a panel, the panel's
// aggregate) and every judge with a folder. A statement is scored once,
// so a judge's first score is its last.
func (d *debate) Judgments() sm.Judgments {
	out := sm.Judgments{Unit: "exchange", Min: 0, Max: 10, FirstSpeaker: true}
	// opener[x] is the advocate who speaks first in exchange x.
	opener := map[int]string{}
	for _, s := range d.sched {
		if _, ok := opener[s.Exchange]; !ok && s.advocate() {
			opener[s.Exchange] = s.Role
		}
	}
	for _, s := range d.sched {
		if s.Kind != kindScore {
			continue
		}
		t := d.sched[s.Target]
		m, ok := d.messages[t.Number]
		if !ok {
			continue
		}
		side := "proposition"
		if t.Role == RoleB {
			side = "opposition"
		}
		out.Items = append(out.Items, sm.Item{ID: fmt.Sprintf("%03d", t.Number), Unit: t.Exchange,
			Title: d.name(t.Role) + ": " + d.label(t), Side: side, First: opener[t.Exchange] == t.Role,
			Length: len([]rune(m.Content))})
	}
	official := totalsOf(d.scores)
	official.Name, official.Model, official.Kind = "moderator", d.moderatorModel(), sm.KindOfficial
	if len(d.panel) > 0 {
		official.Name, official.Model = "panel", ""
	}
	out.AddOfficial(official, len(d.panel) > 0)
	sm.AddJudges(&out, d.judges, func(f *judgeFolder) sm.JudgeScores { return totalsOf(f.scores) })
	return out
}

// totalsOf is a judge's statement totals, by message id, as its first
// and final scores.
func totalsOf(scores map[int]Score) sm.JudgeScores {
	js := sm.JudgeScores{Final: map[string]float64{}, First: map[string]float64{}}
	for n, sc := range scores {
		id := fmt.Sprintf("%03d", n)
		js.Final[id], js.First[id] = sc.Total, sc.Total
	}
	return js
}

// moderatorModel is the moderator's model as debate.md's settings keep
// it; empty for a debate no moot run has scored.
func (d *debate) moderatorModel() string { return sm.RoleModel(d.front, RoleModerator) }

// panelText describes the panel for people: its judges and models.
func (d *debate) panelText() string {
	parts := make([]string, len(d.panel))
	for k, j := range d.panel {
		parts[k] = j.Name + " (" + j.Model + ")"
	}
	return strings.Join(parts, ", ")
}

// panelRule says, in a sentence for the derived files, who scores and how
// the panel's scores make the official ones.
func (d *debate) panelRule() string {
	return fmt.Sprintf("A panel of %d judges scores the statements: %s. A statement's official rubric is, for each criterion, the mean of the judges' scores rounded to two decimals, and its total is computed from those means; each judge's rubric is in %s/NAME/%s/.",
		len(d.panel), d.panelText(), sm.JudgmentsDir, ScoresDir)
}
