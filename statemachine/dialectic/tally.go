package dialectic

import sm "github.com/moot-dev/moot/statemachine"

var (
	_ sm.Tallied     = Protocol{}
	_ sm.TallyDebate = (*stepDebate)(nil)
)

// FormatScore writes a score as dialectic's reports do (see FormatScore).
func (Protocol) FormatScore(x float64) string { return FormatScore(x) }

// EndHint says that a debate made with --exchanges N ends, and that --all
// runs it to its end.
func (Protocol) EndHint() string {
	return "a debate made with 'moot new --exchanges N' ends after N exchanges, and --all runs it to its end"
}

// ID returns the debate's id, as debate.md keeps it.
func (s *stepDebate) ID() string { return s.deb.Header.ID }

// Tally returns the sides' cumulative scores, as debate.md keeps them.
func (s *stepDebate) Tally() sm.Tally {
	t := s.deb.Header.Totals
	return sm.Tally{
		Proposition: sm.SideTally{Total: t.Proposition.Total, Count: t.Proposition.Count},
		Opposition:  sm.SideTally{Total: t.Opposition.Total, Count: t.Opposition.Count},
	}
}

// Argued reports that the debate waits for the judgment of its exchange.
func (s *stepDebate) Argued() bool { return s.deb.Header.State.Phase == AwaitingJudgment }
