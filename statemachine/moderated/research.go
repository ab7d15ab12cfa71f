package moderated

import (
	"fmt"
	"strings"

	"github.com/moot-dev/moot/internal/evidence"
	sm "github.com/moot-dev/moot/statemachine"
)

// This file is moderated's side of research: in a debate run with
// --research the advocates search and read before they speak, the
// quotations of each message are checked against the pages it cites, and
// the checks, kept in the message file ("citations"), are shown beside the
// message wherever a prompt quotes it.

// markResearch marks c, the call of slot s, as one that researches when
// an advocate argues in it.
func markResearch(c *sm.Call, s slot) {
	if s.Role != RoleA && s.Role != RoleB {
		return
	}
	switch s.Kind {
	case kindOpening, kindArgument, kindRebuttal, kindClosing:
		c.Researches()
	}
}

// citationShares is the report's section of each advocate's share of
// verified quotations; "" for a debate without checks.
func (d *debate) citationShares() string {
	verified, checked := map[string]int{}, map[string]int{}
	for _, m := range d.messages {
		for _, c := range m.Citations {
			checked[m.Participant]++
			if c.Result == evidence.Verified {
				verified[m.Participant]++
			}
		}
	}
	if len(checked) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("\n## Sources\n\nEach quotation an advocate drew from a page it cites was checked against the page as read (kept under sources/).\n\n")
	b.WriteString("| Advocate | Quotations checked | Verified | Share verified |\n|---|---:|---:|---:|\n")
	for _, role := range []string{RoleA, RoleB} {
		p, _ := d.participant(role)
		fr := p.ID
		share := "n/a"
		if checked[fr] > 0 {
			share = fmt.Sprintf("%.0f%%", 100*float64(verified[fr])/float64(checked[fr]))
		}
		fmt.Fprintf(&b, "| %s | %d | %d | %s |\n", inline(p.Name), checked[fr], verified[fr], share)
	}
	return b.String()
}
