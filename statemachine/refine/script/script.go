// Package script is refine's script for moot's built-in model
// (internal/builtin): what the proposer, the skeptic, the synthesizer and
// the judge answer, found by the call's role.
package script

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/moot-dev/moot/internal/builtin"
	sm "github.com/moot-dev/moot/statemachine"
)

// Answer is the built-in model's answer to a call of a refine debate, by
// its role.
func Answer(call sm.ScriptCall) (string, error) {
	return refineAnswer(builtin.Read(call), call.Role)
}

// refineQuestion reads the question under a prompt's "## Question" or
// "## Original Question" heading.
func refineQuestion(prompt string) string {
	for _, h := range []string{"## Question\n\n", "## Original Question\n\n"} {
		if q, ok := builtin.Between(prompt, h, "\n\n"); ok {
			return strings.TrimSpace(q)
		}
	}
	return "the question"
}

// refineRound reads "round N of at most M" from a proposer's or skeptic's
// prompt.
func refineRound(prompt string) int {
	for _, before := range []string{"This is round ", "this is round "} {
		if rest, ok := builtin.Between(prompt, before, " of at most"); ok {
			if n, err := strconv.Atoi(strings.TrimSpace(rest)); err == nil {
				return n
			}
		}
	}
	return 1
}

// refinePoints lists the ids of the points a prompt asks to answer or
// rate: lines "- R1.2 (critical, ...): ..." after its last "## Points to
// answer" or "## Earlier points to rate" heading.
func refinePoints(prompt string) []string {
	i := max(strings.LastIndex(prompt, "## Earlier points to rate"), strings.LastIndex(prompt, "## Points to answer"))
	if i < 0 {
		return nil
	}
	var out []string
	for _, line := range strings.Split(prompt[i:], "\n") {
		rest, ok := strings.CutPrefix(line, "- R")
		if !ok {
			continue
		}
		id, _, ok := strings.Cut(rest, " (")
		if ok && !strings.ContainsAny(id, " \t") {
			out = append(out, "R"+id)
		}
	}
	return out
}

func refineAnswer(c builtin.Conversation, role string) (string, error) {
	q := refineQuestion(c.Prompt)
	switch role {
	case "proposer":
		return proposal(c, q), nil
	case "skeptic":
		return critique(c)
	case "synthesizer":
		return fmt.Sprintf("## Answer\n\nA scripted answer to %q: moot's built-in model cannot answer it. A language model would give here the answer that survived the critique: its assumptions stated, each step shown, the figures with their units and sources, and the conclusion with its limits.\n\n---\n\n## Confidence: 6/10\n\n## Key Insights\n\n- The critique made the assumptions explicit.\n- The revised answer separates facts from estimates.\n\n## Remaining Caveats\n\nEverything here is a placeholder written by moot's built-in model.", q), nil
	case "judge":
		if !c.Repair {
			// The first score is far from the mean of its criteria, so
			// that the repair shows.
			return `{"score": 9, "criteria": {"correctness": 6, "completeness": 6, "clarity": 6, "depth": 6}, "justification": "Scripted: the answer has the right form, with assumptions and limits stated.", "would_benefit_from_finetune": false}`, nil
		}
		return `{"score": 6, "criteria": {"correctness": 6, "completeness": 7, "clarity": 6, "depth": 5}, "justification": "Scripted: the answer has the right form, with assumptions and limits stated, but its content is a placeholder. The built-in model scores by a fixed pattern.", "would_benefit_from_finetune": true}`, nil
	}
	return "", builtin.Errorf("a refine call of role %q", role)
}

func proposal(c builtin.Conversation, q string) string {
	r := refineRound(c.Prompt)
	var b strings.Builder
	if r == 1 {
		if t, ok := builtin.Between(c.Prompt, "### Template 1: ", "\n"); ok {
			fmt.Fprintf(&b, "I use the %s template: it fits a question of this kind best of those retrieved.\n\n", strings.TrimSpace(t))
		}
	} else {
		for _, id := range refinePoints(c.Prompt) {
			fmt.Fprintf(&b, "**%s** Accepted: the revision below states the assumption this point names and shows the step it questioned.\n\n", id)
		}
	}
	fmt.Fprintf(&b, "## Answer (round %d, scripted)\n\nThis is moot's built-in model standing in for a language model on %q. A model would restate the question, break it into parts, answer each with evidence and put them together; the built-in model only shows where each of those goes.\n\n", r, q)
	b.WriteString("1. Restate the question and what a good answer must cover.\n2. Break it into parts that can be answered separately.\n3. Answer each part, separating facts from estimates.\n4. Check the whole for consistency.\n\n")
	fmt.Fprintf(&b, "## Confidence\n\n%d/10\n\n## Known limitations\n\nThe content is a placeholder: the built-in model knows nothing of the subject.", min(4+r, 8))
	return b.String()
}

type refinePrevious struct {
	ID     string `json:"id"`
	Status string `json:"status"`
	Note   string `json:"note"`
}

type refinePoint struct {
	Severity string `json:"severity"`
	Text     string `json:"text"`
}

// critique is the skeptic's answer: in round 1 a critical and a major
// point, in round 2 a minor one, then none, with a score that rises to
// the early-stop score.
func critique(c builtin.Conversation) (string, error) {
	r := refineRound(c.Prompt)
	early := 8
	if rest, ok := builtin.Between(c.Prompt, "The early-stop score is ", ":"); ok {
		if n, err := strconv.Atoi(strings.TrimSpace(rest)); err == nil {
			early = n
		}
	}
	previous := []refinePrevious{}
	for _, id := range refinePoints(c.Prompt) {
		previous = append(previous, refinePrevious{ID: id, Status: "resolved", Note: "Scripted: the revision addresses it."})
	}
	points := []refinePoint{}
	score := 7
	switch r {
	case 1:
		score = 5
		points = append(points,
			refinePoint{"critical", "The answer asserts its main figure without saying where it comes from: state the assumption or the source."},
			refinePoint{"major", "The parts of the question are answered one by one but never put together: add the step that combines them."})
	case 2:
		points = append(points, refinePoint{"minor", "The limits are stated once and vaguely: say which assumption, if wrong, changes the answer most."})
	default:
		score = min(10, max(early, 8))
	}
	return builtin.Marshal(map[string]any{
		"critique": fmt.Sprintf("Scripted critique of round %d by moot's built-in model: it finds fault by a fixed pattern, without reading the answer.", r),
		"previous": previous, "points": points, "score": score, "ready": score >= early,
	})
}
