package statemachine

import "time"

// Lookahead is a Debate that can foresee the steps after the one it waits
// for, so that a run asks their calls while that step's calls are still
// out: a dialectic judge scores an exchange while the debaters, who never
// read a score, already argue the next one.
//
// What Ahead foresees is only ever a plan: the driver asks the calls of
// a foreseen step early and keeps their answers, but commits every step
// in the protocol's order, each planned again from the committed files
// once its turn comes, and takes an early answer only when the call it
// answers has the same prompt as the one asked early. A wrong forecast
// costs a call asked again, never a different file.
type Lookahead interface {
	// Ahead returns the debate as it will stand once the step Next
	// returns is committed, whatever that step's answers, for planning
	// the steps after it: its Status's Unit, Done, Total and Complete
	// are those the commit will give. ready reports that the step its
	// Next returns reads none of the answers of the steps not yet
	// committed before it (this debate's next step and, for a debate
	// Ahead returned, the steps foreseen before it), so that its calls
	// may be asked now. With ready false the foreseen debate may still
	// be a Lookahead that looks one step further. A nil debate foresees
	// nothing.
	//
	// The foreseen debate is never loaded from files nor committed: the
	// Apply of the steps its Next returns is not called.
	Ahead() (ahead Debate, ready bool, err error)
}

// Foreseen is a debate Ahead returned that can take the answers of the
// step its Next returns once they have come (asked early, that step being
// ready), so that a run asks the step after it too before the steps
// foreseen before it are committed: forum's next speaker speaks while the
// judge still scores the last speech, once the thought its speech reads
// has come.
type Foreseen interface {
	// Then returns the debate as it will stand once the step Next
	// returns is committed with answers, still foreseen: what was not
	// known stays unknown. ready is as Ahead's. Then refuses answers its
	// step's Apply would refuse. Like Ahead's, the debate it returns is
	// never committed, and may be a Lookahead, or Foreseen, in its turn.
	Then(answers map[string]Answer, now time.Time) (ahead Debate, ready bool, err error)
}
