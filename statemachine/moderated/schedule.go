package moderated

import "fmt"

// The phases of a debate, as debate.md and the message files name them.
const (
	phaseOpening  = "opening_statements"
	phaseRounds   = "argument_rounds"
	phaseClosing  = "closing_statements"
	phaseSummary  = "summary"
	phaseComplete = "complete"
)

// The kinds of slot. Every kind but score makes a message.
const (
	kindIntro        = "introduction"
	kindTransition   = "transition"
	kindOpening      = "opening"
	kindArgument     = "argument"
	kindRebuttal     = "rebuttal"
	kindFactCheck    = "fact_check"
	kindScore        = "score"
	kindRoundSummary = "round_summary"
	kindClosing      = "closing"
	kindConclusion   = "conclusion"
)

// slot is one step of the schedule: one call, and the message or score it
// makes.
type slot struct {
	Exchange int    // the unit: 0 openings, 1..R rounds, R+1 closings
	Phase    string // one of the phase constants
	Round    int    // 0 in the openings, r in round r, R in the closings
	Kind     string
	Role     string // the participant's role: who is asked
	Turn     int    // the message's place within its exchange, from 1
	Number   int    // the message's number, from 1; 0 for a score
	// Target is the slot a rebuttal answers, a fact check checks or a
	// score scores; -1 when none.
	Target int
	// Prev and Next are, for a transition, the slots of the statement
	// just given (-1 when the phase has just begun) and the one to come.
	Prev, Next int
}

func (s slot) message() bool { return s.Kind != kindScore }

// advocate reports whether the slot is a statement of an advocate.
func (s slot) advocate() bool {
	switch s.Kind {
	case kindOpening, kindArgument, kindRebuttal, kindClosing:
		return true
	}
	return false
}

// schedule lays out every slot of a debate of rounds rounds, in order.
func schedule(rounds int, summaries, scoring, factChecks bool) []slot {
	var out []slot
	turn := 0
	exchange := 0
	add := func(s slot) int {
		s.Exchange = exchange
		if s.Kind != kindScore {
			turn++
			s.Turn = turn
		}
		if s.Target == 0 && s.Kind != kindRebuttal && s.Kind != kindFactCheck && s.Kind != kindScore {
			s.Target = -1
		}
		out = append(out, s)
		return len(out) - 1
	}
	// transition adds the moderator's hand-over from prev (-1: none) to
	// the statement that follows, which is filled in by the caller.
	transition := func(phase string, round, prev int) int {
		return add(slot{Phase: phase, Round: round, Kind: kindTransition, Role: RoleModerator, Prev: prev, Next: -1})
	}
	// statement adds an advocate's statement, its fact check and its
	// score, and points the transition before it at it.
	statement := func(tr int, phase string, round int, kind, role string, target int, scored bool) int {
		i := add(slot{Phase: phase, Round: round, Kind: kind, Role: role, Target: target})
		out[tr].Next = i
		if scored && factChecks {
			add(slot{Phase: phase, Round: round, Kind: kindFactCheck, Role: RoleFactChecker, Target: i})
		}
		if scored && scoring {
			add(slot{Phase: phase, Round: round, Kind: kindScore, Role: RoleModerator, Target: i})
		}
		return i
	}

	add(slot{Phase: phaseOpening, Kind: kindIntro, Role: RoleModerator})
	a := statement(transition(phaseOpening, 0, -1), phaseOpening, 0, kindOpening, RoleA, -1, false)
	statement(transition(phaseOpening, 0, a), phaseOpening, 0, kindOpening, RoleB, -1, false)

	for r := 1; r <= rounds; r++ {
		exchange, turn = r, 0
		add(slot{Phase: phaseRounds, Round: r, Kind: kindIntro, Role: RoleModerator})
		aArg := statement(transition(phaseRounds, r, -1), phaseRounds, r, kindArgument, RoleA, -1, true)
		bReb := statement(transition(phaseRounds, r, aArg), phaseRounds, r, kindRebuttal, RoleB, aArg, true)
		bArg := statement(transition(phaseRounds, r, bReb), phaseRounds, r, kindArgument, RoleB, -1, true)
		statement(transition(phaseRounds, r, bArg), phaseRounds, r, kindRebuttal, RoleA, bArg, true)
		if summaries {
			add(slot{Phase: phaseRounds, Round: r, Kind: kindRoundSummary, Role: RoleModerator})
		}
	}

	exchange, turn = rounds+1, 0
	add(slot{Phase: phaseClosing, Round: rounds, Kind: kindIntro, Role: RoleModerator})
	a = statement(transition(phaseClosing, rounds, -1), phaseClosing, rounds, kindClosing, RoleA, -1, false)
	statement(transition(phaseClosing, rounds, a), phaseClosing, rounds, kindClosing, RoleB, -1, false)
	add(slot{Phase: phaseSummary, Round: rounds, Kind: kindConclusion, Role: RoleModerator})

	n := 0
	for i := range out {
		if out[i].message() {
			n++
			out[i].Number = n
		}
	}
	return out
}

// phaseLabel names a phase for people and prompts.
func phaseLabel(phase string, round, rounds int) string {
	switch phase {
	case phaseOpening:
		return "Opening Statements"
	case phaseRounds:
		return fmt.Sprintf("Argument Round %d of %d", round, rounds)
	case phaseClosing:
		return "Closing Statements"
	case phaseSummary:
		return "Conclusion"
	}
	return "Complete"
}

// kindLabel names a kind of message for people and prompts.
func kindLabel(kind string) string {
	switch kind {
	case kindIntro:
		return "introduction"
	case kindRoundSummary:
		return "round summary"
	case kindFactCheck:
		return "fact check"
	case kindOpening:
		return "opening statement"
	case kindClosing:
		return "closing statement"
	}
	return kind
}
