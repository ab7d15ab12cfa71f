package moderated

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"html/template"
	"strconv"
	"strings"
	"sync"

	"github.com/moot-dev/moot/internal/chart"
	"github.com/moot-dev/moot/internal/evidence"
	"github.com/moot-dev/moot/internal/page"
	sm "github.com/moot-dev/moot/statemachine"
)

var (
	_ sm.Reporter     = (*debate)(nil)
	_ sm.HTMLReporter = (*debate)(nil)
	_ sm.Exporter     = (*debate)(nil)
)

// lead compares the advocates' means of their scored statements: it
// returns RoleA or RoleB for the one ahead, "" when they are level, and
// both standings; ok is false until each advocate has a score.
func (d *debate) lead() (role string, a, b standing, ok bool) {
	s := d.standings()
	a, b = s[RoleA], s[RoleB]
	if a.Count == 0 || b.Count == 0 {
		return "", a, b, false
	}
	switch {
	case a.Mean > b.Mean:
		role = RoleA
	case b.Mean > a.Mean:
		role = RoleB
	}
	return role, a, b, true
}

// leader says which advocate leads by mean: a reading moot derives from
// the rubric, since the design names no result.
func (d *debate) leader() string {
	role, a, b, ok := d.lead()
	switch {
	case !ok:
		return ""
	case role == RoleA:
		return fmt.Sprintf("%s, %.2f against %.2f", d.name(RoleA), a.Mean, b.Mean)
	case role == RoleB:
		return fmt.Sprintf("%s, %.2f against %.2f", d.name(RoleB), b.Mean, a.Mean)
	}
	return fmt.Sprintf("none: both at %.2f", a.Mean)
}

const derivedNote = "derived by moot from the rubric totals; the debate itself declares no result"

// scored lists the statements that have a score, in order.
func (d *debate) scored() []slot {
	var out []slot
	for _, s := range d.messagesInOrder() {
		if _, ok := d.scores[s.Number]; ok {
			out = append(out, s)
		}
	}
	return out
}

func bar(total float64) string {
	n := int(total*2 + 0.5)
	return strings.Repeat("█", n) + strings.Repeat("░", 20-n)
}

// Report writes README.md: the debate by phase and round, each scored
// statement's rubric as a table, a chart of the totals, and the leader by
// mean, marked as derived.
func (d *debate) Report() ([]sm.File, error) {
	d = d.markdown()
	var b strings.Builder
	a, bb := d.participantPair()
	fmt.Fprintf(&b, "# %s\n\n", inline(d.motion))
	fmt.Fprintf(&b, "A moderated debate (moot protocol %s), %s format, %d rounds: %s.\n\n", Name, d.st.Format, d.st.RoundCount, d.progress())
	fmt.Fprintf(&b, "- %s defends: %s\n- %s defends: %s\n\n", inline(a.Name), inline(a.Position), inline(bb.Name), inline(bb.Position))
	b.WriteString("## Scores\n\n")
	d.scoreTable(&b)
	if l := d.leader(); l != "" {
		fmt.Fprintf(&b, "\nLeader by mean: %s (%s).\n", inline(l), derivedNote)
	}
	if sc := d.scored(); len(sc) > 0 {
		b.WriteString("\n## Statement totals\n\n| # | speaker | statement | total | chart (0-10) |\n|---|---|---|---|---|\n")
		for _, s := range sc {
			t := d.scores[s.Number].Total
			fmt.Fprintf(&b, "| %03d | %s | %s | %.2f | `%s` |\n", s.Number, inline(d.name(s.Role)), d.label(s), t, bar(t))
		}
	}
	section := ""
	for _, s := range d.messagesInOrder() {
		if l := phaseLabel(s.Phase, s.Round, d.st.RoundCount); l != section {
			section = l
			fmt.Fprintf(&b, "\n## %s\n", l)
		}
		m := d.messages[s.Number]
		fmt.Fprintf(&b, "\n**%03d %s** (%s, [file](%s))\n\n%s\n", s.Number, inline(m.Name), d.label(s), m.file, sm.Blockquote(m.Content))
		if len(m.Citations) > 0 {
			fmt.Fprintf(&b, "\n*Quotations checked:* %s\n", evidence.Marks(m.Citations))
		}
		if sc, ok := d.scores[s.Number]; ok {
			b.WriteString("\n")
			d.rubricTable(&b, sc)
		} else if _, ok := d.gaps[s.Number]; ok {
			fmt.Fprintf(&b, "\n*Score: missing.* %s\n", missingReply)
		}
	}
	b.WriteString(d.citationShares())
	return []sm.File{{Name: "README.md", Data: []byte(b.String())}}, nil
}

func (d *debate) participantPair() (Participant, Participant) {
	a, _ := d.participant(RoleA)
	b, _ := d.participant(RoleB)
	return a, b
}

// body is the HTML report's body, in the page every report shares; the
// template is parsed on first use.
var body = sync.OnceValue(func() *template.Template {
	return template.Must(template.New("page").Parse(pageText))
})

// pageStyle is what report.html's body needs beyond the shared page's
// styles: statements kept as written, the derived note muted.
const pageStyle template.CSS = `
td, th { text-align: left; }
blockquote { white-space: pre-wrap; }
.note { color: #555; font-size: .9em; }
`

const pageText = `<h1>{{.Motion}}</h1>
<p>A moderated debate, {{.Format}} format, {{.Rounds}} rounds: {{.Progress}}.</p>
<ul>{{range .Sides}}<li>{{.Name}} defends: {{.Position}}</li>{{end}}</ul>
<h2>Scores</h2>
<table><tr><th>participant</th><th>statements scored</th><th>mean</th><th>latest</th></tr>
{{range .Sides}}<tr><td>{{.Name}}</td><td>{{.Count}}</td><td>{{.Mean}}</td><td>{{.Latest}}</td></tr>{{end}}</table>
{{if .Leader}}<p>Leader by mean: {{.Leader}} <span class="note">({{.Note}})</span></p>{{end}}
{{if .Chart}}<h2>Statement totals</h2>
{{.Chart}}{{end}}
{{range .Sections}}<h2>{{.Title}}</h2>
{{range .Messages}}<p><strong>{{.Number}} {{.Name}}</strong> ({{.Label}})</p><blockquote>{{.Content}}</blockquote>
{{if .Marks}}<table><tr><th>criterion</th><th>score</th><th>weight</th><th>weighted</th><th>justification</th></tr>
{{range .Marks}}<tr><td>{{.Name}}</td><td>{{.Raw}}</td><td>{{.Weight}}</td><td>{{.Weighted}}</td><td>{{.Justification}}</td></tr>{{end}}
<tr><th>total</th><th>{{.Total}}</th><td></td><td></td><td></td></tr></table>{{end}}{{if eq .Total "missing"}}<p><em>Score: missing.</em> No value was invented: the debate went on without it (moot run --keep-going).</p>{{end}}
{{end}}{{end}}`

// ReportHTML is the report as one self-contained page, the chart of
// totals drawn in SVG.
func (d *debate) ReportHTML() ([]byte, error) {
	type side struct {
		Name, Position, Mean, Latest string
		Count                        int
	}
	type mark struct{ Name, Raw, Weight, Weighted, Justification string }
	type msg struct {
		Number, Name, Label, Content, Total string
		Marks                               []mark
	}
	type section struct {
		Title    string
		Messages []msg
	}
	stand := d.standings()
	data := struct {
		Motion, Format, Progress, Leader, Note string
		Rounds                                 int
		Sides                                  []side
		Chart                                  template.HTML
		Sections                               []section
	}{Motion: d.motion, Format: d.st.Format, Progress: d.progress(), Leader: d.leader(), Note: derivedNote, Rounds: d.st.RoundCount}
	for _, role := range []string{RoleA, RoleB} {
		p, _ := d.participant(role)
		s := stand[role]
		sd := side{Name: p.Name, Position: p.Position, Count: s.Count, Mean: "-", Latest: "-"}
		if s.Count > 0 {
			sd.Mean, sd.Latest = fmt.Sprintf("%.2f", s.Mean), fmt.Sprintf("%.2f", s.Latest)
		}
		data.Sides = append(data.Sides, sd)
	}
	if sc := d.scored(); len(sc) > 0 {
		colour := map[string]string{RoleA: "#3b6ea5", RoleB: "#b5563c"}
		c := chart.Bars{Title: "Statement totals", XLabel: "weighted total of the rubric (0 to 10)", XMin: 0, XMax: 10, XStep: 2,
			Legend: []chart.Series{{Name: d.name(RoleA), Colour: colour[RoleA]}, {Name: d.name(RoleB), Colour: colour[RoleB]}}}
		for _, s := range sc {
			c.Bars = append(c.Bars, chart.Bar{Label: fmt.Sprintf("%03d %s, %s", s.Number, d.name(s.Role), d.label(s)),
				Value: d.scores[s.Number].Total, Colour: colour[s.Role]})
		}
		// The chart escapes every text it draws.
		data.Chart = template.HTML(c.SVG())
	}
	for _, s := range d.messagesInOrder() {
		title := phaseLabel(s.Phase, s.Round, d.st.RoundCount)
		if len(data.Sections) == 0 || data.Sections[len(data.Sections)-1].Title != title {
			data.Sections = append(data.Sections, section{Title: title})
		}
		m := d.messages[s.Number]
		out := msg{Number: fmt.Sprintf("%03d", s.Number), Name: m.Name, Label: d.label(s), Content: m.Content}
		if _, ok := d.gaps[s.Number]; ok {
			out.Total = "missing"
		}
		if sc, ok := d.scores[s.Number]; ok {
			out.Total = fmt.Sprintf("%.2f", sc.Total)
			for _, n := range sc.Names {
				mk := sc.Marks[n]
				out.Marks = append(out.Marks, mark{Name: n, Raw: num(mk.Raw), Weight: num(mk.Weight), Weighted: num(mk.Weighted), Justification: mk.Justification})
			}
		}
		sec := &data.Sections[len(data.Sections)-1]
		sec.Messages = append(sec.Messages, out)
	}
	html, err := page.Body(body(), data)
	if err != nil {
		return nil, err
	}
	return page.Page{Title: d.motion, Style: pageStyle, Body: html}.HTML()
}

func num(x float64) string { return strconv.FormatFloat(x, 'f', -1, 64) }

// Formats offers csv: one row per advocate statement with every
// criterion.
func (Protocol) Formats() []sm.Format {
	return []sm.Format{{Name: "csv", Usage: "one row per statement, with every criterion's score and justification and the total", Ext: "csv"}}
}

// Formats offers the protocol's formats.
func (d *debate) Formats() []sm.Format { return Protocol{}.Formats() }

// Export returns the debate in the format called name.
func (d *debate) Export(name string) ([]byte, error) {
	if name != "csv" {
		return nil, fmt.Errorf("no export format %q (moderated has csv)", name)
	}
	var b bytes.Buffer
	w := csv.NewWriter(&b)
	head := []string{"message", "file", "participant", "name", "kind", "phase", "round"}
	for _, c := range d.st.Criteria {
		head = append(head, c.Name, c.Name+"_justification")
	}
	head = append(head, "total")
	if err := w.Write(head); err != nil {
		return nil, err
	}
	for _, s := range d.messagesInOrder() {
		if !s.advocate() {
			continue
		}
		m := d.messages[s.Number]
		row := []string{strconv.Itoa(s.Number), m.file, m.Participant, m.Name, s.Kind, s.Phase, strconv.Itoa(s.Round)}
		sc, ok := d.scores[s.Number]
		for _, c := range d.st.Criteria {
			if mk, has := sc.Marks[c.Name]; ok && has {
				row = append(row, num(mk.Raw), mk.Justification)
			} else {
				row = append(row, "", "")
			}
		}
		_, gap := d.gaps[s.Number]
		switch {
		case ok:
			row = append(row, fmt.Sprintf("%.2f", sc.Total))
		case gap:
			row = append(row, "missing")
		default:
			row = append(row, "")
		}
		if err := w.Write(row); err != nil {
			return nil, err
		}
	}
	w.Flush()
	return b.Bytes(), w.Error()
}
