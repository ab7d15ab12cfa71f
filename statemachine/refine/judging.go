package refine

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/moot-dev/moot/internal/frontmatter"
	sm "github.com/moot-dev/moot/statemachine"
)

// A refine debate may be judged by a panel (debate.md's "judges") and
// judged again after the fact (moot rejudge). Its judge scores one thing,
// the final answer, once; so a panel's judges are asked once, in
// parallel, with the prompt the debate's judge would have had, and every
// judge other than the debate's own keeps its score in
// judgments/NAME/score.json, in the format of score.json.
//
// The official score.json of a debate a panel judged is the panel's
// aggregate (PanelScore): each criterion's mark is the mean of the
// judges' marks, rounded to two decimals; the weighted score is computed
// from those means as for one judge; and the score is the weighted score
// rounded to the nearest whole number, halves up.

// JudgeScoreFile returns the path of the score of the judge called name.
func JudgeScoreFile(name string) string { return sm.JudgeFolder(name) + "/" + ScoreFile }

// judgeFolder is one folder under judgments/ as read: its record (nil
// when it has none) and its score (nil when it has none).
type judgeFolder struct {
	sm.Seating
	score *Score
	// gap, when not nil, is the judge's score recorded as missing (moot
	// run --keep-going); score is then nil.
	gap *MissingScore
}

// readJudges reads the panel debate.md names and every folder under
// judgments/. A score that does not parse, and what is wrong with the
// folders (sm.Bench.Problems), are problems for Check; a record that does
// not parse is an error, as for every protocol.
func (d *debate) readJudges(files fs.FS) error {
	b, err := sm.ReadBench(files, d.front)
	if err != nil {
		return err
	}
	d.panel = b.Panel
	d.problems = append(d.problems, b.Problems(sm.FolderLayout{Owns: func(n string) bool { return n == ScoreFile }, Want: []string{ScoreFile}})...)
	d.judges, err = sm.EachFolder(b, func(name string, rec *sm.JudgeRecord) (*judgeFolder, error) {
		return d.readJudgeFolder(files, name, rec)
	})
	return err
}

// readJudgeFolder reads the folder of the judge called name, whose record
// is rec, adding to the debate's problems a score that does not parse.
func (d *debate) readJudgeFolder(files fs.FS, name string, rec *sm.JudgeRecord) (*judgeFolder, error) {
	f := &judgeFolder{Seating: sm.Seating{Record: rec}}
	file := JudgeScoreFile(name)
	data, err := fs.ReadFile(files, file)
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return nil, fmt.Errorf("read %s: %w", file, err)
	default:
		var s Score
		var gap MissingScore
		if err := frontmatter.Unmarshal(data, &gap); err == nil && gap.Missing != nil {
			f.gap = &gap
		} else if err := frontmatter.Unmarshal(data, &s); err != nil {
			d.problems = append(d.problems, sm.Problem{File: file, Message: frontmatter.JSONError(err).Error()})
		} else {
			f.score = &s
		}
	}
	return f, nil
}

// synthesisUnit is the unit of the synthesis and its score: the one after
// the last round.
func (d *debate) synthesisUnit() int { return d.roundsDone() + 1 }

// panelStep is the score of the final answer by the debate's panel: the
// judge's call asked of every judge on its own model, in parallel.
func (d *debate) panelStep(step *sm.Step) (*sm.Step, error) {
	for _, j := range d.panel {
		if f := d.judges[j.Name]; f != nil && (f.Record != nil || f.score != nil) {
			return nil, fmt.Errorf("%s already holds a judgment, so the panel's judge %s (%s) cannot write there: move it away or choose other models", sm.JudgeFolder(j.Name), j.Name, j.Model)
		}
	}
	base, err := d.scoreCall()
	if err != nil {
		return nil, err
	}
	panel := slices.Clone(d.panel)
	step.Calls = append(step.Calls, sm.PanelCalls(base, RoleJudge, panel)...)
	step.Key = "score"
	step.Apply = func(answers map[string]sm.Answer, now time.Time) (*sm.Commit, error) {
		if d.st.Phase != phaseScore {
			return nil, &sm.Refused{Reasons: []string{fmt.Sprintf("the debate is at %s, not %s", d.st.Phase, phaseScore)}}
		}
		return d.applyPanel(panel, answers, now)
	}
	return step, nil
}

// stamp records on s how its answer came: model, requests, time.
func stamp(s *Score, ans sm.Answer, at string) {
	s.Model, s.Attempts, s.ElapsedMS, s.Time = ans.Model, ans.Attempts, ms(ans.Elapsed), at
	s.Parse = "json"
	if ans.Attempts > 1 {
		s.Parse = "repaired"
	}
}

// renderScore is score.json's text.
func renderScore(s *Score) ([]byte, error) {
	raw, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(raw, '\n'), nil
}

// applyPanel commits the panel's scores: each judge's in its folder with
// its record, and their aggregate as score.json. Every answer is read
// before anything is written: one that breaks a rule refuses the step.
func (d *debate) applyPanel(panel []sm.Judge, answers map[string]sm.Answer, now time.Time) (*sm.Commit, error) {
	at := now.UTC().Format(sm.TimeLayout)
	scores := make([]*Score, len(panel))
	gaps := make([]*MissingScore, len(panel))
	refusal := &sm.Refused{Answer: true}
	for i, j := range panel {
		ans, ok := answers[sm.PanelCallID(RoleJudge, j.Name)]
		var errs []string
		if ok && ans.Missing != nil {
			gaps[i] = &MissingScore{Missing: ans.Missing, Model: ans.Model, Attempts: ans.Attempts, ElapsedMS: ms(ans.Elapsed), Time: at}
			continue
		}
		if !ok {
			errs = []string{"no answer"}
		} else {
			scores[i], errs = ParseScore(ans.Text)
		}
		if len(errs) > 0 {
			refusal.AddJudge(RoleJudge, j.Name, errs)
			continue
		}
		stamp(scores[i], ans, at)
	}
	if len(refusal.Reasons) > 0 {
		return nil, refusal
	}
	c := &sm.Commit{}
	unit := d.synthesisUnit()
	perJudge := map[string]any{}
	var scoredJudges []sm.Judge
	var scored []*Score
	var roll []PanelJudge
	for i, j := range panel {
		var data []byte
		var err error
		if gaps[i] != nil {
			data, err = json.MarshalIndent(gaps[i], "", "  ")
			data = append(data, '\n')
			perJudge[j.Name] = nil
			roll = append(roll, PanelJudge{Name: j.Name, Model: j.Model, Missing: true})
		} else {
			data, err = renderScore(scores[i])
			perJudge[j.Name] = scores[i].Score
			scoredJudges, scored = append(scoredJudges, j), append(scored, scores[i])
			roll = append(roll, PanelJudge{Name: j.Name, Model: j.Model, Score: scores[i].Score, WeightedScore: scores[i].WeightedScore})
		}
		if err != nil {
			return nil, fmt.Errorf("render %s: %w", JudgeScoreFile(j.Name), err)
		}
		c.Files = append(c.Files, sm.NewJudgeRecord(j, sm.KindPanel, unit, -1, now), sm.File{Name: JudgeScoreFile(j.Name), Data: data})
	}
	if len(scored) == 0 {
		// No judge scored: the panel's score is missing too.
		each := make([]*sm.Missing, len(gaps))
		for i, g := range gaps {
			each[i] = g.Missing
		}
		m := sm.PanelMissing("score/"+RoleJudge, RoleJudge, "panel", each)
		missing, err := d.applyMissingScore(sm.Answer{Missing: m, Model: "panel"}, now)
		if err != nil {
			return nil, err
		}
		// The record lists the panel, its files first.
		var gap MissingScore
		if err := json.Unmarshal(missing.Files[0].Data, &gap); err != nil {
			return nil, err
		}
		gap.Panel = roll
		raw, err := json.MarshalIndent(gap, "", "  ")
		if err != nil {
			return nil, err
		}
		missing.Files[0].Data = append(raw, '\n')
		missing.Files = append(c.Files, missing.Files...)
		return missing, nil
	}
	agg := PanelScore(scoredJudges, scored)
	agg.Panel = roll
	agg.Time = at
	data, err := renderScore(agg)
	if err != nil {
		return nil, fmt.Errorf("render %s: %w", ScoreFile, err)
	}
	c.Files = append(c.Files, sm.File{Name: ScoreFile, Data: data})
	next := d.clone()
	next.score = agg
	next.st.Phase = phaseComplete
	state, err := next.renderState()
	if err != nil {
		return nil, err
	}
	c.Files = append(c.Files, sm.File{Name: sm.StateFile, Data: state})
	sc := float64(agg.Score)
	c.Events = append(c.Events, sm.Event{Kind: "scored", Role: RoleJudge, Score: &sc, Ends: true,
		Message: fmt.Sprintf("the panel of %d judges scored the answer %d/10 (weighted criteria %.2f)", len(panel), agg.Score, agg.WeightedScore),
		Data:    map[string]any{"score": agg.Score, "weighted_score": agg.WeightedScore, "judges": perJudge}})
	return c, nil
}

// panelRoll is the panel as the score names it, each judge scored or
// missing; nil when no panel scored.
func (d *debate) panelRoll() []PanelJudge {
	switch {
	case d.score != nil && len(d.score.Panel) > 0:
		return d.score.Panel
	case d.scoreGap != nil:
		return d.scoreGap.Panel
	}
	return nil
}

// fillPanel is the step that asks the panel judge j again for its score
// recorded as missing. Its commit writes the judge's score.json, the
// score or the record again, and the panel's score.json anew from every
// judge that has scored.
func (d *debate) fillPanel(j sm.Judge) (*sm.Step, error) {
	c, err := d.scoreCall()
	if err != nil {
		return nil, err
	}
	roll := slices.Clone(d.panelRoll())
	return sm.PanelRefill(scoreStep, d.unit(), c, RoleJudge, j, func(ans sm.Answer, now time.Time) (*sm.Commit, error) {
		at := now.UTC().Format(sm.TimeLayout)
		if ans.Missing != nil {
			// Refused again: the judge's record stays, with this
			// run's answers; the panel's score is as it was.
			data, err := json.MarshalIndent(&MissingScore{Missing: ans.Missing, Model: ans.Model, Attempts: ans.Attempts, ElapsedMS: ms(ans.Elapsed), Time: at}, "", "  ")
			if err != nil {
				return nil, err
			}
			return &sm.Commit{Files: []sm.File{{Name: JudgeScoreFile(j.Name), Data: append(data, '\n')}},
				Events: []sm.Event{{Kind: "missing", Role: RoleJudge, Message: fmt.Sprintf("judge %s's score is still missing: no value invented", j.Name)}}}, nil
		}
		own, errs := ParseScore(ans.Text)
		if len(errs) > 0 {
			return nil, refused(RoleJudge, errs)
		}
		stamp(own, ans, at)
		data, err := renderScore(own)
		if err != nil {
			return nil, fmt.Errorf("render %s: %w", JudgeScoreFile(j.Name), err)
		}
		cm := &sm.Commit{Files: []sm.File{{Name: JudgeScoreFile(j.Name), Data: data}}}
		var scoredJudges []sm.Judge
		var scored []*Score
		for i, p := range roll {
			s := own
			if p.Name != j.Name {
				if f := d.judges[p.Name]; f != nil {
					s = f.score
				} else {
					s = nil
				}
			}
			if s == nil {
				roll[i] = PanelJudge{Name: p.Name, Model: p.Model, Missing: true}
				continue
			}
			roll[i] = PanelJudge{Name: p.Name, Model: p.Model, Score: s.Score, WeightedScore: s.WeightedScore}
			scoredJudges, scored = append(scoredJudges, sm.Judge{Name: p.Name, Model: p.Model}), append(scored, s)
		}
		agg := PanelScore(scoredJudges, scored)
		agg.Panel, agg.Time = roll, at
		if data, err = renderScore(agg); err != nil {
			return nil, fmt.Errorf("render %s: %w", ScoreFile, err)
		}
		cm.Files = append(cm.Files, sm.File{Name: ScoreFile, Data: data})
		next := d.clone()
		next.score, next.scoreGap = agg, nil
		state, err := next.renderState()
		if err != nil {
			return nil, err
		}
		cm.Files = append(cm.Files, sm.File{Name: sm.StateFile, Data: state})
		sc := float64(agg.Score)
		cm.Events = append(cm.Events, sm.Event{Kind: "scored", Role: RoleJudge, Score: &sc,
			Message: fmt.Sprintf("judge %s scored the answer %d/10, asked again; the panel's score is %d/10", j.Name, own.Score, agg.Score),
			Data:    map[string]any{"score": agg.Score, "weighted_score": agg.WeightedScore}})
		return cm, nil
	}), nil
}

// round2 rounds x to two decimals.
func round2(x float64) float64 { return math.Round(x*100)/100 + 0 }

// PanelScore is the official score of a panel whose judges gave scores,
// in the panel's order: each criterion's mark the mean of theirs, to two
// decimals; the weighted score Weighted of those means; the score the
// weighted score rounded to the nearest whole number, halves up; the
// finetune flag set when more than half the judges set it. Attempts adds
// up the judges' requests and ElapsedMS is the slowest judge's time, as
// they are asked together.
func PanelScore(panel []sm.Judge, scores []*Score) *Score {
	out := &Score{Criteria: map[string]Mark{}, Parse: "panel", Panel: []PanelJudge{}}
	if len(scores) == 0 {
		return out
	}
	for _, c := range criteria {
		sum := 0.0
		for _, s := range scores {
			sum += s.Criteria[c.Name].Score
		}
		out.Criteria[c.Name] = Mark{Score: round2(sum / float64(len(scores))), Weight: c.Weight}
	}
	out.WeightedScore = Weighted(out.Criteria)
	out.Score = int(math.Round(out.WeightedScore))
	var models, parts []string
	yes := 0
	for i, s := range scores {
		j := panel[i]
		if s.Finetune {
			yes++
		}
		out.Attempts += s.Attempts
		out.ElapsedMS = max(out.ElapsedMS, s.ElapsedMS)
		out.Panel = append(out.Panel, PanelJudge{Name: j.Name, Model: j.Model, Score: s.Score, WeightedScore: s.WeightedScore})
		models = append(models, j.Model)
		parts = append(parts, fmt.Sprintf("%s %d/10", j.Name, s.Score))
	}
	out.Finetune = 2*yes > len(scores)
	out.Model = strings.Join(models, ", ")
	out.Justification = fmt.Sprintf("The mean of the criteria of the panel's %d judges (%s); each judge's justification is in %s/NAME/%s.",
		len(scores), strings.Join(parts, ", "), sm.JudgmentsDir, ScoreFile)
	return out
}

// checkJudges adds to f what is wrong with the judges' scores and with a
// panel's aggregate (what is wrong with their folders, sm.Bench.Problems
// says): a score that breaks the rules of a judge's answer, a score
// recorded as missing that is not the judge's call, a panel judge the
// official score does not name (or one it names without a folder), an
// aggregate that is not the mean of its judges' scores, a judgment made
// again of a final answer that is not written.
func (d *debate) checkJudges(f *sm.Findings) {
	names := sm.SortedNames(d.judges, nil)
	var inPanel []string
	if d.score != nil {
		for _, p := range d.score.Panel {
			inPanel = append(inPanel, p.Name)
		}
	}
	if d.scoreGap != nil {
		for _, p := range d.scoreGap.Panel {
			inPanel = append(inPanel, p.Name)
		}
	}
	for _, n := range names {
		jf := d.judges[n]
		file := JudgeScoreFile(n)
		switch {
		case jf.Record == nil:
			// A folder without its record: sm.Bench.Problems says so.
		case jf.gap != nil && jf.Record.Kind == sm.KindRejudge && jf.gap.Missing.Call != sm.RejudgeKey(n, scoreStep)+"/"+RoleJudge:
			f.Problemf(file, "the missing call %q is not the judgment again by %s", jf.gap.Missing.Call, n)
		case jf.gap != nil && jf.Record.Kind != sm.KindRejudge && (jf.Record.Kind != sm.KindPanel || !strings.Contains(jf.gap.Missing.Call, "score/")):
			f.Problemf(file, "only a judge of the panel, or of a re-judging, may miss the score")
		}
		if jf.score != nil {
			for _, msg := range judgeScoreProblems(jf.score) {
				f.Problemf(file, "%s", msg)
			}
			if d.synthesis == nil {
				f.Problemf(file, "scores a final answer, but %s is missing", SynthesisFile)
			}
		}
		if jf.Record != nil && jf.Record.Kind == sm.KindPanel && !slices.Contains(inPanel, n) {
			f.Problemf(sm.JudgeRecordPath(n), "is a panel judge's, but %s names no such judge of its panel", ScoreFile)
		}
	}
	if d.score == nil || d.score.Panel == nil {
		return
	}
	var panel []sm.Judge
	var scores []*Score
	missing := 0
	for _, p := range d.score.Panel {
		jf := d.judges[p.Name]
		if p.Missing {
			missing++
			if jf == nil || jf.gap == nil || p.Score != 0 || p.WeightedScore != 0 {
				f.Problemf(ScoreFile, "names the panel judge %s as missing, but %s is not a score recorded as missing", p.Name, JudgeScoreFile(p.Name))
			}
			continue
		}
		switch {
		case jf == nil || jf.score == nil:
			f.Problemf(ScoreFile, "names the panel judge %s, but %s is missing", p.Name, JudgeScoreFile(p.Name))
			continue
		case jf.Record == nil || jf.Record.Kind != sm.KindPanel:
			f.Problemf(ScoreFile, "names the panel judge %s, but %s is not a panel judge's", p.Name, sm.JudgeRecordPath(p.Name))
		case jf.Record.Model != p.Model:
			f.Problemf(ScoreFile, "names %s's model %s, but %s says %s", p.Name, p.Model, sm.JudgeRecordPath(p.Name), jf.Record.Model)
		}
		if jf.score.Score != p.Score || jf.score.WeightedScore != p.WeightedScore {
			f.Problemf(ScoreFile, "gives %s %d (%.2f), but %s says %d (%.2f)", p.Name, p.Score, p.WeightedScore, JudgeScoreFile(p.Name), jf.score.Score, jf.score.WeightedScore)
		}
		panel = append(panel, sm.Judge{Name: p.Name, Model: p.Model})
		scores = append(scores, jf.score)
	}
	if len(scores) != len(d.score.Panel)-missing || len(scores) == 0 {
		return
	}
	want := PanelScore(panel, scores)
	for _, c := range criteria {
		if got, w := d.score.Criteria[c.Name].Score, want.Criteria[c.Name].Score; got != w {
			f.Problemf(ScoreFile, "criteria.%s is %s, but the mean of the panel's is %s", c.Name, markText(got), markText(w))
		}
	}
	if d.score.Score != want.Score {
		f.Problemf(ScoreFile, "score %d is not %.2f rounded, %d", d.score.Score, d.score.WeightedScore, want.Score)
	}
}

// judgeScoreProblems lists how a judge's saved score breaks the rules of
// its answer.
func judgeScoreProblems(s *Score) []string {
	var out []string
	for _, c := range criteria {
		m, ok := s.Criteria[c.Name]
		switch {
		case !ok:
			out = append(out, fmt.Sprintf("criteria.%s is missing", c.Name))
		case m.Score != math.Trunc(m.Score) || m.Score < 1 || m.Score > 10:
			out = append(out, fmt.Sprintf("criteria.%s: %s is not a whole number from 1 to 10", c.Name, markText(m.Score)))
		case m.Weight != c.Weight:
			out = append(out, fmt.Sprintf("criteria.%s: weight %d, not %d", c.Name, m.Weight, c.Weight))
		}
	}
	if len(s.Criteria) != len(criteria) {
		out = append(out, fmt.Sprintf("has %d criteria, not %d", len(s.Criteria), len(criteria)))
	}
	if w := Weighted(s.Criteria); w != s.WeightedScore {
		out = append(out, fmt.Sprintf("weighted_score is %.2f, but its criteria make %.2f", s.WeightedScore, w))
	}
	if s.Score < 1 || s.Score > 10 {
		out = append(out, fmt.Sprintf("score %d is outside 1 to 10", s.Score))
	} else if math.Abs(float64(s.Score)-s.WeightedScore) > ScoreTolerance {
		out = append(out, fmt.Sprintf("score %d is more than %.1f from %.2f, the weighted mean of the criteria", s.Score, ScoreTolerance, s.WeightedScore))
	}
	return out
}

// markText writes a mark as short as it reads: "7", "7.33".
func markText(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }

// Rejudge returns the debate as its judging again by r.Judge: one step,
// the judge's prompt about the saved final answer asked of r.Judge alone,
// whose score goes to judgments/NAME/score.json with its record. The
// range r.From to r.To must hold the unit of the final answer.
func (d *debate) Rejudge(r sm.Rejudging) (sm.Debate, error) {
	if err := r.Check(); err != nil {
		return nil, err
	}
	if d.synthesis == nil {
		return nil, fmt.Errorf("the debate has no final answer to judge again yet (%s is missing): run it to its synthesis first", SynthesisFile)
	}
	u := d.synthesisUnit()
	if r.From > u || (r.To >= 0 && r.To < u) {
		return nil, fmt.Errorf("the judge scores only the final answer, of round %d's unit %d; units %s leave it out", d.roundsDone(), u, unitRange(r.From, r.To))
	}
	rec := sm.RecordOf(d.judges, r.Judge.Name)
	if err := sm.CheckRejudgeRecord(r, rec); err != nil {
		return nil, err
	}
	if rec == nil && sm.InPanel(d.panel, r.Judge.Name) {
		return nil, fmt.Errorf("%s belongs to a judge of the debate's panel: give another name", sm.JudgeFolder(r.Judge.Name))
	}
	f := d.judges[r.Judge.Name]
	if f == nil {
		f = &judgeFolder{}
	}
	return &rejudgeDebate{d: d, r: r, unit: u, folder: f}, nil
}

func unitRange(from, to int) string {
	if to < 0 {
		return fmt.Sprintf("%d to the last", from)
	}
	return fmt.Sprintf("%d to %d", from, to)
}

// rejudgeDebate is a refine debate being judged again.
type rejudgeDebate struct {
	d      *debate
	r      sm.Rejudging
	unit   int
	folder *judgeFolder
}

func (j *rejudgeDebate) Status() sm.Status {
	st := sm.Status{Unit: "round", Total: 1, Phase: "judging again"}
	if j.folder.score != nil {
		st.Done, st.Complete = 1, true
		st.Next = "nothing: the final answer is judged again"
		st.Lines = []sm.Line{{Label: "score", Text: fmt.Sprintf("%d/10 by %s", j.folder.score.Score, j.r.Judge.Model)}}
		return st
	}
	if j.folder.gap != nil {
		st.Complete = true
		st.RetryMissing(1, "score")
		return st
	}
	st.Next = fmt.Sprintf("%s scores the final answer again", j.r.Judge.Model)
	return st
}

func (j *rejudgeDebate) Check() sm.Findings { return j.d.Check() }

func (j *rejudgeDebate) Next() (*sm.Step, error) {
	if j.folder.score != nil || j.folder.gap != nil {
		return nil, nil
	}
	return j.step()
}

var _ sm.Filler = (*rejudgeDebate)(nil)

// Gaps names the score of the re-judging when it is recorded as missing.
func (j *rejudgeDebate) Gaps() []string {
	if j.folder.gap == nil {
		return nil
	}
	return []string{j.folder.gap.Missing.Call}
}

// Fill asks the judge again for the score recorded as missing.
func (j *rejudgeDebate) Fill(gap string) (*sm.Step, error) {
	if j.folder.gap == nil || j.folder.gap.Missing.Call != gap {
		return nil, fmt.Errorf("no call %q is missing", gap)
	}
	return j.step()
}

// step is the score of the final answer by the judge of the re-judging;
// with --keep-going it may be recorded as missing in its folder.
func (j *rejudgeDebate) step() (*sm.Step, error) {
	c, err := j.d.scoreCall()
	if err != nil {
		return nil, err
	}
	c.Model, c.Missable = j.r.Judge.Model, true
	name := j.r.Judge.Name
	return j.r.Step(scoreStep, j.unit, c, j.folder.Record, j.r.From, func(ans sm.Answer, now time.Time) (*sm.Commit, error) {
		if j.folder.score != nil {
			return nil, &sm.Refused{Reasons: []string{JudgeScoreFile(name) + " is written already"}}
		}
		if ans.Missing != nil {
			data, err := json.MarshalIndent(&MissingScore{Missing: ans.Missing, Model: ans.Model, Attempts: ans.Attempts, ElapsedMS: ms(ans.Elapsed), Time: now.UTC().Format(sm.TimeLayout)}, "", "  ")
			if err != nil {
				return nil, err
			}
			return &sm.Commit{Files: []sm.File{{Name: JudgeScoreFile(name), Data: append(data, '\n')}},
				Events: []sm.Event{{Kind: "missing", Role: RoleJudge, Ends: true,
					Message: fmt.Sprintf("the score of the judgment again by %s is recorded as missing: no value invented", name)}}}, nil
		}
		s, errs := ParseScore(ans.Text)
		if len(errs) > 0 {
			return nil, refused(RoleJudge, errs)
		}
		stamp(s, ans, now.UTC().Format(sm.TimeLayout))
		data, err := renderScore(s)
		if err != nil {
			return nil, fmt.Errorf("render %s: %w", JudgeScoreFile(name), err)
		}
		sc := float64(s.Score)
		return &sm.Commit{Files: []sm.File{{Name: JudgeScoreFile(name), Data: data}},
			Events: []sm.Event{{Kind: "scored", Role: RoleJudge, Score: &sc, Ends: true,
				Message: fmt.Sprintf("judged again by %s: %d/10 (weighted criteria %.2f)", name, s.Score, s.WeightedScore),
				Data:    map[string]any{"score": s.Score, "weighted_score": s.WeightedScore}}}}, nil
	}), nil
}

// Judgments returns what the debate's judges made of the final answer:
// each criterion is an item, of the synthesis's unit and length, with no
// side and no speaking order. The official judge (or, with a panel, the
// panel's aggregate) comes from score.json, every other judge from its
// folder.
func (d *debate) Judgments() sm.Judgments {
	out := sm.Judgments{Unit: "round", Min: 1, Max: 10}
	if d.synthesis != nil {
		u, n := d.synthesisUnit(), len([]rune(d.synthesis.Text))
		for _, c := range criteria {
			out.Items = append(out.Items, sm.Item{ID: c.Name, Unit: u, Title: fmt.Sprintf("%s (%d%%) of the final answer", c.Name, c.Weight), Length: n})
		}
	}
	if d.score != nil {
		official := marksOf(d.score)
		official.Name, official.Model, official.Kind = "debate", d.score.Model, sm.KindOfficial
		if m := d.models[RoleJudge]; m != "" && d.score.Panel == nil {
			official.Model = m
		}
		out.AddOfficial(official, d.score.Panel != nil)
	}
	for _, n := range sm.SortedNames(d.judges, func(f *judgeFolder) bool { return f.Record != nil && f.score != nil }) {
		out.AddJudge(marksOf(d.judges[n].score), d.judges[n].Record)
	}
	return out
}

// marksOf is a score as a judge's scores of the criteria: a judge scores
// each once, so its first score is its last.
func marksOf(s *Score) sm.JudgeScores {
	js := sm.JudgeScores{Final: map[string]float64{}, First: map[string]float64{}}
	for _, c := range criteria {
		if m, ok := s.Criteria[c.Name]; ok {
			js.Final[c.Name], js.First[c.Name] = m.Score, m.Score
		}
	}
	return js
}
