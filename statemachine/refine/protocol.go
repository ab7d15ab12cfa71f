// Package refine is moot's protocol `refine`: a proposer answers a
// question using a retrieved reasoning template, a skeptic critiques each
// answer with rated points, the proposer revises point by point, and when
// a stop rule says so a synthesizer writes the final answer from the whole
// transcript, which a judge scores on weighted criteria. It follows the
// design of seed 002 with the original code's flaws fixed: every phase is
// committed as it ends, the stop rule reads structured facts of the
// skeptic's answer instead of markers in its prose, the proposer sees its
// own previous answer, and the judge's score is repaired, never defaulted.
//
// Each step is one commit: the retrieval (retrieval.json and a copy of
// each kept template under reasoning/), a proposal, a critique (which
// carries the stop decision), the synthesis and the score. debate.md
// holds the state.
package refine

import (
	"crypto/sha1"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"path"
	"sort"
	"strconv"
	"strings"

	sm "github.com/moot-dev/moot/statemachine"
	"github.com/moot-dev/moot/statemachine/refine/script"
	"github.com/moot-dev/moot/templates"
)

// Name is the protocol's name.
const Name = "refine"

// The roles a call is made for.
const (
	RoleProposer    = "proposer"
	RoleSkeptic     = "skeptic"
	RoleSynthesizer = "synthesizer"
	RoleJudge       = "judge"
	RoleEmbedder    = "embedder"
)

// Defaults of the design.
const (
	DefaultMinRounds = 3
	DefaultMaxRounds = 5
	DefaultEarlyStop = 8
	DefaultTopK      = 3
	DefaultThreshold = 0.65 // on the scale ScaleHalfCosine
	maxRoundsLimit   = 20
	// maxTemplates bounds the candidates of one retrieval.
	maxTemplates = 200
)

// DefaultTemperatures are the original's sampling temperatures by role,
// which a new debate keeps in debate.md.
var DefaultTemperatures = map[string]float64{RoleProposer: 0.7, RoleSkeptic: 0.8, RoleSynthesizer: 0.5, RoleJudge: 0.3}

// Protocol is the refine protocol. Templates are the prompt templates in
// force and Library the reasoning templates; nil means the built-in ones.
type Protocol struct {
	Templates *templates.Set
	Library   map[string][]byte
}

var (
	_ sm.Panelist     = Protocol{}
	_ sm.Protocol     = Protocol{}
	_ sm.Templated    = Protocol{}
	_ sm.FormatLister = Protocol{}
	_ sm.Benched      = (*debate)(nil)
)

// Name returns "refine".
func (Protocol) Name() string { return Name }

// Summary describes the protocol in a line.
func (Protocol) Summary() string {
	return "a proposer answers with a retrieved reasoning template, a skeptic critiques it round by round until a stop rule holds, a synthesizer writes the final answer and a judge scores it"
}

// Demo is the debate of moot demo: a question of estimation.
func (Protocol) Demo() sm.Demo {
	return sm.Demo{Args: []string{"--motion", "Estimate how many parking spaces, and how much land, a city of one million people would free if it banned private cars from its centre."},
		Parts: "rounds/", PartsAre: "each round's proposal and critique; retrieval.json ranks the reasoning templates"}
}

// JudgeRole returns "judge": a panel takes the judge's calls.
func (Protocol) JudgeRole() string { return RoleJudge }

// Roles returns the proposer, skeptic, synthesizer, judge and the
// embedder, whose model embeds the templates and the question.
func (Protocol) Roles() []sm.Role {
	return []sm.Role{
		{Name: RoleProposer, Description: "answers the question, then revises the answer point by point"},
		{Name: RoleSkeptic, Description: "critiques each answer with rated points and says when it is ready"},
		{Name: RoleSynthesizer, Description: "writes the final answer from the whole debate"},
		{Name: RoleJudge, Description: "scores the final answer on weighted criteria"},
		{Name: RoleEmbedder, Description: "embeds the reasoning templates and the question for retrieval"},
	}
}

var (
	minRoundsFlag = sm.Flag{Name: "min-rounds", Usage: "the fewest `ROUNDS` before the absence of critical points stops the debate", Placeholder: "ROUNDS", Default: strconv.Itoa(DefaultMinRounds)}
	maxRoundsFlag = sm.Flag{Name: "max-rounds", Usage: "the most `ROUNDS` of proposal and critique", Placeholder: "ROUNDS", Default: strconv.Itoa(DefaultMaxRounds)}
	earlyStopFlag = sm.Flag{Name: "early-stop-score", Usage: "the skeptic's `SCORE` (1-10) at which it may say the answer is ready", Placeholder: "SCORE", Default: strconv.Itoa(DefaultEarlyStop)}
	ragFlag       = sm.Flag{Name: "rag", Usage: "retrieve reasoning templates: `on` or off", Placeholder: "on|off", Default: "on"}
	thresholdFlag = sm.Flag{Name: "retrieval-threshold", Usage: "the least `SCORE` (0 to 1, the original's (1 + cosine) / 2) a template needs to be offered", Placeholder: "SCORE", Default: strconv.FormatFloat(DefaultThreshold, 'g', -1, 64)}
	reasoningFlag = sm.Flag{Name: "reasoning-dir", Usage: "a `DIR` of reasoning templates (.md) that add to or replace the built-in ones by name", Placeholder: "DIR", Dir: true, Suffix: ".md"}
)

// Flags returns the flags of `moot new --protocol refine`.
func (Protocol) Flags() []sm.Flag {
	return []sm.Flag{minRoundsFlag, maxRoundsFlag, earlyStopFlag, ragFlag, thresholdFlag, reasoningFlag}
}

func intFlag(in sm.NewInput, f sm.Flag, lo, hi int) (int, error) {
	v := strings.TrimSpace(in.Value(f))
	n, err := strconv.Atoi(v)
	if err != nil || n < lo || n > hi {
		return 0, fmt.Errorf("--%s %q is not a whole number from %d to %d", f.Name, v, lo, hi)
	}
	return n, nil
}

// New returns debate.md of a new debate, and a copy of the templates of
// --reasoning-dir under reasoning/.
func (p Protocol) New(in sm.NewInput) ([]sm.File, error) {
	q := strings.TrimSpace(in.Motion)
	if q == "" {
		return nil, errors.New("the question is empty")
	}
	minR, err := intFlag(in, minRoundsFlag, 1, maxRoundsLimit)
	if err != nil {
		return nil, err
	}
	maxR, err := intFlag(in, maxRoundsFlag, 1, maxRoundsLimit)
	if err != nil {
		return nil, err
	}
	if minR > maxR {
		return nil, fmt.Errorf("--min-rounds %d is above --max-rounds %d", minR, maxR)
	}
	early, err := intFlag(in, earlyStopFlag, 1, 10)
	if err != nil {
		return nil, err
	}
	rag := strings.ToLower(strings.TrimSpace(in.Value(ragFlag)))
	if rag != "on" && rag != "off" {
		return nil, fmt.Errorf("--rag %q is neither on nor off", rag)
	}
	thr, err := strconv.ParseFloat(strings.TrimSpace(in.Value(thresholdFlag)), 64)
	if err != nil || !(thr >= 0 && thr <= 1) {
		return nil, fmt.Errorf("--%s %q is not a number from 0 to 1", thresholdFlag.Name, in.Value(thresholdFlag))
	}
	var out []sm.File
	names := make([]string, 0, len(in.Dirs[reasoningFlag.Name]))
	for n := range in.Dirs[reasoningFlag.Name] {
		names = append(names, n)
	}
	sort.Strings(names)
	if len(names) > maxTemplates {
		return nil, fmt.Errorf("--reasoning-dir holds %d templates, at most %d", len(names), maxTemplates)
	}
	for _, n := range names {
		data := in.Dirs[reasoningFlag.Name][n]
		if _, err := parseTemplate(strings.TrimSuffix(n, ".md"), data); err != nil {
			return nil, fmt.Errorf("--reasoning-dir: %s: %w", n, err)
		}
		out = append(out, sm.File{Name: path.Join(ReasoningDir, n), Data: data})
	}
	st := state{
		Protocol: Name, DebateID: in.Slug, Round: 1, Phase: phaseRetrieval,
		MinRounds: minR, MaxRounds: maxR, EarlyStop: early,
		RAG:          ragSettings{Enabled: rag == "on", TopK: DefaultTopK, Threshold: thr, Score: ScaleHalfCosine},
		Temperatures: maps.Clone(DefaultTemperatures),
		Started:      in.Now.UTC().Format(sm.TimeLayout),
		ID:           uuidFrom(in.Slug + "\x00" + in.Now.UTC().Format("2006-01-02T15:04:05.000000000Z")),
	}
	d := &debate{st: st, question: q}
	data, err := d.renderState()
	if err != nil {
		return nil, err
	}
	return append(out, sm.File{Name: sm.StateFile, Data: data}), nil
}

// uuidFrom derives a version-5-shaped UUID from seed, the trace's id.
func uuidFrom(seed string) string {
	h := sha1.Sum([]byte("moot/refine\x00" + seed))
	h[6] = (h[6] & 0x0f) | 0x50
	h[8] = (h[8] & 0x3f) | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", h[0:4], h[4:6], h[6:8], h[8:10], h[10:16])
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

func (p Protocol) library() map[string][]byte {
	if p.Library == nil {
		return templates.Folder(Name, "reasoning")
	}
	return p.Library
}

// CheckSetup renders every prompt with a sample debate, so that a broken
// template is found before a run pays for any call.
func (p Protocol) CheckSetup() error {
	d := &debate{st: state{Protocol: Name, Round: 2, MinRounds: 1, MaxRounds: 3, EarlyStop: 8}, question: "Q?", tmpl: p.templates(),
		rounds: map[int]*round{1: {N: 1, Proposal: &proposal{Text: "A."}, Critique: &critique{Text: "C.", Points: []Point{{ID: "R1.1", Severity: "major", Text: "P."}}}}}}
	d.retrieval = &Retrieval{Kept: nil}
	for _, f := range []func() (sm.Call, error){
		func() (sm.Call, error) { return d.proposalCall(1) },
		func() (sm.Call, error) { return d.proposalCall(2) },
		func() (sm.Call, error) {
			d.rounds[2] = &round{N: 2, Proposal: &proposal{Text: "B."}}
			return d.critiqueCall(2)
		},
		d.synthesisCall,
		func() (sm.Call, error) { d.synthesis = &synthesis{Text: "S."}; return d.scoreCall() },
	} {
		if _, err := f(); err != nil {
			return err
		}
	}
	return nil
}

// Load reads a refine debate.
func (p Protocol) Load(files fs.FS) (sm.Debate, error) {
	return load(files, p.templates(), p.library())
}

// Script is refine's script for moot's built-in model (sm.Scripted): its
// answer to call, by the call's role and kind.
func (Protocol) Script(call sm.ScriptCall) (string, error) { return script.Answer(call) }

var _ sm.Scripted = Protocol{}
