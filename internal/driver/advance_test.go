package driver_test

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/moot-dev/moot/internal/testkit/protocoltest"
	"github.com/moot-dev/moot/internal/testkit/storetest"

	"github.com/moot-dev/moot/internal/driver"
	"github.com/moot-dev/moot/internal/model"
	"github.com/moot-dev/moot/internal/testkit/fixture"
	"github.com/moot-dev/moot/internal/testkit/trio"
	sm "github.com/moot-dev/moot/statemachine"
	"github.com/moot-dev/moot/store"
)

// trioModel plays the three roles of the trio protocol from the prompts
// alone. Each answer carries a marker naming its role, round and kind, so
// that a test can see which text reached which prompt. Its first arbiter
// answer names a winner who does not exist, to be repaired.
type trioModel struct {
	mu       sync.Mutex
	requests []model.Request
	arbiter  int
	answered int
	// exact turns off the one answer to repair.
	exact bool
	// block, when set, is called with each request's number (from 1)
	// before it is answered; it may wait for ctx.
	block func(ctx context.Context, n int)
}

func (m *trioModel) Complete(ctx context.Context, req model.Request) (model.Response, error) {
	m.mu.Lock()
	m.requests = append(m.requests, req)
	n := len(m.requests)
	m.mu.Unlock()
	if m.block != nil {
		m.block(ctx, n)
	}
	if err := ctx.Err(); err != nil {
		return model.Response{}, err
	}
	system, user := req.Messages[0].Content, req.Messages[1].Content
	round := 0
	fmt.Sscanf(user[strings.Index(user, "round ")+len("round "):], "%d", &round)
	if strings.HasPrefix(user, "Round ") {
		fmt.Sscanf(user, "Round %d", &round)
	}
	var text string
	switch {
	case strings.HasPrefix(system, "You are alpha"):
		text = fmt.Sprintf(`{"plan": "SECRET-PLAN-alpha-r%d", "speech": "SPEECH-alpha-r%d"}`, round, round)
	case strings.HasPrefix(system, "You are beta"):
		text = fmt.Sprintf(`{"plan": "SECRET-PLAN-beta-r%d", "speech": "SPEECH-beta-r%d"}`, round, round)
	default:
		m.mu.Lock()
		m.arbiter++
		first := m.arbiter == 1
		m.mu.Unlock()
		winner := []string{"alpha", "beta"}[round%2]
		if first && len(req.Messages) == 2 && !m.exact {
			winner = "gamma"
		}
		text = fmt.Sprintf(`{"winner": %q, "reason": "VERDICT-r%d"}`, winner, round)
	}
	m.mu.Lock()
	m.answered++
	m.mu.Unlock()
	return model.Response{Text: text, Model: req.Model, PromptTokens: 10, CompletionTokens: 5}, nil
}

func (m *trioModel) asked() []model.Request {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]model.Request(nil), m.requests...)
}

func newTrio(t *testing.T, rounds int) string {
	t.Helper()
	return protocoltest.Create(t, trio.Protocol{}, sm.NewInput{
		Slug: "t", Motion: "Three is a crowd.", Values: map[string][]string{"rounds": {fmt.Sprint(rounds)}},
	})
}

func advance(t *testing.T, ctx context.Context, dir string, m *trioModel, goal driver.UnitGoal) (driver.Summary, error) {
	t.Helper()
	return protocoltest.Advance(t, ctx, trio.Protocol{}, dir, goal, driver.Options{
		Client: m, DefaultModel: "m", Repairs: 2, Now: func() time.Time { return protocoltest.When },
	})
}

func files(t *testing.T, dir string) map[string]string {
	t.Helper()
	return protocoltest.Files(t, dir)
}

// TestAdvanceRunsAProtocolToItsEnd: a protocol the driver knows only
// through the step model runs to its end, every role asked as its steps
// say, its private file kept out of every other role's prompt.
func TestAdvanceRunsAProtocolToItsEnd(t *testing.T) {
	dir := newTrio(t, 3)
	m := &trioModel{}
	sum, err := advance(t, context.Background(), dir, m, driver.UnitGoal{All: true})
	if err != nil {
		t.Fatal(err)
	}
	// 3 rounds of 2 speeches and 1 verdict, and 1 repair.
	if got := len(m.asked()); got != 10 {
		t.Errorf("%d requests, want 10", got)
	}
	if sum.Steps != 6 {
		t.Errorf("%d steps, want 6", sum.Steps)
	}
	got := files(t, dir)
	for _, name := range []string{"rounds/r01-alpha.md", "rounds/r02-beta.md", "rounds/r03-verdict.md", "private/r03-alpha-plan.md"} {
		if _, ok := got[name]; !ok {
			t.Errorf("no %s among %v", name, keys(got))
		}
	}
	if !strings.Contains(got["debate.md"], `"round": 3`) || !strings.Contains(got["debate.md"], `"models"`) {
		t.Errorf("debate.md:\n%s", got["debate.md"])
	}
	for _, req := range m.asked() {
		var all strings.Builder
		for _, msg := range req.Messages {
			all.WriteString(msg.Content)
		}
		if !strings.HasPrefix(req.Messages[0].Content, "You are alpha") && strings.Contains(all.String(), "SECRET-PLAN-alpha") {
			t.Errorf("alpha's private plan reached another role:\n%s", all.String())
		}
	}
	// alpha does see its own plans.
	var alphaR3 string
	for _, req := range m.asked() {
		if strings.HasPrefix(req.Messages[0].Content, "You are alpha") && strings.HasPrefix(req.Messages[1].Content, "Round 3") {
			alphaR3 = req.Messages[1].Content
		}
	}
	if !strings.Contains(alphaR3, "SECRET-PLAN-alpha-r2") {
		t.Errorf("alpha's round-3 prompt lacks its round-2 plan:\n%s", alphaR3)
	}
	d, err := store.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	deb, err := driver.LoadDebate(d, trio.Protocol{})
	if err != nil {
		t.Fatal(err)
	}
	if st := deb.Status(); !st.Complete || st.Done != 3 {
		t.Errorf("status %+v, want complete after 3 rounds", st)
	}
	if f := deb.Check(); len(f.Problems) > 0 {
		t.Errorf("check: %v", f.Problems)
	}
}

// TestAdvanceCountsUnits: N units asked, N units done, then a stop.
func TestAdvanceCountsUnits(t *testing.T) {
	dir := newTrio(t, 3)
	m := &trioModel{}
	if _, err := advance(t, context.Background(), dir, m, driver.UnitGoal{Done: 1}); err != nil {
		t.Fatal(err)
	}
	if got := files(t, dir)["debate.md"]; !strings.Contains(got, `"round": 1`) || !strings.Contains(got, `"phase": "speak"`) {
		t.Errorf("after one unit, debate.md:\n%s", got)
	}
	if _, err := advance(t, context.Background(), dir, m, driver.UnitGoal{Steps: 1}); err != nil {
		t.Fatal(err)
	}
	if got := files(t, dir)["debate.md"]; !strings.Contains(got, `"phase": "judge"`) {
		t.Errorf("after one more step, debate.md:\n%s", got)
	}
}

// TestAdvanceResumes: interrupted while any request is in flight, a run
// resumed from the files ends with exactly the files of a run that was
// never interrupted, and asks again only what was in flight.
func TestAdvanceResumes(t *testing.T) {
	whole := newTrio(t, 2)
	ref := &trioModel{exact: true}
	if _, err := advance(t, context.Background(), whole, ref, driver.UnitGoal{All: true}); err != nil {
		t.Fatal(err)
	}
	want := files(t, whole)
	total := len(ref.asked())
	for stop := 1; stop <= total; stop++ {
		t.Run(fmt.Sprintf("interrupted at request %d", stop), func(t *testing.T) {
			dir := newTrio(t, 2)
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			first := &trioModel{exact: true, block: func(c context.Context, n int) {
				if n == stop {
					cancel()
					<-c.Done()
				}
			}}
			_, err := advance(t, ctx, dir, first, driver.UnitGoal{All: true})
			if !errors.Is(err, context.Canceled) {
				t.Fatalf("interrupted run: %v", err)
			}
			second := &trioModel{exact: true}
			if _, err := advance(t, context.Background(), dir, second, driver.UnitGoal{All: true}); err != nil {
				t.Fatal(err)
			}
			if d := fixture.Diff(want, files(t, dir)); len(d) > 0 {
				t.Errorf("resumed files differ from an uninterrupted run:\n%s", strings.Join(d, "\n"))
			}
			// Every answer the first run got was kept or committed: the
			// second asks only for the rest.
			if got := first.answered + len(second.asked()); got != total {
				t.Errorf("%d answers before the interruption and %d requests after it, for %d in one run", first.answered, len(second.asked()), total)
			}
		})
	}
}

func keys(m map[string]string) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return out
}

// TestAdvanceRoleErrorSaysTheProtocolsUnit: a role that gives no
// acceptable answer is reported with the unit of its protocol, a round of
// trio, not an exchange.
func TestAdvanceRoleErrorSaysTheProtocolsUnit(t *testing.T) {
	dir := newTrio(t, 1)
	d, err := storetest.OpenForWrite(dir, "test")
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	_, err = driver.Advance(context.Background(), d, trio.Protocol{}, driver.UnitGoal{All: true}, driver.Options{
		Client: &trioModel{}, DefaultModel: "m", Repairs: 0,
	})
	var re *driver.RoleError
	if !errors.As(err, &re) {
		t.Fatalf("Advance error = %v, want a RoleError", err)
	}
	if want := "round 1: the arbiter's answer was refused after every repair"; !strings.HasPrefix(err.Error(), want) {
		t.Errorf("error = %q, want it to start with %q", err, want)
	}
}

// TestRetryRecordUnreadable: a record of a --retry-missing pass that
// does not read stops the pass before anything is asked, naming the file
// and how to start over.
func TestRetryRecordUnreadable(t *testing.T) {
	dir := newTrio(t, 1)
	d, err := storetest.OpenForWrite(dir, "test")
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	if err := d.WritePrivate("retry-missing.json", []byte("{not json")); err != nil {
		t.Fatal(err)
	}
	if _, err := driver.RetryGaps(d, nil, ""); err == nil || !strings.Contains(err.Error(), ".moot/retry-missing.json") || !strings.Contains(err.Error(), "remove it") {
		t.Errorf("RetryGaps: %v, want an error naming .moot/retry-missing.json", err)
	}
	if err := driver.EndRetry(d, ""); err != nil {
		t.Fatal(err)
	}
	if _, err := d.ReadPrivate("retry-missing.json"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("after EndRetry the record reads: %v", err)
	}
}
