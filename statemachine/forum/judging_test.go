package forum_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/moot-dev/moot/internal/driver"
	"github.com/moot-dev/moot/internal/frontmatter"
	"github.com/moot-dev/moot/internal/testkit/fixture"
	"github.com/moot-dev/moot/internal/testkit/forumfake"
	"github.com/moot-dev/moot/internal/testkit/protocoltest"
	sm "github.com/moot-dev/moot/statemachine"
	"github.com/moot-dev/moot/statemachine/forum"
)

// setPanel makes judges on models (each named after its model) the
// debate's panel, as moot run --judges does.
func setPanel(t *testing.T, dir string, models ...string) {
	t.Helper()
	protocoltest.SetPanel(t, forum.Protocol{}, dir, models...)
}

// rejudge judges the debate in dir again, as moot rejudge does.
func rejudge(t *testing.T, ctx context.Context, dir string, m *fakeModel, rj sm.Rejudging) (driver.Summary, error) {
	t.Helper()
	return protocoltest.Rejudge(t, ctx, forum.Protocol{}, dir, rj, driver.Options{
		Client: m, DefaultModel: "m", Repairs: 2, Now: func() time.Time { return protocoltest.When },
	})
}

// meta reads the frontmatter of a call file.
func meta(t *testing.T, text string) map[string]any {
	t.Helper()
	front, _, err := frontmatter.Parse([]byte(text))
	if err != nil {
		t.Fatalf("%v:\n%s", err, text)
	}
	raw, err := front.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	var out map[string]any
	if err := json.Unmarshal(raw, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestPanelAggregate: a panel's judges, scripted with known scores, each
// keep their calls in judgments/NAME/; the debate's own score is their
// mean rounded halves up, its verdict the majority's (a tie going to the
// higher mean verdict score), all as worked out by hand below.
func TestPanelAggregate(t *testing.T) {
	type judge struct {
		model     string
		scores    []int // of turns 1 to 4: A, B, A, B
		pickFirst bool  // names A the winner
		final     []int // the verdict's scores of its winner and loser
	}
	for _, tc := range []struct {
		name   string
		judges []judge
		// By hand: the official score of each turn and its panel_mean.
		score []int
		mean  []float64
		// The verdict: B wins, with A's and B's official scores, their
		// means, the votes for A and B, and how it was decided.
		verdictA, verdictB int
		meanA, meanB       float64
		votesA, votesB     int
		source             string
	}{
		{
			name: "three judges",
			judges: []judge{
				{"a", []int{6, 7, 5, 8}, true, []int{8, 5}},
				{"b", []int{7, 7, 6, 9}, false, []int{9, 6}},
				{"c", []int{7, 4, 6, 8}, false, []int{7, 6}},
			},
			// 6,7,7 → 6.667; 7,7,4 → 6; 5,6,6 → 5.667; 8,9,8 → 8.333
			score: []int{7, 6, 6, 8}, mean: []float64{6.667, 6, 5.667, 8.333},
			// A: 8,6,6 → 6.667; B: 5,9,7 → 7; two of three name B
			verdictA: 7, verdictB: 7, meanA: 6.667, meanB: 7, votesA: 1, votesB: 2, source: "panel-majority",
		},
		{
			name: "two judges split",
			judges: []judge{
				{"a", []int{6, 8, 5, 9}, true, []int{8, 6}},
				{"b", []int{7, 7, 6, 8}, false, []int{9, 5}},
			},
			// 6.5 → 7; 7.5 → 8; 5.5 → 6; 8.5 → 9
			score: []int{7, 8, 6, 9}, mean: []float64{6.5, 7.5, 5.5, 8.5},
			// one vote each; A: 8,5 → 6.5; B: 6,9 → 7.5, so B
			verdictA: 7, verdictB: 8, meanA: 6.5, meanB: 7.5, votesA: 1, votesB: 1, source: "panel-tie-scores",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := newDebate(t, setup{turns: 4, judge: true, premise: true})
			var models []string
			m := &fakeModel{judges: map[string]forumfake.Options{}}
			for _, j := range tc.judges {
				models = append(models, j.model)
				m.judges[j.model] = forumfake.Options{Scores: j.scores, PickFirst: j.pickFirst, Final: j.final}
			}
			setPanel(t, dir, models...)
			if _, err := advance(t, context.Background(), dir, m, driver.UnitGoal{All: true}); err != nil {
				t.Fatal(err)
			}
			a, b := seats(t, dir)
			names := map[string]string{forum.For: "Ada", forum.Against: "Brook"}
			got := files(t, dir)
			// 10 debater requests, 12 for each judge.
			if n := len(m.asked()); n != 10+12*len(tc.judges) {
				t.Errorf("%d requests, want %d", n, 10+12*len(tc.judges))
			}
			scoreFiles := []string{"calls/006_score_judge.md", "calls/010_score_judge.md", "calls/014_score_judge.md", "calls/018_score_judge.md"}
			for i, file := range scoreFiles {
				fm := meta(t, got[file])
				if fm["score"] != float64(tc.score[i]) || fm["panel_mean"] != tc.mean[i] {
					t.Errorf("%s: score %v, panel_mean %v; want %d, %v", file, fm["score"], fm["panel_mean"], tc.score[i], tc.mean[i])
				}
				for _, j := range tc.judges {
					own := meta(t, got["judgments/"+j.model+"/"+file])
					if own["score"] != float64(j.scores[i]) || own["model"] != j.model {
						t.Errorf("judgments/%s/%s: score %v by %v, want %d by %s", j.model, file, own["score"], own["model"], j.scores[i], j.model)
					}
				}
			}
			state := meta(t, got["debate.md"])
			running := state["running_scores"].(map[string]any)
			if running[a] != float64(tc.score[2]) || running[b] != float64(tc.score[3]) {
				t.Errorf("running_scores %v, want A %d and B %d", running, tc.score[2], tc.score[3])
			}
			v := meta(t, got["verdict.md"])
			wantScores := map[string]any{names[a]: float64(tc.verdictA), names[b]: float64(tc.verdictB)}
			wantMeans := map[string]any{names[a]: tc.meanA, names[b]: tc.meanB}
			if v["winner_side"] != b || v["winner_source"] != tc.source || fmt.Sprint(v["scores"]) != fmt.Sprint(wantScores) || fmt.Sprint(v["panel_means"]) != fmt.Sprint(wantMeans) {
				t.Errorf("verdict.md: winner %v by %v, scores %v, means %v; want %s by %s, %v, %v", v["winner_side"], v["winner_source"], v["scores"], v["panel_means"], b, tc.source, wantScores, wantMeans)
			}
			votes := state["verdict"].(map[string]any)["votes"].(map[string]any)
			if votes[a] != float64(tc.votesA) || votes[b] != float64(tc.votesB) {
				t.Errorf("votes %v, want A %d and B %d", votes, tc.votesA, tc.votesB)
			}
			for _, j := range tc.judges {
				rec := meta(t, got["judgments/"+j.model+"/judge.json"])
				if rec["kind"] != sm.KindPanel || rec["from"] != float64(1) {
					t.Errorf("judgments/%s/judge.json: %v", j.model, rec)
				}
				own := meta(t, got["judgments/"+j.model+"/verdict.md"])
				winner := b
				if j.pickFirst {
					winner = a
				}
				if own["winner_side"] != winner || own["model"] != j.model {
					t.Errorf("judgments/%s/verdict.md names %v by %v, want %s", j.model, own["winner_side"], own["model"], winner)
				}
			}
			// Each judge's requests carry its own earlier scores alone.
			scoreRe := regexp.MustCompile(`^\{"score": (\d+),`)
			for _, req := range m.asked() {
				o, ok := m.judges[req.Model]
				if !ok {
					continue
				}
				n := 0
				for _, msg := range req.Messages {
					if s := scoreRe.FindStringSubmatch(msg.Content); msg.Role == "assistant" && s != nil {
						if s[1] != fmt.Sprint(o.Scores[n]) {
							t.Errorf("judge %s is shown score %s as its score of turn %d, not its own %d", req.Model, s[1], n+1, o.Scores[n])
						}
						n++
					}
				}
			}
			deb := load(t, dir)
			if f := deb.Check(); !f.OK() {
				t.Errorf("check: %v", f.Problems)
			}
			j := deb.(sm.Judged).Judgments()
			if j.Aggregate == nil || len(j.Judges) != len(tc.judges) || len(j.Items) != 4 || j.Min != 0 || j.Max != 10 {
				t.Fatalf("judgments: %+v", j)
			}
			for i, it := range j.Items {
				wantSide := map[string]string{forum.For: "proposition", forum.Against: "opposition"}[[]string{a, b}[i%2]]
				if it.Unit != i/2+1 || it.First != (i%2 == 0) || it.Side != wantSide || it.Length == 0 {
					t.Errorf("item %d: %+v", i, it)
				}
				if got := j.Aggregate.Final[it.ID]; math.Abs(got-tc.mean[i]) > 1e-9 {
					t.Errorf("aggregate of %s: %v, want %v", it.ID, got, tc.mean[i])
				}
				for k, js := range j.Judges {
					if js.Kind != sm.KindPanel || js.Final[it.ID] != float64(tc.judges[k].scores[i]) {
						t.Errorf("judge %s (%s) scores %s %v, want %d", js.Name, js.Kind, it.ID, js.Final[it.ID], tc.judges[k].scores[i])
					}
				}
			}
		})
	}
}

// TestPanelRefused: a judge whose score stays invalid after the repairs
// refuses the panel's step: nothing of it is written, for no judge.
func TestPanelRefused(t *testing.T) {
	dir := newDebate(t, setup{turns: 2, judge: true, premise: true})
	setPanel(t, dir, "fine", "bad")
	m := &fakeModel{answer: func(model, kind string) (string, bool) {
		if model == "bad" && kind == forumfake.Score {
			return `{"score": 11, "reasoning": "too generous"}`, true
		}
		return "", false
	}}
	// The evaluation of turn 1, call 5, is the last step that passes.
	if _, err := advance(t, context.Background(), dir, m, driver.UnitGoal{Steps: 4}); err != nil {
		t.Fatal(err)
	}
	before := files(t, dir)
	if _, ok := before["judgments/bad/calls/005_evaluate_judge.md"]; !ok {
		t.Fatalf("no evaluation of the judge bad: %v", protocoltest.Under(before, "judgments/"))
	}
	_, err := advance(t, context.Background(), dir, m, driver.UnitGoal{All: true})
	var re *driver.RoleError
	if !errors.As(err, &re) || re.Model != "bad" || !strings.Contains(err.Error(), "score: 11 is outside 0 to 10") {
		t.Fatalf("a judge's invalid score: %v, want the judge on model bad refused", err)
	}
	if d := fixture.Diff(before, files(t, dir)); len(d) > 0 {
		t.Errorf("the refused step wrote:\n%s", strings.Join(d, "\n"))
	}

	// The same, handed in by hand: one bad answer of two refuses the
	// step, naming its judge.
	step, err := load(t, dir).Next()
	if err != nil || step == nil {
		t.Fatalf("next: %v %v", step, err)
	}
	ids := []string{}
	for _, c := range step.Calls {
		ids = append(ids, c.ID)
	}
	if fmt.Sprint(ids) != "[judge-fine judge-bad]" {
		t.Errorf("call ids %v", ids)
	}
	_, err = step.Apply(map[string]sm.Answer{
		"judge-fine": {Text: []byte(`{"score": 6, "reasoning": "fine"}`)},
		"judge-bad":  {Text: []byte(`{"score": 6.5, "reasoning": "half"}`)},
	}, protocoltest.When)
	var refused *sm.Refused
	if !errors.As(err, &refused) || refused.Role != forum.Judge || len(refused.Reasons) != 1 || !strings.HasPrefix(refused.Reasons[0], "judge bad: score: 6.5 is not a whole number") {
		t.Errorf("apply: %v", err)
	}
}

// TestRejudge: judging a finished debate again writes judgments/NAME/
// alone, every original file byte for byte as it was, and the debate
// still checks; the judge is asked every call of the judge's, against the
// saved speeches; its Judgments list it beside the debate's own judge.
func TestRejudge(t *testing.T) {
	dir := newDebate(t, setup{turns: 4, judge: true, premise: true})
	if _, err := advance(t, context.Background(), dir, &fakeModel{}, driver.UnitGoal{All: true}); err != nil {
		t.Fatal(err)
	}
	before := files(t, dir)
	m := &fakeModel{judges: map[string]forumfake.Options{"again": {Scores: []int{2, 3, 4, 5}, PickFirst: true}}}
	rj := sm.Rejudging{Judge: sm.Judge{Name: "again", Model: "again"}, To: -1}
	if _, err := rejudge(t, context.Background(), dir, m, rj); err != nil {
		t.Fatal(err)
	}
	after := files(t, dir)
	added := protocoltest.Added(t, before, after)
	// 12 calls of the judge, its record and its verdict.
	if len(added) != 14 {
		t.Errorf("%d files added: %v", len(added), added)
	}
	for _, name := range added {
		if !strings.HasPrefix(name, "judgments/again/") {
			t.Errorf("%s written outside the judge's folder", name)
		}
	}
	if n := len(m.asked()); n != 12 {
		t.Errorf("%d requests, want the judge's 12", n)
	}
	for _, req := range m.asked() {
		if req.Model != "again" || roleOf(req) != forum.Judge {
			t.Errorf("a request of the %s to model %s", roleOf(req), req.Model)
		}
	}
	if rec := meta(t, after["judgments/again/judge.json"]); rec["kind"] != sm.KindRejudge || rec["model"] != "again" {
		t.Errorf("judge.json: %v", rec)
	}
	a, _ := seats(t, dir)
	if v := meta(t, after["judgments/again/verdict.md"]); v["winner_side"] != a {
		t.Errorf("the judge's verdict names %v, want %s", v["winner_side"], a)
	}
	deb := load(t, dir)
	if f := deb.Check(); !f.OK() {
		t.Errorf("check: %v", f.Problems)
	}
	j := deb.(sm.Judged).Judgments()
	if len(j.Judges) != 2 || j.Judges[0].Kind != sm.KindOfficial || j.Judges[1].Name != "again" || j.Judges[1].Kind != sm.KindRejudge || j.Aggregate != nil {
		t.Fatalf("judges: %+v", j.Judges)
	}
	for i, it := range j.Items {
		if got := j.Judges[1].Final[it.ID]; got != float64(2+i) {
			t.Errorf("the judge again scores %s %v, want %d", it.ID, got, 2+i)
		}
	}
	// Judging again once more with the same name asks nothing.
	if _, err := rejudge(t, context.Background(), dir, m, rj); err != nil || len(m.asked()) != 12 {
		t.Errorf("a finished judgment judged again: %v, %d requests", err, len(m.asked()))
	}
	// Another model under the same name is refused.
	if _, err := rejudge(t, context.Background(), dir, m, sm.Rejudging{Judge: sm.Judge{Name: "again", Model: "other"}, To: -1}); err == nil || !strings.Contains(err.Error(), "judged by again, not other") {
		t.Errorf("another model in the folder: %v", err)
	}
}

// TestRejudgePartial: a debate stopped after turn 2 is judged again on
// its spoken turns alone; from turn 2, the judge's conversation holds the
// debate's own judge's answers for turn 1.
func TestRejudgePartial(t *testing.T) {
	dir := newDebate(t, setup{turns: 4, judge: true, premise: true})
	if _, err := advance(t, context.Background(), dir, &fakeModel{}, driver.UnitGoal{Done: 2}); err != nil {
		t.Fatal(err)
	}
	official := meta(t, files(t, dir)["calls/006_score_judge.md"])["score"]
	m := &fakeModel{}
	rj := sm.Rejudging{Judge: sm.Judge{Name: "late", Model: "late"}, From: 2, To: -1}
	if _, err := rejudge(t, context.Background(), dir, m, rj); err != nil {
		t.Fatal(err)
	}
	got := protocoltest.Under(files(t, dir), "judgments/late/")
	want := []string{"calls/009_evaluate_judge.md", "calls/010_score_judge.md", "judge.json"}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("judgments/late holds %v, want %v", got, want)
	}
	first := m.asked()[0].Messages
	if len(first) != 6 || first[4].Role != "assistant" || !strings.Contains(first[4].Content, fmt.Sprintf(`"score": %v`, official)) {
		t.Errorf("the first request does not carry the debate's own score of turn 1:\n%s", all(m.asked()[0]))
	}
	deb := load(t, dir)
	if f := deb.Check(); !f.OK() {
		t.Errorf("check: %v", f.Problems)
	}
	view, err := deb.(sm.Rejudger).Rejudge(rj)
	if err != nil {
		t.Fatal(err)
	}
	if st := view.Status(); !st.Complete || st.Done != 1 || st.Total != 1 {
		t.Errorf("status %+v", st)
	}
	if _, err := deb.(sm.Rejudger).Rejudge(sm.Rejudging{Judge: sm.Judge{Name: "x", Model: "x"}, From: 3, To: -1}); err == nil {
		t.Errorf("judging again from turn 3, not yet spoken, was not refused")
	}
}

// TestRejudgeResume: interrupted while any request of a re-judging is in
// flight, a resumed one ends with the files of one never interrupted, and
// asks again only the request that was in flight.
func TestRejudgeResume(t *testing.T) {
	made := newDebate(t, setup{turns: 2, judge: true, premise: true})
	if _, err := advance(t, context.Background(), made, &fakeModel{}, driver.UnitGoal{All: true}); err != nil {
		t.Fatal(err)
	}
	rj := sm.Rejudging{Judge: sm.Judge{Name: "again", Model: "again"}, To: -1}
	whole := t.TempDir() + "/d"
	if err := fixture.CopyTree(made, whole); err != nil {
		t.Fatal(err)
	}
	ref := &fakeModel{}
	if _, err := rejudge(t, context.Background(), whole, ref, rj); err != nil {
		t.Fatal(err)
	}
	want := files(t, whole)
	total := len(ref.asked())
	for stop := 1; stop <= total; stop++ {
		t.Run(fmt.Sprintf("interrupted at request %d", stop), func(t *testing.T) {
			// Each run has its own debate and fake: they go in parallel.
			t.Parallel()
			dir := t.TempDir() + "/d"
			if err := fixture.CopyTree(made, dir); err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			first := &fakeModel{block: func(c context.Context, n int) {
				if n == stop {
					cancel()
					<-c.Done()
				}
			}}
			if _, err := rejudge(t, ctx, dir, first, rj); !errors.Is(err, context.Canceled) {
				t.Fatalf("interrupted: %v", err)
			}
			if f := load(t, dir).Check(); !f.OK() {
				t.Errorf("check after the interruption: %v", f.Problems)
			}
			second := &fakeModel{}
			if _, err := rejudge(t, context.Background(), dir, second, rj); err != nil {
				t.Fatal(err)
			}
			if d := fixture.Diff(want, files(t, dir)); len(d) > 0 {
				t.Errorf("resumed files differ:\n%s", strings.Join(d, "\n"))
			}
			if got := first.answered + len(second.asked()); got != total {
				t.Errorf("%d answers before and %d requests after, for %d", first.answered, len(second.asked()), total)
			}
		})
	}
}

// TestPanelNoJudge: a debate without a judge takes no panel: check says
// so, and there is nothing to judge again.
func TestPanelNoJudge(t *testing.T) {
	dir := newDebate(t, setup{turns: 2, premise: true})
	setPanel(t, dir, "a", "b")
	deb := load(t, dir)
	if f := deb.Check(); f.OK() || !strings.Contains(f.Problems[0].Message, "no panel can judge it") {
		t.Errorf("check: %v", f.Problems)
	}
	if _, err := deb.(sm.Rejudger).Rejudge(sm.Rejudging{Judge: sm.Judge{Name: "x", Model: "x"}, To: -1}); err == nil {
		t.Errorf("a debate without a judge was judged again")
	}
}

// TestCheckJudges: check names a judge's file that breaks the rules or
// disagrees with the debate's own.
func TestCheckJudges(t *testing.T) {
	dir := newDebate(t, setup{turns: 2, judge: true, premise: true})
	setPanel(t, dir, "a", "b")
	if _, err := advance(t, context.Background(), dir, &fakeModel{}, driver.UnitGoal{Done: 1}); err != nil {
		t.Fatal(err)
	}
	got := files(t, dir)
	for _, tc := range []struct {
		name, file, text, want string
	}{
		{"a score out of range", "judgments/a/calls/006_score_judge.md", strings.Replace(got["judgments/a/calls/006_score_judge.md"], `"score": `, `"score": 1`, 1), "score: want a whole number from 0 to 10"},
		{"a score the official file does not list", "judgments/b/calls/006_score_judge.md", regexp.MustCompile(`"score": \d+`).ReplaceAllString(got["judgments/b/calls/006_score_judge.md"], `"score": 0`), "judge b's score is not the one"},
		{"a call not yet made", "judgments/a/calls/009_evaluate_judge.md", got["judgments/a/calls/005_evaluate_judge.md"], "has not made yet"},
		{"a stray file", "judgments/a/notes.txt", "hello", "is not a file of a judge's folder"},
		{"a stray folder", "judgments/a/calls/old/005_evaluate_judge.md", "hello", "judgments/a/calls/old/: is not a judge's call (want calls/NNN_KIND_judge.md)"},
		{"a call without a record", "judgments/z/calls/005_evaluate_judge.md", got["judgments/a/calls/005_evaluate_judge.md"], "judgments/z/judge.json: is missing"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := protocoltest.CheckEdited(t, forum.Protocol{}, dir, protocoltest.Write(tc.file, tc.text))
			if !strings.Contains(strings.Join(got, "\n"), tc.want) {
				t.Errorf("check: %q, want %q", got, tc.want)
			}
		})
	}
}

// TestPanelJoinsLate: a panel set after turn 2 judges from turn 3 on,
// each judge seeing the debate's own judge's answers for the turns before
// it sat; the debate checks, and its judges' records say where they began.
func TestPanelJoinsLate(t *testing.T) {
	dir := newDebate(t, setup{turns: 4, judge: true, premise: true})
	if _, err := advance(t, context.Background(), dir, &fakeModel{}, driver.UnitGoal{Done: 2}); err != nil {
		t.Fatal(err)
	}
	earlier := files(t, dir)["calls/010_score_judge.md"]
	setPanel(t, dir, "a", "b")
	m := &fakeModel{judges: map[string]forumfake.Options{"a": {Scores: []int{1}}, "b": {Scores: []int{2}}}}
	if _, err := advance(t, context.Background(), dir, m, driver.UnitGoal{All: true}); err != nil {
		t.Fatal(err)
	}
	got := files(t, dir)
	if got["calls/010_score_judge.md"] != earlier {
		t.Errorf("the debate's own score of turn 2 changed")
	}
	for _, j := range []string{"a", "b"} {
		if rec := meta(t, got["judgments/"+j+"/judge.json"]); rec["from"] != float64(3) {
			t.Errorf("judgments/%s/judge.json: from %v, want 3", j, rec["from"])
		}
		if _, ok := got["judgments/"+j+"/calls/010_score_judge.md"]; ok {
			t.Errorf("judge %s has a score of turn 2, before it sat", j)
		}
	}
	for _, req := range m.asked() {
		if req.Model == "a" && !strings.Contains(all(req), forumfake.Score+"-") {
			t.Errorf("judge a's request does not carry the debate's own earlier scores:\n%s", all(req))
			break
		}
	}
	if f := load(t, dir).Check(); !f.OK() {
		t.Errorf("check: %v", f.Problems)
	}
	// Its score of turn 3 is the mean of 1 and 2, halves up.
	if s := meta(t, got["calls/014_score_judge.md"]); s["score"] != float64(2) || s["panel_mean"] != 1.5 {
		t.Errorf("score of turn 3: %v (mean %v), want 2 (1.5)", s["score"], s["panel_mean"])
	}
}
