package moderated

import (
	"fmt"
	"strings"
	"time"

	"github.com/moot-dev/moot/internal/english"
	"github.com/moot-dev/moot/internal/evidence"
	sm "github.com/moot-dev/moot/statemachine"
)

// entry is one message as a prompt shows it.
type entry struct {
	Number               int
	Name, Label, Content string
}

// speaker is a speaker and the kind of statement a transition names.
type speaker struct{ Name, Kind string }

// promptData is what every template is rendered with.
type promptData struct {
	Topic, Format                      string
	Rounds, Round                      int
	Phase, Stage, Kind                 string
	Moderator                          string
	AName, APosition, BName, BPosition string
	// Name and Position are the speaker's; OpponentName and
	// OpponentPosition the other advocate's.
	Name, Position, OpponentName, OpponentPosition string
	History                                        []entry
	Opponent, Statement, FactCheck                 *entry
	Prev, Next                                     *speaker
	Closings                                       []entry
	Criteria                                       []Criterion
	MaxTokens                                      int
	Errors                                         []string
}

func (d *debate) label(s slot) string {
	switch s.Kind {
	case kindArgument, kindRebuttal:
		return fmt.Sprintf("round %d %s", s.Round, s.Kind)
	case kindIntro:
		return "introduction to " + phaseLabel(s.Phase, s.Round, d.st.RoundCount)
	case kindTransition:
		return "transition"
	case kindRoundSummary:
		return fmt.Sprintf("summary of round %d", s.Round)
	case kindFactCheck:
		return fmt.Sprintf("fact check of message %03d", d.sched[s.Target].Number)
	}
	return kindLabel(s.Kind)
}

// entryOf returns message n as a prompt shows it; a message not written
// yet (only when templates are checked) shows as a placeholder.
func (d *debate) entryOf(s slot) entry {
	m, ok := d.messages[s.Number]
	content := m.Content
	if !ok {
		content = "(not yet written)"
	}
	return entry{Number: s.Number, Name: d.name(s.Role), Label: d.label(s), Content: evidence.Annotate(content, m.Citations)}
}

// history is every message before slot i: what every participant but the
// scorer and the fact checker sees. Scores are never in it.
func (d *debate) history(i int) []entry {
	var out []entry
	for _, s := range d.sched[:i] {
		if s.message() {
			if _, ok := d.messages[s.Number]; ok {
				out = append(out, d.entryOf(s))
			}
		}
	}
	return out
}

// historyMarks are the cache marks of an advocate's prompt for slot i,
// whose user message usr shows the history hist (see sm.Call.Marks): the
// end of the history the advocate's previous prompt showed, then the end
// of the history this one shows, which its next prompt repeats. An entry
// a template leaves out ends no mark.
func (d *debate) historyMarks(i int, usr string, hist []entry) []sm.Mark {
	seen := 0
	for j := i - 1; j >= 0; j-- {
		if d.sched[j].Role == d.sched[i].Role && d.sched[j].advocate() {
			seen = len(d.history(j))
			break
		}
	}
	var out []sm.Mark
	at := 0
	for k, e := range hist {
		n := strings.Index(usr[at:], e.Content)
		if n < 0 || e.Content == "" {
			return out
		}
		at += n + len(e.Content)
		if k == seen-1 || k == len(hist)-1 {
			if len(out) == 0 || out[len(out)-1].Offset < at {
				out = append(out, sm.Mark{Message: 1, Offset: at})
			}
		}
	}
	return out
}

func (d *debate) maxTokens(kind string) int {
	switch kind {
	case kindOpening:
		return d.st.MaxTokens.Opening
	case kindArgument, kindRebuttal:
		return d.st.MaxTokens.Argument
	case kindClosing:
		return d.st.MaxTokens.Closing
	}
	return 0
}

func (d *debate) data(s slot) promptData {
	a, _ := d.participant(RoleA)
	b, _ := d.participant(RoleB)
	pd := promptData{
		Topic: d.motion, Format: d.st.Format, Rounds: d.st.RoundCount, Round: s.Round,
		Phase: phaseLabel(s.Phase, s.Round, d.st.RoundCount), Kind: s.Kind,
		Moderator: d.name(RoleModerator),
		AName:     a.Name, APosition: a.Position, BName: b.Name, BPosition: b.Position,
		Criteria: d.st.Criteria, MaxTokens: d.maxTokens(s.Kind),
	}
	switch s.Phase {
	case phaseOpening:
		pd.Stage = "opening"
	case phaseRounds:
		pd.Stage = "round"
	default:
		pd.Stage = "closing"
	}
	role := s.Role
	if s.Kind == kindScore || s.Kind == kindFactCheck {
		role = d.sched[s.Target].Role
	}
	if role == RoleA || role == RoleB {
		me, _ := d.participant(role)
		other, _ := d.participant(d.opponent(role))
		pd.Name, pd.Position, pd.OpponentName, pd.OpponentPosition = me.Name, me.Position, other.Name, other.Position
	}
	return pd
}

// callFor builds the call of slot i from the templates and the files.
func (d *debate) callFor(i int) (sm.Call, error) {
	s := d.sched[i]
	pd := d.data(s)
	var system, user string
	switch {
	case s.advocate():
		system, user = "advocate-system.md", "advocate.md"
		pd.History = d.history(i)
		if s.Kind == kindRebuttal {
			e := d.entryOf(d.sched[s.Target])
			pd.Opponent = &e
		}
	case s.Kind == kindScore:
		system, user = "scorer-system.md", "score.md"
		target := d.sched[s.Target]
		e := d.entryOf(target)
		pd.Statement, pd.Kind = &e, target.Kind
		for _, f := range d.sched {
			if f.Kind == kindFactCheck && f.Target == s.Target {
				fe := d.entryOf(f)
				pd.FactCheck = &fe
			}
		}
	case s.Kind == kindFactCheck:
		system, user = "fact-checker-system.md", "fact-check.md"
		e := d.entryOf(d.sched[s.Target])
		pd.Statement = &e
	default:
		system = "moderator-system.md"
		if s.Kind != kindTransition {
			pd.History = d.history(i)
		}
		switch s.Kind {
		case kindIntro:
			user = "moderator-intro.md"
		case kindTransition:
			user = "moderator-transition.md"
			// A hand-over needs the statement just given and the phase,
			// not the whole debate.
			if s.Prev >= 0 {
				p := d.sched[s.Prev]
				pd.Prev = &speaker{Name: d.name(p.Role), Kind: d.label(p)}
				if _, ok := d.messages[p.Number]; ok {
					pd.History = []entry{d.entryOf(p)}
				}
			}
			n := d.sched[s.Next]
			pd.Next = &speaker{Name: d.name(n.Role), Kind: d.label(n)}
		case kindRoundSummary:
			user = "moderator-summary.md"
		case kindConclusion:
			user = "moderator-conclusion.md"
			for _, c := range d.sched {
				if c.Kind == kindClosing {
					pd.Closings = append(pd.Closings, d.entryOf(c))
				}
			}
		}
	}
	sys, err := d.tmpl.Render(system, pd)
	if err != nil {
		return sm.Call{}, err
	}
	usr, err := d.tmpl.Render(user, pd)
	if err != nil {
		return sm.Call{}, err
	}
	c := sm.Call{
		ID: s.Role, Role: s.Role, Kind: s.Kind,
		Messages:  []sm.Message{{Role: "system", Content: sys}, {Role: "user", Content: usr}},
		MaxTokens: d.maxTokens(s.Kind), Temperature: defaultTemperature(),
	}
	if s.advocate() {
		c.Marks = d.historyMarks(i, usr, pd.History)
	}
	markResearch(&c, s)
	if s.Kind == kindScore {
		criteria := d.st.Criteria
		c.Schema, c.SchemaName = rubricSchema(criteria), "rubric"
		c.Validate = func(a []byte) sm.Report {
			_, errs := ParseRubric(criteria, a)
			return sm.Report{Errors: errs}
		}
		c.Repair = func(errs []string) (sm.Message, error) {
			text, err := d.tmpl.Render("repair.md", promptData{Errors: errs})
			return sm.Message{Role: "user", Content: text}, err
		}
	} else {
		c.Validate = func(a []byte) sm.Report {
			if strings.TrimSpace(string(a)) == "" {
				return sm.Report{Errors: []string{"the answer is empty"}}
			}
			return sm.Report{}
		}
	}
	return c, nil
}

// Next returns the step of the next slot: one call.
func (d *debate) Next() (*sm.Step, error) {
	i := d.st.Step
	if i >= len(d.sched) {
		return nil, nil
	}
	c, err := d.callFor(i)
	if err != nil {
		return nil, err
	}
	s := d.sched[i]
	if s.Kind == kindScore && len(d.panel) > 0 {
		return d.panelStep(i, c)
	}
	// The debate goes on without a score (moot run --keep-going).
	c.Missable = s.Kind == kindScore
	return &sm.Step{
		Key: stepKey(i, s), Unit: s.Exchange, Calls: []sm.Call{c},
		Apply: func(answers map[string]sm.Answer, now time.Time) (*sm.Commit, error) {
			return d.apply(i, answers[c.ID], now)
		},
	}, nil
}

// DefaultTemperature is the sampling temperature of every call, as the
// original sends it to every role; --ROLE-temperature replaces it.
const DefaultTemperature = 0.7

func defaultTemperature() *float64 {
	t := DefaultTemperature
	return &t
}

// stepKey is the key of the step of slot i, s.
func stepKey(i int, s slot) string { return fmt.Sprintf("s%03d-%s", i+1, s.Kind) }

// clone returns a copy of d that a step may change.
func (d *debate) clone() *debate {
	c := *d
	c.messages = make(map[int]Message, len(d.messages)+1)
	for k, v := range d.messages {
		c.messages[k] = v
	}
	c.scores = make(map[int]Score, len(d.scores)+1)
	for k, v := range d.scores {
		c.scores[k] = v
	}
	c.gaps = make(map[int]Score, len(d.gaps))
	for k, v := range d.gaps {
		c.gaps[k] = v
	}
	return &c
}

// apply turns the answer to slot i into the step's commit: the message or
// score file, the derived files, and debate.md last.
func (d *debate) apply(i int, ans sm.Answer, now time.Time) (*sm.Commit, error) {
	if d.st.Step != i {
		return nil, &sm.Refused{Reasons: []string{fmt.Sprintf("the debate is at step %d, not %d", d.st.Step+1, i+1)}}
	}
	s := d.sched[i]
	text := strings.TrimSpace(string(ans.Text))
	if s.Kind == kindScore && ans.Missing != nil {
		target := d.sched[s.Target]
		p, _ := d.participant(target.Role)
		next := d.clone()
		sc := Score{Message: target.Number, Participant: p.ID, Missing: ans.Missing}
		next.gaps[target.Number] = sc
		data, err := renderScore(d.out(), sc)
		if err != nil {
			return nil, err
		}
		ev := sm.Event{Kind: "missing", Role: s.Role, ID: fmt.Sprintf("%03d", target.Number),
			Title:   fmt.Sprintf("the moderator scores %s's %s", d.name(target.Role), d.label(target)),
			Message: "no score: recorded as missing, no value invented",
			Data:    map[string]any{"message": target.Number, "participant": p.ID, "missing": true}}
		return d.finish(i, next, &sm.Commit{Files: []sm.File{{Name: d.scoreFile(target), Data: data}}, Events: []sm.Event{ev}})
	}
	if ans.Missing != nil {
		errs := []string{"only a score can be missing"}
		return nil, &sm.Refused{Reasons: prefixed(s.Role, errs), Role: s.Role, RoleReasons: errs, Answer: true}
	}
	if s.Kind == kindScore {
		target := d.sched[s.Target]
		marks, errs := ParseRubric(d.st.Criteria, ans.Text)
		if len(errs) > 0 {
			return nil, &sm.Refused{Reasons: prefixed(s.Role, errs), Role: s.Role, RoleReasons: errs, Answer: true}
		}
		p, _ := d.participant(target.Role)
		sc := newScore(d.st.Criteria, target.Number, p.ID, marks, text)
		total := sc.Total
		ev := sm.Event{Kind: "rated", Role: s.Role, ID: fmt.Sprintf("%03d", target.Number), Score: &total,
			Title:   fmt.Sprintf("the moderator scores %s's %s", d.name(target.Role), d.label(target)),
			Message: fmt.Sprintf("%.2f", total),
			Data:    map[string]any{"message": target.Number, "participant": p.ID, "total": total}}
		return d.commitScore(i, sc, nil, ev)
	}
	_, c, err := d.spoken(i, ans, now)
	return c, err
}

// spoken returns the debate once the message of slot i, the answer ans,
// is given, and the commit that gives it.
func (d *debate) spoken(i int, ans sm.Answer, now time.Time) (*debate, *sm.Commit, error) {
	s := d.sched[i]
	text := strings.TrimSpace(string(ans.Text))
	if text == "" {
		errs := []string{"the answer is empty"}
		return nil, nil, &sm.Refused{Reasons: prefixed(s.Role, errs), Role: s.Role, RoleReasons: errs, Answer: true}
	}
	next := d.clone()
	c := &sm.Commit{}
	p, _ := d.participant(s.Role)
	m := Message{Number: s.Number, Participant: p.ID, Name: p.Name, Role: fileRole(s.Role), Kind: s.Kind, Phase: s.Phase,
		Round: s.Round, Turn: s.Turn, Model: ans.Model, Time: now.UTC().Format(sm.TimeLayout), Content: text, file: d.messageFile(s),
		Citations: sm.Citations(ans, text, d.sources)}
	if s.Target >= 0 {
		m.RespondsTo = d.sched[s.Target].Number
	}
	next.messages[s.Number] = m
	data, err := renderMessage(d.out(), m)
	if err != nil {
		return nil, nil, err
	}
	c.Files = append(c.Files, sm.File{Name: m.file, Data: data})
	c.Events = append(c.Events, sm.Event{Kind: "spoke", Role: s.Role, ID: fmt.Sprintf("%03d", s.Number),
		Title: fmt.Sprintf("%s: %s (message %03d)", p.Name, d.label(s), s.Number),
		Data:  map[string]any{"message": s.Number, "kind": s.Kind, "file": m.file}})
	c, err = d.finish(i, next, c)
	return next, c, err
}

// commitScore returns the commit of the score sc that slot i makes: the
// files before (a panel's own), sc's file, the derived files and
// debate.md, with the event ev.
func (d *debate) commitScore(i int, sc Score, before []sm.File, ev sm.Event) (*sm.Commit, error) {
	target := d.sched[d.sched[i].Target]
	next := d.clone()
	next.scores[target.Number] = sc
	data, err := renderScore(d.out(), sc)
	if err != nil {
		return nil, err
	}
	c := &sm.Commit{Files: append(before, sm.File{Name: d.scoreFile(target), Data: data}), Events: []sm.Event{ev}}
	return d.finish(i, next, c)
}

// finish completes the commit c of slot i, whose debate is then next:
// the state moves on, the derived files and debate.md come last.
func (d *debate) finish(i int, next *debate, c *sm.Commit) (*sm.Commit, error) {
	next.st.Step = i + 1
	next.st.Exchange = d.doneUnits(i + 1)
	next.st.Phase = d.phaseAt(i + 1)
	if next.st.Exchange > d.st.Exchange {
		c.Events[len(c.Events)-1].Ends = true
	}
	return next.withDerived(c)
}

// withDerived ends c, the commit that makes the debate d, with d's
// derived files and its debate.md, last.
func (d *debate) withDerived(c *sm.Commit) (*sm.Commit, error) {
	derived, err := d.derived()
	if err != nil {
		return nil, err
	}
	c.Files = append(c.Files, derived...)
	state, err := d.renderState()
	if err != nil {
		return nil, err
	}
	c.Files = append(c.Files, sm.File{Name: sm.StateFile, Data: state})
	return c, nil
}

func prefixed(role string, errs []string) []string {
	out := make([]string, len(errs))
	for i, e := range errs {
		out[i] = role + ": " + e
	}
	return out
}

// Status says where the debate stands.
func (d *debate) Status() sm.Status {
	st := sm.Status{Unit: "exchange", Done: d.st.Exchange, Total: d.st.RoundCount + 2, Phase: d.st.Phase}
	if d.st.Step >= len(d.sched) {
		st.Complete = true
		st.Next = "nothing: the debate is complete"
	} else {
		st.Next = d.describe(d.sched[d.st.Step])
	}
	stand := d.standings()
	var parts []string
	scores := map[string]any{}
	for _, role := range []string{RoleA, RoleB} {
		p, _ := d.participant(role)
		s := stand[role]
		if s.Count == 0 && len(d.gaps) > 0 {
			// No score of the side is in, and some are missing: no
			// number stands for them.
			parts = append(parts, fmt.Sprintf("%s - (mean of 0)", p.Name))
		} else {
			parts = append(parts, fmt.Sprintf("%s %.2f (mean of %d)", p.Name, s.Mean, s.Count))
		}
		scores[role] = map[string]any{"id": p.ID, "name": p.Name, "mean": s.Mean, "latest": s.Latest, "statements": s.Count}
	}
	st.Lines = []sm.Line{
		{Label: "step", Text: fmt.Sprintf("%d of %d", min(d.st.Step, len(d.sched)), len(d.sched))},
		{Label: "scores", Text: strings.Join(parts, " · ")},
	}
	st.Data = map[string]any{"step": d.st.Step, "steps": len(d.sched), "messages": len(d.messages), "scores": scores}
	if gaps := d.gapLines(); len(gaps) > 0 {
		st.Lines = append(st.Lines, sm.Line{Label: "missing", Text: fmt.Sprintf("%s, no value invented (moot run --retry-missing asks again): %s",
			english.Count(len(gaps), "score"), strings.Join(gaps, "; "))})
		st.Data["missing"] = d.Gaps()
	}
	if pgs := d.panelGaps(); len(pgs) > 0 {
		var parts []string
		for _, pg := range pgs {
			parts = append(parts, fmt.Sprintf("judge %s on message %03d", pg.judge.Name, d.sched[d.sched[pg.slot].Target].Number))
		}
		st.Lines = append(st.Lines, sm.Line{Label: "missing", Text: fmt.Sprintf("%s of the panel's judges, no value invented; the panel's are the others' (moot run --retry-missing asks again): %s",
			english.Count(len(pgs), "score"), strings.Join(parts, "; "))})
		st.Data["missing"] = d.Gaps()
	}
	if len(d.panel) > 0 {
		st.Lines = append(st.Lines, sm.Line{Label: "judges", Text: fmt.Sprintf("a panel of %d scores: %s", len(d.panel), d.panelText())})
		st.Data["judges"] = d.panel
	}
	return st
}

// describe says what slot s does, in a sentence.
func (d *debate) describe(s slot) string {
	switch s.Kind {
	case kindScore:
		t := d.sched[s.Target]
		who := "the moderator"
		if len(d.panel) > 0 {
			who = fmt.Sprintf("the panel of %d judges", len(d.panel))
		}
		return fmt.Sprintf("%s scores %s's %s (message %03d)", who, d.name(t.Role), d.label(t), t.Number)
	case kindFactCheck:
		t := d.sched[s.Target]
		return fmt.Sprintf("the fact checker checks %s's %s (message %03d)", d.name(t.Role), d.label(t), t.Number)
	case kindTransition:
		n := d.sched[s.Next]
		return fmt.Sprintf("the moderator hands the floor to %s for the %s (message %03d)", d.name(n.Role), d.label(n), s.Number)
	case kindIntro, kindRoundSummary, kindConclusion:
		return fmt.Sprintf("the moderator gives the %s (message %03d)", d.label(s), s.Number)
	}
	return fmt.Sprintf("%s gives the %s (message %03d)", d.name(s.Role), d.label(s), s.Number)
}

var _ sm.Filler = (*debate)(nil)

// gapSlots lists the slots of the scores recorded as missing, in order.
func (d *debate) gapSlots() []int {
	var out []int
	for i, s := range d.sched {
		if i >= d.st.Step {
			break
		}
		if s.Kind != kindScore {
			continue
		}
		if _, ok := d.gaps[d.sched[s.Target].Number]; ok {
			out = append(out, i)
		}
	}
	return out
}

// Gaps lists the scores recorded as missing, in the order they were
// asked for: the moderator's, or with a panel each judge's whose score is
// missing, in the panel's order.
func (d *debate) Gaps() []string {
	var out []string
	for _, i := range d.gapSlots() {
		if g := d.gaps[d.sched[d.sched[i].Target].Number]; g.Missing.Model != "panel" {
			out = append(out, g.Missing.Call)
		}
	}
	for _, pg := range d.panelGaps() {
		out = append(out, pg.call)
	}
	return out
}

// gapLines describes the scores recorded as missing, for the status.
func (d *debate) gapLines() []string {
	var out []string
	for _, i := range d.gapSlots() {
		t := d.sched[d.sched[i].Target]
		out = append(out, fmt.Sprintf("%s's %s (message %03d)", d.name(t.Role), d.label(t), t.Number))
	}
	return out
}

// Fill returns the step that asks the moderator again for the score
// recorded as missing that gap names. Its commit writes the score in
// place of the record, the derived files and debate.md.
func (d *debate) Fill(gap string) (*sm.Step, error) {
	for _, pg := range d.panelGaps() {
		if pg.call == gap {
			return d.fillPanel(pg.slot, pg.judge)
		}
	}
	for _, i := range d.gapSlots() {
		s := d.sched[i]
		target := d.sched[s.Target]
		if d.gaps[target.Number].Missing.Call != gap {
			continue
		}
		c, err := d.callFor(i)
		if err != nil {
			return nil, err
		}
		c.Missable = true
		return &sm.Step{
			Key: stepKey(i, s), Unit: s.Exchange, Calls: []sm.Call{c},
			Apply: func(answers map[string]sm.Answer, now time.Time) (*sm.Commit, error) {
				ans := answers[c.ID]
				if ans.Missing != nil {
					// Refused again: the record stays, with this run's
					// answers.
					sc := d.gaps[target.Number]
					sc.Missing = ans.Missing
					return d.refill(target, sc, sm.Event{Kind: "missing", Role: s.Role, ID: fmt.Sprintf("%03d", target.Number),
						Message: "no score again: still missing, no value invented"})
				}
				marks, errs := ParseRubric(d.st.Criteria, ans.Text)
				if len(errs) > 0 {
					return nil, &sm.Refused{Reasons: prefixed(s.Role, errs), Role: s.Role, RoleReasons: errs, Answer: true}
				}
				p, _ := d.participant(target.Role)
				sc := newScore(d.st.Criteria, target.Number, p.ID, marks, strings.TrimSpace(string(ans.Text)))
				total := sc.Total
				return d.refill(target, sc, sm.Event{Kind: "rated", Role: s.Role, ID: fmt.Sprintf("%03d", target.Number), Score: &total,
					Title:   fmt.Sprintf("the moderator scores %s's %s, asked again", d.name(target.Role), d.label(target)),
					Message: fmt.Sprintf("%.2f", total)})
			},
		}, nil
	}
	return nil, fmt.Errorf("no score %q is missing", gap)
}

// refill is the commit of a step of Fill: the score sc of the message of
// target, scored or still missing, the derived files and debate.md.
func (d *debate) refill(target slot, sc Score, ev sm.Event) (*sm.Commit, error) {
	next := d.clone()
	delete(next.gaps, target.Number)
	delete(next.scores, target.Number)
	if sc.Missing != nil {
		next.gaps[target.Number] = sc
	} else {
		next.scores[target.Number] = sc
	}
	data, err := renderScore(d.out(), sc)
	if err != nil {
		return nil, err
	}
	return next.withDerived(&sm.Commit{Files: []sm.File{{Name: d.scoreFile(target), Data: data}}, Events: []sm.Event{ev}})
}
