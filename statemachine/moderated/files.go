package moderated

import (
	"fmt"
	"strings"

	"github.com/moot-dev/moot/internal/escape"
	sm "github.com/moot-dev/moot/statemachine"
)

// The derived files: written in every commit, never read back.
const (
	IndexFile      = "index.md"
	MetadataFile   = "metadata.md"
	SummaryFile    = "summary.md"
	TranscriptFile = "transcript.md"
)

// derivedName is the name of derived file base (as the constants above
// name it) in the debate's output format.
func (d *debate) derivedName(base string) string {
	return strings.TrimSuffix(base, ".md") + "." + d.out()
}

// derived renders the files derived from the debate as it stands, in
// its output format.
func (d *debate) derived() ([]sm.File, error) {
	if d.out() == outJSON {
		return d.derivedJSON()
	}
	out := []sm.File{
		{Name: d.derivedName(IndexFile), Data: []byte(d.index())},
		{Name: d.derivedName(MetadataFile), Data: []byte(d.metadata())},
		{Name: d.derivedName(SummaryFile), Data: []byte(d.summary())},
	}
	if d.st.Transcript {
		out = append(out, sm.File{Name: d.derivedName(TranscriptFile), Data: []byte(d.transcript())})
	}
	return out, nil
}

// inline makes text safe on one line of a derived file: escaped for
// Markdown, on one line for text.
func (d *debate) inline(s string) string {
	if d.out() == outText {
		return strings.Join(strings.Fields(s), " ")
	}
	return inline(s)
}

// block sets text from a model apart in a derived file: a blockquote in
// Markdown, indented by four spaces in text.
func (d *debate) block(s string) string {
	if d.out() != outText {
		return sm.Blockquote(s)
	}
	s = strings.TrimSpace(strings.ReplaceAll(s, "\r\n", "\n"))
	if s == "" {
		return "    (empty)"
	}
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		if l = strings.TrimRight(l, " \t"); l != "" {
			lines[i] = "    " + l
		} else {
			lines[i] = ""
		}
	}
	return strings.Join(lines, "\n")
}

// link names a file of the debate: a Markdown link, or its name in text.
func (d *debate) link(name string) string { return d.linkAs(name, name) }

func (d *debate) linkAs(text, target string) string {
	if d.out() == outText {
		return target
	}
	return fmt.Sprintf("[%s](%s)", text, target)
}

// inline makes text from a file or a model safe on one markdown line.
func inline(s string) string { return escape.Markdown(s) }

func (d *debate) completedRounds() int {
	return max(0, min(d.st.Exchange-1, d.st.RoundCount))
}

func (d *debate) progress() string {
	if d.st.Step >= len(d.sched) {
		return "complete"
	}
	return fmt.Sprintf("in progress: %s (step %d of %d)", phaseLabel(d.sched[d.st.Step].Phase, d.sched[d.st.Step].Round, d.st.RoundCount), d.st.Step+1, len(d.sched))
}

// messagesInOrder lists the messages written, by number.
func (d *debate) messagesInOrder() []slot {
	var out []slot
	for _, s := range d.sched {
		if _, ok := d.messages[s.Number]; ok && s.message() {
			out = append(out, s)
		}
	}
	return out
}

func (d *debate) index() string {
	var b strings.Builder
	fmt.Fprintf(&b, "# Debate Index: %s\n\n## Metadata\n\n", d.inline(d.motion))
	fmt.Fprintf(&b, "- Debate: %s\n- Protocol: %s\n- Format: %s\n- Status: %s\n", d.inline(d.st.DebateID), Name, d.st.Format, d.progress())
	fmt.Fprintf(&b, "- Rounds completed: %d/%d\n- Messages: %d\n- Participants:\n", d.completedRounds(), d.st.RoundCount, len(d.messages))
	for _, p := range d.st.Participants {
		fmt.Fprintf(&b, "  - %s: %s (%s)", fileRole(p.Role), d.inline(p.Name), p.id8())
		if p.Position != "" {
			fmt.Fprintf(&b, ", defends \"%s\"", d.inline(p.Position))
		}
		b.WriteString("\n")
	}
	fmt.Fprintf(&b, "\n## Summary\n\nSee %s and %s.", d.link(d.derivedName(SummaryFile)), d.link(d.derivedName(MetadataFile)))
	if d.st.Transcript {
		fmt.Fprintf(&b, " The whole debate is in %s.", d.link(d.derivedName(TranscriptFile)))
	}
	b.WriteString("\n\n## Messages\n\n| # | file | participant | role | kind | phase | round |\n|---|---|---|---|---|---|---|\n")
	for _, s := range d.messagesInOrder() {
		m := d.messages[s.Number]
		fmt.Fprintf(&b, "| %03d | %s | %s | %s | %s | %s | %d |\n", s.Number, d.linkAs(strings.TrimPrefix(m.file, MessagesDir+"/"), m.file), d.inline(d.name(s.Role)), fileRole(s.Role), s.Kind, s.Phase, s.Round)
	}
	return b.String()
}

func onOff(b bool) string {
	if b {
		return "on"
	}
	return "off"
}

func (d *debate) scoreTable(b *strings.Builder) {
	stand := d.standings()
	b.WriteString("| participant | position | statements scored | mean | latest |\n|---|---|---|---|---|\n")
	for _, role := range []string{RoleA, RoleB} {
		p, _ := d.participant(role)
		s := stand[role]
		mean, latest := "-", "-"
		if s.Count > 0 {
			mean, latest = fmt.Sprintf("%.2f", s.Mean), fmt.Sprintf("%.2f", s.Latest)
		}
		fmt.Fprintf(b, "| %s | %s | %d | %s | %s |\n", d.inline(p.Name), d.inline(p.Position), s.Count, mean, latest)
	}
}

func (d *debate) metadata() string {
	var b strings.Builder
	fmt.Fprintf(&b, "# Metadata: %s\n\n", d.inline(d.motion))
	fmt.Fprintf(&b, "- Topic: %s\n- Format: %s\n- Rounds: %d (completed %d)\n- Round summaries: %s\n- Fact checker: %s\n- Transcript: %s\n- Started: %s\n- Status: %s\n- Messages: %d\n- Scores: %d\n",
		d.inline(d.motion), d.st.Format, d.st.RoundCount, d.completedRounds(), onOff(d.st.RoundSummaries), onOff(d.st.FactChecker), onOff(d.st.Transcript),
		d.st.Started, d.progress(), len(d.messages), len(d.scores))
	b.WriteString("\n## Rubric\n\n| criterion | weight | description |\n|---|---|---|\n")
	for _, c := range d.st.Criteria {
		fmt.Fprintf(&b, "| %s | %g | %s |\n", c.Name, c.Weight, d.inline(c.Description))
	}
	fmt.Fprintf(&b, "\nA statement's total is Σ score × weight / Σ weight, from 0 to 10; a participant's score is the mean of its statement totals.\n")
	if len(d.panel) > 0 {
		fmt.Fprintf(&b, "\n%s\n", d.inline(d.panelRule()))
	}
	fmt.Fprintf(&b, "\n## Token limits\n\n- opening: %d\n- argument and rebuttal: %d\n- closing: %d\n", d.st.MaxTokens.Opening, d.st.MaxTokens.Argument, d.st.MaxTokens.Closing)
	b.WriteString("\n## Scores\n\n")
	d.scoreTable(&b)
	return b.String()
}

func (d *debate) conclusion() (Message, bool) {
	for _, s := range d.sched {
		if s.Kind == kindConclusion {
			m, ok := d.messages[s.Number]
			return m, ok
		}
	}
	return Message{}, false
}

func (d *debate) summary() string {
	var b strings.Builder
	fmt.Fprintf(&b, "# Summary: %s\n\n", d.inline(d.motion))
	if m, ok := d.conclusion(); ok {
		fmt.Fprintf(&b, "The moderator's conclusion (message %03d):\n\n%s\n", m.Number, d.block(m.Content))
	} else {
		fmt.Fprintf(&b, "The debate has not concluded: %s.\n", d.progress())
	}
	b.WriteString("\n## Scores\n\n")
	d.scoreTable(&b)
	b.WriteString("\nThe debate declares no result; the scores are the rubric's.\n")
	return b.String()
}

// rubricTable writes the rubric score of message n.
func (d *debate) rubricTable(b *strings.Builder, sc Score) {
	b.WriteString("| criterion | score | weight | weighted | justification |\n|---|---|---|---|---|\n")
	for _, n := range sc.Names {
		m := sc.Marks[n]
		fmt.Fprintf(b, "| %s | %g | %g | %g | %s |\n", n, m.Raw, m.Weight, m.Weighted, d.inline(m.Justification))
	}
	fmt.Fprintf(b, "| **total** | **%.2f** | | | |\n", sc.Total)
}

func (d *debate) transcript() string {
	var b strings.Builder
	fmt.Fprintf(&b, "# Transcript: %s\n\n", d.inline(d.motion))
	a, _ := d.participant(RoleA)
	bb, _ := d.participant(RoleB)
	fmt.Fprintf(&b, "- %s defends: %s\n- %s defends: %s\n", d.inline(a.Name), d.inline(a.Position), d.inline(bb.Name), d.inline(bb.Position))
	section := ""
	for _, s := range d.messagesInOrder() {
		if l := phaseLabel(s.Phase, s.Round, d.st.RoundCount); l != section {
			section = l
			fmt.Fprintf(&b, "\n## %s\n", l)
		}
		m := d.messages[s.Number]
		fmt.Fprintf(&b, "\n### %03d %s: %s\n\n%s\n", s.Number, d.inline(m.Name), d.label(s), d.block(m.Content))
		if sc, ok := d.scores[s.Number]; ok {
			b.WriteString("\n")
			d.rubricTable(&b, sc)
		} else if _, ok := d.gaps[s.Number]; ok {
			fmt.Fprintf(&b, "\n*Score: missing.* %s\n", missingReply)
		}
	}
	b.WriteString("\n## Scores\n\n")
	d.scoreTable(&b)
	return b.String()
}
