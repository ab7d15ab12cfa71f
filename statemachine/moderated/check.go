package moderated

import (
	"fmt"
	"math"
	"sort"

	sm "github.com/moot-dev/moot/statemachine"
)

// Check lists what is wrong with the files: a state that disagrees with
// itself, a message or score missing, extra or out of place, a total that
// is not its rubric's, and the same of every judge's folder under
// judgments/.
func (d *debate) Check() sm.Findings {
	var f sm.Findings
	f.Problems = append(f.Problems, d.stray...)
	step := d.st.Step
	if step < 0 || step > len(d.sched) {
		f.Problemf(sm.StateFile, "current_step %d is outside 0 to %d", step, len(d.sched))
		return f
	}
	if want := d.doneUnits(step); d.st.Exchange != want {
		f.Problemf(sm.StateFile, "current_exchange is %d, but %d steps done make %d", d.st.Exchange, step, want)
	}
	if want := d.phaseAt(step); d.st.Phase != want {
		f.Problemf(sm.StateFile, "current_phase is %q, but step %d is in %q", d.st.Phase, step+1, want)
	}
	expectMsg := map[int]bool{}
	expectScore := map[int]bool{}
	for i, s := range d.sched {
		done := i < step
		switch {
		case s.message():
			m, ok := d.messages[s.Number]
			file := d.messageFile(s)
			if done {
				expectMsg[s.Number] = true
				if !ok {
					f.Problemf(file, "is missing: message %d was given", s.Number)
					continue
				}
				if m.file != file {
					f.Problemf(m.file, "should be %s: message %d is the %s's %s", file, s.Number, s.Role, s.Kind)
				}
				p, _ := d.participant(s.Role)
				if m.Participant != p.ID || m.Kind != s.Kind || m.Phase != s.Phase || m.Round != s.Round {
					f.Problemf(m.file, "says %s, %s, %s, round %d; message %d is %s's %s in %s, round %d", m.Participant, m.Kind, m.Phase, m.Round, s.Number, p.ID, s.Kind, s.Phase, s.Round)
				}
				if m.Content == "" {
					f.Problemf(m.file, "has no content")
				}
				if want := fileRole(s.Role); m.Role != want {
					f.Problemf(m.file, "role: %q, but message %d is the %s's", m.Role, s.Number, want)
				}
				if m.Name != p.Name {
					f.Problemf(m.file, "name: %q, but the %s is %q", m.Name, s.Role, p.Name)
				}
				if m.Turn != s.Turn {
					f.Problemf(m.file, "turn: %d, but message %d is turn %d", m.Turn, s.Number, s.Turn)
				}
				if want := d.respondsTo(s); m.RespondsTo != want {
					f.Problemf(m.file, "responds_to: %d, but message %d responds to %d", m.RespondsTo, s.Number, want)
				}
			}
		case done:
			t := d.sched[s.Target]
			expectScore[t.Number] = true
			if g, ok := d.gaps[t.Number]; ok {
				if g.file != d.scoreFile(t) {
					f.Problemf(g.file, "should be %s", d.scoreFile(t))
				}
				if want := stepKey(i, s) + "/" + s.Role; g.Missing.Call != want {
					f.Problemf(g.file, "missing.call: %q is not call %s", g.Missing.Call, want)
				}
				continue
			}
			sc, ok := d.scores[t.Number]
			if !ok {
				f.Problemf(d.scoreFile(t), "is missing: message %d was scored", t.Number)
				continue
			}
			if sc.file != d.scoreFile(t) {
				f.Problemf(sc.file, "should be %s", d.scoreFile(t))
			}
			d.checkScore(&f, sc)
			if p, _ := d.participant(t.Role); sc.Participant != p.ID {
				f.Problemf(sc.file, "participant: %q, but message %d is %s's", sc.Participant, t.Number, p.ID)
			}
		}
	}
	var extra []int
	for n, m := range d.messages {
		if !expectMsg[n] {
			extra = append(extra, n)
			_ = m
		}
	}
	sort.Ints(extra)
	for _, n := range extra {
		f.Problemf(d.messages[n].file, "message %d is not given yet: debate.md is at step %d", n, step)
	}
	// Scores and scores recorded as missing alike.
	for _, scores := range []map[int]Score{d.scores, d.gaps} {
		extra = extra[:0]
		for n := range scores {
			if !expectScore[n] {
				extra = append(extra, n)
			}
		}
		sort.Ints(extra)
		for _, n := range extra {
			f.Problemf(scores[n].file, "message %d is not scored yet, or is not a statement that is scored", n)
		}
	}
	d.checkJudges(&f, expectScore)
	return f
}

// respondsTo is the number of the message the message of slot s responds
// to, or 0.
func (d *debate) respondsTo(s slot) int {
	if s.Target >= 0 {
		return d.sched[s.Target].Number
	}
	return 0
}

// checkScore checks the rubric of sc against the debate's criteria: the
// same criteria, each with the debate's weight and its weighted mark,
// and a total its marks make.
func (d *debate) checkScore(f *sm.Findings, sc Score) {
	raws := map[string]float64{}
	known := map[string]bool{}
	for _, c := range d.st.Criteria {
		known[c.Name] = true
	}
	for _, name := range sc.Names {
		if !known[name] {
			f.Problems = append(f.Problems, sm.Problem{File: sc.file, Message: fmt.Sprintf("criteria.%s is not a criterion of this debate", name)})
		}
	}
	for _, c := range d.st.Criteria {
		m, ok := sc.Marks[c.Name]
		if !ok {
			f.Problems = append(f.Problems, sm.Problem{File: sc.file, Message: fmt.Sprintf("criteria.%s is missing", c.Name)})
			return
		}
		if m.Raw < 0 || m.Raw > 10 {
			f.Problems = append(f.Problems, sm.Problem{File: sc.file, Message: fmt.Sprintf("criteria.%s.raw %v is outside 0 to 10", c.Name, m.Raw)})
		}
		if m.Weight != c.Weight {
			f.Problems = append(f.Problems, sm.Problem{File: sc.file, Message: fmt.Sprintf("criteria.%s.weight is %v, but the debate weighs it %v", c.Name, m.Weight, c.Weight)})
		} else if want := weighted(m.Raw, c.Weight); math.Abs(want-m.Weighted) > 0.00005 {
			f.Problems = append(f.Problems, sm.Problem{File: sc.file, Message: fmt.Sprintf("criteria.%s.weighted is %v, but raw %v times weight %v makes %v", c.Name, m.Weighted, m.Raw, c.Weight, want)})
		}
		raws[c.Name] = m.Raw
	}
	if want := Total(d.st.Criteria, raws); math.Abs(want-sc.Total) > 0.005 {
		f.Problems = append(f.Problems, sm.Problem{File: sc.file, Message: fmt.Sprintf("total is %.2f, but its criteria make %.2f", sc.Total, want)})
	}
}
