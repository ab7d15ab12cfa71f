package dialectic

import (
	"fmt"
	"time"

	sm "github.com/moot-dev/moot/statemachine"
)

// MaxAnswerSize is the largest answer a debater or judge may hand in, by
// any path (a file given to process-exchange or process-judge, or a
// model's answer in moot run): the step model's 1 MiB.
const MaxAnswerSize = sm.MaxAnswerSize

// CheckSize refuses an answer of role (proposition, opposition or judge)
// over MaxAnswerSize, before any time is spent parsing it (see
// sm.CheckSize).
func CheckSize(role string, answer []byte) error { return sm.CheckSize(role, answer) }

// Exchange is an exchange's accepted arguments, ready to commit.
type Exchange struct {
	Arguments []*Argument
	Warnings  []string
	// Soft holds the warnings of Warnings about soft length limits.
	Soft []string
}

// CheckExchange puts both sides' answers for exchange through the rules
// without writing anything. answers maps each side to what it handed in.
func CheckExchange(deb *Debate, exchange int, answers map[Side][]byte) (*Exchange, error) {
	if err := deb.Header.State.AcceptArguments(exchange); err != nil {
		return nil, &sm.Refused{Reasons: []string{err.Error()}}
	}
	if end := deb.Header.End; end > 0 && exchange >= end {
		return nil, &sm.Refused{Reasons: []string{fmt.Sprintf("the debate ended after its %d exchanges (debate.md's %q); exchange %d is past its end", end, EndKey, exchange)}}
	}
	for _, side := range Sides() {
		if err := CheckSize(side.Name(), answers[side]); err != nil {
			return nil, err
		}
	}
	known := deb.Known()
	var all Problems
	x := &Exchange{}
	refused := &sm.Refused{}
	for _, side := range Sides() {
		subs, p := ParseSubmissions(answers[side], side, exchange, known)
		all.Add(side.Name()+": ", p)
		if !p.OK() && refused.Role == "" {
			refused.Role, refused.RoleReasons = side.Name(), p.Errors
		}
		ids := ArgumentIDs(exchange, side)
		for i, s := range subs {
			x.Arguments = append(x.Arguments, NewArgument(ids[i], side, exchange, s))
		}
	}
	x.Warnings, x.Soft = all.Warnings, all.Soft
	if !all.OK() {
		refused.Reasons, refused.Answer = all.Errors, true
		return x, refused
	}
	return x, nil
}

// CheckJudgment puts a judge's answer through the rules without writing.
func CheckJudgment(deb *Debate, answer []byte) (Judgment, Problems, error) {
	if err := deb.Header.State.AcceptJudgment(); err != nil {
		return Judgment{}, Problems{}, &sm.Refused{Reasons: []string{err.Error()}}
	}
	if panel, _ := sm.PanelOf(deb.Header.Front); len(panel) > 0 {
		return Judgment{}, Problems{}, &sm.Refused{Reasons: []string{fmt.Sprintf(
			"the debate is judged by a panel of %d (debate.md's %q): its judgments come from moot run or moot step, one per judge, not from one judgment handed in", len(panel), sm.PanelKey)}}
	}
	if err := CheckSize("judge", answer); err != nil {
		return Judgment{}, Problems{}, err
	}
	j, p := ParseJudgment(answer, deb.Header.State.Exchange, deb.Known(), deb.Scores.Current())
	if !p.OK() {
		return j, p, &sm.Refused{Reasons: p.Errors, Role: string(Judge), RoleReasons: p.Errors, Answer: true}
	}
	return j, p, nil
}

// ApplyArguments is the step that takes both sides' arguments for
// exchange: the answers put through the rules and, if they pass, the files
// to commit (the argument files, the graph, and debate.md in the judgment
// phase). deb is changed to the debate after the step. moot run and
// process-exchange both take it. A refused step returns the error and,
// when the answers could be read, a commit holding only their warnings.
func ApplyArguments(deb *Debate, exchange int, answers map[Side][]byte) (*sm.Commit, error) {
	x, err := CheckExchange(deb, exchange, answers)
	if err != nil {
		if x != nil {
			return &sm.Commit{Warnings: x.Warnings, Soft: x.Soft}, err
		}
		return nil, err
	}
	return CommitArguments(deb, x)
}

// CommitArguments returns the commit of an exchange whose arguments were
// accepted: the argument files, the graph, and debate.md in the judgment
// phase. deb is changed to the debate after the step.
func CommitArguments(deb *Debate, x *Exchange) (*sm.Commit, error) {
	c := &sm.Commit{Warnings: x.Warnings, Soft: x.Soft}
	for _, a := range x.Arguments {
		data, err := a.Render()
		if err != nil {
			return nil, fmt.Errorf("render %s: %w", a.ID, err)
		}
		c.Files = append(c.Files, sm.File{Name: ArgumentFile(a.ID), Data: data})
		c.Events = append(c.Events, sm.Event{Kind: "argued", Role: a.Side.Name(), ID: a.ID, Title: a.Title})
	}
	deb.Add(x.Arguments...)
	deb.Header.State = deb.Header.State.Next()
	return c, finish(deb, c)
}

// ApplyJudgment is the step that takes the judge's answer for the current
// exchange: scores.json with one history entry per scored or rescored
// argument, the graph, and debate.md at the next exchange with the
// recomputed totals. deb is changed to the debate after the step. A
// refused step returns the error and a commit holding only the answer's
// warnings.
func ApplyJudgment(deb *Debate, answer []byte, now time.Time) (*sm.Commit, error) {
	j, p, err := CheckJudgment(deb, answer)
	if err != nil {
		return &sm.Commit{Warnings: p.Warnings, Soft: p.Soft}, err
	}
	titles := map[string]string{}
	for _, s := range j.Scores {
		if a, ok := deb.Argument(s.ArgumentID); ok {
			titles[s.ArgumentID] = a.Title
		}
	}
	deb.Scores.Apply(j.Entries(deb.Known(), deb.Scores.Current()), now)
	scores, err := deb.Scores.Render()
	if err != nil {
		return nil, fmt.Errorf("render %s: %w", ScoresFile, err)
	}
	deb.Header.Totals = Cumulative(deb.Scores.Current())
	deb.Header.State = deb.Header.State.Next()
	c := &sm.Commit{Warnings: p.Warnings, Soft: p.Soft, Files: []sm.File{{Name: ScoresFile, Data: scores}}}
	ids, values, rescored := []string{}, []float64{}, []string{}
	for _, s := range j.Scores {
		score := s.Score
		c.Events = append(c.Events, sm.Event{Kind: "scored", Role: string(Judge), ID: s.ArgumentID, Title: titles[s.ArgumentID], Score: &score})
		ids, values = append(ids, s.ArgumentID), append(values, s.Score)
	}
	for _, rs := range j.Rescores {
		score := rs.NewScore
		c.Events = append(c.Events, sm.Event{Kind: "rescored", Role: string(Judge), ID: rs.ArgumentID, Score: &score})
		rescored = append(rescored, rs.ArgumentID)
	}
	totals := deb.Header.Totals
	done := sm.Event{Kind: "exchange", Ends: true,
		Message: fmt.Sprintf("proposition %s · opposition %s", FormatScore(totals.Proposition.Total), FormatScore(totals.Opposition.Total)),
		Data:    map[string]any{"ids": ids, "scores": values, "cumulative_scores": totals},
	}
	if len(rescored) > 0 {
		done.Data["rescored"] = rescored
	}
	c.Events = append(c.Events, done)
	return c, finish(deb, c)
}

// finish adds to a commit what every step of dialectic writes last: the
// argument graph and debate.md.
func finish(deb *Debate, c *sm.Commit) error {
	header, err := deb.Header.Render()
	if err != nil {
		return fmt.Errorf("render %s: %w", sm.StateFile, err)
	}
	c.Files = append(c.Files,
		sm.File{Name: GraphFile, Data: []byte(Graph(deb))},
		sm.File{Name: sm.StateFile, Data: header},
	)
	return nil
}
