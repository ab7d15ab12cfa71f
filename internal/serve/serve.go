// Package serve is `moot serve`: a read-only web view of a debates root.
// Its index lists every debate; each debate's page is its HTML report,
// which follows the debate live through Server-Sent Events as steps are
// committed and as calls start and end. It never takes a debate's lock and
// never writes a file.
package serve

import (
	"bytes"
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"html/template"
	"io"
	"net"
	"net/http"
	"net/url"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/moot-dev/moot/internal/live"
	layout "github.com/moot-dev/moot/internal/page"
	"github.com/moot-dev/moot/internal/tournament"
	sm "github.com/moot-dev/moot/statemachine"
	"github.com/moot-dev/moot/store"
)

// Options configure a Server.
type Options struct {
	// Root is the debates root: every folder directly in it that holds a
	// debate.md is a debate.
	Root string
	// Token, when set, must come with every request: ?token=T or the
	// header "Authorization: Bearer T".
	Token string
	// Report returns the HTML report page of the debate at dir, read
	// without the lock.
	Report func(dir string) ([]byte, error)
	// Describe, when set, says of the debate or tournament at dir what the
	// index shows of it: its protocol, state, leader and cost. Without it
	// the index shows each debate's motion alone.
	Describe func(dir string) Summary
	// Leaderboard returns the HTML page of the tournament at dir: its
	// leaderboard, as `moot tournament report --html` writes it. Without
	// it the tournaments are not served.
	Leaderboard func(dir string) ([]byte, error)
	// Calls, when set, returns the page of the debate at dir that lists
	// every call with its answer, linked from the debate's page (call 0),
	// or the page of its call number call (from 1, in the order of its
	// usage log) with what it was sent and answered; an error that is
	// ErrNoCall answers 404. query ("" or "?token=...") is to end every
	// link the page makes to another of them.
	Calls func(dir string, call int, query string) ([]byte, error)
	// Watch follows the debate at dir, calling changed whenever it may
	// have changed, until ctx ends; live.Watch when nil.
	Watch func(ctx context.Context, dir string, changed func()) error
	// Logf, when set, is told of requests that failed on the server's
	// side.
	Logf func(format string, args ...any)
	// HeaderTimeout is how long a request's header may take to arrive,
	// and IdleTimeout how long a kept-alive connection may wait for its
	// next request; DefaultHeaderTimeout and DefaultIdleTimeout when 0.
	HeaderTimeout, IdleTimeout time.Duration
	// CacheBytes caps the bytes of built pages kept in memory, answered
	// again while their debate does not change; DefaultCacheBytes when 0,
	// and none are kept when it is below 0.
	CacheBytes int64
	// MaxStreams caps the event streams open at once, over every debate;
	// DefaultMaxStreams when 0. One more is refused with 503.
	MaxStreams int
}

// The bounds of a Server whose Options leave them 0.
const (
	DefaultHeaderTimeout = 10 * time.Second
	DefaultIdleTimeout   = 30 * time.Second
	DefaultMaxStreams    = 100
	// writeTimeout is how long one write to a reader may block: a page
	// that stops reading its event stream is dropped after it.
	writeTimeout = 30 * time.Second
)

// MinRemoteToken is the fewest characters a token must have when moot
// serve listens on an address that is not loopback.
const MinRemoteToken = 16

// CheckToken says what is wrong with token for a server that listens on
// a loopback address (loopback) or not: none at all is only for
// loopback; a token is never blank and holds no white space or control
// character (a header could not carry it whole); off loopback it has at
// least MinRemoteToken characters.
func CheckToken(token string, loopback bool) error {
	if token == "" {
		if loopback {
			return nil
		}
		return fmt.Errorf("an address that is not loopback needs --token")
	}
	if strings.TrimSpace(token) == "" {
		return fmt.Errorf("--token is blank")
	}
	for _, r := range token {
		switch {
		case unicode.IsSpace(r):
			return fmt.Errorf("--token holds white space (a space, tab or line break), which a header cannot carry whole")
		case unicode.IsControl(r) || r == utf8.RuneError:
			return fmt.Errorf("--token holds a control character or a byte that is not UTF-8")
		}
	}
	if n := utf8.RuneCountInString(token); !loopback && n < MinRemoteToken {
		return fmt.Errorf("--token has %d characters; off loopback it needs at least %d", n, MinRemoteToken)
	}
	return nil
}

// Server is the HTTP handler of moot serve.
type Server struct {
	o Options
	// hub is the one file-system watcher of every event stream, when
	// Options.Watch is not given; streams counts the streams open.
	hub     *live.Hub
	streams atomic.Int64
	// cache keeps built pages; nil when Options.CacheBytes < 0.
	cache *pageCache
	// ctx ends every event stream when the server closes.
	ctx    context.Context
	cancel context.CancelFunc
}

// New returns the server of o.
func New(o Options) *Server {
	var hub *live.Hub
	if o.Watch == nil {
		hub = live.NewHub()
		o.Watch = hub.Watch
	}
	if o.HeaderTimeout <= 0 {
		o.HeaderTimeout = DefaultHeaderTimeout
	}
	if o.IdleTimeout <= 0 {
		o.IdleTimeout = DefaultIdleTimeout
	}
	if o.MaxStreams <= 0 {
		o.MaxStreams = DefaultMaxStreams
	}
	if o.Logf == nil {
		o.Logf = func(string, ...any) {}
	}
	var cache *pageCache
	switch {
	case o.CacheBytes == 0:
		cache = newPageCache(DefaultCacheBytes)
	case o.CacheBytes > 0:
		cache = newPageCache(o.CacheBytes)
	}
	ctx, cancel := context.WithCancel(context.Background())
	return &Server{o: o, hub: hub, cache: cache, ctx: ctx, cancel: cancel}
}

// HTTPServer returns the http.Server that serves s with its bounds: a
// request's header must arrive within HeaderTimeout and a kept-alive
// connection is closed after IdleTimeout without a request, whatever the
// last answer was (a refusal included). It sets no timeout on a whole
// answer, which an event stream would break; each write of a stream has
// its own instead.
func (s *Server) HTTPServer() *http.Server {
	return &http.Server{Handler: s, ReadHeaderTimeout: s.o.HeaderTimeout, IdleTimeout: s.o.IdleTimeout}
}

// Close ends every event stream, those under way and those to come, so
// that http.Server.Shutdown, which waits for the requests under way, can
// finish.
func (s *Server) Close() {
	s.cancel()
	if s.hub != nil {
		s.hub.Close()
	}
}

// Debates lists the slugs of the debates directly in root, in order: the
// folders (not links) with a valid slug for a name that hold a debate.md.
func Debates(root string) ([]string, error) {
	names, err := store.Debates(root, sm.StateFile)
	out := names[:0]
	for _, n := range names {
		if store.ValidSlug(n) {
			out = append(out, n)
		}
	}
	return out, err
}

// ServeHTTP answers a request: the token first, then the route.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h.Set("X-Content-Type-Options", "nosniff")
	// The token may be in the address: never send it on.
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("Cache-Control", "no-store")
	if code := s.authorize(r); code != 0 {
		msg := "this moot serve needs its token: ?token=T or Authorization: Bearer T"
		switch {
		case code == http.StatusUnauthorized:
			h.Set("WWW-Authenticate", `Bearer realm="moot"`)
		case s.o.Token == "":
			msg = "without --token, moot serve answers only requests addressed to localhost or a loopback address"
		}
		http.Error(w, http.StatusText(code)+": "+msg, code)
		return
	}
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		h.Set("Allow", "GET, HEAD")
		http.Error(w, "moot serve is read-only", http.StatusMethodNotAllowed)
		return
	}
	path := r.URL.Path
	if path == "/" {
		s.index(w, r)
		return
	}
	if rest, ok := strings.CutPrefix(path, "/tournaments/"); ok {
		s.tournamentRoute(w, r, rest)
		return
	}
	rest, ok := strings.CutPrefix(path, "/debates/")
	if !ok {
		http.NotFound(w, r)
		return
	}
	slug, what, _ := strings.Cut(rest, "/")
	dir, ok := s.debate(slug)
	if !ok {
		http.NotFound(w, r)
		return
	}
	s.debateRoute(w, r, dir, what)
}

// debateRoute answers the request for what ("" for the page, "report",
// "live" or "events") of the debate at dir.
func (s *Server) debateRoute(w http.ResponseWriter, r *http.Request, dir, what string) {
	// A request that fails in reading one debate, even by a bug of moot's,
	// answers 500 for that debate alone.
	defer func() {
		if v := recover(); v != nil {
			if v == http.ErrAbortHandler {
				panic(v)
			}
			s.fail(w, "read debate "+dir, fmt.Errorf("panic: %v", v))
		}
	}()
	switch what {
	case "":
		s.page(w, r, dir)
	case "report":
		s.report(w, r, dir)
	case "calls":
		s.calls(w, r, dir, 0)
	case "live":
		s.liveJSON(w, r, dir)
	case "events":
		s.events(w, r, dir)
	default:
		if n, ok := callNumber(what); ok {
			s.calls(w, r, dir, n)
			return
		}
		http.NotFound(w, r)
	}
}

// authorize returns 0 when r may be served, else the status that refuses
// it: 401 without a token, 403 with a wrong one. Without a token of its
// own the server answers only requests addressed to a loopback name, so
// that a web page elsewhere cannot reach it by pointing a name of its own
// at 127.0.0.1 (DNS rebinding).
func (s *Server) authorize(r *http.Request) int {
	if s.o.Token == "" {
		host := r.Host
		if h, _, err := net.SplitHostPort(host); err == nil {
			host = h
		}
		host = strings.Trim(host, "[]")
		if ip := net.ParseIP(host); (ip != nil && ip.IsLoopback()) || strings.EqualFold(host, "localhost") {
			return 0
		}
		return http.StatusForbidden
	}
	given := r.URL.Query().Get("token")
	if auth := r.Header.Get("Authorization"); given == "" && auth != "" {
		scheme, value, _ := strings.Cut(auth, " ")
		if strings.EqualFold(scheme, "Bearer") {
			given = strings.TrimSpace(value)
		}
	}
	if strings.TrimSpace(given) == "" || strings.TrimSpace(s.o.Token) == "" {
		// A blank token, given or configured, opens nothing.
		return http.StatusUnauthorized
	}
	// Hashed first, so that the comparison takes the same time whatever
	// the lengths.
	a, b := sha256.Sum256([]byte(given)), sha256.Sum256([]byte(s.o.Token))
	if subtle.ConstantTimeCompare(a[:], b[:]) != 1 {
		return http.StatusForbidden
	}
	return 0
}

// debate returns the folder of the debate slug, when slug names one of
// the debates the root holds now. Nothing of the request becomes a path
// unless it is one of those names.
func (s *Server) debate(slug string) (string, bool) {
	if !store.ValidSlug(slug) || !store.Holds(s.o.Root, slug, sm.StateFile) {
		return "", false
	}
	return filepath.Join(s.o.Root, slug), true
}

// tokenQuery is the query that passes the request's token on to a link.
func tokenQuery(r *http.Request) string {
	if t := r.URL.Query().Get("token"); t != "" {
		return "?token=" + url.QueryEscape(t)
	}
	return ""
}

// indexStyle is what the index needs beyond the shared page's styles: a
// wider column, and tables across it.
const indexStyle template.CSS = `
main { max-width: 80rem; }
table { width: 100%; display: table; margin-bottom: 2rem; }
th, td { text-align: left; }
td.slug { white-space: nowrap; }
.muted { color: #777; }
.error { color: #a00; }
`

// indexPage is the index's body, in the page every report shares. It is
// parsed on first use, so that no other command pays for it at start.
var indexPage = sync.OnceValue(func() *template.Template {
	return template.Must(template.New("index").Parse(`<h1>Debates</h1>
<p class="muted">{{.Root}}: {{len .Debates}} debate{{if ne (len .Debates) 1}}s{{end}}{{if .Tournaments}}, {{.InTournaments}} of them in {{len .Tournaments}} tournament{{if ne (len .Tournaments) 1}}s{{end}}{{end}}. Each debate's page follows it live.</p>
{{if .Tournaments}}<h2>Tournaments</h2>
<table id="tournaments">
<thead><tr><th>tournament</th><th>protocol</th><th>state</th><th>leader</th><th>cost</th></tr></thead>
<tbody>
{{range .Tournaments}}<tr><td class="slug"><a href="{{.Href}}{{$.Query}}">{{.Name}}</a></td>{{template "cells" .}}</tr>
{{end}}</tbody>
</table>
<h2>Debates</h2>
{{end}}{{if .Debates}}<table id="debates">
<thead><tr><th>debate</th>{{if .Tournaments}}<th>tournament</th>{{end}}<th>protocol</th><th>state</th><th>leader</th><th>cost</th><th>motion</th></tr></thead>
<tbody>
{{range .Debates}}<tr><td class="slug"><a href="{{.Href}}{{$.Query}}">{{.Name}}</a></td>{{if $.Tournaments}}<td>{{.Tournament}}</td>{{end}}{{template "cells" .}}<td>{{.Motion}}</td></tr>
{{end}}</tbody>
</table>{{else}}<p>No debates here yet: <code>moot new SLUG --motion "..."</code> makes one.</p>{{end}}
{{define "cells"}}{{if .Error}}<td colspan="4" class="error">unreadable: {{.Error}}</td>{{else}}<td>{{.Protocol}}</td><td>{{.State}}</td><td>{{.Leader}}</td><td>{{.Cost}}</td>{{end}}{{end}}
`))
})

// Summary is what the index shows of a debate or a tournament.
type Summary struct {
	Protocol string
	// State says where it stands: "3 of 3 exchanges, ended".
	State  string
	Leader string
	Cost   string
	Motion string
	// Error says why it cannot be read; the rest is then empty.
	Error string
}

type indexEntry struct {
	Name       string
	Href       string
	Tournament string
	Summary
}

// index lists every debate and every tournament of the root, each debate
// with its motion, and, when Describe is set, with its protocol, state,
// leader and cost.
func (s *Server) index(w http.ResponseWriter, r *http.Request) {
	names, err := Debates(s.o.Root)
	if err != nil {
		s.fail(w, "list the debates", err)
		return
	}
	data := struct {
		Root          string
		Debates       []indexEntry
		Tournaments   []indexEntry
		InTournaments int
		Query         template.URL
	}{Root: s.o.Root, Query: template.URL(tokenQuery(r))}
	for _, n := range names {
		data.Debates = append(data.Debates, s.entry(n, "/debates/"+n+"/", "", filepath.Join(s.o.Root, n)))
	}
	if s.o.Leaderboard != nil {
		ts, err := Tournaments(s.o.Root)
		if err != nil {
			s.fail(w, "list the tournaments", err)
			return
		}
		for _, t := range ts {
			tdir := filepath.Join(s.o.Root, tournament.Dir, t)
			data.Tournaments = append(data.Tournaments, s.entry(t, "/tournaments/"+t+"/", "", tdir))
			inner, err := tournamentDebates(tdir)
			if err != nil {
				s.fail(w, "list the tournament's debates", err)
				return
			}
			for _, n := range inner {
				data.Debates = append(data.Debates, s.entry(n, "/tournaments/"+t+"/"+n+"/", t, filepath.Join(tdir, n)))
				data.InTournaments++
			}
		}
	}
	body, err := layout.Body(indexPage(), data)
	var out []byte
	if err == nil {
		out, err = layout.Page{Title: "moot: debates", Style: indexStyle, Body: body}.HTML()
	}
	if err != nil {
		s.fail(w, "render the index", err)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'")
	w.Write(out)
}

// entry is the index's row of the debate or tournament at dir.
func (s *Server) entry(name, href, tournamentName, dir string) indexEntry {
	e := indexEntry{Name: name, Href: href, Tournament: tournamentName}
	if s.o.Describe != nil {
		e.Summary = s.o.Describe(dir)
		return e
	}
	e.Motion = "(unreadable)"
	if d, err := store.Open(dir); err == nil {
		if state, err := d.ReadFile(sm.StateFile); err == nil {
			e.Motion = live.Motion(state)
		}
		d.Close()
	}
	return e
}

// report is the debate's HTML report page as it stands.
func (s *Server) report(w http.ResponseWriter, r *http.Request, dir string) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	// The page's script asks with ?fresh for the report of a step it was
	// told of: never the one built before it.
	_, fresh := r.URL.Query()["fresh"]
	p, id, err := s.built(dir, "report", fresh, s.reportBuild(dir))
	if err != nil {
		s.fail(w, "read the debate", err)
		return
	}
	if id == "" {
		w.Header().Set("Content-Security-Policy", p.csp)
		w.Write(p.body)
		return
	}
	sendCached(w, r, etag(id, ""), p, nil)
}

// reportBuild builds the debate's report page.
func (s *Server) reportBuild(dir string) func() (page, error) {
	return func() (page, error) {
		body, err := s.o.Report(dir)
		if err != nil {
			return page{}, err
		}
		return page{body: body, csp: reportCSP}, nil
	}
}

// reportCSP is the policy of a report: no script at all.
const reportCSP = "default-src 'none'; style-src 'unsafe-inline'; img-src data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

// page is the report page with a live strip on top and the script that
// keeps it current. The strip, which holds the request's links, is put in
// for each request; the rest is built once for each state of the debate.
func (s *Server) page(w http.ResponseWriter, r *http.Request, dir string) {
	strip := nav(true, append([]navLink{indexLink(r)}, s.callsLinks(r)...)...)
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	s.serveBuilt(w, r, dir, "page", "read the debate", variant(r), strip, func() (page, error) {
		// The version is taken before the report is read: a step
		// committed in between makes the page fetch the report once
		// more, never miss it.
		version := stepVersion(dir)
		body, err := s.o.Report(dir)
		if err != nil {
			return page{}, err
		}
		// The script is allowed by its hash, not by a nonce, so that the
		// same page can be answered again, or found unchanged (304).
		script := strings.Replace(liveScript, "VERSION", version, 1)
		sum := sha256.Sum256([]byte(script))
		body = dropMetaCSP(body)
		body = insertBefore(body, "</body>", []byte(`<script>`+script+`</script>`))
		cut := 0
		if i := bytes.Index(body, []byte("<body>")); i >= 0 {
			cut = i + len("<body>")
		}
		return page{body: body, cut: cut,
			csp: "default-src 'none'; style-src 'unsafe-inline'; img-src data:; script-src 'sha256-" + base64.StdEncoding.EncodeToString(sum[:]) + "'; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"}, nil
	})
}

// serveBuilt answers r with the page what of the debate at dir, made by
// build (failWhat says what a failure could not do), with part (the request's own piece, told by variant) put in:
// from memory while the debate's fingerprint is the one it was built for,
// with an ETag, and 304 to a browser that has it already. A build that
// fails is answered 500 and not kept.
func (s *Server) serveBuilt(w http.ResponseWriter, r *http.Request, dir, what, failWhat, variantOf string, part []byte, build func() (page, error)) {
	p, id, err := s.built(dir, what, false, build)
	if err != nil {
		s.fail(w, failWhat, err)
		return
	}
	if id == "" {
		// No cache, or a debate the file system cannot name: built
		// afresh for every request, as it is answered.
		if p.csp != "" {
			w.Header().Set("Content-Security-Policy", p.csp)
		}
		w.Write(slices.Concat(p.body[:p.cut], part, p.body[p.cut:]))
		return
	}
	sendCached(w, r, etag(id, variantOf), p, part)
}

// built returns the page what of the debate at dir, and the tag that
// names it, this server's salt and the deep fingerprint ("" when it is
// not kept): kept, or made by build. Unless fresh is set, a request that comes while the page is
// rebuilt is answered the page built before.
func (s *Server) built(dir, what string, fresh bool, build func() (page, error)) (page, string, error) {
	if s.cache == nil {
		p, err := build()
		return p, "", err
	}
	id, ok := s.cache.identity(dir)
	if !ok {
		p, err := build()
		return p, "", err
	}
	p, tag, err := s.cache.get(what+"\x00"+dir, id, fresh, func() (string, bool) { return deepFingerprint(dir) }, build)
	if tag != "" {
		tag = s.cache.salt + "." + tag
	}
	return p, tag, err
}

// liveScript follows the event stream: a "live" event names the calls in
// flight, written into the strip as text; a "step" event fetches the
// report again and puts its main part in place of the one shown. The
// token of the page's address goes with both requests.
const liveScript = `
(function () {
  var q = new URLSearchParams(location.search).get("token");
  var suffix = q ? "?token=" + encodeURIComponent(q) : "";
  var base = location.pathname.replace(/\/+$/, "") + "/";
  var now = document.getElementById("moot-now");
  var seen = "VERSION";
  function show(st) {
    if (!st || !st.calls) { now.textContent = "nobody is being asked"; return; }
    if (st.calls.length === 0) { now.textContent = "a run is under way, between calls"; return; }
    var parts = st.calls.map(function (c) {
      var secs = Math.max(0, Math.round((Date.now() - Date.parse(c.started)) / 1000));
      return c.role + (c.model ? " on " + c.model : "") + " (" + secs + " s)";
    });
    now.textContent = "asking now: " + parts.join(", ") + " · " + (st.unit_name || "unit") + " " + st.unit;
  }
  var current = null;
  var failures = 0;
  var latest = 0;
  var connected = false;
  function refresh() {
    // Only the answer to the latest request is shown, so that two steps
    // in a row cannot leave the older report in place.
    var mine = ++latest;
    fetch(base + "report" + (suffix ? suffix + "&" : "?") + "fresh", {cache: "no-cache"}).then(function (r) {
      if (!r.ok) { throw new Error(r.status); }
      return r.text();
    }).then(function (text) {
      if (mine !== latest) { return; }
      var doc = new DOMParser().parseFromString(text, "text/html");
      var fresh = doc.querySelector("main");
      var old = document.querySelector("main");
      if (fresh && old) { old.replaceWith(document.adoptNode(fresh)); }
      document.body.setAttribute("data-moot-version", seen);
      failures = 0;
    }).catch(function () {
      // A report that cannot be read now (a step half applied): again
      // in a second, a few times.
      if (mine === latest && ++failures <= 5) { setTimeout(refresh, 1000); }
    });
  }
  var es = new EventSource(base + "events" + suffix);
  es.addEventListener("live", function (e) { current = JSON.parse(e.data); show(current); });
  es.addEventListener("step", function (e) {
    var v = JSON.parse(e.data).version;
    if (v !== seen) { seen = v; refresh(); }
  });
  es.onopen = function () { connected = true; };
  es.onerror = function () { connected = false; now.textContent = "reconnecting…"; };
  setInterval(function () { if (connected) { show(current); } }, 1000);
})();
`

// liveJSON is the run under way as JSON, null when there is none.
func (s *Server) liveJSON(w http.ResponseWriter, r *http.Request, dir string) {
	st, err := readLive(dir)
	if err != nil {
		s.fail(w, "read the live file", err)
		return
	}
	data, _ := json.Marshal(st)
	data = append(data, '\n')
	// The answer is small and read from one small file: its tag is its
	// sum, so a page that polls gets 304 while nothing changes.
	sum := sha256.Sum256(data)
	w.Header().Set("Content-Type", "application/json")
	sendCached(w, r, `"`+base64.RawURLEncoding.EncodeToString(sum[:15])+`"`, page{body: data}, nil)
}

func readLive(dir string) (*live.State, error) {
	if store.Absent(dir, live.Path) {
		// No run under way: told at one lstat, which a page that polls
		// asks several times a second.
		return nil, nil
	}
	d, err := store.Open(dir)
	if err != nil {
		return nil, err
	}
	defer d.Close()
	return live.Read(d)
}

// stepVersion names the debate's last commit: the identities of its
// commit mark, its state file and its journal, so that it changes with
// every step, whoever wrote it.
func stepVersion(dir string) string {
	sum := store.Signature(dir, store.CommitFile, sm.StateFile, store.JournalFile)
	return base64.RawURLEncoding.EncodeToString(sum[:12])
}

// KeepAlive is how often a quiet event stream gets a comment.
const KeepAlive = 20 * time.Second

// events streams the debate's changes as Server-Sent Events: "step" with
// the version of the last commit whenever it changes, "live" with the run
// under way (null for none) whenever that changes. Both are sent at once
// when the stream opens.
func (s *Server) events(w http.ResponseWriter, r *http.Request, dir string) {
	flusher, ok := w.(http.Flusher)
	if !ok {
		http.Error(w, "streaming is not supported here", http.StatusInternalServerError)
		return
	}
	if n := s.streams.Add(1); n > int64(s.o.MaxStreams) {
		s.streams.Add(-1)
		w.Header().Set("Retry-After", "10")
		http.Error(w, fmt.Sprintf("moot serve has %d event streams open, the most it serves at once; close a page and try again", s.o.MaxStreams), http.StatusServiceUnavailable)
		return
	}
	defer s.streams.Add(-1)
	rc := http.NewResponseController(w)
	defer rc.SetWriteDeadline(time.Time{})
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
	flusher.Flush()
	ctx, cancel := context.WithCancel(r.Context())
	defer cancel()
	go func() {
		select {
		case <-s.ctx.Done():
			cancel()
		case <-ctx.Done():
		}
	}()
	var lastVersion, lastLive string
	var mu sync.Mutex
	write := func(text string) bool {
		mu.Lock()
		defer mu.Unlock()
		// A reader that stops reading is dropped, not waited for.
		_ = rc.SetWriteDeadline(time.Now().Add(writeTimeout))
		if _, err := io.WriteString(w, text); err != nil {
			cancel()
			return false
		}
		flusher.Flush()
		return true
	}
	send := func(event, data string) bool {
		return write("event: " + event + "\ndata: " + data + "\n\n")
	}
	// A comment now and then keeps proxies from closing a quiet stream
	// and tells the server early of a reader that has gone.
	go func() {
		t := time.NewTicker(KeepAlive)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
				write(": keep-alive\n\n")
			}
		}
	}()
	changed := func() {
		if v := stepVersion(dir); v != lastVersion {
			// The report of a new step is built before the step is told
			// of, once for every page that follows the debate, so that
			// their fetches find it built.
			if s.cache != nil && lastVersion != "" {
				_, _, _ = s.built(dir, "report", true, s.reportBuild(dir))
			}
			data, _ := json.Marshal(map[string]string{"version": v})
			if !send("step", string(data)) {
				return
			}
			lastVersion = v
		}
		st, err := readLive(dir)
		if err != nil {
			return // being replaced: the next change reads it
		}
		data, _ := json.Marshal(st)
		if string(data) != lastLive && send("live", string(data)) {
			lastLive = string(data)
		}
	}
	if err := s.o.Watch(ctx, dir, changed); err != nil {
		s.o.Logf("watch %s: %v", dir, err)
	}
}

func (s *Server) fail(w http.ResponseWriter, what string, err error) {
	if errors.Is(err, ErrNoCall) {
		http.Error(w, err.Error(), http.StatusNotFound)
		return
	}
	s.o.Logf("cannot %s: %v", what, err)
	http.Error(w, "cannot "+what+"; moot serve says why on its terminal", http.StatusInternalServerError)
}

// insertAfter puts add after the first mark in page, or at its start.
func insertAfter(page []byte, mark string, add []byte) []byte {
	i := bytes.Index(page, []byte(mark))
	if i < 0 {
		return append(append([]byte(nil), add...), page...)
	}
	i += len(mark)
	return slices.Concat(page[:i], add, page[i:])
}

// insertBefore puts add before the last mark in page, or at its end.
func insertBefore(page []byte, mark string, add []byte) []byte {
	i := bytes.LastIndex(page, []byte(mark))
	if i < 0 {
		return append(append([]byte(nil), page...), add...)
	}
	return slices.Concat(page[:i], add, page[i:])
}

// dropMetaCSP removes the report's own Content-Security-Policy, a meta tag
// in its head that allows no script at all, so that the page's script
// can run: the header that page sends holds the same policy, with that
// one script allowed by its nonce.
func dropMetaCSP(page []byte) []byte {
	head, _, ok := bytes.Cut(page, []byte("<body>"))
	if !ok {
		return page
	}
	const mark = `<meta http-equiv="Content-Security-Policy"`
	i := bytes.Index(head, []byte(mark))
	if i < 0 {
		return page
	}
	end := bytes.IndexByte(head[i:], '>')
	if end < 0 {
		return page
	}
	return slices.Concat(page[:i], page[i+end+1:])
}
