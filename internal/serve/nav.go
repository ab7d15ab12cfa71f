package serve

import (
	"bytes"
	"html/template"
	"net/http"
	"strings"
	"sync"
)

// navStyle is the style of the strip of links on top of every page but
// the index.
const navStyle = "border-bottom:1px solid #ccc;padding:.4rem 1rem;font:14px/1.4 system-ui,sans-serif"

// navTemplate is that strip: its links, and on a live page the place the
// script says how current the page is.
var navTemplate = sync.OnceValue(func() *template.Template {
	return template.Must(template.New("nav").Parse(`{{if .Live}}<nav id="moot-live" style="position:sticky;top:0;background:#f6f6f0;` + navStyle + `">` +
		`{{else}}<nav style="` + navStyle + `">{{end}}` +
		`{{range $i, $l := .Links}}{{if $i}} · {{end}}<a href="{{$l.Href}}">{{$l.Text}}</a>{{end}}` +
		`{{if .Live}} · <span id="moot-now">connecting…</span>{{end}}</nav>`))
})

// navLink is one link of the strip.
type navLink struct{ Href, Text string }

// nav returns the strip of links, live or not.
func nav(live bool, links ...navLink) []byte {
	var b bytes.Buffer
	// The template and its data are moot's own: it cannot fail.
	_ = navTemplate().Execute(&b, struct {
		Live  bool
		Links []navLink
	}{live, links})
	return b.Bytes()
}

// indexLink is the strip's link to the index of every debate.
func indexLink(r *http.Request) navLink {
	return navLink{Href: "/" + tokenQuery(r), Text: "all debates"}
}

// callsLinks is the strip's link to the debate's calls page, none when
// the server has none. The page's address may end without its slash.
func (s *Server) callsLinks(r *http.Request) []navLink {
	if s.o.Calls == nil {
		return nil
	}
	base := strings.TrimSuffix(r.URL.EscapedPath(), "/") + "/"
	return []navLink{{Href: base + "calls" + tokenQuery(r), Text: "every call"}}
}
