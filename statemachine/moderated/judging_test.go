package moderated_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/moot-dev/moot/internal/driver"
	"github.com/moot-dev/moot/internal/frontmatter"
	"github.com/moot-dev/moot/internal/testkit/fixture"
	"github.com/moot-dev/moot/internal/testkit/modeltest"
	"github.com/moot-dev/moot/internal/testkit/protocoltest"
	sm "github.com/moot-dev/moot/statemachine"
	"github.com/moot-dev/moot/statemachine/moderated"
	"github.com/moot-dev/moot/statemachine/moderated/moderatedtest"
)

// Three scripted judges of known marks, in the rubric's order (weights
// 0.25, 0.25, 0.20, 0.15, 0.15). Their totals, by hand: a 2 + 1.5 + 1.4
// + 1.05 + 1.35 = 7.30; b 1.75 + 1.25 + 1.8 + 0.9 + 1.2 = 6.90; c 1.5 +
// 1.875 + 0.8 + 1.35 + 1.425 = 6.95.
var threeJudges = map[string][]float64{
	"a": {8, 6, 7, 7, 9},
	"b": {7, 5, 9, 6, 8},
	"c": {6, 7.5, 4, 9, 9.5},
}

// The panel's aggregate of a, b and c, by hand: each criterion's mean,
// to two decimals, and the total from those means: 7×0.25 + 6.17×0.25 +
// 6.67×0.2 + 7.33×0.15 + 8.83×0.15 = 1.75 + 1.5425 + 1.334 + 1.0995 +
// 1.3245 = 7.0505, so 7.05.
var (
	threeMeans = map[string]float64{"logical_coherence": 7, "evidence_quality": 6.17, "responsiveness": 6.67, "persuasiveness": 7.33, "rule_adherence": 8.83}
	threeTotal = 7.05
)

// setPanel stores a panel of the models in the debate in dir, as moot run
// --judges does.
func setPanel(t *testing.T, dir string, models ...string) []sm.Judge {
	t.Helper()
	return protocoltest.SetPanel(t, moderated.Protocol{}, dir, models...)
}

// rejudge runs the re-judging rj of the debate in dir against the fake
// server at url.
func rejudge(t *testing.T, ctx context.Context, dir, url string, rj sm.Rejudging) (driver.Summary, error) {
	t.Helper()
	return protocoltest.Rejudge(t, ctx, moderated.Protocol{}, dir, rj, protocoltest.Served(t, url))
}

// scoreOf reads a score file in Markdown: its criteria and its total.
func scoreOf(t *testing.T, data string) (map[string]moderated.Mark, float64) {
	t.Helper()
	front, _, err := frontmatter.Parse([]byte(data))
	if err != nil {
		t.Fatal(err)
	}
	var marks map[string]moderated.Mark
	var total float64
	if err := front.Decode("criteria", &marks); err != nil {
		t.Fatal(err)
	}
	if err := front.Decode("total", &total); err != nil {
		t.Fatal(err)
	}
	return marks, total
}

// under lists the files of fs under prefix, with their full names.
func under(fs map[string]string, prefix string) []string {
	var out []string
	for _, n := range protocoltest.Under(fs, prefix) {
		out = append(out, prefix+n)
	}
	return out
}

// TestPanelScore: the aggregate of known rubrics is the mean of each
// criterion to two decimals, half away from zero, and the total from
// those means, whatever the judges' order.
func TestPanelScore(t *testing.T) {
	crit := moderated.DefaultCriteria()
	score := func(marks []float64) moderated.Score {
		sc := moderated.Score{Message: 8, Participant: "p", Marks: map[string]moderated.Mark{}}
		for i, c := range crit {
			sc.Names = append(sc.Names, c.Name)
			sc.Marks[c.Name] = moderated.Mark{Raw: marks[i], Weight: c.Weight}
		}
		return sc
	}
	tests := []struct {
		name   string
		judges [][]float64
		means  []float64
		total  float64
	}{
		{"three judges", [][]float64{threeJudges["a"], threeJudges["b"], threeJudges["c"]}, []float64{7, 6.17, 6.67, 7.33, 8.83}, 7.05},
		{"the same, in another order", [][]float64{threeJudges["c"], threeJudges["a"], threeJudges["b"]}, []float64{7, 6.17, 6.67, 7.33, 8.83}, 7.05},
		// 7.125 is halfway: it rounds up to 7.13. Total: 7.13×0.25 +
		// 5.5×0.25 + 10×0.2 + 0×0.15 + 2.5×0.15 = 1.7825 + 1.375 + 2 +
		// 0 + 0.375 = 5.5325, so 5.53.
		{"two judges, a half", [][]float64{{7.25, 5, 10, 0, 2}, {7, 6, 10, 0, 3}}, []float64{7.13, 5.5, 10, 0, 2.5}, 5.53},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var scores []moderated.Score
			var names []string
			for k, m := range tt.judges {
				scores = append(scores, score(m))
				names = append(names, fmt.Sprint("j", k))
			}
			got := moderated.PanelScore(crit, names, scores)
			for i, c := range crit {
				mk := got.Marks[c.Name]
				if math.Abs(mk.Raw-tt.means[i]) > 1e-9 {
					t.Errorf("%s: mean %v, want %v", c.Name, mk.Raw, tt.means[i])
				}
				if want := math.Round(tt.means[i]*c.Weight*10000) / 10000; math.Abs(mk.Weighted-want) > 1e-9 {
					t.Errorf("%s: weighted %v, want %v", c.Name, mk.Weighted, want)
				}
				if !strings.HasPrefix(mk.Justification, fmt.Sprintf("mean of the panel's %d judges: j0 ", len(tt.judges))) {
					t.Errorf("%s: justification %q", c.Name, mk.Justification)
				}
			}
			if math.Abs(got.Total-tt.total) > 1e-9 || got.Message != 8 || got.Participant != "p" {
				t.Errorf("total %v of message %d by %q, want %v of 8 by p", got.Total, got.Message, got.Participant, tt.total)
			}
		})
	}
}

// TestPanelRun: a panel of three scripted judges scores every argument
// and rebuttal in parallel, only the scoring calls go to the judges'
// models, each judge's rubric is kept in its own folder as scores/ keeps
// the moderator's, and the official score is the aggregate computed by
// hand; check passes and Judgments reports every judge.
func TestPanelRun(t *testing.T) {
	for _, format := range []string{"md", "txt", "json"} {
		t.Run(format, func(t *testing.T) {
			srv := modeltest.NewServer(t, moderatedtest.Handler(moderatedtest.Options{Judges: threeJudges}))
			dir := newDebate(t, map[string]string{"rounds": "1", "output-format": format})
			panel := setPanel(t, dir, "a", "b", "c")
			if _, err := advance(t, context.Background(), dir, srv.URL, driver.UnitGoal{All: true}); err != nil {
				t.Fatal(err)
			}
			fs := files(t, dir)
			// 21 messages and 4 statements scored by 3 judges each.
			reqs := srv.Requests()
			if len(reqs) != 21+4*3 {
				t.Errorf("%d requests, want 33", len(reqs))
			}
			asked := map[string]int{}
			for _, r := range reqs {
				if moderatedtest.Kind(r) == "scorer" {
					asked[r.Model]++
				} else if r.Model != "fake" {
					t.Errorf("a %s request went to model %s", moderatedtest.Kind(r), r.Model)
				}
			}
			if asked["a"] != 4 || asked["b"] != 4 || asked["c"] != 4 || len(asked) != 3 {
				t.Errorf("scoring requests by model: %v, want 4 each of a, b and c", asked)
			}
			for _, j := range panel {
				rec := fs["judgments/"+j.Name+"/judge.json"]
				var r sm.JudgeRecord
				if err := json.Unmarshal([]byte(rec), &r); err != nil || r.Kind != sm.KindPanel || r.Model != j.Model || r.From != 1 || r.To != nil {
					t.Errorf("judgments/%s/judge.json = %+v (%v):\n%s", j.Name, r, err, rec)
				}
				if got := under(fs, "judgments/"+j.Name+"/scores/"); len(got) != 4 {
					t.Errorf("judge %s's scores: %v, want 4", j.Name, got)
				}
			}
			if got := len(under(fs, "scores/")); got != 4 {
				t.Errorf("%d official scores, want 4", got)
			}
			deb := loaded(t, dir)
			if f := deb.Check(); !f.OK() {
				t.Errorf("check: %v", f.Problems)
			}
			if format == "md" {
				for _, name := range under(fs, "scores/") {
					marks, total := scoreOf(t, fs[name])
					for c, want := range threeMeans {
						if math.Abs(marks[c].Raw-want) > 1e-9 {
							t.Errorf("%s: %s %v, want %v", name, c, marks[c].Raw, want)
						}
					}
					if math.Abs(total-threeTotal) > 1e-9 {
						t.Errorf("%s: total %v, want %v", name, total, threeTotal)
					}
					if !strings.Contains(marks["rule_adherence"].Justification, "mean of the panel's 3 judges: a 9, b 8, c 9.5") {
						t.Errorf("%s: justification %q", name, marks["rule_adherence"].Justification)
					}
				}
				for j, want := range map[string]float64{"a": 7.30, "b": 6.90, "c": 6.95} {
					for _, name := range under(fs, "judgments/"+j+"/scores/") {
						if _, total := scoreOf(t, fs[name]); math.Abs(total-want) > 1e-9 {
							t.Errorf("%s: total %v, want %v", name, total, want)
						}
						if !strings.Contains(fs[name], "JUST-"+j+"-") {
							t.Errorf("%s is not judge %s's reply:\n%s", name, j, fs[name])
						}
					}
				}
				if !strings.Contains(fs["summary.md"], "| Advocate A | Cities should ban cars. | 2 | 7.05 | 7.05 |") {
					t.Errorf("summary.md does not give the aggregate:\n%s", fs["summary.md"])
				}
				if !strings.Contains(fs["metadata.md"], "A panel of 3 judges scores the statements: a (a), b (b), c (c).") {
					t.Errorf("metadata.md does not name the panel:\n%s", fs["metadata.md"])
				}
			}
			j := deb.(sm.Judged).Judgments()
			if j.Min != 0 || j.Max != 10 || !j.FirstSpeaker || j.Unit != "exchange" {
				t.Errorf("Judgments: min %v max %v first %v unit %q", j.Min, j.Max, j.FirstSpeaker, j.Unit)
			}
			type item struct {
				id, side string
				first    bool
			}
			var items []item
			for _, it := range j.Items {
				items = append(items, item{it.ID, it.Side, it.First})
				if it.Unit != 1 || it.Length == 0 {
					t.Errorf("item %s: unit %d, length %d", it.ID, it.Unit, it.Length)
				}
			}
			want := []item{{"008", "proposition", true}, {"010", "opposition", false}, {"012", "opposition", false}, {"014", "proposition", true}}
			if fmt.Sprint(items) != fmt.Sprint(want) {
				t.Errorf("items %v, want %v", items, want)
			}
			if j.Aggregate == nil || j.Aggregate.Final["008"] != threeTotal || len(j.Aggregate.Final) != 4 {
				t.Errorf("aggregate %+v, want 7.05 for each of 4", j.Aggregate)
			}
			got := map[string]string{}
			for _, js := range j.Judges {
				got[js.Name] = fmt.Sprintf("%s %s %v %v", js.Kind, js.Model, js.Final["014"], js.First["014"])
			}
			wantJ := map[string]string{"a": "panel a 7.3 7.3", "b": "panel b 6.9 6.9", "c": "panel c 6.95 6.95"}
			if fmt.Sprint(got) != fmt.Sprint(wantJ) {
				t.Errorf("judges %v, want %v", got, wantJ)
			}
		})
	}
}

// TestPanelRefusedByOneJudge: a judge whose rubric stays out of range
// after every repair refuses the whole scoring step: the error names its
// model, and not a file is written, the other judge's rubric included.
func TestPanelRefusedByOneJudge(t *testing.T) {
	srv := modeltest.NewServer(t, moderatedtest.Handler(moderatedtest.Options{Judges: map[string][]float64{"good": {8}, "bad": {11}}}))
	dir := newDebate(t, map[string]string{"rounds": "1"})
	setPanel(t, dir, "good", "bad")
	// Up to the first statement scored: 8 messages.
	if _, err := advance(t, context.Background(), dir, srv.URL, driver.UnitGoal{Steps: 8}); err != nil {
		t.Fatal(err)
	}
	before := files(t, dir)
	_, err := advance(t, context.Background(), dir, srv.URL, driver.UnitGoal{All: true})
	var re *driver.RoleError
	if !errors.As(err, &re) || !strings.Contains(err.Error(), "on model bad") || !strings.Contains(err.Error(), "outside 0 to 10") {
		t.Fatalf("err = %v, want the judge on model bad refused", err)
	}
	if d := fixture.Diff(before, files(t, dir)); len(d) > 0 {
		t.Errorf("a refused panel step wrote:\n%s", strings.Join(d, "\n"))
	}
	deb := loaded(t, dir)
	if f := deb.Check(); !f.OK() {
		t.Errorf("check: %v", f.Problems)
	}
	if st := deb.Status(); st.Next != "the panel of 2 judges scores Advocate A's round 1 argument (message 008)" {
		t.Errorf("next: %q", st.Next)
	}

	// Apply itself refuses the pair, whatever the good judge said.
	step, err := deb.Next()
	if err != nil || len(step.Calls) != 2 {
		t.Fatalf("Next = %+v, %v", step, err)
	}
	ids := map[string]bool{}
	for _, c := range step.Calls {
		ids[c.ID+"@"+c.Model] = true
		if c.Role != moderated.RoleModerator {
			t.Errorf("call %s is for role %s", c.ID, c.Role)
		}
	}
	if !ids["moderator-good@good"] || !ids["moderator-bad@bad"] {
		t.Errorf("calls %v", ids)
	}
	good := `{"logical_coherence": {"score": 8, "justification": "x"}, "evidence_quality": {"score": 8, "justification": "x"}, "responsiveness": {"score": 8, "justification": "x"}, "persuasiveness": {"score": 8, "justification": "x"}, "rule_adherence": {"score": 8, "justification": "x"}}`
	bad := strings.Replace(good, `"score": 8`, `"score": 12`, 1)
	c, err := step.Apply(map[string]sm.Answer{"moderator-good": {Text: []byte(good)}, "moderator-bad": {Text: []byte(bad)}}, when)
	var refused *sm.Refused
	if !errors.As(err, &refused) || c != nil || refused.Role != moderated.RoleModerator || !strings.Contains(refused.Error(), "judge bad: logical_coherence.score: 12 is outside 0 to 10") {
		t.Errorf("Apply = %v, %v; want a refusal naming judge bad", c, err)
	}
	if c, err := step.Apply(map[string]sm.Answer{"moderator-good": {Text: []byte(good)}, "moderator-bad": {Text: []byte(good)}}, when); err != nil || len(c.Files) == 0 {
		t.Errorf("Apply of two good rubrics = %v, %v", c, err)
	}
}

// TestRejudge: scoring a saved debate again with another model asks it,
// on its model, exactly the requests the moderator's scoring got, writes
// its rubrics and record under judgments/NAME/ alone, leaves every other
// file byte-identical and passes check; run again it asks nothing, and a
// name taken by another model is refused.
func TestRejudge(t *testing.T) {
	srv := modeltest.NewServer(t, moderatedtest.Handler(moderatedtest.Options{Judges: threeJudges}))
	dir := newDebate(t, map[string]string{"rounds": "2", "fact-checker": "true"})
	if _, err := advance(t, context.Background(), dir, srv.URL, driver.UnitGoal{All: true}); err != nil {
		t.Fatal(err)
	}
	original := files(t, dir)
	scoring := of(srv.Requests(), "scorer")
	again := modeltest.NewServer(t, moderatedtest.Handler(moderatedtest.Options{Judges: threeJudges}))
	sum, err := rejudge(t, context.Background(), dir, again.URL, sm.Rejudging{Judge: sm.Judge{Name: "second", Model: "b"}, To: -1})
	if err != nil {
		t.Fatal(err)
	}
	reqs := again.Requests()
	if len(reqs) != 8 || sum.Steps != 8 {
		t.Fatalf("%d requests in %d steps, want 8 of each", len(reqs), sum.Steps)
	}
	// The same requests, each once, in any order: a pipelined run asks a
	// statement's score as soon as the statement has come, so the order
	// the moderator's scores reached the fake is not the steps' order.
	left := map[string]int{}
	for _, r := range scoring {
		left[fmt.Sprint(r.Messages)]++
	}
	for i, r := range reqs {
		if r.Model != "b" || left[fmt.Sprint(r.Messages)] == 0 {
			t.Errorf("request %d on %s is none of the moderator's scoring requests, or one asked twice:\n%v", i+1, r.Model, r.Messages)
		}
		left[fmt.Sprint(r.Messages)]--
	}
	now := files(t, dir)
	added := protocoltest.Added(t, original, now)
	for _, name := range added {
		if !strings.HasPrefix(name, "judgments/second/") {
			t.Errorf("%s written outside judgments/second/", name)
		}
	}
	if len(added) != 9 {
		t.Errorf("%d files added, want a record and 8 rubrics: %v", len(added), added)
	}
	var rec sm.JudgeRecord
	if err := json.Unmarshal([]byte(now["judgments/second/judge.json"]), &rec); err != nil || rec.Kind != sm.KindRejudge || rec.Model != "b" || rec.From != 1 || rec.To != nil {
		t.Errorf("judge.json = %+v (%v)", rec, err)
	}
	for _, name := range under(now, "judgments/second/scores/") {
		if _, total := scoreOf(t, now[name]); math.Abs(total-6.9) > 1e-9 {
			t.Errorf("%s: total %v, want 6.90", name, total)
		}
	}
	deb := loaded(t, dir)
	if f := deb.Check(); !f.OK() {
		t.Errorf("check: %v", f.Problems)
	}
	j := deb.(sm.Judged).Judgments()
	if len(j.Judges) != 2 || j.Aggregate != nil || j.Judges[0].Kind != sm.KindOfficial || j.Judges[0].Model != "fake" || j.Judges[0].Final["008"] != 7.3 ||
		j.Judges[1].Name != "second" || j.Judges[1].Kind != sm.KindRejudge || j.Judges[1].Final["008"] != 6.9 || len(j.Items) != 8 {
		t.Errorf("Judgments: %+v", j)
	}

	// Again: nothing left to do.
	third := modeltest.NewServer(t, moderatedtest.Handler(moderatedtest.Options{Judges: threeJudges}))
	if _, err := rejudge(t, context.Background(), dir, third.URL, sm.Rejudging{Judge: sm.Judge{Name: "second", Model: "b"}, To: -1}); err != nil || len(third.Requests()) != 0 {
		t.Errorf("a finished re-judging run again: %v, %d requests", err, len(third.Requests()))
	}
	if _, err := rejudge(t, context.Background(), dir, third.URL, sm.Rejudging{Judge: sm.Judge{Name: "second", Model: "c"}, To: -1}); err == nil || !strings.Contains(err.Error(), "judgments/second was judged by b, not c") {
		t.Errorf("another model into the same folder: %v", err)
	}
	// One exchange only.
	if _, err := rejudge(t, context.Background(), dir, third.URL, sm.Rejudging{Judge: sm.Judge{Name: "only-two", Model: "c"}, From: 2, To: 2}); err != nil {
		t.Fatal(err)
	}
	if got := under(files(t, dir), "judgments/only-two/scores/"); len(got) != 4 || !strings.HasPrefix(got[0], "judgments/only-two/scores/022_") {
		t.Errorf("exchange 2 scored again: %v", got)
	}
	if _, err := rejudge(t, context.Background(), dir, third.URL, sm.Rejudging{Judge: sm.Judge{Name: "late", Model: "c"}, From: 3, To: -1}); err == nil || !strings.Contains(err.Error(), "--from 3 is past them") {
		t.Errorf("from past the scored exchanges: %v", err)
	}
}

// TestRejudgeInterrupted: a re-judging interrupted while any of its
// calls is in flight, then resumed, ends with the files of one never
// interrupted; only the call in flight is asked twice.
func TestRejudgeInterrupted(t *testing.T) {
	base, _, _ := runAll(t, map[string]string{"rounds": "1"}, moderatedtest.Options{})
	fresh := func(t *testing.T) string {
		dir := t.TempDir() + "/d"
		if err := fixture.CopyTree(base, dir); err != nil {
			t.Fatal(err)
		}
		return dir
	}
	rj := sm.Rejudging{Judge: sm.Judge{Name: "again", Model: "c"}, To: -1}
	h := moderatedtest.Handler(moderatedtest.Options{Judges: threeJudges})
	ref := fresh(t)
	if _, err := rejudge(t, context.Background(), ref, modeltest.NewServer(t, h).URL, rj); err != nil {
		t.Fatal(err)
	}
	want := files(t, ref)
	for stop := 1; stop <= 4; stop++ {
		t.Run(fmt.Sprintf("at request %d", stop), func(t *testing.T) {
			// Each run has its own debate and fake: they go in parallel.
			t.Parallel()
			dir := fresh(t)
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			held, asked := protocoltest.StopAt(h, stop, cancel)
			if _, err := rejudge(t, ctx, dir, modeltest.NewServer(t, held).URL, rj); !errors.Is(err, context.Canceled) {
				t.Fatalf("interrupted re-judging: %v", err)
			}
			if f := loaded(t, dir).Check(); !f.OK() {
				t.Errorf("check after the interruption: %v", f.Problems)
			}
			again := modeltest.NewServer(t, h)
			if _, err := rejudge(t, context.Background(), dir, again.URL, rj); err != nil {
				t.Fatal(err)
			}
			if d := fixture.Diff(want, files(t, dir)); len(d) > 0 {
				t.Errorf("resumed files differ:\n%s", strings.Join(d, "\n"))
			}
			if got := asked() + len(again.Requests()); got != 5 {
				t.Errorf("%d requests in all, want 5 (the one in flight twice)", got)
			}
		})
	}
}

// TestCheckJudgments: check covers judgments/: a rubric of a statement
// not scored, a folder without its record, a total that is not its
// rubric's, an official score that is not the panel's mean, and stray
// files.
func TestCheckJudgments(t *testing.T) {
	srv := modeltest.NewServer(t, moderatedtest.Handler(moderatedtest.Options{Judges: threeJudges}))
	dir := newDebate(t, map[string]string{"rounds": "1"})
	setPanel(t, dir, "a", "b")
	if _, err := advance(t, context.Background(), dir, srv.URL, driver.UnitGoal{All: true}); err != nil {
		t.Fatal(err)
	}
	fs := files(t, dir)
	first := func(prefix string) string { return under(fs, prefix)[0] }
	aScore := first("judgments/a/scores/008_")
	tests := []struct {
		name string
		edit func(fs map[string]string)
		want string
	}{
		{"a rubric of a message not scored", func(fs map[string]string) {
			fs[strings.Replace(aScore, "/008_", "/009_", 1)] = strings.Replace(fs[aScore], `"message": 8`, `"message": 9`, 1)
		}, "message 9 is not scored yet, or is not a statement that is scored"},
		{"a folder without its record", func(fs map[string]string) { delete(fs, "judgments/b/judge.json") }, "judgments/b/judge.json: is missing: judgments/b holds the judge's scores/"},
		{"a judge's total that is not its rubric's", func(fs map[string]string) {
			fs[aScore] = strings.Replace(fs[aScore], `"total": 7.3`, `"total": 9`, 1)
		}, "total is 9.00, but its criteria make 7.30"},
		{"an official score that is not the panel's mean", func(fs map[string]string) {
			// The judge's file stays consistent in itself: its weighted
			// mark and total follow the raw mark.
			fs[aScore] = strings.Replace(strings.Replace(strings.Replace(fs[aScore], `"raw": 8,`, `"raw": 10,`, 1), `"weighted": 2,`, `"weighted": 2.5,`, 1), `"total": 7.3`, `"total": 7.8`, 1)
		}, "criteria.logical_coherence.raw is 7.5, but the mean of the panel's judges (a, b) is 8.5"},
		{"a stray file in a judge's folder", func(fs map[string]string) { fs["judgments/a/notes.md"] = "x" }, "judgments/a/notes.md: is not a file of a judge's folder"},
		{"a stray file in judgments", func(fs map[string]string) { fs["judgments/notes.md"] = "x" }, "judgments/notes.md: is not a judge's folder"},
		{"a score file misnamed", func(fs map[string]string) { fs["judgments/a/scores/8.md"] = "x" }, "is not a score file"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			edited := map[string]string{}
			for k, v := range fs {
				edited[k] = v
			}
			tt.edit(edited)
			d := t.TempDir()
			if err := writeTree(d, edited); err != nil {
				t.Fatal(err)
			}
			deb, err := moderated.Protocol{}.Load(osFS(d))
			if err != nil {
				t.Fatal(err)
			}
			var all []string
			for _, p := range deb.Check().Problems {
				all = append(all, p.String())
			}
			if !strings.Contains(strings.Join(all, "\n"), tt.want) {
				t.Errorf("problems %v, want one with %q", all, tt.want)
			}
		})
	}
}

// TestPanelSitsAfterTheModerator: a panel set in the middle of a debate
// scores from there on; the scores before stay the moderator's, and
// each judge's record says where it began.
func TestPanelSitsAfterTheModerator(t *testing.T) {
	srv := modeltest.NewServer(t, moderatedtest.Handler(moderatedtest.Options{Judges: threeJudges}))
	dir := newDebate(t, map[string]string{"rounds": "2"})
	if _, err := advance(t, context.Background(), dir, srv.URL, driver.UnitGoal{Done: 2}); err != nil {
		t.Fatal(err)
	}
	setPanel(t, dir, "a", "b")
	if _, err := advance(t, context.Background(), dir, srv.URL, driver.UnitGoal{All: true}); err != nil {
		t.Fatal(err)
	}
	fs := files(t, dir)
	if got := under(fs, "judgments/a/scores/"); len(got) != 4 || !strings.HasPrefix(got[0], "judgments/a/scores/018_") {
		t.Errorf("judge a's scores: %v, want round 2's four", got)
	}
	if !strings.Contains(fs["judgments/b/judge.json"], `"from": 2`) {
		t.Errorf("judge.json:\n%s", fs["judgments/b/judge.json"])
	}
	deb := loaded(t, dir)
	if f := deb.Check(); !f.OK() {
		t.Errorf("check: %v", f.Problems)
	}
	// Round 1 by the moderator (7.30); round 2 by the panel: means 7.5,
	// 5.5, 8, 6.5 and 8.5 make 1.875 + 1.375 + 1.6 + 0.975 + 1.275 = 7.10.
	j := deb.(sm.Judged).Judgments()
	if j.Aggregate == nil || j.Aggregate.Final["008"] != 7.3 || j.Aggregate.Final["018"] != 7.1 {
		t.Errorf("aggregate %+v", j.Aggregate)
	}
}
