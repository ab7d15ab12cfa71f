package cli_test

import (
	"bytes"
	"context"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/moot-dev/moot/internal/cli"
	"github.com/moot-dev/moot/internal/testkit/modeltest"
	"github.com/moot-dev/moot/statemachine/dialectic/dialectictest/sparring"
)

// runMoot runs moot new and then args against baseURL, returning the exit
// code, stdout and stderr of args.
func runMoot(t *testing.T, baseURL string, args ...string) (int, string, string) {
	t.Helper()
	dir := t.TempDir()
	env := map[string]string{"OPENAI_API_KEY": "k", "OPENAI_BASE_URL": baseURL}
	var out, errb bytes.Buffer
	io := cli.IO{Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errb, Now: time.Now,
		Getenv: func(k string) string { return env[k] }, Protocols: withDialectic()}
	if code := cli.Run(context.Background(), []string{"moot", "--dir", dir, "new", "d", "--motion", "M."}, io); code != 0 {
		t.Fatalf("new: exit %d: %s", code, errb.String())
	}
	out.Reset()
	errb.Reset()
	code := cli.Run(context.Background(), append([]string{"moot", "--dir", dir}, args...), io)
	return code, out.String(), errb.String()
}

func TestRetriesAreShown(t *testing.T) {
	tests := []struct {
		name       string
		flags      []string
		wantStderr bool
		wantEvent  bool
	}{
		{"plain", nil, true, false},
		{"json", []string{"--json"}, false, true},
		{"quiet", []string{"--quiet"}, false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			good := sparring.Handler(sparring.Options{})
			var limited atomic.Bool
			srv := modeltest.NewServer(t, func(r modeltest.Request) modeltest.Reply {
				if modeltest.RoleOf(r) == modeltest.Judge && !limited.Swap(true) {
					return modeltest.Reply{Status: 429, RetryAfter: "0", ErrorMessage: "slow down"}
				}
				return good(r)
			})
			code, stdout, stderr := runMoot(t, srv.URL, append([]string{"run", "d"}, tt.flags...)...)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			line := "exchange 0 · judge (gpt-4o-mini): attempt 1 of 5 failed"
			if got := strings.Contains(stderr, line) && strings.Contains(stderr, "429"); got != tt.wantStderr {
				t.Errorf("retry line on stderr: %v, want %v:\n%s", got, tt.wantStderr, stderr)
			}
			if got := strings.Contains(stdout, `"event":"retry"`); got != tt.wantEvent {
				t.Errorf("retry event on stdout: %v, want %v:\n%s", got, tt.wantEvent, stdout)
			}
		})
	}
}

func TestClosedPortFailsFastWithAHint(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	url := "http://" + ln.Addr().String() + "/v1"
	ln.Close()
	start := time.Now()
	code, _, stderr := runMoot(t, url, "run", "d")
	// At once is after one quick retry of each call, where a transient
	// failure has five with a doubling wait: how long that takes is the machine's,
	// logged only.
	t.Logf("moot gave up after %s", time.Since(start))
	if strings.Contains(stderr, "attempt 2 of") {
		t.Errorf("a refused connection was retried more than once:\n%s", stderr)
	}
	if code == 0 || !strings.Contains(stderr, "is the server running?") || !strings.Contains(stderr, "OPENAI_BASE_URL") {
		t.Errorf("exit %d, stderr:\n%s\nwant a failure asking whether the server runs and naming OPENAI_BASE_URL", code, stderr)
	}
}

func TestNarrativeEchoingTheKeyIsMasked(t *testing.T) {
	const key = "sk-test-NARRATIVE-5150"
	good := sparring.Handler(sparring.Options{})
	srv := modeltest.NewServer(t, func(r modeltest.Request) modeltest.Reply {
		if modeltest.RoleOf(r) != "" {
			return good(r)
		}
		return modeltest.Reply{Content: sparring.Narrative + " " + key}
	})
	dir := t.TempDir()
	env := map[string]string{"OPENAI_API_KEY": key, "OPENAI_BASE_URL": srv.URL}
	var out, errb bytes.Buffer
	io := cli.IO{Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errb, Now: time.Now,
		Getenv: func(k string) string { return env[k] }, Protocols: withDialectic()}
	for _, args := range [][]string{{"new", "d", "--motion", "M."}, {"run", "d"}, {"report", "d", "--narrative"}} {
		if code := cli.Run(context.Background(), append([]string{"moot", "--dir", dir}, args...), io); code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, errb.String())
		}
	}
	b, err := os.ReadFile(filepath.Join(dir, "d", "narrative.md"))
	if err != nil || !strings.Contains(string(b), "The proposition framed") {
		t.Fatalf("narrative.md = %q, %v", b, err)
	}
	if strings.Contains(string(b), key) || strings.Contains(out.String()+errb.String(), key) {
		t.Errorf("the key was written: %s", b)
	}
}
