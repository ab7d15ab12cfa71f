package driver_test

import (
	"context"
	"errors"
	"path/filepath"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/moot-dev/moot/internal/testkit/fixture"

	driver "github.com/moot-dev/moot/internal/driver"
	"github.com/moot-dev/moot/internal/model"
	"github.com/moot-dev/moot/internal/testkit/modeltest"
	"github.com/moot-dev/moot/statemachine/dialectic"
	"github.com/moot-dev/moot/statemachine/dialectic/dialectictest/sparring"
	"github.com/moot-dev/moot/store"
	"github.com/moot-dev/moot/templates"
)

func newRunDebate(t *testing.T) *store.Dir {
	t.Helper()
	d, err := driver.Create(filepath.Join(t.TempDir(), "demo"), "demo", dialectic.Motion{
		Text:        "This house would tax sugar.",
		Definitions: []dialectic.Definition{{Term: "sugar", Meaning: "added sugars"}},
		Scope:       "Rich countries only.",
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	return d
}

func client(t testing.TB, srv *modeltest.Server) *model.Client {
	t.Helper()
	c, err := model.New(model.Config{BaseURL: srv.URL, APIKey: "test-key", MaxRetries: 2, Timeout: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func options(c driver.Completer) driver.Options {
	return driver.Options{
		Client: c, Templates: templates.Default(), DefaultModel: "fake-model", Repairs: 2,
		Now: func() time.Time { return time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC) },
	}
}

// snapshot maps every file of the debate outside .moot to its content.
func runSnapshot(t *testing.T, d *store.Dir) map[string]string {
	t.Helper()
	tree, err := fixture.Tree(d.Path())
	if err != nil {
		t.Fatal(err)
	}
	return fixture.Without(tree, func(p string) bool { return fixture.Folder(p) || strings.HasPrefix(p, ".moot/") })
}

func state(t *testing.T, d *store.Dir) dialectic.State {
	t.Helper()
	deb, err := driver.Load(d)
	if err != nil {
		t.Fatal(err)
	}
	return deb.Header.State
}

func mustCheck(t *testing.T, d *store.Dir) {
	t.Helper()
	raw, err := driver.ReadRaw(d)
	if err != nil {
		t.Fatal(err)
	}
	if ps := dialectic.Check(raw).Problems; len(ps) > 0 {
		t.Fatalf("check found problems: %v", ps)
	}
}

func TestRunThreeExchanges(t *testing.T) {
	srv := modeltest.NewServer(t, sparring.Handler(sparring.Options{}))
	d := newRunDebate(t)
	sum, err := driver.Run(context.Background(), d, driver.Goal{Exchange: 3}, options(client(t, srv)))
	if err != nil {
		t.Fatal(err)
	}
	if got := state(t, d); got != (dialectic.State{Exchange: 3, Phase: dialectic.AwaitingArguments}) {
		t.Fatalf("state = %+v, want exchange 3 awaiting arguments", got)
	}
	mustCheck(t, d)
	// Nothing that exists only for the fake server reaches a model.
	for _, req := range srv.Requests() {
		if strings.Contains(strings.ToLower(string(req.Body)), "moot-role") {
			t.Errorf("a request carries a moot-role line meant for tests: %.200s", req.Body)
		}
	}
	if sum.Calls != 9 || sum.Steps != 6 {
		t.Errorf("calls, steps = %d, %d; want 9, 6", sum.Calls, sum.Steps)
	}
	usage, err := driver.ReadUsage(d)
	if err != nil || usage.Calls != 9 {
		t.Errorf("usage log has %d calls (%v), want 9", usage.Calls, err)
	}
	deb, _ := driver.Load(d)
	s, err := driver.LoadSettings(deb.Header.Front)
	if err != nil || s.Models["judge"] != "fake-model" || s.ResponseFormat != "json_schema" {
		t.Errorf("stored settings = %+v (%v); want the models and json_schema", s, err)
	}
	// The judge rescored from exchange 2 on.
	rescored := false
	for _, id := range deb.Scores.IDs() {
		r, _ := deb.Scores.Get(id)
		rescored = rescored || len(r.History) > 1
	}
	if !rescored {
		t.Error("no rescore was recorded")
	}
}

// TestWhatEachRoleSees checks the context rules: debaters never see
// scores, the judge's reasoning, or the other side's argument of the same
// exchange; the judge never sees the debaters' instructions.
func TestWhatEachRoleSees(t *testing.T) {
	srv := modeltest.NewServer(t, sparring.Handler(sparring.Options{}))
	d := newRunDebate(t)
	if _, err := driver.Run(context.Background(), d, driver.Goal{Exchange: 3}, options(client(t, srv))); err != nil {
		t.Fatal(err)
	}
	sameExchange := regexp.MustCompile(`This is exchange (\d+)`)
	for _, req := range srv.Requests() {
		role := modeltest.RoleOf(req)
		var all strings.Builder
		for _, m := range req.Messages {
			all.WriteString(m.Content + "\n")
		}
		text := all.String()
		switch role {
		case modeltest.Proposition, modeltest.Opposition:
			for _, reasoning := range []string{"Judged on the strength of", "The rebuttal weakened it"} {
				if strings.Contains(text, reasoning) {
					t.Errorf("%s saw the judge's reasoning %q", role, reasoning)
				}
			}
			if regexp.MustCompile(`current score|[+-]0\.\d\d`).MatchString(text) {
				t.Errorf("%s saw a score", role)
			}
			if m := sameExchange.FindStringSubmatch(text); m != nil && m[1] != "0" {
				if strings.Contains(text, "_"+pad(m[1])+" (") {
					t.Errorf("%s saw an argument of its own exchange %s", role, m[1])
				}
			}
			if !strings.Contains(text, "sugar") || !strings.Contains(text, "Rich countries only.") {
				t.Errorf("%s was not shown the motion, definitions and scope", role)
			}
		case modeltest.Judge:
			if strings.Contains(text, "You are a debater") {
				t.Error("the judge saw a debater's instructions")
			}
		default:
			t.Errorf("request without a role")
		}
	}
}

func pad(s string) string {
	for len(s) < 3 {
		s = "0" + s
	}
	return s
}

func TestRepairAndRefusal(t *testing.T) {
	good := sparring.Handler(sparring.Options{})
	t.Run("prose then fenced JSON is repaired", func(t *testing.T) {
		var calls atomic.Int32
		srv := modeltest.NewServer(t, modeltest.Roles(map[string]modeltest.Handler{
			modeltest.Proposition: func(r modeltest.Request) modeltest.Reply {
				if calls.Add(1) == 1 {
					return modeltest.Reply{Content: "Certainly! Here are my arguments about sugar."}
				}
				rep := good(r)
				rep.Content = "```json\n" + rep.Content + "\n```"
				return rep
			},
			modeltest.Opposition: good,
		}))
		d := newRunDebate(t)
		if _, err := driver.Run(context.Background(), d, driver.Goal{Steps: 1}, options(client(t, srv))); err != nil {
			t.Fatal(err)
		}
		if calls.Load() != 2 {
			t.Errorf("proposition asked %d times, want 2", calls.Load())
		}
		// The repair went back in the same conversation, with the error.
		var repair modeltest.Request
		for _, r := range srv.Requests() {
			if modeltest.RoleOf(r) == modeltest.Proposition && len(r.Messages) > 2 {
				repair = r
			}
		}
		if len(repair.Messages) != 4 || repair.Messages[2].Role != "assistant" || !strings.Contains(repair.Messages[3].Content, "not JSON") {
			t.Errorf("repair conversation = %+v", repair.Messages)
		}
		mustCheck(t, d)
	})
	t.Run("a judgment that is never zero-sum is refused and nothing changes", func(t *testing.T) {
		srv := modeltest.NewServer(t, modeltest.Roles(map[string]modeltest.Handler{
			modeltest.Proposition: good, modeltest.Opposition: good,
			modeltest.Judge: func(modeltest.Request) modeltest.Reply {
				return modeltest.Reply{Content: `{"scores":[{"argument_id":"prop_000a","score":1,"reasoning":"x"}],"rescores":[]}`}
			},
		}))
		d := newRunDebate(t)
		opts := options(client(t, srv))
		if _, err := driver.Run(context.Background(), d, driver.Goal{Steps: 1}, opts); err != nil {
			t.Fatal(err)
		}
		before := runSnapshot(t, d)
		_, err := driver.Run(context.Background(), d, driver.Goal{Exchange: 1}, opts)
		var re *driver.RoleError
		if !errors.As(err, &re) || re.Role != "judge" || len(re.Problems) == 0 {
			t.Fatalf("err = %v, want a judge RoleError with problems", err)
		}
		if after := runSnapshot(t, d); !equal(before, after) {
			t.Error("a refused judgment changed the debate")
		}
		if re.Saved == "" {
			t.Fatal("the refused answers were not kept")
		}
		if _, err := d.ReadPrivate(strings.TrimPrefix(re.Saved, ".moot/")); err != nil {
			t.Errorf("kept answers unreadable: %v", err)
		}
		n := 0
		for _, r := range srv.Requests() {
			if modeltest.RoleOf(r) == modeltest.Judge {
				n++
			}
		}
		if n != 3 {
			t.Errorf("judge asked %d times, want 1 + 2 repairs", n)
		}
	})
}

func equal(a, b map[string]string) bool { return len(fixture.Diff(a, b)) == 0 }

func TestPaidAnswersAreReused(t *testing.T) {
	good := sparring.Handler(sparring.Options{})
	var oppFails atomic.Bool
	oppFails.Store(true)
	var propCalls atomic.Int32
	srv := modeltest.NewServer(t, modeltest.Roles(map[string]modeltest.Handler{
		modeltest.Proposition: func(r modeltest.Request) modeltest.Reply { propCalls.Add(1); return good(r) },
		modeltest.Opposition: func(r modeltest.Request) modeltest.Reply {
			if oppFails.Load() {
				return modeltest.Reply{Status: 400, ErrorMessage: "model overloaded in a strange way"}
			}
			return good(r)
		},
	}))
	d := newRunDebate(t)
	opts := options(client(t, srv))
	if _, err := driver.Run(context.Background(), d, driver.Goal{Steps: 1}, opts); err == nil {
		t.Fatal("want the opposition's failure")
	}
	if got := state(t, d); got.Phase != dialectic.AwaitingArguments {
		t.Fatal("the failed step changed the state")
	}
	oppFails.Store(false)
	if _, err := driver.Run(context.Background(), d, driver.Goal{Steps: 1}, opts); err != nil {
		t.Fatal(err)
	}
	if propCalls.Load() != 1 {
		t.Errorf("the proposition was asked %d times; its accepted answer should have been reused", propCalls.Load())
	}
	mustCheck(t, d)
}

func TestTransportTrouble(t *testing.T) {
	good := sparring.Handler(sparring.Options{})
	t.Run("429 with Retry-After, then 500, then an answer", func(t *testing.T) {
		var n atomic.Int32
		srv := modeltest.NewServer(t, func(r modeltest.Request) modeltest.Reply {
			if modeltest.RoleOf(r) == modeltest.Proposition {
				switch n.Add(1) {
				case 1:
					return modeltest.Reply{Status: 429, RetryAfter: "0", ErrorMessage: "slow down"}
				case 2:
					return modeltest.Reply{Status: 500, ErrorMessage: "boom"}
				}
			}
			return good(r)
		})
		d := newRunDebate(t)
		if _, err := driver.Run(context.Background(), d, driver.Goal{Steps: 1}, options(client(t, srv))); err != nil {
			t.Fatal(err)
		}
		mustCheck(t, d)
	})
	t.Run("a server that refuses json_schema is remembered", func(t *testing.T) {
		srv := modeltest.NewServer(t, good, modeltest.RefuseSchema())
		d := newRunDebate(t)
		if _, err := driver.Run(context.Background(), d, driver.Goal{Exchange: 1}, options(client(t, srv))); err != nil {
			t.Fatal(err)
		}
		deb, _ := driver.Load(d)
		s, _ := driver.LoadSettings(deb.Header.Front)
		if s.ResponseFormat != string(model.ModeObject) {
			t.Fatalf("remembered %q, want json_object", s.ResponseFormat)
		}
		before := len(srv.Requests())
		if _, err := driver.Run(context.Background(), d, driver.Goal{Exchange: 2}, options(client(t, srv))); err != nil {
			t.Fatal(err)
		}
		for _, r := range srv.Requests()[before:] {
			if r.ResponseFormat == "json_schema" {
				t.Error("a later run asked for json_schema again")
			}
		}
	})
	t.Run("a stream cut short is retried", func(t *testing.T) {
		var n atomic.Int32
		srv := modeltest.NewServer(t, func(r modeltest.Request) modeltest.Reply {
			rep := good(r)
			if modeltest.RoleOf(r) == modeltest.Opposition && n.Add(1) == 1 {
				rep.CutShort = true
			}
			return rep
		})
		d := newRunDebate(t)
		if _, err := driver.Run(context.Background(), d, driver.Goal{Steps: 1}, options(client(t, srv))); err != nil {
			t.Fatal(err)
		}
	})
}

// TestInterruptAndResume cancels runs at many instants and checks that
// resuming gives the same debate as an uninterrupted run.
func TestInterruptAndResume(t *testing.T) {
	whole := newRunDebate(t)
	// Three exchanges wait at least six answers of 20 ms one after the
	// other, so every instant below falls inside the run.
	srv := modeltest.NewServer(t, sparring.Handler(sparring.Options{Delay: 20 * time.Millisecond}))
	if _, err := driver.Run(context.Background(), whole, driver.Goal{Exchange: 3}, options(client(t, srv))); err != nil {
		t.Fatal(err)
	}
	want := runSnapshot(t, whole)
	for _, after := range []time.Duration{1, 3, 7, 12, 20, 33, 50} {
		after := after * time.Millisecond
		t.Run(after.String(), func(t *testing.T) {
			d := newRunDebate(t)
			ctx, cancel := context.WithTimeout(context.Background(), after)
			_, err := driver.Run(ctx, d, driver.Goal{Exchange: 3}, options(client(t, srv)))
			cancel()
			if !errors.Is(err, context.DeadlineExceeded) && !errors.Is(err, context.Canceled) {
				t.Fatalf("err = %v, want the cancellation", err)
			}
			mustCheck(t, d)
			if _, err := driver.Run(context.Background(), d, driver.Goal{Exchange: 3}, options(client(t, srv))); err != nil {
				t.Fatal(err)
			}
			got := runSnapshot(t, d)
			if !equal(want, got) {
				for k := range want {
					if want[k] != got[k] {
						t.Errorf("%s differs after resuming", k)
					}
				}
			}
		})
	}
}

func TestMoreMisbehaviour(t *testing.T) {
	good := sparring.Handler(sparring.Options{})
	t.Run("a judge naming wrong ids is repaired", func(t *testing.T) {
		var n atomic.Int32
		srv := modeltest.NewServer(t, modeltest.Roles(map[string]modeltest.Handler{
			modeltest.Proposition: good, modeltest.Opposition: good,
			modeltest.Judge: func(r modeltest.Request) modeltest.Reply {
				if n.Add(1) == 1 {
					return modeltest.Reply{Content: `{"scores":[{"argument_id":"prop_999","score":0,"reasoning":"x"}],"rescores":[]}`}
				}
				return good(r)
			},
		}))
		d := newRunDebate(t)
		if _, err := driver.Run(context.Background(), d, driver.Goal{Exchange: 1}, options(client(t, srv))); err != nil {
			t.Fatal(err)
		}
		var repair modeltest.Request
		for _, r := range srv.Requests() {
			if modeltest.RoleOf(r) == modeltest.Judge && len(r.Messages) == 4 {
				repair = r
			}
		}
		if !strings.Contains(repair.Messages[3].Content, "prop_999 is not an argument of exchange 0") {
			t.Errorf("the repair did not name the wrong id: %+v", repair.Messages)
		}
		mustCheck(t, d)
	})
	t.Run("an answer slower than the timeout fails the step cleanly", func(t *testing.T) {
		// The opposition's answer never comes (the fake holds it until
		// its client gives up); the proposition's comes at once, well
		// within a timeout that a loaded machine's round trip keeps,
		// where one of 100 ms failed both sides.
		srv := modeltest.NewServer(t, func(r modeltest.Request) modeltest.Reply {
			rep := good(r)
			if modeltest.RoleOf(r) == modeltest.Opposition {
				rep.Delay = 10 * time.Minute
			}
			return rep
		})
		c, err := model.New(model.Config{BaseURL: srv.URL, APIKey: "k", Timeout: 10 * time.Second})
		if err != nil {
			t.Fatal(err)
		}
		d := newRunDebate(t)
		before := runSnapshot(t, d)
		_, err = driver.Run(context.Background(), d, driver.Goal{Steps: 1}, options(c))
		var re *driver.RoleError
		if !errors.As(err, &re) || re.Role != "opposition" || re.Err == nil {
			t.Fatalf("err = %v, want the opposition's model failure", err)
		}
		if !equal(before, runSnapshot(t, d)) {
			t.Error("a failed step changed the debate")
		}
		// The proposition's answer was accepted and is kept for the next run.
		if _, err := d.ReadPrivate("answers/00000-proposition.json"); err != nil {
			t.Errorf("the proposition's accepted answer was not kept: %v", err)
		}
	})
}
