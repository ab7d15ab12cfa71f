package serve

import (
	"bytes"
	"errors"
	"net/http"
	"strconv"
	"strings"
)

// ErrNoCall is what Options.Calls returns, wrapped, for a call the debate
// has not made: the request answers 404.
var ErrNoCall = errors.New("no such call")

// callNumber reads what, "calls/N" with N a call's number from 1 written
// as numbers are.
func callNumber(what string) (int, bool) {
	rest, ok := strings.CutPrefix(what, "calls/")
	if !ok {
		return 0, false
	}
	n, err := strconv.Atoi(rest)
	if err != nil || n < 1 || strconv.Itoa(n) != rest {
		return 0, false
	}
	return n, true
}

// calls is the debate's page of calls and answers (call 0), or the page
// of one call, as Options.Calls writes them.
func (s *Server) calls(w http.ResponseWriter, r *http.Request, dir string, call int) {
	if s.o.Calls == nil {
		http.NotFound(w, r)
		return
	}
	q := tokenQuery(r)
	links := []navLink{indexLink(r), {Href: "./" + q, Text: "the debate"}}
	if call > 0 {
		links = []navLink{indexLink(r), {Href: "../" + q, Text: "the debate"}, {Href: "../calls" + q, Text: "every call"}}
	}
	nav := nav(false, links...)
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	// The page's links carry the token when the address does, so the
	// two are built and kept apart.
	what := "calls/" + strconv.Itoa(call)
	if tokenQuery(r) != "" {
		what += "?token"
	}
	s.serveBuilt(w, r, dir, what, "read the debate's calls", variant(r), nav, func() (page, error) {
		body, err := s.o.Calls(dir, call, tokenQuery(r))
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
