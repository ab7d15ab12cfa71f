package refine

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"github.com/moot-dev/moot/internal/evidence"
	"github.com/moot-dev/moot/internal/frontmatter"
	sm "github.com/moot-dev/moot/statemachine"
	"github.com/moot-dev/moot/templates"
)

// The files and folders of a debate.
const (
	RoundsDir     = "rounds"
	ReasoningDir  = "reasoning"
	RetrievalFile = "retrieval.json"
	SynthesisFile = "synthesis.md"
	ScoreFile     = "score.json"
)

// The phases, as current_phase names them.
const (
	phaseRetrieval = "awaiting_retrieval"
	phaseProposal  = "awaiting_proposal"
	phaseCritique  = "awaiting_critique"
	phaseSynthesis = "awaiting_synthesis"
	phaseScore     = "awaiting_score"
	phaseComplete  = "complete"
)

// scoreStep is the key of the judge's step, which scores the final
// answer; a re-judging's step is keyed after it (sm.RejudgeKey).
const scoreStep = "score"

// The reasons a debate stops.
const (
	ReasonReady      = "ready_signal"
	ReasonMaxRounds  = "max_rounds"
	ReasonNoCritical = "no_critical"
)

// Stop is why and when the rounds ended.
type Stop struct {
	Round  int    `json:"round"`
	Reason string `json:"reason"`
}

type ragSettings struct {
	Enabled   bool    `json:"enabled"`
	TopK      int     `json:"top_k"`
	Threshold float64 `json:"threshold"`
	// Score is the scale of an embedding's score: ScaleHalfCosine, the
	// original's (1 + cosine) / 2, or, absent in debates made before moot
	// had it, the raw cosine.
	Score string `json:"score,omitempty"`
}

// ScaleHalfCosine names the original's scale of retrieval scores,
// (1 + cosine) / 2, from 0 to 1, which the threshold and the Match Score
// shown to the proposer use.
const ScaleHalfCosine = "half_cosine"

// state is what debate.md's frontmatter holds.
type state struct {
	Protocol  string      `json:"protocol"`
	DebateID  string      `json:"debate_id"`
	Round     int         `json:"current_round"`
	Phase     string      `json:"current_phase"`
	Stop      *Stop       `json:"stop"`
	MinRounds int         `json:"min_rounds"`
	MaxRounds int         `json:"max_rounds"`
	EarlyStop int         `json:"early_stop_score"`
	RAG       ragSettings `json:"rag"`
	// Temperatures are the sampling temperatures of the roles, by role,
	// fixed at new; a --ROLE-temperature of a run replaces one. Debates
	// made before moot had them have none, and send none.
	Temperatures map[string]float64 `json:"temperatures,omitempty"`
	ID           string             `json:"trace_id"`
	Started      string             `json:"started"`
}

var stateKeys = []string{"protocol", "debate_id", "current_round", "current_phase", "stop", "min_rounds", "max_rounds",
	"early_stop_score", "rag", "temperatures", "trace_id", "started"}

// proposal is a round's answer, as rounds/rNN-proposal.md holds it.
type proposal struct {
	Round     int      `json:"round"`
	Model     string   `json:"model"`
	Templates []string `json:"templates,omitempty"`
	ElapsedMS int64    `json:"elapsed_ms"`
	Time      string   `json:"time"`
	// Citations are the checks of the proposal's quotations when the
	// proposer researched (see research.go).
	Citations []evidence.Check `json:"citations,omitempty"`
	Text      string           `json:"-"`
	file      string
}

// Point is one point of a critique.
type Point struct {
	ID       string `json:"id"`
	Severity string `json:"severity"`
	Text     string `json:"text"`
}

// Rating is a critique's verdict on an earlier point.
type Rating struct {
	ID     string `json:"id"`
	Status string `json:"status"`
	Note   string `json:"note,omitempty"`
}

// critique is a round's critique and the decision taken at its commit,
// as rounds/rNN-critique.md holds it.
type critique struct {
	Round    int      `json:"round"`
	Model    string   `json:"model"`
	Ready    bool     `json:"ready"`
	Score    int      `json:"skeptic_score"`
	Critical int      `json:"critical_count"`
	Major    int      `json:"major_count"`
	Minor    int      `json:"minor_count"`
	Points   []Point  `json:"points"`
	Previous []Rating `json:"previous"`
	Decision Decision `json:"decision"`
	// Note says how moot read the answer where it was not taken as
	// written (a ready signal below the early-stop score); "" otherwise.
	Note    string `json:"note,omitempty"`
	Elapsed int64  `json:"elapsed_ms"`
	Time    string `json:"time"`
	Text    string `json:"-"`
	file    string
}

type round struct {
	N        int
	Proposal *proposal
	Critique *critique
}

type synthesis struct {
	Model     string `json:"model"`
	Rounds    int    `json:"rounds"`
	ElapsedMS int64  `json:"elapsed_ms"`
	Time      string `json:"time"`
	// Citations are as a proposal's.
	Citations []evidence.Check `json:"citations,omitempty"`
	Text      string           `json:"-"`
}

// debate is a refine debate as read from its files.
type debate struct {
	st        state
	front     frontmatter.Object
	question  string
	models    map[string]string
	retrieval *Retrieval
	// own are the templates of the debate's reasoning/ folder, by id.
	own       map[string]Template
	rounds    map[int]*round
	synthesis *synthesis
	score     *Score
	// scoreGap is the record of a score that got no acceptable answer in
	// a run with --keep-going, kept in score.json in place of the score;
	// score is then nil.
	scoreGap *MissingScore
	problems []sm.Problem
	tmpl     *templates.Set
	library  map[string][]byte
	// panel is the judge panel debate.md names; nil for one judge.
	panel []sm.Judge
	// judges holds every folder under judgments/, by name.
	judges map[string]*judgeFolder
	// sources holds the pages the debate's research read, by URL.
	sources map[string]*evidence.Source
}

func (d *debate) renderState() ([]byte, error) {
	front, err := frontmatter.Merge(d.front, d.st, stateKeys)
	if err != nil {
		return nil, err
	}
	return frontmatter.Render(front, "# Question\n\n"+d.question+"\n")
}

func (d *debate) checkState() error {
	st := d.st
	switch {
	case st.Protocol != Name:
		return fmt.Errorf("field %q: %q, not %q", "protocol", st.Protocol, Name)
	case st.MaxRounds < 1 || st.MaxRounds > maxRoundsLimit:
		return fmt.Errorf("field %q: %d is outside 1 to %d", "max_rounds", st.MaxRounds, maxRoundsLimit)
	case st.MinRounds < 1 || st.MinRounds > st.MaxRounds:
		return fmt.Errorf("field %q: %d is outside 1 to max_rounds %d", "min_rounds", st.MinRounds, st.MaxRounds)
	case st.EarlyStop < 1 || st.EarlyStop > 10:
		return fmt.Errorf("field %q: %d is outside 1 to 10", "early_stop_score", st.EarlyStop)
	case st.RAG.TopK < 0 || st.RAG.TopK > maxTemplates:
		return fmt.Errorf("field %q: top_k %d is outside 0 to %d", "rag", st.RAG.TopK, maxTemplates)
	case !(st.RAG.Threshold >= 0 && st.RAG.Threshold <= 1):
		return fmt.Errorf("field %q: threshold %v is outside 0 to 1", "rag", st.RAG.Threshold)
	case st.RAG.Score != "" && st.RAG.Score != ScaleHalfCosine:
		return fmt.Errorf("field %q: score %q is not %q", "rag", st.RAG.Score, ScaleHalfCosine)
	case st.Round < 1 || st.Round > st.MaxRounds:
		return fmt.Errorf("field %q: %d is outside 1 to max_rounds %d", "current_round", st.Round, st.MaxRounds)
	}
	for role, t := range st.Temperatures {
		switch role {
		case RoleProposer, RoleSkeptic, RoleSynthesizer, RoleJudge:
		default:
			return fmt.Errorf("field %q: %q is not a role that chats (proposer, skeptic, synthesizer or judge)", "temperatures", role)
		}
		if !(t >= 0 && t <= 2) {
			return fmt.Errorf("field %q: %s: %v is outside 0 to 2", "temperatures", role, t)
		}
	}
	switch st.Phase {
	case phaseRetrieval, phaseProposal, phaseCritique, phaseSynthesis, phaseScore, phaseComplete:
	default:
		return fmt.Errorf("field %q: %q is not a phase of refine", "current_phase", st.Phase)
	}
	return nil
}

var roundFile = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^r([0-9]{2,})-(proposal|critique)\.md$`) })

func proposalFile(r int) string { return fmt.Sprintf("%s/r%02d-proposal.md", RoundsDir, r) }
func critiqueFile(r int) string { return fmt.Sprintf("%s/r%02d-critique.md", RoundsDir, r) }

func load(files fs.FS, tmpl *templates.Set, library map[string][]byte) (*debate, error) {
	data, err := fs.ReadFile(files, sm.StateFile)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", sm.StateFile, err)
	}
	d := &debate{rounds: map[int]*round{}, own: map[string]Template{}, tmpl: tmpl, library: library}
	front, body, err := sm.ParseState(data, &d.st, Name, "debate_id", "current_round", "current_phase", "min_rounds", "max_rounds")
	if err != nil {
		return nil, err
	}
	d.front = front
	if err := d.checkState(); err != nil {
		return nil, fmt.Errorf("read %s: %w", sm.StateFile, err)
	}
	var settings struct {
		Models map[string]string `json:"models"`
	}
	if m, ok := front.Get("moot"); ok {
		_ = json.Unmarshal(m, &settings)
	}
	d.models = settings.Models
	d.question = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(body), "# Question"))
	if d.question == "" {
		return nil, fmt.Errorf("read %s: the question under # Question is empty", sm.StateFile)
	}
	if err := d.readReasoning(files); err != nil {
		return nil, err
	}
	if err := d.readRounds(files); err != nil {
		return nil, err
	}
	if data, err := fs.ReadFile(files, RetrievalFile); err == nil {
		var r Retrieval
		if err := frontmatter.Unmarshal(data, &r); err != nil {
			d.problems = append(d.problems, sm.Problem{File: RetrievalFile, Message: frontmatter.JSONError(err).Error()})
		} else {
			d.retrieval = &r
		}
	} else if !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("read %s: %w", RetrievalFile, err)
	}
	if data, err := fs.ReadFile(files, SynthesisFile); err == nil {
		front, body, err := frontmatter.Parse(data)
		var s synthesis
		if err == nil {
			err = front.Decode("model", &s.Model)
		}
		if err == nil {
			_ = front.Decode("rounds", &s.Rounds)
			_ = front.Decode("elapsed_ms", &s.ElapsedMS)
			_ = front.Decode("time", &s.Time)
			if _, ok := front.Get("citations"); ok {
				_ = front.Decode("citations", &s.Citations)
			}
			s.Text = strings.TrimSpace(body)
			d.synthesis = &s
		} else {
			d.problems = append(d.problems, sm.Problem{File: SynthesisFile, Message: err.Error()})
		}
	} else if !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("read %s: %w", SynthesisFile, err)
	}
	if data, err := fs.ReadFile(files, ScoreFile); err == nil {
		var s Score
		var gap MissingScore
		if err := frontmatter.Unmarshal(data, &gap); err == nil && gap.Missing != nil {
			d.scoreGap = &gap
		} else if err := frontmatter.Unmarshal(data, &s); err != nil {
			d.problems = append(d.problems, sm.Problem{File: ScoreFile, Message: frontmatter.JSONError(err).Error()})
		} else {
			d.score = &s
		}
	} else if !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("read %s: %w", ScoreFile, err)
	}
	if err := d.readJudges(files); err != nil {
		return nil, err
	}
	if d.sources, err = evidence.ReadDir(files); err != nil {
		return nil, err
	}
	return d, nil
}

func (d *debate) readReasoning(files fs.FS) error {
	names, err := sm.FileNames(files, ReasoningDir)
	if err != nil {
		return err
	}
	for _, n := range names {
		file := ReasoningDir + "/" + n
		if !strings.HasSuffix(n, ".md") {
			continue
		}
		data, err := fs.ReadFile(files, file)
		if err != nil {
			return fmt.Errorf("read %s: %w", file, err)
		}
		t, err := parseTemplate(strings.TrimSuffix(n, ".md"), data)
		if err != nil {
			d.problems = append(d.problems, sm.Problem{File: file, Message: err.Error()})
			continue
		}
		t.Source = file
		d.own[t.ID] = t
	}
	return nil
}

func (d *debate) readRounds(files fs.FS) error {
	names, err := sm.FileNames(files, RoundsDir)
	if err != nil {
		return err
	}
	for _, n := range names {
		file := RoundsDir + "/" + n
		m := roundFile().FindStringSubmatch(n)
		if m == nil {
			d.problems = append(d.problems, sm.Problem{File: file, Message: "is not a round file (want rNN-proposal.md or rNN-critique.md)"})
			continue
		}
		num, _ := strconv.Atoi(m[1])
		data, err := fs.ReadFile(files, file)
		if err != nil {
			return fmt.Errorf("read %s: %w", file, err)
		}
		_, raw, body, err := frontmatter.ParseRaw(data)
		if err != nil {
			d.problems = append(d.problems, sm.Problem{File: file, Message: err.Error()})
			continue
		}
		r := d.rounds[num]
		if r == nil {
			r = &round{N: num}
		}
		if m[2] == "proposal" {
			var p proposal
			if err := json.Unmarshal(raw, &p); err != nil {
				d.problems = append(d.problems, sm.Problem{File: file, Message: frontmatter.JSONError(err).Error()})
				continue
			}
			p.Text, p.file = strings.TrimSpace(body), file
			r.Proposal = &p
		} else {
			var c critique
			if err := json.Unmarshal(raw, &c); err != nil {
				d.problems = append(d.problems, sm.Problem{File: file, Message: frontmatter.JSONError(err).Error()})
				continue
			}
			c.Text, c.file = strings.TrimSpace(body), file
			r.Critique = &c
		}
		d.rounds[num] = r
	}
	return nil
}

// proposalOf returns round r's proposal, if written.
func (d *debate) proposalOf(r int) *proposal {
	if x := d.rounds[r]; x != nil {
		return x.Proposal
	}
	return nil
}

// critiqueOf returns round r's critique, if written.
func (d *debate) critiqueOf(r int) *critique {
	if x := d.rounds[r]; x != nil {
		return x.Critique
	}
	return nil
}

// roundsDone is how many rounds have a committed critique.
func (d *debate) roundsDone() int {
	n := 0
	for r := 1; d.critiqueOf(r) != nil; r++ {
		n = r
	}
	return n
}
