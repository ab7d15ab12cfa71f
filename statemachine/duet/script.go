package duet

import (
	"fmt"

	"github.com/moot-dev/moot/internal/builtin"
	sm "github.com/moot-dev/moot/statemachine"
)

// Script is moot's built-in model's answer to a call of a duet debate,
// found by the call's role: a speaker's statement, or the judge's scores.
// The facts it reads from the prompts, the motion and the round, are
// optional: a template reworded so that they are gone still gets an
// answer. The judge's first answer of round 1 gives a score out of range,
// so that the demo shows an answer sent back and mended.
func (Protocol) Script(call sm.ScriptCall) (string, error) {
	c := builtin.Read(call)
	motion := builtin.Unquoted(builtin.Field(c.System, "Motion"))
	// "Round: 2 of 3" in the first user message; 0 when it is not there.
	round := 0
	fmt.Sscanf(builtin.Field(c.First, "Round"), "%d", &round)
	switch call.Role {
	case Pro, Con:
		return statementScript(call.Role, motion, round), nil
	case Judge:
		pro, con := 4+builtin.Pick(fmt.Sprintf("%s/%d/%s", motion, round, Pro), 6), 4+builtin.Pick(fmt.Sprintf("%s/%d/%s", motion, round, Con), 6)
		if round == 1 && !c.Repair {
			pro = maxScore + 1
		}
		return builtin.Marshal(struct {
			Pro mark `json:"pro"`
			Con mark `json:"con"`
		}{
			mark{Score: pro, Reason: "Scripted by moot's built-in model: pro's statement states its case and answers the other side in part."},
			mark{Score: con, Reason: "Scripted by moot's built-in model: con's statement names a cost the other side leaves out."},
		})
	}
	return "", builtin.Errorf("a duet call of role %q", call.Role)
}

// points are what a scripted speaker's statement is about, a round each
// in turn, by role.
var points = map[string][]string{
	Pro: {"what the change would gain, and how soon", "who bears the cost of things as they are", "what comparable cases show"},
	Con: {"what the change would cost, and who would pay", "what would be lost that works today", "the cheaper ways to the same end"},
}

// statementScript is a speaker's scripted statement of round (0 when the
// prompt does not say).
func statementScript(role, motion string, round int) string {
	stance := "for"
	if role == Con {
		stance = "against"
	}
	what := "the motion"
	if motion != "" {
		what = fmt.Sprintf("the motion that %s", builtin.LowerFirst(motion))
	}
	when := ""
	if round > 0 {
		when = fmt.Sprintf(" in round %d", round)
	}
	about := points[role][max(round-1, 0)%len(points[role])]
	return fmt.Sprintf("I speak %s %s%s. My point is %s: the other side has yet to show that its account of it holds. (Scripted by moot's built-in model.)", stance, what, when, about)
}
