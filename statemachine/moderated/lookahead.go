package moderated

import (
	"time"

	sm "github.com/moot-dev/moot/statemachine"
)

var (
	_ sm.Lookahead = (*debate)(nil)
	_ sm.Foreseen  = (*debate)(nil)
)

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

// Then takes a message of a foreseen debate past once it has come: the
// next statement is asked as soon as the moderator's hand-over it follows
// is given, while the statement before is still scored. The scores
// foreseen before it stay unknown, and as no prompt reads a score, the
// step after it is always ready. A score is not taken past: nothing
// waits for it.
func (d *debate) Then(answers map[string]sm.Answer, now time.Time) (sm.Debate, bool, error) {
	i := d.st.Step
	if i >= len(d.sched) || d.sched[i].Kind == kindScore {
		return nil, false, nil
	}
	a, ok := answers[d.sched[i].Role]
	if !ok || a.Missing != nil {
		return nil, false, nil
	}
	next, _, err := d.spoken(i, a, now)
	if err != nil {
		return nil, false, err
	}
	return next, true, nil
}
