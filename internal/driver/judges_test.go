package driver_test

import (
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	driver "github.com/moot-dev/moot/internal/driver"
	"github.com/moot-dev/moot/internal/judging"
	"github.com/moot-dev/moot/internal/testkit/fixture"
	"github.com/moot-dev/moot/internal/testkit/modeltest"
	sm "github.com/moot-dev/moot/statemachine"
	"github.com/moot-dev/moot/statemachine/dialectic"
	"github.com/moot-dev/moot/statemachine/dialectic/dialectictest/judgefake"
	"github.com/moot-dev/moot/statemachine/dialectic/dialectictest/sparring"
	"github.com/moot-dev/moot/templates"
)

// rejudgeCopy judges the debate at src again, on a copy, with a scripted
// judge, and checks that every original file is byte-identical, that the
// judgment is in judgments/again/ with its record, and that the debate
// passes its check.
func rejudgeCopy(t *testing.T, src string, exchanges int) {
	t.Helper()
	dir := filepath.Join(t.TempDir(), filepath.Base(src))
	if err := fixture.CopyTree(src, dir); err != nil {
		t.Fatal(err)
	}
	before := snapshot(t, dir, false)
	var mu sync.Mutex
	var asked []string // the re-judge's last messages, in order
	fake := judgefake.Handler(map[string]judgefake.Scorer{"scripted": judgefake.Lean(0.2)}, sparring.Handler(sparring.Options{}))
	srv := modeltest.NewServer(t, func(req modeltest.Request) modeltest.Reply {
		if req.Model == "scripted" && len(req.Messages) > 0 {
			mu.Lock()
			asked = append(asked, req.Messages[len(req.Messages)-1].Content)
			mu.Unlock()
		}
		return fake(req)
	})
	d := openDir(t, dir)
	p := dialectic.Protocol{Templates: templates.Default()}
	rj := sm.Rejudging{Judge: sm.Judge{Name: "again", Model: "scripted"}, To: -1}
	sum, err := driver.Rejudge(context.Background(), d, p, rj, options(client(t, srv)))
	if err != nil {
		t.Fatal(err)
	}
	if sum.Steps != exchanges {
		t.Errorf("%d steps, want one per judged exchange, %d", sum.Steps, exchanges)
	}
	after := snapshot(t, dir, false)
	for name, data := range before {
		if strings.HasPrefix(name, ".moot/") {
			continue // moot's own bookkeeping
		}
		if after[name] != data {
			t.Errorf("%s changed", name)
		}
	}
	for name := range after {
		if _, ok := before[name]; !ok && name != "judgments/" && !strings.HasPrefix(name, "judgments/again/") && !strings.HasPrefix(name, ".moot/") {
			t.Errorf("%s was written outside judgments/again/", name)
		}
	}
	for _, f := range []string{"judgments/again/scores.json", "judgments/again/judge.json"} {
		if _, ok := after[f]; !ok {
			t.Errorf("no %s", f)
		}
	}
	deb, err := driver.ReadDebate(readDir(t, dir), p)
	if err != nil {
		t.Fatal(err)
	}
	if f := deb.Check(); len(f.Problems) > 0 {
		t.Errorf("check finds problems after the re-judging: %v", f.Problems)
	}
	j := deb.(sm.Judged).Judgments()
	if len(j.Judges) != 2 || j.Judges[1].Name != "again" || j.Judges[1].Kind != sm.KindRejudge {
		t.Fatalf("judges %+v, want the debate's own and again", j.Judges)
	}
	for _, a := range j.Items {
		if a.Unit >= exchanges {
			continue
		}
		want := 0.1
		if strings.HasPrefix(a.ID, "opp_") {
			want = -0.1
		}
		if got, ok := j.Judges[1].Final[a.ID]; !ok || got != want {
			t.Errorf("the re-judging's score of %s is %v, want %v", a.ID, got, want)
		}
	}
	// The re-judge judges exchange 1 seeing its own scores of exchange
	// 0, not the debate's.
	mu.Lock()
	if len(asked) < 2 || !strings.Contains(asked[1], "- prop_000a: +0.10\n") || !strings.Contains(asked[1], "- opp_000a: -0.10\n") {
		t.Errorf("the re-judge's prompt of exchange 1 does not show its own earlier scores")
	}
	mu.Unlock()
	// Judging again resumes nothing and writes nothing more.
	if sum, err := driver.Rejudge(context.Background(), d, p, rj, options(client(t, srv))); err != nil || sum.Steps != 0 {
		t.Errorf("a finished re-judging ran again: %d steps, %v", sum.Steps, err)
	}
}

// TestRejudgeCompat: the original tool's debate, judged again, keeps
// every file it had byte for byte and passes check.
func TestRejudgeCompat(t *testing.T) {
	rejudgeCopy(t, compatDir(t), 5)
}

// TestRejudgeOwnDebate: the same on a debate of moot's own, so that a
// clone without ../shared tests it too.
func TestRejudgeOwnDebate(t *testing.T) {
	rejudgeCopy(t, newDebate(t, t.TempDir(), 3, false), 3)
}

// TestPanelOfThree: three scripted judges of known scores judge two
// exchanges; each keeps its own scores, the official ones are their means
// (computed here by hand), and the judges' agreement is the alpha
// computed independently in internal/judging's tests.
func TestPanelOfThree(t *testing.T) {
	ids := append(dialectic.ExchangeIDs(0), dialectic.ExchangeIDs(1)...)
	tables := map[string][]float64{
		"j1": {0.3, 0.1, -0.2, 0.1, -0.2, -0.1, 0.15, -0.15},
		"j2": {0.2, 0.2, -0.1, 0.0, -0.2, -0.1, 0.1, -0.1},
		"j3": {0.4, 0.0, -0.3, 0.2, -0.1, -0.2, -0.05, 0.05},
	}
	scorers := map[string]judgefake.Scorer{}
	for name, vals := range tables {
		m := map[string]float64{}
		for i, id := range ids {
			m[id] = vals[i]
		}
		scorers[name] = judgefake.Table(m)
	}
	var mu sync.Mutex
	prompts := map[string][]string{} // by judge, the user messages asked
	fake := judgefake.Handler(scorers, sparring.Handler(sparring.Options{}))
	srv := modeltest.NewServer(t, func(req modeltest.Request) modeltest.Reply {
		if _, ok := tables[req.Model]; ok && len(req.Messages) > 0 {
			mu.Lock()
			prompts[req.Model] = append(prompts[req.Model], req.Messages[len(req.Messages)-1].Content)
			mu.Unlock()
		}
		return fake(req)
	})
	d := newRunDebate(t)
	p := dialectic.Protocol{Templates: templates.Default()}
	panel, err := sm.NewPanel([]string{"j1", "j2", "j3"})
	if err != nil {
		t.Fatal(err)
	}
	if changed, err := driver.SetPanel(d, p, panel); err != nil || !changed {
		t.Fatalf("SetPanel: %v %v", changed, err)
	}
	if _, err := driver.Run(context.Background(), d, driver.Goal{Exchange: 2}, options(client(t, srv))); err != nil {
		t.Fatal(err)
	}
	deb, err := driver.Load(d)
	if err != nil {
		t.Fatal(err)
	}
	// The means: (0.3+0.2+0.4)/3 = 0.3, (0.1+0.2+0)/3 = 0.1, ...,
	// (-0.2-0.2-0.1)/3 = -0.1667 -> -0.167, (-0.1-0.1-0.2)/3 = -0.1333 ->
	// -0.133; (0.15+0.1-0.05)/3 = 0.0667 -> 0.067 and its opposite.
	want := []float64{0.3, 0.1, -0.2, 0.1, -0.167, -0.133, 0.067, -0.067}
	current := deb.Scores.Current()
	for i, id := range ids {
		if got := current[id]; got != want[i] {
			t.Errorf("official score of %s = %v, want %v", id, got, want[i])
		}
	}
	if deb.Header.Totals.Proposition.Total+deb.Header.Totals.Opposition.Total != 0 {
		t.Errorf("totals %+v do not sum to zero", deb.Header.Totals)
	}
	step, err := driver.ReadDebate(d, p)
	if err != nil {
		t.Fatal(err)
	}
	j := step.(sm.Judged).Judgments()
	if j.Aggregate == nil || len(j.Judges) != 3 {
		t.Fatalf("judgments: aggregate %v, %d judges; want the aggregate and 3", j.Aggregate != nil, len(j.Judges))
	}
	for _, js := range j.Judges {
		for i, id := range ids {
			if got := js.Final[id]; got != tables[js.Name][i] {
				t.Errorf("%s's own score of %s = %v, want %v", js.Name, id, got, tables[js.Name][i])
			}
		}
	}
	// Each judge judges exchange 1 seeing its own scores of exchange 0,
	// not the panel's means.
	for name, vals := range tables {
		asked := prompts[name]
		if len(asked) != 2 {
			t.Fatalf("%s was asked %d times, want 2", name, len(asked))
		}
		// An earlier argument shown in full has its score in the scores'
		// list, one shown in the index on its index line.
		for i, id := range dialectic.ExchangeIDs(0) {
			score := dialectic.FormatScore(vals[i])
			listed := fmt.Sprintf("- %s: %s\n", id, score)
			indexed := fmt.Sprintf("- %s (%s, current score %s): ", id, strings.SplitN(id, "_", 2)[0], score)
			indexed = strings.Replace(strings.Replace(indexed, "(prop,", "(proposition,", 1), "(opp,", "(opposition,", 1)
			if !strings.Contains(asked[1], listed) && !strings.Contains(asked[1], indexed) {
				t.Errorf("%s's prompt of exchange 1 lacks its own score %q", name, score+" of "+id)
			}
		}
	}
	r := judging.Compare("demo", j)
	if r.Alpha == nil || math.Abs(*r.Alpha-0.738056) > 5e-4 {
		t.Errorf("alpha = %v, want 0.738", r.Alpha)
	}
}

// TestRejudgeJudgeContext: a re-judging reads the debate's judge context,
// the focused default, unless --judge-context names another for its run,
// which it does not store in debate.md.
func TestRejudgeJudgeContext(t *testing.T) {
	for _, tc := range []struct {
		ctx  dialectic.JudgeContext
		want string
	}{
		{"", "## The arguments to judge, and the earlier ones they attack or defend"},
		{dialectic.ContextFull, "## Every argument, in the order it was made"},
	} {
		name := string(tc.ctx)
		if name == "" {
			name = "default"
		}
		t.Run(name, func(t *testing.T) {
			dir := newDebate(t, t.TempDir(), 3, false)
			header, err := os.ReadFile(filepath.Join(dir, sm.StateFile))
			if err != nil {
				t.Fatal(err)
			}
			var mu sync.Mutex
			var asked []string
			fake := judgefake.Handler(map[string]judgefake.Scorer{"scripted": judgefake.Lean(0.2)}, sparring.Handler(sparring.Options{}))
			srv := modeltest.NewServer(t, func(req modeltest.Request) modeltest.Reply {
				if req.Model == "scripted" {
					mu.Lock()
					asked = append(asked, req.Messages[len(req.Messages)-1].Content)
					mu.Unlock()
				}
				return fake(req)
			})
			opts := options(client(t, srv))
			opts.Overrides.JudgeContext = string(tc.ctx)
			rj := sm.Rejudging{Judge: sm.Judge{Name: "again", Model: "scripted"}, To: -1}
			if _, err := driver.Rejudge(context.Background(), openDir(t, dir), dialectic.Protocol{Templates: templates.Default()}, rj, opts); err != nil {
				t.Fatal(err)
			}
			mu.Lock()
			defer mu.Unlock()
			if len(asked) != 3 {
				t.Fatalf("the re-judge was asked %d times, want 3", len(asked))
			}
			for i, p := range asked {
				if !strings.Contains(p, tc.want) {
					t.Errorf("prompt %d lacks %q", i, tc.want)
				}
			}
			if after, err := os.ReadFile(filepath.Join(dir, sm.StateFile)); err != nil || string(after) != string(header) {
				t.Errorf("the re-judging changed debate.md (%v)", err)
			}
		})
	}
}
