package driver_test

import (
	"context"
	"errors"
	"io/fs"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/moot-dev/moot/internal/driver"
	"github.com/moot-dev/moot/internal/model"
	"github.com/moot-dev/moot/internal/testkit/storetest"
	sm "github.com/moot-dev/moot/statemachine"
)

// oneCall is a protocol of a single step of one call, whose answer must
// be "good" and whose per-call repair cap is cap.
type oneCall struct{ cap int }

func (oneCall) Name() string     { return "onecall" }
func (oneCall) Summary() string  { return "one call, for tests" }
func (oneCall) Roles() []sm.Role { return []sm.Role{{Name: "solo"}} }
func (oneCall) Flags() []sm.Flag { return nil }
func (oneCall) New(sm.NewInput) ([]sm.File, error) {
	return []sm.File{{Name: sm.StateFile, Data: []byte("{\n  \"protocol\": \"onecall\"\n}\n")}}, nil
}

func (p oneCall) Load(files fs.FS) (sm.Debate, error) {
	_, err := fs.Stat(files, "answer.md")
	return &oneCallDebate{cap: p.cap, done: err == nil}, nil
}

type oneCallDebate struct {
	cap  int
	done bool
}

func (d *oneCallDebate) Status() sm.Status {
	n := 0
	if d.done {
		n = 1
	}
	return sm.Status{Unit: "call", Done: n, Total: 1, Complete: d.done}
}

func (d *oneCallDebate) Check() sm.Findings { return sm.Findings{} }

func (d *oneCallDebate) Next() (*sm.Step, error) {
	if d.done {
		return nil, nil
	}
	return &sm.Step{
		Key: "only", Unit: 1,
		Calls: []sm.Call{{
			ID: "solo", Role: "solo", Repairs: d.cap,
			Messages: []sm.Message{{Role: "user", Content: "Say good."}},
			Validate: func(a []byte) sm.Report {
				if string(a) != "good" {
					return sm.Report{Errors: []string{"the answer is not good"}}
				}
				return sm.Report{}
			},
		}},
		Apply: func(answers map[string]sm.Answer, now time.Time) (*sm.Commit, error) {
			return &sm.Commit{Files: []sm.File{{Name: "answer.md", Data: answers["solo"].Text}}}, nil
		},
	}, nil
}

// badFirst answers "bad" to the first bad requests and "good" after.
type badFirst struct {
	mu   sync.Mutex
	bad  int
	seen int
}

func (m *badFirst) Complete(ctx context.Context, req model.Request) (model.Response, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.seen++
	text := "good"
	if m.seen <= m.bad {
		text = "bad"
	}
	return model.Response{Text: text, Model: req.Model}, nil
}

// TestCallRepairCap: a call's own repair cap limits how often its answer
// is sent back, never beyond the user's --repairs; 0 leaves --repairs in
// charge.
func TestCallRepairCap(t *testing.T) {
	for _, tc := range []struct {
		name         string
		cap, repairs int
		bad          int
		asked        int
		refused      bool
	}{
		{"no cap: --repairs 2 sends back twice", 0, 2, 9, 3, true},
		{"cap 1 under --repairs 2 sends back once", 1, 2, 9, 2, true},
		{"cap 1 accepts the answer after one send-back", 1, 2, 1, 2, false},
		{"cap 5 over --repairs 2 sends back twice", 5, 2, 9, 3, true},
		{"cap 1 under --repairs 0 sends nothing back", 1, 0, 9, 1, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := oneCall{cap: tc.cap}
			dir := filepath.Join(t.TempDir(), "d")
			d, err := driver.CreateDebate(dir, p, sm.NewInput{Slug: "d", Motion: "m"})
			if err != nil {
				t.Fatal(err)
			}
			d.Close()
			d, err = storetest.OpenForWrite(dir, "test")
			if err != nil {
				t.Fatal(err)
			}
			defer d.Close()
			m := &badFirst{bad: tc.bad}
			_, err = driver.Advance(context.Background(), d, p, driver.UnitGoal{All: true}, driver.Options{
				Client: m, DefaultModel: "m", Repairs: tc.repairs,
				Now: func() time.Time { return time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC) },
			})
			var re *driver.RoleError
			if tc.refused != errors.As(err, &re) {
				t.Fatalf("advance: %v; want refused %v", err, tc.refused)
			}
			if tc.refused && !strings.Contains(strings.Join(re.Problems, " "), "not good") {
				t.Errorf("the refusal does not carry the error: %v", re.Problems)
			}
			if !tc.refused && err != nil {
				t.Fatal(err)
			}
			if m.seen != tc.asked {
				t.Errorf("the model was asked %d times, want %d", m.seen, tc.asked)
			}
		})
	}
}
