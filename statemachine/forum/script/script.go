// Package script is forum's script for moot's built-in model
// (internal/builtin): what each debater and the judge answer, found by
// the call's kind.
package script

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/moot-dev/moot/internal/builtin"
	sm "github.com/moot-dev/moot/statemachine"
)

// The kinds of forum prompt, told apart by what each asks.
const (
	forumPlan         = "plan"
	forumThink        = "think"
	forumTurn         = "turn"
	forumEvaluate     = "evaluate"
	forumScore        = "score"
	forumDeliberation = "deliberation"
	forumConfirmation = "confirmation"
	forumVerdict      = "verdict"
	forumAnnouncement = "announcement"
)

// Answer is the built-in model's answer to a call of a forum debate, by
// its kind (forum sets Call.Kind).
func Answer(call sm.ScriptCall) (string, error) {
	return forumAnswer(builtin.Read(call), call.Kind)
}

// forumKindOf is the kind of an earlier prompt of a conversation, "" for
// none: what a script reads of the conversation so far (the turns a
// debater has given, the scores a judge has given).
func forumKindOf(text string) string {
	switch {
	case strings.Contains(text, "Plan your case in private"):
		return forumPlan
	case strings.Contains(text, "about to give the opening statement"), strings.Contains(text, "Reflect in private before you answer"):
		return forumThink
	case strings.Contains(text, "Give your opening statement now"), strings.Contains(text, "Give your closing argument"),
		strings.Contains(text, "Now give your answer in the debate"):
		return forumTurn
	case strings.Contains(text, " just argued:"):
		return forumEvaluate
	case strings.Contains(text, `{"score"`):
		return forumScore
	case strings.Contains(text, "The debate is over."):
		return forumDeliberation
	case strings.Contains(text, "who won? Answer with exactly one of these names"):
		return forumConfirmation
	case strings.Contains(text, `{"winner"`):
		return forumVerdict
	case strings.Contains(text, "announce your verdict"):
		return forumAnnouncement
	}
	return ""
}

// forumFacts are what a forum conversation tells a speaker: the topic,
// the premise and its side of it, its own name and its opponent's.
type forumFacts struct {
	topic, premise, side, self, opponent string
	// turns is how many public turns the speaker has given before.
	turns int
}

func forumFactsOf(c builtin.Conversation) forumFacts {
	f := forumFacts{topic: "the topic", opponent: "My opponent"}
	if rest, ok := strings.CutPrefix(c.System, "You are "); ok {
		name, _, _ := strings.Cut(rest, ",")
		if len(strings.Fields(name)) <= 4 {
			f.self = strings.TrimSpace(name)
		}
	}
	for i, m := range c.Msgs {
		if m.Role != "user" {
			continue
		}
		if t := builtin.Field(m.Content, "The topic of the debate"); t != "" {
			f.topic = t
		}
		for _, side := range []string{"FOR", "AGAINST"} {
			if p, ok := builtin.Between(m.Content, "You argue "+side+" the premise: ", "\n"); ok {
				f.side, f.premise = strings.ToLower(side), builtin.Unquoted(p)
			}
		}
		if o, ok := builtin.Between(m.Content, "You face ", "."); ok && len(strings.Fields(o)) <= 4 {
			f.opponent = strings.TrimSpace(o)
		}
		if o, ok := builtin.Between(m.Content, "Your opponent, ", ", just said"); ok && len(strings.Fields(o)) <= 4 {
			f.opponent = strings.TrimSpace(o)
		}
		if forumKindOf(m.Content) == forumTurn && i+1 < len(c.Msgs) && c.Msgs[i+1].Role == "assistant" {
			f.turns++
		}
	}
	return f
}

// stance says which way the speaker argues, in its own words.
func (f forumFacts) stance() string {
	switch {
	case f.side == "for" && f.premise != "":
		return fmt.Sprintf("that %s", builtin.LowerFirst(builtin.Unquoted(f.premise)))
	case f.side == "against" && f.premise != "":
		return fmt.Sprintf("against the claim that %s", builtin.LowerFirst(builtin.Unquoted(f.premise)))
	}
	return fmt.Sprintf("my side of the question %q", builtin.Unquoted(f.topic))
}

// debaterLines are what a scripted debater says: its opening, its turns
// after the opening in order (each given the opponent's name), and its
// closing.
type debaterLines struct {
	opening string
	turns   []string
	closing string
}

// forLines and againstLines are the lines of each side. (Variables, not
// a map, so that they cost nothing at start-up.)
var (
	forLines = debaterLines{
		opening: "I will argue %[1]s, and I will keep it practical. The question is not whether the change is perfect but whether it is better than what we have; it is, because it puts the cost where the harm comes from and gives people time to adjust. %[2]s will tell you about the risks; ask what the risks of standing still are.",
		turns: []string{
			"%[1]s says the evidence points the other way, but the cases %[1]s cites were chosen because they fit. Take the ordinary case instead, and the picture changes: the costs are smaller and the gains come sooner than %[1]s allows.",
			"%[1]s keeps asking who pays. The fair answer is: fewer people than now, and those who pay least today pay nothing new. What %[1]s has not answered is what happens if we do nothing at all.",
			"Strip away the examples and %[1]s's case rests on one assumption: that people will not adapt. They always do. A measure that expects them to adapt, and plans for it, is the stronger one.",
			"%[1]s has given us doubts, not reasons. Doubt is cheap; a better plan would be worth hearing, and we have not heard one.",
		},
		closing: "To close: I have argued %[1]s, and the core of it stands. %[2]s raised costs and doubts, and I answered both with who bears the cost today and what doing nothing would mean. On the question as it was put, my case is the one that holds.",
	}
	againstLines = debaterLines{
		opening: "I will argue %[1]s, and I will keep it practical. The question is not whether the aim is good but whether this measure reaches it; it does not, because its cost falls first on the people least able to carry it, and its gains come later than its costs. %[2]s will tell you about the benefits; ask who pays for them.",
		turns: []string{
			"%[1]s says the benefits are large, but the cases %[1]s cites were chosen because they fit. Take the ordinary case instead: the costs come first and fall on people with no alternative, and the gains arrive late if at all.",
			"%[1]s keeps asking what happens if we do nothing. Nobody proposed doing nothing; there are cheaper measures that restrict no one, and %[1]s has not said why they would not do.",
			"Strip away the examples and %[1]s's case rests on one assumption: that everyone can adapt painlessly. Some cannot, and a measure that forgets them is not the stronger one.",
			"%[1]s has given us hopes, not evidence. Hope is cheap; a measure that costs this much needs a better case than we have heard.",
		},
		closing: "To close: I have argued %[1]s, and the core of it stands. %[2]s promised benefits, and I answered with who pays for them and what cheaper measures exist. On the question as it was put, my case is the one that holds.",
	}
)

func forumAnswer(c builtin.Conversation, kind string) (string, error) {
	f := forumFactsOf(c)
	// A debater of no known side speaks for.
	lines := forLines
	if f.side == "against" {
		lines = againstLines
	}
	switch kind {
	case "plan":
		return fmt.Sprintf("My plan, in private (scripted): I will argue %s. I lead with the strongest practical point, then the question of fairness, and I keep one example in reserve. The other side will most likely say that I have the costs wrong; I will answer with who actually bears them today.",
			f.stance()), nil
	case "think-opening", "think":
		if kind == "think-opening" {
			return fmt.Sprintf("Thinking in private (scripted): I open with the plainest version of my case, %s, and I frame the question as a choice between acting and drifting, so that %s has to defend the drift.", f.stance(), f.opponent), nil
		}
		return fmt.Sprintf("Thinking in private (scripted): %s made one fair point and leaned on it too hard. The audience will have noticed the example; I will grant it and show why it does not generalise, then move the debate back to my strongest ground.", f.opponent), nil
	case "opening":
		return fmt.Sprintf(lines.opening, f.stance(), f.opponent), nil
	case "closing":
		return fmt.Sprintf(lines.closing, f.stance(), f.opponent), nil
	case "speech":
		return fmt.Sprintf(lines.turns[f.turns%len(lines.turns)], f.opponent), nil
	case "evaluate":
		who := strings.TrimSpace(strings.SplitN(c.Prompt, " just argued:", 2)[0])
		return fmt.Sprintf("My private notes on %s's turn (scripted): the reasoning holds together at the level of principle, but the evidence is asserted rather than shown, and one figure is not squared with what was said before. A fair hit on the opponent's weakest point; some repetition.", who), nil
	case "score":
		name, _ := scoreSpeaker(c.Prompt)
		n := 0
		for _, m := range c.Msgs {
			if m.Role == "user" && forumKindOf(m.Content) == forumScore {
				if s, _ := scoreSpeaker(m.Content); s == name {
					n++
				}
			}
		}
		// The judge's first prompt names the topic: the scores differ
		// from one debate to another.
		score := 5 + min(n, 3) + builtin.Pick(c.First+"\x00"+name, 2)
		return builtin.Marshal(map[string]any{"score": score,
			"reasoning": fmt.Sprintf("Scripted: %s argued clearly and answered the other side; the built-in model scores by a fixed pattern.", name)})
	case "deliberation":
		win, lose, ws, ls := forumStanding(c)
		return fmt.Sprintf("Weighing it in private (scripted): in my view %s made the stronger case. %s answered what was actually said and kept the argument on the question, while %s relied on doubts more than reasons. I give %s %d out of 10 and %s %d. %s won.",
			win, win, lose, win, ws, lose, ls, win), nil
	case "confirmation":
		win, _, _, _ := forumStanding(c)
		return win, nil
	case "verdict":
		win, lose, ws, ls := forumStanding(c)
		if !c.Repair {
			// The first verdict has the scores the wrong way round, so
			// that the repair shows.
			ws, ls = min(ls, ws-1), ws
		}
		b, err := json.Marshal(map[string]any{"winner": win, "scores": map[string]int{win: ws, lose: ls}})
		return string(b), err
	case "announcement":
		win, lose, _, _ := forumStanding(c)
		return fmt.Sprintf("My verdict goes to %s. %s answered the other side directly and kept to the question; %s raised fair doubts but did not turn them into a better plan. (A scripted verdict: moot's built-in model weighed nothing.)", win, win, lose), nil
	}
	return "", builtin.Errorf("a forum call of kind %q", kind)
}

// scoreSpeaker reads whom a score prompt is about: "Give NAME an initial
// score" or "Give NAME your running score".
func scoreSpeaker(prompt string) (string, bool) {
	rest, ok := builtin.Between(prompt, "Give ", " score out of 10")
	if !ok {
		return "", false
	}
	for _, tail := range []string{" an initial", " your running"} {
		if name, ok := strings.CutSuffix(rest, tail); ok {
			return name, true
		}
	}
	return rest, true
}

// forumStanding reads the judge's conversation for the debaters' latest
// scores, as the judge gave them, and returns the winner (the higher, the
// second named on a tie) and the loser with their final scores.
func forumStanding(c builtin.Conversation) (win, lose string, ws, ls int) {
	var names []string
	latest := map[string]int{}
	for i, m := range c.Msgs {
		if m.Role != "user" || forumKindOf(m.Content) != forumScore || i+1 >= len(c.Msgs) {
			continue
		}
		name, _ := scoreSpeaker(m.Content)
		var s struct {
			Score int `json:"score"`
		}
		if json.Unmarshal([]byte(c.Msgs[i+1].Content), &s) != nil {
			continue
		}
		if _, ok := latest[name]; !ok {
			names = append(names, name)
		}
		latest[name] = s.Score
	}
	if len(names) < 2 {
		// A judge that scored no one yet: the confirmation names both.
		if q, ok := builtin.Between(c.Prompt, "nothing else: '", "'"); ok {
			if r, ok := builtin.Between(c.Prompt, "' or '", "'"); ok {
				names = []string{q, r}
			}
		}
	}
	if len(names) < 2 {
		names = append(names, "the first debater", "the second debater")[:2]
	}
	win, lose = names[1], names[0]
	if latest[names[0]] > latest[names[1]] {
		win, lose = names[0], names[1]
	}
	// The winner scores above the loser, by a point on a tie.
	ws = max(latest[win], 1)
	return win, lose, ws, min(latest[lose], ws-1)
}
