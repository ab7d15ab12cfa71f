// Package moderated is moot's protocol `moderated`: a moderator leads two
// advocates through openings, rounds of argument and rebuttal and closings,
// and scores every argument and rebuttal on a weighted rubric. It follows
// the design of seed 001 (the Convenings debate workflow) with the original
// code's flaws fixed: the design's speaking order, transitions that name
// the real speakers, per-kind token limits, totals on a 0-10 scale, a
// participant's score as the mean of its statements, and every message
// committed as it is made.
//
// Each step is one model call: a message of the debate or the score of
// one statement. The state is debate.md; the messages and scores are files
// of their own; index.md, metadata.md, summary.md and transcript.md are
// derived in every commit and never read back.
package moderated

import (
	"crypto/sha1"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"

	sm "github.com/moot-dev/moot/statemachine"
	"github.com/moot-dev/moot/statemachine/moderated/script"
	"github.com/moot-dev/moot/templates"
)

// Name is the protocol's name.
const Name = "moderated"

// The roles a call is made for.
const (
	RoleModerator    = "moderator"
	RoleA            = "advocate-a"
	RoleB            = "advocate-b"
	RoleFactChecker  = "fact-checker"
	advocateGroup    = "advocate"
	defaultRounds    = 2
	maxRounds        = 20
	defaultFormatStr = "formal"
)

// Protocol is the moderated protocol. Templates are the prompt templates
// in force; nil means the built-in ones.
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

// Name returns "moderated".
func (Protocol) Name() string { return Name }

// Summary describes the protocol in a line.
func (Protocol) Summary() string {
	return "a moderator leads two advocates through openings, argument and rebuttal rounds and closings; each argument and rebuttal is scored on a weighted rubric"
}

// Demo is the debate of moot demo: a question and its two positions,
// over two rounds.
func (Protocol) Demo() sm.Demo {
	return sm.Demo{Args: []string{"--motion", "Should cities ban private cars from their centres?",
		"--position-a", "Cities should ban private cars from their centres.", "--position-b", "Cities should keep private cars in their centres.", "--rounds", "2"},
		Parts: "messages/", PartsAre: "one file per message of the moderator and the advocates; scores/ holds each rubric"}
}

// JudgeRole returns "moderator": a panel takes the moderator's scoring
// calls, and those alone.
func (Protocol) JudgeRole() string { return RoleModerator }

// Roles returns the moderator, the two advocates and the optional fact
// checker. --advocate-model sets both advocates.
func (Protocol) Roles() []sm.Role {
	return []sm.Role{
		{Name: RoleModerator, Description: "introduces each phase, hands the floor over, summarises rounds, scores statements and concludes"},
		{Name: RoleA, Description: "advocates position A", Group: advocateGroup},
		{Name: RoleB, Description: "advocates position B", Group: advocateGroup},
		{Name: RoleFactChecker, Description: "rates the factual claims of each argument and rebuttal (with --fact-checker)"},
	}
}

var (
	positionAFlag = sm.Flag{Name: "position-a", Usage: "the `TEXT` of the position advocate A defends", Placeholder: "TEXT"}
	positionBFlag = sm.Flag{Name: "position-b", Usage: "the `TEXT` of the position advocate B defends", Placeholder: "TEXT"}
	roundsFlag    = sm.Flag{Name: "rounds", Usage: "how many argument `ROUNDS` the debate has", Placeholder: "ROUNDS", Default: strconv.Itoa(defaultRounds)}
	formatFlag    = sm.Flag{Name: "format", Usage: "the debate's `FORMAT`: formal, casual, educational or competitive", Placeholder: "FORMAT", Default: defaultFormatStr}
	criteriaFlag  = sm.Flag{Name: "criteria", Usage: "the rubric as `CRITERIA` \"name:weight,...\" (default: the design's five)", Placeholder: "CRITERIA"}
	tokensFlag    = sm.Flag{Name: "token-limits", Usage: "max tokens per statement kind as `LIMITS` \"opening:300,argument:250,closing:350\"", Placeholder: "LIMITS"}
	noSummaryFlag = sm.Flag{Name: "no-round-summaries", Usage: "leave out the moderator's summary after each round", Bool: true}
	transcriptFl  = sm.Flag{Name: "transcript", Usage: "also keep transcript.md, the whole debate in one file", Bool: true}
	outputFlag    = sm.Flag{Name: "output-format", Usage: "write the message, score and derived files as `FORMAT`: md, json or txt", Placeholder: "FORMAT", Default: outMarkdown}
	factFlag      = sm.Flag{Name: "fact-checker", Usage: "add a fact checker who rates the claims of every argument and rebuttal", Bool: true}
)

// Flags returns the flags of `moot new --protocol moderated`.
func (Protocol) Flags() []sm.Flag {
	return []sm.Flag{positionAFlag, positionBFlag, roundsFlag, formatFlag, criteriaFlag, tokensFlag, noSummaryFlag, transcriptFl, factFlag, outputFlag}
}

// formats are the debate formats of the design, each changing what the
// participants are told.
var formats = []string{"formal", "casual", "educational", "competitive"}

// Criterion is one criterion of the rubric.
type Criterion struct {
	Name        string  `json:"name"`
	Weight      float64 `json:"weight"`
	Description string  `json:"description,omitempty"`
}

// DefaultCriteria returns the design's rubric, a new slice each time.
func DefaultCriteria() []Criterion { return slices.Clone(defaultCriteria) }

var defaultCriteria = []Criterion{
	{Name: "logical_coherence", Weight: 0.25, Description: "clarity and soundness of reasoning"},
	{Name: "evidence_quality", Weight: 0.25, Description: "use of relevant, credible evidence"},
	{Name: "responsiveness", Weight: 0.20, Description: "directly addressing the opponent's arguments"},
	{Name: "persuasiveness", Weight: 0.15, Description: "overall convincingness of the presentation"},
	{Name: "rule_adherence", Weight: 0.15, Description: "following the debate's format and constraints"},
}

// MaxTokens holds the answer length sent for each kind of statement.
type MaxTokens struct {
	Opening  int `json:"opening"`
	Argument int `json:"argument"` // arguments and rebuttals
	Closing  int `json:"closing"`
}

// The design's answer lengths for each kind of statement.
const (
	defaultOpeningTokens  = 300
	defaultArgumentTokens = 250
	defaultClosingTokens  = 350
)

var criterionName = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[a-z][a-z0-9_]{0,39}$`) })

// ParseCriteria reads a rubric written "name:weight,...". A name is
// lower-cased, with spaces and hyphens as underscores; the design's
// criteria keep their descriptions.
func ParseCriteria(s string) ([]Criterion, error) {
	if strings.TrimSpace(s) == "" {
		return DefaultCriteria(), nil
	}
	var out []Criterion
	seen := map[string]bool{}
	for _, part := range strings.Split(s, ",") {
		name, w, ok := strings.Cut(part, ":")
		if !ok {
			return nil, fmt.Errorf("--criteria: %q is not \"name:weight\"", strings.TrimSpace(part))
		}
		name = strings.ToLower(strings.TrimSpace(name))
		name = strings.NewReplacer(" ", "_", "-", "_").Replace(name)
		if !criterionName().MatchString(name) {
			return nil, fmt.Errorf("--criteria: name %q: want a letter, then letters, digits or underscores (at most 40)", name)
		}
		if seen[name] {
			return nil, fmt.Errorf("--criteria: %q is given twice", name)
		}
		seen[name] = true
		weight, err := strconv.ParseFloat(strings.TrimSpace(w), 64)
		if err != nil || math.IsNaN(weight) || math.IsInf(weight, 0) || weight <= 0 || weight > 100 {
			return nil, fmt.Errorf("--criteria: weight of %q: %q is not a number above 0 and at most 100", name, strings.TrimSpace(w))
		}
		c := Criterion{Name: name, Weight: weight}
		for _, d := range defaultCriteria {
			if d.Name == name {
				c.Description = d.Description
			}
		}
		out = append(out, c)
	}
	if len(out) > 12 {
		return nil, fmt.Errorf("--criteria: %d criteria, at most 12", len(out))
	}
	return out, nil
}

// maxTokenLimit is the largest answer length a statement may be given.
const maxTokenLimit = 100000

// tokenLimit reports whether n is a limit debate.md may hold: 0 (none
// sent) to maxTokenLimit.
func tokenLimit(n int) bool { return n >= 0 && n <= maxTokenLimit }

// parseMaxTokens reads "opening:300,argument:250,closing:350"; kinds not
// given keep their defaults.
func parseMaxTokens(s string) (MaxTokens, error) {
	mt := MaxTokens{Opening: defaultOpeningTokens, Argument: defaultArgumentTokens, Closing: defaultClosingTokens}
	if strings.TrimSpace(s) == "" {
		return mt, nil
	}
	for _, part := range strings.Split(s, ",") {
		k, v, ok := strings.Cut(part, ":")
		n, err := strconv.Atoi(strings.TrimSpace(v))
		if !ok || err != nil || n < 1 || n > maxTokenLimit {
			return mt, fmt.Errorf("--token-limits: %q is not \"kind:tokens\" with tokens from 1 to %d", strings.TrimSpace(part), maxTokenLimit)
		}
		switch strings.TrimSpace(k) {
		case "opening":
			mt.Opening = n
		case "argument", "rebuttal":
			mt.Argument = n
		case "closing":
			mt.Closing = n
		default:
			return mt, fmt.Errorf("--token-limits: kind %q is none of opening, argument, closing", strings.TrimSpace(k))
		}
	}
	return mt, nil
}

// New returns debate.md and the derived files of a new debate. The
// participants' ids are fixed here, derived from the slug, the time and
// the role, and never change.
func (p Protocol) New(in sm.NewInput) ([]sm.File, error) {
	d, err := p.fresh(in)
	if err != nil {
		return nil, err
	}
	state, err := d.renderState()
	if err != nil {
		return nil, err
	}
	derived, err := d.derived()
	if err != nil {
		return nil, err
	}
	return append(derived, sm.File{Name: sm.StateFile, Data: state}), nil
}

// fresh returns the debate New makes, before any step.
func (p Protocol) fresh(in sm.NewInput) (*debate, error) {
	motion := strings.TrimSpace(in.Motion)
	if motion == "" {
		return nil, errors.New("the motion is empty")
	}
	posA, posB := strings.TrimSpace(in.Value(positionAFlag)), strings.TrimSpace(in.Value(positionBFlag))
	if posA == "" || posB == "" {
		return nil, errors.New("both positions are needed: give --position-a TEXT and --position-b TEXT")
	}
	if posA == posB {
		return nil, errors.New("--position-a and --position-b are the same text")
	}
	rounds, err := strconv.Atoi(strings.TrimSpace(in.Value(roundsFlag)))
	if err != nil || rounds < 1 || rounds > maxRounds {
		return nil, fmt.Errorf("--rounds %q is not a whole number from 1 to %d", in.Value(roundsFlag), maxRounds)
	}
	format := strings.ToLower(strings.TrimSpace(in.Value(formatFlag)))
	if !validFormat(format) {
		return nil, fmt.Errorf("--format %q is none of %s", format, strings.Join(formats, ", "))
	}
	output := strings.ToLower(strings.TrimSpace(in.Value(outputFlag)))
	if output == "" {
		output = outMarkdown
	}
	if !validOutputFormat(output) {
		return nil, fmt.Errorf("--output-format %q is none of %s", output, strings.Join(outputFormats, ", "))
	}
	criteria, err := ParseCriteria(in.Value(criteriaFlag))
	if err != nil {
		return nil, err
	}
	mt, err := parseMaxTokens(in.Value(tokensFlag))
	if err != nil {
		return nil, err
	}
	st := state{
		Protocol:       Name,
		DebateID:       in.Slug,
		Phase:          phaseOpening,
		RoundCount:     rounds,
		Format:         format,
		Scoring:        true,
		RoundSummaries: !flagOn(in, noSummaryFlag),
		FactChecker:    flagOn(in, factFlag),
		Transcript:     flagOn(in, transcriptFl),
		OutputFormat:   output,
		Criteria:       criteria,
		MaxTokens:      mt,
		Started:        in.Now.UTC().Format(sm.TimeLayout),
	}
	seed := in.Slug + "\x00" + in.Now.UTC().Format("2006-01-02T15:04:05.000000000Z")
	st.Participants = []Participant{
		{ID: uuidFrom(seed, RoleModerator), Name: "Moderator", Role: RoleModerator},
		{ID: uuidFrom(seed, RoleA), Name: "Advocate A", Role: RoleA, Position: posA},
		{ID: uuidFrom(seed, RoleB), Name: "Advocate B", Role: RoleB, Position: posB},
	}
	if st.FactChecker {
		st.Participants = append(st.Participants, Participant{ID: uuidFrom(seed, RoleFactChecker), Name: "Fact Checker", Role: RoleFactChecker})
	}
	d := &debate{st: st, motion: motion, messages: map[int]Message{}, scores: map[int]Score{}, tmpl: p.templates()}
	if err := d.checkState(); err != nil {
		return nil, err
	}
	d.buildSchedule()
	return d, nil
}

func flagOn(in sm.NewInput, f sm.Flag) bool {
	v := strings.ToLower(strings.TrimSpace(in.Value(f)))
	return v == "true" || v == "1" || v == "yes"
}

func validFormat(f string) bool {
	for _, x := range formats {
		if x == f {
			return true
		}
	}
	return false
}

// uuidFrom derives a version-5-shaped UUID from seed and role, so that the
// same debate made at the same instant gets the same ids and two debates
// never share them.
func uuidFrom(seed, role string) string {
	h := sha1.Sum([]byte("moot/moderated\x00" + seed + "\x00" + role))
	h[6] = (h[6] & 0x0f) | 0x50
	h[8] = (h[8] & 0x3f) | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", h[0:4], h[4:6], h[6:8], h[8:10], h[10:16])
}

// CheckSetup renders every template with a sample debate, so that a
// broken override is found before a run pays for any call.
func (p Protocol) CheckSetup() error {
	d, err := p.fresh(sm.NewInput{Slug: "setup", Motion: "A motion.", Values: map[string][]string{
		positionAFlag.Name: {"Yes."}, positionBFlag.Name: {"No."}, roundsFlag.Name: {"1"}, factFlag.Name: {"true"},
	}})
	if err != nil {
		return err
	}
	for i := range d.sched {
		if _, err := d.callFor(i); err != nil {
			return err
		}
	}
	return nil
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

// Load reads a moderated debate: debate.md, messages/ and scores/.
func (p Protocol) Load(files fs.FS) (sm.Debate, error) {
	return load(files, p.templates())
}

// Script is moderated's script for moot's built-in model (sm.Scripted): its
// answer to call, by the call's role and kind.
func (Protocol) Script(call sm.ScriptCall) (string, error) { return script.Answer(call) }

var _ sm.Scripted = Protocol{}
