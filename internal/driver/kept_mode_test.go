package driver_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/moot-dev/moot/internal/driver"
	"github.com/moot-dev/moot/internal/model"
	"github.com/moot-dev/moot/internal/testkit/fixture"
	"github.com/moot-dev/moot/internal/testkit/protocoltest"
	"github.com/moot-dev/moot/internal/testkit/trio"
	"github.com/moot-dev/moot/store"
)

// modeModel answers as trioModel does and says that its JSON answers came
// in json_object mode, as a client that fell back to it would; after, when
// set, runs once after the first answer.
type modeModel struct {
	*trioModel
	once  sync.Once
	after func()
}

func (m *modeModel) Complete(ctx context.Context, req model.Request) (model.Response, error) {
	resp, err := m.trioModel.Complete(ctx, req)
	if err == nil && req.Schema != nil {
		resp.Mode = model.ModeObject
	}
	if m.after != nil {
		m.once.Do(m.after)
	}
	return resp, err
}

// TestAdvanceKeptAnswersKeepTheirMode: a step committed from answers kept
// by a run that died before its commit stores the response format those
// answers were given in, as the run that asked for them would have: the
// debate then equals one never interrupted.
func TestAdvanceKeptAnswersKeepTheirMode(t *testing.T) {
	// The uninterrupted run.
	whole := newTrio(t, 1)
	ref := &modeModel{trioModel: &trioModel{exact: true}}
	if _, err := advanceWith(t, whole, ref, driver.UnitGoal{Steps: 1}); err != nil {
		t.Fatal(err)
	}
	want := files(t, whole)
	if !strings.Contains(want["debate.md"], `"response_format": "json_object"`) {
		t.Fatalf("the uninterrupted run did not store the mode:\n%s", want["debate.md"])
	}

	dir := newTrio(t, 1)
	// The first run gets every answer of the step, but its commit fails
	// (a folder stands where the journal goes), as if it had been killed
	// just before: the answers stay kept.
	journal := filepath.Join(dir, filepath.FromSlash(store.JournalFile))
	first := &modeModel{trioModel: &trioModel{exact: true}, after: func() {
		if err := os.MkdirAll(journal, 0o755); err != nil {
			t.Error(err)
		}
	}}
	if _, err := advanceWith(t, dir, first, driver.UnitGoal{Steps: 1}); err == nil {
		t.Fatal("the first run committed its step in spite of the folder in the journal's place")
	}
	if err := os.Remove(journal); err != nil {
		t.Fatal(err)
	}
	second := &modeModel{trioModel: &trioModel{exact: true}}
	if _, err := advanceWith(t, dir, second, driver.UnitGoal{Steps: 1}); err != nil {
		t.Fatal(err)
	}
	if n := len(second.asked()); n != 0 {
		t.Fatalf("the second run asked %d requests; every answer was kept", n)
	}
	if d := fixture.Diff(want, files(t, dir)); len(d) > 0 {
		t.Errorf("the step committed from kept answers differs from the uninterrupted run's: %v\ndebate.md:\n%s", d, files(t, dir)["debate.md"])
	}
}

// advanceWith is advance with any model.
func advanceWith(t *testing.T, dir string, m driver.Completer, goal driver.UnitGoal) (driver.Summary, error) {
	t.Helper()
	return protocoltest.Advance(t, context.Background(), trio.Protocol{}, dir, goal, driver.Options{
		Client: m, DefaultModel: "m", Repairs: 2, Now: func() time.Time { return protocoltest.When },
	})
}
