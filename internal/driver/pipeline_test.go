package driver_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	driver "github.com/moot-dev/moot/internal/driver"
	"github.com/moot-dev/moot/internal/testkit/fixture"
	"github.com/moot-dev/moot/internal/testkit/modeltest"
	sm "github.com/moot-dev/moot/statemachine"
	"github.com/moot-dev/moot/statemachine/dialectic"
	"github.com/moot-dev/moot/statemachine/dialectic/dialectictest"
	"github.com/moot-dev/moot/statemachine/dialectic/dialectictest/sparring"
	"github.com/moot-dev/moot/templates"
)

var exchangeOf = regexp.MustCompile(`This is exchange (\d+)`)

// overlapping is a sparring partner whose judge of exchange x answers only
// once the proposition of exchange x+1 has been asked (for x+1 below
// last): a run that asks the next debaters only after the judgment is
// committed never gets its answer, and fails the test after the guard.
type overlapping struct {
	mu     sync.Mutex
	asked  map[int]chan struct{} // by exchange, closed when the proposition is asked
	last   int
	judged int
}

func newOverlapping(last int) *overlapping {
	return &overlapping{asked: map[int]chan struct{}{}, last: last}
}

func (o *overlapping) chanFor(x int) chan struct{} {
	o.mu.Lock()
	defer o.mu.Unlock()
	c := o.asked[x]
	if c == nil {
		c = make(chan struct{})
		o.asked[x] = c
	}
	return c
}

func (o *overlapping) handler(t *testing.T) modeltest.Handler {
	good := sparring.Handler(sparring.Options{})
	return func(r modeltest.Request) modeltest.Reply {
		switch modeltest.RoleOf(r) {
		case modeltest.Proposition:
			if m := exchangeOf.FindStringSubmatch(r.Messages[1].Content); m != nil {
				var x int
				fmt.Sscan(m[1], &x)
				c := o.chanFor(x)
				o.mu.Lock()
				select {
				case <-c:
				default:
					close(c)
				}
				o.mu.Unlock()
			}
		case modeltest.Judge:
			o.mu.Lock()
			x := o.judged
			o.judged++
			o.mu.Unlock()
			if x+1 < o.last {
				select {
				case <-o.chanFor(x + 1):
				case <-time.After(time.Minute):
					return modeltest.Failf("the judge of exchange %d waited a minute for the proposition of exchange %d to be asked", x, x+1)
				}
			}
		}
		return good(r)
	}
}

// sequentialRun runs a debate to exchanges, one step at a time, against
// the sparring partner, and returns its files and how many requests it
// made.
func sequentialRun(t *testing.T, exchanges int) (map[string]string, int) {
	t.Helper()
	srv := modeltest.NewServer(t, sparring.Handler(sparring.Options{}))
	d := newRunDebate(t)
	opts := options(client(t, srv))
	opts.Sequential = true
	if _, err := driver.Run(context.Background(), d, driver.Goal{Exchange: exchanges}, opts); err != nil {
		t.Fatal(err)
	}
	return runSnapshot(t, d), len(srv.Requests())
}

// TestPipelinedRunWritesTheSequentialFiles: the debaters of the next
// exchange are asked while the judge scores (the fake's judge answers only
// once they are), and the debate's files are byte for byte those of a run
// that asks one step at a time.
func TestPipelinedRunWritesTheSequentialFiles(t *testing.T) {
	const exchanges = 5
	seq, seqRequests := sequentialRun(t, exchanges)
	o := newOverlapping(exchanges)
	srv := modeltest.NewServer(t, o.handler(t))
	pip := newRunDebate(t)
	sum, err := driver.Run(context.Background(), pip, driver.Goal{Exchange: exchanges}, options(client(t, srv)))
	if err != nil {
		t.Fatal(err)
	}
	if sum.Steps != 2*exchanges || sum.Calls != 3*exchanges {
		t.Errorf("pipelined run: %d steps, %d calls; want %d and %d", sum.Steps, sum.Calls, 2*exchanges, 3*exchanges)
	}
	if diffs := fixture.Diff(seq, runSnapshot(t, pip)); len(diffs) > 0 {
		t.Errorf("the pipelined run's files differ from the sequential run's: %v", diffs)
	}
	if got, want := len(srv.Requests()), seqRequests; got != want {
		t.Errorf("the pipelined run made %d requests, the sequential %d", got, want)
	}
	kept, _ := filepath.Glob(filepath.Join(pip.Path(), ".moot", "answers", "*"))
	if len(kept) > 0 {
		t.Errorf("answers left kept after the run: %v", kept)
	}
}

// TestPipelinedRunStopsAtItsGoal: a run to a goal asks no call of a step
// past it, early or not.
func TestPipelinedRunStopsAtItsGoal(t *testing.T) {
	for _, tc := range []struct {
		name  string
		goal  driver.Goal
		calls int
	}{
		{"two exchanges", driver.Goal{Exchange: 2}, 6},
		{"two steps", driver.Goal{Steps: 2}, 3},
		{"three steps", driver.Goal{Steps: 3}, 5},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := modeltest.NewServer(t, sparring.Handler(sparring.Options{}))
			d := newRunDebate(t)
			sum, err := driver.Run(context.Background(), d, tc.goal, options(client(t, srv)))
			if err != nil {
				t.Fatal(err)
			}
			if n := len(srv.Requests()); n != tc.calls || sum.Calls != tc.calls {
				t.Errorf("%d requests (%d calls counted), want %d", n, sum.Calls, tc.calls)
			}
			kept, _ := filepath.Glob(filepath.Join(d.Path(), ".moot", "answers", "*"))
			if len(kept) > 0 {
				t.Errorf("answers kept for a step past the goal: %v", kept)
			}
		})
	}
}

// TestBeforeStepSeesEarlyPlans: a step asked ahead of its turn is shown to
// BeforeStep first, marked early, with the calls still out in flight and
// the answers already in spent, so that --budget counts them: the
// debaters of the next exchange, asked while the judge scores, with the
// judge's call among them (or its answer, when it has come); the judge
// may be asked early too, as soon as the arguments it reads are accepted
// (whether it is depends on whether they came before their step's turn
// to commit). Refused, its calls wait for their turn, and the run goes
// on; in its turn its plan is shown again.
func TestBeforeStepSeesEarlyPlans(t *testing.T) {
	for _, refuse := range []bool{false, true} {
		t.Run(fmt.Sprintf("refused %v", refuse), func(t *testing.T) {
			srv := modeltest.NewServer(t, sparring.Handler(sparring.Options{}))
			seq, _ := sequentialRun(t, 3)
			d := newRunDebate(t)
			opts := options(client(t, srv))
			var plans []driver.StepPlan
			opts.BeforeStep = func(p driver.StepPlan) error {
				plans = append(plans, p)
				if refuse && p.Early {
					return errors.New("not now")
				}
				return nil
			}
			var mu sync.Mutex
			var order []string
			opts.Emit = func(e driver.Event) {
				mu.Lock()
				defer mu.Unlock()
				switch {
				case e.Kind == driver.EventAsk && e.Role == "proposition":
					order = append(order, fmt.Sprintf("ask %d", e.Exchange))
				case e.Kind == driver.EventExchange:
					order = append(order, fmt.Sprintf("judged %d", e.Exchange))
				}
			}
			if _, err := driver.Run(context.Background(), d, driver.Goal{Exchange: 3}, opts); err != nil {
				t.Fatal(err)
			}
			if diffs := fixture.Diff(seq, runSnapshot(t, d)); len(diffs) > 0 {
				t.Errorf("files differ from the sequential run's: %v", diffs)
			}
			early := map[string]int{}
			for i, p := range plans {
				if !p.Early {
					continue
				}
				early[fmt.Sprintf("%s %d", p.Calls[0].Role, p.Unit)]++
				// The judge's call is counted: still out, or its answer
				// come (logged or not).
				judge := func(role string) bool { return role == "judge" }
				judged := slices.ContainsFunc(p.InFlight, func(c driver.PlannedCall) bool { return judge(c.Role) }) ||
					slices.ContainsFunc(p.Spent, func(u driver.Usage) bool { return judge(u.Role) && u.Exchange == p.Unit-1 })
				if p.Calls[0].Role != "judge" && !judged {
					t.Errorf("early plan of the debaters of exchange %d: in flight %+v, spent %+v, want the judge's call of exchange %d among them", p.Unit, p.InFlight, p.Spent, p.Unit-1)
				}
				// The step's own plan follows, in its turn.
				var own *driver.StepPlan
				for j := i + 1; j < len(plans); j++ {
					if plans[j].Key == p.Key && !plans[j].Early {
						own = &plans[j]
						break
					}
				}
				if own == nil {
					t.Fatalf("exchange %d: no plan in its turn after the early one", p.Unit)
				}
				for _, c := range own.Calls {
					if c.Kept == refuse {
						t.Errorf("exchange %d, refused early %v: its call %s in its turn counts as kept: %v", p.Unit, refuse, c.Role, c.Kept)
					}
				}
			}
			// The debaters of exchanges 1 and 2 are always foreseen
			// during the judgments of 0 and 1; each step is planned
			// early at most once.
			for k, n := range early {
				if n > 1 {
					t.Errorf("%s planned early %d times, want at most once", k, n)
				}
				if !slices.Contains([]string{"proposition 1", "proposition 2", "judge 0", "judge 1", "judge 2"}, k) {
					t.Errorf("%s planned early, which reads an answer not in yet", k)
				}
			}
			for _, k := range []string{"proposition 1", "proposition 2"} {
				if early[k] != 1 {
					t.Errorf("%s planned early %d times, want once: %v", k, early[k], early)
				}
			}
			// Refused early, the debaters of exchange x are asked after
			// the judgment of x-1 is committed, as in a sequential run.
			at := map[string]int{}
			for i, s := range order {
				at[s] = i
			}
			for x := 1; x < 3; x++ {
				if after := at[fmt.Sprintf("ask %d", x)] > at[fmt.Sprintf("judged %d", x-1)]; refuse && !after {
					t.Errorf("refused early, the proposition of exchange %d was asked before the judgment of %d was committed: %v", x, x-1, order)
				}
			}
		})
	}
}

// liar is dialectic whose foresight is wrong: the debaters' prompts it
// foresees carry a word that their prompts in their turn do not.
type liar struct{ dialectic.Protocol }

func (l liar) Load(files fs.FS) (sm.Debate, error) {
	deb, err := l.Protocol.Load(files)
	if err != nil {
		return nil, err
	}
	return lyingDebate{deb}, nil
}

type lyingDebate struct{ sm.Debate }

func (l lyingDebate) Ahead() (sm.Debate, bool, error) {
	ahead, ready, err := l.Debate.(sm.Lookahead).Ahead()
	if ahead == nil || err != nil {
		return nil, false, err
	}
	return foreseenWrongly{ahead}, ready, nil
}

type foreseenWrongly struct{ sm.Debate }

func (f foreseenWrongly) Next() (*sm.Step, error) {
	step, err := f.Debate.Next()
	if step == nil || err != nil {
		return step, err
	}
	for i := range step.Calls {
		msgs := append([]sm.Message(nil), step.Calls[i].Messages...)
		msgs[len(msgs)-1].Content += "\nForeseen."
		step.Calls[i].Messages = msgs
	}
	return step, nil
}

// TestWrongForesightIsAskedAgain: an answer asked early for a prompt its
// call does not have in its turn is never committed: the call is asked
// again, and the files are those of a sequential run, whatever the
// protocol claimed.
func TestWrongForesightIsAskedAgain(t *testing.T) {
	good := sparring.Handler(sparring.Options{})
	foreseen := 0
	var mu sync.Mutex
	handler := func(r modeltest.Request) modeltest.Reply {
		reply := good(r)
		last := r.Messages[len(r.Messages)-1].Content
		if strings.HasSuffix(last, "Foreseen.") {
			mu.Lock()
			foreseen++
			mu.Unlock()
			// A valid rebuttal, but another one.
			var a map[string]any
			if err := json.Unmarshal([]byte(reply.Content), &a); err != nil {
				return modeltest.Failf("foreseen answer: %v", err)
			}
			a["title"] = "An answer to a prompt never asked in its turn"
			data, _ := json.Marshal(a)
			reply.Content = string(data)
		}
		return reply
	}
	seq, _ := sequentialRun(t, 3)
	srv := modeltest.NewServer(t, handler)
	d := newRunDebate(t)
	opts := options(client(t, srv))
	sum, err := driver.Advance(context.Background(), d, liar{dialectic.Protocol{Templates: templates.Default()}}, driver.UnitGoal{Done: 3}, opts)
	if err != nil {
		t.Fatal(err)
	}
	if diffs := fixture.Diff(seq, runSnapshot(t, d)); len(diffs) > 0 {
		t.Errorf("files differ from the sequential run's: %v", diffs)
	}
	// The debaters of exchanges 1 and 2 are foreseen wrongly, unless the
	// arguments before them came first and they were planned from those
	// (then rightly): each call foreseen wrongly is asked again.
	// (One called off before it reached the server is not counted.)
	if n := len(srv.Requests()); foreseen < 1 || foreseen > 4 || n != 9+foreseen || sum.Calls < n {
		t.Errorf("%d requests foreseen wrongly, %d in all (%d calls counted); want 1 to 4 (the debaters of exchanges 1 and 2) and 9 more", foreseen, n, sum.Calls)
	}
}

// TestWrongForesightKeptIsDropped: an answer kept by a call asked early
// for another prompt than its call has in its turn is dropped by the next
// run, which asks again.
func TestWrongForesightKeptIsDropped(t *testing.T) {
	srv := modeltest.NewServer(t, sparring.Handler(sparring.Options{}))
	d := newRunDebate(t)
	if _, err := driver.Run(context.Background(), d, driver.Goal{Exchange: 1}, options(client(t, srv))); err != nil {
		t.Fatal(err)
	}
	// What a run killed after an early answer came would have kept: an
	// answer for exchange 1's proposition, for another prompt.
	answers := filepath.Join(d.Path(), ".moot", "answers")
	if err := os.MkdirAll(answers, 0o755); err != nil {
		t.Fatal(err)
	}
	var a1 map[string]any
	if err := json.Unmarshal(dialectictest.Answer(dialectic.Prop, 1), &a1); err != nil {
		t.Fatal(err)
	}
	a1["title"] = "An answer kept for another prompt"
	other, _ := json.Marshal(a1)
	meta := `{"model":"fake-model","attempts":1,"prompt":"0123456789abcdef0123456789abcdef"}`
	for name, data := range map[string]string{"00001-proposition.json": string(other), "00001-proposition.meta": meta} {
		if err := os.WriteFile(filepath.Join(answers, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	before := len(srv.Requests())
	if _, err := driver.Run(context.Background(), d, driver.Goal{Steps: 1}, options(client(t, srv))); err != nil {
		t.Fatal(err)
	}
	if n := len(srv.Requests()) - before; n != 2 {
		t.Errorf("%d requests, want 2: the proposition's kept answer, for another prompt, asked again", n)
	}
	deb, err := driver.Load(d)
	if err != nil {
		t.Fatal(err)
	}
	id := dialectic.ArgumentIDs(1, dialectic.Prop)[0]
	a, ok := deb.Argument(id)
	if !ok || a.Title == "" || a.Title == a1["title"] {
		t.Errorf("prop_001 = %+v: want the answer asked again, not the one kept for another prompt", a)
	}
}

// tokenBudget is a BeforeStep that keeps a run's answers under limit
// tokens as --budget keeps its cost under a sum: what the plan's Spent
// answered, plus its calls in flight and its own calls (but those kept)
// at the mean answer of Spent (1,000 tokens before any), must stay at
// most limit. stops records the plans it refused.
type tokenBudget struct {
	limit int
	mu    sync.Mutex
	stops []driver.StepPlan
}

func (b *tokenBudget) check(p driver.StepPlan) error {
	spent, n := 0, 0
	for _, u := range p.Spent {
		if u.OK {
			spent += u.CompletionTokens
			n++
		}
	}
	mean := 1000
	if n > 0 {
		mean = spent / n
	}
	total := spent + mean*len(p.InFlight)
	for _, c := range p.Calls {
		if !c.Kept {
			total += mean
		}
	}
	if total > b.limit {
		b.mu.Lock()
		b.stops = append(b.stops, p)
		b.mu.Unlock()
		return fmt.Errorf("over budget before %s: %d tokens", p.Key, total)
	}
	return nil
}

// TestEarlyCallsPassTheBudget: a call asked ahead of its turn passes the
// check of Options.BeforeStep (moot run --budget) first, and that check
// sees what every answer already in cost, logged or not: answers of 5,000
// tokens, estimated at 1,000 before any has come, under a budget of
// 12,000. The two arguments of exchange 0 pass (2,000 estimated); the
// judge, which reads them, is estimated from their 10,000 and refused,
// early and in its turn, and nothing after it is asked: the run stops
// where a run of one step at a time stops, after two requests. A run that
// asked the judge, or the next arguments, as soon as the arguments came,
// with them counted at their estimate in flight, spent 25,000.
func TestEarlyCallsPassTheBudget(t *testing.T) {
	good := sparring.Handler(sparring.Options{})
	srv := modeltest.NewServer(t, func(r modeltest.Request) modeltest.Reply {
		reply := good(r)
		reply.CompletionTokens = 5000
		return reply
	})
	for _, sequential := range []bool{true, false} {
		t.Run(fmt.Sprintf("sequential %v", sequential), func(t *testing.T) {
			before := len(srv.Requests())
			d := newRunDebate(t)
			opts := options(client(t, srv))
			opts.Sequential = sequential
			b := &tokenBudget{limit: 12000}
			opts.BeforeStep = b.check
			sum, err := driver.Run(context.Background(), d, driver.Goal{Exchange: 3}, opts)
			if err == nil || !strings.Contains(err.Error(), "over budget before 00000: 15000 tokens") {
				t.Fatalf("run: %v; want it stopped before the judgment of exchange 0, at 15000 tokens", err)
			}
			if n := len(srv.Requests()) - before; n != 2 || sum.Calls != 2 || sum.CompletionTokens != 10000 {
				t.Errorf("%d requests, %d calls, %d tokens answered; want the 2 arguments of exchange 0, 10000 tokens", n, sum.Calls, sum.CompletionTokens)
			}
			last := b.stops[len(b.stops)-1]
			if last.Early || len(last.Calls) != 1 || last.Calls[0].Role != "judge" {
				t.Errorf("the run stopped at %+v, want the judge's plan in its turn", last)
			}
		})
	}
}

// TestEveryRequestIsPlannedFirst: every request a pipelined run makes
// belongs to a call that a plan shown to Options.BeforeStep, early or in
// its turn, listed as to be asked (not kept) and that BeforeStep let go,
// before the request came.
func TestEveryRequestIsPlannedFirst(t *testing.T) {
	var mu sync.Mutex
	approved := map[string]int{} // by role
	var unplanned []string
	asked := map[string]int{}
	good := sparring.Handler(sparring.Options{})
	srv := modeltest.NewServer(t, func(r modeltest.Request) modeltest.Reply {
		role := string(modeltest.RoleOf(r))
		mu.Lock()
		asked[role]++
		if asked[role] > approved[role] {
			unplanned = append(unplanned, fmt.Sprintf("%s's request %d", role, asked[role]))
		}
		mu.Unlock()
		return good(r)
	})
	d := newRunDebate(t)
	opts := options(client(t, srv))
	opts.BeforeStep = func(p driver.StepPlan) error {
		mu.Lock()
		defer mu.Unlock()
		for _, c := range p.Calls {
			if !c.Kept {
				approved[c.Role]++
			}
		}
		return nil
	}
	if _, err := driver.Run(context.Background(), d, driver.Goal{Exchange: 4}, opts); err != nil {
		t.Fatal(err)
	}
	if len(unplanned) > 0 {
		t.Errorf("requests made before a plan let their call go: %v", unplanned)
	}
	if n := len(srv.Requests()); n != 12 {
		t.Errorf("%d requests, want 12", n)
	}
}
