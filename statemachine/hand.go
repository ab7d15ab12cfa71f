package statemachine

import "time"

// HandSteps is a Protocol whose steps a person may hand in as files, as
// dialectic's are by `moot process-exchange` (both sides' answers for an
// exchange) and `moot process-judge` (the judge's answer). Each is a step
// of the debate, committed through the journal as a model's answers are.
type HandSteps interface {
	// MaxUnit is the last unit a debate of the protocol may name.
	MaxUnit() int
	// HandSides is the step of both sides' answers for unit x, as they
	// were handed in, the first side's first.
	HandSides(x int, first, second []byte) func(Debate) (*Commit, error)
	// HandJudgment is the step of the judge's answer, handed in at now.
	HandJudgment(answer []byte, now time.Time) func(Debate) (*Commit, error)
	// ByHand returns the command line that takes by hand the step deb
	// waits for in the folder dir, and whether deb takes the step asked:
	// the judge's answer when judgment is set, else the sides' answers for
	// unit x.
	ByHand(deb Debate, dir string, judgment bool, x int) (command string, takes bool)
}
