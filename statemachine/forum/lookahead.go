package forum

import sm "github.com/moot-dev/moot/statemachine"

var _ sm.Lookahead = (*debate)(nil)

// Ahead foresees the calls after the judge's: a debater's conversation
// holds its own calls and the speech it answers, never a call of the
// judge (see messages and prompt), so the next speaker thinks while the
// judge evaluates and scores the last speech. The foreseen debate is the
// debate after the judge's call with its answer unknown; it is ready when
// its next call is a debater's, and foresees again past the judge's next
// call otherwise (the score after the evaluation). A debater's call, whose
// answer the calls after it read, foresees nothing.
func (d *debate) Ahead() (sm.Debate, bool, error) {
	i := d.st.Calls
	if i <= 0 || i >= len(d.slots) || d.slots[i].Role != Judge {
		return nil, false, nil
	}
	st := *d.st
	st.Calls = i + 1
	next := *d
	next.st = &st
	ready := i+1 < len(d.slots) && d.slots[i+1].Role != Judge
	return &next, ready, nil
}
