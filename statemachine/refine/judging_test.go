package refine_test

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/moot-dev/moot/internal/driver"
	"github.com/moot-dev/moot/internal/testkit/fixture"
	"github.com/moot-dev/moot/internal/testkit/protocoltest"
	sm "github.com/moot-dev/moot/statemachine"
	"github.com/moot-dev/moot/statemachine/refine"
	"github.com/moot-dev/moot/statemachine/refine/refinetest"
)

// The scripted panel: three judges of known marks (correctness,
// completeness, clarity, depth).
var (
	judgeA = refinetest.JudgeAnswer(7, 7, 7, 7, 7)  // weighted 7.00
	judgeB = refinetest.JudgeAnswer(7, 8, 9, 6, 5)  // weighted 7.40
	judgeC = refinetest.JudgeAnswer(8, 9, 6, 8, 10) // weighted 8.20
)

// setPanel makes models the judge panel of the debate in dir, as `moot run
// --judges` does.
func setPanel(t *testing.T, dir string, models ...string) []sm.Judge {
	t.Helper()
	return protocoltest.SetPanel(t, refine.Protocol{}, dir, models...)
}

// loadDebate reads the debate in dir as a writer does, refused if its
// check finds a problem.
func loadDebate(t *testing.T, dir string) sm.Debate {
	t.Helper()
	return protocoltest.Load(t, refine.Protocol{}, dir)
}

func readScore(t *testing.T, fs map[string]string, name string) refine.Score {
	t.Helper()
	data, ok := fs[name]
	if !ok {
		t.Fatalf("%s is missing", name)
	}
	var s refine.Score
	if err := json.Unmarshal([]byte(data), &s); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return s
}

// ready stops the debate after round 1, so that the synthesis and its
// score are unit 2.
var ready = refinetest.Options{ReadyAt: 1, Judges: map[string]string{"a": judgeA, "b": judgeB, "c": judgeC}}

// TestPanel: three scripted judges score the final answer in parallel,
// each once, on its own model; each keeps its own score and record, and
// score.json is their aggregate, equal to the means worked out by hand.
func TestPanel(t *testing.T) {
	srv := server(t, ready, map[string]float64{})
	dir := newDebate(t, nil)
	setPanel(t, dir, "a", "b", "c")
	if _, err := advance(t, context.Background(), dir, srv.URL, driver.UnitGoal{All: true}); err != nil {
		t.Fatal(err)
	}
	fs := files(t, dir)
	// By hand: correctness (7+8+9)/3 = 8, completeness (7+9+6)/3 = 7.33,
	// clarity (7+6+8)/3 = 7, depth (7+5+10)/3 = 7.33; weighted 8×0.40 +
	// 7.33×0.25 + 7×0.20 + 7.33×0.15 = 7.532, to two decimals 7.53, whose
	// nearest whole number is 8. Two of three judges would fine-tune.
	agg := readScore(t, fs, "score.json")
	want := map[string]float64{"correctness": 8, "completeness": 7.33, "clarity": 7, "depth": 7.33}
	for c, v := range want {
		if got := agg.Criteria[c].Score; math.Abs(got-v) > 1e-9 {
			t.Errorf("aggregate %s = %v, want %v", c, got, v)
		}
	}
	if agg.WeightedScore != 7.53 || agg.Score != 8 || agg.Parse != "panel" || !agg.Finetune || agg.Attempts != 3 {
		t.Errorf("aggregate: score %d, weighted %v, parse %q, finetune %t, attempts %d; want 8, 7.53, panel, true, 3",
			agg.Score, agg.WeightedScore, agg.Parse, agg.Finetune, agg.Attempts)
	}
	if len(agg.Panel) != 3 || agg.Panel[1] != (refine.PanelJudge{Name: "b", Model: "b", Score: 7, WeightedScore: 7.4}) {
		t.Errorf("aggregate's panel %+v", agg.Panel)
	}
	if !strings.Contains(fs["score.json"], `"completeness": {`+"\n"+`      "score": 7.33,`) {
		t.Errorf("score.json does not write the mean 7.33:\n%s", fs["score.json"])
	}
	for name, w := range map[string]struct {
		score    int
		weighted float64
	}{"a": {7, 7}, "b": {7, 7.4}, "c": {8, 8.2}} {
		s := readScore(t, fs, "judgments/"+name+"/score.json")
		if s.Score != w.score || s.WeightedScore != w.weighted || s.Model != name || s.Parse != "json" || s.Panel != nil {
			t.Errorf("judge %s: %+v", name, s)
		}
		var rec sm.JudgeRecord
		if err := json.Unmarshal([]byte(fs["judgments/"+name+"/judge.json"]), &rec); err != nil {
			t.Fatal(err)
		}
		if rec.Name != name || rec.Model != name || rec.Kind != sm.KindPanel || rec.From != 2 || rec.To != nil {
			t.Errorf("judge %s's record %+v", name, rec)
		}
	}
	judges := chats(srv.Requests(), "judge")
	models := map[string]int{}
	for _, r := range judges {
		models[r.Model]++
		if prompt(r) != prompt(judges[0]) {
			t.Errorf("judge %s had another prompt", r.Model)
		}
	}
	if len(judges) != 3 || models["a"] != 1 || models["b"] != 1 || models["c"] != 1 {
		t.Errorf("judge requests by model %v, want a, b and c once each", models)
	}
	deb := loadDebate(t, dir)
	if f := deb.Check(); !f.OK() {
		t.Errorf("check: %v", f.Problems)
	}
	j := deb.(sm.Judged).Judgments()
	if len(j.Items) != 4 || j.Items[0].ID != "correctness" || j.Items[0].Unit != 2 || j.Items[0].Side != "" || j.Items[0].Length != len("<<synthesis>>\n\n## Answer\n\nThe final answer.\n\n---\n\n## Confidence: 8/10") {
		t.Errorf("items %+v", j.Items)
	}
	if j.Min != 1 || j.Max != 10 || j.FirstSpeaker || j.Graph {
		t.Errorf("judgments: min %v max %v first speaker %t graph %t", j.Min, j.Max, j.FirstSpeaker, j.Graph)
	}
	if j.Aggregate == nil || j.Aggregate.Final["completeness"] != 7.33 || len(j.Judges) != 3 {
		t.Fatalf("aggregate %+v, %d judges", j.Aggregate, len(j.Judges))
	}
	if c := j.Judges[2]; c.Name != "c" || c.Kind != sm.KindPanel || c.Final["depth"] != 10 || c.First["depth"] != 10 {
		t.Errorf("judge c %+v", c)
	}
	report, err := deb.(sm.Reporter).Report()
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"**Score: 8/10** (weighted criteria 7.53; panel)", "| completeness | 25% | 7.33 |", "| b | b | 7 | 7.40 |"} {
		if !strings.Contains(string(report[0].Data), want) {
			t.Errorf("the report lacks %q:\n%s", want, report[0].Data)
		}
	}
}

// TestPanelScore: the aggregate of PanelScore, against values worked out
// by hand, halves and ties included.
func TestPanelScore(t *testing.T) {
	score := func(answer string) *refine.Score {
		s, errs := refine.ParseScore([]byte(answer))
		if len(errs) > 0 {
			t.Fatal(errs)
		}
		return s
	}
	tests := []struct {
		name     string
		answers  []string
		criteria [4]float64
		weighted float64
		score    int
		finetune bool
	}{
		// (7+8)/2 = 7.5 on every criterion: weighted 7.5, rounded up to 8;
		// one of two judges would fine-tune, which is not more than half.
		{"halves up", []string{refinetest.JudgeAnswer(7, 7, 7, 7, 7), refinetest.JudgeAnswer(8, 8, 8, 8, 8)}, [4]float64{7.5, 7.5, 7.5, 7.5}, 7.5, 8, false},
		// (2+3+3)/3 = 2.67, (1+1+2)/3 = 1.33, 2, 1: weighted 1.068 +
		// 0.3325 + 0.4 + 0.15 = 1.9505, to two decimals 1.95, whole 2.
		{"thirds", []string{refinetest.JudgeAnswer(2, 2, 1, 2, 1), refinetest.JudgeAnswer(2, 3, 1, 2, 1), refinetest.JudgeAnswer(2, 3, 2, 2, 1)}, [4]float64{2.67, 1.33, 2, 1}, 1.95, 2, true},
		{"one mind", []string{refinetest.JudgeAnswer(9, 9, 9, 9, 9), refinetest.JudgeAnswer(9, 9, 9, 9, 9)}, [4]float64{9, 9, 9, 9}, 9, 9, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var panel []sm.Judge
			var scores []*refine.Score
			for i, a := range tt.answers {
				panel = append(panel, sm.Judge{Name: string(rune('a' + i)), Model: "m"})
				scores = append(scores, score(a))
			}
			got := refine.PanelScore(panel, scores)
			for i, c := range []string{"correctness", "completeness", "clarity", "depth"} {
				if got.Criteria[c].Score != tt.criteria[i] {
					t.Errorf("%s = %v, want %v", c, got.Criteria[c].Score, tt.criteria[i])
				}
			}
			if got.WeightedScore != tt.weighted || got.Score != tt.score || got.Finetune != tt.finetune {
				t.Errorf("weighted %v score %d finetune %t, want %v %d %t", got.WeightedScore, got.Score, got.Finetune, tt.weighted, tt.score, tt.finetune)
			}
		})
	}
}

// TestPanelRefused: a judge whose answer breaks the rules after every
// repair refuses the whole step: the error names its model, and nothing
// is written, the other judge's good answer included. A step whose
// answers reach it with one bad is refused as a whole, naming the judge.
func TestPanelRefused(t *testing.T) {
	o := refinetest.Options{ReadyAt: 1, Judges: map[string]string{"a": judgeA, "bad": "Score: 8\nJustification: fine."}}
	srv := server(t, o, map[string]float64{})
	dir := newDebate(t, nil)
	// Retrieval, proposal, critique, synthesis: the debate awaits its score.
	if _, err := advance(t, context.Background(), dir, srv.URL, driver.UnitGoal{Steps: 4}); err != nil {
		t.Fatal(err)
	}
	setPanel(t, dir, "a", "bad")
	before := files(t, dir)
	_, err := advance(t, context.Background(), dir, srv.URL, driver.UnitGoal{All: true})
	var re *driver.RoleError
	if !errors.As(err, &re) || re.Model != "bad" || !strings.Contains(err.Error(), "the judge on model bad") {
		t.Fatalf("run: %v, want the judge on model bad refused", err)
	}
	if d := fixture.Diff(before, files(t, dir)); len(d) > 0 {
		t.Errorf("a refused panel step wrote:\n%s", strings.Join(d, "\n"))
	}
	if n := len(chats(srv.Requests(), "judge")); n != 4 {
		t.Errorf("%d judge requests, want a once and bad three times", n)
	}

	deb := loadDebate(t, dir)
	step, err := deb.Next()
	if err != nil {
		t.Fatal(err)
	}
	if len(step.Calls) != 2 || step.Calls[0].ID != "judge-a" || step.Calls[0].Model != "a" || step.Calls[1].ID != "judge-bad" || step.Calls[1].Model != "bad" {
		t.Fatalf("panel calls %+v", step.Calls)
	}
	c, err := step.Apply(map[string]sm.Answer{"judge-a": {Text: []byte(judgeA)}, "judge-bad": {Text: []byte(`{"score": 12}`)}}, when)
	var refused *sm.Refused
	if !errors.As(err, &refused) || c != nil || !refused.Answer || refused.Role != "judge" || !strings.Contains(err.Error(), "judge bad: score: 12 is outside 1 to 10") {
		t.Errorf("apply = %v, %v; want the step refused for judge bad, nothing to commit", c, err)
	}
}

// TestRejudge: judging the saved final answer again with another model
// writes judgments/NAME/ alone, leaves every other file byte-identical,
// passes check and asks the judge once; done, it asks nothing more.
func TestRejudge(t *testing.T) {
	o := refinetest.Options{ReadyAt: 1, Judges: map[string]string{"strict": refinetest.JudgeAnswer(5, 5, 6, 5, 4)}}
	srv := server(t, o, map[string]float64{})
	dir := newDebate(t, nil)
	if _, err := advance(t, context.Background(), dir, srv.URL, driver.UnitGoal{All: true}); err != nil {
		t.Fatal(err)
	}
	before := files(t, dir)
	rj := sm.Rejudging{Judge: sm.Judge{Name: "strict", Model: "strict"}, To: -1}
	rejudge := func() error {
		_, err := protocoltest.Rejudge(t, context.Background(), refine.Protocol{}, dir, rj, protocoltest.Served(t, srv.URL))
		return err
	}
	asked := len(srv.Requests())
	if err := rejudge(); err != nil {
		t.Fatal(err)
	}
	after := files(t, dir)
	if added := protocoltest.Added(t, before, after); strings.Join(added, " ") != "judgments/strict/judge.json judgments/strict/score.json" {
		t.Errorf("rejudge wrote %v", added)
	}
	s := readScore(t, after, "judgments/strict/score.json")
	if s.Score != 5 || s.WeightedScore != 5.1 || s.Model != "strict" {
		t.Errorf("strict's score %+v", s)
	}
	var rec sm.JudgeRecord
	if err := json.Unmarshal([]byte(after["judgments/strict/judge.json"]), &rec); err != nil || rec.Kind != sm.KindRejudge || rec.Model != "strict" || rec.To != nil {
		t.Errorf("record %+v %v", rec, err)
	}
	reqs := srv.Requests()[asked:]
	if len(reqs) != 1 || reqs[0].Model != "strict" || refinetest.Kind(reqs[0]) != "judge" {
		t.Errorf("rejudge asked %d requests, want the judge on strict once", len(reqs))
	}
	deb := loadDebate(t, dir)
	if f := deb.Check(); !f.OK() {
		t.Errorf("check: %v", f.Problems)
	}
	j := deb.(sm.Judged).Judgments()
	if j.Aggregate != nil || len(j.Judges) != 2 || j.Judges[0].Kind != sm.KindOfficial || j.Judges[0].Model != "fake" || j.Judges[1].Name != "strict" || j.Judges[1].Final["correctness"] != 5 {
		t.Errorf("judges %+v", j.Judges)
	}
	if err := rejudge(); err != nil {
		t.Fatal(err)
	}
	if n := len(srv.Requests()) - asked; n != 1 {
		t.Errorf("a finished rejudge asked again: %d requests in all", n)
	}
	if d := fixture.Diff(after, files(t, dir)); len(d) > 0 {
		t.Errorf("a finished rejudge wrote:\n%s", strings.Join(d, "\n"))
	}
}

// TestRejudgeRefused: no final answer yet, a range without it, a panel
// judge's folder and another model's judgment are refused with reasons.
func TestRejudgeRefused(t *testing.T) {
	srv := server(t, ready, map[string]float64{})
	early := newDebate(t, nil)
	if _, err := advance(t, context.Background(), early, srv.URL, driver.UnitGoal{Steps: 3}); err != nil {
		t.Fatal(err)
	}
	done := newDebate(t, nil)
	setPanel(t, done, "a", "b")
	if _, err := advance(t, context.Background(), done, srv.URL, driver.UnitGoal{All: true}); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, dir string
		r         sm.Rejudging
		want      string
	}{
		{"no synthesis", early, sm.Rejudging{Judge: sm.Judge{Name: "x", Model: "x"}, To: -1}, "no final answer to judge again yet"},
		{"range without it", done, sm.Rejudging{Judge: sm.Judge{Name: "x", Model: "x"}, From: 0, To: 1}, "units 0 to 1 leave it out"},
		{"a panel judge", done, sm.Rejudging{Judge: sm.Judge{Name: "a", Model: "a"}, To: -1}, "judgments/a is the folder of a judge of the debate's panel"},
		{"bad name", done, sm.Rejudging{Judge: sm.Judge{Name: "X", Model: "x"}, To: -1}, "lower-case"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := loadDebate(t, tt.dir).(sm.Rejudger).Rejudge(tt.r)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Rejudge = %v, want an error with %q", err, tt.want)
			}
		})
	}
}

// TestCheckJudges: check finds what was changed by hand in a panel's
// files.
func TestCheckJudges(t *testing.T) {
	srv := server(t, ready, map[string]float64{})
	ref := newDebate(t, nil)
	setPanel(t, ref, "a", "b", "c")
	if _, err := advance(t, context.Background(), ref, srv.URL, driver.UnitGoal{All: true}); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name   string
		change protocoltest.Edit
		want   string
	}{
		{"a judge's mark", protocoltest.Replace("judgments/b/score.json", `"score": 9,`, `"score": 8,`),
			"judgments/b/score.json: weighted_score is 7.40, but its criteria make 7.15"},
		{"an aggregate's mean", protocoltest.Replace("score.json", `"score": 7.33,`, `"score": 7.5,`),
			"criteria.completeness is 7.5, but the mean of the panel's is 7.33"},
		{"a record removed", protocoltest.Remove("judgments/c/judge.json"),
			"judgments/c/judge.json: is missing: judgments/c holds the judge's score.json"},
		{"a stray file", protocoltest.Write("judgments/a/notes.txt", "x"),
			"judgments/a/notes.txt: is not a file of a judge's folder"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := protocoltest.CheckEdited(t, refine.Protocol{}, ref, tt.change)
			if !strings.Contains(strings.Join(got, "\n"), tt.want) {
				t.Errorf("check found %q, want %q", got, tt.want)
			}
		})
	}
}
