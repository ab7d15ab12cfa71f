package serve

import (
	"bytes"
	"net/http"
)

// calls is the debate's page of calls and answers, as Calls writes it.
func (s *Server) calls(w http.ResponseWriter, r *http.Request, dir string) {
	if s.o.Calls == nil {
		http.NotFound(w, r)
		return
	}
	nav := nav(false, indexLink(r), navLink{Href: "./" + tokenQuery(r), Text: "the debate"})
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
