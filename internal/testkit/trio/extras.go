package trio

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"html/template"
	"io"
	"strconv"
	"strings"
	"sync"

	sm "github.com/moot-dev/moot/statemachine"
)

// The optional parts of the step model trio offers, so that the tests
// run them: an HTML report, export formats, and a command of its own.
var (
	_ sm.HTMLReporter = (*debate)(nil)
	_ sm.Exporter     = (*debate)(nil)
	_ sm.Commander    = Protocol{}
	_ sm.FormatLister = Protocol{}
)

var formats = []sm.Format{
	{Name: "csv", Usage: "a row per judged round: round, winner, reason", Ext: "csv"},
	{Name: "transcript", Usage: "the public speeches and verdicts as markdown", Ext: "md"},
}

// Formats lists the formats trio's debates export, csv first.
func (Protocol) Formats() []sm.Format { return formats }

// Formats lists the formats d exports, csv first.
func (d *debate) Formats() []sm.Format { return formats }

// Export returns d in the format called name.
func (d *debate) Export(name string) ([]byte, error) {
	switch name {
	case "csv":
		var b bytes.Buffer
		w := csv.NewWriter(&b)
		_ = w.Write([]string{"round", "winner", "reason"})
		for r := 1; r <= d.st.Round; r++ {
			f, ok := d.front[verdictFile(r)]
			if !ok {
				break
			}
			var winner string
			_ = f.Decode("winner", &winner)
			_ = w.Write([]string{strconv.Itoa(r), winner, strings.TrimSpace(d.files[verdictFile(r)])})
		}
		w.Flush()
		return b.Bytes(), w.Error()
	case "transcript":
		return []byte(d.transcript(d.st.Round)), nil
	}
	return nil, fmt.Errorf("trio exports no format %q", name)
}

// htmlPage is report.html's template: the rounds, each verdict, and
// alpha's plans marked private, every text escaped by the template.
var htmlPage = sync.OnceValue(func() *template.Template {
	return template.Must(template.New("page").Parse(`<!doctype html>
<html><head><meta charset="utf-8"><title>{{.Motion}}</title></head><body>
<h1>{{.Motion}}</h1>
<p>alpha {{.Alpha}} · beta {{.Beta}} after {{.Round}} of {{.Rounds}} rounds</p>
{{range $r := .Played}}<h2>Round {{$r.N}}</h2>
<p><b>alpha:</b> {{$r.Alpha}}</p>
{{if $r.HasPlan}}<details><summary>alpha's plan (private to alpha)</summary>{{$r.Plan}}</details>
{{end}}<p><b>beta:</b> {{$r.Beta}}</p>
{{end}}</body></html>
`))
})

// ReportHTML returns the report as one page: the rounds, each verdict,
// and alpha's plans marked private.
func (d *debate) ReportHTML() ([]byte, error) {
	type round struct {
		N                 int
		Alpha, Plan, Beta string
		HasPlan           bool
	}
	data := struct {
		Motion                     string
		Alpha, Beta, Round, Rounds int
		Played                     []round
	}{Motion: d.motion, Alpha: d.st.Wins[Alpha], Beta: d.st.Wins[Beta], Round: d.st.Round, Rounds: d.st.Rounds}
	for r := 1; r <= d.st.Rounds; r++ {
		speech, ok := d.files[speechFile(r, Alpha)]
		if !ok {
			break
		}
		plan, hasPlan := d.files[planFile(r)]
		data.Played = append(data.Played, round{N: r, Alpha: strings.TrimSpace(speech), Plan: strings.TrimSpace(plan), HasPlan: hasPlan,
			Beta: strings.TrimSpace(d.files[speechFile(r, Beta)])})
	}
	var b bytes.Buffer
	if err := htmlPage().Execute(&b, data); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// Commands returns trio-rules, which says how a trio debate goes, or what
// one role does.
func (p Protocol) Commands() []sm.Command {
	return []sm.Command{{
		Name:      "trio-rules",
		Usage:     "say how a trio debate goes, or what one of its roles does",
		ArgsUsage: "[ROLE]",
		Run: func(args []string, w io.Writer) error {
			switch len(args) {
			case 0:
				_, err := fmt.Fprintf(w, "%s\n", p.Summary())
				return err
			case 1:
				for _, r := range p.Roles() {
					if r.Name == args[0] {
						_, err := fmt.Fprintf(w, "%s: %s\n", r.Name, r.Description)
						return err
					}
				}
				return fmt.Errorf("trio has no role %q (its roles: alpha, beta, arbiter)", args[0])
			}
			return fmt.Errorf("trio-rules takes at most one role, got %d arguments", len(args))
		},
	}}
}
