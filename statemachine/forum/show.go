package forum

import (
	"fmt"
	"strconv"
	"strings"

	sm "github.com/moot-dev/moot/statemachine"
)

var _ sm.Shower = (*debate)(nil)

// Parts lists the calls made so far, by their number.
func (d *debate) Parts() []sm.Part {
	var out []sm.Part
	for _, s := range d.slots {
		f := d.file(s)
		if f == nil || f.err != nil {
			continue
		}
		p := sm.Part{ID: fmt.Sprintf("%03d", s.Seq), Unit: s.Turn, Role: s.Role, Title: d.describe(s)}
		if s.private() {
			p.Private = s.Role
		}
		if f.meta.Score != nil {
			x := float64(*f.meta.Score)
			p.Score = &x
		}
		out = append(out, p)
	}
	return out
}

// Show returns the call numbered id ("14" or "014"): what it was, who
// made it and with which model, its score or verdict, and its answer.
func (d *debate) Show(id string) (string, bool) {
	n, err := strconv.Atoi(id)
	if err != nil {
		return "", false
	}
	for _, s := range d.slots {
		f := d.file(s)
		if s.Seq != n || f == nil || f.err != nil {
			continue
		}
		var b strings.Builder
		fmt.Fprintf(&b, "%03d · %s · %s\n", s.Seq, s.Kind, d.describe(s))
		fmt.Fprintf(&b, "visibility: %s · model: %s · attempts: %d\n", f.meta.Visibility, f.meta.Model, f.meta.Attempts)
		if f.meta.Score != nil {
			fmt.Fprintf(&b, "score: %d/10 for %s\n", *f.meta.Score, f.meta.TargetName)
		}
		if f.meta.Winner != "" {
			fmt.Fprintf(&b, "winner: %s (%s), from the %s\n", f.meta.Winner, f.meta.WinnerSide, f.meta.WinnerSource)
		}
		if f.meta.Skipped != "" {
			fmt.Fprintf(&b, "skipped: %s\n", f.meta.Skipped)
		}
		if mi := f.meta.Missing; mi != nil {
			fmt.Fprintf(&b, "missing: %s\n", mi.Note)
			for i, a := range mi.Answers {
				fmt.Fprintf(&b, "  answer %d refused: %s\n", i+1, strings.Join(a.Problems, "; "))
			}
		}
		if len(f.meta.Panel) > 0 {
			fmt.Fprintf(&b, "panel: %s\n", votesLine(f.meta.Panel))
		}
		fmt.Fprintf(&b, "\n%s\n", strings.TrimRight(f.body, "\n"))
		return b.String(), true
	}
	return "", false
}

// votesLine says in a line what each judge of a panel answered.
func votesLine(votes []vote) string {
	parts := make([]string, len(votes))
	for i, v := range votes {
		p := fmt.Sprintf("%s (%s)", v.Judge, v.Model)
		switch {
		case v.Score != nil:
			p += fmt.Sprintf(" %d", *v.Score)
		case v.ConfirmedWinner != nil:
			p += " " + *v.ConfirmedWinner
		case v.Skipped != "":
			p += " named neither"
		case v.Winner != "":
			p += fmt.Sprintf(" %s %d to %d", v.Winner, v.Scores[v.Winner], loserScore(v.Scores, v.Winner))
		}
		parts[i] = p
	}
	return strings.Join(parts, " · ")
}

// loserScore is the score scores gives the debater other than winner.
func loserScore(scores map[string]int, winner string) int {
	for n, s := range scores {
		if n != winner {
			return s
		}
	}
	return 0
}
