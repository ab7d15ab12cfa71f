package forum

import (
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"strings"
	"time"

	sm "github.com/moot-dev/moot/statemachine"
)

// A forum debate may be judged by a panel (debate.md's "judges") and
// judged again after the fact (moot rejudge). Every judge other than the
// debate's own keeps its calls in judgments/NAME/, in the debate's own
// format: calls/NNN_KIND_judge.md for each of its calls, numbered as the
// debate's, and verdict.md once it has announced its verdict. Each judge's
// conversation is rebuilt from its own files, and from the debate's for
// the calls made before it sat. How a panel's answers make the debate's
// own is in aggregate.go.

// readJudges reads the panel debate.md names and every judge's folder.
func (d *debate) readJudges(files fs.FS) error {
	b, err := sm.ReadBench(files, d.front)
	if err != nil {
		return err
	}
	d.panel = b.Panel
	d.benched = b.Problems(sm.FolderLayout{Owns: func(n string) bool { return n == CallsDir+"/" || n == VerdictFile }, Want: []string{CallsDir + "/", VerdictFile}})
	d.judges = map[string]*judgeFolder{}
	// Every folder, and every judge of the panel yet to sit, is read: a
	// folder without a record is read when its name is valid, so that
	// check can say so of one that holds a judge's calls.
	names := slices.Clone(b.Folders)
	for _, j := range b.Panel {
		names = append(names, j.Name)
	}
	for _, name := range names {
		rec := b.Records[name]
		if d.judges[name] != nil || (rec == nil && sm.CheckJudgeName(name) != nil) {
			continue
		}
		f, err := readJudgeFolder(files, name, b.Entries[name])
		if err != nil {
			return err
		}
		f.Record = rec
		d.judges[name] = f
	}
	return nil
}

// judgeFolder is one judge's folder as read.
type judgeFolder struct {
	sm.Seating
	// calls holds the judge's call files by the name the debate's own
	// file of the same call has (calls/NNN_KIND_judge.md).
	calls   map[string]*callFile
	verdict *callFile
	// stray lists the files and folders of its calls/ that are no call's
	// (what else its folder holds, sm.Bench.Problems checks).
	stray []string
}

// judgePath returns the path of the file name (such as a call's file) in
// the folder of the judge called judge.
func judgePath(judge, name string) string { return sm.JudgeFolder(judge) + "/" + name }

// readJudgeFolder reads the folder of the judge called name, which holds
// entries (sm.Bench.Entries): its verdict and its calls. A missing folder
// is an empty one.
func readJudgeFolder(files fs.FS, name string, entries []string) (*judgeFolder, error) {
	f := &judgeFolder{calls: map[string]*callFile{}}
	read := func(file string) (*callFile, error) {
		raw, err := fs.ReadFile(files, judgePath(name, file))
		if err != nil {
			return nil, fmt.Errorf("read %s: %w", judgePath(name, file), err)
		}
		return readCall(raw), nil
	}
	var err error
	if slices.Contains(entries, VerdictFile) {
		if f.verdict, err = read(VerdictFile); err != nil {
			return nil, err
		}
	}
	if !slices.Contains(entries, CallsDir+"/") {
		return f, nil
	}
	calls, err := sm.ListDir(files, judgePath(name, CallsDir))
	if err != nil {
		return nil, err
	}
	for _, n := range calls {
		file := CallsDir + "/" + n
		if !strings.HasSuffix(n, ".md") {
			f.stray = append(f.stray, file)
			continue
		}
		if f.calls[file], err = read(file); err != nil {
			return nil, err
		}
	}
	return f, nil
}

// judgeHistory gives what the judge called name has said: its own call
// files, and the debate's for the calls made before it sat.
func (d *debate) judgeHistory(name string) history {
	f := d.judges[name]
	return func(s slot) *callFile {
		if f != nil {
			if c := f.calls[s.File()]; c != nil {
				return c
			}
		}
		return d.file(s)
	}
}

// panelStep is the call of s asked of every judge of the panel, each with
// its own conversation.
func (d *debate) panelStep(s slot) (*sm.Step, error) {
	calls := make([]sm.Call, 0, len(d.panel))
	confirmed := make([]string, len(d.panel))
	for i, j := range d.panel {
		h := d.judgeHistory(j.Name)
		c, err := d.call(s, h)
		if err != nil {
			return nil, err
		}
		c = c.AskedOf(Judge, j)
		// A judge's evaluation or score may go missing (--keep-going):
		// the panel's aggregate is then that of the others.
		c.Missable = missable(s)
		confirmed[i] = d.confirmed(h)
		calls = append(calls, c)
	}
	return &sm.Step{
		Key: s.Key(), Unit: s.Turn, Calls: calls,
		Apply: func(answers map[string]sm.Answer, now time.Time) (*sm.Commit, error) {
			return d.applyPanel(s, answers, confirmed, now)
		},
	}, nil
}

// panelAnswer is one judge's accepted answer to a call.
type panelAnswer struct {
	judge sm.Judge
	meta  callMeta
	text  string
	// verdict is the judge's verdict, for the verdict call.
	verdict *verdictState
}

// applyPanel commits the panel's answers to s: each judge's call file in
// its folder, the panel's aggregate as the debate's own. One answer that
// breaks a rule refuses the step.
func (d *debate) applyPanel(s slot, answers map[string]sm.Answer, confirmed []string, now time.Time) (*sm.Commit, error) {
	if d.st.Calls >= len(d.slots) || d.slots[d.st.Calls] != s {
		return nil, &sm.Refused{Reasons: []string{fmt.Sprintf("the debate is not waiting for call %d", s.Seq)}}
	}
	got := make([]panelAnswer, len(d.panel))
	var refused *sm.Refused
	for i, j := range d.panel {
		a, ok := answers[sm.PanelCallID(Judge, j.Name)]
		if !ok {
			return nil, &sm.Refused{Reasons: []string{"no answer for the judge " + j.Name}}
		}
		m, text, v, errs := d.answerOf(s, a, confirmed[i])
		if len(errs) > 0 {
			r := refusal(Judge, "judge "+j.Name, errs)
			if refused == nil {
				refused = r
			} else {
				refused.Reasons = append(refused.Reasons, r.Reasons...)
			}
			continue
		}
		got[i] = panelAnswer{judge: j, meta: m, text: text, verdict: v}
	}
	if refused != nil {
		return nil, refused
	}
	c := &sm.Commit{}
	verdictSlot, _ := d.slotOf(kindVerdict, d.st.Turns+1)
	for _, g := range got {
		name := g.judge.Name
		c.Files = sm.FirstRecord(c.Files, sm.RecordOf(d.judges, name), g.judge, sm.KindPanel, s.Turn, -1, now)
		data, err := renderCall(g.meta, g.text)
		if err != nil {
			return nil, err
		}
		c.Files = append(c.Files, sm.File{Name: judgePath(name, s.File()), Data: data})
		if s.Kind == kindAnnouncement {
			v := d.verdictOf(d.judgeHistory(name)(verdictSlot))
			if v == nil {
				return nil, &sm.Refused{Reasons: []string{"judge " + name + " announces a verdict it has not given"}}
			}
			data, err := d.verdictFile(v, s.Turn, g.meta.Model, g.meta.Attempts, g.text, nil)
			if err != nil {
				return nil, err
			}
			c.Files = append(c.Files, sm.File{Name: judgePath(name, VerdictFile), Data: data})
		}
	}
	st := d.nextState()
	m, text, ev, err := d.aggregate(s, got, &st)
	if err != nil {
		return nil, err
	}
	data, err := renderCall(m, text)
	if err != nil {
		return nil, err
	}
	c.Files = append(c.Files, sm.File{Name: s.File(), Data: data})
	if s.Kind == kindAnnouncement {
		official := d.file(verdictSlot)
		data, err := d.verdictFile(st.Verdict, s.Turn, m.Model, m.Attempts, text, func(vm *callMeta) {
			if official != nil {
				vm.PanelMeans, vm.Panel = official.meta.PanelMeans, official.meta.Panel
			}
		})
		if err != nil {
			return nil, err
		}
		c.Files = append(c.Files, sm.File{Name: VerdictFile, Data: data})
	}
	c.Events = append(c.Events, ev)
	st.Calls = s.Seq
	return d.commitState(st, s, c)
}

// spoken is how many turns have their speech on file.
func (d *debate) spoken() int {
	n := 0
	for _, s := range d.slots {
		if s.Kind == kindSpeech && s.Seq <= d.st.Calls {
			n = s.Turn
		}
	}
	return n
}

// lastJudgeable is the last unit a judge can judge now: the last turn
// spoken, or the verdict once every turn is spoken.
func (d *debate) lastJudgeable() int {
	n := d.spoken()
	if n == d.st.Turns && d.st.Judge != nil {
		return n + 1
	}
	return n
}

// judgeable reports whether a judge can make the call of s now: the turn
// it judges is spoken, or, for the verdict, every turn.
func (d *debate) judgeable(s slot) bool { return s.Turn <= d.lastJudgeable() }

// checkJudges adds to f what is wrong with the panel and the judges'
// folders.
func (d *debate) checkJudges(f *sm.Findings) {
	if len(d.panel) > 0 && d.st.Judge == nil {
		f.Problemf(sm.StateFile, "%s: the debate has no judge (its cast has no audience), so no panel can judge it", sm.PanelKey)
	}
	f.Problems = append(f.Problems, d.benched...)
	bySlot := map[string]slot{}
	var judgeSlots []slot
	for _, s := range d.slots {
		if s.Role == Judge {
			bySlot[s.File()] = s
			judgeSlots = append(judgeSlots, s)
		}
	}
	verdictSlot, _ := d.slotOf(kindVerdict, d.st.Turns+1)
	announce, _ := d.slotOf(kindAnnouncement, d.st.Turns+1)
	for _, name := range sortedKeys(d.judges) {
		jf := d.judges[name]
		rec := jf.Record
		if rec == nil {
			// A folder without its record: sm.Bench.Problems says so.
			continue
		}
		for _, n := range jf.stray {
			f.Problemf(judgePath(name, n), "is not a judge's call (want %s/NNN_KIND_judge.md)", CallsDir)
		}
		for _, file := range sortedKeys(jf.calls) {
			path := judgePath(name, file)
			s, ok := bySlot[file]
			if !ok {
				f.Problemf(path, "is not a call of the judge in this debate")
				continue
			}
			for _, msg := range checkCall(s, jf.calls[file]) {
				f.Problemf(path, "%s", msg)
			}
			switch {
			case rec.Kind == sm.KindPanel && s.Seq > d.st.Calls:
				f.Problemf(path, "is a call the debate has not made yet (it has made %d)", d.st.Calls)
			case rec.Kind == sm.KindRejudge && !d.judgeable(s):
				f.Problemf(path, "judges turn %d, which is not spoken yet", s.Turn)
			}
		}
		if rec.Kind == sm.KindRejudge {
			// A re-judging makes its calls in order, from its first.
			var missing string
			for _, s := range judgeSlots {
				if s.Turn < max(rec.From, 1) || (rec.To != nil && s.Turn > *rec.To) {
					continue
				}
				if _, ok := jf.calls[s.File()]; !ok {
					if missing == "" {
						missing = s.File()
					}
				} else if missing != "" {
					f.Problemf(judgePath(name, s.File()), "is there, but the judge's earlier %s is missing", missing)
				}
			}
		}
		_, announced := jf.calls[announce.File()]
		switch {
		case jf.verdict != nil && !announced:
			f.Problemf(judgePath(name, VerdictFile), "is there before the judge announced its verdict")
		case jf.verdict == nil && announced:
			f.Problemf(judgePath(name, VerdictFile), "is missing: the judge has announced its verdict")
		case jf.verdict != nil:
			if v := d.verdictOf(d.judgeHistory(name)(verdictSlot)); v == nil || jf.verdict.meta.WinnerSide != v.Winner {
				f.Problemf(judgePath(name, VerdictFile), "names a winner the judge's verdict does not")
			}
		}
	}
	// The debate's own files of the calls a panel answered agree with
	// the judges' own.
	for _, s := range judgeSlots {
		c := d.file(s)
		if c == nil || c.err != nil || len(c.meta.Panel) == 0 {
			continue
		}
		var scores []int
		for _, v := range c.meta.Panel {
			jf := d.judges[v.Judge]
			var own *callFile
			if jf != nil {
				own = jf.calls[s.File()]
			}
			if own == nil {
				f.Problemf(s.File(), "lists judge %s, but %s is missing", v.Judge, judgePath(v.Judge, s.File()))
				continue
			}
			if v.Missing != (own.meta.Missing != nil) {
				f.Problemf(s.File(), "panel: judge %s is %s, but %s says otherwise", v.Judge, map[bool]string{true: "missing", false: "not missing"}[v.Missing], judgePath(v.Judge, s.File()))
				continue
			}
			if v.Missing {
				continue
			}
			switch s.Kind {
			case kindScore:
				if v.Score == nil || own.meta.Score == nil || *v.Score != *own.meta.Score {
					f.Problemf(s.File(), "panel: judge %s's score is not the one %s gives", v.Judge, judgePath(v.Judge, s.File()))
					continue
				}
				scores = append(scores, *v.Score)
			case kindVerdict:
				if v.Winner != own.meta.Winner {
					f.Problemf(s.File(), "panel: judge %s's winner is not the one %s names", v.Judge, judgePath(v.Judge, s.File()))
				}
			}
		}
		if s.Kind == kindScore && len(scores) == len(c.meta.Panel)-missingVotes(c.meta.Panel) && len(scores) > 0 && c.meta.Score != nil {
			mean := meanOf(scores)
			if *c.meta.Score != roundHalfUp(mean) || c.meta.PanelMean == nil || *c.meta.PanelMean != round3(mean) {
				f.Problemf(s.File(), "score: the panel's mean is %s, so the score is %d (panel_mean %s)", formatMean(mean), roundHalfUp(mean), formatMean(mean))
			}
		}
	}
}

// Rejudge returns the debate as its judging again by r.Judge: every call
// of the judge of the turns from r.From to r.To (-1: to the last spoken;
// the unit after the last turn is the verdict), asked of r.Judge alone,
// which sees the saved speeches and its own earlier answers (for calls
// before r.From, the debate's own judge's), each call a step writing only
// its folder.
func (d *debate) Rejudge(r sm.Rejudging) (sm.Debate, error) {
	if err := r.Check(); err != nil {
		return nil, err
	}
	if d.st.Judge == nil {
		return nil, errors.New("the debate has no judge (its cast has no audience), so there is no judgment to make again")
	}
	last := d.lastJudgeable()
	if last < 1 {
		return nil, errors.New("the debate has no turn spoken yet to judge")
	}
	from, to := r.Span(1, last)
	if from > last {
		return nil, fmt.Errorf("the debate can be judged on turns 1 to %d (turn %d being the verdict); --from %d is past them", last, d.st.Turns+1, r.From)
	}
	if to < from {
		return nil, fmt.Errorf("--to %d is before the first turn judged, %d", r.To, from)
	}
	if err := sm.CheckRejudgeSeat(r, d.panel, sm.RecordOf(d.judges, r.Judge.Name)); err != nil {
		return nil, err
	}
	f := d.judges[r.Judge.Name]
	if f == nil {
		f = &judgeFolder{calls: map[string]*callFile{}}
	}
	return &rejudgeDebate{d: d, r: r, from: from, to: to, folder: f}, nil
}

// rejudgeDebate is a forum debate being judged again.
type rejudgeDebate struct {
	d        *debate
	r        sm.Rejudging
	from, to int
	folder   *judgeFolder
}

// slots are the judge's calls of the re-judging, in order.
func (x *rejudgeDebate) slots() []slot {
	var out []slot
	for _, s := range x.d.slots {
		if s.Role == Judge && s.Turn >= x.from && s.Turn <= x.to {
			out = append(out, s)
		}
	}
	return out
}

// next is the first call of the re-judging the judge has not made.
func (x *rejudgeDebate) next() (slot, bool) {
	for _, s := range x.slots() {
		if x.folder.calls[s.File()] == nil {
			return s, true
		}
	}
	return slot{}, false
}

func (x *rejudgeDebate) Status() sm.Status {
	missing := map[int]bool{}
	for _, s := range x.slots() {
		if x.folder.calls[s.File()] == nil {
			missing[s.Turn] = true
		}
	}
	st := sm.Status{Unit: "turn", Done: x.to - x.from + 1 - len(missing), Total: x.to - x.from + 1, Phase: "judging again"}
	gaps := len(x.Gaps())
	if s, ok := x.next(); ok {
		st.Next = fmt.Sprintf("%s, judging again: %s", x.r.Judge.Model, x.d.describe(s))
	} else {
		st.Complete, st.Next = true, "nothing: every turn is judged again"
	}
	if gaps > 0 {
		st.RetryMissing(gaps, "call")
	}
	return st
}

func (x *rejudgeDebate) Check() sm.Findings { return x.d.Check() }

func (x *rejudgeDebate) Next() (*sm.Step, error) {
	s, ok := x.next()
	if !ok {
		return nil, nil
	}
	return x.step(s)
}

var _ sm.Filler = (*rejudgeDebate)(nil)

// missed is the re-judging's file of the call of s when it is recorded
// as missing (--keep-going), else nil.
func (x *rejudgeDebate) missed(s slot) *callFile {
	if f := x.folder.calls[s.File()]; f != nil && f.err == nil && f.meta.Missing != nil {
		return f
	}
	return nil
}

// Gaps lists the re-judging's calls recorded as missing, in order.
func (x *rejudgeDebate) Gaps() []string {
	var out []string
	for _, s := range x.slots() {
		if f := x.missed(s); f != nil {
			out = append(out, f.meta.Missing.Call)
		}
	}
	return out
}

// Fill asks the judge again for the call recorded as missing that gap
// names, with the conversation it had then.
func (x *rejudgeDebate) Fill(gap string) (*sm.Step, error) {
	for _, s := range x.slots() {
		if f := x.missed(s); f != nil && f.meta.Missing.Call == gap {
			return x.step(s)
		}
	}
	return nil, fmt.Errorf("no call %q is missing", gap)
}

// step is the step of the re-judging that asks its judge for the call of
// s and writes the answer in its folder.
func (x *rejudgeDebate) step(s slot) (*sm.Step, error) {
	name := x.r.Judge.Name
	h := x.d.judgeHistory(name)
	c, err := x.d.call(s, h)
	if err != nil {
		return nil, err
	}
	c.Model = x.r.Judge.Model
	c.Missable = missable(s)
	confirmed := x.d.confirmed(h)
	return x.r.Step(s.Key(), s.Turn, c, x.folder.Record, x.r.From, func(a sm.Answer, _ time.Time) (*sm.Commit, error) {
		m, text, _, errs := x.d.answerOf(s, a, confirmed)
		if len(errs) > 0 {
			return nil, refusal(Judge, Judge, errs)
		}
		data, err := renderCall(m, text)
		if err != nil {
			return nil, err
		}
		cm := &sm.Commit{Files: []sm.File{{Name: judgePath(name, s.File()), Data: data}}}
		if s.Kind == kindAnnouncement {
			vs, _ := x.d.slotOf(kindVerdict, x.d.st.Turns+1)
			v := x.d.verdictOf(h(vs))
			if v == nil {
				return nil, &sm.Refused{Reasons: []string{"the judge announces a verdict it has not given"}}
			}
			data, err := x.d.verdictFile(v, s.Turn, m.Model, m.Attempts, text, nil)
			if err != nil {
				return nil, err
			}
			cm.Files = append(cm.Files, sm.File{Name: judgePath(name, VerdictFile), Data: data})
		}
		ev := x.d.event(s, m)
		ev.Title = "judged again by " + name + ": " + ev.Title
		all := x.slots()
		ev.Ends = s == all[len(all)-1] || x.d.slots[s.Seq].Turn != s.Turn
		cm.Events = append(cm.Events, ev)
		return cm, nil
	}), nil
}

// Judgments returns what the debate's judges made of its turns: each
// spoken turn is an item, of the round of two turns it belongs to (A's
// then B's), scored by the running score the judge gave its speaker after
// it. The debate's own judge (with a panel, the panel's aggregate, its
// unrounded mean) and every judge with a folder are listed.
func (d *debate) Judgments() sm.Judgments {
	out := sm.Judgments{Unit: "round", Min: 0, Max: 10, FirstSpeaker: true}
	ids := map[int]string{}
	for t := 1; t <= d.spoken(); t++ {
		s, _ := d.slotOf(kindSpeech, t)
		body := ""
		if f := d.file(s); f != nil {
			body = f.body
		}
		side := "proposition"
		if s.Role == Against {
			side = "opposition"
		}
		ids[t] = fmt.Sprintf("%03d", s.Seq)
		out.Items = append(out.Items, sm.Item{
			ID: ids[t], Unit: (t + 1) / 2, Title: fmt.Sprintf("turn %d: %s (%s)", t, d.st.name(s.Role), sideWord(s.Role)),
			Side: side, First: s.Role == d.st.a(), Length: len([]rune(body)),
		})
	}
	if d.st.Judge == nil {
		return out
	}
	scoresOf := func(h history) sm.JudgeScores {
		js := sm.JudgeScores{Final: map[string]float64{}, First: map[string]float64{}}
		for _, s := range d.slots {
			id, ok := ids[s.Turn]
			if s.Kind != kindScore || !ok {
				continue
			}
			f := h(s)
			if f == nil || f.err != nil || f.meta.Score == nil {
				continue
			}
			v := float64(*f.meta.Score)
			if f.meta.PanelMean != nil {
				v = *f.meta.PanelMean
			}
			js.Final[id], js.First[id] = v, v
		}
		return js
	}
	official := scoresOf(d.file)
	official.Name, official.Model, official.Kind = "debate", d.judgeModel(), sm.KindOfficial
	out.AddOfficial(official, len(d.panel) > 0)
	sm.AddJudges(&out, d.judges, func(f *judgeFolder) sm.JudgeScores {
		return scoresOf(func(s slot) *callFile { return f.calls[s.File()] })
	})
	return out
}

// judgeModel is the model of the judge's last call on file, else its
// persona's.
func (d *debate) judgeModel() string {
	m := ""
	for _, s := range d.slots {
		if f := d.file(s); s.Role == Judge && f != nil && f.meta.Model != "" {
			m = f.meta.Model
		}
	}
	if m == "" && d.st.Judge != nil {
		m = d.st.Judge.Model
	}
	return m
}

// panelMissing is the record of the debate's own file of call s when no
// judge of the panel, on models, answered it: every judge's refused
// answers, in the panel's order, each problem under its judge's name.
func panelMissing(s slot, models []string, gaps []panelAnswer) *sm.Missing {
	each := make([]*sm.Missing, len(gaps))
	for i, g := range gaps {
		each[i] = g.meta.Missing.Of("judge " + g.judge.Name)
	}
	return sm.PanelMissing(s.Key()+"/"+Judge, Judge, "panel: "+strings.Join(models, ", "), each)
}

// panelGap is the answer of a panel's judge to the call of slot recorded
// as missing: the judge, and the call its record names.
type panelGap struct {
	slot  slot
	judge sm.Judge
	call  string
}

// panelGapsOf lists the judges of the panel whose answer to s, whose
// file f the panel answered, is recorded as missing in their folders, in
// the order f lists them.
func (d *debate) panelGapsOf(s slot, f *callFile) []panelGap {
	var out []panelGap
	for _, v := range f.meta.Panel {
		jf := d.judges[v.Judge]
		if !v.Missing || jf == nil {
			continue
		}
		if own := jf.calls[s.File()]; own != nil && own.err == nil && own.meta.Missing != nil {
			out = append(out, panelGap{slot: s, judge: d.panelJudge(v), call: own.meta.Missing.Call})
		}
	}
	return out
}

// panelJudge is the judge of vote v: the panel's, else the one its
// folder's record names, else the model that answered.
func (d *debate) panelJudge(v vote) sm.Judge {
	for _, j := range d.panel {
		if j.Name == v.Judge {
			return j
		}
	}
	if rec := sm.RecordOf(d.judges, v.Judge); rec != nil {
		return sm.Judge{Name: v.Judge, Model: rec.Model}
	}
	return sm.Judge{Name: v.Judge, Model: v.Model}
}

// fillPanel is the step that asks the judge of g alone again for its
// answer recorded as missing, with the conversation it had then. Its
// commit writes the judge's file, answered or missing again, and makes
// the panel's file of the call anew from every judge's file, with the
// running score its target has then.
func (d *debate) fillPanel(g panelGap) (*sm.Step, error) {
	s, j := g.slot, g.judge
	c, err := d.call(s, d.judgeHistory(j.Name))
	if err != nil {
		return nil, err
	}
	return sm.PanelRefill(s.Key(), s.Turn, c, Judge, j, func(a sm.Answer, now time.Time) (*sm.Commit, error) {
		m, text, _, errs := d.answerOf(s, a, "")
		if len(errs) > 0 {
			return nil, refusal(Judge, "judge "+j.Name, errs)
		}
		own, err := renderCall(m, text)
		if err != nil {
			return nil, err
		}
		official := d.file(s)
		got := make([]panelAnswer, len(official.meta.Panel))
		for i, v := range official.meta.Panel {
			pj := d.panelJudge(v)
			if v.Judge == j.Name {
				got[i] = panelAnswer{judge: pj, meta: m, text: text}
				continue
			}
			var f *callFile
			if jf := d.judges[v.Judge]; jf != nil {
				f = jf.calls[s.File()]
			}
			if f == nil || f.err != nil {
				return nil, &sm.Refused{Reasons: []string{fmt.Sprintf("%s lists judge %s, whose %s cannot be read", s.File(), v.Judge, judgePath(v.Judge, s.File()))}}
			}
			got[i] = panelAnswer{judge: pj, meta: f.meta, text: f.body}
		}
		st := d.nextState()
		am, atext, ev, err := d.aggregate(s, got, &st)
		if err != nil {
			return nil, err
		}
		data, err := renderCall(am, atext)
		if err != nil {
			return nil, err
		}
		if m.Missing != nil {
			ev.Kind, ev.Message = "missing", fmt.Sprintf("judge %s's answer is still missing: no value invented", j.Name)
		} else {
			ev.Title = fmt.Sprintf("judge %s, asked again: %s", j.Name, ev.Title)
		}
		return d.refill(s, am, []sm.File{{Name: judgePath(j.Name, s.File()), Data: own}, {Name: s.File(), Data: data}}, ev)
	}), nil
}
