package moderated

import (
	"fmt"
	"strconv"
	"strings"

	sm "github.com/moot-dev/moot/statemachine"
)

var _ sm.Shower = (*debate)(nil)

// Parts lists the messages made so far, by their number, each with its
// rubric total when it has been scored.
func (d *debate) Parts() []sm.Part {
	var out []sm.Part
	for _, s := range d.sched {
		m, ok := d.messages[s.Number]
		if !s.message() || !ok {
			continue
		}
		p := sm.Part{ID: fmt.Sprintf("%03d", m.Number), Unit: s.Exchange, Role: s.Role, Title: fmt.Sprintf("%s: %s", m.Name, d.label(s))}
		if sc, ok := d.scores[m.Number]; ok {
			t := sc.Total
			p.Score = &t
		}
		out = append(out, p)
	}
	return out
}

// Show returns the message numbered id ("8" or "008"): who said it, in
// which phase, its rubric when it was scored, each judge's total under
// judgments/, and its text.
func (d *debate) Show(id string) (string, bool) {
	n, err := strconv.Atoi(id)
	if err != nil {
		return "", false
	}
	for _, s := range d.sched {
		m, ok := d.messages[n]
		if !s.message() || s.Number != n || !ok {
			continue
		}
		var b strings.Builder
		fmt.Fprintf(&b, "%03d · %s · %s\n", m.Number, m.Name, d.label(s))
		fmt.Fprintf(&b, "phase: %s · model: %s · %s\n", m.Phase, m.Model, m.Time)
		if g, ok := d.gaps[n]; ok {
			fmt.Fprintf(&b, "score: missing (%s)\n", g.Missing.Note)
			for i, a := range g.Missing.Answers {
				fmt.Fprintf(&b, "  answer %d refused: %s\n", i+1, strings.Join(a.Problems, "; "))
			}
		}
		if sc, ok := d.scores[n]; ok {
			fmt.Fprintf(&b, "score: %.2f\n", sc.Total)
			for _, name := range sc.Names {
				mk := sc.Marks[name]
				fmt.Fprintf(&b, "  %-18s %4s × %.2f  %s\n", name, strconv.FormatFloat(mk.Raw, 'f', -1, 64), mk.Weight, mk.Justification)
			}
		}
		for _, name := range d.judgeNames() {
			f := d.judges[name]
			if jsc, ok := f.scores[n]; ok && f.Record != nil {
				fmt.Fprintf(&b, "judge %s (%s, %s): %.2f\n", name, f.Record.Kind, f.Record.Model, jsc.Total)
			}
		}
		fmt.Fprintf(&b, "\n%s\n", strings.TrimRight(m.Content, "\n"))
		return b.String(), true
	}
	return "", false
}
