package forum_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/moot-dev/moot/internal/driver"
	"github.com/moot-dev/moot/internal/testkit/fixture"
	"github.com/moot-dev/moot/internal/testkit/forumfake"
	"github.com/moot-dev/moot/internal/testkit/protocoltest"
	"github.com/moot-dev/moot/internal/testkit/storetest"
	sm "github.com/moot-dev/moot/statemachine"
	"github.com/moot-dev/moot/statemachine/forum"
)

// keepGoing are the options of a run with --keep-going on m.
func keepGoing(m *fakeModel) driver.Options {
	return driver.Options{Client: m, DefaultModel: "m", Repairs: 2, KeepGoing: true, Now: func() time.Time { return protocoltest.When }}
}

// fillMissing asks again for the gaps of the debate in dir, as moot run
// --retry-missing does, ending the pass as the command does, and returns
// how many it asked for.
func fillMissing(t *testing.T, dir string, o driver.Options) int {
	t.Helper()
	d, err := storetest.OpenForWrite(dir, "test")
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	_, n, err := driver.FillMissing(context.Background(), d, forum.Protocol{}, o)
	if err == nil {
		err = driver.EndRetry(d, "")
	}
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// refusesScores answers as forumfake does, but the model clumsy never
// gives a score.
func refusesScores(model, kind string) (string, bool) {
	if model == "clumsy" && kind == forumfake.Score {
		return "No number from me.", true
	}
	return "", false
}

// TestRetryMissingPanelJudge: a panel judge whose scores went missing
// (--keep-going) is asked again by --retry-missing, alone, with the
// conversation it had then; its folder gets the scores, and each panel
// score becomes the mean of both judges, the running scores the last
// ones given. Refused again, the gaps stay, and the debate's own files
// are as they were.
func TestRetryMissingPanelJudge(t *testing.T) {
	dir := newDebate(t, setup{turns: 2, judge: true, premise: true})
	setPanel(t, dir, "fine", "clumsy")
	m := &fakeModel{answer: refusesScores}
	if _, err := protocoltest.Advance(t, context.Background(), forum.Protocol{}, dir, driver.UnitGoal{All: true}, keepGoing(m)); err != nil {
		t.Fatal(err)
	}
	deb := load(t, dir)
	gaps := deb.(sm.Filler).Gaps()
	if strings.Join(gaps, " ") != "006-score/judge-clumsy 010-score/judge-clumsy" {
		t.Fatalf("gaps %q, want clumsy's two scores", gaps)
	}
	if st := deb.Status(); !strings.Contains(lineOf(st, "missing"), "call 6: the judge scores Ada for turn 1 (judge clumsy)") {
		t.Errorf("status: %q", lineOf(st, "missing"))
	}
	before := files(t, dir)

	// Refused again: the gaps stay, the debate's own files unchanged.
	again := &fakeModel{answer: refusesScores}
	if n := fillMissing(t, dir, keepGoing(again)); n != 2 {
		t.Errorf("asked again for %d gaps, want 2", n)
	}
	if d := fixture.Diff(before, files(t, dir)); len(d) > 0 {
		t.Errorf("refused again, the files changed:\n%s", strings.Join(d, "\n"))
	}
	for _, r := range again.asked() {
		if r.Model != "clumsy" {
			t.Errorf("asked model %s, want clumsy alone", r.Model)
		}
	}

	// Answered: clumsy's scores in its folder, the panel's the means.
	mended := &fakeModel{judges: map[string]forumfake.Options{"clumsy": {Scores: []int{2, 2, 2, 2}}}}
	if n := fillMissing(t, dir, keepGoing(mended)); n != 2 {
		t.Errorf("asked again for %d gaps, want 2", n)
	}
	asked := mended.asked()
	if len(asked) != 2 {
		t.Fatalf("%d requests, want 2", len(asked))
	}
	for _, r := range asked {
		if r.Model != "clumsy" || roleOf(r) != forum.Judge {
			t.Errorf("asked %s (%s), want the judge clumsy", r.Model, roleOf(r))
		}
	}
	// The first gap is asked with the conversation clumsy had: its system
	// prompt, then each of its earlier calls (plan none; evaluation of
	// turn 1) and the prompt.
	if n := len(asked[0].Messages); n != 4 {
		t.Errorf("the first gap's request has %d messages, want 4", n)
	}
	after := files(t, dir)
	for _, name := range []string{"judgments/clumsy/calls/006_score_judge.md", "judgments/clumsy/calls/010_score_judge.md"} {
		if strings.Contains(after[name], `"missing"`) || !strings.Contains(after[name], `"score": 2`) {
			t.Errorf("%s is not clumsy's score:\n%s", name, after[name])
		}
	}
	for _, name := range []string{"calls/006_score_judge.md", "calls/010_score_judge.md"} {
		got := meta(t, after[name])
		fine := meta(t, after["judgments/fine/calls/"+strings.TrimPrefix(name, "calls/")])["score"].(float64)
		mean := (fine + 2) / 2
		if got["panel_mean"] != mean || strings.Contains(after[name], `"missing": true`) {
			t.Errorf("%s: panel_mean %v, want %v, the mean of fine's %v and clumsy's 2, none missing:\n%s", name, got["panel_mean"], mean, fine, after[name])
		}
	}
	deb = load(t, dir)
	if f := deb.Check(); !f.OK() {
		t.Errorf("check: %v", f.Problems)
	}
	if g := deb.(sm.Filler).Gaps(); len(g) > 0 {
		t.Errorf("gaps left: %v", g)
	}
	if l := lineOf(deb.Status(), "missing"); l != "" {
		t.Errorf("status still has missing: %q", l)
	}
	// Nothing but the gaps' files and debate.md changed.
	for name, text := range before {
		switch name {
		case "judgments/clumsy/calls/006_score_judge.md", "judgments/clumsy/calls/010_score_judge.md",
			"calls/006_score_judge.md", "calls/010_score_judge.md", sm.StateFile:
			continue
		}
		if after[name] != text {
			t.Errorf("%s changed", name)
		}
	}
}

// TestRetryMissingPanelAllMissing: a score no judge of the panel gave is
// missing in the debate's own file too; a judge asked again makes it the
// panel's score and sets the running score.
func TestRetryMissingPanelAllMissing(t *testing.T) {
	dir := newDebate(t, setup{turns: 2, judge: true, premise: true})
	setPanel(t, dir, "clumsy", "clumsy")
	m := &fakeModel{answer: refusesScores}
	if _, err := protocoltest.Advance(t, context.Background(), forum.Protocol{}, dir, driver.UnitGoal{All: true}, keepGoing(m)); err != nil {
		t.Fatal(err)
	}
	if s := files(t, dir)["calls/006_score_judge.md"]; !strings.Contains(s, `"missing": {`) {
		t.Fatalf("the panel's score is not missing:\n%s", s)
	}
	mended := &fakeModel{judges: map[string]forumfake.Options{"clumsy": {Scores: []int{4, 4, 4, 4}}}}
	if n := fillMissing(t, dir, keepGoing(mended)); n != 4 {
		t.Errorf("asked again for %d gaps, want 4", n)
	}
	after := files(t, dir)
	if s := after["calls/006_score_judge.md"]; strings.Contains(s, `"missing"`) || !strings.Contains(s, `"score": 4`) {
		t.Errorf("the panel's score is not 4:\n%s", s)
	}
	if !strings.Contains(after[sm.StateFile], `"running_scores"`) {
		t.Errorf("debate.md has no running scores:\n%s", after[sm.StateFile])
	}
	if f := load(t, dir).Check(); !f.OK() {
		t.Errorf("check: %v", f.Problems)
	}
}

// TestRejudgeRetryMissing: a re-judging with --keep-going records the
// calls its judge could not make in its folder; the re-judging's Filler
// lists them, its status says so, and asking again fills them there,
// the debate's own files untouched.
func TestRejudgeRetryMissing(t *testing.T) {
	dir := newDebate(t, setup{turns: 2, judge: true, premise: true})
	if _, err := advance(t, context.Background(), dir, &fakeModel{}, driver.UnitGoal{All: true}); err != nil {
		t.Fatal(err)
	}
	rj := sm.Rejudging{Judge: sm.Judge{Name: "clumsy", Model: "clumsy"}, To: -1}
	d, err := storetest.OpenForWrite(dir, "test")
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	if _, err := driver.Rejudge(context.Background(), d, forum.Protocol{}, rj, keepGoing(&fakeModel{answer: refusesScores})); err != nil {
		t.Fatal(err)
	}
	view := func() sm.Debate {
		v, err := load(t, dir).(sm.Rejudger).Rejudge(rj)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	gaps := view().(sm.Filler).Gaps()
	if strings.Join(gaps, " ") != "rejudge-clumsy-006-score/judge rejudge-clumsy-010-score/judge" {
		t.Fatalf("gaps %q", gaps)
	}
	st := view().Status()
	if !st.Complete || !strings.Contains(st.Next, "moot rejudge --retry-missing") || !strings.HasPrefix(lineOf(st, "missing"), "2 calls, no value invented") {
		t.Errorf("status: %+v", st)
	}
	before := files(t, dir)
	mended := &fakeModel{judges: map[string]forumfake.Options{"clumsy": {Scores: []int{3, 3, 3, 3}}}}
	_, n, err := driver.RejudgeMissing(context.Background(), d, forum.Protocol{}, rj, keepGoing(mended))
	if err != nil || n != 2 || len(mended.asked()) != 2 {
		t.Fatalf("asked again for %d gaps in %d requests: %v", n, len(mended.asked()), err)
	}
	after := files(t, dir)
	for name, text := range before {
		if strings.HasPrefix(name, "judgments/clumsy/calls/0") && (strings.Contains(name, "006_score") || strings.Contains(name, "010_score")) {
			if strings.Contains(after[name], `"missing"`) || !strings.Contains(after[name], `"score": 3`) {
				t.Errorf("%s is not filled:\n%s", name, after[name])
			}
			continue
		}
		if after[name] != text {
			t.Errorf("%s changed", name)
		}
	}
	if g := view().(sm.Filler).Gaps(); len(g) > 0 {
		t.Errorf("gaps left: %v", g)
	}
	if f := load(t, dir).Check(); !f.OK() {
		t.Errorf("check: %v", f.Problems)
	}
}

// lineOf is the text of the status line labelled label, "" for none.
func lineOf(st sm.Status, label string) string {
	for _, l := range st.Lines {
		if l.Label == label {
			return l.Text
		}
	}
	return ""
}

// TestRetryMissingResume: a --retry-missing pass interrupted while any
// of its requests is in flight, and run again, ends with the files of a
// pass never interrupted, and asks again only the request in flight: a
// gap it had asked again and committed, refused again, is not asked a
// third time.
func TestRetryMissingResume(t *testing.T) {
	made := newDebate(t, setup{turns: 2, judge: true, premise: true})
	setPanel(t, made, "fine", "clumsy")
	if _, err := protocoltest.Advance(t, context.Background(), forum.Protocol{}, made, driver.UnitGoal{All: true}, keepGoing(&fakeModel{answer: refusesScores})); err != nil {
		t.Fatal(err)
	}
	whole := t.TempDir() + "/d"
	if err := fixture.CopyTree(made, whole); err != nil {
		t.Fatal(err)
	}
	ref := &fakeModel{answer: refusesScores}
	fillMissing(t, whole, keepGoing(ref))
	want := files(t, whole)
	total := len(ref.asked())
	if total != 6 {
		t.Fatalf("the pass made %d requests, want 6 (two gaps, each refused three times)", total)
	}
	for stop := 1; stop <= total; stop++ {
		t.Run(fmt.Sprintf("interrupted at request %d", stop), func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir() + "/d"
			if err := fixture.CopyTree(made, dir); err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			first := &fakeModel{answer: refusesScores, block: func(c context.Context, n int) {
				if n == stop {
					cancel()
					<-c.Done()
				}
			}}
			d, err := storetest.OpenForWrite(dir, "test")
			if err != nil {
				t.Fatal(err)
			}
			o := keepGoing(first)
			if _, _, err := driver.FillMissing(ctx, d, forum.Protocol{}, o); !errors.Is(err, context.Canceled) {
				t.Fatalf("interrupted: %v", err)
			}
			d.Close()
			if f := load(t, dir).Check(); !f.OK() {
				t.Errorf("check after the interruption: %v", f.Problems)
			}
			second := &fakeModel{answer: refusesScores}
			fillMissing(t, dir, keepGoing(second))
			if d := fixture.Diff(want, files(t, dir)); len(d) > 0 {
				t.Errorf("resumed files differ:\n%s", strings.Join(d, "\n"))
			}
			if got := first.answered + len(second.asked()); got != total {
				t.Errorf("%d answers before and %d requests after, for %d", first.answered, len(second.asked()), total)
			}
		})
	}
}
