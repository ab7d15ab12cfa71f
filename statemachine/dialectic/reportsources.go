package dialectic

import (
	"fmt"
	"strings"

	"github.com/moot-dev/moot/internal/escape"
	"github.com/moot-dev/moot/internal/evidence"
)

// groundChecks says, for an argument of a debate that researched, what
// the check of each ground citing a URL found; "" for one without checks.
func groundChecks(a *ScoredArg) string {
	var parts []string
	for i, c := range a.Grounds {
		switch c.Result {
		case "":
			continue
		case evidence.Verified, evidence.NotFound, evidence.TooShort:
			// Marks numbers its checks from 1: drop its number for the
			// ground's own.
			_, mark, _ := strings.Cut(evidence.Marks([]evidence.Check{c}), ". ")
			parts = append(parts, fmt.Sprintf("%d. %s", i+1, mark))
		default:
			parts = append(parts, fmt.Sprintf("%d. ✗ %s", i+1, escape.Markdown(c.Result)))
		}
	}
	return strings.Join(parts, " · ")
}

// sources writes the share of each side's checked grounds that were
// verified, for a debate whose debaters researched; nothing otherwise.
func (r *Report) sources(w *writer) {
	d := r.an.Debate
	type count struct{ verified, checked int }
	var sides [2]count
	any := false
	for i, s := range Sides() {
		sides[i].verified, sides[i].checked = d.VerifiedShare(s)
		any = any || sides[i].checked > 0
	}
	if !any {
		return
	}
	w.p("## Sources")
	w.p("Each ground that cites a URL was checked against the page as it was read (kept under sources/): a quote verified means the quoted words are on the page; what the argument concludes from them was not checked.")
	w.line("| Side | Grounds checked | Verified | Share verified |")
	w.line("|---|---:|---:|---:|")
	for i, s := range Sides() {
		c := sides[i]
		pct := "n/a"
		if c.checked > 0 {
			pct = fmt.Sprintf("%.0f%%", 100*float64(c.verified)/float64(c.checked))
		}
		w.line("| %s | %d | %d | %s |", sideName(s, true), c.checked, c.verified, pct)
	}
	w.line("")
	w.flush(noFigure)
}
