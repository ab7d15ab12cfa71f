// Package script is moderated's script for moot's built-in model
// (internal/builtin): what the moderator, the advocates and the fact
// checker answer, found by the call's role and kind.
package script

import (
	"fmt"
	"strings"

	"github.com/moot-dev/moot/internal/builtin"
	sm "github.com/moot-dev/moot/statemachine"
)

// moderatedAdvocate is what an advocate's system prompt says after its
// name.
const moderatedAdvocate = ", an advocate in a structured debate led by a moderator"

// Answer is the built-in model's answer to a call of a moderated debate:
// a score on the rubric (kind "score"), a fact check, the moderator's
// words or an advocate's statement, by the call's kind and role.
func Answer(call sm.ScriptCall) (string, error) {
	c := builtin.Read(call)
	switch {
	case call.Kind == "score":
		return rubric(c)
	case call.Role == "fact-checker":
		return "Fact check (scripted): the statement makes general claims about costs, effects and precedents and names no source for them. Each is unverifiable as stated: a number or a named study would let it be checked.", nil
	case call.Role == "moderator":
		return moderatorAnswer(c), nil
	case call.Role == "advocate-a", call.Role == "advocate-b":
		return advocateAnswer(c), nil
	}
	return "", builtin.Errorf("a moderated call of role %q and kind %q", call.Role, call.Kind)
}

// advocateArguments are a scripted advocate's arguments, one a round.
var advocateArguments = []string{
	"My argument for this round is about what the other position overlooks. Every arrangement has losers; the question is whether the losers of mine are fewer and better protected than the losers of the other, and they are, because mine can be phased in and its costs spread.",
	"My argument for this round is about who bears the cost. Under the present arrangement the cost falls on people who had no say in it; my position moves it to where the decision is made. That is not only fairer, it changes behaviour, because those who decide now see what their decisions cost.",
	"My argument for this round is about time. The benefits of my position arrive within a few years and compound, while the costs are paid once and can be spread. A policy judged only by its first year will always look worse than it is.",
	"My argument for this round is about precedent. Comparable measures elsewhere were opposed with the same warnings we hear today, and the warnings did not come true. Where they failed, it was for reasons of design that we can avoid.",
}

func advocateAnswer(c builtin.Conversation) string {
	self, opponent, position := advocateFacts(c.System)
	task := builtin.Field(c.Prompt, "Your task")
	phase := builtin.Field(c.Prompt, "Current phase")
	round := 1
	fmt.Sscanf(phase, "Argument Round %d", &round)
	// second is whether the other advocate has made a statement of this
	// kind in this phase already: the debate so far lists it.
	second := func(label string) bool { return strings.Contains(c.Prompt, ": "+label+"\n") }
	const by = " (Scripted by moot's built-in model.)"
	switch task {
	case "opening":
		if second("opening statement") {
			return fmt.Sprintf("I am %s, and I defend the position that %s. %s has told you what the change would gain; I will tell you what it would cost, who would pay, and what we would give up that works today. Judge us by who is left better off, not by whose aim sounds better.", self, builtin.LowerFirst(position), opponent) + by
		}
		return fmt.Sprintf("I am %s, and I defend the position that %s. I will make my case in three steps: who bears the cost today, how soon the benefits arrive, and what comparable cases show. Judge us on one question: which position leaves the people affected better off, on the evidence, over the next ten years?", self, builtin.LowerFirst(position)) + by
	case "argument":
		n := (round - 1) * 2
		if second(fmt.Sprintf("round %d argument", round)) {
			n++
		}
		return advocateArguments[n%len(advocateArguments)] + by
	case "rebuttal":
		if second(fmt.Sprintf("round %d rebuttal", round)) {
			return fmt.Sprintf("%s's argument proves less than it claims. It shows that some would gain, not that more would gain than lose, and it says nothing of the cheaper ways to the same end. My position answers both.", opponent) + by
		}
		return fmt.Sprintf("%s's argument rests on an assumption it does not defend: that the change it fears is larger than the change it ignores. Granting every figure %s gave, the conclusion does not follow, because the same reasoning applied to the other side condemns it more. My position stands.", opponent, opponent) + by
	}
	if second("closing statement") {
		return fmt.Sprintf("In closing: %s's case was about what could go right. Mine has been about what will happen to the people affected, and nothing tonight showed that my position, that %s, leaves them worse off.", opponent, builtin.LowerFirst(position)) + by
	}
	return fmt.Sprintf("In closing: I have defended the position that %s. %s raised fair concerns about cost and risk, and I answered each with who pays today and what comparable cases show. No argument tonight showed that my position leaves people worse off.", builtin.LowerFirst(position), opponent) + by
}

// advocateFacts reads an advocate's system prompt: "You are NAME, an
// advocate ... "POSITION". OPPONENT defends the opposite position".
func advocateFacts(system string) (self, opponent, position string) {
	self, _, _ = strings.Cut(strings.TrimPrefix(system, "You are "), moderatedAdvocate)
	position, _ = builtin.Between(system, "whatever your own view: \"", "\".")
	if rest, ok := builtin.Between(system, "\". ", " defends the opposite position"); ok {
		opponent = strings.TrimSpace(rest)
	}
	if opponent == "" {
		opponent = "My opponent"
	}
	if position == "" {
		position = "my side is right"
	}
	return strings.TrimSpace(self), opponent, strings.TrimSuffix(strings.TrimSpace(position), ".")
}

func moderatorAnswer(c builtin.Conversation) string {
	phase := builtin.Field(c.Prompt, "Current phase")
	var names []string
	for _, line := range strings.Split(c.System, "\n") {
		if name, ok := strings.CutPrefix(line, "- "); ok {
			if n, _, ok := strings.Cut(name, " defends: "); ok {
				names = append(names, n)
			}
		}
	}
	for len(names) < 2 {
		names = append(names, "the next speaker")
	}
	topic := builtin.Field(c.Prompt, "Topic")
	switch builtin.Field(c.Prompt, "Next action") {
	case "introduction":
		switch {
		case strings.HasPrefix(phase, "Opening"):
			return fmt.Sprintf("Welcome. Our topic is %q. %s and %s defend opposite positions on it. We begin with opening statements: %s first, then %s. (This debate is scripted by moot's built-in model.)",
				topic, names[0], names[1], names[0], names[1])
		case strings.HasPrefix(phase, "Closing"):
			return fmt.Sprintf("We come to the closing statements: %s first, then %s. No new arguments, please: draw together what you have said.", names[0], names[1])
		}
		return fmt.Sprintf("%s begins. %s argues, %s rebuts; then %s argues and %s rebuts.", phase, names[0], names[1], names[1], names[0])
	case "transition":
		next := ""
		if i := strings.Index(strings.ToLower(c.Prompt), "give the floor to "); i >= 0 {
			next, _, _ = strings.Cut(c.Prompt[i+len("give the floor to "):], " for their ")
		}
		for _, line := range strings.Split(c.Prompt, "\n") {
			if prev, _, ok := strings.Cut(line, " has just given their "); ok {
				return fmt.Sprintf("Thank you, %s. %s, the floor is yours.", strings.TrimSpace(prev), strings.TrimSpace(next))
			}
		}
		return fmt.Sprintf("%s, the floor is yours.", strings.TrimSpace(next))
	case "round summary":
		return fmt.Sprintf("To sum up the round: %s and %s agree that the cost matters and disagree on who bears it and how soon the benefits come. What remains open is the evidence from comparable cases.", names[0], names[1])
	}
	return fmt.Sprintf("Thank you both. %s and %s agreed that the question turns on who bears the cost and when; they disagreed on the weight of the evidence from elsewhere. The strongest arguments were %s's on timing and %s's on the assumptions behind it. The audience will judge.",
		names[0], names[1], names[0], names[1])
}

// rubric scores the statement of a scorer's prompt on the criteria its
// example names, each 5 to 8 by a fixed pattern. The first answer for the
// round 1 rebuttal of the speaker whose name sorts first gives one mark
// of 11, so that the repair shows.
func rubric(c builtin.Conversation) (string, error) {
	criteria := rubricCriteria(c.Prompt)
	if len(criteria) == 0 {
		return "", builtin.Errorf("a rubric prompt without its criteria")
	}
	speaker := builtin.Field(c.Prompt, "- Speaker")
	speaker, _, _ = strings.Cut(speaker, ", who defends")
	statement := builtin.Field(c.Prompt, "- Statement")
	answers, _ := builtin.Between(statement, "it answers ", "'s argument")
	broken := !c.Repair && strings.HasPrefix(builtin.Field(c.Prompt, "- Current phase"), "Argument Round 1 ") &&
		strings.HasPrefix(statement, "round 1 rebuttal") && answers != "" && speaker < answers
	var b strings.Builder
	b.WriteString("{")
	for i, name := range criteria {
		if i > 0 {
			b.WriteString(", ")
		}
		mark := 5 + builtin.Pick(speaker+"\x00"+statement+"\x00"+name, 4)
		if broken && i == 0 {
			mark = 11
		}
		fmt.Fprintf(&b, "%q: {\"score\": %d, \"justification\": %q}", name, mark,
			fmt.Sprintf("Scripted: a fixed pattern gives %d for %s; the built-in model weighs nothing.", mark, strings.ReplaceAll(name, "_", " ")))
	}
	b.WriteString("}")
	return b.String(), nil
}

// rubricCriteria reads the criteria's names from the example answer of a
// scorer's prompt: "NAME": {"score": 0-10, ...}.
func rubricCriteria(prompt string) []string {
	const mark = `": {"score": 0-10`
	var out []string
	for {
		i := strings.Index(prompt, mark)
		if i < 0 {
			return out
		}
		j := strings.LastIndexByte(prompt[:i], '"')
		if j >= 0 {
			out = append(out, prompt[j+1:i])
		}
		prompt = prompt[i+len(mark):]
	}
}
