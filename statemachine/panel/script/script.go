// Package script is panel's script for moot's built-in model
// (internal/builtin): what each persona and each analyst answers, found by
// the call's kind.
package script

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/moot-dev/moot/internal/builtin"
	sm "github.com/moot-dev/moot/statemachine"
)

// Answer is the built-in model's answer to a call of a panel debate, by
// its kind: the task the call asks for ("opening", "take", "card"...).
func Answer(call sm.ScriptCall) (string, error) {
	return panelAnswer(builtin.Read(call), call.Kind)
}

// persona is what a persona's system prompt says of it: its name and the
// things it has said (its anchors).
type persona struct {
	name    string
	anchors []string
}

func personaOf(system string) persona {
	var p persona
	if rest, ok := strings.CutPrefix(system, "You are "); ok {
		p.name, _, _ = strings.Cut(rest, ", speaking on a panel")
	}
	if a, ok := builtin.Between(system, "## Grounding: things you have said\n", "\n\n"); ok {
		for _, line := range strings.Split(a, "\n") {
			if q, ok := strings.CutPrefix(strings.TrimSpace(line), "- "); ok {
				p.anchors = append(p.anchors, builtin.Unquoted(q))
			}
		}
	}
	return p
}

// anchor is one of the persona's anchors, chosen by key, as a sentence.
func (p persona) anchor(key string) string {
	if len(p.anchors) == 0 {
		return "I have said it before and I will say it again: the evidence has to come first."
	}
	a := p.anchors[builtin.Pick(p.name+"\x00"+key, len(p.anchors))]
	if !strings.HasSuffix(a, ".") && !strings.HasSuffix(a, "?") && !strings.HasSuffix(a, "!") {
		a += "."
	}
	return a
}

// entry is one message of a panel transcript as a prompt lists it:
// "[id] Name (label): content".
type entry struct {
	id, name string
}

func entries(text string) []entry {
	var out []entry
	for _, line := range strings.Split(text, "\n") {
		rest, ok := strings.CutPrefix(line, "[")
		if !ok {
			continue
		}
		id, rest, ok := strings.Cut(rest, "] ")
		if !ok {
			continue
		}
		name, _, ok := strings.Cut(rest, " (")
		if ok {
			out = append(out, entry{id: id, name: name})
		}
	}
	return out
}

// quotedKeys returns the quoted keys of text that come before marker: the
// "KEY" of every `"KEY"` + marker.
func quotedKeys(text, marker string) []string {
	var out []string
	for {
		i := strings.Index(text, marker)
		if i < 0 {
			return out
		}
		if i > 0 && text[i-1] == '"' {
			if j := strings.LastIndexByte(text[:i-1], '"'); j >= 0 {
				out = append(out, text[j+1:i-1])
			}
		}
		text = text[i+len(marker):]
	}
}

// cruxFirst reports whether the persona called name comes first of the
// two in its crux room, by name: the first says no, the other yes, as
// the card has them.
func cruxFirst(system, name string) bool {
	other, _ := builtin.Between(system, "You are in a crux room with ", " on one question")
	return name < strings.TrimSpace(other)
}

func panelAnswer(c builtin.Conversation, task string) (string, error) {
	p := personaOf(c.System)
	first, _, _ := strings.Cut(p.name, " ")
	aspect := builtin.Field(c.First, "Aspect")
	topic := builtin.Field(c.First, "Debate topic")
	if t, ok := builtin.Between(c.First, "Someone just brought up: ", "\n"); ok {
		topic = builtin.Unquoted(t)
	}
	if topic == "" {
		topic = "this"
	}
	switch task {
	case "opening":
		return fmt.Sprintf("%s That is where I start on %q: I will believe the strong claims when they survive a bad year, not a good one. (Scripted: %s's words are written by moot's built-in model.)", p.anchor("opening"), topic, first), nil
	case "take":
		stance := []string{"my answer is no, not yet", "my answer is yes, and sooner than most here think", "my answer depends on who pays"}[builtin.Pick(p.name, 3)]
		return fmt.Sprintf("On this part of the question %s. %s What would change my mind is a record that covers a full cycle, not a pilot. (Scripted.)", stance, p.anchor("take"+aspect)), nil
	case "reply":
		who, _ := builtin.Between(c.First, "\n\n", " replied: ")
		lines := strings.Split(who, "\n")
		who = strings.TrimSpace(lines[len(lines)-1])
		return fmt.Sprintf("%s, you answered a claim I did not make. %s Tell me what you would expect to see if you were wrong. (Scripted.)", who, p.anchor("reply"+aspect)), nil
	case "closing":
		return fmt.Sprintf("I have not moved on the main question, and I have moved on one thing: the others showed me where my evidence is thinnest. %s Where we still disagree, it is about time horizons, not facts. (Scripted.)", p.anchor("closing")), nil
	case "crux-position":
		q := builtin.Field(c.First, "State your position on")
		if cruxFirst(c.System, p.name) {
			return fmt.Sprintf("My position on %q is no, on the record we have. %s (Scripted.)", builtin.Unquoted(q), p.anchor("crux")), nil
		}
		return fmt.Sprintf("My position on %q is yes: the record is short but it points one way. %s (Scripted.)", builtin.Unquoted(q), p.anchor("crux")), nil
	case "crux-turn":
		turn, _ := strconv.Atoi(builtin.Field(c.First, "Turn"))
		lines := []string{
			"Specifically: I reject the assumption that the last few years are representative. %s That is the claim we disagree on. (Scripted.)",
			"Specifically: you treat a short record as no record at all, and that is the assumption I reject. %s (Scripted.)",
			"The strongest form of your case is that the trend is real and early. I grant that. I still disagree, because early is exactly when we cannot tell a trend from a cycle. %s (Scripted.)",
			"The strongest form of your case is that one bad year would undo everything. I grant that it could. I still think the record, short as it is, is evidence. %s (Scripted.)",
		}
		return fmt.Sprintf(lines[turn%len(lines)], p.anchor(fmt.Sprintf("turn%d", turn))), nil
	case "react":
		targets := entries(c.First)
		if len(targets) == 0 {
			return "", builtin.Errorf("a panel reaction without the takes it reacts to")
		}
		t := targets[builtin.Pick(p.name+aspect, len(targets))]
		b, err := json.Marshal(map[string]string{"reply_to": t.name,
			"text": fmt.Sprintf("%s, you say this settles it; it does not. %s What you miss is the bad year. (Scripted.)", t.name, p.anchor("react"+aspect))})
		return string(b), err
	case "decompose":
		n := 3
		if rest, ok := builtin.Between(c.First, " into ", " distinct"); ok {
			if v, err := strconv.Atoi(strings.TrimSpace(rest)); err == nil && v > 0 {
				n = v
			}
		}
		labels := [][2]string{
			{"What the evidence shows", "What does the evidence so far show, and how far does it reach?"},
			{"Who bears the risk", "Who would bear the costs and the risks, and could they carry them?"},
			{"What a decade changes", "Would the answer be different over ten years than over one?"},
			{"How it could fail", "What is the most likely way for it to go wrong?"},
			{"What would settle it", "What evidence would settle the question either way?"},
			{"Who gains and who loses", "Who gains and who loses, and by how much?"},
			{"What the alternatives offer", "Do the alternatives reach the same end at a lower cost?"},
			{"What we cannot know yet", "What can no one know yet, and how should that weigh?"},
		}
		var aspects []map[string]string
		for i := range n {
			l := labels[i%len(labels)]
			if i >= len(labels) {
				l[0] = fmt.Sprintf("%s, again (%d)", l[0], i+1)
			}
			aspects = append(aspects, map[string]string{"label": l[0], "description": l[1]})
		}
		b, err := json.Marshal(map[string]any{"aspects": aspects})
		return string(b), err
	case "detect":
		takes := entries(c.First)
		// Only the first aspect's takes open a crux room, so that the
		// demo shows one and stays short.
		open := aspect == "a1" && len(takes) >= 2
		names := []string{}
		if open {
			names = []string{takes[0].name, takes[1].name}
		}
		b, err := json.Marshal(map[string]any{"has_direct_opposition": open, "has_specific_claim": open, "topic_relevant": true,
			"personas": names, "topic": "Will the record of the last few years hold over a full cycle?", "short_label": "the record's horizon"})
		return string(b), err
	case "exit-check":
		return fmt.Sprintf(`{"crux_surfaced": true, "reason": "Scripted: after turn %s both name the claim they disagree on, the length of the record."}`, builtin.Field(c.First, "Turn")), nil
	case "convergence":
		return `{"core_disagreement": "Whether a few good years are evidence of a lasting trend.", "type": "factual", "converged": false}`, nil
	case "card":
		ids := quotedKeys(c.First, `: {"position"`)
		stances := map[string]any{}
		for i, id := range ids {
			pos := "NO"
			if i == 1 {
				pos = "YES"
			}
			stances[id] = map[string]string{"position": pos, "reasoning": "Scripted: reads the same record over a different horizon.",
				"falsifier": "A record covering a full downturn that contradicts them."}
		}
		kind := "horizon"
		if !c.Repair {
			// The first card names a kind out of the set, so that the
			// repair shows.
			kind = "timeframe"
		}
		b, err := json.Marshal(map[string]any{"question": "Will the record of the last few years hold over a full cycle?", "kind": kind,
			"diagnosis": "They agree on the record and disagree on how long a record must be to count.", "resolved": false, "resolution": nil,
			"personas": stances})
		return string(b), err
	case "round-summary":
		about, _ := builtin.Between(c.First, "Summarize this round about \"", "\" in one")
		return fmt.Sprintf("On %q the panel split (scripted summary): some took the record as settled, others asked for a full cycle before trusting it.", about), nil
	case "shifts":
		var shifts []map[string]any
		for _, line := range strings.Split(c.First, "\n") {
			name, rest, ok := strings.Cut(line, " (")
			id, ok2 := strings.CutSuffix(rest, ")")
			if !ok || !ok2 || strings.ContainsAny(id, " :") || strings.Contains(name, ":") {
				continue
			}
			shifts = append(shifts, map[string]any{"persona": id, "shifted": false, "summary": fmt.Sprintf("Scripted: %s held the position of the opening.", name)})
		}
		b, err := json.Marshal(map[string]any{"shifts": shifts})
		return string(b), err
	case "summary":
		var stances []map[string]string
		seen := map[string]bool{}
		for _, e := range entries(c.First) {
			if seen[e.name] {
				continue
			}
			seen[e.name] = true
			pos := []string{"against", "for", "mixed"}[len(stances)%3]
			stances = append(stances, map[string]string{"persona": e.name, "position": pos, "reasoning": "Scripted: as in the transcript."})
		}
		b, err := json.Marshal(map[string]any{
			"claims":          []map[string]any{{"claim": "The record of the last few years shows a lasting trend.", "stances": stances}},
			"agreements":      []string{"The record so far is real; its length is the question."},
			"evidence_ledger": []any{},
			"flip_conditions": []any{},
			"resolution_paths": []string{"If the trend survives a full downturn, the sceptics should concede it.",
				"If it breaks in the first bad year, the optimists should concede it."},
		})
		return string(b), err
	}
	return "", builtin.Errorf("a panel call of kind %q", task)
}
