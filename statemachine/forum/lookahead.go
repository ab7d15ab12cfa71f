package forum

import (
	"maps"
	"strings"
	"time"

	sm "github.com/moot-dev/moot/statemachine"
)

var (
	_ sm.Lookahead = (*debate)(nil)
	_ sm.Foreseen  = (*debate)(nil)
)

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

// Then takes a debater's call of a foreseen debate past: once the next
// speaker's thought has come, it speaks while the judge still evaluates
// and scores the speech before, as its speech reads its own calls and
// never the judge's. The debate it returns holds the call's file as its
// commit would write it; the judge's calls foreseen before it stay
// unknown, and the running scores of its state those before them. It is
// ready when its next call is a debater's. A debate waiting for the
// judge takes nothing past: the judge's calls read its own, unknown.
func (d *debate) Then(answers map[string]sm.Answer, _ time.Time) (sm.Debate, bool, error) {
	i := d.st.Calls
	if i <= 0 || i >= len(d.slots) || d.slots[i].Role == Judge {
		return nil, false, nil
	}
	c, err := d.apply([]slot{d.slots[i]}, answers)
	if err != nil {
		return nil, false, err
	}
	next := *d
	next.calls = maps.Clone(d.calls)
	for _, f := range c.Files {
		switch {
		case f.Name == sm.StateFile:
			st, _, _, err := parseState(f.Data)
			if err != nil {
				return nil, false, err
			}
			next.st = st
		case strings.HasPrefix(f.Name, CallsDir+"/"):
			next.calls[f.Name] = readCall(f.Data)
		}
	}
	ready := i+1 < len(d.slots) && d.slots[i+1].Role != Judge
	return &next, ready, nil
}
