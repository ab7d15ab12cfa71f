package panel

import (
	"encoding/json"
	"fmt"
	"maps"

	sm "github.com/moot-dev/moot/statemachine"
)

var _ sm.Lookahead = (*debate)(nil)

// Ahead foresees the openings while the aspects are asked: an opening's
// prompt reads the topic and the persona, never the aspects (see
// openingsPhase), so the personas open while the moderator decomposes the
// topic. The foreseen debate holds aspects that stand for those to come,
// which nothing it asks reads. Any other phase foresees nothing.
func (d *debate) Ahead() (sm.Debate, bool, error) {
	if d.where().phase != phaseAspects {
		return nil, false, nil
	}
	var a aspectsAnswer
	for k := 1; k <= d.st.Aspects; k++ {
		a.Aspects = append(a.Aspects, Aspect{ID: fmt.Sprintf("a%d", k), Label: fmt.Sprintf("aspect %d", k), Description: "an aspect still to come"})
	}
	data, err := json.Marshal(a)
	if err != nil {
		return nil, false, err
	}
	next := *d
	next.files = maps.Clone(d.files)
	next.files[AspectsFile] = data
	next.foreseen = true
	return &next, true, nil
}
