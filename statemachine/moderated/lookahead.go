package moderated

import sm "github.com/moot-dev/moot/statemachine"

var _ sm.Lookahead = (*debate)(nil)

// Ahead foresees the step after a score while the score is asked: no
// prompt reads a score (the advocates and the moderator see the messages,
// the scorer and the fact checker the statement they judge), so the
// moderator's hand-over, round summary or introduction that follows is
// the same whatever the score. A debate waiting for any other call
// foresees nothing: the next call reads its message.
func (d *debate) Ahead() (sm.Debate, bool, error) {
	i := d.st.Step
	if i >= len(d.sched) || d.sched[i].Kind != kindScore {
		return nil, false, nil
	}
	next := d.clone()
	next.st.Step = i + 1
	next.st.Exchange = d.doneUnits(i + 1)
	next.st.Phase = d.phaseAt(i + 1)
	return next, true, nil
}
