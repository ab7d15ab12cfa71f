package dialectic

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"strconv"
	"strings"
	"time"

	"github.com/moot-dev/moot/internal/english"
	"github.com/moot-dev/moot/internal/evidence"
	"github.com/moot-dev/moot/internal/frontmatter"
	sm "github.com/moot-dev/moot/statemachine"
	"github.com/moot-dev/moot/statemachine/dialectic/script"
	"github.com/moot-dev/moot/templates"
)

// Protocol is dialectic as a protocol of the step model. Templates are the
// prompt templates in force; nil means the built-in ones.
type Protocol struct {
	Templates *templates.Set
	// JudgeContext, when set, replaces the judge context debate.md's
	// settings keep: the --judge-context of a run that will store it.
	JudgeContext JudgeContext
}

var (
	_ sm.Protocol       = Protocol{}
	_ sm.FolderMaker    = Protocol{}
	_ sm.JudgeContexter = Protocol{}
	_ sm.Templated      = Protocol{}
)

// ParseJudgeContext reads a judge context as ParseJudgeContext does; ""
// is the default, focused.
func (Protocol) ParseJudgeContext(name string) (string, error) {
	c, err := ParseJudgeContext(name)
	return string(c), err
}

// WithJudgeContext returns p whose judge reads the debate in the context
// named name, in place of the one debate.md's settings keep.
func (p Protocol) WithJudgeContext(name string) sm.Protocol {
	p.JudgeContext = JudgeContext(name)
	return p
}

// WithTemplates returns p with the prompt templates t.
func (p Protocol) WithTemplates(t *templates.Set) sm.Protocol {
	p.Templates = t
	return p
}

// Name returns "dialectic".
func (Protocol) Name() string { return sm.Default }

// Summary describes dialectic in a line.
func (Protocol) Summary() string {
	return "two debaters argue in parallel in Toulmin form; a judge scores each exchange zero-sum (the default)"
}

// Demo is the debate of moot demo: a motion with a definition and a
// scope, over three exchanges.
func (Protocol) Demo() sm.Demo {
	return sm.Demo{Args: []string{"--motion", "This house would ban private cars from city centres.",
		"--definition", "city centre: the central business district of a city of more than 100,000 people",
		"--scope", "European cities over the next decade.", "--exchanges", "3"},
		Parts: "arguments/", PartsAre: "one file per argument, in Toulmin form; scores.json holds every score with its history",
		End: []string{"--exchanges", "3"}}
}

// Roles returns the two debaters and the judge. --debater-model sets both
// debaters; --prop-model and --opp-model are the older names of
// --proposition-model and --opposition-model.
func (Protocol) Roles() []sm.Role {
	return []sm.Role{
		{Name: string(Proposition), Description: "argues for the motion", Aliases: []string{"prop"}, Group: "debater"},
		{Name: string(Opposition), Description: "argues against the motion", Aliases: []string{"opp"}, Group: "debater"},
		{Name: string(Judge), Description: "scores each exchange zero-sum and may rescore earlier arguments"},
	}
}

var (
	definitionFlag = sm.Flag{Name: "definition", Usage: "a `DEFINITION` of a term, written \"term: meaning\" (repeatable)", Placeholder: "DEFINITION", Repeated: true}
	scopeFlag      = sm.Flag{Name: "scope", Usage: "the `SCOPE`: what the debate covers and leaves out", Placeholder: "SCOPE"}
	exchangesFlag  = sm.Flag{Name: "exchanges", Usage: "end the debate after `N` exchanges, the opening counted (default: no end; run N at a time)", Placeholder: "N"}
)

// Flags returns --definition, --scope and --exchanges.
func (Protocol) Flags() []sm.Flag { return []sm.Flag{definitionFlag, scopeFlag, exchangesFlag} }

// New returns the files of a new dialectic debate: debate.md at exchange
// 0 and an empty scores.json, as dialectic itself makes them.
func (Protocol) New(in sm.NewInput) ([]sm.File, error) {
	m := Motion{Text: strings.TrimSpace(in.Motion), Scope: strings.TrimSpace(in.Value(scopeFlag))}
	if m.Text == "" {
		return nil, errors.New("the motion is empty")
	}
	for _, def := range in.Values[definitionFlag.Name] {
		term, meaning, ok := strings.Cut(def, ":")
		if !ok || strings.TrimSpace(term) == "" || strings.TrimSpace(meaning) == "" {
			return nil, fmt.Errorf("--definition %q is not \"term: meaning\"", def)
		}
		m.Definitions = append(m.Definitions, Definition{Term: strings.TrimSpace(term), Meaning: strings.TrimSpace(meaning)})
	}
	if err := CheckMotion(m); err != nil {
		ie := &sm.InputError{Flag: "motion", Err: err, Hint: "close the fence or comment, or leave it out"}
		var me *MotionError
		if errors.As(err, &me) && me.Field != "motion" {
			ie.Flag = me.Field
			if me.Field == "definition" {
				ie.Hint = "write the term without \"**\" and without a final \":\""
			}
		}
		return nil, ie
	}
	h := NewHeader(in.Slug, m)
	if v := in.Value(exchangesFlag); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > MaxExchange {
			return nil, &sm.InputError{Flag: exchangesFlag.Name, Err: fmt.Errorf("%q is not a whole number from 1 to %d", v, MaxExchange)}
		}
		h.End = n
		if err := h.SetSetting(EndKey, n); err != nil {
			return nil, err
		}
	}
	header, err := h.Render()
	if err != nil {
		return nil, err
	}
	return []sm.File{{Name: ScoresFile, Data: []byte("{}\n")}, {Name: sm.StateFile, Data: header}}, nil
}

// Folders returns arguments/, which a new dialectic debate has from the
// start, empty, as dialectic makes it.
func (Protocol) Folders() []string { return []string{ArgumentsDir} }

// CheckSetup checks every prompt template before a run pays for a call.
func (p Protocol) CheckSetup() error { return Validate(p.templates()) }

func (p Protocol) templates() *templates.Set {
	if p.Templates == nil {
		return templates.Default()
	}
	return p.Templates
}

// Load reads a dialectic debate: debate.md, scores.json and the files of
// arguments/.
func (p Protocol) Load(files fs.FS) (sm.Debate, error) {
	raw, err := ReadRaw(files)
	if err != nil {
		return nil, err
	}
	deb, err := Load(raw)
	if err != nil {
		return nil, fmt.Errorf("read %w", err)
	}
	if raw.Scores == nil {
		return nil, fmt.Errorf("read %s: the file is missing", ScoresFile)
	}
	bench, judges, err := readJudges(files, deb.Header)
	if err != nil {
		return nil, err
	}
	sources, err := evidence.ReadDir(files)
	if err != nil {
		return nil, err
	}
	ctx, err := JudgeContextOf(deb.Header)
	if err != nil {
		return nil, fmt.Errorf("read %w", err)
	}
	if p.JudgeContext != "" {
		ctx = p.JudgeContext
	}
	benched := bench.Problems(sm.FolderLayout{Owns: func(n string) bool { return n == ScoresFile || n == MissingFile }, Want: []string{ScoresFile, MissingFile}})
	return &stepDebate{deb: deb, tmpl: p.templates(), panel: bench.Panel, judges: judges, benched: benched, sources: sources, judgeContext: ctx}, nil
}

// ReadRaw reads the files of a dialectic debate from files, debate.md
// first.
func ReadRaw(files fs.FS) (Raw, error) {
	var raw Raw
	var err error
	if raw.Header, err = fs.ReadFile(files, sm.StateFile); err != nil {
		return raw, fmt.Errorf("read %s: %w", sm.StateFile, err)
	}
	if raw.Scores, err = fs.ReadFile(files, ScoresFile); errors.Is(err, fs.ErrNotExist) {
		raw.Scores = nil
	} else if err != nil {
		return raw, fmt.Errorf("read %s: %w", ScoresFile, err)
	}
	entries, err := fs.ReadDir(files, ArgumentsDir)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return raw, fmt.Errorf("read %s: %w", ArgumentsDir, err)
	}
	raw.Arguments = make(map[string][]byte, len(entries))
	for _, e := range entries {
		if !strings.HasSuffix(e.Name(), ".md") {
			continue
		}
		file := ArgumentsDir + "/" + e.Name()
		if raw.Arguments[e.Name()], err = fs.ReadFile(files, file); err != nil {
			return raw, fmt.Errorf("read %s: %w", file, err)
		}
	}
	raw.Sources, err = evidence.ReadDir(files)
	return raw, err
}

// stepDebate is a dialectic debate seen through the step model.
type stepDebate struct {
	deb  *Debate
	tmpl *templates.Set
	// panel is the judge panel debate.md names; nil for one judge.
	panel []sm.Judge
	// judges holds every judge's folder under judgments/, by name;
	// benched what is wrong with the folders (sm.Bench.Problems).
	judges  map[string]*judgeFolder
	benched []sm.Problem
	// sources holds the pages the debate's research read, by URL (see
	// research.go).
	sources map[string]*evidence.Source
	// judgeContext is what every judge's prompt shows (see JudgeContext).
	judgeContext JudgeContext
}

// Debate returns the dialectic debate d holds, when d is one.
func DebateOf(d sm.Debate) (*Debate, bool) {
	s, ok := d.(*stepDebate)
	if !ok {
		return nil, false
	}
	return s.deb, true
}

func (s *stepDebate) Status() sm.Status {
	st := s.deb.Header.State
	t := s.deb.Header.Totals
	out := sm.Status{
		Unit: "exchange", Done: st.Exchange, Total: s.deb.Header.End, Phase: string(st.Phase), Next: st.Action(),
		Lines: []sm.Line{{Label: "scores", Text: fmt.Sprintf("proposition %s · opposition %s", FormatScore(t.Proposition.Total), FormatScore(t.Opposition.Total))}},
	}
	if s.deb.Ended() {
		out.Complete, out.Next = true, fmt.Sprintf("nothing: the debate ended after its %d exchanges", s.deb.Header.End)
	}
	if line := gapLine(s.sortedJudges(), s.judges); line != "" {
		out.Lines = append(out.Lines, sm.Line{Label: "missing", Text: line})
		out.Data = map[string]any{"missing": s.Gaps()}
	}
	return out
}

func (s *stepDebate) Check() sm.Findings {
	f := s.deb.Check()
	s.checkJudges(&f)
	s.checkSources(&f)
	return f
}

func (s *stepDebate) Next() (*sm.Step, error) {
	if s.deb.Ended() {
		return nil, nil
	}
	x := s.deb.Header.State.Exchange
	if s.deb.Header.State.Phase == AwaitingJudgment {
		if len(s.panel) > 0 {
			return s.panelStep(x)
		}
		return s.judgeStep(x)
	}
	return s.argumentStep(x)
}

func (s *stepDebate) call(p Prompt, validate func([]byte) sm.Report) sm.Call {
	msgs := make([]sm.Message, len(p.Messages))
	for i, m := range p.Messages {
		msgs[i] = sm.Message{Role: m.Role, Content: m.Content}
	}
	return sm.Call{
		ID: string(p.Role), Role: string(p.Role), Messages: msgs, Marks: p.Marks,
		Schema: p.Schema, SchemaName: p.SchemaName, Validate: validate,
		Repair: func(errs []string) (sm.Message, error) {
			m, err := Repair(s.tmpl, errs)
			return sm.Message{Role: m.Role, Content: m.Content}, err
		},
	}
}

func report(p Problems) sm.Report { return sm.Report{Errors: p.Errors, Warnings: p.Warnings} }

func (s *stepDebate) argumentStep(x int) (*sm.Step, error) {
	known := s.deb.Known()
	var calls []sm.Call
	for _, side := range Sides() {
		p, err := Debater(s.tmpl, s.deb, side)
		if err != nil {
			return nil, err
		}
		c := s.call(p, func(text []byte) sm.Report {
			_, probs := ParseSubmissions(Unwrap(text), side, x, known)
			return report(probs)
		})
		c.Research, c.Cites = true, func(text []byte) []string { return cites(Unwrap(text), side, x, known) }
		c.Choices = s.targets(side, x)
		calls = append(calls, c)
	}
	return &sm.Step{
		Key: fmt.Sprintf("%05d", x), Unit: x, Calls: calls,
		Apply: func(answers map[string]sm.Answer, _ time.Time) (*sm.Commit, error) {
			if answers[Prop.Name()].Researched || answers[Opp.Name()].Researched {
				return s.applyResearched(x, answers)
			}
			return ApplyArguments(s.deb, x, map[Side][]byte{
				Prop: Unwrap(answers[Prop.Name()].Text),
				Opp:  Unwrap(answers[Opp.Name()].Text),
			})
		},
	}, nil
}

func (s *stepDebate) judgeStep(x int) (*sm.Step, error) {
	p, err := JudgePrompt(s.tmpl, s.deb)
	if err != nil {
		return nil, err
	}
	c := s.call(p, func(text []byte) sm.Report {
		_, probs, _ := CheckJudgment(s.deb, text)
		return report(probs)
	})
	c.Rows = map[string][]string{"scores.argument_id": ExchangeIDs(x)}
	var earlier []string
	for _, a := range s.deb.Arguments {
		if a.Exchange < x {
			earlier = append(earlier, a.ID)
		}
	}
	c.Choices = map[string][]string{"rescores.argument_id": earlier}
	return &sm.Step{
		Key: fmt.Sprintf("%05d", x), Unit: x, Calls: []sm.Call{c},
		Apply: func(answers map[string]sm.Answer, now time.Time) (*sm.Commit, error) {
			return ApplyJudgment(s.deb, answers[string(Judge)].Text, now)
		},
	}, nil
}

// Unwrap takes an opening's arguments out of the {"arguments": [...]}
// object that structured output asks for; any other answer is returned as
// it is.
func Unwrap(text []byte) []byte {
	body, err := ExtractJSON(text)
	if err != nil || len(body) == 0 || body[0] != '{' {
		return text
	}
	var obj frontmatter.Object
	if err := json.Unmarshal(body, &obj); err != nil || len(obj.Fields) != 1 || obj.Fields[0].Key != "arguments" {
		return text
	}
	return bytes.TrimSpace(obj.Fields[0].Value)
}

var _ sm.Sided = Protocol{}

// SideRoles returns the proposition and the opposition.
func (Protocol) SideRoles() (string, string) { return string(Proposition), string(Opposition) }

// Outcome is the debate's result once it has ended (a debate made with
// --exchanges N, its last exchange judged): the side ahead on the
// cumulative scores wins, and even totals are a draw. A debate without an
// end, or not at it, has no result yet.
func (s *stepDebate) Outcome() sm.Outcome {
	t := s.deb.Header.Totals
	o := sm.Outcome{Proposition: t.Proposition.Total, Opposition: t.Opposition.Total}
	if !s.deb.Ended() {
		return o
	}
	switch side, _ := t.Leader(); side {
	case Prop:
		o.Winner = sm.WinProposition
	case Opp:
		o.Winner = sm.WinOpposition
	default:
		o.Winner = sm.Draw
	}
	o.Columns = map[string]string{"exchanges": fmt.Sprint(s.deb.Header.End)}
	return o
}

// targets lists, for a person's form, the arguments side may attack (the
// other side's) and defend (its own) in exchange x: those of earlier
// exchanges.
func (s *stepDebate) targets(side Side, x int) map[string][]string {
	var theirs, own []string
	for _, a := range s.deb.Arguments {
		switch {
		case a.Exchange >= x:
		case a.Side == side:
			own = append(own, a.ID)
		default:
			theirs = append(theirs, a.ID)
		}
	}
	return map[string][]string{"attacks.target_id": theirs, "defends.target_id": own}
}

var _ sm.Leader = (*stepDebate)(nil)

// Leader says which side is ahead on the cumulative scores, and, once the
// debate has ended, which side won.
func (s *stepDebate) Leader() string {
	side, margin := s.deb.Header.Totals.Leader()
	by := strconv.FormatFloat(margin, 'f', 2, 64)
	switch {
	case side == "" && s.deb.Ended():
		return "a draw"
	case side == "":
		return "even"
	case s.deb.Ended():
		return side.Name() + " won by " + by
	}
	return side.Name() + " by " + by
}

// Script is dialectic's script for moot's built-in model (sm.Scripted): its
// answer to call, by the call's role and kind.
func (Protocol) Script(call sm.ScriptCall) (string, error) { return script.Answer(call) }

var _ sm.Scripted = Protocol{}

var _ sm.Shower = (*stepDebate)(nil)

// Parts lists the debate's arguments in order, each with its side and its
// current score once judged; a score counts for its argument's own side.
func (s *stepDebate) Parts() []sm.Part {
	parts := make([]sm.Part, 0, len(s.deb.Arguments))
	for _, a := range s.deb.Arguments {
		p := sm.Part{ID: a.ID, Unit: a.Exchange, Role: a.Side.Name(), Title: a.Title, For: a.Side.Name()}
		if r, ok := s.deb.Scores.Get(a.ID); ok {
			v := r.CurrentScore
			p.Score = &v
		}
		parts = append(parts, p)
	}
	return parts
}

// Show returns the body of the argument called id, as its file holds it
// under the frontmatter.
func (s *stepDebate) Show(id string) (string, bool) {
	for _, a := range s.deb.Arguments {
		if a.ID == id {
			return a.Body, true
		}
	}
	return "", false
}

var _ sm.FilesChecker = Protocol{}

// CheckFiles checks a dialectic debate's files (sm.FilesChecker): every
// file Check reads, those it cannot parse included; then, when they pass,
// what the step model reads besides them, the judges' folders and the
// sources. It reads how many argument files there are.
func (p Protocol) CheckFiles(files fs.FS) (sm.Findings, string, error) {
	raw, err := ReadRaw(files)
	if err != nil {
		return sm.Findings{}, "", err
	}
	f := Check(raw)
	read := english.Count(len(raw.Arguments), "argument file")
	if !f.OK() || (!hasDir(files, sm.JudgmentsDir) && !hasDir(files, evidence.Dir)) {
		return f, read, nil
	}
	// The files read as one debate pass: what else the step model reads
	// is checked as it reads it.
	if deb, err := p.Load(files); err == nil {
		f.Problems = deb.Check().Problems
	}
	return f, read, nil
}

// hasDir reports whether files has the folder dir, with something in it.
func hasDir(files fs.FS, dir string) bool {
	entries, err := fs.ReadDir(files, dir)
	return err == nil && len(entries) > 0
}
