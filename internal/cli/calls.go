package cli

import (
	"bytes"
	"fmt"
	"html/template"
	"path/filepath"
	"sort"
	"sync"

	"github.com/moot-dev/moot/internal/driver"
	sm "github.com/moot-dev/moot/statemachine"
	"github.com/moot-dev/moot/store"
)

// callsStyle is the style of the calls page and of each call's page.
const callsStyle = `<style>
body { font: 16px/1.5 system-ui, sans-serif; max-width: 70rem; margin: 0 auto; padding: 0 1rem 2rem; color: #222; }
table { border-collapse: collapse; width: 100%; margin: .5rem 0 1rem; }
th, td { text-align: left; padding: .2rem .5rem; border-bottom: 1px solid #ddd; }
td.n { text-align: right; font-variant-numeric: tabular-nums; }
pre { white-space: pre-wrap; background: #f6f6f0; padding: .6rem; border: 1px solid #ddd; }
details { margin: .3rem 0; }
summary { cursor: pointer; }
dl { display: grid; grid-template-columns: max-content auto; gap: .1rem 1rem; }
dt { color: #777; }
.muted { color: #777; }
.failed { color: #a00; }
</style>`

// callsTemplate is parsed on first use, so that no other command pays
// for it at start.
var callsTemplate = sync.OnceValue(func() *template.Template {
	return template.Must(template.New("calls").Parse(`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>moot: the calls of {{.Name}}</title>
` + callsStyle + `
</head>
<body>
<main>
<h1>The calls of {{.Name}}</h1>
<p class="muted">{{.Protocol}} · {{len .Calls}} model call{{if ne (len .Calls) 1}}s{{end}} in the usage log. Each {{.Unit}} lists its calls, each linked to what it was sent and answered, then the answers its files keep. The prompts of the calls the debate waits for now are below in full.</p>
{{if .Next}}<h2 id="next">Next: {{.NextWhat}}</h2>
{{range .Next}}<details open><summary>{{.Role}}{{if .Model}} on {{.Model}}{{end}} ({{.ID}}) · {{len .Messages}} messages</summary>
{{range .Messages}}<p><strong>{{.Role}}</strong></p><pre>{{.Content}}</pre>
{{end}}</details>
{{end}}{{else if .NextError}}<p class="failed">The next step cannot be shown: {{.NextError}}</p>{{end}}
{{range .Units}}<h2 id="{{$.Unit}}-{{.N}}">{{$.Unit}} {{.N}}</h2>
{{if .Calls}}<table>
<thead><tr><th>#</th><th>time</th><th>role</th><th>model</th><th>prompt</th><th>cached</th><th>completion</th><th>attempts</th><th>seconds</th><th></th><th></th></tr></thead>
<tbody>
{{range .Calls}}<tr id="call-{{.N}}"><td class="n">{{.N}}</td><td>{{.Time}}</td><td>{{.Role}}</td><td>{{.Model}}</td><td class="n">{{.Prompt}}</td><td class="n">{{.Cached}}</td><td class="n">{{.Completion}}</td><td class="n">{{.Attempts}}</td><td class="n">{{.Seconds}}</td><td>{{if .OK}}answered{{else}}<span class="failed">failed</span>{{end}}</td><td>{{if .Kept}}<a href="calls/{{.N}}{{$.Query}}">prompt and answer</a>{{else}}<span class="muted">prompt not kept</span>{{end}}</td></tr>
{{end}}</tbody>
</table>{{end}}
{{range .Answers}}<details id="answer-{{.ID}}"><summary>{{.ID}} · {{.Role}}{{if .Title}} · {{.Title}}{{end}}</summary><pre>{{.Text}}</pre></details>
{{end}}{{end}}
</main>
</body>
</html>
`))
})

type callRow struct {
	N                          int
	Time, Role, Model          string
	Prompt, Cached, Completion int
	Attempts                   int
	Seconds                    string
	OK                         bool
	// Kept is whether the call's transcript was kept.
	Kept bool
}

type answerRow struct {
	ID, Role, Title, Text string
}

type unitRows struct {
	N       int
	Calls   []callRow
	Answers []answerRow
}

// callsPage is moot serve's page of every call of the debate at dir:
// by unit, the calls of the usage log, then the answers the debate's
// files keep (the parts `moot show` lists, or a dialectic debate's
// arguments), and the prompts of the calls it waits for now.
func (a *app) callsPage(dir string, call int, query string) ([]byte, error) {
	d, err := store.Open(dir)
	if err != nil {
		return nil, err
	}
	defer d.Close()
	p, deb, err := a.readChecked(d, "serve")
	if err != nil {
		return nil, err
	}
	lines, err := driver.ReadUsageLines(d)
	if err != nil {
		return nil, fmt.Errorf("read usage log: %w", err)
	}
	if call > 0 {
		return callPage(d, deb, lines, call)
	}
	st := deb.Status()
	data := struct {
		Name, Protocol, Unit string
		Calls                []driver.Usage
		Units                []*unitRows
		Next                 []sm.Call
		NextWhat, NextError  string
		Query                template.URL
	}{Name: filepath.Base(dir), Protocol: p.Name(), Unit: st.Unit, Calls: lines, Query: template.URL(query)}
	units := map[int]*unitRows{}
	unit := func(n int) *unitRows {
		if units[n] == nil {
			units[n] = &unitRows{N: n}
		}
		return units[n]
	}
	for i, u := range lines {
		row := callRow{N: i + 1, Time: u.Time, Role: u.Role, Model: u.Model, Prompt: u.PromptTokens, Cached: u.CachedTokens,
			Completion: u.CompletionTokens, Attempts: u.Attempts, Seconds: fmt.Sprintf("%.1f", u.Seconds), OK: u.OK, Kept: u.Transcript != ""}
		unit(u.Exchange).Calls = append(unit(u.Exchange).Calls, row)
	}
	if sh, ok := deb.(sm.Shower); ok {
		for _, pt := range sh.Parts() {
			text, _ := sh.Show(pt.ID)
			unit(pt.Unit).Answers = append(unit(pt.Unit).Answers, answerRow{ID: pt.ID, Role: pt.Role, Title: pt.Title, Text: text})
		}
	}
	for _, u := range units {
		data.Units = append(data.Units, u)
	}
	sort.Slice(data.Units, func(i, j int) bool { return data.Units[i].N < data.Units[j].N })
	if !st.Complete {
		step, err := deb.Next()
		switch {
		case err != nil:
			data.NextError = err.Error()
		case step != nil:
			data.Next, data.NextWhat = step.Calls, st.Next
		}
	}
	var b bytes.Buffer
	if err := callsTemplate().Execute(&b, data); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}
