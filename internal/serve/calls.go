package serve

import (
	"bytes"
	"html/template"
	"net/http"
	"strings"
)

// callsLink is the strip's link to the debate's calls page, "" when the
// server has none. The page's address may end without its slash.
func (s *Server) callsLink(r *http.Request) string {
	if s.o.Calls == nil {
		return ""
	}
	base := strings.TrimSuffix(r.URL.EscapedPath(), "/") + "/"
	return ` · <a href="` + template.HTMLEscapeString(base+"calls"+tokenQuery(r)) + `">every call</a>`
}

// calls is the debate's page of calls and answers, as Calls writes it.
func (s *Server) calls(w http.ResponseWriter, r *http.Request, dir string) {
	if s.o.Calls == nil {
		http.NotFound(w, r)
		return
	}
	q := template.HTMLEscapeString(tokenQuery(r))
	nav := []byte(`<nav style="border-bottom:1px solid #ccc;padding:.4rem 1rem;font:14px/1.4 system-ui,sans-serif">` +
		`<a href="/` + q + `">all debates</a> · <a href="./` + q + `">the debate</a></nav>`)
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	s.serveBuilt(w, r, dir, "calls", "read the debate's calls", variant(r), nav, func() (page, error) {
		body, err := s.o.Calls(dir)
		if err != nil {
			return page{}, err
		}
		cut := 0
		if i := bytes.Index(body, []byte("<body>")); i >= 0 {
			cut = i + len("<body>")
		}
		return page{body: body, cut: cut, csp: "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"}, nil
	})
}
