package serve

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/moot-dev/moot/store"
)

// countingServer is a server over one debate, sugar-tax, whose report
// shows debate.md whole and counts how often it is built.
func countingServer(t *testing.T, token string, cacheBytes int64) (*Server, string, *atomic.Int64) {
	t.Helper()
	root := t.TempDir()
	dir := debate(t, root, "sugar-tax", "This house would tax sugar.")
	var builds atomic.Int64
	report := func(dir string) ([]byte, error) {
		builds.Add(1)
		data, err := os.ReadFile(filepath.Join(dir, "debate.md"))
		if err != nil {
			return nil, err
		}
		if strings.Contains(string(data), "BROKEN") {
			return nil, os.ErrInvalid // as check refuses a debate edited wrong
		}
		arg, _ := os.ReadFile(filepath.Join(dir, "arguments", "prop_001.md"))
		return []byte("<html><body><main><pre>" + string(data) + "</pre><p>" + string(arg) + "</p></main></body></html>"), nil
	}
	s := New(Options{Root: root, Token: token, Report: report, CacheBytes: cacheBytes})
	t.Cleanup(s.Close)
	return s, dir, &builds
}

// commitState commits a new debate.md the way a step does: journaled,
// under the debate's lock.
func commitState(t *testing.T, dir, content string) {
	t.Helper()
	d, err := store.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	if err := d.Lock(context.Background(), "test", false); err != nil {
		t.Fatal(err)
	}
	if err := d.Commit([]store.File{{Name: "debate.md", Data: []byte(content)}}); err != nil {
		t.Fatal(err)
	}
}

// TestLockTakenAndLetGoKeepsThePage: a moot process that takes the
// debate's lock and lets it go (as every command that writes does, and a
// commit with it) changes nothing a page shows: the page is not built
// again, and its tag still answers 304.
func TestLockTakenAndLetGoKeepsThePage(t *testing.T) {
	s, dir, builds := countingServer(t, "", 0)
	// A debate that moot wrote has its .moot/ folder already.
	commitState(t, dir, "step one committed\n")
	first := get(t, s, "/debates/sugar-tax/report")
	d, err := store.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := d.Lock(context.Background(), "test", false); err != nil {
		t.Fatal(err)
	}
	if w := get(t, s, "/debates/sugar-tax/report", "If-None-Match", first.Header().Get("ETag")); w.Code != http.StatusNotModified {
		t.Errorf("with the lock taken: status %d, want 304", w.Code)
	}
	d.Close()
	if w := get(t, s, "/debates/sugar-tax/report", "If-None-Match", first.Header().Get("ETag")); w.Code != http.StatusNotModified {
		t.Errorf("with the lock let go: status %d, want 304", w.Code)
	}
	if n := builds.Load(); n != 1 {
		t.Errorf("the page was built %d times, want once", n)
	}
}

func TestPageKeptAndRevalidated(t *testing.T) {
	for _, path := range []string{"/debates/sugar-tax/", "/debates/sugar-tax/report"} {
		t.Run(path, func(t *testing.T) {
			s, _, builds := countingServer(t, "", 0)
			first := get(t, s, path)
			second := get(t, s, path)
			if first.Code != http.StatusOK || second.Code != http.StatusOK {
				t.Fatalf("status %d, %d", first.Code, second.Code)
			}
			if n := builds.Load(); n != 1 {
				t.Errorf("an unchanged debate was built %d times for two requests, want 1", n)
			}
			if first.Body.String() != second.Body.String() {
				t.Errorf("the page kept differs from the page built:\n%s\n%s", first.Body, second.Body)
			}
			tag := second.Header().Get("ETag")
			if tag == "" || tag != first.Header().Get("ETag") {
				t.Fatalf("ETag %q then %q, want one and the same", first.Header().Get("ETag"), tag)
			}
			if cc := second.Header().Get("Cache-Control"); cc != "private, no-cache" {
				t.Errorf("Cache-Control %q, want private, no-cache", cc)
			}
			w := get(t, s, path, "If-None-Match", `"other", `+tag)
			if w.Code != http.StatusNotModified || w.Body.Len() != 0 {
				t.Errorf("If-None-Match with the page's tag: status %d, %d bytes, want 304 and none", w.Code, w.Body.Len())
			}
			if w.Header().Get("ETag") != tag || w.Header().Get("Content-Security-Policy") != second.Header().Get("Content-Security-Policy") {
				t.Errorf("304 headers %v differ from the page's %v", w.Header(), second.Header())
			}
			if w := get(t, s, path, "If-None-Match", `"other"`); w.Code != http.StatusOK || w.Body.String() != second.Body.String() {
				t.Errorf("If-None-Match with another tag: status %d, want the page", w.Code)
			}
			if n := builds.Load(); n != 1 {
				t.Errorf("built %d times, want 1", n)
			}
		})
	}
}

func TestChangedDebateNeverStale(t *testing.T) {
	s, dir, _ := countingServer(t, "", 0)
	state := filepath.Join(dir, "debate.md")
	read := func(what string) (string, string) {
		t.Helper()
		w := get(t, s, "/debates/sugar-tax/")
		if w.Code != http.StatusOK {
			t.Fatalf("%s: status %d: %s", what, w.Code, w.Body)
		}
		return w.Body.String(), w.Header().Get("ETag")
	}
	if err := os.Mkdir(filepath.Join(dir, "arguments"), 0o755); err != nil {
		t.Fatal(err)
	}
	commitState(t, dir, "before\n")
	os.WriteFile(filepath.Join(dir, "arguments", "prop_001.md"), []byte("argument ONE"), 0o644)
	deepEvery := DeepEvery
	t.Cleanup(func() { DeepEvery = deepEvery })
	body, tag := read("first")
	steps := []struct {
		name string
		edit func(t *testing.T) string
	}{
		{"a step committed", func(t *testing.T) string {
			commitState(t, dir, "step one committed\n")
			return "step one committed"
		}},
		{"a file edited by hand, in place, same size", func(t *testing.T) string {
			editInPlace(t, state, "step one EDITED AA\n")
			return "step one EDITED AA"
		}},
		{"a file in a folder edited in place by hand", func(t *testing.T) string {
			// Seen at once when DeepEvery has passed since the page was
			// last checked (made so here, until the page is read);
			// TestInPlaceEditSeenLater waits for it.
			DeepEvery = 0
			editInPlace(t, filepath.Join(dir, "arguments", "prop_001.md"), "argument TWO")
			return "argument TWO"
		}},
		{"a file added", func(t *testing.T) string {
			commitState(t, dir, "step two, with a new file\n")
			os.WriteFile(filepath.Join(dir, "notes.md"), []byte("x"), 0o644)
			return "step two"
		}},
	}
	for _, st := range steps {
		want := st.edit(t)
		newBody, newTag := read(st.name)
		DeepEvery = deepEvery
		if !strings.Contains(newBody, want) {
			t.Errorf("after %s the page is stale:\n%s", st.name, newBody)
		}
		if newTag == tag {
			t.Errorf("after %s the ETag is still %s", st.name, tag)
		}
		if w := get(t, s, "/debates/sugar-tax/", "If-None-Match", tag); w.Code != http.StatusOK {
			t.Errorf("after %s the old tag still answers %d", st.name, w.Code)
		}
		body, tag = newBody, newTag
	}
	_ = body
	// A hand edit that breaks the debate is refused, not answered with
	// the page kept from before it.
	writeInPlace(t, state, "BROKEN by hand\n")
	if w := get(t, s, "/debates/sugar-tax/"); w.Code != http.StatusInternalServerError {
		t.Errorf("a debate broken by hand: status %d, want 500:\n%s", w.Code, w.Body)
	}
	if w := get(t, s, "/debates/sugar-tax/", "If-None-Match", tag); w.Code != http.StatusInternalServerError {
		t.Errorf("a debate broken by hand, with the tag of before: status %d, want 500", w.Code)
	}
}

// editInPlace rewrites name in place until the file system records the
// change (a change time of its own), which is what a hand edit is to a
// reader.
func editInPlace(t *testing.T, name, content string) {
	t.Helper()
	was := changeTime(t, name)
	deadline := time.Now().Add(time.Minute) // a guard
	for changeTime(t, name) == was {
		if time.Now().After(deadline) {
			t.Fatalf("the file system never recorded a new change time for %s", name)
		}
		writeInPlace(t, name, content)
	}
}

func changeTime(t *testing.T, name string) syscall.Timespec {
	t.Helper()
	info, err := os.Stat(name)
	if err != nil {
		t.Fatal(err)
	}
	st, ok := info.Sys().(*syscall.Stat_t)
	if !ok {
		t.Skip("this file system gives no change times")
	}
	return st.Ctim
}

func writeInPlace(t *testing.T, name, content string) {
	t.Helper()
	f, err := os.OpenFile(name, os.O_WRONLY|os.O_TRUNC, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString(content); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

func TestCachedPageAndToken(t *testing.T) {
	const token = "0123456789abcdef0123"
	s, _, builds := countingServer(t, token, 0)
	withQuery := get(t, s, "/debates/sugar-tax/?token="+token)
	withHeader := get(t, s, "/debates/sugar-tax/", "Authorization", "Bearer "+token)
	if withQuery.Code != http.StatusOK || withHeader.Code != http.StatusOK {
		t.Fatalf("status %d, %d", withQuery.Code, withHeader.Code)
	}
	if n := builds.Load(); n != 1 {
		t.Errorf("built %d times for two requests, want 1", n)
	}
	if !strings.Contains(withQuery.Body.String(), `href="/?token=`+token+`"`) {
		t.Errorf("the page asked with ?token has links without it:\n%s", withQuery.Body)
	}
	if strings.Contains(withHeader.Body.String(), token) {
		t.Errorf("the page asked with the header holds the token, kept from a request with it:\n%s", withHeader.Body)
	}
	tq, th := withQuery.Header().Get("ETag"), withHeader.Header().Get("ETag")
	if tq == th {
		t.Errorf("one ETag %s for a page with the token in its links and one without", tq)
	}
	for _, w := range []*httptest.ResponseRecorder{withQuery, withHeader} {
		for k, vs := range w.Header() {
			for _, v := range vs {
				if strings.Contains(v, token) {
					t.Errorf("header %s: %q holds the token", k, v)
				}
			}
		}
	}
	// Kept pages are never answered to a request without the token, nor
	// found unchanged for one.
	for _, c := range []struct {
		target string
		header []string
		want   int
	}{
		{"/debates/sugar-tax/", nil, http.StatusUnauthorized},
		{"/debates/sugar-tax/", []string{"If-None-Match", tq}, http.StatusUnauthorized},
		{"/debates/sugar-tax/?token=wrong-token-0123456789", []string{"If-None-Match", tq}, http.StatusForbidden},
		{"/debates/sugar-tax/report", []string{"If-None-Match", "*"}, http.StatusUnauthorized},
	} {
		w := get(t, s, c.target, c.header...)
		if w.Code != c.want || strings.Contains(w.Body.String(), "sugar") {
			t.Errorf("%s %v: status %d, want %d; body:\n%s", c.target, c.header, w.Code, c.want, w.Body)
		}
	}
	if w := get(t, s, "/debates/sugar-tax/?token="+token, "If-None-Match", tq); w.Code != http.StatusNotModified {
		t.Errorf("with the token and the tag: status %d, want 304", w.Code)
	}
}

func TestCacheBounded(t *testing.T) {
	root := t.TempDir()
	var slugs []string
	for _, slug := range []string{"a", "b", "c", "d"} {
		debate(t, root, slug, "motion "+slug)
		slugs = append(slugs, slug)
	}
	big := strings.Repeat("x", 1000)
	var builds atomic.Int64
	s := New(Options{Root: root, CacheBytes: 2500, Report: func(dir string) ([]byte, error) {
		builds.Add(1)
		return []byte("<html><body>" + big + "</body></html>"), nil
	}})
	t.Cleanup(s.Close)
	for _, slug := range slugs {
		if w := get(t, s, "/debates/"+slug+"/report"); w.Code != http.StatusOK {
			t.Fatalf("%s: status %d", slug, w.Code)
		}
	}
	pages, bytes := s.cache.stats()
	if bytes > 2500 || pages != 2 {
		t.Errorf("after 4 pages of %d bytes under a cap of 2500: %d pages, %d bytes kept", len(big)+27, pages, bytes)
	}
	// The least recently asked went first: d and c are kept.
	n := builds.Load()
	get(t, s, "/debates/d/report")
	get(t, s, "/debates/c/report")
	if builds.Load() != n {
		t.Errorf("the two pages asked last were not kept")
	}
	get(t, s, "/debates/a/report")
	if builds.Load() != n+1 {
		t.Errorf("the page asked first was kept past the cap")
	}
	// A page larger than the cap is answered and not kept.
	s2 := New(Options{Root: root, CacheBytes: 10, Report: fakeReport})
	t.Cleanup(s2.Close)
	if w := get(t, s2, "/debates/a/report"); w.Code != http.StatusOK {
		t.Fatalf("status %d", w.Code)
	}
	if pages, bytes := s2.cache.stats(); pages != 0 || bytes != 0 {
		t.Errorf("a page over the cap was kept: %d pages, %d bytes", pages, bytes)
	}
}

func TestCacheOff(t *testing.T) {
	s, _, builds := countingServer(t, "", -1)
	get(t, s, "/debates/sugar-tax/")
	w := get(t, s, "/debates/sugar-tax/")
	if n := builds.Load(); n != 2 {
		t.Errorf("with the cache off, two requests built %d pages, want 2", n)
	}
	if w.Header().Get("ETag") != "" || w.Header().Get("Cache-Control") != "no-store" {
		t.Errorf("with the cache off: ETag %q, Cache-Control %q", w.Header().Get("ETag"), w.Header().Get("Cache-Control"))
	}
}

func TestConcurrentRequestsBuildOnce(t *testing.T) {
	root := t.TempDir()
	debate(t, root, "a", "motion")
	var builds atomic.Int64
	release := make(chan struct{})
	s := New(Options{Root: root, Report: func(dir string) ([]byte, error) {
		builds.Add(1)
		<-release
		return []byte("<html><body>page</body></html>"), nil
	}})
	t.Cleanup(s.Close)
	var wg sync.WaitGroup
	codes := make([]int, 8)
	for i := range codes {
		wg.Add(1)
		go func() {
			defer wg.Done()
			codes[i] = get(t, s, "/debates/a/report").Code
		}()
	}
	// Every request is let go once the first build is under way.
	deadline := time.Now().Add(time.Minute) // a guard
	for builds.Load() == 0 {
		if time.Now().After(deadline) {
			t.Fatal("no build started")
		}
		time.Sleep(time.Millisecond)
	}
	close(release)
	wg.Wait()
	for i, c := range codes {
		if c != http.StatusOK {
			t.Errorf("request %d: status %d", i, c)
		}
	}
	if n := builds.Load(); n != 1 {
		t.Errorf("8 requests at once for an unchanged page built it %d times, want 1", n)
	}
}

func TestLiveRevalidated(t *testing.T) {
	s, _, _ := countingServer(t, "", 0)
	w := get(t, s, "/debates/sugar-tax/live")
	tag := w.Header().Get("ETag")
	if w.Code != http.StatusOK || tag == "" || strings.TrimSpace(w.Body.String()) != "null" {
		t.Fatalf("live: status %d, ETag %q, body %q", w.Code, tag, w.Body)
	}
	if w := get(t, s, "/debates/sugar-tax/live", "If-None-Match", tag); w.Code != http.StatusNotModified {
		t.Errorf("live with its tag: status %d, want 304", w.Code)
	}
}

func TestInPlaceEditSeenLater(t *testing.T) {
	s, dir, _ := countingServer(t, "", 0)
	os.Mkdir(filepath.Join(dir, "arguments"), 0o755)
	name := filepath.Join(dir, "arguments", "prop_001.md")
	os.WriteFile(name, []byte("argument ONE"), 0o644)
	if w := get(t, s, "/debates/sugar-tax/report"); !strings.Contains(w.Body.String(), "argument ONE") {
		t.Fatalf("status %d:\n%s", w.Code, w.Body)
	}
	writeInPlace(t, name, "argument TWO")
	// Within DeepEvery (a second), however the file system keeps time.
	deadline := time.Now().Add(DeepEvery + time.Minute) // a guard
	for {
		w := get(t, s, "/debates/sugar-tax/report")
		if strings.Contains(w.Body.String(), "argument TWO") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("an argument rewritten in place by hand was never seen:\n%s", w.Body)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// within runs f in its own goroutine and returns its answer, failing the
// test, named by what, when none comes within a minute (a guard: f is
// expected to answer without waiting for anything).
func within(t *testing.T, what string, f func() *httptest.ResponseRecorder) *httptest.ResponseRecorder {
	t.Helper()
	ch := make(chan *httptest.ResponseRecorder, 1)
	go func() { ch <- f() }()
	select {
	case w := <-ch:
		return w
	case <-time.After(time.Minute):
		t.Fatalf("%s: no answer within a minute", what)
		return nil
	}
}

// TestRebuildAnswersThePageBefore: after a commit, the first request to
// see it rebuilds the page and gets the new one; the requests that come
// while that build runs get the page built before, with its own tag (and
// 304 for it), without waiting; ?fresh waits for the build; once it ends
// every request gets the new page, and the old tag is no longer matched.
func TestRebuildAnswersThePageBefore(t *testing.T) {
	root := t.TempDir()
	dir := debate(t, root, "a", "motion")
	started := make(chan struct{}, 1)
	var hold atomic.Pointer[chan struct{}]
	s := New(Options{Root: root, Report: func(dir string) ([]byte, error) {
		data, err := os.ReadFile(filepath.Join(dir, "debate.md"))
		if err != nil {
			return nil, err
		}
		if h := hold.Load(); h != nil {
			started <- struct{}{}
			<-*h
		}
		return []byte("<html><body><main>" + string(data) + "</main></body></html>"), nil
	}})
	t.Cleanup(s.Close)
	const path = "/debates/a/report"
	first := get(t, s, path)
	oldTag := first.Header().Get("ETag")
	if first.Code != http.StatusOK || oldTag == "" || !strings.Contains(first.Body.String(), "motion") {
		t.Fatalf("first: status %d, tag %q:\n%s", first.Code, oldTag, first.Body)
	}
	release := make(chan struct{})
	hold.Store(&release)
	commitState(t, dir, "step one committed\n")
	builder := make(chan *httptest.ResponseRecorder, 1)
	go func() { builder <- get(t, s, path) }()
	select {
	case <-started:
	case <-time.After(time.Minute): // a guard
		t.Fatal("the request after the commit never started a build")
	}
	hold.Store(nil)
	during := within(t, "a request while the page is rebuilt", func() *httptest.ResponseRecorder { return get(t, s, path) })
	if during.Code != http.StatusOK || during.Body.String() != first.Body.String() || during.Header().Get("ETag") != oldTag {
		t.Errorf("while the page is rebuilt: status %d, tag %q, want the page before with %q:\n%s", during.Code, during.Header().Get("ETag"), oldTag, during.Body)
	}
	if w := within(t, "a revalidation while the page is rebuilt", func() *httptest.ResponseRecorder {
		return get(t, s, path, "If-None-Match", oldTag)
	}); w.Code != http.StatusNotModified {
		t.Errorf("the tag of the page before, while the page is rebuilt: status %d, want 304", w.Code)
	}
	fresh := make(chan *httptest.ResponseRecorder, 1)
	go func() { fresh <- get(t, s, path+"?fresh") }()
	deadline := time.Now().Add(time.Minute) // a guard
	for s.cache.waited() == 0 {
		if time.Now().After(deadline) {
			t.Fatal("the ?fresh request never waited for the build")
		}
		time.Sleep(time.Millisecond)
	}
	close(release)
	for name, ch := range map[string]chan *httptest.ResponseRecorder{"the request that rebuilt": builder, "?fresh": fresh} {
		w := <-ch
		if w.Code != http.StatusOK || !strings.Contains(w.Body.String(), "step one committed") || w.Header().Get("ETag") == oldTag {
			t.Errorf("%s: status %d, tag %q (before: %q), want the new page:\n%s", name, w.Code, w.Header().Get("ETag"), oldTag, w.Body)
		}
	}
	after := get(t, s, path, "If-None-Match", oldTag)
	if after.Code != http.StatusOK || !strings.Contains(after.Body.String(), "step one committed") {
		t.Errorf("after the build, with the old tag: status %d, want the new page:\n%s", after.Code, after.Body)
	}
}

// TestStepToldAfterItsReportIsBuilt: the event stream tells of a new
// step only once the step's report is built, so the page's fetch that
// follows finds it built, and new.
func TestStepToldAfterItsReportIsBuilt(t *testing.T) {
	s, dir, builds := countingServer(t, "", 0)
	srv := httptest.NewServer(s)
	// Closed after the stream, whose cleanup comes later and runs first.
	t.Cleanup(srv.Close)
	events := eventStream(t, srv.URL+"/debates/sugar-tax/events")
	step := func(what string) string {
		t.Helper()
		deadline := time.After(time.Minute) // a guard
		for {
			select {
			case e, ok := <-events:
				if !ok {
					t.Fatalf("the stream ended before %s", what)
				}
				if e[0] == "step" {
					return e[1]
				}
			case <-deadline:
				t.Fatalf("no step event within a minute: %s", what)
			}
		}
	}
	step("the first")
	if n := builds.Load(); n != 0 {
		t.Errorf("opening the stream built %d pages, want none", n)
	}
	commitState(t, dir, "step one committed\n")
	// The stream may tell of the commit half done too: the step that
	// counts is the commit's last.
	want := `{"version":"` + stepVersion(dir) + `"}`
	for step("the commit's") != want {
		// Told of the commit half done: wait for its last step.
	}
	n := builds.Load()
	if n == 0 {
		t.Errorf("when the step was told, no report was built")
	}
	w := get(t, s, "/debates/sugar-tax/report?fresh")
	if w.Code != http.StatusOK || !strings.Contains(w.Body.String(), "step one committed") {
		t.Errorf("the report after the step event: status %d:\n%s", w.Code, w.Body)
	}
	if builds.Load() != n {
		t.Errorf("the report fetched after the step event was built again")
	}
}

// TestTagsNameOnePage: while steps commit and requests come at once, a
// tag is only ever sent with one page, a 304 only for a tag that page
// had, and once the commits stop the next request gets the last one.
func TestTagsNameOnePage(t *testing.T) {
	s, dir, _ := countingServer(t, "", 0)
	const steps = 30
	var mu sync.Mutex
	pages := map[string]string{} // tag -> body
	var wg sync.WaitGroup
	stop := make(chan struct{})
	for c := 0; c < 6; c++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			tag := ""
			for {
				select {
				case <-stop:
					return
				default:
				}
				path := "/debates/sugar-tax/report"
				if c%2 == 1 {
					path = "/debates/sugar-tax/"
				}
				w := get(t, s, path, "If-None-Match", tag)
				mu.Lock()
				switch w.Code {
				case http.StatusOK:
					got := w.Header().Get("ETag")
					if was, ok := pages[got]; ok && was != w.Body.String() {
						t.Errorf("tag %s sent with two pages:\n%s\n%s", got, was, w.Body)
					}
					pages[got] = w.Body.String()
					tag = got
				case http.StatusNotModified:
					if w.Header().Get("ETag") != tag {
						t.Errorf("304 with tag %s for a request that sent %s", w.Header().Get("ETag"), tag)
					}
				default:
					t.Errorf("status %d: %s", w.Code, w.Body)
				}
				mu.Unlock()
			}
		}()
	}
	for i := 1; i <= steps; i++ {
		commitState(t, dir, "step "+strconv.Itoa(i)+" committed\n")
	}
	close(stop)
	wg.Wait()
	last := "step " + strconv.Itoa(steps) + " committed"
	for _, path := range []string{"/debates/sugar-tax/report", "/debates/sugar-tax/"} {
		if w := get(t, s, path); !strings.Contains(w.Body.String(), last) {
			t.Errorf("%s after the last commit: status %d, want %q:\n%s", path, w.Code, last, w.Body)
		}
	}
}

// TestCommitDuringBuildKeepsNoOldTag: a step committed while a page is
// built makes the page newer than the files its tag was taken of, so the
// page goes without that tag, which a browser may hold with the older
// page (here from before the page was dropped for the cap): never a 304
// for a debate that changed.
func TestCommitDuringBuildKeepsNoOldTag(t *testing.T) {
	root := t.TempDir()
	debate(t, root, "a", "motion")
	debate(t, root, "b", "another motion")
	var commit atomic.Bool
	s := New(Options{Root: root, CacheBytes: 150, Report: func(dir string) ([]byte, error) {
		if filepath.Base(dir) == "a" && commit.CompareAndSwap(true, false) {
			commitState(t, dir, "step one committed\n")
		}
		data, err := os.ReadFile(filepath.Join(dir, "debate.md"))
		if err != nil {
			return nil, err
		}
		return []byte("<html><body><main>" + string(data) + "</main></body></html>"), nil
	}})
	t.Cleanup(s.Close)
	const path = "/debates/a/report"
	first := get(t, s, path)
	oldTag := first.Header().Get("ETag")
	if first.Code != http.StatusOK || oldTag == "" {
		t.Fatalf("first: status %d, tag %q:\n%s", first.Code, oldTag, first.Body)
	}
	// b's page drops a's, whose next build sees a step commit.
	if w := get(t, s, "/debates/b/report"); w.Code != http.StatusOK {
		t.Fatalf("b: status %d", w.Code)
	}
	if pages, _ := s.cache.stats(); pages != 1 {
		t.Fatalf("%d pages kept, want b's alone", pages)
	}
	commit.Store(true)
	w := get(t, s, path, "If-None-Match", oldTag)
	if w.Code != http.StatusOK || !strings.Contains(w.Body.String(), "step one committed") {
		t.Fatalf("a browser holding the page before the commit, tag %s: status %d (tag %q), want the new page:\n%s", oldTag, w.Code, w.Header().Get("ETag"), w.Body)
	}
	if tag := w.Header().Get("ETag"); tag == oldTag {
		t.Errorf("the new page sent with the old page's tag %s", tag)
	}
	again := get(t, s, path)
	if again.Code != http.StatusOK || !strings.Contains(again.Body.String(), "step one committed") || again.Header().Get("ETag") == "" || again.Header().Get("ETag") == oldTag {
		t.Errorf("the next request: status %d, tag %q (old %q), want the new page with a new tag:\n%s", again.Code, again.Header().Get("ETag"), oldTag, again.Body)
	}
}

// TestTagsOfAnotherServer: a server's tags name its own pages, so a
// browser holding a page from a server started before over the same root,
// which may have built it otherwise (another moot, other --prices), gets
// the page this one builds, not 304.
func TestTagsOfAnotherServer(t *testing.T) {
	root := t.TempDir()
	debate(t, root, "a", "motion")
	serve := func(cost string) *Server {
		s := New(Options{Root: root, Report: func(dir string) ([]byte, error) {
			return []byte("<html><body><main>cost " + cost + "</main></body></html>"), nil
		}})
		t.Cleanup(s.Close)
		return s
	}
	const path = "/debates/a/report"
	first := get(t, serve("$1.00"), path)
	tag := first.Header().Get("ETag")
	if first.Code != http.StatusOK || tag == "" {
		t.Fatalf("first server: status %d, tag %q", first.Code, tag)
	}
	s := serve("$2.00")
	if w := get(t, s, path, "If-None-Match", tag); w.Code != http.StatusOK || !strings.Contains(w.Body.String(), "$2.00") {
		t.Errorf("the tag of another server's page: status %d, want this server's page:\n%s", w.Code, w.Body)
	}
	again := get(t, s, path)
	if w := get(t, s, path, "If-None-Match", again.Header().Get("ETag")); w.Code != http.StatusNotModified {
		t.Errorf("this server's own tag: status %d, want 304", w.Code)
	}
}
