package forum

import (
	"fmt"
	"strings"

	"github.com/moot-dev/moot/internal/escape"
	"github.com/moot-dev/moot/internal/evidence"
	sm "github.com/moot-dev/moot/statemachine"
)

// This file is forum's side of research: its debaters search and read
// before they plan, think and speak (in a debate run with --research), the
// quotations of what they say are checked against the pages they cite,
// and the checks, kept in the call file (frontmatter "citations"), are
// shown beside a speech wherever a prompt quotes it.

// researches reports whether calls of kind research: a debater's.
func researches(role, kind string) bool {
	if role == Judge {
		return false
	}
	switch kind {
	case kindPlan, kindThink, kindSpeech:
		return true
	}
	return false
}

// markResearch marks c, the call of a debater, as one that researches.
func markResearch(c *sm.Call, s slot) {
	if researches(s.Role, s.Kind) {
		c.Researches()
	}
}

// withCitations is a speech as prompts quote it (see evidence.Annotate).
func withCitations(body string, checks []evidence.Check) string {
	return evidence.Annotate(body, checks)
}

// citationLine marks each checked quotation of a speech, for the report;
// "" for a speech without checks.
func citationLine(checks []evidence.Check) string {
	if len(checks) == 0 {
		return ""
	}
	return "*Quotations checked:* " + evidence.Marks(checks)
}

// citationShares is the report's section of each debater's share of
// verified quotations; "" for a debate without checks.
func (d *debate) citationShares() string {
	verified, checked := map[string]int{}, map[string]int{}
	for _, e := range d.entries() {
		for _, c := range e.f.meta.Citations {
			checked[e.s.Role]++
			if c.Result == evidence.Verified {
				verified[e.s.Role]++
			}
		}
	}
	if len(checked) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("\n## Sources\n\nEach quotation a debater's speech drew from a page it cites was checked against the page as read (kept under sources/).\n\n")
	b.WriteString("| Debater | Side | Quotations checked | Verified | Share verified |\n|---|---|---:|---:|---:|\n")
	for _, role := range []string{For, Against} {
		share := "n/a"
		if checked[role] > 0 {
			share = fmt.Sprintf("%.0f%%", 100*float64(verified[role])/float64(checked[role]))
		}
		fmt.Fprintf(&b, "| %s | %s | %d | %d | %s |\n", escape.Markdown(d.st.name(role)), sideWord(role), checked[role], verified[role], share)
	}
	return b.String()
}
