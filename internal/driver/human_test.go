package driver_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/moot-dev/moot/internal/driver"
	"github.com/moot-dev/moot/internal/testkit/protocoltest"
	"github.com/moot-dev/moot/internal/testkit/trio"
)

// person answers for one role of a trio debate as a person would, and
// notes what it was asked and how many model answers had come by then.
type person struct {
	role    string
	m       *trioModel
	answers []string // popped in order; none left: AwaitingPerson
	mu      sync.Mutex
	asked   []driver.Question
	before  []int // m.answered at each question
}

func (p *person) Plays(role string) bool { return role == p.role }

func (p *person) Answer(_ context.Context, q driver.Question) ([]byte, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.asked = append(p.asked, q)
	p.m.mu.Lock()
	p.before = append(p.before, p.m.answered)
	p.m.mu.Unlock()
	if len(p.answers) == 0 {
		return nil, &driver.AwaitingPerson{Role: q.Call.Role, Reason: "no one is there"}
	}
	a := p.answers[0]
	p.answers = p.answers[1:]
	return []byte(a), nil
}

func advancePerson(t *testing.T, dir string, m *trioModel, p *person) (driver.Summary, error) {
	t.Helper()
	return protocoltest.Advance(t, context.Background(), trio.Protocol{}, dir, driver.UnitGoal{Steps: 1}, driver.Options{
		Client: m, DefaultModel: "m", Repairs: 2, Now: func() time.Time { return protocoltest.When }, Person: p,
	})
}

// TestPersonAnswersARole: a person's role is asked of the person once the
// step's models have answered, never of a model; the answer is committed
// as the person's, with no usage logged, and the step leaves nothing kept.
func TestPersonAnswersARole(t *testing.T) {
	dir := newTrio(t, 1)
	m := &trioModel{exact: true}
	p := &person{role: trio.Beta, m: m, answers: []string{`{"plan": "PERSON-PLAN", "speech": "PERSON-SPEECH"}`}}
	if _, err := advancePerson(t, dir, m, p); err != nil {
		t.Fatal(err)
	}
	if len(p.asked) != 1 || p.asked[0].Call.Role != trio.Beta {
		t.Fatalf("the person was asked %d times", len(p.asked))
	}
	if p.before[0] != 1 {
		t.Errorf("the person was asked after %d model answers, want 1 (alpha's)", p.before[0])
	}
	if q := p.asked[0]; q.Draft != driver.DraftName(q.Step, q.Call) || len(q.Call.Messages) == 0 || q.Validate == nil {
		t.Errorf("the question lacks its draft, prompt or validation: %+v", q)
	}
	for _, req := range m.asked() {
		if strings.HasPrefix(req.Messages[0].Content, "You are beta") {
			t.Errorf("a model was asked for the person's role")
		}
	}
	all := files(t, dir)
	found := false
	for name, data := range all {
		if strings.Contains(data, "PERSON-SPEECH") {
			found = true
			_ = name
		}
	}
	if !found {
		t.Errorf("the person's speech is in no file")
	}
	if !strings.Contains(all["debate.md"], `"people": {`) || !strings.Contains(all["debate.md"], `"beta": [`) {
		t.Errorf("debate.md does not say a person played beta:\n%s", all["debate.md"])
	}
	usage, err := os.ReadFile(filepath.Join(dir, ".moot", "usage.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(usage), `"role":"beta"`) {
		t.Errorf("usage.jsonl logs the person's answer:\n%s", usage)
	}
	if left, _ := os.ReadDir(filepath.Join(dir, ".moot", "answers")); len(left) > 0 {
		t.Errorf("answers left kept after the commit: %v", left)
	}
}

// TestPersonAwaited: a person who cannot answer now stops the run with an
// AwaitingPerson error and changes no file of the debate; the models'
// answers are kept, and the next run asks no model again.
func TestPersonAwaited(t *testing.T) {
	dir := newTrio(t, 1)
	before := files(t, dir)
	m := &trioModel{exact: true}
	p := &person{role: trio.Beta, m: m}
	_, err := advancePerson(t, dir, m, p)
	var ap *driver.AwaitingPerson
	if !errors.As(err, &ap) || ap.Role != trio.Beta {
		t.Fatalf("got %v, want an AwaitingPerson for beta", err)
	}
	if after := files(t, dir); !reflect.DeepEqual(before, after) {
		t.Errorf("the debate changed while a person's answer was awaited")
	}
	asked := len(m.asked())
	p.answers = []string{`{"plan": "P", "speech": "S"}`}
	if _, err := advancePerson(t, dir, m, p); err != nil {
		t.Fatal(err)
	}
	if n := len(m.asked()); n != asked {
		t.Errorf("the models were asked %d more times, want none (their answers were kept)", n-asked)
	}
}

// TestPersonAnswerRefused: an answer that breaks the call's rules is
// never committed, however the person gave it.
func TestPersonAnswerRefused(t *testing.T) {
	dir := newTrio(t, 1)
	before := files(t, dir)
	m := &trioModel{exact: true}
	p := &person{role: trio.Beta, m: m, answers: []string{`{"plan": "P"}`}}
	if _, err := advancePerson(t, dir, m, p); err == nil {
		t.Fatal("an answer without its speech was accepted")
	}
	if after := files(t, dir); !reflect.DeepEqual(before, after) {
		t.Errorf("a refused answer changed the debate")
	}
}

// TestPersonAskedIsSaid: the person's call is announced as a model's is
// (EventAsk, then EventAnswer, both naming the person's model), so that
// the live file names whom the run waits for.
func TestPersonAskedIsSaid(t *testing.T) {
	dir := newTrio(t, 1)
	m := &trioModel{exact: true}
	p := &person{role: trio.Beta, m: m, answers: []string{`{"plan": "P", "speech": "S"}`}}
	var mu sync.Mutex
	var kinds []string
	_, err := protocoltest.Advance(t, context.Background(), trio.Protocol{}, dir, driver.UnitGoal{Steps: 1}, driver.Options{
		Client: m, DefaultModel: "m", Repairs: 2, Now: func() time.Time { return protocoltest.When }, Person: p,
		Emit: func(e driver.Event) {
			if e.Role == trio.Beta && !e.Begins && (e.Kind == driver.EventAsk || e.Kind == driver.EventAnswer) {
				mu.Lock()
				kinds = append(kinds, e.Kind+" "+e.Model)
				mu.Unlock()
			}
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{driver.EventAsk + " " + driver.PersonModel, driver.EventAnswer + " " + driver.PersonModel}
	if !reflect.DeepEqual(kinds, want) {
		t.Errorf("the person's call was said as %q, want %q", kinds, want)
	}
}
