package duet

import (
	"errors"
	"fmt"
	"time"

	sm "github.com/moot-dev/moot/statemachine"
)

var _ sm.Benched = (*debate)(nil)

// Rejudge returns the debate as its judging again by r.Judge: a step per
// judged round from r.From to r.To (-1: to the last), in order, each
// asking r.Judge alone what the debate's judge was asked and writing only
// its folder, the first step its record.
func (d *debate) Rejudge(r sm.Rejudging) (sm.Debate, error) {
	if err := r.Check(); err != nil {
		return nil, err
	}
	if d.st.Round == 0 {
		return nil, errors.New("the debate has no judged round to judge again")
	}
	from, to := r.Span(1, d.st.Round)
	if from > to {
		return nil, fmt.Errorf("the debate has judged rounds 1 to %d; %d to %d holds none of them", d.st.Round, from, to)
	}
	f := d.judges[r.Judge.Name]
	if f == nil {
		f = &judgeFolder{verdicts: map[int]verdict{}}
	}
	if err := sm.CheckRejudgeRecord(r, f.Record); err != nil {
		return nil, err
	}
	return &rejudging{d: d, r: r, from: from, to: to, folder: f}, nil
}

// rejudging is a duet debate being judged again, rounds from to to.
type rejudging struct {
	d        *debate
	r        sm.Rejudging
	from, to int
	folder   *judgeFolder
}

// Status counts the rounds judged again.
func (rj *rejudging) Status() sm.Status {
	st := sm.Status{Unit: "round", Total: rj.to - rj.from + 1, Phase: "judging again"}
	next := 0
	for r := rj.from; r <= rj.to; r++ {
		if _, ok := rj.folder.verdicts[r]; ok {
			st.Done++
		} else if next == 0 {
			next = r
		}
	}
	if next == 0 {
		st.Complete, st.Next = true, "nothing: every round is judged again"
	} else {
		st.Next = fmt.Sprintf("%s scores round %d again", rj.r.Judge.Model, next)
	}
	return st
}

// Check is the debate's own.
func (rj *rejudging) Check() sm.Findings { return rj.d.Check() }

// Next is the judging again of the first round not yet judged again.
func (rj *rejudging) Next() (*sm.Step, error) {
	for r := rj.from; r <= rj.to; r++ {
		if _, ok := rj.folder.verdicts[r]; !ok {
			return rj.step(r)
		}
	}
	return nil, nil
}

// step asks the judge of the re-judging for round's scores, as the
// debate's judge was asked, and writes them in its folder.
func (rj *rejudging) step(round int) (*sm.Step, error) {
	c, err := rj.d.judgeCall(round)
	if err != nil {
		return nil, err
	}
	name := rj.r.Judge.Name
	return rj.r.Step(fmt.Sprintf("r%02d", round), round, c.AskedOf(Judge, rj.r.Judge), rj.folder.Record, rj.from, func(a sm.Answer, _ time.Time) (*sm.Commit, error) {
		v, errs := parseScores(a.Text)
		if len(errs) > 0 {
			r := &sm.Refused{Answer: true}
			r.AddJudge(Judge, name, errs)
			return nil, r
		}
		v.Round, v.Role, v.Model = round, Judge, a.Model
		data, err := renderVerdict(v)
		if err != nil {
			return nil, err
		}
		return &sm.Commit{Files: []sm.File{{Name: rejudgeFile(name, round), Data: data}}, Events: scoredEvents(round, name, v)}, nil
	}), nil
}

// Judgments returns what the debate's judges made of its statements: the
// debate's judge and every judge with a folder. A statement is scored
// once by each, so a judge's first score is its last.
func (d *debate) Judgments() sm.Judgments {
	out := sm.Judgments{Unit: "round", Min: 0, Max: maxScore}
	for r := 1; r <= d.st.Round; r++ {
		for _, side := range sides {
			s, ok := d.statements[r][side]
			if !ok {
				continue
			}
			out.Items = append(out.Items, sm.Item{ID: fmt.Sprintf("r%02d-%s", r, side), Unit: r,
				Title: fmt.Sprintf("%s, round %d", side, r), Side: sideOf(side), Length: len([]rune(s.Text))})
		}
	}
	official := scoresOf(d.verdicts)
	official.Name, official.Model, official.Kind = Judge, d.judgeModel(), sm.KindOfficial
	out.AddOfficial(official, false)
	sm.AddJudges(&out, d.judges, func(f *judgeFolder) sm.JudgeScores { return scoresOf(f.verdicts) })
	return out
}

// sideOf is the side a role takes, as the judges' comparison names it.
func sideOf(role string) string {
	if role == Pro {
		return "proposition"
	}
	return "opposition"
}

// scoresOf is the scores of a judge's verdicts, by statement.
func scoresOf(verdicts map[int]verdict) sm.JudgeScores {
	js := sm.JudgeScores{Final: map[string]float64{}, First: map[string]float64{}}
	for r, v := range verdicts {
		for _, side := range sides {
			id := fmt.Sprintf("r%02d-%s", r, side)
			js.Final[id], js.First[id] = float64(v.of(side).Score), float64(v.of(side).Score)
		}
	}
	return js
}
