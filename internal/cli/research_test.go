package cli

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestResearchTest(t *testing.T) {
	const key = "brave-secret-123456"
	mux := http.NewServeMux()
	mux.HandleFunc("/ok/search", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"results":[{"title":"One  result","url":"https://a.example/1","content":"x"}]}`)
	})
	mux.HandleFunc("/down/", func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusServiceUnavailable)
		io.WriteString(w, "no engines; token "+r.Header.Get("X-Subscription-Token"))
	})
	srv := httptest.NewServer(mux)
	defer srv.Close()
	tests := []struct {
		name     string
		env      map[string]string
		code     int
		wantOut  string
		wantErr  string
		notInErr string
	}{
		{"searxng", map[string]string{"MOOT_SEARCH": "searxng:" + srv.URL + "/ok"}, ExitOK, "searxng at " + srv.URL + "/ok answered \"structured debate\" with 1 results\n1. One result\n   https://a.example/1\n", "", ""},
		{"provider down", map[string]string{"MOOT_SEARCH": "searxng:" + srv.URL + "/down"}, ExitModel, "", "searxng at " + srv.URL + "/down answered 503", ""},
		{"brave key masked", map[string]string{"MOOT_SEARCH": "brave:" + srv.URL + "/down", "BRAVE_API_KEY": key}, ExitModel, "", "brave search answered 503: no engines; token ***", key},
		{"brave without key", map[string]string{"MOOT_SEARCH": "brave"}, ExitUsage, "", "set BRAVE_API_KEY", ""},
		{"not configured", nil, ExitUsage, "", "MOOT_SEARCH is not set", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out, errb bytes.Buffer
			code := Run(context.Background(), []string{"moot", "research", "test"}, IO{
				Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errb, Now: time.Now,
				Getenv: func(k string) string { return tt.env[k] }, Protocols: withDialectic(),
			})
			if code != tt.code || out.String() != tt.wantOut || !strings.Contains(errb.String(), tt.wantErr) {
				t.Errorf("exit %d, out %q, err %q; want %d, %q, %q", code, out.String(), errb.String(), tt.code, tt.wantOut, tt.wantErr)
			}
			if tt.notInErr != "" && strings.Contains(errb.String(), tt.notInErr) {
				t.Errorf("the error shows the key: %s", errb.String())
			}
		})
	}
}

func TestRunResearchNeedsProvider(t *testing.T) {
	dir := t.TempDir()
	env := map[string]string{"OPENAI_BASE_URL": "http://127.0.0.1:9/v1"}
	run := func(args ...string) (int, string) {
		var out, errb bytes.Buffer
		code := Run(context.Background(), append([]string{"moot", "--dir", dir}, args...), IO{
			Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errb, Now: time.Now,
			Getenv: func(k string) string { return env[k] }, Protocols: withDialectic(),
		})
		return code, errb.String()
	}
	if code, stderr := run("new", "d", "--motion", "Water boils."); code != 0 {
		t.Fatalf("new: %d %s", code, stderr)
	}
	before, err := os.ReadFile(filepath.Join(dir, "d", "debate.md"))
	if err != nil {
		t.Fatal(err)
	}
	code, stderr := run("run", "d", "--research")
	if code != ExitModel || !strings.Contains(stderr, "MOOT_SEARCH is not set") || !strings.Contains(stderr, "moot research test") {
		t.Errorf("exit %d, stderr %q", code, stderr)
	}
	after, _ := os.ReadFile(filepath.Join(dir, "d", "debate.md"))
	if string(after) != string(before) {
		t.Error("debate.md changed")
	}
}
