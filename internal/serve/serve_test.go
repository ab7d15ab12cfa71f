package serve

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// debate writes a debate folder with the given motion under root.
func debate(t *testing.T, root, slug, motion string) string {
	t.Helper()
	dir := filepath.Join(root, slug)
	if err := os.MkdirAll(filepath.Join(dir, ".moot"), 0o755); err != nil {
		t.Fatal(err)
	}
	state := "{\n  \"debate_id\": \"" + slug + "\"\n}\n\n# Motion\n\n" + motion + "\n"
	if err := os.WriteFile(filepath.Join(dir, "debate.md"), []byte(state), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// fakeReport is a report page naming the debate and its state file's
// size, escaped as the real report escapes.
func fakeReport(dir string) ([]byte, error) {
	data, err := os.ReadFile(filepath.Join(dir, "debate.md"))
	if err != nil {
		return nil, err
	}
	return []byte("<!DOCTYPE html><html><head><meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'\"><title>r</title></head><body>\n<main><p>report of " + filepath.Base(dir) + ", " + strconv.Itoa(len(data)) + " bytes</p></main>\n</body></html>\n"), nil
}

func newServer(t *testing.T, token string) (*Server, string) {
	t.Helper()
	root := t.TempDir()
	debate(t, root, "sugar-tax", "This house would tax <script>window.pwned=1</script> sugar & salt.")
	debate(t, root, "libraries", "This house would open libraries all night.")
	// Not debates: a folder without debate.md, a hidden one, a bad slug,
	// and a link to a debate elsewhere.
	os.MkdirAll(filepath.Join(root, "empty"), 0o755)
	debate(t, root, ".hidden", "hidden")
	debate(t, root, "Upper", "upper")
	outside := debate(t, t.TempDir(), "outside", "secret outside the root")
	os.Symlink(outside, filepath.Join(root, "linked"))
	s := New(Options{Root: root, Token: token, Report: fakeReport})
	t.Cleanup(s.Close)
	return s, root
}

func get(t *testing.T, h http.Handler, target string, header ...string) *httptest.ResponseRecorder {
	t.Helper()
	req := httptest.NewRequest(http.MethodGet, target, nil)
	req.Host = "127.0.0.1:8080"
	for i := 0; i+1 < len(header); i += 2 {
		if header[i] == "Host" {
			req.Host = header[i+1]
			continue
		}
		req.Header.Set(header[i], header[i+1])
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, req)
	return w
}

func TestIndex(t *testing.T) {
	s, _ := newServer(t, "")
	w := get(t, s, "/")
	if w.Code != http.StatusOK {
		t.Fatalf("status %d: %s", w.Code, w.Body)
	}
	body := w.Body.String()
	for _, want := range []string{
		`<a href="/debates/sugar-tax/">sugar-tax</a>`,
		`<a href="/debates/libraries/">libraries</a>`,
		"This house would tax &lt;script&gt;window.pwned=1&lt;/script&gt; sugar &amp; salt.",
		"This house would open libraries all night.",
	} {
		if !strings.Contains(body, want) {
			t.Errorf("the index lacks %q:\n%s", want, body)
		}
	}
	for _, bad := range []string{"<script", "hidden", "Upper", "empty", "linked", "secret outside"} {
		if strings.Contains(body, bad) {
			t.Errorf("the index holds %q:\n%s", bad, body)
		}
	}
	if csp := w.Header().Get("Content-Security-Policy"); !strings.Contains(csp, "default-src 'none'") {
		t.Errorf("Content-Security-Policy %q", csp)
	}
}

func TestDebatePage(t *testing.T) {
	s, _ := newServer(t, "")
	w := get(t, s, "/debates/sugar-tax/")
	if w.Code != http.StatusOK {
		t.Fatalf("status %d: %s", w.Code, w.Body)
	}
	body := w.Body.String()
	for _, want := range []string{"report of sugar-tax", `id="moot-live"`, "EventSource", `<script>`} {
		if !strings.Contains(body, want) {
			t.Fatalf("the page lacks %q:\n%s", want, body)
		}
	}
	// The page's one script is allowed by its hash, and nothing else is.
	csp := w.Header().Get("Content-Security-Policy")
	script := body[strings.Index(body, `<script>`)+len(`<script>`):]
	script = script[:strings.Index(script, `</script>`)]
	sum := sha256.Sum256([]byte(script))
	if want := "script-src 'sha256-" + base64.StdEncoding.EncodeToString(sum[:]) + "';"; !strings.Contains(csp, want) {
		t.Errorf("Content-Security-Policy %q does not allow only the page's script (%s)", csp, want)
	}
	if strings.Count(body, "<script") != 1 {
		t.Errorf("the page has more than its one script:\n%s", body)
	}
	if strings.Contains(body, `http-equiv="Content-Security-Policy"`) {
		t.Errorf("the page keeps the report's own policy, which would block its script:\n%s", body)
	}
	if w := get(t, s, "/debates/sugar-tax/report"); w.Code != http.StatusOK || strings.Contains(w.Body.String(), "<script") {
		t.Errorf("report: status %d, body:\n%s", w.Code, w.Body)
	}
	if w := get(t, s, "/debates/sugar-tax/live"); w.Code != http.StatusOK || strings.TrimSpace(w.Body.String()) != "null" {
		t.Errorf("live without a run: status %d, body %q", w.Code, w.Body)
	}
}

func TestNotFound(t *testing.T) {
	s, _ := newServer(t, "")
	for _, target := range []string{
		"/debates/nope/",
		"/debates/empty/",
		"/debates/Upper/",
		"/debates/.hidden/",
		"/debates/linked/",
		"/debates/sugar-tax/nope",
		"/nope",
		"/debates/",
		"/debates/../../etc/passwd",
		"/debates/..%2f..%2fetc%2fpasswd/",
		"/debates/%2e%2e/",
		"/debates/sugar-tax%2f..%2f..%2fx/",
		"/debates/sugar-tax/../../outside/",
	} {
		t.Run(target, func(t *testing.T) {
			w := get(t, s, target)
			if w.Code != http.StatusNotFound {
				t.Errorf("status %d, want 404: %s", w.Code, w.Body)
			}
			if strings.Contains(w.Body.String(), "secret") || strings.Contains(w.Body.String(), "root:") {
				t.Errorf("the answer leaks: %s", w.Body)
			}
		})
	}
}

func TestToken(t *testing.T) {
	s, _ := newServer(t, "s3cret-token")
	for _, tc := range []struct {
		name   string
		target string
		header []string
		want   int
	}{
		{"no token", "/", nil, http.StatusUnauthorized},
		{"no token on a debate", "/debates/sugar-tax/", nil, http.StatusUnauthorized},
		{"no token on the events", "/debates/sugar-tax/events", nil, http.StatusUnauthorized},
		{"wrong token", "/?token=guess", nil, http.StatusForbidden},
		{"a prefix of the token", "/?token=s3cret", nil, http.StatusForbidden},
		{"wrong bearer", "/", []string{"Authorization", "Bearer guess"}, http.StatusForbidden},
		{"token in the query", "/?token=s3cret-token", nil, http.StatusOK},
		{"bearer", "/debates/sugar-tax/", []string{"Authorization", "Bearer s3cret-token"}, http.StatusOK},
		{"unknown slug with the token", "/debates/nope/?token=s3cret-token", nil, http.StatusNotFound},
		{"any host with the token", "/?token=s3cret-token", []string{"Host", "example.com"}, http.StatusOK},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := get(t, s, tc.target, tc.header...)
			if w.Code != tc.want {
				t.Errorf("status %d, want %d: %s", w.Code, tc.want, w.Body)
			}
			if w.Code >= 400 && strings.Contains(w.Body.String(), "sugar") {
				t.Errorf("a refusal shows the debates: %s", w.Body)
			}
		})
	}
	// The index passes the token on to its links.
	if w := get(t, s, "/?token=s3cret-token"); !strings.Contains(w.Body.String(), `href="/debates/sugar-tax/?token=s3cret-token"`) {
		t.Errorf("the index's links lose the token:\n%s", w.Body)
	}
}

func TestHostAndMethod(t *testing.T) {
	s, _ := newServer(t, "")
	for _, tc := range []struct {
		host string
		want int
	}{
		{"127.0.0.1:8080", http.StatusOK},
		{"localhost:8080", http.StatusOK},
		{"[::1]:8080", http.StatusOK},
		{"evil.example:8080", http.StatusForbidden},
	} {
		if w := get(t, s, "/", "Host", tc.host); w.Code != tc.want {
			t.Errorf("Host %s: status %d, want %d", tc.host, w.Code, tc.want)
		}
	}
	req := httptest.NewRequest(http.MethodPost, "/debates/sugar-tax/", strings.NewReader("x"))
	req.Host = "localhost"
	w := httptest.NewRecorder()
	s.ServeHTTP(w, req)
	if w.Code != http.StatusMethodNotAllowed {
		t.Errorf("POST: status %d, want 405", w.Code)
	}
}

// eventStream opens the event stream at url and returns its events, each
// its name and data, until the test ends.
func eventStream(t *testing.T, url string) <-chan [2]string {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	t.Cleanup(func() { cancel(); resp.Body.Close() })
	if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Fatalf("Content-Type %q", ct)
	}
	events := make(chan [2]string, 100)
	go func() {
		sc := bufio.NewScanner(resp.Body)
		var name string
		for sc.Scan() {
			line := sc.Text()
			if v, ok := strings.CutPrefix(line, "event: "); ok {
				name = v
			}
			if v, ok := strings.CutPrefix(line, "data: "); ok {
				events <- [2]string{name, v}
			}
		}
		close(events)
	}()
	return events
}

// TestEvents opens the event stream of a debate, then commits a step and
// starts a call by writing the files a run writes, and expects a "step"
// and a "live" event for each within a second.
func TestEvents(t *testing.T) {
	s, root := newServer(t, "")
	srv := httptest.NewServer(s)
	// Closed after the stream, whose cleanup comes later and runs first.
	t.Cleanup(srv.Close)
	dir := filepath.Join(root, "sugar-tax")
	events := eventStream(t, srv.URL+"/debates/sugar-tax/events")
	next := func(want string) string {
		t.Helper()
		deadline := time.After(time.Minute) // a guard only
		for {
			select {
			case e, ok := <-events:
				if !ok {
					t.Fatalf("the stream ended before a %q event", want)
				}
				if e[0] == want {
					return e[1]
				}
			case <-deadline:
				t.Fatalf("no %q event within a minute", want)
			}
		}
	}
	first := next("step")
	if got := next("live"); got != "null" {
		t.Errorf("first live event %q, want null", got)
	}
	// A step commits: the commit mark and the state file change.
	os.WriteFile(filepath.Join(dir, ".moot", "commit"), []byte("abc\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "debate.md"), []byte("{\n  \"debate_id\": \"sugar-tax\"\n}\n\n# Motion\n\nchanged\n"), 0o644)
	if got := next("step"); got == first {
		t.Errorf("the step event after a commit has the version before it: %s", got)
	}
	// A stale live file (nobody holds the lock) is no run: the event
	// says null or nothing at all, never the dead run's calls.
	// Two commits after it, each with its own size, mark how far the
	// stream has read: the live file is read, after the commit mark, in
	// the pass that sends the first "step", and that pass has sent all
	// it will before the second "step" comes.
	os.WriteFile(filepath.Join(dir, ".moot", "live.json"), []byte(`{"pid":1,"calls":[{"role":"judge"}]}`), 0o644)
	for _, mark := range []string{"abcd\n", "abcde\n"} {
		os.WriteFile(filepath.Join(dir, ".moot", "commit"), []byte(mark), 0o644)
		deadline := time.After(time.Minute) // a guard only
	read:
		for {
			select {
			case e, ok := <-events:
				if !ok {
					t.Fatal("the stream ended before the step event of a commit")
				}
				if e[0] == "live" && strings.Contains(e[1], "judge") {
					t.Errorf("a dead run's calls were sent: %v", e)
				}
				if e[0] == "step" {
					break read
				}
			case <-deadline:
				t.Fatal("no step event within a minute of a commit")
			}
		}
	}
	// Close ends the stream.
	s.Close()
	deadline := time.After(time.Minute) // a guard only
	for {
		select {
		case _, ok := <-events:
			if !ok {
				return
			}
		case <-deadline:
			t.Fatal("Close did not end the event stream")
		}
	}
}

// TestOneDebateFailsAlone: a debate whose report fails, even by a panic,
// answers 500 for itself alone; the server goes on serving every other
// debate and the index.
func TestOneDebateFailsAlone(t *testing.T) {
	root := t.TempDir()
	debate(t, root, "broken", "This house would break.")
	debate(t, root, "fine", "This house would hold.")
	var logged []string
	s := New(Options{Root: root, Logf: func(f string, a ...any) { logged = append(logged, fmt.Sprintf(f, a...)) },
		Report: func(dir string) ([]byte, error) {
			if filepath.Base(dir) == "broken" {
				var slots []int
				_ = slots[len(dir)] // a bug in reading one debate
			}
			return fakeReport(dir)
		}})
	t.Cleanup(s.Close)
	for _, target := range []string{"/debates/broken/", "/debates/broken/report"} {
		if w := get(t, s, target); w.Code != http.StatusInternalServerError || strings.Contains(w.Body.String(), "index out of range") {
			t.Errorf("%s: status %d, want 500 that keeps the panic to the terminal: %s", target, w.Code, w.Body)
		}
	}
	if len(logged) == 0 || !strings.Contains(logged[0], "index out of range") {
		t.Errorf("the terminal was told %q, want the panic", logged)
	}
	for _, target := range []string{"/", "/debates/fine/", "/debates/fine/report"} {
		if w := get(t, s, target); w.Code != http.StatusOK {
			t.Errorf("%s: status %d after another debate failed: %s", target, w.Code, w.Body)
		}
	}
}
