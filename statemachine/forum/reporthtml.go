package forum

import (
	"html/template"
	"math"
	"strconv"
	"strings"
	"sync"

	"github.com/moot-dev/moot/internal/chart"
	"github.com/moot-dev/moot/internal/english"
	"github.com/moot-dev/moot/internal/page"
)

// htmlPage is the body of report.html, in the page every report shares;
// the template is parsed on first use. Every text
// from the debate reaches it as text, which the template escapes; the
// chart is the one piece of markup it is given, and the chart escapes
// what it draws.
var htmlPage = sync.OnceValue(func() *template.Template {
	return template.Must(template.New("page").Parse(htmlPageText))
})

const htmlPageText = `{{define "paras"}}{{range .}}<p>{{range $i, $l := .}}{{if $i}}<br>{{end}}{{$l}}{{end}}</p>
{{end}}{{end}}{{define "entry"}}{{if .Heading}}<h2 class="turn">{{.Heading}}</h2>
{{end}}{{if eq .Kind "private"}}<details><summary>{{.Who}}'s {{.What}} (private to {{.Who}})</summary>
{{template "paras" .Body}}</details>
{{else if eq .Kind "speech"}}<p><strong>{{.Who}}:</strong></p>
{{template "paras" .Body}}{{else if eq .Kind "score"}}<p><span class="chip">{{.Chip}}</span> {{.Note}}</p>
{{else if eq .Kind "announcement"}}{{if .Winner}}<p><strong>Winner: {{.Winner}}</strong>{{range .Results}} · {{.}}{{end}}</p>
{{end}}{{template "paras" .Body}}{{end}}{{end}}<h1>{{.Topic}}</h1>
{{if .Premise}}<p><strong>Premise:</strong> {{.Premise}}</p>
{{end}}<table><tr><th>role</th><th>name</th><th>side</th></tr>
{{range .Cast}}<tr><td>{{.Role}}</td><td>{{.Name}}</td><td>{{.Side}}</td></tr>
{{end}}</table>
{{if .Gaps}}<p><strong>Missing:</strong> {{.GapCount}} recorded as missing after every repair; no value was invented for them.</p>
<ul>
{{range .Gaps}}<li>{{.}}</li>
{{end}}</ul>
{{end}}{{if .Chart}}<h2>Running scores</h2>
{{.Chart}}{{end}}{{range .Transcript}}{{template "entry" .}}{{end}}{{if .Verdict}}<div class="verdict"><h2>Verdict</h2>
{{range .Verdict}}{{template "entry" .}}{{end}}</div>
{{end}}`

// htmlStyle is what report.html's body needs beyond the shared page's
// styles: private texts folded, score chips, the verdict's box.
const htmlStyle template.CSS = `
details { color: #666; margin: .5em 0; border-left: 3px solid #ddd; padding-left: .8em; }
.chip { display: inline-block; background: #eef; border-radius: 1em; padding: 0 .7em; font-weight: 600; }
.turn { margin-top: 1.5em; }
.verdict { border: 2px solid #333; padding: 1em; margin-top: 2em; }
`

// htmlEntry is one call of the transcript as report.html shows it.
type htmlEntry struct {
	// Heading, when set, opens a turn before the entry.
	Heading string
	// Kind is "private", "speech", "score" or "announcement"; "" for a
	// call that shows nothing but the heading it opens.
	Kind      string
	Who, What string
	// Chip and Note are a score's label and reasoning.
	Chip, Note string
	// Winner and Results are the verdict's, for the announcement.
	Winner  string
	Results []string
	// Body is the entry's text: paragraphs, each of its lines.
	Body [][]string
}

// htmlParagraphs splits model text into paragraphs and each into lines.
func htmlParagraphs(text string) [][]string {
	var out [][]string
	for _, p := range strings.Split(text, "\n\n") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, strings.Split(p, "\n"))
		}
	}
	return out
}

// ReportHTML writes the same report as one self-contained HTML page, with
// the running scores drawn as an inline SVG chart.
func (d *debate) ReportHTML() ([]byte, error) {
	st := d.st
	type castRow struct{ Role, Name, Side string }
	data := struct {
		Topic, Premise, GapCount string
		Cast                     []castRow
		Gaps                     []string
		Chart                    template.HTML
		Transcript, Verdict      []htmlEntry
	}{Topic: d.topic, Premise: st.Premise, Gaps: d.gapLines()}
	data.GapCount = english.Count(len(data.Gaps), "call")
	for i, role := range []string{st.a(), st.b(), Judge} {
		if p := st.persona(role); p != nil {
			data.Cast = append(data.Cast, castRow{[]string{"A (opens)", "B", "judge"}[i], p.Name, sideOf(role)})
		}
	}
	if turns, bySide := d.scorePoints(); len(turns) > 0 {
		c := chart.Lines{Title: "Running scores after each turn", XLabel: "after turn", YLabel: "running score",
			YMin: 0, YMax: 10, YStep: 2}
		for _, t := range turns {
			c.X = append(c.X, strconv.Itoa(t))
		}
		colours := map[string]string{st.a(): "#c33", st.b(): "#36c"}
		for _, side := range []string{st.a(), st.b()} {
			s := chart.Series{Name: st.name(side), Colour: colours[side]}
			for _, v := range bySide[side] {
				// A speaker not yet scored has no point: the line
				// starts at the first score.
				if v < 0 {
					s.Values = append(s.Values, math.NaN())
				} else {
					s.Values = append(s.Values, float64(v))
				}
			}
			c.Series = append(c.Series, s)
		}
		// The chart escapes every text it draws.
		data.Chart = template.HTML(c.SVG())
	}
	turn := 0
	list := &data.Transcript
	for _, e := range d.entries() {
		m := e.f.meta
		x := htmlEntry{Who: st.name(e.s.Role), What: e.s.Kind, Body: htmlParagraphs(e.f.body)}
		if e.s.Turn != turn && e.s.Turn <= st.Turns && e.s.Kind != kindPlan {
			turn = e.s.Turn
			x.Heading = "Turn " + strconv.Itoa(turn) + ": " + d.who(d.slotSpeaker(turn))
		}
		if e.s.Kind == kindDeliberation {
			list = &data.Verdict
		}
		switch e.s.Kind {
		case kindPlan, kindThink, kindEvaluate, kindDeliberation, kindConfirmation:
			x.Kind = "private"
		case kindSpeech:
			x.Kind = "speech"
		case kindScore:
			x.Kind, x.Body = "score", nil
			switch {
			case m.Score != nil:
				x.Chip, x.Note = st.name(Judge)+" → "+st.name(e.s.Target)+": "+strconv.Itoa(*m.Score)+"/10", m.Reasoning
			case m.Missing != nil:
				x.Chip, x.Note = st.name(Judge)+" → "+st.name(e.s.Target)+": missing", missingBody(m.Missing)
			default:
				x.Kind = ""
			}
		case kindAnnouncement:
			x.Kind = "announcement"
			if v := st.Verdict; v != nil {
				x.Winner = d.who(v.Winner)
				x.Results = []string{st.name(For) + " " + strconv.Itoa(v.Scores[For]), st.name(Against) + " " + strconv.Itoa(v.Scores[Against])}
				if v.PremiseUpheld != nil {
					x.Results = append(x.Results, "premise "+map[bool]string{true: "UPHELD", false: "REJECTED"}[*v.PremiseUpheld])
				}
			}
		}
		if x.Kind != "" || x.Heading != "" {
			*list = append(*list, x)
		}
	}
	body, err := page.Body(htmlPage(), data)
	if err != nil {
		return nil, err
	}
	return page.Page{Title: d.topic, Style: htmlStyle, Body: body}.HTML()
}
