package dialectic_test

import (
	"bytes"
	"math"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	driver "github.com/moot-dev/moot/internal/driver"
	"github.com/moot-dev/moot/internal/testkit/fixture"
	"github.com/moot-dev/moot/statemachine/dialectic"
	"github.com/moot-dev/moot/store"
)

// hostileDir is a debate written for these tests: four judged exchanges and
// a fifth awaiting judgment, rescores with and without triggered_by, every
// attack and defence type, model settings, and text built to break
// markdown, mermaid and HTML.
const hostileDir = "testdata/hostile"

func loadDir(t testing.TB, dir string) *dialectic.Debate {
	t.Helper()
	d, err := store.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	deb, err := dialectic.Loaded(driver.LoadDebate(d, dialectic.Protocol{}))
	if err != nil {
		t.Fatal(err)
	}
	return deb
}

func firstDiff(want, got []byte) string {
	wl, gl := strings.Split(string(want), "\n"), strings.Split(string(got), "\n")
	for i := 0; i < len(wl) || i < len(gl); i++ {
		var w, g string
		if i < len(wl) {
			w = wl[i]
		}
		if i < len(gl) {
			g = gl[i]
		}
		if w != g {
			return "line " + strconv.Itoa(i+1) + ":\n want: " + w + "\n  got: " + g
		}
	}
	return ""
}

// hostileNarrative is a stored narrative with text that must stay text.
var hostileNarrative = &dialectic.Narrative{
	Model:  "judge-model <b>x</b>",
	Judged: 4,
	Phase:  dialectic.AwaitingJudgment,
	Text: "The question was whether weekend bans | pay off.\n\n" +
		"<script>document.title='PWNED'</script> The clash: `code` and **bold** and [a link](javascript:alert(1)).\n\n" +
		"# Not a heading\n- not a list",
}

func TestReadmeGolden(t *testing.T) {
	deb := loadDir(t, hostileDir)
	for _, tc := range []struct {
		name      string
		narrative *dialectic.Narrative
	}{
		{"hostile.README.md", nil},
		{"hostile-narrative.README.md", hostileNarrative},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := dialectic.Build(deb, tc.narrative)
			golden(t, tc.name, r.Markdown())
		})
	}
	t.Run("argument-graph.mmd", func(t *testing.T) {
		r := dialectic.Build(deb, nil)
		golden(t, "hostile.argument-graph.mmd", r.GraphFile())
		if !bytes.Contains(r.Markdown(), r.GraphFile()) {
			t.Error("README.md does not embed the same graph as argument-graph.mmd")
		}
		if string(r.GraphFile()) != dialectic.Graph(deb) {
			t.Error("argument-graph.mmd differs from the graph the engine writes after each step")
		}
	})
}

func TestDeterministic(t *testing.T) {
	build := func() [3][]byte {
		r := dialectic.Build(loadDir(t, hostileDir), hostileNarrative)
		page, err := r.HTML()
		if err != nil {
			t.Fatal(err)
		}
		return [3][]byte{r.Markdown(), r.GraphFile(), page}
	}
	first := build()
	for i := 0; i < 3; i++ {
		again := build()
		for j, name := range []string{"README.md", "argument-graph.mmd", "report.html"} {
			if !bytes.Equal(first[j], again[j]) {
				t.Fatalf("run %d: %s differs from the first run:\n%s", i+2, name, firstDiff(first[j], again[j]))
			}
		}
	}
}

func TestHeadline(t *testing.T) {
	md := string(dialectic.Build(loadDir(t, hostileDir), nil).Markdown())
	lines := strings.Split(md, "\n")
	if !strings.HasPrefix(lines[0], "# This house would ban cars") {
		t.Errorf("the title is not the motion: %q", lines[0])
	}
	verdict := "**The proposition leads by 3.35 points: +1.30 to -2.05 after 4 judged exchanges.**"
	if lines[2] != verdict {
		t.Errorf("line 3 is %q, want the verdict %q", lines[2], verdict)
	}
	for _, want := range []string{
		"**Models:** proposition prop-model-7b; opposition opp-model \\| \"large\"; judge judge-model \\<b\\>x\\</b\\>.",
		"> **Rescored in exchange 1 after prop_001, +0.20 → -0.10 (-0.30):**",
		// No triggered_by: placed by its scored_at in the judgment of exchange 3.
		"> **Rescored in exchange 3, +0.10 → 0.00 (-0.10):**",
		"### Exchange 4\n\n*Not judged yet.*",
		"Proposition · score **not scored yet**",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("README.md lacks %q", want)
		}
	}
}

// replayTrajectory works out both sides' totals after each of the first
// judged exchanges straight from scores.json, without the report's
// placement rules: in the hostile debate every judgment stamps all its
// scores with one scored_at, so an entry belongs to the exchange whose
// first scores carry the same stamp.
func replayTrajectory(t *testing.T, deb *dialectic.Debate, judged int) []dialectic.Point {
	t.Helper()
	stampExchange := map[string]int{}
	for _, id := range deb.Scores.IDs() {
		pid, err := dialectic.ParseID(id)
		if err != nil {
			t.Fatal(err)
		}
		rec, _ := deb.Scores.Get(id)
		stampExchange[rec.History[0].ScoredAt] = pid.Exchange
	}
	out := make([]dialectic.Point, judged)
	for e := range out {
		out[e].Exchange = e
		for _, id := range deb.Scores.IDs() {
			pid, _ := dialectic.ParseID(id)
			rec, _ := deb.Scores.Get(id)
			score, ok := 0.0, false
			for _, h := range rec.History {
				at, known := stampExchange[h.ScoredAt]
				if !known {
					t.Fatalf("%s: no judgment stamped %s", id, h.ScoredAt)
				}
				if at <= e {
					score, ok = h.Score, true
				}
			}
			if !ok {
				continue
			}
			if pid.Side == dialectic.Prop {
				out[e].Prop += score
			} else {
				out[e].Opp += score
			}
		}
	}
	return out
}

func TestTrajectory(t *testing.T) {
	for _, tc := range []struct {
		name string
		edit func(t *testing.T, deb *dialectic.Debate)
		// hand is the trajectory worked out by hand, or nil.
		hand []dialectic.Point
	}{
		{
			name: "the hostile debate",
			// Worked out by hand from the fixture's scores.json: each
			// rescore moves the total in the exchange whose judgment made it.
			hand: []dialectic.Point{
				{Exchange: 0, Prop: 0.4, Opp: -0.4},
				{Exchange: 1, Prop: 0.75, Opp: -1.05}, // opp_000a +0.20 → -0.10
				{Exchange: 2, Prop: 1.1, Opp: -1.45},  // prop_000b up 0.1, opp_001 down 0.15
				{Exchange: 3, Prop: 1.3, Opp: -2.05},  // prop_002, opp_002, opp_000b down
			},
		},
		{
			// An interrupted judgment can leave scores for exchange 4 in
			// scores.json while debate.md still awaits that judgment: the
			// point after exchange 3 must not count them.
			name: "scores of an exchange not judged yet",
			edit: func(t *testing.T, deb *dialectic.Debate) {
				stamp := "2026-11-22T01:47:39.5+00:00"
				at, err := time.Parse(time.RFC3339Nano, stamp)
				if err != nil {
					t.Fatal(err)
				}
				deb.Scores.Apply([]dialectic.Entry{{ArgumentID: "prop_004", Score: 0.6, Reasoning: "r"}, {ArgumentID: "opp_004", Score: -0.6, Reasoning: "r"}}, at)
			},
			hand: []dialectic.Point{
				{Exchange: 0, Prop: 0.4, Opp: -0.4},
				{Exchange: 1, Prop: 0.75, Opp: -1.05},
				{Exchange: 2, Prop: 1.1, Opp: -1.45},
				{Exchange: 3, Prop: 1.3, Opp: -2.05},
			},
		},
		{
			// A rescore in the last judgment, of an argument of exchange 0.
			name: "a rescore in the last judgment",
			edit: func(t *testing.T, deb *dialectic.Debate) {
				at, err := time.Parse(time.RFC3339Nano, stampOf(t, deb, "prop_003"))
				if err != nil {
					t.Fatal(err)
				}
				prev, diff := -0.7, 0.5
				deb.Scores.Apply([]dialectic.Entry{{ArgumentID: "opp_000c", Score: -0.2, Reasoning: "r", TriggeredBy: "prop_003", PreviousScore: &prev, Diff: &diff}}, at)
			},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			deb := loadDir(t, hostileDir)
			if tc.edit != nil {
				tc.edit(t, deb)
			}
			an := dialectic.Analyze(deb)
			want := replayTrajectory(t, deb, 4)
			if tc.hand != nil {
				for i := range want {
					if math.Abs(want[i].Prop-tc.hand[i].Prop) > 1e-9 || math.Abs(want[i].Opp-tc.hand[i].Opp) > 1e-9 {
						t.Fatalf("the replay gives %+v after exchange %d, worked out by hand %+v", want[i], i, tc.hand[i])
					}
				}
			}
			if len(an.Trajectory) != len(want) {
				t.Fatalf("trajectory has %d points, want %d", len(an.Trajectory), len(want))
			}
			for i, w := range want {
				g := an.Trajectory[i]
				if g.Exchange != w.Exchange || math.Abs(g.Prop-w.Prop) > 1e-9 || math.Abs(g.Opp-w.Opp) > 1e-9 {
					t.Errorf("after exchange %d: got %+v, want %+v", i, g, w)
				}
			}
		})
	}
}

// TestRescorePlacement checks where a rescore lands when its trigger is
// missing or useless.
func TestRescorePlacement(t *testing.T) {
	deb := loadDir(t, hostileDir)
	for _, tc := range []struct {
		name      string
		trigger   string
		scoredAt  string
		wantExchg int
	}{
		{"trigger names the exchange", "prop_002", "", 2},
		{"scored_at falls in exchange 1's judgment", "", stampOf(t, deb, "prop_001"), 1},
		{"scored_at falls in exchange 3's judgment", "", stampOf(t, deb, "opp_003"), 3},
		{"nothing usable: the judgment after the first score", "not-an-id", "yesterday", 1},
		{"a trigger older than the score it revises is not trusted", "prop_000a", "", 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			deb := loadDir(t, hostileDir)
			rec, _ := deb.Scores.Get("opp_000c")
			prev := rec.History[0].Score
			diff := 0.1
			rec.History = append(rec.History, dialectic.HistoryEntry{Score: prev + diff, Reasoning: "r", ScoredAt: tc.scoredAt, TriggeredBy: tc.trigger, PreviousScore: &prev, Diff: &diff})
			rec.CurrentScore = prev + diff
			an := dialectic.Analyze(deb)
			a, _ := an.Arg("opp_000c")
			if got := a.History[1].Exchange; got != tc.wantExchg {
				t.Errorf("the rescore was placed in exchange %d, want %d", got, tc.wantExchg)
			}
		})
	}
}

func stampOf(t *testing.T, deb *dialectic.Debate, id string) string {
	rec, ok := deb.Scores.Get(id)
	if !ok {
		t.Fatalf("%s is not scored", id)
	}
	return rec.History[0].ScoredAt
}

func TestTypeStats(t *testing.T) {
	an := dialectic.Analyze(loadDir(t, hostileDir))
	stats := map[string]dialectic.TypeStat{}
	for _, s := range an.TypeStats(dialectic.AttackTypes(), true) {
		stats[s.Type] = s
	}
	for _, s := range an.TypeStats(dialectic.DefenceTypes(), false) {
		stats[s.Type] = s
	}
	for _, tc := range []struct {
		typ                   string
		count, measured, fell int
		rose                  int
		mean                  float64
	}{
		// claim: opp_000a +0.2→-0.1, opp_001 -0.35→-0.5, prop_002 0.25→0.15, prop_000a 0.3→0.3
		{"claim_attack", 4, 4, 3, 0, -0.138}, // -0.1375, rounded half away from zero
		// grounds: opp_000b 0.1→0, prop_001 0.35→0.35; opp_004's attack is not judged yet
		{"grounds_attack", 3, 2, 1, 0, -0.05},
		// warrant: prop_000b 0.1→0.2, opp_002 -0.25→-0.45
		{"warrant_attack", 2, 2, 1, 1, -0.05},
		// backing: prop_000c 0→0, opp_000b 0.1→0
		{"backing_attack", 2, 2, 1, 0, -0.05},
		{"reinforce", 3, 2, 0, 0, 0},
		{"clarify", 2, 2, 0, 0, 0},
		// concede and pivot: prop_000b 0.1→0.2, opp_001 -0.5→-0.5
		{"concede_and_pivot", 2, 2, 0, 1, 0.05},
	} {
		t.Run(tc.typ, func(t *testing.T) {
			s := stats[tc.typ]
			if s.Count != tc.count || s.Measured != tc.measured || s.Fell != tc.fell || s.Rose != tc.rose || math.Abs(s.MeanChange-tc.mean) > 1e-9 {
				t.Errorf("got %+v, want count %d measured %d fell %d rose %d mean %g", s, tc.count, tc.measured, tc.fell, tc.rose, tc.mean)
			}
		})
	}
	most := an.MostAttacked(2)
	if len(most) != 2 || most[0].ID != "prop_000a" || most[1].ID != "opp_000b" {
		t.Errorf("most attacked: got %v, want prop_000a and opp_000b (two attacks each)", ids(most))
	}
}

func ids(args []*dialectic.ScoredArg) []string {
	var out []string
	for _, a := range args {
		out = append(out, a.ID)
	}
	return out
}

// TestCompat reports on the debate written by the original tool.
func TestCompat(t *testing.T) {
	dir := fixture.Shared(t, "compat", "halt-ai-development")
	r := dialectic.Build(loadDir(t, dir), nil)
	md := string(r.Markdown())
	lines := strings.Split(md, "\n")
	verdict := regexp.MustCompile(`^\*\*The proposition leads by 4\.10 points: \+2\.05 to -2\.05 after 5 judged exchanges\.\*\*$`)
	if !verdict.MatchString(lines[2]) {
		t.Errorf("the verdict line is %q; want the proposition leading, +2.05 to -2.05", lines[2])
	}
	if !strings.Contains(md, "```mermaid\ngraph TD\n") || !strings.Contains(md, "xychart-beta") {
		t.Error("README.md lacks the mermaid graph or the trajectory chart")
	}
	if n := strings.Count(md, "\n#### "); n != 14 {
		t.Errorf("README.md has %d argument sections, want 14", n)
	}
	if _, err := r.HTML(); err != nil {
		t.Fatal(err)
	}
}

func TestNarrativeStorage(t *testing.T) {
	data, err := hostileNarrative.Render()
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(data, []byte("{\n  \"written_by\": \"model\",\n  \"note\": \"Written by a language model")) {
		t.Errorf("narrative.md does not open by saying it is model-written:\n%s", data)
	}
	back, err := dialectic.ParseNarrative(data)
	if err != nil {
		t.Fatal(err)
	}
	if back.Model != hostileNarrative.Model || back.Judged != hostileNarrative.Judged || back.Phase != hostileNarrative.Phase || back.Text != hostileNarrative.Text {
		t.Errorf("read back %+v, wrote %+v", back, hostileNarrative)
	}
	for _, bad := range []string{"", "no frontmatter\n", "{\n  \"written_by\": \"model\"\n}\n\ntext\n", "{\n  \"judged_exchanges\": 1,\n  \"phase\": \"awaiting_arguments\"\n}\n"} {
		if _, err := dialectic.ParseNarrative([]byte(bad)); err == nil {
			t.Errorf("ParseNarrative(%q) accepted it", bad)
		}
	}

	deb := loadDir(t, hostileDir)
	stale := *hostileNarrative
	stale.Judged = 2
	md := string(dialectic.Build(deb, &stale).Markdown())
	if !strings.Contains(md, "after 2 judged exchanges; it is commentary") || !strings.Contains(md, "The debate has moved on since (4 judged exchanges now)") {
		t.Error("a narrative written earlier in the debate is not marked as such")
	}
	if strings.Contains(string(dialectic.Build(deb, hostileNarrative).Markdown()), "moved on since") {
		t.Error("a current narrative is marked as stale")
	}
}

func TestNarrativePrompt(t *testing.T) {
	p := dialectic.NarrativePrompt(loadDir(t, hostileDir))
	for _, want := range []string{"500 to 600 words", "the question", "the clash", "the turning points", "the verdict",
		"=== RECORD ===", "Leader: proposition by 3.35.", "- opp_000a (opposition, exchange 0, score -0.10)", "Rescored in exchange 1 from +0.20 to -0.10"} {
		if !strings.Contains(p, want) {
			t.Errorf("the prompt lacks %q", want)
		}
	}
}

// TestRecordedTotalsDisagree checks that the report uses scores.json and
// says so when debate.md's totals disagree with it.
func TestRecordedTotalsDisagree(t *testing.T) {
	deb := loadDir(t, hostileDir)
	deb.Header.Totals.Proposition.Total = 9
	md := string(dialectic.Build(deb, nil).Markdown())
	if !strings.Contains(md, "> **Note:** debate.md records +9.00 (6) to -2.05 (6), but scores.json adds up to the figures above") {
		t.Error("no note about debate.md's totals disagreeing with scores.json")
	}
	if !strings.Contains(md, "| Total (sum of current scores) | **+1.30** | -2.05 |") {
		t.Error("the scoreboard does not use the totals scores.json gives")
	}
}

// TestHeadlineNamesEachSidesStrongest checks that the reasons under the
// verdict treat the sides alike: each side's strongest argument, the
// proposition first, whichever side leads, and never one side's weakest.
func TestHeadlineNamesEachSidesStrongest(t *testing.T) {
	for _, tc := range []struct {
		name string
		edit func(deb *dialectic.Debate)
	}{
		{"the proposition leads", func(*dialectic.Debate) {}},
		{"the opposition leads", func(deb *dialectic.Debate) {
			rec, _ := deb.Scores.Get("opp_000c")
			rec.CurrentScore = 3
			rec.History[len(rec.History)-1].Score = 3
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			deb := loadDir(t, hostileDir)
			tc.edit(deb)
			// Each side's best, worked out from scores.json.
			best := map[dialectic.Side]string{}
			top := map[dialectic.Side]float64{}
			for _, id := range deb.Scores.IDs() {
				pid, _ := dialectic.ParseID(id)
				rec, _ := deb.Scores.Get(id)
				if _, seen := best[pid.Side]; !seen || rec.CurrentScore > top[pid.Side] {
					best[pid.Side], top[pid.Side] = id, rec.CurrentScore
				}
			}
			md := string(dialectic.Build(deb, nil).Markdown())
			head := md[:strings.Index(md, "## Scoreboard")]
			var reasons []string
			for _, l := range strings.Split(head, "\n") {
				if strings.HasPrefix(l, "- **Strongest") || strings.HasPrefix(l, "- **Weakest") {
					reasons = append(reasons, l)
				}
			}
			if len(reasons) != 2 {
				t.Fatalf("the headline names %d arguments, want each side's strongest:\n%s", len(reasons), strings.Join(reasons, "\n"))
			}
			for i, side := range dialectic.Sides() {
				want := "- **Strongest for the " + side.Name() + ":** " + best[side] + " "
				if !strings.HasPrefix(reasons[i], want) {
					t.Errorf("reason %d is %q, want it to start %q", i+1, reasons[i], want)
				}
			}
		})
	}
}

// TestTotalsSayWhatTheyAre checks the scoreboard's totals row: it says the
// figures are each side's sum of current scores, and notes when rescores
// have made them something other than opposites.
func TestTotalsSayWhatTheyAre(t *testing.T) {
	const note = "The totals are not opposites"
	for _, tc := range []struct {
		name     string
		edit     func(deb *dialectic.Debate)
		row      string
		wantNote bool
	}{
		{"after rescores", func(*dialectic.Debate) {}, "| Total (sum of current scores) | **+1.30** | -2.05 |", true},
		{"opposites", func(deb *dialectic.Debate) {
			// Give opp_000c what makes the opposition's sum -1.30.
			rec, _ := deb.Scores.Get("opp_000c")
			rec.CurrentScore = 0.05
			rec.History[len(rec.History)-1].Score = 0.05
		}, "| Total (sum of current scores) | **+1.30** | -1.30 |", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			deb := loadDir(t, hostileDir)
			tc.edit(deb)
			md := string(dialectic.Build(deb, nil).Markdown())
			if !strings.Contains(md, tc.row) {
				t.Errorf("the scoreboard lacks the row %q", tc.row)
			}
			if strings.Contains(md, "zero-sum") {
				t.Error("the report still calls the totals zero-sum")
			}
			if got := strings.Contains(md, note); got != tc.wantNote {
				t.Errorf("note %q shown: %v, want %v", note, got, tc.wantNote)
			}
		})
	}
}

// TestTrajectoryDrawsTheMargin checks that both trajectory charts, the
// mermaid one in README.md and the SVG in report.html, draw one line: the
// proposition's total minus the opposition's after each exchange.
func TestTrajectoryDrawsTheMargin(t *testing.T) {
	deb := loadDir(t, hostileDir)
	r := dialectic.Build(deb, nil)
	tr := dialectic.Analyze(deb).Trajectory
	margins := make([]float64, len(tr))
	for i, p := range tr {
		margins[i] = p.Prop - p.Opp
	}
	t.Run("README.md", func(t *testing.T) {
		md := string(r.Markdown())
		lines := regexp.MustCompile(`(?m)^    line \[(.*)\]$`).FindAllStringSubmatch(md, -1)
		if len(lines) != 1 {
			t.Fatalf("the chart has %d lines, want 1 (the margin)", len(lines))
		}
		vals := strings.Split(lines[0][1], ", ")
		if len(vals) != len(margins) {
			t.Fatalf("the line has %d values, want %d", len(vals), len(margins))
		}
		for i, v := range vals {
			got, err := strconv.ParseFloat(v, 64)
			if err != nil || math.Abs(got-margins[i]) > 1e-9 {
				t.Errorf("after exchange %d the line is at %q, want the margin %g", i, v, margins[i])
			}
		}
	})
	t.Run("report.html", func(t *testing.T) {
		svg := dialectic.TrajectorySVG(tr)
		lines := regexp.MustCompile(`<polyline [^>]*points="([^"]*)"`).FindAllStringSubmatch(svg, -1)
		if len(lines) != 1 {
			t.Fatalf("the chart has %d lines, want 1 (the margin)", len(lines))
		}
		pts := strings.Fields(lines[0][1])
		if len(pts) != len(margins) {
			t.Fatalf("the line has %d points, want %d", len(pts), len(margins))
		}
		ys := make([]float64, len(pts))
		for i, p := range pts {
			_, y, _ := strings.Cut(p, ",")
			ys[i], _ = strconv.ParseFloat(y, 64)
		}
		// SVG's y grows downwards: a larger margin is drawn higher, and
		// equal margins level. The scale is linear, so the drawn heights
		// are proportional to the margins' differences.
		for i := 1; i < len(ys); i++ {
			dm, dy := margins[i]-margins[0], ys[0]-ys[i]
			scale := (ys[0] - ys[len(ys)-1]) / (margins[len(ys)-1] - margins[0])
			if math.Abs(dy-dm*scale) > 0.2 {
				t.Errorf("point %d is at y %g, %g above the first; the margin moved by %g (scale %g)", i, ys[i], dy, dm, scale)
			}
		}
		for _, want := range []string{"proposition ahead", "opposition ahead"} {
			if !strings.Contains(svg, want) {
				t.Errorf("the chart does not say which side of zero is %q", want)
			}
		}
	})
}
