package forum_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/moot-dev/moot/internal/driver"
	"github.com/moot-dev/moot/internal/testkit/forumfake"
	sm "github.com/moot-dev/moot/statemachine"
	"github.com/moot-dev/moot/statemachine/forum"
)

func TestSideRoles(t *testing.T) {
	prop, opp := forum.Protocol{}.SideRoles()
	if prop != forum.For || opp != forum.Against {
		t.Errorf("SideRoles = %q, %q; want %q, %q", prop, opp, forum.For, forum.Against)
	}
	roles := map[string]bool{}
	for _, r := range (forum.Protocol{}).Roles() {
		roles[r.Name] = true
	}
	if !roles[prop] || !roles[opp] {
		t.Errorf("the side roles %q and %q are not both roles of forum", prop, opp)
	}
}

// outcomeSide names a side of forum in an Outcome's words.
var outcomeSide = map[string]string{forum.For: sm.WinProposition, forum.Against: sm.WinOpposition}

// TestOutcome: a scripted debate run a step at a time has no winner until
// its last call; then the verdict's side wins with the verdict's scores,
// as verdict.md says and as worked out by hand (forumfake's judge names
// the second speaker unless told to pick the first, 8 to 4), First is the
// side that opened, and Columns are the original's CSV columns. A panel's
// majority decides; a debate without a judge has no result.
func TestOutcome(t *testing.T) {
	for _, tc := range []struct {
		name      string
		s         setup
		opts      forumfake.Options
		judges    map[string]forumfake.Options
		winsFirst bool // A, who opens, wins; else B
		noResult  bool
	}{
		{name: "the judge names the second speaker", s: setup{turns: 2, judge: true, premise: true}},
		{name: "the judge names the first speaker", s: setup{turns: 3, judge: true}, opts: forumfake.Options{PickFirst: true}, winsFirst: true},
		{name: "a panel's majority", s: setup{turns: 2, judge: true, premise: true}, judges: map[string]forumfake.Options{
			"j1": {PickFirst: true, Final: []int{9, 3}}, "j2": {Final: []int{7, 5}}, "j3": {Final: []int{8, 6}},
		}},
		{name: "no judge", s: setup{turns: 2}, noResult: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := newDebate(t, tc.s)
			m := &fakeModel{opts: tc.opts, judges: tc.judges}
			if len(tc.judges) > 0 {
				setPanel(t, dir, "j1", "j2", "j3")
			}
			a, b := seats(t, dir)
			for step := 0; ; step++ {
				o := load(t, dir).(sm.Outcomer).Outcome()
				if o.First != outcomeSide[a] {
					t.Errorf("before step %d: First = %q, want %q", step+1, o.First, outcomeSide[a])
				}
				if load(t, dir).Status().Complete {
					break
				}
				if o.Winner != "" || o.Columns != nil {
					t.Fatalf("before step %d, the debate unfinished: winner %q, columns %v", step+1, o.Winner, o.Columns)
				}
				if _, err := advance(t, context.Background(), dir, m, driver.UnitGoal{Steps: 1}); err != nil {
					t.Fatal(err)
				}
			}
			got := files(t, dir)
			o := load(t, dir).(sm.Outcomer).Outcome()
			if tc.noResult {
				if o.Winner != "" || o.Proposition != 0 || o.Opposition != 0 {
					t.Errorf("without a judge: %+v, want no winner and no scores", o)
				}
				if _, ok := got["verdict.md"]; ok {
					t.Error("a debate without a judge has verdict.md")
				}
				if o.Columns["agent_for"] != "Ada" || o.Columns["judge"] != "" || o.Columns["winner"] != "" {
					t.Errorf("columns %v", o.Columns)
				}
				return
			}
			winner, loser := b, a
			if tc.winsFirst {
				winner, loser = a, b
			}
			// By hand: the verdict's scores of its winner and loser;
			// with the panel, the means of the three judges' scores of
			// B (3, 7, 8 → 6) and A (9, 5, 6 → 6.667, rounded to 7).
			scores := map[string]float64{winner: 8, loser: 4}
			if len(tc.judges) > 0 {
				scores = map[string]float64{b: 6, a: 7}
			}
			if o.Winner != outcomeSide[winner] || o.Proposition != scores[forum.For] || o.Opposition != scores[forum.Against] {
				t.Errorf("outcome %q %v to %v, want %q %v to %v", o.Winner, o.Proposition, o.Opposition,
					outcomeSide[winner], scores[forum.For], scores[forum.Against])
			}
			// The files say the same.
			v := meta(t, got["verdict.md"])
			fileScores := v["scores"].(map[string]any)
			if outcomeSide[v["winner_side"].(string)] != o.Winner || fileScores["Ada"] != o.Proposition || fileScores["Brook"] != o.Opposition {
				t.Errorf("verdict.md: %v wins, %v; the outcome %+v", v["winner_side"], fileScores, o)
			}
			names := map[string]string{forum.For: "Ada", forum.Against: "Brook"}
			want := map[string]string{
				"agent_for": "Ada", "model_for": "m", "agent_against": "Brook", "model_against": "m",
				"judge": "Judge Jo", "model_judge": "m", "first_speaker": names[a],
				"winner": names[winner], "winner_side": winner,
				"score_for": fmt.Sprint(scores[forum.For]), "score_against": fmt.Sprint(scores[forum.Against]),
				"premise": "", "premise_upheld": "",
			}
			if len(tc.judges) > 0 {
				want["model_judge"] = "panel: j1, j2, j3"
			}
			if tc.s.premise {
				want["premise"] = "Tests should never talk to the network"
				want["premise_upheld"] = map[bool]string{true: "TRUE", false: "FALSE"}[winner == forum.For]
			}
			if len(o.Columns) != len(want) {
				t.Errorf("columns %v, want %v", o.Columns, want)
			}
			for k, w := range want {
				if o.Columns[k] != w {
					t.Errorf("column %s = %q, want %q", k, o.Columns[k], w)
				}
			}
		})
	}
}
