package driver_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	driver "github.com/moot-dev/moot/internal/driver"
	"github.com/moot-dev/moot/internal/testkit/fixture"
	"github.com/moot-dev/moot/internal/testkit/modeltest"
	"github.com/moot-dev/moot/statemachine/dialectic/dialectictest/sparring"
)

func TestUsageLogKeepsCachedTokens(t *testing.T) {
	good := sparring.Handler(sparring.Options{})
	srv := modeltest.NewServer(t, func(r modeltest.Request) modeltest.Reply {
		reply := good(r)
		reply.PromptTokens, reply.CompletionTokens = 1000, 100
		if modeltest.RoleOf(r) == modeltest.Judge {
			reply.CachedTokens = 768
		}
		return reply
	})
	d := newRunDebate(t)
	sum, err := driver.Run(context.Background(), d, driver.Goal{Exchange: 1}, options(client(t, srv)))
	if err != nil {
		t.Fatal(err)
	}
	if sum.CachedTokens != 768 || sum.PromptTokens != 3000 || len(sum.Usage) != 3 {
		t.Errorf("summary: cached %d of %d prompt tokens in %d calls; want 768 of 3000 in 3", sum.CachedTokens, sum.PromptTokens, len(sum.Usage))
	}
	data, err := os.ReadFile(filepath.Join(d.Path(), ".moot", driver.UsageFile))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	if len(lines) != 3 {
		t.Fatalf("usage log has %d lines, want 3:\n%s", len(lines), data)
	}
	for _, l := range lines {
		judge := strings.Contains(l, `"role":"judge"`)
		if got := strings.Contains(l, `"cached_tokens":768`); got != judge {
			t.Errorf("line %s: cached_tokens 768 written %v, want %v", l, got, judge)
		}
		if !judge && strings.Contains(l, "cached_tokens") {
			t.Errorf("line %s: cached_tokens written though none were reported", l)
		}
	}
	tot, err := driver.ReadUsage(d)
	if err != nil || tot.CachedTokens != 768 || tot.Calls != 3 {
		t.Errorf("ReadUsage = %+v, %v; want 3 calls, 768 cached", tot, err)
	}
}

func TestReadUsageReadsOldLines(t *testing.T) {
	d := newRunDebate(t)
	old := `{"time":"2025-01-01T00:00:00Z","exchange":0,"role":"judge","model":"m","prompt_tokens":10,"completion_tokens":2,"seconds":1,"ok":true}` + "\n" +
		`{"time":"2025-01-01T00:00:01Z","exchange":0,"role":"judge","model":"m","prompt_tokens":10,"cached_tokens":4,"completion_tokens":2,"seconds":1,"ok":true}` + "\n" +
		`{"cut short` + "\n"
	if err := d.AppendPrivate(driver.UsageFile, []byte(old)); err != nil {
		t.Fatal(err)
	}
	lines, err := driver.ReadUsageLines(d)
	if err != nil || len(lines) != 2 || lines[0].CachedTokens != 0 || lines[1].CachedTokens != 4 {
		t.Fatalf("ReadUsageLines = %+v, %v; want the two whole lines, cached 0 and 4", lines, err)
	}
	if tot := driver.SumUsage(lines); tot.PromptTokens != 20 || tot.CachedTokens != 4 || tot.Calls != 2 {
		t.Errorf("SumUsage = %+v", tot)
	}
}

func TestBeforeStepSeesThePlanAndCanStop(t *testing.T) {
	srv := modeltest.NewServer(t, sparring.Handler(sparring.Options{}))
	d := newRunDebate(t)
	opts := options(client(t, srv))
	// One step at a time: TestBeforeStepSeesEarlyPlans sees the plans of
	// steps asked ahead of their turn.
	opts.Sequential = true
	opts.Overrides = driver.Overrides{Models: map[string]string{"judge": "judge-model"}, MaxTokens: map[string]int{"proposition": 700}}
	var plans []driver.StepPlan
	var before map[string]string
	stop := errors.New("stop here")
	opts.BeforeStep = func(p driver.StepPlan) error {
		plans = append(plans, p)
		if len(plans) == 3 {
			before = runSnapshot(t, d)
			return stop
		}
		return nil
	}
	sum, err := driver.Run(context.Background(), d, driver.Goal{Exchange: 5}, opts)
	if !errors.Is(err, stop) {
		t.Fatalf("Run = %v, want the hook's error as it is", err)
	}
	if sum.Steps != 2 || len(sum.Usage) != 3 {
		t.Errorf("summary: %d steps, %d calls; want 2 steps (exchange 0 argued and judged), 3 calls", sum.Steps, len(sum.Usage))
	}
	if diffs := fixture.Diff(before, runSnapshot(t, d)); len(diffs) > 0 {
		t.Errorf("the stopped step wrote: %v", diffs)
	}
	if st := state(t, d); st.Exchange != 1 {
		t.Errorf("state %+v, want exchange 1 awaiting arguments", st)
	}
	first := plans[0]
	if len(first.Calls) != 2 || len(first.Spent) != 0 {
		t.Fatalf("first plan = %+v, want two debaters' calls and nothing spent", first)
	}
	for _, c := range first.Calls {
		if c.Model != "fake-model" || c.PromptBytes < 100 || c.Kept || c.Embed {
			t.Errorf("call %+v: want the default model and a prompt", c)
		}
		if want := map[string]int{"proposition": 700}[c.Role]; c.MaxTokens != want {
			t.Errorf("call %s: max tokens %d, want %d", c.Role, c.MaxTokens, want)
		}
	}
	judge := plans[1]
	if len(judge.Calls) != 1 || judge.Calls[0].Model != "judge-model" || len(judge.Spent) != 2 {
		t.Errorf("judge's plan = %+v, want one call on judge-model after 2 spent", judge)
	}
	if plans[2].Unit != 1 || len(plans[2].Spent) != 3 {
		t.Errorf("third plan = unit %d after %d calls, want unit 1 after 3", plans[2].Unit, len(plans[2].Spent))
	}
}

func TestBeforeStepSeesKeptAnswers(t *testing.T) {
	good := sparring.Handler(sparring.Options{})
	// The opposition's model fails: the proposition's answer is kept.
	srv := modeltest.NewServer(t, func(r modeltest.Request) modeltest.Reply {
		if modeltest.RoleOf(r) == modeltest.Opposition {
			return modeltest.Reply{Status: 400, ErrorMessage: "no"}
		}
		return good(r)
	})
	d := newRunDebate(t)
	if _, err := driver.Run(context.Background(), d, driver.Goal{Steps: 1}, options(client(t, srv))); err == nil {
		t.Fatal("the step passed though the opposition failed")
	}
	opts := options(client(t, srv))
	var plan driver.StepPlan
	stop := errors.New("stop")
	opts.BeforeStep = func(p driver.StepPlan) error { plan = p; return stop }
	if _, err := driver.Run(context.Background(), d, driver.Goal{Steps: 1}, opts); !errors.Is(err, stop) {
		t.Fatal(err)
	}
	kept := map[string]bool{}
	for _, c := range plan.Calls {
		kept[c.Role] = c.Kept
	}
	if !kept["proposition"] || kept["opposition"] {
		t.Errorf("kept = %v, want the proposition's answer kept and the opposition's not", kept)
	}
	opts.Fresh = true
	if _, err := driver.Run(context.Background(), d, driver.Goal{Steps: 1}, opts); !errors.Is(err, stop) {
		t.Fatal(err)
	}
	for _, c := range plan.Calls {
		if c.Kept {
			t.Errorf("with Fresh, call %s counts as kept", c.Role)
		}
	}
}
