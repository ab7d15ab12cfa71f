package driver_test

import (
	"context"
	"strings"
	"sync"
	"testing"

	driver "github.com/moot-dev/moot/internal/driver"
	"github.com/moot-dev/moot/internal/model"
	"github.com/moot-dev/moot/internal/testkit/modeltest"
)

// toolTalker streams the answers of its inner client in pieces, as a
// streaming client does, and writes a sentence beside every round of tool
// calls, as many models do ("Let me look that up.").
type toolTalker struct {
	inner model.Completer
	mu    sync.Mutex
	final map[string]string // each role's last answer without tool calls
}

const besideTools = "Let me look that up."

func (m *toolTalker) Complete(ctx context.Context, req model.Request) (model.Response, error) {
	onChunk := req.OnChunk
	req.OnChunk = nil
	resp, err := m.inner.Complete(ctx, req)
	if err != nil {
		return resp, err
	}
	if len(resp.ToolCalls) > 0 {
		resp.Text = besideTools
	} else {
		m.mu.Lock()
		m.final[req.Role] = resp.Text
		m.mu.Unlock()
	}
	if onChunk != nil {
		for _, p := range modeltest.SplitContent(resp.Text, 3) {
			onChunk(p)
		}
	}
	return resp, nil
}

// TestLiveTextOfAResearchingRoleIsItsAnswer: the text a model writes next
// to its tool calls is not its answer, so the chunks a live view joins
// (those since the role's last ask, retry or discard) make the answer
// alone, never that text run together with it.
func TestLiveTextOfAResearchingRoleIsItsAnswer(t *testing.T) {
	w := newWeb(t)
	f := &researcher{Web: w}
	opts := researchOptions(t, f, true)
	m := &toolTalker{inner: opts.Client, final: map[string]string{}}
	opts.Client, opts.Chunks = m, true
	var events []driver.Event
	opts.Emit = func(e driver.Event) { events = append(events, e) } // Serial: one at a time
	d := newRunDebate(t)
	if _, err := driver.Run(context.Background(), d, driver.Goal{Exchange: 1}, opts); err != nil {
		t.Fatal(err)
	}
	text := map[string]*strings.Builder{}
	researched := false
	for _, e := range events {
		switch e.Kind {
		case driver.EventAsk, driver.EventRetry, driver.EventDiscard:
			text[e.Role] = &strings.Builder{}
		case driver.EventChunk:
			text[e.Role].WriteString(e.Text)
		case driver.EventResearch:
			researched = true
		}
	}
	if !researched {
		t.Fatal("no role researched: the test tests nothing")
	}
	for _, role := range []string{"proposition", "opposition"} {
		got, want := text[role].String(), m.final[role]
		if want == "" || got != want {
			t.Errorf("the %s's live text is\n%q\nwant its answer alone\n%q", role, got, want)
		}
	}
}
