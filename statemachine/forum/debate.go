package forum

import (
	"fmt"
	"strings"
	"time"

	sm "github.com/moot-dev/moot/statemachine"
	"github.com/moot-dev/moot/templates"
)

// debate is a forum debate as read from its files.
type debate struct {
	st      *state
	topic   string
	slots   []slot
	calls   map[string]*callFile
	verdict *callFile
	tmpl    *templates.Set
}

// file returns the committed file of s, nil when there is none.
func (d *debate) file(s slot) *callFile {
	if s.Seq > d.st.Calls {
		return nil
	}
	return d.calls[s.File()]
}

func (d *debate) slotOf(kind string, turn int) (slot, bool) {
	for _, s := range d.slots {
		if s.Kind == kind && s.Turn == turn {
			return s, true
		}
	}
	return slot{}, false
}

// speech returns the public text of turn t.
func (d *debate) speech(t int) string {
	s, ok := d.slotOf(kindSpeech, t)
	if !ok {
		return ""
	}
	if f := d.file(s); f != nil {
		return f.body
	}
	return ""
}

func sideWord(side string) string {
	if side == For {
		return "for"
	}
	return "against"
}

// Status says where the debate stands: the turn, who speaks, the running
// scores and, when it is over, the verdict.
func (d *debate) Status() sm.Status {
	st := sm.Status{
		Unit: "turn", Done: unitsDone(d.slots, d.st.Calls), Total: units(d.st.Turns, d.st.Judge != nil),
		Complete: len(d.slots) > 0 && d.st.Calls >= len(d.slots), Phase: d.st.Phase,
	}
	data := map[string]any{"turns": d.st.Turns, "calls": d.st.Calls, "calls_total": len(d.slots)}
	if st.Complete {
		st.Next = "nothing: the debate is complete"
	} else if d.st.Calls < len(d.slots) {
		s := d.slots[d.st.Calls]
		st.Next = d.describe(s)
		data["next_role"] = s.Role
		data["next_speaker"] = d.st.name(s.Role)
		if s.Turn <= d.st.Turns {
			speaker := d.st.a()
			if s.Turn%2 == 0 {
				speaker = d.st.b()
			}
			st.Lines = append(st.Lines, sm.Line{Label: "turn", Text: fmt.Sprintf("%d of %d: %s (%s)", s.Turn, d.st.Turns, d.st.name(speaker), sideWord(speaker))})
			data["turn"] = s.Turn
			data["speaker"] = d.st.name(speaker)
		} else {
			st.Lines = append(st.Lines, sm.Line{Label: "turn", Text: "the verdict"})
		}
	}
	if d.st.Judge == nil {
		st.Lines = append(st.Lines, sm.Line{Label: "scores", Text: "none: the debate has no judge"})
	} else {
		var parts []string
		running := map[string]int{}
		for _, side := range []string{d.st.a(), d.st.b()} {
			if n, ok := d.st.RunningScores[side]; ok {
				parts = append(parts, fmt.Sprintf("%s (%s) %d", d.st.name(side), sideWord(side), n))
				running[d.st.name(side)] = n
			} else {
				parts = append(parts, fmt.Sprintf("%s (%s) -", d.st.name(side), sideWord(side)))
			}
		}
		st.Lines = append(st.Lines, sm.Line{Label: "scores", Text: strings.Join(parts, " · ")})
		data["running_scores"] = running
	}
	if v := d.st.Verdict; v != nil {
		loser := other(v.Winner)
		text := fmt.Sprintf("%s (%s) wins, %d to %d", v.WinnerName, sideWord(v.Winner), v.Scores[v.Winner], v.Scores[loser])
		if v.PremiseUpheld != nil {
			if *v.PremiseUpheld {
				text += "; the premise is upheld"
			} else {
				text += "; the premise is rejected"
			}
		}
		st.Lines = append(st.Lines, sm.Line{Label: "verdict", Text: text})
		data["verdict"] = map[string]any{
			"winner": v.WinnerName, "winner_side": v.Winner, "premise_upheld": v.PremiseUpheld,
			"scores": map[string]int{d.st.name(For): v.Scores[For], d.st.name(Against): v.Scores[Against]}, "winner_source": v.WinnerSource,
		}
	}
	st.Data = data
	return st
}

// describe says what the call of s does, in a sentence.
func (d *debate) describe(s slot) string {
	who := fmt.Sprintf("%s (%s)", d.st.name(s.Role), s.Role)
	switch s.Kind {
	case kindPlan:
		return fmt.Sprintf("%s and %s (%s) plan in private", who, d.st.name(other(s.Role)), other(s.Role))
	case kindThink:
		if s.Turn == 1 {
			return fmt.Sprintf("%s thinks in private before opening", who)
		}
		return fmt.Sprintf("%s thinks in private before turn %d", who, s.Turn)
	case kindSpeech:
		if s.Turn == 1 {
			return fmt.Sprintf("%s opens the debate (turn 1 of %d)", who, d.st.Turns)
		}
		return fmt.Sprintf("%s speaks: turn %d of %d", who, s.Turn, d.st.Turns)
	case kindEvaluate:
		return fmt.Sprintf("the judge, %s, weighs turn %d in private", d.st.name(Judge), s.Turn)
	case kindScore:
		return fmt.Sprintf("the judge scores %s for turn %d", d.st.name(s.Target), s.Turn)
	case kindDeliberation:
		return "the judge deliberates in private on the verdict"
	case kindConfirmation:
		return "the judge names the winner"
	case kindVerdict:
		return "the judge gives the verdict as JSON"
	case kindAnnouncement:
		return "the judge announces the verdict"
	}
	return s.Kind
}

// Check lists what is wrong with the debate's files.
func (d *debate) Check() sm.Findings {
	var f sm.Findings
	problem := func(file, format string, args ...any) {
		f.Problems = append(f.Problems, sm.Problem{File: file, Message: fmt.Sprintf(format, args...)})
	}
	st := d.st
	if st.Protocol != Name {
		problem(sm.StateFile, "protocol is %q, not %q", st.Protocol, Name)
	}
	if st.Turns < 1 || st.Turns > MaxTurns {
		problem(sm.StateFile, "turns: %d is outside 1 to %d", st.Turns, MaxTurns)
	}
	if st.FirstSpeaker != For && st.FirstSpeaker != Against {
		problem(sm.StateFile, "first_speaker: %q is neither %q nor %q", st.FirstSpeaker, For, Against)
	}
	for _, role := range []string{For, Against, Judge} {
		if p := st.persona(role); p != nil && strings.TrimSpace(p.Name) == "" {
			problem(sm.StateFile, "%s.name: missing", role)
		}
	}
	if len(f.Problems) > 0 {
		return f
	}
	if st.Calls < 0 || st.Calls > len(d.slots) || st.Calls == 1 {
		problem(sm.StateFile, "calls: %d is not a number of calls this debate can have made (0, or 2 to %d)", st.Calls, len(d.slots))
		return f
	}
	if want := phaseAfter(d.slots, st.Calls); st.Phase != want {
		problem(sm.StateFile, "phase: %q, but after %d calls the debate waits for %q", st.Phase, st.Calls, want)
	}
	if want := unitsDone(d.slots, st.Calls); st.Turn != want {
		problem(sm.StateFile, "turn: %d, but after %d calls %d turns are done", st.Turn, st.Calls, want)
	}
	expected := map[string]bool{}
	running := map[string]int{}
	for _, s := range d.slots {
		if s.Seq > st.Calls {
			break
		}
		name := s.File()
		expected[name] = true
		c, ok := d.calls[name]
		if !ok {
			problem(name, "is missing: call %d was made", s.Seq)
			continue
		}
		if c.err != nil {
			problem(name, "%v", c.err)
			continue
		}
		m := c.meta
		if m.Seq != s.Seq || m.Kind != s.Kind || m.Role != s.Role || m.Turn != s.Turn {
			problem(name, "says call %d, %s by %s in turn %d; the schedule has call %d, %s by %s in turn %d", m.Seq, m.Kind, m.Role, m.Turn, s.Seq, s.Kind, s.Role, s.Turn)
		}
		if m.Visibility != s.visibility() {
			problem(name, "visibility: %q, want %q", m.Visibility, s.visibility())
		}
		if m.Skipped == "" && c.body == "" {
			problem(name, "has no reply")
		}
		switch s.Kind {
		case kindScore:
			if m.Score == nil || *m.Score < 0 || *m.Score > 10 {
				problem(name, "score: want a whole number from 0 to 10")
				continue
			}
			if m.Target != s.Target {
				problem(name, "target: %q, want %q", m.Target, s.Target)
			}
			running[s.Target] = *m.Score
		case kindVerdict:
			if m.WinnerSide != For && m.WinnerSide != Against {
				problem(name, "winner_side: %q is neither %q nor %q", m.WinnerSide, For, Against)
			}
		}
	}
	for _, name := range sortedKeys(d.calls) {
		if !expected[name] {
			problem(name, "is not a call this debate has made (it has made %d)", st.Calls)
		}
	}
	for _, side := range []string{For, Against} {
		got, has := st.RunningScores[side]
		want, had := running[side]
		if has != had || got != want {
			problem(sm.StateFile, "running_scores.%s: %s, but the score files give %s", side, optInt(got, has), optInt(want, had))
		}
	}
	complete := len(d.slots) > 0 && st.Calls == len(d.slots)
	if st.Judge != nil && complete {
		if d.verdict == nil {
			problem(VerdictFile, "is missing: the debate is complete")
		} else if st.Verdict == nil || d.verdict.meta.WinnerSide != st.Verdict.Winner {
			problem(VerdictFile, "names a winner debate.md does not")
		}
	} else if d.verdict != nil {
		problem(VerdictFile, "is there before the verdict is announced")
	}
	return f
}

func optInt(n int, ok bool) string {
	if !ok {
		return "none"
	}
	return fmt.Sprint(n)
}

// Next returns the step the debate waits for: both plans together, then
// one call a step.
func (d *debate) Next() (*sm.Step, error) {
	if len(d.slots) == 0 || d.st.Calls >= len(d.slots) {
		return nil, nil
	}
	group := []slot{d.slots[d.st.Calls]}
	if d.st.Calls == 0 {
		group = d.slots[:2]
	}
	calls := make([]sm.Call, 0, len(group))
	for _, s := range group {
		c, err := d.call(s)
		if err != nil {
			return nil, err
		}
		calls = append(calls, c)
	}
	first := group[0]
	return &sm.Step{
		Key: first.Key(), Unit: first.Turn, Calls: calls,
		Apply: func(answers map[string]sm.Answer, now time.Time) (*sm.Commit, error) {
			return d.apply(group, answers)
		},
	}, nil
}

// call builds the request of s: the role's system prompt, its earlier
// prompts and replies as the files hold them, and the new prompt.
func (d *debate) call(s slot) (sm.Call, error) {
	msgs, err := d.messages(s)
	if err != nil {
		return sm.Call{}, err
	}
	c := sm.Call{
		ID: s.Role, Role: s.Role, Messages: msgs,
		Repair: func(errs []string) (sm.Message, error) {
			text, err := d.tmpl.Render("repair.md", map[string]any{"Errors": errs})
			return sm.Message{Role: "user", Content: text}, err
		},
	}
	switch s.Kind {
	case kindScore:
		c.Schema, c.SchemaName = scoreSchema, "score"
		c.Validate = func(a []byte) sm.Report { _, errs := parseScore(a); return sm.Report{Errors: errs} }
	case kindVerdict:
		a, b := d.st.name(d.st.a()), d.st.name(d.st.b())
		confirmed := d.confirmed()
		c.Schema, c.SchemaName = verdictSchema(a, b), "verdict"
		// Sent back once, as the issue asks: a judge who names the other
		// winner twice is not talked round by a third request.
		c.Repairs = 1
		c.Validate = func(ans []byte) sm.Report {
			_, errs := parseVerdict(ans, a, b, confirmed)
			return sm.Report{Errors: errs}
		}
	case kindConfirmation:
		a, b := d.st.name(d.st.a()), d.st.name(d.st.b())
		c.Validate = func(ans []byte) sm.Report { _, errs := confirmName(ans, a, b); return sm.Report{Errors: errs} }
		c.Skippable = true
	}
	return c, nil
}

// confirmed returns the name the judge confirmed as the winner, "" when
// the confirmation named neither debater or is not made yet.
func (d *debate) confirmed() string {
	s, ok := d.slotOf(kindConfirmation, d.st.Turns+1)
	if !ok {
		return ""
	}
	f := d.file(s)
	if f == nil || f.meta.ConfirmedWinner == nil {
		return ""
	}
	return *f.meta.ConfirmedWinner
}

func (d *debate) messages(s slot) ([]sm.Message, error) {
	sys, err := d.system(s.Role)
	if err != nil {
		return nil, err
	}
	msgs := []sm.Message{{Role: "system", Content: sys}}
	for _, e := range d.slots[:s.Seq-1] {
		if e.Role != s.Role {
			continue
		}
		f := d.file(e)
		if f == nil || f.meta.Skipped != "" {
			continue
		}
		p, err := d.prompt(e)
		if err != nil {
			return nil, err
		}
		msgs = append(msgs, sm.Message{Role: "user", Content: p}, sm.Message{Role: "assistant", Content: f.body})
	}
	p, err := d.prompt(s)
	if err != nil {
		return nil, err
	}
	return append(msgs, sm.Message{Role: "user", Content: p}), nil
}

func (d *debate) system(role string) (string, error) {
	p := d.st.persona(role)
	if p == nil {
		return "", fmt.Errorf("the debate has no %s", role)
	}
	if role == Judge {
		return d.tmpl.Render("judge-system.md", p)
	}
	return d.tmpl.Render("debater-system.md", p)
}

// promptData is what the prompt templates are given.
type promptData struct {
	Topic, Premise string
	Side           string // the speaker's side
	SideLine       bool   // B's first turn tells B its side
	Opponent       string
	Statement      string
	Speaker        string
	Final, First   bool
	ForName        string
	AgainstName    string
	NameA, NameB   string
	Example        string
	Confirmed      string
}

// prompt is the newest user message of s.
func (d *debate) prompt(s slot) (string, error) {
	st := d.st
	data := promptData{
		Topic: d.topic, Premise: st.Premise, Side: s.Role, Opponent: st.name(other(s.Role)),
		Final: s.Final, First: s.First, ForName: st.name(For), AgainstName: st.name(Against),
		NameA: st.name(st.a()), NameB: st.name(st.b()),
	}
	var name string
	switch s.Kind {
	case kindPlan:
		name = "plan.md"
	case kindThink:
		if s.Turn == 1 {
			name = "think-opening.md"
		} else {
			name = "think.md"
			data.Statement = d.speech(s.Turn - 1)
			data.SideLine = st.Premise != "" && s.Turn == 2
		}
	case kindSpeech:
		name = "respond.md"
		if s.Turn == 1 {
			name = "opening.md"
		}
	case kindEvaluate:
		name = "evaluate.md"
		data.Speaker, data.Statement = st.name(s.Target), d.speech(s.Turn)
	case kindScore:
		name = "score.md"
		data.Speaker = st.name(s.Target)
		why := "One sentence explaining any change."
		if s.First {
			why = "One sentence explaining the score."
		}
		data.Example = fmt.Sprintf(`{"score": 7, "reasoning": %s}`, quote(why))
	case kindDeliberation:
		name = "deliberate.md"
	case kindConfirmation:
		name = "confirm.md"
	case kindVerdict:
		name = "verdict.md"
		data.Confirmed = d.confirmed()
		win, lose := data.NameA, data.NameB
		if data.Confirmed == data.NameB {
			win, lose = data.NameB, data.NameA
		}
		data.Example = fmt.Sprintf(`{"winner": %s, "scores": {%s: 8, %s: 6}}`, quote(win), quote(win), quote(lose))
	case kindAnnouncement:
		name = "announce.md"
	default:
		return "", fmt.Errorf("no prompt for a call of kind %q", s.Kind)
	}
	text, err := d.tmpl.Render(name, data)
	return strings.TrimSpace(text), err
}

// apply turns the answers of the calls of group into their files and the
// new state.
func (d *debate) apply(group []slot, answers map[string]sm.Answer) (*sm.Commit, error) {
	st := *d.st
	st.RunningScores = map[string]int{}
	for k, v := range d.st.RunningScores {
		st.RunningScores[k] = v
	}
	c := &sm.Commit{}
	var verdictBody []byte
	for _, s := range group {
		a, ok := answers[s.Role]
		if !ok {
			return nil, &sm.Refused{Reasons: []string{fmt.Sprintf("no answer for the %s", s.Role)}}
		}
		refuse := func(errs []string) error {
			reasons := make([]string, len(errs))
			for i, e := range errs {
				reasons[i] = s.Role + ": " + e
			}
			return &sm.Refused{Reasons: reasons, Role: s.Role, RoleReasons: errs, Answer: true}
		}
		text := strings.TrimSpace(string(a.Text))
		if text == "" && (a.Skipped == "" || s.Kind != kindConfirmation) {
			return nil, refuse([]string{"the answer is empty"})
		}
		m := callMeta{
			Seq: s.Seq, Kind: s.Kind, Role: s.Role, Speaker: st.name(s.Role), Turn: s.Turn, Final: s.Final,
			Visibility: s.visibility(), Model: a.Model, Attempts: a.Attempts,
		}
		ev := sm.Event{Role: s.Role, Title: d.describe(s)}
		switch s.Kind {
		case kindPlan:
			ev.Kind = "planned"
		case kindThink:
			ev.Kind = "thought"
		case kindSpeech:
			ev.Kind = "spoke"
		case kindEvaluate:
			ev.Kind, m.Target, m.TargetName = "evaluated", s.Target, st.name(s.Target)
		case kindScore:
			sc, errs := parseScore(a.Text)
			if len(errs) > 0 {
				return nil, refuse(errs)
			}
			n := sc.Score
			m.Target, m.TargetName, m.Score, m.Reasoning = s.Target, st.name(s.Target), &n, sc.Reasoning
			st.RunningScores[s.Target] = n
			f := float64(n)
			ev.Kind, ev.Score, ev.ID = "scored", &f, s.Target
			ev.Message = fmt.Sprintf("%d/10", n)
		case kindDeliberation:
			ev.Kind = "deliberated"
		case kindConfirmation:
			ev.Kind = "confirmed"
			if a.Skipped != "" {
				m.Skipped = a.Skipped
				ev.Message = "named neither debater: the verdict may name either"
				break
			}
			name, errs := confirmName(a.Text, st.name(st.a()), st.name(st.b()))
			if len(errs) > 0 {
				return nil, refuse(errs)
			}
			m.ConfirmedWinner = &name
			ev.Message = name
		case kindVerdict:
			confirmed := d.confirmed()
			v, errs := parseVerdict(a.Text, st.name(st.a()), st.name(st.b()), confirmed)
			if len(errs) > 0 {
				return nil, refuse(errs)
			}
			side := For
			if v.Winner == st.name(Against) {
				side = Against
			}
			vs := &verdictState{Winner: side, WinnerName: v.Winner, Scores: map[string]int{
				For: v.Scores[st.name(For)], Against: v.Scores[st.name(Against)],
			}, WinnerSource: "confirmation"}
			if confirmed == "" {
				vs.WinnerSource = "verdict-json"
			}
			if st.Premise != "" {
				up := side == For
				vs.PremiseUpheld = &up
			}
			st.Verdict = vs
			m.Winner, m.WinnerSide, m.Scores, m.PremiseUpheld, m.WinnerSource = v.Winner, side, v.Scores, vs.PremiseUpheld, vs.WinnerSource
			ev.Kind, ev.ID, ev.Message = "judged", side, fmt.Sprintf("%s wins %d to %d", v.Winner, vs.Scores[side], vs.Scores[other(side)])
		case kindAnnouncement:
			ev.Kind = "announced"
			v := st.Verdict
			if v == nil {
				return nil, &sm.Refused{Reasons: []string{"the verdict is announced before it is given"}}
			}
			vm := callMeta{Kind: "verdict", Role: Judge, Speaker: st.name(Judge), Turn: s.Turn, Visibility: "public",
				Winner: v.WinnerName, WinnerSide: v.Winner,
				Scores:        map[string]int{st.name(For): v.Scores[For], st.name(Against): v.Scores[Against]},
				PremiseUpheld: v.PremiseUpheld, WinnerSource: v.WinnerSource, Model: a.Model, Attempts: a.Attempts}
			var err error
			if verdictBody, err = renderCall(vm, text); err != nil {
				return nil, err
			}
		}
		data, err := renderCall(m, text)
		if err != nil {
			return nil, err
		}
		c.Files = append(c.Files, sm.File{Name: s.File(), Data: data})
		c.Events = append(c.Events, ev)
		st.Calls = s.Seq
	}
	if verdictBody != nil {
		c.Files = append(c.Files, sm.File{Name: VerdictFile, Data: verdictBody})
	}
	st.Turn = unitsDone(d.slots, st.Calls)
	st.Phase = phaseAfter(d.slots, st.Calls)
	if len(st.RunningScores) == 0 {
		st.RunningScores = nil
	}
	last := group[len(group)-1]
	if last.Seq == len(d.slots) || d.slots[last.Seq].Turn != last.Turn {
		c.Events[len(c.Events)-1].Ends = true
	}
	state, err := st.render(d.topic)
	if err != nil {
		return nil, err
	}
	c.Files = append(c.Files, sm.File{Name: sm.StateFile, Data: state})
	return c, nil
}
