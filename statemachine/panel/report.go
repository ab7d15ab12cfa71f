package panel

import (
	"encoding/json"
	"fmt"
	"html/template"
	"strings"
	"sync"

	"github.com/moot-dev/moot/internal/escape"
	"github.com/moot-dev/moot/internal/evidence"
	"github.com/moot-dev/moot/internal/page"
	sm "github.com/moot-dev/moot/statemachine"
)

var (
	_ sm.Reporter     = (*debate)(nil)
	_ sm.HTMLReporter = (*debate)(nil)
)

// line is one line of a report section: a label and a text from a model.
type line struct {
	Label, Text string
	Indent      bool
}

// section is one section of the report.
type section struct {
	Title string
	Lines []line
}

func inline(s string) string { return escape.Markdown(s) }

// block makes text from a model safe as markdown paragraphs.
func block(s string) string {
	var paras []string
	for _, p := range strings.Split(strings.ReplaceAll(s, "\r\n", "\n"), "\n\n") {
		if p = strings.TrimSpace(p); p != "" {
			paras = append(paras, escape.Markdown(strings.Join(strings.Fields(p), " ")))
		}
	}
	return strings.Join(paras, " ")
}

// cardLines are a card's lines: each side with what would change its mind.
func (d *debate) cardLines(c Card) []line {
	state := "unresolved"
	if c.Resolved {
		state = "resolved: " + c.Resolution
	}
	out := []line{{Label: "kind", Text: c.Kind}, {Label: "diagnosis", Text: c.Diagnosis}, {Label: "state", Text: state}}
	for _, id := range c.Pair {
		s := c.Personas[id]
		out = append(out, line{Label: d.name(id) + ": " + s.Position, Text: s.Reasoning})
		if s.Falsifier != "" {
			out = append(out, line{Label: "would change " + d.name(id) + "'s mind", Text: s.Falsifier, Indent: true})
		}
	}
	return out
}

func markdownLines(b *strings.Builder, lines []line) {
	for _, l := range lines {
		indent := ""
		if l.Indent {
			indent = "  "
		}
		fmt.Fprintf(b, "%s- **%s**: %s\n", indent, inline(l.Label), block(l.Text))
	}
}

// cardMarkdown renders a card, under a heading of the given level.
func (d *debate) cardMarkdown(c Card, level int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s Crux card, aspect %d: %s\n\n", strings.Repeat("#", level), c.Aspect, inline(c.Question))
	markdownLines(&b, d.cardLines(c))
	return b.String()
}

// sections builds the report: the cards first, then each aspect's takes
// and summary, each room's exchange, and who shifted.
func (d *debate) sections() []section {
	var out []section
	for k := 1; k <= d.st.Aspects; k++ {
		if c, ok := d.card(k); ok {
			out = append(out, section{Title: fmt.Sprintf("Crux card, aspect %d: %s", k, c.Question), Lines: d.cardLines(c)})
		}
	}
	var open []line
	for _, p := range d.st.Personas {
		open = append(open, d.msgLine(openPath(p), false))
	}
	out = append(out, section{Title: "Openings", Lines: open})
	for k := 1; k <= d.st.Aspects; k++ {
		if !d.has(takePath(k, 0, d.st.Personas[0])) && !d.has(roundSummaryPath(k)) {
			continue
		}
		a := d.aspect(k)
		var lines []line
		if a.Description != "" {
			lines = append(lines, line{Label: "the question", Text: a.Description})
		}
		for m := 0; m < d.st.Minirounds; m++ {
			for _, p := range d.members(k, m) {
				if d.has(takePath(k, m, p)) {
					lines = append(lines, d.msgLine(takePath(k, m, p), m > 0))
				}
			}
		}
		if s, ok := d.files[roundSummaryPath(k)]; ok {
			lines = append(lines, line{Label: "summary", Text: string(s)})
		}
		out = append(out, section{Title: fmt.Sprintf("Aspect %d: %s", k, a.Label), Lines: lines})
		if x, ok := d.detection(k); ok && x.Spawn() {
			room := []line{{Label: "question", Text: x.Topic}}
			for _, p := range x.Pair {
				room = append(room, d.msgLine(positionPath(k, p), false))
			}
			for t := 0; t < d.roomLength(k); t++ {
				room = append(room, d.msgLine(turnPath(k, t), false))
				if e, ok := d.exit(k, t); ok {
					room = append(room, line{Label: fmt.Sprintf("exit check after turn %d: surfaced %t", t, e.Surfaced), Text: e.Reason, Indent: true})
				}
			}
			var cv Convergence
			if data, ok := d.files[convergencePath(k)]; ok && json.Unmarshal(data, &cv) == nil {
				room = append(room, line{Label: fmt.Sprintf("convergence (%s, converged %t)", cv.Kind, cv.Converged), Text: cv.Core})
			}
			out = append(out, section{Title: fmt.Sprintf("Crux room, aspect %d: %s and %s", k, d.name(x.Pair[0]), d.name(x.Pair[1])), Lines: room})
		}
	}
	var closing []line
	for _, p := range d.st.Personas {
		if d.has(closePath(p)) {
			closing = append(closing, d.msgLine(closePath(p), false))
		}
	}
	if len(closing) > 0 {
		out = append(out, section{Title: "Closings", Lines: closing})
	}
	var sh struct {
		Shifts []Shift `json:"shifts"`
	}
	if data, ok := d.files[ShiftsFile]; ok && json.Unmarshal(data, &sh) == nil {
		var lines []line
		for _, s := range sh.Shifts {
			verb := "held"
			if s.Shifted {
				verb = "shifted"
			}
			lines = append(lines, line{Label: d.name(s.Persona) + " " + verb, Text: s.Summary})
		}
		out = append(out, section{Title: "Who shifted", Lines: lines})
	}
	var sum Summary
	if data, ok := d.files[SummaryFile]; ok && json.Unmarshal(data, &sum) == nil {
		var lines []line
		for _, c := range sum.Claims {
			lines = append(lines, line{Label: "claim", Text: c.Claim})
			for _, s := range c.Stances {
				lines = append(lines, line{Label: s.Persona + ": " + s.Position, Text: s.Reasoning, Indent: true})
			}
		}
		for _, a := range sum.Agreements {
			lines = append(lines, line{Label: "agreement", Text: a})
		}
		for _, r := range sum.ResolutionPaths {
			lines = append(lines, line{Label: "resolution path", Text: r})
		}
		out = append(out, section{Title: "What was said", Lines: lines})
	}
	return out
}

func (d *debate) msgLine(path string, indent bool) line {
	m, ok := d.msgs[path]
	if !ok {
		return line{Label: path, Text: "(not yet spoken)", Indent: indent}
	}
	lbl := m.Name + ", " + label(m)
	if m.ReplyTo != "" {
		lbl += ", to " + m.ReplyTo
	}
	if !m.OK() {
		return line{Label: lbl, Text: "(" + m.Status + ": " + m.Reason + ")", Indent: indent}
	}
	text := m.Content
	if len(m.Citations) > 0 {
		text += "\n\n*Quotations checked:* " + evidence.Marks(m.Citations)
	}
	return line{Label: lbl, Text: text, Indent: indent}
}

// Report writes README.md.
func (d *debate) Report() ([]sm.File, error) {
	var b strings.Builder
	p := d.where()
	fmt.Fprintf(&b, "# %s\n\nA panel debate (moot protocol %s): %s. Stage: %s.\n", inline(d.topic), Name, d.panelNames(), p.stage)
	for _, s := range d.sections() {
		fmt.Fprintf(&b, "\n## %s\n\n", inline(s.Title))
		markdownLines(&b, s.Lines)
	}
	return []sm.File{{Name: "README.md", Data: []byte(b.String())}}, nil
}

func (d *debate) panelNames() string {
	names := make([]string, len(d.st.Personas))
	for i, id := range d.st.Personas {
		names[i] = d.name(id)
	}
	return strings.Join(names, ", ")
}

// body is the HTML report's body, in the page every report shares; the
// template is parsed on first use.
var body = sync.OnceValue(func() *template.Template {
	return template.Must(template.New("body").Parse(`<h1>{{.Topic}}</h1><p>A panel debate: {{.Panel}}. Stage: {{.Stage}}.</p>
{{range .Sections}}<h2>{{.Title}}</h2><ul>{{range .Lines}}<li{{if .Indent}} class="in"{{end}}><strong>{{.Label}}</strong>: {{.Text}}</li>{{end}}</ul>
{{end}}`))
})

// bodyStyle is what the body needs beyond the shared page's styles: a
// line that answers another indented under it.
const bodyStyle template.CSS = `
li.in { margin-left: 2rem; }
`

// ReportHTML is the same report as one self-contained page.
func (d *debate) ReportHTML() ([]byte, error) {
	html, err := page.Body(body(), struct {
		Topic, Panel, Stage string
		Sections            []section
	}{d.topic, d.panelNames(), d.where().stage, d.sections()})
	if err != nil {
		return nil, err
	}
	return page.Page{Title: d.topic, Style: bodyStyle, Body: html}.HTML()
}
