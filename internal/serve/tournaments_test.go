package serve

import (
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// tournamentRoot is a root with a debate of its own and a tournament of
// two debates, served with a Describe that names each folder and a
// Leaderboard that names the tournament.
func tournamentRoot(t *testing.T) (*Server, string) {
	t.Helper()
	root := t.TempDir()
	debate(t, root, "own", "A debate of its own.")
	tdir := filepath.Join(root, "tournaments", "cup")
	debate(t, tdir, "m01-r1-a-vs-b", "Cities should ban cars.")
	debate(t, tdir, "m01-r1-b-vs-a", "Cities should ban cars.")
	if err := os.WriteFile(filepath.Join(tdir, "tournament.md"), []byte("{}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// Not served: a tournament folder without its plan, a link to a
	// debate elsewhere, a bad slug.
	debate(t, filepath.Join(root, "tournaments", "noplan"), "x", "no plan")
	outside := debate(t, t.TempDir(), "outside", "secret outside the root")
	os.Symlink(outside, filepath.Join(tdir, "linked"))
	debate(t, tdir, "Upper", "upper")
	s := New(Options{Root: root, Report: fakeReport,
		Describe: func(dir string) Summary {
			if _, err := os.Stat(filepath.Join(dir, "tournament.md")); err == nil {
				return Summary{Protocol: "dialectic", State: "2 of 2 debates done", Leader: "a <b>", Cost: "$0.01"}
			}
			return Summary{Protocol: "dialectic", State: "2 of 2 exchanges, ended", Leader: "proposition won by 0.30 in " + filepath.Base(dir), Cost: "unknown", Motion: "M"}
		},
		Leaderboard: func(dir string) ([]byte, error) {
			return []byte("<!DOCTYPE html><html><body><main><h2>Leaderboard</h2><p>of " + filepath.Base(dir) + "</p></main></body></html>"), nil
		},
	})
	t.Cleanup(s.Close)
	return s, root
}

func TestIndexWithTournaments(t *testing.T) {
	s, _ := tournamentRoot(t)
	w := get(t, s, "/")
	if w.Code != http.StatusOK {
		t.Fatalf("status %d: %s", w.Code, w.Body)
	}
	body := w.Body.String()
	for _, want := range []string{
		`<a href="/tournaments/cup/">cup</a></td><td>dialectic</td><td>2 of 2 debates done</td><td>a &lt;b&gt;</td><td>$0.01</td>`,
		`<a href="/debates/own/">own</a></td><td></td><td>dialectic</td><td>2 of 2 exchanges, ended</td><td>proposition won by 0.30 in own</td><td>unknown</td><td>M</td>`,
		`<a href="/tournaments/cup/m01-r1-a-vs-b/">m01-r1-a-vs-b</a></td><td>cup</td><td>dialectic</td>`,
		`<a href="/tournaments/cup/m01-r1-b-vs-a/">m01-r1-b-vs-a</a></td><td>cup</td>`,
		"3 debates, 2 of them in 1 tournament.",
	} {
		if !strings.Contains(body, want) {
			t.Errorf("the index lacks %q:\n%s", want, body)
		}
	}
	for _, bad := range []string{"noplan", "linked", "Upper", "secret"} {
		if strings.Contains(body, bad) {
			t.Errorf("the index holds %q:\n%s", bad, body)
		}
	}
}

func TestTournamentRoutes(t *testing.T) {
	s, _ := tournamentRoot(t)
	w := get(t, s, "/tournaments/cup/")
	if w.Code != http.StatusOK || !strings.Contains(w.Body.String(), "<h2>Leaderboard</h2><p>of cup</p>") || !strings.Contains(w.Body.String(), "all debates") {
		t.Errorf("leaderboard: status %d, body:\n%s", w.Code, w.Body)
	}
	if w := get(t, s, "/tournaments/cup?token=t"); w.Code != http.StatusMovedPermanently || w.Header().Get("Location") != "/tournaments/cup/?token=t" {
		t.Errorf("a tournament without its slash: status %d, location %q", w.Code, w.Header().Get("Location"))
	}
	w = get(t, s, "/tournaments/cup/m01-r1-b-vs-a/")
	if w.Code != http.StatusOK || !strings.Contains(w.Body.String(), "report of m01-r1-b-vs-a") || !strings.Contains(w.Body.String(), "EventSource") {
		t.Errorf("a tournament's debate: status %d, body:\n%s", w.Code, w.Body)
	}
	if w := get(t, s, "/tournaments/cup/m01-r1-b-vs-a/live"); w.Code != http.StatusOK || strings.TrimSpace(w.Body.String()) != "null" {
		t.Errorf("live of a tournament's debate: status %d, body %q", w.Code, w.Body)
	}
	for _, target := range []string{
		"/tournaments/",
		"/tournaments/nope/",
		"/tournaments/noplan/",
		"/tournaments/noplan/x/",
		"/tournaments/cup/nope/",
		"/tournaments/cup/linked/",
		"/tournaments/cup/Upper/",
		"/tournaments/cup/m01-r1-a-vs-b/nope",
		"/tournaments/cup/../../own/",
		"/tournaments/cup/..%2f..%2fown/",
		"/tournaments/%2e%2e/cup/",
	} {
		t.Run(target, func(t *testing.T) {
			w := get(t, s, target)
			if w.Code != http.StatusNotFound {
				t.Errorf("status %d, want 404: %s", w.Code, w.Body)
			}
			if strings.Contains(w.Body.String(), "secret") {
				t.Errorf("the answer leaks: %s", w.Body)
			}
		})
	}
}

// Without a Leaderboard, as a caller of an earlier moot, the tournaments
// are not served at all.
func TestNoTournamentsWithoutLeaderboard(t *testing.T) {
	s, root := newServer(t, "")
	debate(t, filepath.Join(root, "tournaments", "cup"), "m01-r1-a-vs-b", "M.")
	os.WriteFile(filepath.Join(root, "tournaments", "cup", "tournament.md"), []byte("{}\n"), 0o644)
	if w := get(t, s, "/tournaments/cup/m01-r1-a-vs-b/"); w.Code != http.StatusNotFound {
		t.Errorf("status %d, want 404", w.Code)
	}
	if w := get(t, s, "/"); strings.Contains(w.Body.String(), "cup") {
		t.Errorf("the index lists the tournament:\n%s", w.Body)
	}
}

// A debate's page links its calls page when the server has one, at the
// debate's own address, the token carried on; the calls page links back.
func TestCallsPage(t *testing.T) {
	root := t.TempDir()
	debate(t, root, "own", "M.")
	debate(t, filepath.Join(root, "tournaments", "cup"), "m01-r1-a-vs-b", "M.")
	os.WriteFile(filepath.Join(root, "tournaments", "cup", "tournament.md"), []byte("{}\n"), 0o644)
	s := New(Options{Root: root, Report: fakeReport, Token: "tok",
		Calls: func(dir string, call int, query string) ([]byte, error) {
			if call > 2 {
				return nil, fmt.Errorf("only 2: %w", ErrNoCall)
			}
			if call > 0 {
				return []byte(fmt.Sprintf("<!DOCTYPE html><html><body><main>call %d of %s, %s</main></body></html>", call, filepath.Base(dir), query)), nil
			}
			return []byte("<!DOCTYPE html><html><body><main>calls of " + filepath.Base(dir) + " <script>x</script></main></body></html>"), nil
		},
		Leaderboard: func(string) ([]byte, error) { return []byte("<html><body></body></html>"), nil },
	})
	t.Cleanup(s.Close)
	for _, tc := range []struct{ page, calls string }{
		{"/debates/own/", "/debates/own/calls"},
		{"/debates/own", "/debates/own/calls"},
		{"/tournaments/cup/m01-r1-a-vs-b/", "/tournaments/cup/m01-r1-a-vs-b/calls"},
	} {
		w := get(t, s, tc.page+"?token=tok")
		if want := `<a href="` + tc.calls + `?token=tok">every call</a>`; !strings.Contains(w.Body.String(), want) {
			t.Errorf("%s lacks %q:\n%s", tc.page, want, w.Body)
		}
		w = get(t, s, tc.calls+"?token=tok")
		body := w.Body.String()
		if w.Code != http.StatusOK || !strings.Contains(body, "calls of "+filepath.Base(strings.TrimSuffix(tc.calls, "/calls"))) ||
			!strings.Contains(body, `<a href="./?token=tok">the debate</a>`) {
			t.Errorf("%s: status %d:\n%s", tc.calls, w.Code, body)
		}
		if csp := w.Header().Get("Content-Security-Policy"); !strings.Contains(csp, "default-src 'none'") || strings.Contains(csp, "script-src") {
			t.Errorf("%s: Content-Security-Policy %q lets a script run", tc.calls, csp)
		}
		// A call's page, at calls/N, is built with the token for its
		// links and links back to the debate and its calls; a call the
		// debate has not made, or a number not written as numbers are,
		// is not found.
		for _, q := range []string{"?token=tok", ""} {
			w = get(t, s, tc.calls+"/2"+q)
			body = w.Body.String()
			if q == "" {
				if w.Code != http.StatusUnauthorized {
					t.Errorf("%s/2 without the token: status %d", tc.calls, w.Code)
				}
				continue
			}
			if w.Code != http.StatusOK || !strings.Contains(body, "call 2 of "+filepath.Base(strings.TrimSuffix(tc.calls, "/calls"))+", ?token=tok") ||
				!strings.Contains(body, `<a href="../?token=tok">the debate</a> · <a href="../calls?token=tok">every call</a>`) {
				t.Errorf("%s/2: status %d:\n%s", tc.calls, w.Code, body)
			}
		}
		for _, bad := range []string{"/3", "/0", "/02", "/-1", "/x", "/2/"} {
			if w := get(t, s, tc.calls+bad+"?token=tok"); w.Code != http.StatusNotFound {
				t.Errorf("%s%s: status %d, want 404", tc.calls, bad, w.Code)
			}
		}
	}
	// Without Calls, no link and no page.
	s2, _ := newServer(t, "")
	if w := get(t, s2, "/debates/sugar-tax/"); strings.Contains(w.Body.String(), "every call") {
		t.Errorf("a link to a calls page the server has not")
	}
	if w := get(t, s2, "/debates/sugar-tax/calls"); w.Code != http.StatusNotFound {
		t.Errorf("calls without Calls: status %d", w.Code)
	}
}
