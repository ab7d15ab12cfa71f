// Package dialectic is moot's default protocol, a formal debate of a
// proposition and an opposition scored argument by argument by a judge.
//
// This file holds the rules of a dialectic debate: its phases and
// transitions, the next required action, the argument id scheme, the
// validation of what debaters and judges hand in, and zero-sum cumulative
// scoring. Everything here is a pure function of its inputs: no files, no
// clock, no network.
package dialectic

import (
	"fmt"

	sm "github.com/moot-dev/moot/statemachine"
)

// Side is one side of the debate as written in ids and argument files.
type Side string

// The two sides.
const (
	Prop Side = "prop"
	Opp  Side = "opp"
)

// Sides() lists both sides in the order moot always uses: proposition first.
// Each call returns a new slice, which the caller may change.
func Sides() []Side { return []Side{Prop, Opp} }

// Name returns the side's full name: "proposition" or "opposition".
func (s Side) Name() string {
	switch s {
	case Prop:
		return "proposition"
	case Opp:
		return "opposition"
	}
	return string(s)
}

// Other returns the opposing side.
func (s Side) Other() Side {
	if s == Prop {
		return Opp
	}
	return Prop
}

// ParseSide accepts "prop", "opp", "proposition" or "opposition".
func ParseSide(s string) (Side, bool) {
	switch s {
	case "prop", "proposition":
		return Prop, true
	case "opp", "opposition":
		return Opp, true
	}
	return "", false
}

// Phase is what an exchange is waiting for.
type Phase string

// The two phases of an exchange.
const (
	AwaitingArguments Phase = "awaiting_arguments"
	AwaitingJudgment  Phase = "awaiting_judgment"
)

// MaxExchange is the largest exchange number moot accepts. A debate file
// that claims more is treated as broken rather than trusted.
const MaxExchange = sm.MaxUnits

// ParsePhase checks that s names a phase.
func ParsePhase(s string) (Phase, error) {
	switch Phase(s) {
	case AwaitingArguments, AwaitingJudgment:
		return Phase(s), nil
	}
	return "", fmt.Errorf("unknown phase %q (want %q or %q)", s, AwaitingArguments, AwaitingJudgment)
}

// State is where a debate stands: the current exchange and its phase.
type State struct {
	Exchange int
	Phase    Phase
}

// FieldError is a value of a field of debate.md that moot cannot accept.
type FieldError struct {
	// Field is the key of the field, such as "current_phase".
	Field string
	Err   error
}

func (e *FieldError) Error() string { return e.Err.Error() }

func (e *FieldError) Unwrap() error { return e.Err }

// Validate reports whether s is a state the machine can be in. Its error
// is a *FieldError naming the field of debate.md at fault.
func (s State) Validate() error {
	if s.Exchange < 0 || s.Exchange > MaxExchange {
		return &FieldError{"current_exchange", fmt.Errorf("current_exchange %d is out of range (0 to %d)", s.Exchange, MaxExchange)}
	}
	if _, err := ParsePhase(string(s.Phase)); err != nil {
		return &FieldError{"current_phase", err}
	}
	return nil
}

// Next returns the state after the step that s waits for is accepted.
func (s State) Next() State {
	if s.Phase == AwaitingArguments {
		return State{Exchange: s.Exchange, Phase: AwaitingJudgment}
	}
	return State{Exchange: s.Exchange + 1, Phase: AwaitingArguments}
}

// Opening reports whether exchange is the opening exchange, where each side
// gives three independent arguments.
func Opening(exchange int) bool { return exchange == 0 }

// ArgumentsPerSide is how many arguments each side gives in exchange.
func ArgumentsPerSide(exchange int) int {
	if Opening(exchange) {
		return 3
	}
	return 1
}

// Action describes in words what s waits for.
func (s State) Action() string {
	switch s.Phase {
	case AwaitingArguments:
		if Opening(s.Exchange) {
			return "both sides' opening arguments for exchange 0 (three each)"
		}
		return fmt.Sprintf("both sides' rebuttals for exchange %d (one each)", s.Exchange)
	case AwaitingJudgment:
		return fmt.Sprintf("the judge's scores for exchange %d (%d arguments)", s.Exchange, 2*ArgumentsPerSide(s.Exchange))
	}
	return "nothing: the phase is unknown"
}

// Command names the moot command that performs the step s waits for.
func (s State) Command() string {
	if s.Phase == AwaitingJudgment {
		return "process-judge"
	}
	return "process-exchange"
}

// StepError is the refusal of a step that does not fit the state: the wrong
// phase or the wrong exchange number.
type StepError struct {
	State State
	Asked string
}

func (e *StepError) Error() string {
	return fmt.Sprintf("%s refused: the debate is at exchange %d, waiting for %s", e.Asked, e.State.Exchange, e.State.Action())
}

// AcceptArguments checks that s is waiting for the arguments of exchange.
func (s State) AcceptArguments(exchange int) error {
	if s.Phase != AwaitingArguments {
		return &StepError{State: s, Asked: fmt.Sprintf("arguments for exchange %d", exchange)}
	}
	if exchange != s.Exchange {
		return &StepError{State: s, Asked: fmt.Sprintf("arguments for exchange %d", exchange)}
	}
	// The judgment of exchange MaxExchange can never be accepted: taking
	// its arguments would leave the debate waiting for a step that is
	// always refused.
	if exchange >= MaxExchange {
		return &LimitError{Exchange: exchange, Arguments: true}
	}
	return nil
}

// AcceptJudgment checks that s is waiting for a judgment.
func (s State) AcceptJudgment() error {
	if s.Phase != AwaitingJudgment {
		return &StepError{State: s, Asked: "a judgment"}
	}
	if s.Exchange >= MaxExchange {
		return &LimitError{Exchange: s.Exchange}
	}
	return nil
}

// LimitError is the refusal of a step of exchange MaxExchange, the last
// exchange a debate file may name: its judgment would move the debate to
// exchange MaxExchange+1, which no debate file may hold, so its arguments
// are refused too (Arguments is true), since a debate holding them would
// wait for a judgment it can never get.
type LimitError struct {
	Exchange  int
	Arguments bool
}

func (e *LimitError) Error() string {
	if e.Arguments {
		return fmt.Sprintf("arguments for exchange %d refused: the last exchange moot can judge is %d, since judging exchange %d would move the debate past the limit of %d", e.Exchange, MaxExchange-1, MaxExchange, MaxExchange)
	}
	return fmt.Sprintf("a judgment refused: exchange %d is the last exchange moot can record, and judging it would move the debate to exchange %d, past the limit of %d", e.Exchange, e.Exchange+1, MaxExchange)
}
