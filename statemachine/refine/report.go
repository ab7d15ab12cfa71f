package refine

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/moot-dev/moot/internal/escape"
	"github.com/moot-dev/moot/internal/evidence"
	"github.com/moot-dev/moot/internal/page"
	sm "github.com/moot-dev/moot/statemachine"
)

var (
	_ sm.Reporter     = (*debate)(nil)
	_ sm.HTMLReporter = (*debate)(nil)
	_ sm.Exporter     = (*debate)(nil)
)

// ReportFile is the report `moot report` writes.
const ReportFile = "README.md"

func inline(s string) string { return escape.Markdown(s) }

// fate is what became of one point, round by round.
type fate struct {
	Point
	Raised   int
	Statuses map[int]string
}

// fates lists every point raised, with its status in each later round.
func (d *debate) fates() []*fate {
	var out []*fate
	byID := map[string]*fate{}
	for r := 1; r <= d.roundsDone(); r++ {
		c := d.critiqueOf(r)
		for _, rt := range c.Previous {
			if f := byID[rt.ID]; f != nil {
				f.Statuses[r] = rt.Status
			}
		}
		for _, p := range c.Points {
			f := &fate{Point: p, Raised: r, Statuses: map[int]string{}}
			byID[p.ID] = f
			out = append(out, f)
		}
	}
	return out
}

var statusMark = map[string]string{"resolved": "resolved", "partly_resolved": "partly", "unresolved": "unresolved"}

// Report writes README.md: the final answer and its score first, then
// how it got there: the templates retrieved, each round's decision, and
// every point of every critique with its fate across the rounds.
func (d *debate) Report() ([]sm.File, error) {
	var b strings.Builder
	fmt.Fprintf(&b, "# %s\n\n", inline(d.question))
	b.WriteString("## Answer\n\n")
	if d.synthesis != nil {
		b.WriteString(sm.Blockquote(d.synthesis.Text) + "\n")
		if len(d.synthesis.Citations) > 0 {
			fmt.Fprintf(&b, "\n*Quotations checked:* %s\n", evidence.Marks(d.synthesis.Citations))
		}
	} else {
		fmt.Fprintf(&b, "No final answer yet: %s.\n", d.describe())
	}
	if d.score != nil {
		s := d.score
		fmt.Fprintf(&b, "\n**Score: %d/10** (weighted criteria %.2f; %s)\n\n", s.Score, s.WeightedScore, s.Parse)
		b.WriteString("| criterion | weight | score |\n|---|---|---|\n")
		for _, c := range criteria {
			fmt.Fprintf(&b, "| %s | %d%% | %s |\n", c.Name, c.Weight, markText(s.Criteria[c.Name].Score))
		}
		if len(s.Panel) > 0 {
			fmt.Fprintf(&b, "\nThe mean of a panel of %d judges, each criterion to two decimals (their scores are in `%s/`):\n\n", len(s.Panel), sm.JudgmentsDir)
			b.WriteString("| judge | model | score | weighted |\n|---|---|---|---|\n")
			for _, p := range s.Panel {
				fmt.Fprintf(&b, "| %s | %s | %d | %.2f |\n", inline(p.Name), inline(p.Model), p.Score, p.WeightedScore)
			}
		}
		fmt.Fprintf(&b, "\n%s\n\nWould benefit from fine-tuning: %t.\n", sm.Blockquote(s.Justification), s.Finetune)
	}
	if d.scoreGap != nil {
		fmt.Fprintf(&b, "\n**Score: missing.** The judge's answers were refused after every repair; no value was invented (`moot run --retry-missing` asks again).\n")
	}
	b.WriteString("\n## How it got there\n\n")
	if r := d.retrieval; r != nil {
		switch {
		case r.Method == "off":
			b.WriteString("Retrieval was off: the proposer had the generic scaffold.\n")
		case len(r.Kept) == 0:
			fmt.Fprintf(&b, "No reasoning template reached the threshold (%s, %g): the proposer had the generic scaffold.\n", r.Score, r.Threshold)
		default:
			fmt.Fprintf(&b, "Reasoning templates offered (%s, %s):\n\n", r.Method, r.Score)
			for _, c := range r.Candidates {
				if c.Kept {
					fmt.Fprintf(&b, "- %s (%s): %.2f\n", inline(c.Name), c.ID, c.Score)
				}
			}
		}
		if r.Unavailable != "" {
			fmt.Fprintf(&b, "\nThe endpoint gave no embeddings (%s), so the templates were ranked by their words.\n", inline(r.Unavailable))
		}
	}
	if n := d.roundsDone(); n > 0 {
		b.WriteString("\n| round | critical | major | minor | skeptic score | decision |\n|---|---|---|---|---|---|\n")
		for r := 1; r <= n; r++ {
			c := d.critiqueOf(r)
			dec := "continue"
			if c.Decision.Stop {
				dec = "stop: " + c.Decision.Reason
			}
			fmt.Fprintf(&b, "| %d | %d | %d | %d | %d | %s (%s) |\n", r, c.Critical, c.Major, c.Minor, c.Score, dec, inline(c.Decision.Why))
		}
	}
	if fs := d.fates(); len(fs) > 0 {
		b.WriteString("\n### Points and their fate\n\n| point | severity | raised | ")
		n := d.roundsDone()
		for r := 2; r <= n; r++ {
			fmt.Fprintf(&b, "round %d | ", r)
		}
		b.WriteString("text |\n|---|---|---|")
		for r := 2; r <= n; r++ {
			b.WriteString("---|")
		}
		b.WriteString("---|\n")
		for _, f := range fs {
			fmt.Fprintf(&b, "| %s | %s | %d | ", f.ID, f.Severity, f.Raised)
			for r := 2; r <= n; r++ {
				s := statusMark[f.Statuses[r]]
				if s == "" {
					s = "-"
				}
				b.WriteString(s + " | ")
			}
			fmt.Fprintf(&b, "%s |\n", inline(f.Text))
		}
	}
	for r := 1; r <= d.st.Round; r++ {
		p, c := d.proposalOf(r), d.critiqueOf(r)
		if p == nil {
			break
		}
		fmt.Fprintf(&b, "\n### Round %d\n\n**Proposer** ([%s](%s)):\n\n%s\n", r, proposalFile(r), proposalFile(r), sm.Blockquote(p.Text))
		if len(p.Citations) > 0 {
			fmt.Fprintf(&b, "\n*Quotations checked:* %s\n", evidence.Marks(p.Citations))
		}
		if c != nil {
			fmt.Fprintf(&b, "\n**Skeptic** ([%s](%s)):\n\n%s\n", critiqueFile(r), critiqueFile(r), sm.Blockquote(c.Text))
		}
	}
	return []sm.File{{Name: ReportFile, Data: []byte(b.String())}}, nil
}

// ReportHTML is README.md as one self-contained page, rendered as moot
// renders every markdown report.
func (d *debate) ReportHTML() ([]byte, error) {
	files, err := d.Report()
	if err != nil {
		return nil, err
	}
	return page.MarkdownPage(d.question, files[0].Data)
}

// Formats lists refine's export formats.
func (Protocol) Formats() []sm.Format {
	return []sm.Format{{Name: "trace", Usage: "the design's trace record, one JSON object", Ext: "json"}}
}

// Formats lists the debate's export formats.
func (d *debate) Formats() []sm.Format { return Protocol{}.Formats() }

// Trace is the design's trace record.
type Trace struct {
	ID            string       `json:"id"`
	Timestamp     string       `json:"timestamp"`
	Query         string       `json:"query"`
	TemplatesUsed []string     `json:"templates_used"`
	Rounds        []TraceRound `json:"rounds"`
	FinalAnswer   *string      `json:"final_answer"`
	TotalRounds   int          `json:"total_rounds"`
	EarlyStopped  bool         `json:"early_stopped"`
	QualityScore  *int         `json:"quality_score"`
	UserRating    *int         `json:"user_rating"`
	AutoScore     *int         `json:"auto_score"`
	// AutoScoreMissing, set only when the judge's score is recorded as
	// missing (moot run --keep-going), says so: auto_score is then null.
	AutoScoreMissing *sm.Missing       `json:"auto_score_missing,omitempty"`
	Models           map[string]string `json:"models"`
	Timing           TraceTiming       `json:"timing"`
}

// TraceRound is one round of a trace.
type TraceRound struct {
	Round    int    `json:"round"`
	Proposer string `json:"proposer"`
	Skeptic  string `json:"skeptic"`
}

// TraceTiming is the model time of a trace, in milliseconds.
type TraceTiming struct {
	TotalMS     int64   `json:"total_ms"`
	RagMS       int64   `json:"rag_ms"`
	RoundsMS    []int64 `json:"rounds_ms"`
	SynthesisMS int64   `json:"synthesis_ms"`
}

// Trace returns the debate's trace record. early_stopped is true only
// when the rounds ended before max_rounds; quality_score and user_rating
// are a person's and stay null.
func (d *debate) Trace() Trace {
	t := Trace{ID: d.st.ID, Timestamp: d.st.Started, Query: d.question, TemplatesUsed: []string{}, Rounds: []TraceRound{},
		Models: map[string]string{}, Timing: TraceTiming{RoundsMS: []int64{}}}
	if d.retrieval != nil {
		t.TemplatesUsed = append(t.TemplatesUsed, d.retrieval.Kept...)
		t.Timing.RagMS = d.retrieval.ElapsedMS
	}
	for r := 1; r <= d.roundsDone(); r++ {
		p, c := d.proposalOf(r), d.critiqueOf(r)
		if p == nil {
			break
		}
		t.Rounds = append(t.Rounds, TraceRound{Round: r, Proposer: p.Text, Skeptic: renderCritique(c)})
		t.Timing.RoundsMS = append(t.Timing.RoundsMS, p.ElapsedMS+c.Elapsed)
		t.Timing.TotalMS += p.ElapsedMS + c.Elapsed
	}
	t.TotalRounds = len(t.Rounds)
	if d.st.Stop != nil {
		t.EarlyStopped = d.st.Stop.Reason != ReasonMaxRounds
	}
	if d.synthesis != nil {
		t.FinalAnswer = &d.synthesis.Text
		t.Timing.SynthesisMS = d.synthesis.ElapsedMS
		t.Timing.TotalMS += d.synthesis.ElapsedMS
	}
	if d.scoreGap != nil {
		t.AutoScoreMissing = d.scoreGap.Missing
	}
	if d.score != nil {
		s := d.score.Score
		t.AutoScore = &s
		t.Timing.TotalMS += d.score.ElapsedMS
	}
	t.Timing.TotalMS += t.Timing.RagMS
	for _, role := range []string{RoleProposer, RoleSkeptic, RoleSynthesizer, RoleJudge} {
		t.Models[role] = d.models[role]
	}
	t.Models["embedding"] = d.models[RoleEmbedder]
	if d.retrieval != nil && d.retrieval.Model != "" {
		t.Models["embedding"] = d.retrieval.Model
	}
	return t
}

// Export returns the debate in the format called name.
func (d *debate) Export(name string) ([]byte, error) {
	if name != "trace" {
		return nil, fmt.Errorf("refine exports no format %q (it has trace)", name)
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(d.Trace()); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

var _ sm.Leader = (*debate)(nil)

// Leader gives the judge's score of the synthesis once there is one: a
// refine debate has no sides to lead.
func (d *debate) Leader() string {
	if d.score != nil {
		return fmt.Sprintf("score %d/10", d.score.Score)
	}
	return "no score yet"
}
