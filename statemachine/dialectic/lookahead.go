package dialectic

import (
	"maps"
	"slices"

	sm "github.com/moot-dev/moot/statemachine"
)

var _ sm.Lookahead = (*stepDebate)(nil)

// Ahead foresees the next exchange's arguments while an exchange is
// judged: a debater's prompt shows the motion and the arguments made, never
// a score (see Debater), so a judgment changes nothing the debaters of the
// next exchange read. The foreseen debate is the debate after the
// judgment with its scores unknown; a debate that waits for arguments
// foresees nothing, as the judge reads them.
func (s *stepDebate) Ahead() (sm.Debate, bool, error) {
	if s.deb.Ended() || s.deb.Header.State.Phase != AwaitingJudgment {
		return nil, false, nil
	}
	h := *s.deb.Header
	h.State = h.State.Next()
	deb := &Debate{Header: &h, Arguments: slices.Clone(s.deb.Arguments), Scores: s.deb.Scores, byID: maps.Clone(s.deb.byID)}
	ahead := *s
	ahead.deb = deb
	return &ahead, true, nil
}
