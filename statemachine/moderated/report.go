package moderated

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"html/template"
	"strconv"
	"strings"
	"sync"

	"github.com/moot-dev/moot/internal/evidence"
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
		fmt.Fprintf(&b, "\n**%03d %s** (%s, [file](%s))\n\n%s\n", s.Number, inline(m.Name), d.label(s), m.file, block(m.Content))
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

// page is the HTML report's template, parsed on first use.
var page = sync.OnceValue(func() *template.Template {
	return template.Must(template.New("page").Parse(pageText))
})

const pageText = `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>{{.Motion}}</title>
<style>body{font-family:system-ui,sans-serif;max-width:52rem;margin:2rem auto;padding:0 1rem;line-height:1.45}
table{border-collapse:collapse;margin:.5rem 0}td,th{border:1px solid #ccc;padding:.2rem .5rem;text-align:left}
blockquote{margin:.3rem 0 .8rem;padding-left:.8rem;border-left:3px solid #ccc;white-space:pre-wrap}.note{color:#555;font-size:.9em}
.A{fill:#3b6ea5}.B{fill:#b5563c}</style></head><body>
<h1>{{.Motion}}</h1>
<p>A moderated debate, {{.Format}} format, {{.Rounds}} rounds: {{.Progress}}.</p>
<ul>{{range .Sides}}<li>{{.Name}} defends: {{.Position}}</li>{{end}}</ul>
<h2>Scores</h2>
<table><tr><th>participant</th><th>statements scored</th><th>mean</th><th>latest</th></tr>
{{range .Sides}}<tr><td>{{.Name}}</td><td>{{.Count}}</td><td>{{.Mean}}</td><td>{{.Latest}}</td></tr>{{end}}</table>
{{if .Leader}}<p>Leader by mean: {{.Leader}} <span class="note">({{.Note}})</span></p>{{end}}
{{if .Bars}}<h2>Statement totals</h2>
<svg xmlns="http://www.w3.org/2000/svg" width="640" height="{{.Height}}" role="img" aria-label="statement totals">
{{range .Bars}}<text x="0" y="{{.TextY}}" font-size="12">{{.Label}}</text><rect class="{{.Side}}" x="220" y="{{.Y}}" width="{{.Width}}" height="14"/><text x="{{.ValueX}}" y="{{.TextY}}" font-size="12">{{.Total}}</text>
{{end}}<line x1="220" y1="{{.AxisY}}" x2="580" y2="{{.AxisY}}" stroke="#555"/>
{{range .Ticks}}<line x1="{{.X}}" y1="{{$.AxisY}}" x2="{{.X}}" y2="{{.TickY}}" stroke="#555"/><text x="{{.X}}" y="{{.LabelY}}" font-size="11" text-anchor="middle">{{.Label}}</text>
{{end}}<text x="400" y="{{.TitleY}}" font-size="12" text-anchor="middle">weighted total of the rubric (0 to 10)</text>
</svg>{{end}}
{{range .Sections}}<h2>{{.Title}}</h2>
{{range .Messages}}<p><strong>{{.Number}} {{.Name}}</strong> ({{.Label}})</p><blockquote>{{.Content}}</blockquote>
{{if .Marks}}<table><tr><th>criterion</th><th>score</th><th>weight</th><th>weighted</th><th>justification</th></tr>
{{range .Marks}}<tr><td>{{.Name}}</td><td>{{.Raw}}</td><td>{{.Weight}}</td><td>{{.Weighted}}</td><td>{{.Justification}}</td></tr>{{end}}
<tr><th>total</th><th>{{.Total}}</th><td></td><td></td><td></td></tr></table>{{end}}{{if eq .Total "missing"}}<p><em>Score: missing.</em> No value was invented: the debate went on without it (moot run --keep-going).</p>{{end}}
{{end}}{{end}}</body></html>
`

// ReportHTML is the report as one self-contained page, the chart of
// totals drawn in SVG.
func (d *debate) ReportHTML() ([]byte, error) {
	type side struct {
		Name, Position, Mean, Latest string
		Count                        int
	}
	type tickT struct {
		X, TickY, LabelY int
		Label            string
	}
	type barT struct {
		Label, Side, Total      string
		Y, TextY, Width, ValueX int
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
		Rounds, Height                         int
		AxisY, TitleY                          int
		Ticks                                  []tickT
		Sides                                  []side
		Bars                                   []barT
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
	for i, s := range d.scored() {
		t := d.scores[s.Number].Total
		cls := "A"
		if s.Role == RoleB {
			cls = "B"
		}
		w := int(t * 36)
		data.Bars = append(data.Bars, barT{Label: fmt.Sprintf("%03d %s, %s", s.Number, d.name(s.Role), d.label(s)), Side: cls,
			Total: fmt.Sprintf("%.2f", t), Y: i*20 + 3, TextY: i*20 + 14, Width: w, ValueX: 224 + w})
	}
	// The x axis under the bars: a tick every 2 points of the total.
	data.AxisY = len(data.Bars)*20 + 4
	for v := 0; v <= 10; v += 2 {
		data.Ticks = append(data.Ticks, tickT{X: 220 + v*36, TickY: data.AxisY + 4, LabelY: data.AxisY + 16, Label: strconv.Itoa(v)})
	}
	data.TitleY = data.AxisY + 32
	data.Height = data.TitleY + 6
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
	var b bytes.Buffer
	if err := page().Execute(&b, data); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
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
