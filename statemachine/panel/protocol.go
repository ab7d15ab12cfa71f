// Package panel is moot's protocol `panel`: a panel of personas, each
// speaking from a contract of its own, takes a topic apart into aspects,
// argues each in minirounds, and sends the two personas of a sharp
// disagreement into a crux room until the crux surfaces as a card. It
// follows the design of seed 003 with the original code's flaws fixed:
// every phase is committed as it is made, a persona that fails stops the
// run or, with --keep-going, is recorded as missing with each refused
// answer, every analysis answer is checked
// and repaired, and a room's kind of disagreement comes from a fixed set.
//
// Where the debate stands is derived from its files alone; debate.md
// keeps the stage, phase and cursor that follow from them.
package panel

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"sort"
	"strconv"
	"strings"

	sm "github.com/moot-dev/moot/statemachine"
	"github.com/moot-dev/moot/statemachine/panel/script"
	"github.com/moot-dev/moot/templates"
)

// Name is the protocol's name.
const Name = "panel"

const (
	maxPersonas   = 8
	maxAspects    = 8
	maxMinirounds = 5
)

// Protocol is the panel protocol. Templates are the prompt templates in
// force; nil means the built-in ones.
type Protocol struct {
	Templates *templates.Set
}

var (
	_ sm.Protocol  = Protocol{}
	_ sm.Templated = Protocol{}
	_ sm.Commander = Protocol{}
)

// Name returns "panel".
func (Protocol) Name() string { return Name }

// Summary describes the protocol in a line.
func (Protocol) Summary() string {
	return "a panel of personas takes a topic apart into aspects; sharp disagreements go to crux rooms that end in crux cards"
}

// Demo is the debate of moot demo: a question, with the built-in
// personas.
func (Protocol) Demo() sm.Demo {
	return sm.Demo{Args: []string{"--motion", "Should cities ban private cars from their centres?"},
		Parts: "messages/", PartsAre: "what each persona said; crux/ and cards/ hold the crux room and its card"}
}

// Roles returns the roles by tier: --voice-model sets the persona voices,
// the card and the summary, --analysis-model the quick judgements.
func (Protocol) Roles() []sm.Role {
	return []sm.Role{
		{Name: RolePersona, Description: "speaks as each persona: openings, takes, replies, closings", Group: groupVoice},
		{Name: RoleCrux, Description: "speaks as the two personas of a crux room", Group: groupVoice},
		{Name: RoleCard, Description: "writes each room's crux card", Group: groupVoice},
		{Name: RoleSummary, Description: "summarizes what was said, by claim", Group: groupVoice},
		{Name: RoleDecompose, Description: "takes the topic apart into aspects", Group: groupAnalysis},
		{Name: RoleDetect, Description: "checks an aspect's last takes for a disagreement", Group: groupAnalysis},
		{Name: RoleExitCheck, Description: "checks whether a room's crux has surfaced", Group: groupAnalysis},
		{Name: RoleConvergence, Description: "names a room's core disagreement", Group: groupAnalysis},
		{Name: RoleRoundSummary, Description: "summarizes each aspect", Group: groupAnalysis},
		{Name: RoleShifts, Description: "compares openings and closings", Group: groupAnalysis},
	}
}

var (
	personasFlag   = sm.Flag{Name: "personas", Usage: "the panel as `IDS` \"a,b,c\" (default: mara,theo,ines; 'moot personas' lists them)", Placeholder: "IDS"}
	personaDirFlag = sm.Flag{Name: "persona-dir", Usage: "a folder `DIR` of persona files (ID.md) besides the built-in ones", Placeholder: "DIR", Dir: true, Suffix: ".md"}
	aspectsFlag    = sm.Flag{Name: "aspects", Usage: "how many `ASPECTS` the topic is taken apart into", Placeholder: "ASPECTS", Default: "3"}
	miniFlag       = sm.Flag{Name: "minirounds", Usage: "`MINIROUNDS` per aspect: takes, reactions, replies to replies", Placeholder: "MINIROUNDS", Default: "3"}
)

// Flags returns the flags of `moot new --protocol panel`.
func (Protocol) Flags() []sm.Flag {
	return []sm.Flag{personasFlag, personaDirFlag, aspectsFlag, miniFlag}
}

// Commands returns `moot personas`.
func (Protocol) Commands() []sm.Command {
	return []sm.Command{{
		Name: "personas", Usage: "list panel's built-in personas, one a line, the id first",
		Run: func(args []string, w io.Writer) error {
			if len(args) > 0 {
				return fmt.Errorf("personas takes no arguments")
			}
			ps, _, err := Builtin()
			if err != nil {
				return err
			}
			ids := make([]string, 0, len(ps))
			for id := range ps {
				ids = append(ids, id)
			}
			sort.Strings(ids)
			for _, id := range ids {
				p := ps[id]
				def := ""
				for _, x := range DefaultPanel() {
					if x == id {
						def = " (default panel)"
					}
				}
				fmt.Fprintf(w, "%s\t%s: %s%s\n", id, p.Name, p.Identity, def)
			}
			return nil
		},
	}}
}

func count(in sm.NewInput, f sm.Flag, lo, hi int) (int, error) {
	n, err := strconv.Atoi(strings.TrimSpace(in.Value(f)))
	if err != nil || n < lo || n > hi {
		return 0, fmt.Errorf("--%s %q is not a whole number from %d to %d", f.Name, in.Value(f), lo, hi)
	}
	return n, nil
}

// New returns debate.md and the chosen personas' contracts, copied into
// personas/ so that a resumed run builds the same prompts.
func (p Protocol) New(in sm.NewInput) ([]sm.File, error) {
	d, raw, err := p.fresh(in)
	if err != nil {
		return nil, err
	}
	state, err := d.renderState()
	if err != nil {
		return nil, err
	}
	var out []sm.File
	for _, id := range d.st.Personas {
		out = append(out, sm.File{Name: PersonasDir + "/" + id + ".md", Data: raw[id]})
	}
	return append(out, sm.File{Name: sm.StateFile, Data: state}), nil
}

func (p Protocol) fresh(in sm.NewInput) (*debate, map[string][]byte, error) {
	topic := strings.TrimSpace(in.Motion)
	if topic == "" {
		return nil, nil, errors.New("the topic is empty: give it with --motion")
	}
	aspects, err := count(in, aspectsFlag, 1, maxAspects)
	if err != nil {
		return nil, nil, err
	}
	minis, err := count(in, miniFlag, 1, maxMinirounds)
	if err != nil {
		return nil, nil, err
	}
	known, raw, err := Builtin()
	if err != nil {
		return nil, nil, err
	}
	if files, ok := in.Dirs[personaDirFlag.Name]; ok {
		own, ownRaw, err := parsePersonas(files, "--persona-dir "+in.Value(personaDirFlag)+":")
		if err != nil {
			return nil, nil, err
		}
		for id, x := range own {
			known[id], raw[id] = x, ownRaw[id]
		}
	}
	ids := DefaultPanel()
	if v := strings.TrimSpace(in.Value(personasFlag)); v != "" {
		ids = nil
		for _, id := range strings.Split(v, ",") {
			ids = append(ids, strings.TrimSpace(id))
		}
	}
	seen := map[string]bool{}
	var personas []Persona
	for _, id := range ids {
		x, ok := known[id]
		if !ok {
			names := make([]string, 0, len(known))
			for k := range known {
				names = append(names, k)
			}
			sort.Strings(names)
			return nil, nil, fmt.Errorf("--personas: no persona %q (known: %s)", id, strings.Join(names, ", "))
		}
		if seen[id] {
			return nil, nil, fmt.Errorf("--personas: %q is given twice", id)
		}
		seen[id] = true
		personas = append(personas, x)
	}
	st := state{Protocol: Name, DebateID: in.Slug, Personas: ids, Aspects: aspects, Minirounds: minis, Crux: DefaultCrux,
		Started: in.Now.UTC().Format(sm.TimeLayout)}
	if err := st.check(); err != nil {
		return nil, nil, fmt.Errorf("--personas: %w", err)
	}
	d := &debate{st: st, topic: topic, personas: personas, files: map[string][]byte{}, msgs: map[string]Message{}, tmpl: p.templates()}
	now := d.where()
	d.st.Stage, d.st.Phase, d.st.Cursor = now.stage, now.phase, now.cursor()
	return d, raw, nil
}

// WithTemplates returns p with the prompt templates t (sm.Templated).
func (p Protocol) WithTemplates(t *templates.Set) sm.Protocol {
	p.Templates = t
	return p
}

func (p Protocol) templates() *templates.Set {
	if p.Templates == nil {
		return templates.For(Name)
	}
	return p.Templates
}

// CheckSetup renders the templates of the first phases with a sample
// debate, so that a broken override is found before a run pays for any
// call.
func (p Protocol) CheckSetup() error {
	d, _, err := p.fresh(sm.NewInput{Slug: "setup", Motion: "A topic."})
	if err != nil {
		return err
	}
	pd := d.base("check")
	pd.Aspect = Aspect{ID: "a1", Label: "A label", Description: "A description."}
	e := entry{ID: "x", Name: "X", Label: "take", Content: "Text."}
	pd.Mine, pd.Reply, pd.Last = &e, &e, &e
	pd.Others, pd.Positions, pd.Window, pd.Takes, pd.Transcript, pd.Openings = []entry{e}, []entry{e}, []entry{e}, []entry{e}, []entry{e}, []entry{e}
	pd = d.withPersona(pd, d.st.Personas[0])
	for _, name := range templateNames {
		if _, err := d.render(name, pd); err != nil {
			return err
		}
	}
	return nil
}

var templateNames = []string{"persona-system.md", "crux-system.md", "opening.md", "take.md", "react.md", "reply.md",
	"crux-position.md", "crux-turn.md", "closing.md", "repair.md",
	"decompose-system.md", "decompose.md", "detect-system.md", "detect.md", "exit-check-system.md", "exit-check.md",
	"convergence-system.md", "convergence.md", "card-system.md", "card.md", "round-summary-system.md", "round-summary.md",
	"shifts-system.md", "shifts.md", "summary-system.md", "summary.md"}

// Load reads a panel debate.
func (p Protocol) Load(files fs.FS) (sm.Debate, error) {
	return load(files, p.templates())
}

// Script is panel's script for moot's built-in model (sm.Scripted): its
// answer to call, by the call's role and kind.
func (Protocol) Script(call sm.ScriptCall) (string, error) { return script.Answer(call) }

var _ sm.Scripted = Protocol{}
