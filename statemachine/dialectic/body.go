package dialectic

import (
	"fmt"
	"strings"
)

// bodyDisagreements lists where the markdown body of a says another thing
// than its frontmatter: the claim under "## Claim", and the arguments its
// "### Attacking ID" and "### Defending ID" headings name, among which
// every target of its frontmatter must be, in order. The body is the one
// source of the argument's text (see ClaimText) and the frontmatter's
// claim a copy for tools that read the frontmatter alone (dialectic's
// graph); the frontmatter's links are what the graph and the reports
// read, which the body's headings must name. A body edited by hand
// without its frontmatter (or the other way round) would leave those
// tools another version of the argument than moot's.
func bodyDisagreements(a *Argument) []string {
	body := strings.ReplaceAll(a.Body, "\r\n", "\n")
	var out []string
	claim, found := claimSection(body)
	want := strings.TrimSpace(a.Claim)
	switch {
	case !found && want != "":
		out = append(out, fmt.Sprintf("field \"claim\" is %q but the body has no \"## Claim\" section: the prompts that show the argument in full carry the body alone; add the section", clip(want)))
	case found && !sameClaim(claim, want):
		out = append(out, fmt.Sprintf("the body's \"## Claim\" says %q but field \"claim\" says %q: moot reads the body, tools that read only the frontmatter the field; make them say the same", clip(sectionText(claim)), clip(want)))
	}
	for _, l := range []struct {
		field, verb string
		targets     []Target
	}{{"attacks", "Attacking", a.Attacks}, {"defends", "Defending", a.Defends}} {
		named := headingIDs(body, "### "+l.verb+" ")
		var ids []string
		for _, t := range l.targets {
			ids = append(ids, t.TargetID)
		}
		// The body may name more: a link without a valid target stays in
		// the body, unlinked, as dialectic keeps it. A body without any
		// such heading is not compared: debates written by hand often
		// leave the links out of the body.
		if len(named) > 0 && !subsequence(ids, named) {
			out = append(out, fmt.Sprintf("the body's \"### %s\" headings name %s but field %q names %s: make them name the same arguments", l.verb, idList(named), l.field, idList(ids)))
		}
	}
	return out
}

// ClaimText is the argument's claim, as every reader shows it: the
// prompts' index lines, the reports (markdown, HTML, the narrative's
// prompt), the export, moot show and the judges' figures. The body is
// the argument's one source: it alone holds the grounds, the warrant and
// the rest, and it is what the prompts carry in full and what a person
// edits. So the claim is the text of the body's "## Claim" section, and
// the frontmatter's "claim" only a copy of it, which check holds to the
// same words (bodyDisagreements). When the copy says the same it is
// returned as it was written (the body may wrap its lines); without a
// "## Claim" section (a debate written by hand), the copy is all there is.
func (a *Argument) ClaimText() string {
	body := strings.ReplaceAll(a.Body, "\r\n", "\n")
	section, found := claimSection(body)
	if !found || sameClaim(section, strings.TrimSpace(a.Claim)) {
		return a.Claim
	}
	return sectionText(section)
}

// claimSection returns the text of the body's "## Claim" section: from
// the heading to the next "## " heading, or the end.
func claimSection(body string) (string, bool) {
	const heading = "## Claim\n"
	i := -1
	if strings.HasPrefix(body, heading) {
		i = 0
	} else if j := strings.Index(body, "\n"+heading); j >= 0 {
		i = j + 1
	}
	if i < 0 {
		return "", false
	}
	return body[i+len(heading):], true
}

// sameClaim reports whether the section that starts with rest says the
// claim want: the claim as it was written, followed by nothing or by the
// next "## " section, or else the section's words, whatever their
// spacing and line breaks, the claim's words.
func sameClaim(rest, want string) bool {
	text := strings.TrimLeft(rest, "\n")
	if after, ok := strings.CutPrefix(text, want); ok {
		after = strings.TrimLeft(after, " \t\n")
		if after == "" || strings.HasPrefix(after, "## ") {
			return true
		}
	}
	return strings.Join(strings.Fields(sectionText(text)), " ") == strings.Join(strings.Fields(want), " ")
}

// sectionText is the text of a section that starts with rest, up to the
// next "## " heading.
func sectionText(rest string) string {
	if j := strings.Index(rest, "\n## "); j >= 0 {
		rest = rest[:j]
	}
	return strings.TrimSpace(rest)
}

// subsequence reports whether every item of sub is in seq, in order.
func subsequence(sub, seq []string) bool {
	i := 0
	for _, x := range seq {
		if i < len(sub) && sub[i] == x {
			i++
		}
	}
	return i == len(sub)
}

// headingIDs lists the ids the body's lines that start with prefix name,
// in order.
func headingIDs(body, prefix string) []string {
	var ids []string
	for _, line := range strings.Split(body, "\n") {
		if id, ok := strings.CutPrefix(line, prefix); ok {
			ids = append(ids, strings.TrimSpace(id))
		}
	}
	return ids
}

func idList(ids []string) string {
	if len(ids) == 0 {
		return "none"
	}
	return strings.Join(ids, ", ")
}

// clip shortens a text quoted in a message to 80 characters.
func clip(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > 80 {
		return string(r[:79]) + "…"
	}
	return s
}
