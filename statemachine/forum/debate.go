package forum

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/moot-dev/moot/internal/english"
	"github.com/moot-dev/moot/internal/evidence"
	"github.com/moot-dev/moot/internal/frontmatter"
	sm "github.com/moot-dev/moot/statemachine"
	"github.com/moot-dev/moot/templates"
)

// debate is a forum debate as read from its files.
type debate struct {
	st      *state
	topic   string
	front   frontmatter.Object // debate.md's frontmatter as read
	slots   []slot
	calls   map[string]*callFile
	verdict *callFile
	tmpl    *templates.Set
	// panel is the judge panel debate.md names, nil for none; judges
	// holds every judge's folder under judgments/, by name; benched what
	// is wrong with the folders (sm.Bench.Problems).
	panel   []sm.Judge
	judges  map[string]*judgeFolder
	benched []sm.Problem
	// sources holds the pages the debate's research read, by URL.
	sources map[string]*evidence.Source
}

// file returns the committed file of s, nil when there is none.
func (d *debate) file(s slot) *callFile {
	if s.Seq > d.st.Calls {
		return nil
	}
	return d.calls[s.File()]
}

// history gives the file a role's conversation holds for an earlier slot
// of that role: the debate's own files (debate.file) or one judge's.
type history func(slot) *callFile

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
		return withCitations(f.body, f.meta.Citations)
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
		Unit: "turn", Done: unitsDone(d.slots, d.st.Calls), Total: units(d.st.Turns, d.st.Judge != nil), Closing: closing(d.st.Judge != nil),
		Complete: len(d.slots) > 0 && d.st.Calls >= len(d.slots), Phase: d.st.Phase,
	}
	data := map[string]any{"turns": d.st.Turns, "calls": d.st.Calls, "calls_total": len(d.slots)}
	if st.Complete {
		st.Next = "nothing: the debate is complete"
	} else if d.st.Calls >= 0 && d.st.Calls < len(d.slots) {
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
	if gaps := d.gapLines(); len(gaps) > 0 {
		st.Lines = append(st.Lines, sm.Line{Label: "missing", Text: fmt.Sprintf("%s, no value invented (moot run --retry-missing asks again): %s",
			english.Count(len(gaps), "call"), strings.Join(gaps, "; "))})
		data["missing"] = d.Gaps()
	}
	if len(d.panel) > 0 {
		var names []string
		for _, j := range d.panel {
			names = append(names, fmt.Sprintf("%s (%s)", j.Name, j.Model))
		}
		st.Lines = append(st.Lines, sm.Line{Label: "judges", Text: fmt.Sprintf("a panel of %d: %s", len(d.panel), strings.Join(names, ", "))})
		data["judges"] = d.panel
		if !st.Complete && d.st.Calls >= 0 && d.st.Calls < len(d.slots) && d.slots[d.st.Calls].Role == Judge {
			st.Next += fmt.Sprintf(", asked of each of the panel's %d judges", len(d.panel))
		}
	}
	if v := d.st.Verdict; v != nil {
		loser := other(v.Winner)
		text := fmt.Sprintf("%s (%s) wins, %d to %d", v.WinnerName, sideWord(v.Winner), v.Scores[v.Winner], v.Scores[loser])
		if v.Votes != nil {
			text += fmt.Sprintf(" (%d of the panel's %d judges)", v.Votes[v.Winner], v.Votes[For]+v.Votes[Against])
		}
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
	st := d.st
	if st.Protocol != Name {
		f.Problemf(sm.StateFile, "protocol is %q, not %q", st.Protocol, Name)
	}
	if st.Turns < 1 || st.Turns > MaxTurns {
		f.Problemf(sm.StateFile, "turns: %d is outside 1 to %d", st.Turns, MaxTurns)
	}
	if st.FirstSpeaker != For && st.FirstSpeaker != Against {
		f.Problemf(sm.StateFile, "first_speaker: %q is neither %q nor %q", st.FirstSpeaker, For, Against)
	}
	for _, role := range []string{For, Against, Judge} {
		if p := st.persona(role); p != nil && strings.TrimSpace(p.Name) == "" {
			f.Problemf(sm.StateFile, "%s.name: missing", role)
		}
	}
	if len(f.Problems) > 0 {
		return f
	}
	if st.Calls < 0 || st.Calls > len(d.slots) || st.Calls == 1 {
		f.Problemf(sm.StateFile, "calls: %d is not a number of calls this debate can have made (0, or 2 to %d)", st.Calls, len(d.slots))
		return f
	}
	if want := phaseAfter(d.slots, st.Calls); st.Phase != want {
		f.Problemf(sm.StateFile, "phase: %q, but after %d calls the debate waits for %q", st.Phase, st.Calls, want)
	}
	if want := unitsDone(d.slots, st.Calls); st.Turn != want {
		f.Problemf(sm.StateFile, "turn: %d, but after %d calls %d turns are done", st.Turn, st.Calls, want)
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
			f.Problemf(name, "is missing: call %d was made", s.Seq)
			continue
		}
		for _, msg := range checkCall(s, c) {
			f.Problemf(name, "%s", msg)
		}
		if c.err == nil {
			for _, msg := range d.checkDerived(s, c) {
				f.Problemf(name, "%s", msg)
			}
		}
		if sc := c.meta.Score; s.Kind == kindScore && c.err == nil && sc != nil && *sc >= 0 && *sc <= 10 {
			running[s.Target] = *sc
		}
	}
	for _, name := range sortedKeys(d.calls) {
		if !expected[name] {
			f.Problemf(name, "is not a call this debate has made (it has made %d)", st.Calls)
		}
	}
	for _, side := range []string{For, Against} {
		got, has := st.RunningScores[side]
		want, had := running[side]
		if has != had || got != want {
			f.Problemf(sm.StateFile, "running_scores.%s: %s, but the score files give %s", side, optInt(got, has), optInt(want, had))
		}
	}
	complete := len(d.slots) > 0 && st.Calls == len(d.slots)
	if st.Judge != nil && complete {
		call, _ := d.slotOf(kindVerdict, st.Turns+1)
		given := d.calls[call.File()]
		switch {
		case d.verdict == nil:
			f.Problemf(VerdictFile, "is missing: the debate is complete")
		case d.verdict.err != nil:
			f.Problemf(VerdictFile, "%v", d.verdict.err)
		case given != nil && given.err == nil:
			for _, msg := range sameVerdict(d.verdict.meta, given.meta) {
				f.Problemf(VerdictFile, "%s, but %s gives %s", msg[0], call.File(), msg[1])
			}
		}
		if given != nil && given.err == nil {
			if msg := d.checkStateVerdict(given); msg != "" {
				f.Problemf(sm.StateFile, "%s", msg)
			}
		}
	} else if d.verdict != nil {
		f.Problemf(VerdictFile, "is there before the verdict is announced")
	}
	d.checkJudges(&f)
	return f
}

// checkDerived lists the values of c, the file of slot s, that are not
// what they are derived from: the names of the debate's personas, and the
// judge's answer, its body, read again as it was when it was accepted. A
// call a panel answered keeps the panel's aggregate, checked by the
// panel's own files.
func (d *debate) checkDerived(s slot, c *callFile) []string {
	m := c.meta
	var out []string
	if want := d.st.name(s.Role); m.Speaker != want {
		out = append(out, fmt.Sprintf("speaker: %q, but %s is %q", m.Speaker, s.Role, want))
	}
	if m.Target != "" && m.TargetName != d.st.name(m.Target) {
		out = append(out, fmt.Sprintf("target_name: %q, but %s is %q", m.TargetName, m.Target, d.st.name(m.Target)))
	}
	// A call recorded as missing has no answer to read again: checkCall
	// holds it to having no score.
	if m.Skipped != "" || m.Missing != nil || len(m.Panel) > 0 || m.PanelMean != nil || m.PanelMeans != nil {
		return out
	}
	confirmed := ""
	if s.Kind == kindVerdict {
		if cs, ok := d.slotOf(kindConfirmation, s.Turn); ok {
			if f := d.calls[cs.File()]; f != nil && f.meta.ConfirmedWinner != nil {
				confirmed = *f.meta.ConfirmedWinner
			}
		}
	}
	want, _, _, errs := d.answerOf(s, sm.Answer{Text: []byte(c.body), Model: m.Model, Attempts: m.Attempts}, confirmed)
	if len(errs) > 0 {
		switch s.Kind {
		case kindScore, kindConfirmation, kindVerdict:
			return append(out, "the judge's answer, its text, does not read: "+strings.Join(errs, "; "))
		}
		return out
	}
	fields := []struct {
		key       string
		got, want any
	}{
		{"score", m.Score, want.Score}, {"reasoning", m.Reasoning, want.Reasoning},
		{"confirmed_winner", m.ConfirmedWinner, want.ConfirmedWinner},
		{"winner", m.Winner, want.Winner}, {"winner_side", m.WinnerSide, want.WinnerSide},
		{"scores", m.Scores, want.Scores}, {"premise_upheld", m.PremiseUpheld, want.PremiseUpheld},
		{"winner_source", m.WinnerSource, want.WinnerSource},
	}
	for _, f := range fields {
		if g, w := shown(f.got), shown(f.want); g != w {
			out = append(out, fmt.Sprintf("%s: %s, but the judge's answer below gives %s", f.key, g, w))
		}
	}
	return out
}

// shown writes v as JSON, for comparing and naming values.
func shown(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}

// sameVerdict lists, as pairs of what file gives and what call gives,
// the fields of the verdict where verdict.md, file, and the verdict
// call's file, call, differ.
func sameVerdict(file, call callMeta) [][2]string {
	var out [][2]string
	for _, f := range []struct {
		key       string
		got, want any
	}{
		{"winner", file.Winner, call.Winner}, {"winner_side", file.WinnerSide, call.WinnerSide},
		{"scores", file.Scores, call.Scores}, {"premise_upheld", file.PremiseUpheld, call.PremiseUpheld},
		{"winner_source", file.WinnerSource, call.WinnerSource}, {"speaker", file.Speaker, call.Speaker},
	} {
		if g, w := shown(f.got), shown(f.want); g != w {
			out = append(out, [2]string{f.key + ": " + g, w})
		}
	}
	return out
}

// checkStateVerdict says how debate.md's verdict differs from the one the
// verdict call's file, given, holds, or "".
func (d *debate) checkStateVerdict(given *callFile) string {
	st := d.st.Verdict
	want := d.verdictOf(given)
	if st == nil || want == nil {
		return "verdict: missing, but the verdict is given in " + given.name()
	}
	got := *st
	got.Votes = nil // a panel's count, checked by the panel's files
	if g, w := shown(got), shown(*want); g != w {
		return fmt.Sprintf("verdict: %s, but the verdict given in %s is %s", g, given.name(), w)
	}
	return ""
}

// checkCall lists what is wrong with c, the file of slot s.
func checkCall(s slot, c *callFile) []string {
	if c.err != nil {
		return []string{c.err.Error()}
	}
	var out []string
	m := c.meta
	if m.Seq != s.Seq || m.Kind != s.Kind || m.Role != s.Role || m.Turn != s.Turn {
		out = append(out, fmt.Sprintf("says call %d, %s by %s in turn %d; the schedule has call %d, %s by %s in turn %d", m.Seq, m.Kind, m.Role, m.Turn, s.Seq, s.Kind, s.Role, s.Turn))
	}
	if m.Visibility != s.visibility() {
		out = append(out, fmt.Sprintf("visibility: %q, want %q", m.Visibility, s.visibility()))
	}
	if m.Skipped == "" && c.body == "" {
		out = append(out, "has no reply")
	}
	if m.Missing != nil {
		switch {
		case !missable(s):
			out = append(out, fmt.Sprintf("missing: a %s cannot be missing", s.Kind))
		case !strings.Contains(m.Missing.Call, s.Key()+"/"+s.Role):
			out = append(out, fmt.Sprintf("missing.call: %q is not call %s of the %s", m.Missing.Call, s.Key(), s.Role))
		case m.Score != nil:
			out = append(out, "score: a missing call has no score")
		}
		return out
	}
	switch s.Kind {
	case kindScore:
		if m.Score == nil || *m.Score < 0 || *m.Score > 10 {
			return append(out, "score: want a whole number from 0 to 10")
		}
		if m.Target != s.Target {
			out = append(out, fmt.Sprintf("target: %q, want %q", m.Target, s.Target))
		}
	case kindVerdict:
		if m.WinnerSide != For && m.WinnerSide != Against {
			out = append(out, fmt.Sprintf("winner_side: %q is neither %q nor %q", m.WinnerSide, For, Against))
		}
	}
	return out
}

func optInt(n int, ok bool) string {
	if !ok {
		return "none"
	}
	return fmt.Sprint(n)
}

// Next returns the step the debate waits for: both plans together, then
// one call a step. A judge's call, when debate.md names a panel, is asked
// of every judge of the panel.
func (d *debate) Next() (*sm.Step, error) {
	if len(d.slots) == 0 || d.st.Calls >= len(d.slots) {
		return nil, nil
	}
	if d.st.Calls < 0 {
		return nil, fmt.Errorf("%s: calls: %d is below zero", sm.StateFile, d.st.Calls)
	}
	group := []slot{d.slots[d.st.Calls]}
	if d.st.Calls == 0 {
		group = d.slots[:2]
	}
	if group[0].Role == Judge && len(d.panel) > 0 {
		return d.panelStep(group[0])
	}
	calls := make([]sm.Call, 0, len(group))
	for _, s := range group {
		c, err := d.call(s, d.file)
		if err != nil {
			return nil, err
		}
		c.Missable = missable(s)
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

// callKind is the kind of s's call, for the built-in model's script: the
// slot's kind, with a debater's first thought and speech ("think-opening",
// "opening") and its last speech ("closing") told apart, as their prompts
// are.
func callKind(s slot) string {
	switch {
	case s.Kind == kindThink && s.Turn == 1:
		return "think-opening"
	case s.Kind == kindSpeech && s.Turn == 1:
		return "opening"
	case s.Kind == kindSpeech && s.Final:
		return "closing"
	}
	return s.Kind
}

// call builds the request of s: the role's system prompt, its earlier
// prompts and the replies h holds, and the new prompt.
func (d *debate) call(s slot, h history) (sm.Call, error) {
	msgs, err := d.messages(s, h)
	if err != nil {
		return sm.Call{}, err
	}
	c := sm.Call{
		ID: s.Role, Role: s.Role, Kind: callKind(s), Messages: msgs, Marks: sm.ConversationMarks(msgs),
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
		confirmed := d.confirmed(h)
		c.Schema, c.SchemaName = verdictSchema(a, b, confirmed), "verdict"
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
	markResearch(&c, s)
	return c, nil
}

// confirmed returns the name the judge whose files h gives confirmed as
// the winner, "" when its confirmation named neither debater or is not
// made yet.
func (d *debate) confirmed(h history) string {
	s, ok := d.slotOf(kindConfirmation, d.st.Turns+1)
	if !ok {
		return ""
	}
	f := h(s)
	if f == nil || f.meta.ConfirmedWinner == nil {
		return ""
	}
	return *f.meta.ConfirmedWinner
}

func (d *debate) messages(s slot, h history) ([]sm.Message, error) {
	sys, err := d.system(s.Role)
	if err != nil {
		return nil, err
	}
	msgs := []sm.Message{{Role: "system", Content: sys}}
	for _, e := range d.slots[:s.Seq-1] {
		if e.Role != s.Role {
			continue
		}
		f := h(e)
		if f == nil || f.meta.Skipped != "" || f.meta.Missing != nil {
			continue
		}
		p, err := d.prompt(e, h)
		if err != nil {
			return nil, err
		}
		msgs = append(msgs, sm.Message{Role: "user", Content: p}, sm.Message{Role: "assistant", Content: f.body})
	}
	p, err := d.prompt(s, h)
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

// prompt is the newest user message of s, for the role whose files h
// gives.
func (d *debate) prompt(s slot, h history) (string, error) {
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
		data.Confirmed = d.confirmed(h)
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

// refusal is the refusal of errs, the problems of the answer of role, each
// said of who.
func refusal(role, who string, errs []string) *sm.Refused {
	reasons := make([]string, len(errs))
	for i, e := range errs {
		reasons[i] = who + ": " + e
	}
	return &sm.Refused{Reasons: reasons, Role: role, RoleReasons: errs, Answer: true}
}

// answerOf reads a, the answer to s: the frontmatter of its file and the
// answer as its body, and, for the verdict, the verdict it gives. The
// judge's verdict must name confirmed when it is not empty. errs says why
// the answer is refused.
func (d *debate) answerOf(s slot, a sm.Answer, confirmed string) (m callMeta, text string, v *verdictState, errs []string) {
	st := d.st
	if a.Missing != nil {
		if !missable(s) {
			return m, "", nil, []string{fmt.Sprintf("the %s cannot be missing: the debate cannot go on without it", s.Kind)}
		}
		m = callMeta{
			Seq: s.Seq, Kind: s.Kind, Role: s.Role, Speaker: st.name(s.Role), Turn: s.Turn, Final: s.Final,
			Visibility: s.visibility(), Model: a.Model, Attempts: a.Attempts, Missing: a.Missing,
			Target: s.Target, TargetName: st.name(s.Target),
		}
		return m, missingBody(a.Missing), nil, nil
	}
	text = strings.TrimSpace(string(a.Text))
	if text == "" && (a.Skipped == "" || s.Kind != kindConfirmation) {
		return m, text, nil, []string{"the answer is empty"}
	}
	m = callMeta{
		Seq: s.Seq, Kind: s.Kind, Role: s.Role, Speaker: st.name(s.Role), Turn: s.Turn, Final: s.Final,
		Visibility: s.visibility(), Model: a.Model, Attempts: a.Attempts,
	}
	switch s.Kind {
	case kindEvaluate:
		m.Target, m.TargetName = s.Target, st.name(s.Target)
	case kindScore:
		sc, errs := parseScore(a.Text)
		if len(errs) > 0 {
			return m, text, nil, errs
		}
		n := sc.Score
		m.Target, m.TargetName, m.Score, m.Reasoning = s.Target, st.name(s.Target), &n, sc.Reasoning
	case kindConfirmation:
		if a.Skipped != "" {
			m.Skipped = a.Skipped
			break
		}
		name, errs := confirmName(a.Text, st.name(st.a()), st.name(st.b()))
		if len(errs) > 0 {
			return m, text, nil, errs
		}
		m.ConfirmedWinner = &name
	case kindVerdict:
		ans, errs := parseVerdict(a.Text, st.name(st.a()), st.name(st.b()), confirmed)
		if len(errs) > 0 {
			return m, text, nil, errs
		}
		side := For
		if ans.Winner == st.name(Against) {
			side = Against
		}
		v = &verdictState{Winner: side, WinnerName: ans.Winner, Scores: map[string]int{
			For: ans.Scores[st.name(For)], Against: ans.Scores[st.name(Against)],
		}, WinnerSource: "confirmation"}
		if confirmed == "" {
			v.WinnerSource = "verdict-json"
		}
		if st.Premise != "" {
			up := side == For
			v.PremiseUpheld = &up
		}
		m.Winner, m.WinnerSide, m.Scores, m.PremiseUpheld, m.WinnerSource = ans.Winner, side, ans.Scores, v.PremiseUpheld, v.WinnerSource
	}
	return m, text, v, nil
}

// event says what the call of s did, its file's frontmatter being m.
func (d *debate) event(s slot, m callMeta) sm.Event {
	ev := sm.Event{Role: s.Role, Title: d.describe(s)}
	switch s.Kind {
	case kindPlan:
		// The two plans are asked together, but each event is one
		// debater's.
		ev.Kind = "planned"
		ev.Title = fmt.Sprintf("%s (%s) plans in private", d.st.name(s.Role), s.Role)
	case kindThink:
		ev.Kind = "thought"
	case kindSpeech:
		ev.Kind = "spoke"
	case kindEvaluate:
		ev.Kind = "evaluated"
		if m.Missing != nil {
			ev.Kind, ev.Message = "missing", "no evaluation: recorded as missing"
		}
	case kindScore:
		if m.Score == nil {
			ev.Kind, ev.ID, ev.Message = "missing", s.Target, "no score: recorded as missing, no value invented"
			break
		}
		f := float64(*m.Score)
		ev.Kind, ev.Score, ev.ID = "scored", &f, s.Target
		ev.Message = fmt.Sprintf("%d/10", *m.Score)
	case kindDeliberation:
		ev.Kind = "deliberated"
	case kindConfirmation:
		ev.Kind = "confirmed"
		if m.ConfirmedWinner != nil {
			ev.Message = *m.ConfirmedWinner
		} else {
			ev.Message = "named neither debater: the verdict may name either"
		}
	case kindVerdict:
		side := m.WinnerSide
		ev.Kind, ev.ID = "judged", side
		ev.Message = fmt.Sprintf("%s wins %d to %d", m.Winner, m.Scores[d.st.name(side)], m.Scores[d.st.name(other(side))])
	case kindAnnouncement:
		ev.Kind = "announced"
	}
	return ev
}

// verdictFile renders verdict.md: the verdict v, announced in text by a
// call of unit turn; set, when not nil, adds to its frontmatter.
func (d *debate) verdictFile(v *verdictState, turn int, model string, attempts int, text string, set func(*callMeta)) ([]byte, error) {
	st := d.st
	vm := callMeta{Kind: "verdict", Role: Judge, Speaker: st.name(Judge), Turn: turn, Visibility: "public",
		Winner: v.WinnerName, WinnerSide: v.Winner,
		Scores:        map[string]int{st.name(For): v.Scores[For], st.name(Against): v.Scores[Against]},
		PremiseUpheld: v.PremiseUpheld, WinnerSource: v.WinnerSource, Model: model, Attempts: attempts}
	if set != nil {
		set(&vm)
	}
	return renderCall(vm, text)
}

// verdictOf is the verdict a verdict call's file gives.
func (d *debate) verdictOf(f *callFile) *verdictState {
	if f == nil || (f.meta.WinnerSide != For && f.meta.WinnerSide != Against) {
		return nil
	}
	m := f.meta
	return &verdictState{Winner: m.WinnerSide, WinnerName: m.Winner, PremiseUpheld: m.PremiseUpheld, WinnerSource: m.WinnerSource,
		Scores: map[string]int{For: m.Scores[d.st.name(For)], Against: m.Scores[d.st.name(Against)]}}
}

// apply turns the answers of the calls of group into their files and the
// new state.
func (d *debate) apply(group []slot, answers map[string]sm.Answer) (*sm.Commit, error) {
	st := d.nextState()
	c := &sm.Commit{}
	var verdictBody []byte
	for _, s := range group {
		a, ok := answers[s.Role]
		if !ok {
			return nil, &sm.Refused{Reasons: []string{fmt.Sprintf("no answer for the %s", s.Role)}}
		}
		m, text, v, errs := d.answerOf(s, a, d.confirmed(d.file))
		if len(errs) > 0 {
			return nil, refusal(s.Role, s.Role, errs)
		}
		m.Citations = sm.Citations(a, text, d.sources)
		switch s.Kind {
		case kindScore:
			if m.Score != nil {
				st.RunningScores[s.Target] = *m.Score
			}
		case kindVerdict:
			st.Verdict = v
		case kindAnnouncement:
			if st.Verdict == nil {
				return nil, &sm.Refused{Reasons: []string{"the verdict is announced before it is given"}}
			}
			var err error
			if verdictBody, err = d.verdictFile(st.Verdict, s.Turn, a.Model, a.Attempts, text, nil); err != nil {
				return nil, err
			}
		}
		data, err := renderCall(m, text)
		if err != nil {
			return nil, err
		}
		c.Files = append(c.Files, sm.File{Name: s.File(), Data: data})
		c.Events = append(c.Events, d.event(s, m))
		st.Calls = s.Seq
	}
	if verdictBody != nil {
		c.Files = append(c.Files, sm.File{Name: VerdictFile, Data: verdictBody})
	}
	return d.commitState(st, group[len(group)-1], c)
}

// nextState is a copy of the state for a step to change.
func (d *debate) nextState() state {
	st := *d.st
	st.RunningScores = map[string]int{}
	for k, v := range d.st.RunningScores {
		st.RunningScores[k] = v
	}
	return st
}

// commitState ends c, the commit of a step whose last call is of slot
// last: it marks the end of a unit and writes st, the state after it,
// last.
func (d *debate) commitState(st state, last slot, c *sm.Commit) (*sm.Commit, error) {
	st.Turn = unitsDone(d.slots, st.Calls)
	st.Phase = phaseAfter(d.slots, st.Calls)
	if len(st.RunningScores) == 0 {
		st.RunningScores = nil
	}
	if last.Seq == len(d.slots) || d.slots[last.Seq].Turn != last.Turn {
		c.Events[len(c.Events)-1].Ends = true
	}
	data, err := st.render(d.topic, d.front)
	if err != nil {
		return nil, err
	}
	c.Files = append(c.Files, sm.File{Name: sm.StateFile, Data: data})
	return c, nil
}

// missable reports whether the debate can go on without the call of s
// (moot run --keep-going): the judge's evaluation and score of a turn.
// The running score then stays the last one given.
func missable(s slot) bool {
	return s.Kind == kindEvaluate || s.Kind == kindScore
}

// missingBody is the body of the file of a call recorded as missing.
func missingBody(m *sm.Missing) string {
	return fmt.Sprintf("(missing: %s was refused after every repair; %s)", english.Count(len(m.Answers), "answer"), sm.MissingNote)
}

var _ sm.Filler = (*debate)(nil)

// Gaps lists the calls recorded as missing, in the order they were made:
// the judge's own, or, for a call a panel answered, each judge's whose
// answer is missing, in the panel's order (--retry-missing asks that
// judge alone).
func (d *debate) Gaps() []string {
	var out []string
	for _, s := range d.slots {
		f := d.file(s)
		switch {
		case f == nil || f.err != nil || !missable(s):
		case len(f.meta.Panel) > 0:
			for _, g := range d.panelGapsOf(s, f) {
				out = append(out, g.call)
			}
		case f.meta.Missing != nil:
			out = append(out, f.meta.Missing.Call)
		}
	}
	return out
}

// Fill returns the step that asks the judge again for the missing call
// gap, with the conversation the judge had then. Its commit replaces the
// call's file and, for a score, sets the running score of its target
// again from the score files. A panel judge's gap is asked of that judge
// alone, and the panel's file of the call is made anew.
func (d *debate) Fill(gap string) (*sm.Step, error) {
	var s slot
	found := false
	for _, e := range d.slots {
		f := d.file(e)
		if f == nil || f.err != nil || !missable(e) {
			continue
		}
		if len(f.meta.Panel) > 0 {
			for _, g := range d.panelGapsOf(e, f) {
				if g.call == gap {
					return d.fillPanel(g)
				}
			}
			continue
		}
		if f.meta.Missing != nil && f.meta.Missing.Call == gap {
			s, found = e, true
			break
		}
	}
	if !found {
		return nil, fmt.Errorf("no call %q is missing", gap)
	}
	c, err := d.call(s, d.file)
	if err != nil {
		return nil, err
	}
	c.Missable = true
	return &sm.Step{
		Key: s.Key(), Unit: s.Turn, Calls: []sm.Call{c},
		Apply: func(answers map[string]sm.Answer, now time.Time) (*sm.Commit, error) {
			a, ok := answers[s.Role]
			if !ok {
				return nil, &sm.Refused{Reasons: []string{fmt.Sprintf("no answer for the %s", s.Role)}}
			}
			m, text, _, errs := d.answerOf(s, a, "")
			if len(errs) > 0 {
				return nil, refusal(s.Role, s.Role, errs)
			}
			data, err := renderCall(m, text)
			if err != nil {
				return nil, err
			}
			ev := d.event(s, m)
			if m.Missing != nil {
				ev.Message += " (asked again)"
			}
			return d.refill(s, m, []sm.File{{Name: s.File(), Data: data}}, ev)
		},
	}, nil
}

// refill ends the commit of a step of Fill, whose files are files: the
// call of s now has the debate's own file of frontmatter m, and, for a
// score, its target's running score is the last one on file again.
func (d *debate) refill(s slot, m callMeta, files []sm.File, ev sm.Event) (*sm.Commit, error) {
	st := d.nextState()
	if s.Kind == kindScore && m.Score != nil {
		// The running score is the target's last score given.
		st.RunningScores[s.Target] = *m.Score
		for _, e := range d.slots[s.Seq:] {
			if f := d.file(e); e.Kind == kindScore && e.Target == s.Target && f != nil && f.meta.Score != nil {
				st.RunningScores[s.Target] = *f.meta.Score
			}
		}
	}
	c := &sm.Commit{Files: files, Events: []sm.Event{ev}}
	if len(st.RunningScores) == 0 {
		st.RunningScores = nil
	}
	state, err := st.render(d.topic, d.front)
	if err != nil {
		return nil, err
	}
	c.Files = append(c.Files, sm.File{Name: sm.StateFile, Data: state})
	return c, nil
}

// gapLines describes the calls recorded as missing, for the status: a
// call a panel answered once for each judge whose answer is missing.
func (d *debate) gapLines() []string {
	var out []string
	for _, s := range d.slots {
		f := d.file(s)
		switch {
		case f == nil || f.err != nil:
		case len(f.meta.Panel) > 0 && missable(s):
			for _, g := range d.panelGapsOf(s, f) {
				out = append(out, fmt.Sprintf("call %d: %s (judge %s)", s.Seq, d.describe(s), g.judge.Name))
			}
		case f.meta.Missing != nil:
			out = append(out, fmt.Sprintf("call %d: %s", s.Seq, d.describe(s)))
		}
	}
	return out
}
