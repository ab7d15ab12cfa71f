package refine

import (
	"fmt"
	"strconv"
	"strings"

	sm "github.com/moot-dev/moot/statemachine"
)

var _ sm.Shower = (*debate)(nil)

// The ids of the parts that are not a round's.
const (
	partRetrieval = "retrieval"
	partSynthesis = "synthesis"
	partScore     = "score"
)

func proposalPart(r int) string { return fmt.Sprintf("r%02d-proposal", r) }
func critiquePart(r int) string { return fmt.Sprintf("r%02d-critique", r) }

// Parts lists what is committed, in order: the retrieval, each round's
// proposal and critique (with the skeptic's score), the synthesis and the
// judge's score. Retrieval and round 1 are unit 1; the synthesis and its
// score are the unit after the last round.
func (d *debate) Parts() []sm.Part {
	var out []sm.Part
	if r := d.retrieval; r != nil {
		out = append(out, sm.Part{ID: partRetrieval, Unit: 1, Role: RoleEmbedder, Title: "templates: " + d.keptLine()})
	}
	for r := 1; ; r++ {
		p := d.proposalOf(r)
		if p == nil {
			break
		}
		out = append(out, sm.Part{ID: proposalPart(r), Unit: r, Role: RoleProposer, Title: "the proposer's answer"})
		c := d.critiqueOf(r)
		if c == nil {
			break
		}
		score := float64(c.Score)
		out = append(out, sm.Part{ID: critiquePart(r), Unit: r, Role: RoleSkeptic, Score: &score,
			Title: fmt.Sprintf("critique: %d critical, %d major, %d minor; %s", c.Critical, c.Major, c.Minor, decisionLine(c.Decision))})
	}
	last := d.roundsDone() + 1
	if d.synthesis != nil {
		out = append(out, sm.Part{ID: partSynthesis, Unit: last, Role: RoleSynthesizer, Title: "the final answer"})
	}
	if d.scoreGap != nil {
		out = append(out, sm.Part{ID: partScore, Unit: last, Role: RoleJudge, Title: "the judge's score: missing, no value invented"})
	}
	if s := d.score; s != nil {
		score := float64(s.Score)
		out = append(out, sm.Part{ID: partScore, Unit: last, Role: RoleJudge, Score: &score, Title: fmt.Sprintf("the judge's score: %d/10", s.Score)})
	}
	return out
}

// keptLine names the templates retrieval kept, and how it ranked them.
func (d *debate) keptLine() string {
	r := d.retrieval
	kept := "none (generic scaffold)"
	if len(r.Kept) > 0 {
		kept = strings.Join(r.Kept, ", ")
	}
	return fmt.Sprintf("%s (%s)", kept, r.Method)
}

func decisionLine(dec Decision) string {
	if dec.Stop {
		return "stop: " + dec.Reason
	}
	return "continue"
}

// partID reads id as Show accepts it: a part's id, or its file's name
// ("rounds/r1-proposal.md", "score.json"), its round with or without the
// leading zero.
func partID(id string) string {
	id = strings.TrimSuffix(strings.TrimSuffix(strings.TrimPrefix(strings.TrimSpace(id), RoundsDir+"/"), ".md"), ".json")
	if num, kind, ok := strings.Cut(id, "-"); ok && strings.HasPrefix(num, "r") {
		if n, err := strconv.Atoi(num[1:]); err == nil && n > 0 {
			return fmt.Sprintf("r%02d-%s", n, kind)
		}
	}
	return id
}

// Show returns the part called id in full: the retrieval's ranking, a
// proposal's text, a critique's points, ratings, decision and reason with
// its text, the final answer, or the judge's marks and justification.
func (d *debate) Show(id string) (string, bool) {
	id = partID(id)
	var b strings.Builder
	switch {
	case id == partRetrieval && d.retrieval != nil:
		r := d.retrieval
		fmt.Fprintf(&b, "retrieval · %s\n", d.keptLine())
		if r.Model != "" {
			fmt.Fprintf(&b, "model: %s · ", r.Model)
		}
		fmt.Fprintf(&b, "score: %s · threshold: %g · top %d\n", r.Score, r.Threshold, r.TopK)
		if r.Unavailable != "" {
			fmt.Fprintf(&b, "no embeddings: %s\n", r.Unavailable)
		}
		if len(r.Candidates) > 0 {
			b.WriteString("\n")
		}
		for _, c := range r.Candidates {
			mark := " "
			if c.Kept {
				mark = "*"
			}
			fmt.Fprintf(&b, "%s %.4f  %s (%s, %s)\n", mark, c.Score, c.Name, c.ID, c.Source)
		}
		return b.String(), true
	case id == partSynthesis && d.synthesis != nil:
		s := d.synthesis
		fmt.Fprintf(&b, "synthesis · the final answer from %d rounds\nmodel: %s · %s\n\n%s\n", s.Rounds, s.Model, s.Time, strings.TrimRight(s.Text, "\n"))
		return b.String(), true
	case id == partScore && d.score != nil:
		s := d.score
		fmt.Fprintf(&b, "score · %d/10 (weighted criteria %.2f)\nmodel: %s · parse: %s · attempts: %d\n\n", s.Score, s.WeightedScore, s.Model, s.Parse, s.Attempts)
		for _, c := range criteria {
			fmt.Fprintf(&b, "  %-13s %2s × %d%%\n", c.Name, markText(s.Criteria[c.Name].Score), c.Weight)
		}
		fmt.Fprintf(&b, "\nwould benefit from fine-tuning: %t\n\n%s\n", s.Finetune, strings.TrimRight(s.Justification, "\n"))
		return b.String(), true
	}
	num, kind, ok := strings.Cut(id, "-")
	n, err := strconv.Atoi(strings.TrimPrefix(num, "r"))
	if !ok || err != nil {
		return "", false
	}
	switch kind {
	case "proposal":
		p := d.proposalOf(n)
		if p == nil {
			return "", false
		}
		fmt.Fprintf(&b, "%s · round %d proposal\nmodel: %s · %s\n", proposalPart(n), n, p.Model, p.Time)
		if len(p.Templates) > 0 {
			fmt.Fprintf(&b, "templates: %s\n", strings.Join(p.Templates, ", "))
		}
		fmt.Fprintf(&b, "\n%s\n", strings.TrimRight(p.Text, "\n"))
		return b.String(), true
	case "critique":
		c := d.critiqueOf(n)
		if c == nil {
			return "", false
		}
		fmt.Fprintf(&b, "%s · round %d critique\nmodel: %s · %s\n", critiquePart(n), n, c.Model, c.Time)
		fmt.Fprintf(&b, "skeptic's score: %d/10 · ready: %t · %d critical, %d major, %d minor\n", c.Score, c.Ready, c.Critical, c.Major, c.Minor)
		fmt.Fprintf(&b, "decision: %s (%s)\n", decisionLine(c.Decision), c.Decision.Why)
		if c.Note != "" {
			fmt.Fprintf(&b, "note: %s\n", c.Note)
		}
		if len(c.Previous) > 0 {
			b.WriteString("\nearlier points:\n")
			for _, p := range c.Previous {
				fmt.Fprintf(&b, "  %s: %s", p.ID, strings.ReplaceAll(p.Status, "_", " "))
				if p.Note != "" {
					fmt.Fprintf(&b, ". %s", p.Note)
				}
				b.WriteString("\n")
			}
		}
		if len(c.Points) > 0 {
			b.WriteString("\npoints:\n")
			for _, p := range c.Points {
				fmt.Fprintf(&b, "  %s (%s): %s\n", p.ID, p.Severity, p.Text)
			}
		}
		fmt.Fprintf(&b, "\n%s\n", strings.TrimRight(c.Text, "\n"))
		return b.String(), true
	}
	return "", false
}
