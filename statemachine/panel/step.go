package panel

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/moot-dev/moot/internal/evidence"
	sm "github.com/moot-dev/moot/statemachine"
)

// The roles a call is made for, by tier: the voice tier speaks as the
// personas and writes the card and the summary (the original's strong
// model); the analysis tier makes the quick judgements (its fast one).
const (
	RolePersona      = "persona"
	RoleCrux         = "crux"
	RoleCard         = "card"
	RoleSummary      = "summary"
	RoleDecompose    = "decompose"
	RoleRoundSummary = "round-summary"
	RoleDetect       = "detect"
	RoleExitCheck    = "exit-check"
	RoleConvergence  = "convergence"
	RoleShifts       = "shifts"
	groupVoice       = "voice"
	groupAnalysis    = "analysis"
)

// tier is a role's default sampling temperature and answer length.
type tier struct {
	temperature float64
	maxTokens   int
}

// tierOf returns the design's temperature and the original's answer
// length for role.
func tierOf(role string) tier {
	switch role {
	case RolePersona:
		return tier{0.85, 250}
	case RoleCrux:
		return tier{0.75, 250}
	case RoleCard:
		return tier{0.3, 600}
	case RoleSummary:
		return tier{0.2, 4096}
	case RoleDecompose:
		return tier{0.3, 300}
	case RoleRoundSummary:
		return tier{0.2, 100}
	case RoleDetect:
		return tier{0.2, 300}
	case RoleExitCheck, RoleConvergence:
		return tier{0.2, 200}
	}
	return tier{0.2, 300}
}

// entry is one message as a prompt shows it.
type entry struct {
	ID, Name, Label, Content string
}

// promptData is what every template is rendered with.
type promptData struct {
	Task          string
	Topic         string
	Persona       Persona
	Never         []string
	Anchors       []string
	Aspect        Aspect
	AspectCount   int
	Openings      []entry
	Rounds        []string // "label: summary" of earlier aspects
	Disagreements []string // "A vs B: question"
	CardLines     []string // "question [kind] (resolved|unresolved)"
	Others        []entry
	Mine, Reply   *entry
	Question      string
	Opponent      string
	Positions     []entry
	Window        []entry
	Last          *entry
	Turn          int
	Late          bool
	Takes         []entry
	Transcript    []entry
	Cards         []Card
	Pairs         []pairEntry
	Names         []string
	Errors        []string
}

// pairEntry is a persona's opening and closing, for the shift check.
type pairEntry struct {
	ID, Name         string
	Opening, Closing string
}

func (d *debate) entry(path string) entry {
	m := d.msgs[path]
	return entry{ID: m.ID, Name: m.Name, Label: label(m), Content: evidence.Annotate(m.Content, m.Citations)}
}

func (d *debate) entries(paths []string) []entry {
	out := make([]entry, 0, len(paths))
	for _, p := range paths {
		out = append(out, d.entry(p))
	}
	return out
}

func label(m Message) string {
	switch m.Kind {
	case kindOpening:
		return "opening"
	case kindClosing:
		return "closing"
	case kindTake, kindReact, kindReply:
		return fmt.Sprintf("aspect %d, miniround %d", m.Aspect, deref(m.Mini))
	case kindPosition:
		return "position"
	case kindTurn:
		return fmt.Sprintf("turn %d", deref(m.Turn))
	}
	return m.Kind
}

func deref(p *int) int {
	if p == nil {
		return 0
	}
	return *p
}

// The kinds of persona messages.
const (
	kindOpening  = "opening"
	kindTake     = "take"
	kindReact    = "reaction"
	kindReply    = "reply"
	kindPosition = "position"
	kindTurn     = "turn"
	kindClosing  = "closing"
)

// base is the data every prompt starts from: the topic and what earlier
// aspects left (round summaries, disagreements, card headers).
func (d *debate) base(task string) promptData {
	pd := promptData{Task: task, Topic: d.topic, AspectCount: d.st.Aspects}
	for k := 1; k <= d.st.Aspects; k++ {
		if s, ok := d.files[roundSummaryPath(k)]; ok {
			pd.Rounds = append(pd.Rounds, d.aspect(k).Label+": "+strings.TrimSpace(string(s)))
		}
		if x, ok := d.detection(k); ok && x.Spawn() {
			pd.Disagreements = append(pd.Disagreements, fmt.Sprintf("%s vs %s: %s", d.name(x.Pair[0]), d.name(x.Pair[1]), x.Topic))
		}
		if c, ok := d.card(k); ok {
			state := "unresolved"
			if c.Resolved {
				state = "resolved"
			}
			pd.CardLines = append(pd.CardLines, fmt.Sprintf("%s [%s] (%s)", c.Question, c.Kind, state))
			pd.Cards = append(pd.Cards, c)
		}
	}
	return pd
}

func (d *debate) withPersona(pd promptData, pid string) promptData {
	p, _ := d.persona(pid)
	pd.Persona = p
	pd.Never = append(append([]string(nil), p.Never...), universalNever...)
	pd.Anchors = p.Anchors
	if len(pd.Anchors) > 5 {
		pd.Anchors = pd.Anchors[:5]
	}
	return pd
}

func (d *debate) render(name string, pd promptData) (string, error) {
	return d.tmpl.Render(name, pd)
}

func temp(role string) *float64 {
	t := tierOf(role).temperature
	return &t
}

func (d *debate) repair(errs []string) (sm.Message, error) {
	text, err := d.render("repair.md", promptData{Errors: errs})
	return sm.Message{Role: "user", Content: text}, err
}

// personaCall is a call in a persona's voice: its contract as system
// prompt, with the room's overlay in a crux room.
func (d *debate) personaCall(pid, role, user string, pd promptData, validate func([]byte) sm.Report) (sm.Call, error) {
	pd = d.withPersona(pd, pid)
	sys, err := d.render("persona-system.md", pd)
	if err != nil {
		return sm.Call{}, err
	}
	if role == RoleCrux {
		overlay, err := d.render("crux-system.md", pd)
		if err != nil {
			return sm.Call{}, err
		}
		sys += "\n" + overlay
	}
	usr, err := d.render(user, pd)
	if err != nil {
		return sm.Call{}, err
	}
	// A persona speaking in its own words researches; one answering in
	// JSON (a reaction, with its own validation) does not.
	research := validate == nil
	if validate == nil {
		validate = func(a []byte) sm.Report { return sm.Report{Errors: spokenErrors(string(a))} }
	}
	c := sm.Call{
		// A persona's message is a call the panel can do without: with
		// --keep-going it is recorded as missing after its repairs.
		ID: pid, Role: role, Kind: strings.TrimSuffix(user, ".md"), Missable: true,
		Messages: []sm.Message{{Role: "system", Content: sys}, {Role: "user", Content: usr}},
		Validate: validate, Repair: d.repair,
		MaxTokens: tierOf(role).maxTokens, Temperature: temp(role),
	}
	if research {
		c.Researches()
	}
	return c, nil
}

// analysisCall is a call of the analysis or card tier, its system prompt
// in a template of its own.
func (d *debate) analysisCall(id, role, name string, pd promptData, schema map[string]any, validate func([]byte) sm.Report) (sm.Call, error) {
	sys, err := d.render(name+"-system.md", pd)
	if err != nil {
		return sm.Call{}, err
	}
	usr, err := d.render(name+".md", pd)
	if err != nil {
		return sm.Call{}, err
	}
	c := sm.Call{
		ID: id, Role: role, Kind: name,
		Messages: []sm.Message{{Role: "system", Content: sys}, {Role: "user", Content: usr}},
		Validate: validate, Repair: d.repair, Schema: schema, SchemaName: strings.ReplaceAll(name, "-", "_"),
		MaxTokens: tierOf(role).maxTokens, Temperature: temp(role),
	}
	if validate == nil {
		c.Validate = func(a []byte) sm.Report {
			if strings.TrimSpace(string(a)) == "" {
				return sm.Report{Errors: []string{"the answer is empty"}}
			}
			return sm.Report{}
		}
	}
	return c, nil
}

func report(errs []string) sm.Report { return sm.Report{Errors: errs} }

// Next returns the step the debate waits for: one phase.
func (d *debate) Next() (*sm.Step, error) {
	p := d.where()
	if p.phase == phaseComplete {
		return nil, nil
	}
	// A foreseen debate (Ahead) holds files that stand for answers to
	// come, which no check would pass: its steps are only ever asked
	// early, and checked in their turn.
	if !d.foreseen && !d.Check().OK() {
		return nil, &sm.Refused{Reasons: []string{"the files have problems: 'moot check' lists them"}}
	}
	calls, apply, err := d.phase(p)
	if err != nil {
		return nil, err
	}
	key := p.phase
	switch {
	case p.phase == phaseTurn || p.phase == phaseExit:
		key = fmt.Sprintf("a%d-%s-t%02d", p.aspect, p.phase, p.turn)
	case p.aspect > 0:
		key = fmt.Sprintf("a%d-%s", p.aspect, p.phase)
	}
	return &sm.Step{Key: key, Unit: p.unit, Calls: calls, Apply: func(answers map[string]sm.Answer, now time.Time) (*sm.Commit, error) {
		if d.where() != p {
			return nil, &sm.Refused{Reasons: []string{fmt.Sprintf("the debate is at %s, not %s", d.where().phase, p.phase)}}
		}
		files, events, err := apply(answers)
		if err != nil {
			return nil, err
		}
		return d.commit(p, files, events)
	}}, nil
}

// commit makes the commit of a step that wrote files: the files, the
// cards rendered as markdown, and debate.md last with where the debate
// now stands.
func (d *debate) commit(p pos, files []sm.File, events []sm.Event) (*sm.Commit, error) {
	next := d.clone()
	for _, f := range files {
		next.files[f.Name] = f.Data
		if strings.HasSuffix(f.Name, ".md") && (strings.HasPrefix(f.Name, MessagesDir+"/") || strings.HasPrefix(f.Name, CruxDir+"/")) {
			m, err := parseMessage(f.Data)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", f.Name, err)
			}
			next.msgs[f.Name] = m
		}
	}
	now := next.where()
	next.st.Stage, next.st.Phase, next.st.Cursor = now.stage, now.phase, now.cursor()
	if now.unit > p.unit && len(events) > 0 {
		events[len(events)-1].Ends = true
	}
	state, err := next.renderState()
	if err != nil {
		return nil, err
	}
	files = append(files, sm.File{Name: sm.StateFile, Data: state})
	return &sm.Commit{Files: files, Events: events}, nil
}

type applyFunc func(answers map[string]sm.Answer) ([]sm.File, []sm.Event, error)

func jsonFile(name string, v any) (sm.File, error) {
	data, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return sm.File{}, err
	}
	return sm.File{Name: name, Data: append(data, '\n')}, nil
}

// spoken turns a persona's answer into its message file: the text with a
// banned opening stripped, or the reason it was skipped.
func (d *debate) spoken(path string, m Message, ans sm.Answer, text string) (sm.File, sm.Event, error) {
	m.Name, m.Model = d.name(m.Persona), ans.Model
	switch {
	case ans.Missing != nil:
		gap := *ans.Missing
		gap.Note = missingNote
		m.Status, m.Missing, m.Reason = statusMissing, &gap, missingReason(&gap)
	case ans.Skipped != "":
		m.Status, m.Reason = statusSkipped, ans.Skipped
	default:
		kept, _ := StripBanned(text)
		if errs := spokenErrors(text); len(errs) > 0 {
			m.Status, m.Reason = statusSkipped, errs[0]
		} else {
			m.Status, m.Content = statusOK, kept
			if ans.Researched {
				m.Citations = evidence.CheckAnswer(kept, ans.Sources, d.sources)
			}
		}
	}
	data, err := renderMessage(m)
	if err != nil {
		return sm.File{}, sm.Event{}, err
	}
	ev := sm.Event{Kind: "spoke", Role: m.Persona, ID: m.ID, Message: fmt.Sprintf("%s: %s", m.Name, label(m)),
		Data: map[string]any{"file": path, "status": m.Status}}
	switch m.Status {
	case statusSkipped:
		ev.Kind, ev.Message = "skipped", fmt.Sprintf("%s: %s skipped (%s)", m.Name, label(m), m.Reason)
	case statusMissing:
		ev.Kind, ev.Message = "missing", fmt.Sprintf("%s: %s recorded as missing, no value invented", m.Name, label(m))
	}
	return sm.File{Name: path, Data: data}, ev, nil
}

// missingNote is the note of a message recorded as missing: the panel's
// later steps were made without it, so --retry-missing does not ask again.
const missingNote = "no value was invented: the panel went on without this message (moot run --keep-going); its later steps were made without it, so it is not asked again"

// missingReason is the reason a message recorded as missing gives: what
// was wrong with the last answer, and that nothing stands in for it.
func missingReason(m *sm.Missing) string {
	why := "the model failed"
	if n := len(m.Answers); n > 0 && len(m.Answers[n-1].Problems) > 0 {
		why = strings.Join(m.Answers[n-1].Problems, "; ")
	}
	return "refused after every repair (" + why + "); no value invented"
}

func intp(n int) *int { return &n }

func refused(role string, errs []string) error {
	out := make([]string, len(errs))
	for i, e := range errs {
		out[i] = role + ": " + e
	}
	return &sm.Refused{Reasons: out, Role: role, RoleReasons: errs, Answer: true}
}

// phase builds the calls of the phase at p and the function that turns
// their answers into files.
func (d *debate) phase(p pos) ([]sm.Call, applyFunc, error) {
	switch p.phase {
	case phaseAspects:
		return d.aspectsPhase()
	case phaseOpenings:
		return d.openingsPhase()
	case phaseDetection:
		return d.detectionPhase(p.aspect)
	case phasePositions:
		return d.positionsPhase(p.aspect)
	case phaseTurn:
		return d.turnPhase(p.aspect, p.turn)
	case phaseExit:
		return d.exitPhase(p.aspect, p.turn)
	case phaseConvergence:
		return d.convergencePhase(p.aspect)
	case phaseCard:
		return d.cardPhase(p.aspect)
	case phaseSummary:
		return d.roundSummaryPhase(p.aspect)
	case phaseClosings:
		return d.closingsPhase()
	case phaseWrapup:
		return d.wrapupPhase()
	}
	return d.miniPhase(p.aspect, p.mini)
}
