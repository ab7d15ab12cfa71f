// Package forum is the forum protocol: two debaters and a judge, after
// seed 000 (the design of the silicon-forum system). Both debaters plan
// in private, then speak in turns, each thinking in private before it
// speaks; after every turn the judge weighs it in private and gives the
// speaker a running score from 0 to 10; at the end the judge deliberates,
// names the winner, gives the verdict as JSON and announces it.
//
// Every call is a step of its own and a file of its own, calls/NNN_KIND_ROLE.md,
// and each agent's conversation is rebuilt from those files: the judge
// sees only the public turns, a debater only its own calls and the other's
// public turns. The package is pure: it reads the files it is given and
// returns the files a step writes.
package forum

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"sort"
	"strconv"
	"strings"

	"github.com/moot-dev/moot/internal/evidence"
	"github.com/moot-dev/moot/internal/frontmatter"
	researchpkg "github.com/moot-dev/moot/internal/research"
	sm "github.com/moot-dev/moot/statemachine"
	"github.com/moot-dev/moot/statemachine/forum/script"
	"github.com/moot-dev/moot/templates"
)

// Name is the protocol's name.
const Name = "forum"

// DefaultTurns is the number of public turns of a debate whose flags and
// cast set none.
const DefaultTurns = 6

// Protocol is the forum protocol. Templates are the prompt templates in
// force; nil means the built-in ones.
type Protocol struct {
	Templates *templates.Set
}

var (
	_ sm.Panelist     = Protocol{}
	_ sm.Protocol     = Protocol{}
	_ sm.Templated    = Protocol{}
	_ sm.FormatLister = Protocol{}
	_ sm.Benched      = (*debate)(nil)
)

// Name returns "forum".
func (Protocol) Name() string { return Name }

// Summary describes forum in a line.
func (Protocol) Summary() string {
	return "two debaters plan and think in private and speak in turns; a judge scores every turn 0-10 and gives a verdict"
}

// Demo is the debate of moot demo: a question and its premise, over four
// turns, the cast drawn with seed 1.
func (Protocol) Demo() sm.Demo {
	return sm.Demo{Args: []string{"--motion", "Should cities ban private cars from their centres?",
		"--premise", "Cities should ban private cars from their centres.", "--turns", "4", "--seed", "1"},
		Parts: "calls/", PartsAre: "one file per call: the private plans and thoughts, the public turns, the judge's scores and verdict"}
}

// JudgeRole returns "judge": a panel takes the judge's calls.
func (Protocol) JudgeRole() string { return Judge }

// Roles returns the debater of each side and the judge.
func (Protocol) Roles() []sm.Role {
	return []sm.Role{
		{Name: For, Description: "argues for the premise (the cast's for pool)", Group: "debater"},
		{Name: Against, Description: "argues against the premise (the cast's against pool)", Group: "debater"},
		{Name: Judge, Description: "weighs and scores every turn, then gives the verdict (the cast's audience)"},
	}
}

var (
	premiseFlag = sm.Flag{Name: "premise", Usage: "the `PREMISE` the debaters argue for and against; the verdict upholds or rejects it", Placeholder: "PREMISE"}
	turnsFlag   = sm.Flag{Name: "turns", Usage: "how many public `TURNS` the debate has (default: the cast's, else 6)", Placeholder: "TURNS"}
	castFlag    = sm.Flag{Name: "cast", Usage: "a cast `FILE` in the original's YAML format (default: moot's built-in cast)", Placeholder: "FILE", File: true}
	seedFlag    = sm.Flag{Name: "seed", Usage: "the `SEED` of the draw of debaters, judge and first speaker (default: from the clock)", Placeholder: "SEED"}
)

// Flags returns --premise, --turns, --cast and --seed.
func (Protocol) Flags() []sm.Flag { return []sm.Flag{premiseFlag, turnsFlag, castFlag, seedFlag} }

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

// MotionOf returns the topic of the cast --cast names, the motion of a
// debate made without --motion, as the original's debates have it.
func (Protocol) MotionOf(in sm.NewInput) (string, error) {
	data, ok := in.Files[castFlag.Name]
	if !ok {
		return "", nil
	}
	c, err := ParseCast(data)
	if err != nil {
		return "", fmt.Errorf("--cast %s: %w", in.Value(castFlag), err)
	}
	return c.Topic, nil
}

// New returns debate.md for a new debate: the cast drawn once, with the
// seed, and the personas in full, so that the debate never needs the cast
// file again.
func (Protocol) New(in sm.NewInput) ([]sm.File, error) {
	topic := strings.TrimSpace(in.Motion)
	if topic == "" {
		return nil, errors.New("the motion is empty")
	}
	cast := BuiltinCast()
	var castPath string
	if data, ok := in.Files[castFlag.Name]; ok {
		castPath = in.Value(castFlag)
		c, err := ParseCast(data)
		if err != nil {
			return nil, fmt.Errorf("--cast %s: %w", castPath, err)
		}
		cast = c
	}
	notes := append([]string(nil), cast.Notes...)
	if cast.Topic != "" && cast.Topic != topic {
		notes = append(notes, "the cast's topic is replaced by --motion")
	}
	research := cast.WebResearch && in.SearchConfigured
	if cast.WebResearch && !in.SearchConfigured {
		notes = append(notes, "web_research: no search provider is configured (MOOT_SEARCH), so the debate runs without research until 'moot run --research' turns it on")
	}
	premise := cast.Premise
	if v, ok := in.Values[premiseFlag.Name]; ok && len(v) > 0 {
		premise = strings.TrimSpace(v[len(v)-1])
	}
	turns := DefaultTurns
	if cast.Turns > 0 {
		turns = cast.Turns
	}
	if v, ok := in.Values[turnsFlag.Name]; ok && len(v) > 0 {
		n, err := strconv.Atoi(strings.TrimSpace(v[len(v)-1]))
		if err != nil || n < 1 || n > MaxTurns {
			return nil, fmt.Errorf("--turns %q is not a whole number from 1 to %d", v[len(v)-1], MaxTurns)
		}
		turns = n
	}
	seed := in.Now.UnixNano() % 1_000_000_000
	if v, ok := in.Values[seedFlag.Name]; ok && len(v) > 0 {
		n, err := strconv.ParseInt(strings.TrimSpace(v[len(v)-1]), 10, 64)
		if err != nil || n < 0 {
			return nil, fmt.Errorf("--seed %q is not a whole number of 0 or more", v[len(v)-1])
		}
		seed = n
	}
	drawn, err := cast.Draw(seed)
	if err != nil {
		return nil, err
	}
	st := &state{
		Protocol: Name, Premise: premise, Turns: turns, Seed: seed, FirstSpeaker: drawn.First,
		For: drawn.For, Against: drawn.Against, Judge: drawn.Judge, CastFile: castPath, CastNotes: notes,
		Phase: kindPlan,
	}
	data, err := st.render(topic, frontmatter.Object{})
	if err != nil {
		return nil, err
	}
	// A persona's own model is where the debate's models start; a
	// --ROLE-model flag of moot run replaces it.
	models := map[string]string{}
	for _, role := range []string{For, Against, Judge} {
		if p := st.persona(role); p != nil && p.Model != "" {
			models[role] = p.Model
		}
	}
	if len(models) > 0 || research {
		settings := map[string]any{"models": models}
		if research {
			// The cast's web_research is moot run --research with its
			// default limits, stored as the flag stores them.
			settings["research"] = researchpkg.DefaultLimits
		}
		front, body, err := frontmatter.Parse(data)
		if err != nil {
			return nil, err
		}
		if err := front.SetValue("moot", settings); err != nil {
			return nil, err
		}
		if data, err = frontmatter.Render(front, body); err != nil {
			return nil, err
		}
	}
	return []sm.File{{Name: sm.StateFile, Data: data}}, nil
}

// callFile is one file of calls/ as read.
type callFile struct {
	meta callMeta
	body string
	err  error
}

// name is the file's path in the debate, from its frontmatter.
func (c *callFile) name() string {
	return slot{Seq: c.meta.Seq, Kind: c.meta.Kind, Role: c.meta.Role}.File()
}

// callMeta is a call file's frontmatter.
type callMeta struct {
	Seq             int            `json:"seq"`
	Kind            string         `json:"kind"`
	Role            string         `json:"role"`
	Speaker         string         `json:"speaker"`
	Turn            int            `json:"turn"`
	Final           bool           `json:"final"`
	Visibility      string         `json:"visibility"`
	Model           string         `json:"model"`
	Attempts        int            `json:"attempts"`
	Target          string         `json:"target,omitempty"`
	TargetName      string         `json:"target_name,omitempty"`
	Score           *int           `json:"score,omitempty"`
	Reasoning       string         `json:"reasoning,omitempty"`
	ConfirmedWinner *string        `json:"confirmed_winner,omitempty"`
	Winner          string         `json:"winner,omitempty"`
	WinnerSide      string         `json:"winner_side,omitempty"`
	Scores          map[string]int `json:"scores,omitempty"`
	PremiseUpheld   *bool          `json:"premise_upheld,omitempty"`
	WinnerSource    string         `json:"winner_source,omitempty"`
	Skipped         string         `json:"skipped,omitempty"`
	// Missing records an evaluation or score that got no acceptable
	// answer in a run with --keep-going: the body then says so, and the
	// file has no score.
	Missing *sm.Missing `json:"missing,omitempty"`
	// Citations are the checks of the quotations of a debater's answer
	// that researched (see research.go).
	Citations []evidence.Check `json:"citations,omitempty"`
	// PanelMean and PanelMeans, in the official file of a call a panel
	// answered, are the mean of the judges' scores of the turn and of
	// each debater's verdict score (by name), to three places; Panel is
	// what each judge answered.
	PanelMean  *float64           `json:"panel_mean,omitempty"`
	PanelMeans map[string]float64 `json:"panel_means,omitempty"`
	Panel      []vote             `json:"panel,omitempty"`
}

// VerdictFile is the file of the verdict: winner, final scores, whether
// the premise is upheld, and the judge's announcement.
const VerdictFile = "verdict.md"

// CallsDir is the folder of the call files.
const CallsDir = "calls"

// Load reads a forum debate: debate.md, the files of calls/ and
// verdict.md.
func (p Protocol) Load(files fs.FS) (sm.Debate, error) {
	data, err := fs.ReadFile(files, sm.StateFile)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", sm.StateFile, err)
	}
	st, topic, front, err := parseState(data)
	if err != nil {
		return nil, err
	}
	d := &debate{st: st, topic: topic, front: front, tmpl: p.templates(), calls: map[string]*callFile{}}
	// The schedule is sized by turns: it is built only when turns is in
	// bounds, and Check names the bound otherwise.
	if (st.FirstSpeaker == For || st.FirstSpeaker == Against) && st.Turns >= 1 && st.Turns <= MaxTurns {
		d.slots = schedule(st.Turns, st.FirstSpeaker, st.Judge != nil)
	}
	names, err := sm.FileNames(files, CallsDir)
	if err != nil {
		return nil, err
	}
	for _, n := range names {
		if !strings.HasSuffix(n, ".md") {
			continue
		}
		name := CallsDir + "/" + n
		raw, err := fs.ReadFile(files, name)
		if err != nil {
			return nil, fmt.Errorf("read %s: %w", name, err)
		}
		d.calls[name] = readCall(raw)
	}
	if raw, err := fs.ReadFile(files, VerdictFile); err == nil {
		c := readCall(raw)
		d.verdict = c
	} else if !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("read %s: %w", VerdictFile, err)
	}
	if err := d.readJudges(files); err != nil {
		return nil, err
	}
	if d.sources, err = evidence.ReadDir(files); err != nil {
		return nil, err
	}
	return d, nil
}

// callMemo keeps the call files read, so that a load decodes only those
// that are new. A *callFile it gives is shared by every load of the same
// bytes and is only read.
var callMemo sm.Memo[*callFile]

// readCall reads a call file, or returns what reading the same bytes
// gave before.
func readCall(raw []byte) *callFile {
	c, _ := callMemo.Read("", raw, func() (*callFile, error) { return decodeCall(raw), nil })
	return c
}

// decodeCall decodes a call file.
func decodeCall(raw []byte) *callFile {
	c := &callFile{}
	_, j, body, err := frontmatter.ParseRaw(raw)
	if err != nil {
		c.err = err
		return c
	}
	if err := json.Unmarshal(j, &c.meta); err != nil {
		c.err = frontmatter.JSONError(err)
	}
	c.body = strings.TrimSpace(body)
	return c
}

// renderCall writes a call file: its frontmatter in a fixed order, the
// reply as body.
func renderCall(m callMeta, body string) ([]byte, error) {
	return sm.RenderFile(m, strings.TrimSpace(body))
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// Script is forum's script for moot's built-in model (sm.Scripted): its
// answer to call, by the call's role and kind.
func (Protocol) Script(call sm.ScriptCall) (string, error) { return script.Answer(call) }

var _ sm.Scripted = Protocol{}
