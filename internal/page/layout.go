package page

import (
	"bytes"
	"html/template"
	"sync"
)

// layout is report.html's page, the one every report shares: its head
// (the content policy, which lets nothing be fetched or run, and the
// page's styles) and its main column. It is parsed on first use.
var layout = sync.OnceValue(func() *template.Template {
	return template.Must(template.New("page").Parse(`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src data:">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="generator" content="moot report">
<title>{{.Title}}</title>
<style>{{.CSS}}{{.Style}}</style>
</head>
<body>
<main>
{{.Body}}</main>
</body>
</html>
`))
})

// Page is one report's page: its title, the styles its body needs beyond
// the page's own, and its body, HTML that a template made or Render
// rendered.
type Page struct {
	Title string
	Style template.CSS
	Body  template.HTML
}

// HTML returns the page in the layout every report shares.
func (p Page) HTML() ([]byte, error) {
	var b bytes.Buffer
	err := layout().Execute(&b, struct {
		Page
		CSS template.CSS
	}{p, pageCSS})
	return b.Bytes(), err
}

// Body returns what t, a report's template, makes of data, as the body of
// a Page.
func Body(t *template.Template, data any) (template.HTML, error) {
	var b bytes.Buffer
	if err := t.Execute(&b, data); err != nil {
		return "", err
	}
	// The template escaped every text it was given.
	return template.HTML(b.String()), nil
}
