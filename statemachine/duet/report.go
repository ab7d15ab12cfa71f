package duet

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"html/template"
	"strconv"
	"strings"
	"sync"

	"github.com/moot-dev/moot/internal/builtin"
	"github.com/moot-dev/moot/internal/escape"
	"github.com/moot-dev/moot/internal/page"
	sm "github.com/moot-dev/moot/statemachine"
)

var (
	_ sm.Reporter     = (*debate)(nil)
	_ sm.HTMLReporter = (*debate)(nil)
	_ sm.Exporter     = (*debate)(nil)
	_ sm.Shower       = (*debate)(nil)
	_ sm.Leader       = (*debate)(nil)
)

// round is one round as the reports show it.
type round struct {
	N      int
	Pro    string
	Con    string
	Judged bool
	V      verdict
}

// played lists the rounds spoken, in order.
func (d *debate) played() []round {
	var out []round
	for r := 1; r <= d.st.Rounds; r++ {
		s, ok := d.statements[r]
		if !ok {
			break
		}
		v, judged := d.verdicts[r]
		out = append(out, round{N: r, Pro: s[Pro].Text, Con: s[Con].Text, Judged: judged, V: v})
	}
	return out
}

// headline says how the debate stands, for the top of a report.
func (d *debate) headline() string {
	line := fmt.Sprintf("pro %d · con %d after %d of %d rounds", d.st.Totals[Pro], d.st.Totals[Con], d.st.Round, d.st.Rounds)
	if l := d.Leader(); l != "" {
		line += ": " + l
	}
	return line
}

// Report writes README.md: the motion, the totals, and each round's
// statements and scores.
func (d *debate) Report() ([]sm.File, error) {
	var b strings.Builder
	fmt.Fprintf(&b, "# %s\n\n%s\n", escape.Markdown(d.motion), d.headline())
	for _, r := range d.played() {
		fmt.Fprintf(&b, "\n## Round %d\n\n### pro\n\n%s\n\n### con\n\n%s\n", r.N, escape.Markdown(r.Pro), escape.Markdown(r.Con))
		if r.Judged {
			fmt.Fprintf(&b, "\n**judge:** pro %d (%s) · con %d (%s)\n", r.V.Pro.Score, escape.Markdown(r.V.Pro.Reason), r.V.Con.Score, escape.Markdown(r.V.Con.Reason))
		}
	}
	return []sm.File{{Name: "README.md", Data: []byte(b.String())}}, nil
}

// htmlBody is report.html's body; the template escapes every text.
var htmlBody = sync.OnceValue(func() *template.Template {
	return template.Must(template.New("duet").Parse(`<h1>{{.Motion}}</h1>
<p class="headline">{{.Headline}}</p>
{{range .Rounds}}<section>
<h2>Round {{.N}}</h2>
<h3>pro</h3>
<p>{{.Pro}}</p>
<h3>con</h3>
<p>{{.Con}}</p>
{{if .Judged}}<p class="verdict"><b>judge:</b> pro {{.V.Pro.Score}} ({{.V.Pro.Reason}}) · con {{.V.Con.Score}} ({{.V.Con.Reason}})</p>
{{end}}</section>
{{end}}`))
})

// ReportHTML returns the report as one page, in the page every report
// shares.
func (d *debate) ReportHTML() ([]byte, error) {
	body, err := page.Body(htmlBody(), map[string]any{"Motion": d.motion, "Headline": d.headline(), "Rounds": d.played()})
	if err != nil {
		return nil, err
	}
	return page.Page{Title: d.motion, Style: ".verdict{color:#555}", Body: body}.HTML()
}

var formats = []sm.Format{
	{Name: "csv", Usage: "a row per scored statement: round, role, score, reason", Ext: "csv"},
	{Name: "transcript", Usage: "the statements as markdown", Ext: "md"},
}

// Formats lists the formats a duet debate exports, csv first.
func (Protocol) Formats() []sm.Format { return formats }

// Formats lists the formats d exports, csv first.
func (d *debate) Formats() []sm.Format { return formats }

// Export returns d in the format called name.
func (d *debate) Export(name string) ([]byte, error) {
	switch name {
	case "csv":
		var b bytes.Buffer
		w := csv.NewWriter(&b)
		_ = w.Write([]string{"round", "role", "score", "reason"})
		for _, r := range d.played() {
			if !r.Judged {
				break
			}
			for _, side := range sides {
				m := r.V.of(side)
				_ = w.Write([]string{strconv.Itoa(r.N), side, strconv.Itoa(m.Score), m.Reason})
			}
		}
		w.Flush()
		return b.Bytes(), w.Error()
	case "transcript":
		var b strings.Builder
		fmt.Fprintf(&b, "# %s\n", escape.Markdown(d.motion))
		for _, r := range d.played() {
			fmt.Fprintf(&b, "\n## Round %d\n\n**pro:** %s\n\n**con:** %s\n", r.N, escape.Markdown(r.Pro), escape.Markdown(r.Con))
		}
		return []byte(b.String()), nil
	}
	return nil, fmt.Errorf("duet exports no format %q", name)
}

// Parts lists the statements and the judge's verdicts, in order.
func (d *debate) Parts() []sm.Part {
	var out []sm.Part
	for _, r := range d.played() {
		for _, side := range sides {
			p := sm.Part{ID: fmt.Sprintf("r%02d-%s", r.N, side), Unit: r.N, Role: side, Title: builtin.Clip(d.statements[r.N][side].Text, 8)}
			if r.Judged {
				s := float64(r.V.of(side).Score)
				p.Score, p.For = &s, side
			}
			out = append(out, p)
		}
		if r.Judged {
			out = append(out, sm.Part{ID: fmt.Sprintf("r%02d-judge", r.N), Unit: r.N, Role: Judge,
				Title: fmt.Sprintf("pro %d · con %d", r.V.Pro.Score, r.V.Con.Score)})
		}
	}
	return out
}

// Show returns the part called id in full.
func (d *debate) Show(id string) (string, bool) {
	for _, r := range d.played() {
		for _, side := range sides {
			if id == fmt.Sprintf("r%02d-%s", r.N, side) {
				return fmt.Sprintf("%s, round %d\n\n%s\n", side, r.N, d.statements[r.N][side].Text), true
			}
		}
		if r.Judged && id == fmt.Sprintf("r%02d-judge", r.N) {
			return fmt.Sprintf("judge, round %d\n\npro %d: %s\ncon %d: %s\n", r.N, r.V.Pro.Score, r.V.Pro.Reason, r.V.Con.Score, r.V.Con.Reason), true
		}
	}
	return "", false
}
