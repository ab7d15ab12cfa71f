package human

import (
	"regexp"
	"strings"
	"sync"

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

// callLine is the comment line, right after the Marker, by which a form
// names the call it answers (driver.CallName).
var callLine = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?m)^<!-- moot:call (\S+) -->\r?$`) })

// Named returns form, which begins with the Marker line, naming call: a
// line "<!-- moot:call CALL -->" after the Marker, in place of one there
// already. moot answer applies the form to that call only.
func Named(form, call string) string {
	rest, ok := strings.CutPrefix(form, Marker+"\n")
	if !ok {
		return form
	}
	if loc := callLine().FindStringIndex(rest); loc != nil && loc[0] == 0 {
		rest = strings.TrimPrefix(rest[loc[1]:], "\n")
	}
	return Marker + "\n<!-- moot:call " + call + " -->\n" + rest
}

// CallOf returns the call the form in data names (see Named): the first
// call line of its form, what follows its last Marker line; "" when it
// names none.
func CallOf(data []byte) string {
	form := string(data)
	if i := lastMarker(form); i >= 0 {
		form = form[i:]
	}
	if m := callLine().FindStringSubmatch(form); m != nil {
		return m[1]
	}
	return ""
}
