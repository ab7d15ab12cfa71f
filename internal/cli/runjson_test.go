package cli_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/moot-dev/moot/internal/cli"
	"github.com/moot-dev/moot/internal/testkit/modeltest"
	"github.com/moot-dev/moot/statemachine/dialectic/dialectictest/sparring"
)

// runEvents runs moot with args against a server answering with h and
// returns the exit code and the JSON events printed on stdout.
func runEvents(t *testing.T, h modeltest.Handler, args ...string) (int, []map[string]any, string) {
	t.Helper()
	srv := modeltest.NewServer(t, h)
	dir := t.TempDir()
	env := map[string]string{"OPENAI_BASE_URL": srv.URL}
	var out, errb bytes.Buffer
	io := cli.IO{Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errb, Now: time.Now,
		Getenv: func(k string) string { return env[k] }, Protocols: withDialectic()}
	if code := cli.Run(context.Background(), []string{"moot", "--dir", dir, "new", "j", "--motion", "This house would stream JSON."}, io); code != 0 {
		t.Fatalf("new: exit %d: %s", code, errb.String())
	}
	out.Reset()
	code := cli.Run(context.Background(), append([]string{"moot", "--dir", dir}, args...), io)
	var events []map[string]any
	for _, line := range strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n") {
		if line == "" {
			continue
		}
		var ev map[string]any
		if err := json.Unmarshal([]byte(line), &ev); err != nil {
			t.Fatalf("stdout line %q is not JSON: %v", line, err)
		}
		events = append(events, ev)
	}
	return code, events, errb.String()
}

// documentedEvents are the events the README's table lists.
var documentedEvents = map[string]bool{"ask": true, "answer": true, "repair": true, "reused": true, "argued": true,
	"scored": true, "rescored": true, "exchange": true, "summary": true, "error": true,
	"chunk": true, "discard": true, "complete": true, "retry": true}

func TestRunJSONExchangeEvent(t *testing.T) {
	code, events, stderr := runEvents(t, sparring.Handler(sparring.Options{}), "run", "j", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var exchange map[string]any
	answers := 0
	for _, ev := range events {
		kind, _ := ev["event"].(string)
		if !documentedEvents[kind] {
			t.Errorf("event %q is not documented", kind)
		}
		switch kind {
		case "exchange":
			exchange = ev
		case "answer":
			answers++
			if ev["tokens"] == nil || ev["seconds"] == nil || ev["role"] == nil {
				t.Errorf("answer event lacks tokens, seconds or role: %v", ev)
			}
		}
	}
	if answers != 3 {
		t.Errorf("%d answer events, want 3 (two debaters, one judge)", answers)
	}
	if exchange == nil {
		t.Fatalf("no exchange event in %v", events)
	}
	ids, _ := exchange["ids"].([]any)
	scores, _ := exchange["scores"].([]any)
	if len(ids) != 6 || len(scores) != 6 || ids[0] != "prop_000a" {
		t.Errorf("exchange event: ids %v, scores %v; want the six openings and their scores", ids, scores)
	}
	sum := 0.0
	for _, s := range scores {
		sum += s.(float64)
	}
	totals, _ := exchange["cumulative_scores"].(map[string]any)
	prop, _ := totals["proposition"].(map[string]any)
	if prop == nil || prop["count"] != 3.0 || sum > 1e-9 || sum < -1e-9 {
		t.Errorf("exchange event: cumulative_scores %v, scores summing to %v", totals, sum)
	}
	if tok, _ := exchange["tokens"].(float64); tok <= 0 {
		t.Errorf("exchange event: tokens %v", exchange["tokens"])
	}
	if calls, _ := exchange["calls"].(float64); calls != 3 {
		t.Errorf("exchange event: calls %v, want 3", exchange["calls"])
	}
	if _, ok := exchange["seconds"].(float64); !ok {
		t.Errorf("exchange event: no seconds")
	}
	if exchange["exchange"] != 0.0 || exchange["message"] == nil {
		t.Errorf("exchange event lost its exchange or message: %v", exchange)
	}
	if last := events[len(events)-1]; last["event"] != "summary" {
		t.Errorf("the last event is %v, want the summary", last["event"])
	}
}

func TestRunJSONError(t *testing.T) {
	good := sparring.Handler(sparring.Options{})
	broken := func(modeltest.Request) modeltest.Reply {
		// Three problems at once: no argument has a claim.
		arg := `{"title": "An Argument Without A Claim", "grounds": [{"source": "s", "content": "c", "relevance": "r"}], "warrant": "w"}`
		return modeltest.Reply{Content: `{"arguments": [` + arg + "," + arg + "," + arg + `]}`}
	}
	notFound := func(modeltest.Request) modeltest.Reply {
		return modeltest.Reply{Status: 404, ErrorMessage: "no such model"}
	}
	for _, tc := range []struct {
		name     string
		h        modeltest.Handler
		args     []string
		code     int
		message  string
		problems int
		roles    []string // the roles the event names, in order
		exchange bool     // the event has an exchange key
	}{
		{"answer refused after every repair", modeltest.ByRole(good, broken, good),
			[]string{"run", "j", "--json", "--repairs", "1"}, 6, "exchange 0: the opposition's answer was refused after every repair", 2,
			[]string{"opposition"}, true},
		{"one model failed", modeltest.ByRole(notFound, good, good),
			[]string{"run", "j", "--json", "--retries", "0"}, 6, "exchange 0: the proposition's model failed", 0,
			[]string{"proposition"}, true},
		{"both answers refused after every repair", modeltest.ByRole(broken, broken, good),
			[]string{"run", "j", "--json", "--repairs", "1"}, 6,
			"exchange 0: both debaters failed: the proposition's answer was refused after every repair; the opposition's answer was refused after every repair", 4,
			[]string{"proposition", "opposition"}, true},
		{"both models failed", notFound,
			[]string{"run", "j", "--json", "--retries", "0"}, 6,
			"exchange 0: both debaters failed: the proposition's model failed; the opposition's model failed", 2,
			[]string{"proposition", "opposition"}, true},
		{"usage, after the debate was read", good, []string{"run", "j", "--json", "--timeout", "0s"}, 2, "--timeout a positive duration", 0, nil, true},
		{"usage, before the debate was read", good, []string{"run", "j", "2", "--until", "3", "--json"}, 2, "not both", 0, nil, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, events, stderr := runEvents(t, tc.h, tc.args...)
			if code != tc.code || len(events) == 0 {
				t.Fatalf("exit %d with %d events, want %d; stderr %s", code, len(events), tc.code, stderr)
			}
			last := events[len(events)-1]
			if last["event"] != "error" || last["code"] != float64(tc.code) {
				t.Fatalf("last event %v, want an error with code %d", last, tc.code)
			}
			msg, _ := last["message"].(string)
			if !strings.Contains(msg, tc.message) {
				t.Errorf("message %q lacks %q", msg, tc.message)
			}
			problems, ok := last["problems"].([]any)
			if !ok || len(problems) < tc.problems {
				t.Errorf("problems %v, want a list of at least %d", last["problems"], tc.problems)
			}
			if tc.problems > 0 && strings.Contains(msg, "\n") {
				t.Errorf("message %q carries the problems too", msg)
			}
			for _, p := range problems {
				if s, _ := p.(string); s == "" || strings.Contains(s, "\n") {
					t.Errorf("problem %q is not one line", p)
				}
			}
			if strings.Contains(msg, "\n") {
				t.Errorf("message %q is not one line", msg)
			}
			var roles []string
			if rs, ok := last["roles"].([]any); ok {
				for _, r := range rs {
					s, _ := r.(string)
					roles = append(roles, s)
				}
			}
			if strings.Join(roles, ",") != strings.Join(tc.roles, ",") {
				t.Errorf("roles %v, want %v", last["roles"], tc.roles)
			}
			if wantRole := len(tc.roles) == 1; wantRole != (last["role"] != nil) || (wantRole && last["role"] != tc.roles[0]) {
				t.Errorf("role %v, want it only when one role failed (%v)", last["role"], tc.roles)
			}
			if len(tc.roles) > 1 {
				// Each problem says whose it is, and every role has one.
				for _, role := range tc.roles {
					found := false
					for _, p := range problems {
						s, _ := p.(string)
						found = found || strings.HasPrefix(s, role+": ")
					}
					if !found {
						t.Errorf("no problem of the %s in %v", role, problems)
					}
				}
			}
			if x, ok := last["exchange"]; ok != tc.exchange || (ok && x != 0.0) {
				t.Errorf("exchange %v (present %v), want present %v and 0", x, ok, tc.exchange)
			}
			for _, ev := range events {
				if ev["event"] == "repair" {
					if ps, ok := ev["problems"].([]any); !ok || len(ps) == 0 {
						t.Errorf("repair event problems %v, want a list", ev["problems"])
					}
				}
			}
		})
	}
}

// TestBothDebatersFailingText checks the text of a step whose debaters
// both failed: the message names both, the hints name every file of
// refused answers kept (and each exists), and a model's hint is given once.
func TestBothDebatersFailingText(t *testing.T) {
	broken := func(modeltest.Request) modeltest.Reply {
		return modeltest.Reply{Content: `{"arguments": [{"title": "No Claim Here"}]}`}
	}
	unauthorized := func(modeltest.Request) modeltest.Reply {
		return modeltest.Reply{Status: 401, ErrorMessage: "bad key"}
	}
	for _, tc := range []struct {
		name  string
		h     modeltest.Handler
		args  []string
		saved bool   // the refused answers of both are kept
		want  string // a hint given exactly once
	}{
		{"both answers refused after every repair", modeltest.ByRole(broken, broken, nil),
			[]string{"step", "j", "--repairs", "1"}, true, "moot: hint: nothing of the failed step was written"},
		{"both models failed", unauthorized,
			[]string{"step", "j", "--retries", "0"}, false, "moot: hint: the server rejected the API key"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, _, stderr := runEvents(t, tc.h, tc.args...)
			if code != 6 {
				t.Fatalf("exit %d, want 6; stderr %s", code, stderr)
			}
			for _, role := range []string{"proposition", "opposition"} {
				if !strings.Contains(stderr, "the "+role+"'s") {
					t.Errorf("stderr does not name the %s:\n%s", role, stderr)
				}
				hint := "moot: hint: the " + role + "'s refused answers are in "
				i := strings.Index(stderr, hint)
				if (i >= 0) != tc.saved {
					t.Errorf("hint %q given %v, want %v:\n%s", hint, i >= 0, tc.saved, stderr)
					continue
				}
				if i >= 0 {
					path, _, _ := strings.Cut(stderr[i+len(hint):], "\n")
					if _, err := os.Stat(path); err != nil {
						t.Errorf("the hint names %s: %v", path, err)
					}
				}
			}
			if n := strings.Count(stderr, tc.want); n != 1 {
				t.Errorf("%q said %d times, want once:\n%s", tc.want, n, stderr)
			}
		})
	}
}

// TestUsageLogWarning checks that a usage log that cannot be written is
// reported in the warning style, and the step still goes ahead.
func TestUsageLogWarning(t *testing.T) {
	srv := modeltest.NewServer(t, sparring.Handler(sparring.Options{}))
	dir := t.TempDir()
	env := map[string]string{"OPENAI_BASE_URL": srv.URL}
	var out, errb bytes.Buffer
	io := cli.IO{Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errb, Now: time.Now,
		Getenv: func(k string) string { return env[k] }, Protocols: withDialectic()}
	if code := cli.Run(context.Background(), []string{"moot", "--dir", dir, "new", "w", "--motion", "M."}, io); code != 0 {
		t.Fatalf("new: exit %d: %s", code, errb.String())
	}
	// A folder where the log should be: appending to it fails.
	if err := os.MkdirAll(filepath.Join(dir, "w", ".moot", "usage.jsonl"), 0o755); err != nil {
		t.Fatal(err)
	}
	errb.Reset()
	if code := cli.Run(context.Background(), []string{"moot", "--dir", dir, "step", "w", "--quiet"}, io); code != 0 {
		t.Fatalf("step: exit %d: %s", code, errb.String())
	}
	lines := strings.Split(strings.TrimSpace(errb.String()), "\n")
	found := false
	for _, l := range lines {
		if strings.Contains(l, "cannot log usage") {
			found = true
			if !strings.HasPrefix(l, "moot: warning: cannot log usage: ") {
				t.Errorf("notice %q is not in the moot: warning: style", l)
			}
		}
	}
	if !found {
		t.Fatalf("no notice of the usage log:\n%s", errb.String())
	}
}

// failingWriter fails the writes whose number (from 1) fail says, and
// keeps the others.
type failingWriter struct {
	n    int
	fail func(n int) bool
	kept bytes.Buffer
}

func (w *failingWriter) Write(p []byte) (int, error) {
	w.n++
	if w.fail(w.n) {
		return 0, errors.New("no space left on device")
	}
	return w.kept.Write(p)
}

// TestRunJSONStdoutFailure checks that run --json whose events cannot all
// be written to stdout fails and says so, even when the step went well and
// the summary was written: a consumer of the stream would otherwise take a
// partial stream for a whole one.
func TestRunJSONStdoutFailure(t *testing.T) {
	notFound := func(modeltest.Request) modeltest.Reply {
		return modeltest.Reply{Status: 404, ErrorMessage: "no such model"}
	}
	good := sparring.Handler(sparring.Options{})
	for _, tc := range []struct {
		name   string
		h      modeltest.Handler
		fail   func(n int) bool
		code   int
		stderr string
	}{
		{"first event", good, func(n int) bool { return n == 1 }, cli.ExitError, "moot: error: write stdout: no space left on device"},
		{"every event of a failed run", modeltest.ByRole(notFound, good, good), func(int) bool { return true }, 6,
			"moot: hint: some JSON events were not written: write stdout: no space left on device"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := modeltest.NewServer(t, tc.h)
			dir := t.TempDir()
			env := map[string]string{"OPENAI_BASE_URL": srv.URL}
			var errb bytes.Buffer
			io := cli.IO{Stdin: strings.NewReader(""), Stdout: &bytes.Buffer{}, Stderr: &errb, Now: time.Now,
				Getenv: func(k string) string { return env[k] }, Protocols: withDialectic()}
			if code := cli.Run(context.Background(), []string{"moot", "--dir", dir, "new", "j", "--motion", "M."}, io); code != 0 {
				t.Fatalf("new: exit %d: %s", code, errb.String())
			}
			out := &failingWriter{fail: tc.fail}
			io.Stdout = out
			code := cli.Run(context.Background(), []string{"moot", "--dir", dir, "step", "j", "--json", "--retries", "0"}, io)
			if code != tc.code || !strings.Contains(errb.String(), tc.stderr) {
				t.Errorf("exit %d, stderr:\n%s\nwant exit %d and %q", code, errb.String(), tc.code, tc.stderr)
			}
		})
	}
}
