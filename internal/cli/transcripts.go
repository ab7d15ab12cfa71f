package cli

import (
	"bytes"
	"errors"
	"fmt"
	"html/template"
	"io/fs"
	"path/filepath"
	"strings"
	"sync"

	"github.com/moot-dev/moot/internal/driver"
	"github.com/moot-dev/moot/internal/english"
	"github.com/moot-dev/moot/internal/serve"
	sm "github.com/moot-dev/moot/statemachine"
	"github.com/moot-dev/moot/store"
)

// TranscriptsEnv turns off the transcripts of model calls when it says
// off (or 0, false, no): each call's prompt and answer is then not kept
// under .moot/calls/, and moot serve's call pages show only its figures.
const TranscriptsEnv = "MOOT_TRANSCRIPTS"

// noTranscripts reports whether TranscriptsEnv turns the transcripts off.
func (a *app) noTranscripts() bool {
	switch strings.ToLower(strings.TrimSpace(a.io.Getenv(TranscriptsEnv))) {
	case "off", "0", "false", "no":
		return true
	}
	return false
}

// callTemplate is the page of one call, parsed on first use.
var callTemplate = sync.OnceValue(func() *template.Template {
	return template.Must(template.New("call").Parse(`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>moot: call {{.N}} of {{.Name}}</title>
` + callsStyle + `
</head>
<body>
<main>
<h1>Call {{.N}} of {{.Name}}</h1>
<dl>
<dt>{{.Unit}}</dt><dd>{{.U.Exchange}}</dd>
<dt>role</dt><dd>{{.U.Role}}</dd>
<dt>model</dt><dd>{{.U.Model}}{{if .U.Asked}} (asked for {{.U.Asked}}){{end}}</dd>
<dt>time</dt><dd>{{.U.Time}}</dd>
<dt>tokens</dt><dd>{{.U.PromptTokens}} prompt ({{.U.CachedTokens}} cached), {{.U.CompletionTokens}} completion</dd>
<dt>attempts</dt><dd>{{.U.Attempts}} in {{printf "%.1f" .U.Seconds}} s</dd>
<dt>outcome</dt><dd>{{if .U.OK}}answered{{else}}<span class="failed">failed</span>{{end}}</dd>
</dl>
{{with .T}}<h2>Sent</h2>
{{range .Messages}}<p><strong>{{.Role}}</strong>{{if .ToolCallID}} (answering {{.ToolCallID}}){{end}}</p>{{if .Content}}<pre>{{.Content}}</pre>{{end}}
{{range .ToolCalls}}<p>asks for {{.Name}}:</p><pre>{{.Arguments}}</pre>
{{end}}{{end}}{{range $i, $t := .Input}}<p><strong>text {{$i}}</strong> (for embedding)</p><pre>{{$t}}</pre>
{{end}}<h2>Answered</h2>
{{if .Error}}<p class="failed">No answer: {{.Error}}</p>{{else if .Answer}}<pre>{{.Answer}}</pre>{{else}}<p class="muted">{{if $.Embed}}Embeddings, which have no text.{{else}}An empty answer.{{end}}</p>{{end}}
{{else}}<p class="muted">{{.Why}}</p>{{end}}
</main>
</body>
</html>
`))
})

// callPage is moot serve's page of call n (from 1) of the usage log
// lines of the debate in d: its figures, then what it was sent and what
// it answered, as its transcript keeps them.
func callPage(d *store.Dir, deb sm.Debate, lines []driver.Usage, n int) ([]byte, error) {
	if n > len(lines) {
		return nil, fmt.Errorf("%s has made %s: %w", d.Path(), english.Count(len(lines), "model call"), serve.ErrNoCall)
	}
	u := lines[n-1]
	data := struct {
		N          int
		Name, Unit string
		U          driver.Usage
		T          *driver.Transcript
		Why        string
		Embed      bool
	}{N: n, Name: filepath.Base(d.Path()), Unit: deb.Status().Unit, U: u}
	if data.Unit == "" {
		data.Unit = "unit"
	}
	switch {
	case u.Transcript == "":
		data.Why = "What this call was sent and answered was not kept: it was made with " + TranscriptsEnv + "=off, or by a moot that kept none."
	default:
		t, err := driver.ReadTranscript(d, u.Transcript)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			data.Why = fmt.Sprintf("What this call was sent and answered was kept in .moot/%s, which is not here: .moot/.gitignore keeps .moot/calls/ out of git, so a clone of the debate lacks it.", u.Transcript)
		case err != nil:
			data.Why = fmt.Sprintf("What this call was sent and answered cannot be read from .moot/%s: %v", u.Transcript, err)
		default:
			data.T, data.Embed = t, len(t.Input) > 0
		}
	}
	var b bytes.Buffer
	if err := callTemplate().Execute(&b, data); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}
