package dialectic

import (
	"errors"
	"time"

	sm "github.com/moot-dev/moot/statemachine"
)

// Loaded returns the dialectic debate that a reader of the step model
// (driver.LoadDebate, say) returned with err, so that a caller that needs
// dialectic's own types writes Loaded(driver.LoadDebate(d, Protocol{})).
func Loaded(d sm.Debate, err error) (*Debate, error) {
	if err != nil {
		return nil, err
	}
	deb, ok := DebateOf(d)
	if !ok {
		return nil, errors.New("the debate is not a dialectic debate")
	}
	return deb, nil
}

// HandArguments is the step of the arguments of exchange x handed in by
// hand (moot process-exchange), for driver.HandStep: ApplyArguments on
// the debate read, with each side's answer as it was given.
func HandArguments(x int, prop, opp []byte) func(sm.Debate) (*sm.Commit, error) {
	return func(d sm.Debate) (*sm.Commit, error) {
		deb, err := Loaded(d, nil)
		if err != nil {
			return nil, err
		}
		return ApplyArguments(deb, x, map[Side][]byte{Prop: prop, Opp: opp})
	}
}

// HandJudgment is the step of the judge's answer handed in by hand (moot
// process-judge), for driver.HandStep: ApplyJudgment on the debate read.
func HandJudgment(answer []byte, now time.Time) func(sm.Debate) (*sm.Commit, error) {
	return func(d sm.Debate) (*sm.Commit, error) {
		deb, err := Loaded(d, nil)
		if err != nil {
			return nil, err
		}
		return ApplyJudgment(deb, answer, now)
	}
}

// NewInput is what `moot new` would be given for a debate called slug on
// the motion m: its definitions as "term: meaning", its scope.
func NewInput(slug string, m Motion) sm.NewInput {
	in := sm.NewInput{Slug: slug, Motion: m.Text, Values: map[string][]string{}}
	for _, d := range m.Definitions {
		in.Values[definitionFlag.Name] = append(in.Values[definitionFlag.Name], d.Term+": "+d.Meaning)
	}
	if m.Scope != "" {
		in.Values[scopeFlag.Name] = []string{m.Scope}
	}
	return in
}

var _ sm.HandSteps = Protocol{}

// MaxUnit returns MaxExchange.
func (Protocol) MaxUnit() int { return MaxExchange }

// HandSides is HandArguments: the proposition's answer, then the
// opposition's.
func (Protocol) HandSides(x int, prop, opp []byte) func(sm.Debate) (*sm.Commit, error) {
	return HandArguments(x, prop, opp)
}

// HandJudgment is the package's HandJudgment.
func (Protocol) HandJudgment(answer []byte, now time.Time) func(sm.Debate) (*sm.Commit, error) {
	return HandJudgment(answer, now)
}

// ByHand returns the process-exchange or process-judge command line that
// takes the step d waits for, and whether d takes the judgment (judgment
// set) or the arguments of exchange x.
func (Protocol) ByHand(d sm.Debate, dir string, judgment bool, x int) (string, bool) {
	deb, err := Loaded(d, nil)
	if err != nil {
		return "", false
	}
	st := deb.Header.State
	if judgment {
		return HandCommand(dir, st), st.AcceptJudgment() == nil
	}
	return HandCommand(dir, st), st.AcceptArguments(x) == nil
}

var _ sm.Unending = Protocol{}

// NoEnd refuses --all for a debate made without --exchanges.
func (Protocol) NoEnd() error {
	return &sm.InputError{Err: errors.New("this dialectic debate has no end: give the number of exchanges to run, or --until E"),
		Hint: "a debate made with 'moot new --exchanges N' ends after N exchanges, and --all runs it to its end"}
}
