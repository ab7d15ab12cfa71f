package cli_test

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/moot-dev/moot/internal/cli"
	"github.com/moot-dev/moot/internal/testkit/modeltest"
	"github.com/moot-dev/moot/internal/testkit/sparring"
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
		Getenv: func(k string) string { return env[k] }}
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
	"scored": true, "rescored": true, "exchange": true, "summary": true, "error": true}

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
	for _, tc := range []struct {
		name     string
		h        modeltest.Handler
		args     []string
		code     int
		message  string
		problems int
	}{
		{"answer refused after every repair", modeltest.ByRole(good, broken, good),
			[]string{"run", "j", "--json", "--repairs", "1"}, 6, "exchange 0: the opposition's answer was refused after every repair", 2},
		{"model failed", func(modeltest.Request) modeltest.Reply {
			return modeltest.Reply{Status: 404, ErrorMessage: "no such model"}
		},
			[]string{"run", "j", "--json", "--retries", "0"}, 6, "the proposition's model failed", 0},
		{"usage", good, []string{"run", "j", "2", "--until", "3", "--json"}, 2, "not both", 0},
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
			for _, ev := range events {
				if ev["event"] == "repair" {
					if ps, ok := ev["problems"].([]any); !ok || len(ps) < tc.problems {
						t.Errorf("repair event problems %v, want a list", ev["problems"])
					}
				}
			}
		})
	}
}
