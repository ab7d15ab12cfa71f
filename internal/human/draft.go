package human

import (
	"strings"

	sm "github.com/moot-dev/moot/statemachine"
)

// Draft returns the draft a person fills in to answer call c: what it is
// for (title), the errors of the last answer handed in if any, everything
// the role may see (exactly the messages of its prompt), and the form,
// after the Marker line.
func Draft(title string, c sm.Call, errs []string, form string) string {
	var b strings.Builder
	b.WriteString("<!-- moot: " + title + ".\n")
	b.WriteString("     Read what the " + c.Role + " sees, then fill in the form below \"# Your answer\", save and close the editor.\n")
	b.WriteString("     Close it without a change to stop: the debate waits, and this draft is kept. -->\n\n")
	if len(errs) > 0 {
		b.WriteString("> **Your answer was refused. Put these right and save again:**\n")
		for _, e := range errs {
			b.WriteString("> - " + oneLine(e) + "\n")
		}
		b.WriteString("\n")
	}
	b.WriteString("# What the " + c.Role + " sees\n\n")
	for _, m := range c.Messages {
		b.WriteString("## " + m.Role + "\n\n")
		b.WriteString(strings.TrimRight(m.Content, "\n") + "\n\n")
	}
	b.WriteString(form)
	return b.String()
}

// FormOf returns the form in a draft: what follows its last Marker line,
// the Marker included; the whole text when it has none.
func FormOf(draft string) string {
	if i := lastMarker(draft); i >= 0 {
		return draft[i:]
	}
	return draft
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
