package serve

import (
	"bufio"
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

// listen serves s's HTTP server (with its timeouts) on a free loopback
// port and returns the address.
func listen(t *testing.T, s *Server) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	hs := s.HTTPServer()
	go hs.Serve(ln)
	t.Cleanup(func() { s.Close(); hs.Close() })
	return ln.Addr().String()
}

// closedByServer waits until the server closes c, and fails naming what
// it waited for when that does not come within a generous guard.
func closedByServer(t *testing.T, c net.Conn, what string) {
	t.Helper()
	c.SetReadDeadline(time.Now().Add(time.Minute))
	_, err := io.Copy(io.Discard, c)
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		t.Errorf("%s: the server kept the connection open", what)
	}
}

// TestIdleConnectionsAreClosed: a keep-alive connection left idle after
// an answer (a refusal included) and a request whose header never ends
// are closed by the server.
func TestIdleConnectionsAreClosed(t *testing.T) {
	// A whole request's header has a minute (a guard: a loaded machine
	// may deliver it after 50 ms, and the server would then close the
	// connection before answering); the header never finished has 50 ms.
	for _, tc := range []struct {
		name, token, request, status string
		header                       time.Duration
	}{
		{"idle after an answer", "", "GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n", "200", time.Minute},
		{"idle after a 401", "0123456789abcdef", "GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n", "401", time.Minute},
		{"a header never finished", "", "GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ", "", 50 * time.Millisecond},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, _ := newServerWith(t, Options{Token: tc.token, IdleTimeout: 50 * time.Millisecond, HeaderTimeout: tc.header})
			c, err := net.Dial("tcp", listen(t, s))
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			if _, err := io.WriteString(c, tc.request); err != nil {
				t.Fatal(err)
			}
			if tc.status != "" {
				c.SetReadDeadline(time.Now().Add(time.Minute)) // a guard
				resp, err := http.ReadResponse(bufio.NewReader(c), nil)
				if err != nil {
					t.Fatal(err)
				}
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				if !strings.HasPrefix(resp.Status, tc.status) || resp.Close {
					t.Fatalf("status %q (close %v), want %s on a kept-alive connection", resp.Status, resp.Close, tc.status)
				}
			}
			closedByServer(t, c, tc.name)
		})
	}
}

// inotifyInstances counts the inotify instances this process holds.
func inotifyInstances(t *testing.T) int {
	t.Helper()
	entries, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Skipf("cannot count inotify instances without /proc/self/fd: %v", err)
	}
	n := 0
	for _, e := range entries {
		if target, err := os.Readlink(filepath.Join("/proc/self/fd", e.Name())); err == nil && target == "anon_inode:inotify" {
			n++
		}
	}
	return n
}

// openStream opens the event stream at url and waits for its first
// "step" event, which is sent once the stream is watched; it returns the
// response, or the refusal.
func openStream(t *testing.T, ctx context.Context, url string) *http.Response {
	t.Helper()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK {
		return resp
	}
	got := make(chan bool, 1)
	go func() {
		sc := bufio.NewScanner(resp.Body)
		for sc.Scan() {
			if sc.Text() == "event: step" {
				got <- true
				return
			}
		}
		got <- false
	}()
	select {
	case ok := <-got:
		if !ok {
			t.Fatal("the stream ended before its first step event")
		}
	case <-time.After(time.Minute):
		t.Fatal("no first step event on a new stream within a minute")
	}
	return resp
}

// TestEventStreamsShareOneWatcher opens many event streams of two
// debates and expects them all to be served by one inotify instance, not
// one each: 128 streams would otherwise take every instance the user may
// have.
func TestEventStreamsShareOneWatcher(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("counts inotify instances, which only Linux has")
	}
	s, _ := newServerWith(t, Options{})
	addr := listen(t, s)
	before := inotifyInstances(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	for i := 0; i < 20; i++ {
		slug := []string{"sugar-tax", "libraries"}[i%2]
		resp := openStream(t, ctx, "http://"+addr+"/debates/"+slug+"/events")
		defer resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("stream %d: status %s", i, resp.Status)
		}
	}
	if n := inotifyInstances(t) - before; n > 1 {
		t.Errorf("20 event streams hold %d inotify instances, want one shared watcher", n)
	}
}

// TestEventStreamsAreCapped: past MaxStreams open streams a new one is
// refused with 503, and a stream that closes makes room again.
func TestEventStreamsAreCapped(t *testing.T) {
	s, _ := newServerWith(t, Options{MaxStreams: 2})
	addr := listen(t, s)
	url := "http://" + addr + "/debates/sugar-tax/events"
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	first, firstCancel := context.WithCancel(ctx)
	a := openStream(t, first, url)
	b := openStream(t, ctx, url)
	defer b.Body.Close()
	if a.StatusCode != http.StatusOK || b.StatusCode != http.StatusOK {
		t.Fatalf("statuses %s, %s, want two streams", a.Status, b.Status)
	}
	over := openStream(t, ctx, url)
	if over.StatusCode == http.StatusOK {
		over.Body.Close()
		t.Fatal("a third stream was opened past MaxStreams 2")
	}
	body, _ := io.ReadAll(over.Body)
	over.Body.Close()
	if over.StatusCode != http.StatusServiceUnavailable || over.Header.Get("Retry-After") == "" || !strings.Contains(string(body), "2 event streams") {
		t.Errorf("a third stream: %s, Retry-After %q, %s; want 503 naming the cap", over.Status, over.Header.Get("Retry-After"), body)
	}
	// The first stream closes: its place is free once the server has
	// seen it go, which the next open waits for.
	firstCancel()
	a.Body.Close()
	deadline := time.Now().Add(time.Minute) // a guard
	for {
		resp := openStream(t, ctx, url)
		if resp.StatusCode == http.StatusOK {
			defer resp.Body.Close()
			break
		}
		resp.Body.Close()
		if time.Now().After(deadline) {
			t.Fatal("a closed stream's place was not freed within a minute")
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestCheckToken(t *testing.T) {
	for _, tc := range []struct {
		name, token string
		loopback    bool
		bad         string
	}{
		{"none on loopback", "", true, ""},
		{"none away", "", false, "needs --token"},
		{"blank", " ", true, "blank"},
		{"blank away", "   ", false, "blank"},
		{"a space inside", "open sesame open sesame", false, "space"},
		{"a control character", "open\x01sesame-open-sesame", false, "control"},
		{"short on loopback", "open-sesame", true, ""},
		{"short away", "open-sesame", false, "at least 16"},
		{"long away", "0123456789abcdef", false, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := CheckToken(tc.token, tc.loopback)
			switch {
			case tc.bad == "" && err != nil:
				t.Errorf("refused: %v", err)
			case tc.bad != "" && (err == nil || !strings.Contains(err.Error(), tc.bad)):
				t.Errorf("error %v, want one saying %q", err, tc.bad)
			}
		})
	}
}

// TestBlankTokenOpensNothing: a server given a blank token (which
// CheckToken refuses, should a caller not ask it) never takes a blank
// one from a request.
func TestBlankTokenOpensNothing(t *testing.T) {
	s, _ := newServerWith(t, Options{Token: " "})
	for _, target := range []string{"/?token=%20", "/?token="} {
		if w := get(t, s, target, "Host", "example.com"); w.Code < 400 {
			t.Errorf("%s: status %d, want a refusal", target, w.Code)
		}
	}
	if w := get(t, s, "/", "Host", "example.com", "Authorization", "Bearer  "); w.Code < 400 {
		t.Errorf("a blank bearer: status %d, want a refusal", w.Code)
	}
}

// newServerWith is newServer with more options: a root of two debates.
func newServerWith(t *testing.T, o Options) (*Server, string) {
	t.Helper()
	root := t.TempDir()
	debate(t, root, "sugar-tax", "This house would tax sugar.")
	debate(t, root, "libraries", "This house would open libraries all night.")
	o.Root, o.Report = root, fakeReport
	s := New(o)
	t.Cleanup(s.Close)
	return s, root
}
