package panel_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/moot-dev/moot/internal/driver"
	"github.com/moot-dev/moot/internal/testkit/fencetest"
	"github.com/moot-dev/moot/internal/testkit/modeltest"
	"github.com/moot-dev/moot/internal/testkit/protocoltest"
	"github.com/moot-dev/moot/statemachine/panel"
	"github.com/moot-dev/moot/statemachine/panel/paneltest"
)

// TestCallCountWithoutRooms: detection always false with 3 personas makes
// exactly 1+3+3×(3+3+m₂+2)+3+2 calls (protocol-003 §8.1), m₂ the reply
// round's size, and no crux/ folder.
func TestCallCountWithoutRooms(t *testing.T) {
	_, fs, reqs := runAll(t, nil, paneltest.Options{})
	m2 := len(of(reqs, "reply")) / 3
	if m2 < 2 {
		t.Fatalf("the reply round had %d personas per aspect, want at least 2", m2)
	}
	if want := 1 + 3 + 3*(3+3+m2+2) + 3 + 2; len(reqs) != want {
		t.Errorf("%d requests, want %d", len(reqs), want)
	}
	if got := under(fs, "crux/"); len(got) > 0 {
		t.Errorf("crux/ holds %v, want no room", got)
	}
	if fs["shifts.json"] == "" || fs["summary.json"] == "" {
		t.Error("shifts.json or summary.json is missing")
	}
	if !strings.Contains(fs["debate.md"], `"stage": "complete"`) {
		t.Errorf("debate.md does not say complete:\n%s", fs["debate.md"])
	}
}

// TestSpawnGate: one gate false, no room; all three true naming Michael
// and Arthur, a room for those two, Michael speaking at t00.
func TestSpawnGate(t *testing.T) {
	tests := []struct {
		name  string
		gates [3]bool
		room  bool
	}{
		{"no opposition", [3]bool{false, true, true}, false},
		{"no specific claim", [3]bool{true, false, true}, false},
		{"off topic", [3]bool{true, true, false}, false},
		{"all three", [3]bool{true, true, true}, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, fs, reqs := runAll(t, map[string]string{"aspects": "1"}, paneltest.Options{
				Detect: func(int) ([3]bool, []string) { return tc.gates, []string{"michael", "arthur"} },
				Exit:   func(int, int) bool { return true },
			})
			room := under(fs, "crux/a1/")
			if !tc.room {
				if len(room) > 0 || len(of(reqs, "crux-turn")) > 0 {
					t.Fatalf("a room opened: %v", room)
				}
				return
			}
			if !slices.Contains(room, "pos-michael.md") || !slices.Contains(room, "pos-arthur.md") {
				t.Fatalf("crux/a1 holds %v, want positions of michael and arthur", room)
			}
			if !strings.Contains(fs["crux/a1/t00.md"], `"persona": "michael"`) || !strings.Contains(fs["crux/a1/t01.md"], `"persona": "arthur"`) {
				t.Errorf("t00 is not michael's or t01 not arthur's:\n%s\n%s", fs["crux/a1/t00.md"], fs["crux/a1/t01.md"])
			}
			for _, r := range of(reqs, "crux-position") {
				if s := paneltest.Speaker(r); s != "michael" && s != "arthur" {
					t.Errorf("%s stated a position in the room", s)
				}
				other := "arthur"
				if paneltest.Speaker(r) == "arthur" {
					other = "michael"
				}
				if strings.Contains(prompt(r), "<<"+other+"-crux-position>>") {
					t.Errorf("%s saw the other's position", paneltest.Speaker(r))
				}
			}
		})
	}
}

// TestExitChecks: exit true at the first check ends the room after t03
// with one check; always false gives 14 turns and checks after 3, 5, 7,
// 9, 11 and 13; both end in a convergence and a card.
func TestExitChecks(t *testing.T) {
	tests := []struct {
		name   string
		exit   bool
		turns  int
		checks []string
	}{
		{"surfaced at once", true, 4, []string{"exit-t03.json"}},
		{"never surfaced", false, 14, []string{"exit-t03.json", "exit-t05.json", "exit-t07.json", "exit-t09.json", "exit-t11.json", "exit-t13.json"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, fs, reqs := runAll(t, map[string]string{"aspects": "1"}, paneltest.Options{
				Detect: roomFor, Exit: func(int, int) bool { return tc.exit },
			})
			room := under(fs, "crux/a1/")
			var turns, checks []string
			for _, f := range room {
				switch {
				case strings.HasPrefix(f, "t"):
					turns = append(turns, f)
				case strings.HasPrefix(f, "exit-"):
					checks = append(checks, f)
				}
			}
			var want []string
			for i := range tc.turns {
				want = append(want, fmt.Sprintf("t%02d.md", i))
			}
			if !slices.Equal(turns, want) {
				t.Errorf("turns %v, want %v", turns, want)
			}
			if !slices.Equal(checks, tc.checks) {
				t.Errorf("checks %v, want %v", checks, tc.checks)
			}
			if len(of(reqs, "crux-turn")) != tc.turns || len(of(reqs, "exit-check")) != len(tc.checks) {
				t.Errorf("%d turn and %d check requests", len(of(reqs, "crux-turn")), len(of(reqs, "exit-check")))
			}
			if fs["crux/a1/convergence.json"] == "" || fs["cards/a1.json"] == "" || fs["cards/a1.md"] == "" {
				t.Error("convergence.json or the card is missing")
			}
			if len(of(reqs, "convergence")) != 1 || len(of(reqs, "card")) != 1 {
				t.Errorf("%d convergence and %d card requests, want 1 each", len(of(reqs, "convergence")), len(of(reqs, "card")))
			}
		})
	}
}

func turnRequest(t *testing.T, reqs []modeltest.Request, task, turn string) modeltest.Request {
	t.Helper()
	for _, r := range of(reqs, task) {
		if paneltest.Field(r, "Turn") == turn {
			return r
		}
	}
	t.Fatalf("no %s request at turn %s", task, turn)
	return modeltest.Request{}
}

// TestBoundedWindows: the t10 prompt holds t06-t09 and nothing earlier,
// positions included; the exit check after t11 holds exactly t06-t11; the
// first turns' last exchanges hold the position statements.
func TestBoundedWindows(t *testing.T) {
	_, _, reqs := runAll(t, map[string]string{"aspects": "1"}, paneltest.Options{Detect: roomFor})
	marker := func(i int) string {
		who := "michael"
		if i%2 == 1 {
			who = "arthur"
		}
		return fmt.Sprintf("<<%s-t%d>>", who, i)
	}
	check := func(name, text string, lo, hi int) {
		for i := 0; i < 14; i++ {
			has := strings.Contains(text, marker(i))
			if want := i >= lo && i <= hi; has != want {
				t.Errorf("%s: holds %s: %t, want %t", name, marker(i), has, want)
			}
		}
		if strings.Contains(text, "-crux-position>>") {
			t.Errorf("%s holds a position statement", name)
		}
	}
	check("the t10 prompt", prompt(turnRequest(t, reqs, "crux-turn", "10")), 6, 9)
	check("the exit check after t11", prompt(turnRequest(t, reqs, "exit-check", "11")), 6, 11)
	// The last exchanges are the room's last 4 messages: the first three
	// turns see both position statements there, as in the original, and
	// turn 3 only arthur's, the later of the two.
	window := func(turn string) string {
		p := prompt(turnRequest(t, reqs, "crux-turn", turn))
		_, w, _ := strings.Cut(p, "The last exchanges:")
		w, _, _ = strings.Cut(w, " just said: ")
		return w
	}
	for _, turn := range []string{"0", "1", "2", "3"} {
		w := window(turn)
		for _, who := range []string{"michael", "arthur"} {
			want := turn != "3" || who == "arthur"
			if has := strings.Contains(w, "<<"+who+"-crux-position>>"); has != want {
				t.Errorf("turn %s's last exchanges hold %s's position: %t, want %t:\n%s", turn, who, has, want, w)
			}
		}
	}
	early := prompt(turnRequest(t, reqs, "crux-turn", "3"))
	late := prompt(turnRequest(t, reqs, "crux-turn", "4"))
	if !strings.Contains(early, "SPECIFICALLY") || !strings.Contains(late, "Steelman") {
		t.Error("turn 3 is not asked the early question or turn 4 the late one")
	}
}

// TestMiniroundVisibility: a persona's miniround-1 prompt holds the
// others' takes, not its own; miniround 2 asks only the personas replied
// to, each with its challenger's text.
func TestMiniroundVisibility(t *testing.T) {
	_, fs, reqs := runAll(t, map[string]string{"aspects": "1"}, paneltest.Options{})
	ids := []string{"michael", "arthur", "brian"}
	reacts := of(reqs, "react")
	if len(reacts) != 3 {
		t.Fatalf("%d reactions, want 3", len(reacts))
	}
	for _, r := range reacts {
		me := paneltest.Speaker(r)
		for _, o := range ids {
			has := strings.Contains(prompt(r), "<<"+o+"-a1-m0>>")
			if has != (o != me) {
				t.Errorf("%s's reaction prompt holds %s's take: %t", me, o, has)
			}
		}
	}
	// The fake answers the first other: michael → arthur, arthur and
	// brian → michael. So michael and arthur are replied to.
	var replied []string
	for _, r := range of(reqs, "reply") {
		me := paneltest.Speaker(r)
		replied = append(replied, me)
		challenger := "michael"
		if me == "michael" {
			challenger = "arthur"
		}
		if !strings.Contains(prompt(r), "<<"+challenger+"-a1-m1>>") || !strings.Contains(prompt(r), "<<"+me+"-a1-m0>>") {
			t.Errorf("%s's reply prompt lacks its take or %s's reaction:\n%s", me, challenger, prompt(r))
		}
	}
	slices.Sort(replied)
	if !slices.Equal(replied, []string{"arthur", "michael"}) {
		t.Errorf("miniround 2 asked %v, want arthur and michael", replied)
	}
	if !strings.Contains(fs["messages/a1-m1-brian.md"], `"reply_to": "a1-m0-michael"`) {
		t.Errorf("brian's reaction does not reply to michael:\n%s", fs["messages/a1-m1-brian.md"])
	}
	if _, ok := fs["messages/a1-m2-brian.md"]; ok {
		t.Error("brian, replied to by nobody, replied in miniround 2")
	}
}

// TestPromptScopes: closings see summaries and card questions but no raw
// takes; the shift check only openings and closings; the summary no room
// chat.
func TestPromptScopes(t *testing.T) {
	_, _, reqs := runAll(t, map[string]string{"aspects": "1"}, paneltest.Options{Detect: roomFor, Exit: func(int, int) bool { return true }})
	for _, r := range of(reqs, "closing") {
		p := prompt(r)
		if !strings.Contains(p, "SUMMARY-a1") || !strings.Contains(p, "Does the evidence hold? [evidence] (unresolved)") {
			t.Errorf("a closing prompt lacks the summary or the card:\n%s", p)
		}
		if strings.Contains(p, "-a1-m0>>") || strings.Contains(p, "-t0") {
			t.Errorf("a closing prompt holds raw takes or room turns")
		}
	}
	shifts := prompt(of(reqs, "shifts")[0])
	if !strings.Contains(shifts, "<<michael-opening>>") || !strings.Contains(shifts, "<<michael-closing>>") {
		t.Error("the shift check lacks an opening or a closing")
	}
	if strings.Contains(shifts, "-a1-") || strings.Contains(shifts, "-t0") || strings.Contains(shifts, "SUMMARY") {
		t.Error("the shift check holds more than openings and closings")
	}
	if n := of(reqs, "summary")[0].MaxTokens; n != 4096 {
		t.Errorf("the summary's max_tokens is %d, want the original's 4096", n)
	}
	summary := prompt(of(reqs, "summary")[0])
	if !strings.Contains(summary, "<<michael-a1-m0>>") || strings.Contains(summary, "-t0") || strings.Contains(summary, "crux-position") {
		t.Error("the summary lacks the takes or holds room chat")
	}
	for _, r := range reqs {
		if want := map[string]float64{"opening": 0.85, "crux-turn": 0.75, "card": 0.3, "detect": 0.2, "decompose": 0.3}[paneltest.Kind(r)]; want != 0 {
			if r.Temperature == nil || *r.Temperature != want {
				t.Errorf("%s sent temperature %v, want %v", paneltest.Kind(r), r.Temperature, want)
			}
		}
	}
}

// TestCardRepair: a card in prose is sent back and repaired into a valid
// card; a kind out of the set is sent back, never stored.
func TestCardRepair(t *testing.T) {
	tests := []struct {
		name        string
		prose, kind int
	}{
		{"prose, then valid", 1, 0},
		{"kind out of the set, then valid", 0, 1},
		{"prose, a bad kind, then valid", 1, 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, fs, reqs := runAll(t, map[string]string{"aspects": "1"}, paneltest.Options{Detect: roomFor, Exit: func(int, int) bool { return true }, ProseCards: tc.prose, BadKinds: tc.kind})
			if n := len(of(reqs, "card")); n != 1+tc.prose+tc.kind {
				t.Errorf("%d card requests, want %d", n, 1+tc.prose+tc.kind)
			}
			card := fs["cards/a1.json"]
			if !strings.Contains(card, `"kind": "evidence"`) || strings.Contains(card, "empirical") {
				t.Errorf("the card is not enum-valid:\n%s", card)
			}
			if !strings.Contains(card, `"position": "YES"`) || !strings.Contains(card, "FALSIFY-arthur") {
				t.Errorf("the card lacks a side:\n%s", card)
			}
		})
	}
}

// TestBannedOpenings: a banned opening is stripped; a persona left with
// under 20 characters after every repair stops the run by default, with
// nothing of the step written; with --keep-going its message is recorded
// as missing (each refused answer with its problem, no text in its place)
// and the panel goes on.
func TestBannedOpenings(t *testing.T) {
	tests := []struct{ in, want string }{
		{"That's a great point, but the data say otherwise.", "But the data say otherwise."},
		{"As an AI, I think rates matter.", "I think rates matter."},
		{"Firstly, consider the base rate.", "Consider the base rate."},
		{"Rates matter more than mood.", "Rates matter more than mood."},
		// The original's six, wherever they open a sentence, every one.
		{"That's a valid point, but rates lead. In conclusion, hold cash.", "But rates lead. Hold cash."},
		{"Rates lead. Let's break this down. Cash yields five percent.", "Rates lead. Cash yields five percent."},
		{"In summary, the bulls are early.", "The bulls are early."},
		{"Secondly, yields matter. As an AI, I defer.", "Yields matter. I defer."},
		{"The bull argument misses the rate path entirely.", "The rate path entirely."},
		{"Firstly, in conclusion, rates rule.", "Rates rule."},
		// Not where they do not open a sentence.
		{"Rates lead, in conclusion of a long cycle.", "Rates lead, in conclusion of a long cycle."},
	}
	for _, tc := range tests {
		if got, _ := panel.StripBanned(tc.in); got != tc.want {
			t.Errorf("StripBanned(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
	srv := modeltest.NewServer(t, paneltest.Handler(paneltest.Options{Short: "brian"}))
	dir := newDebate(t, map[string]string{"aspects": "1"})
	_, err := advance(t, context.Background(), dir, srv.URL, driver.UnitGoal{All: true})
	var re *driver.RoleError
	if !errors.As(err, &re) || re.Role != "persona" || !re.Missable {
		t.Fatalf("without --keep-going the run ended with %v, want the persona's failure, which --keep-going may skip", err)
	}
	if _, ok := files(t, dir)["messages/open-brian.md"]; ok {
		t.Error("the stopped run wrote brian's opening")
	}
	o := protocoltest.Served(t, srv.URL)
	o.KeepGoing = true
	if _, err := protocoltest.Advance(t, context.Background(), panel.Protocol{}, dir, driver.UnitGoal{All: true}, o); err != nil {
		t.Fatal(err)
	}
	fs, reqs := files(t, dir), srv.Requests()
	open := fs["messages/open-brian.md"]
	for _, want := range []string{`"status": "missing"`, `"call": "awaiting_openings/brian"`, "fewer than 20 characters", `"note": "no value was invented`, "not asked again"} {
		if !strings.Contains(open, want) {
			t.Errorf("brian's opening, recorded as missing, has no %s:\n%s", want, open)
		}
	}
	if _, body, _ := strings.Cut(strings.TrimPrefix(open, "---\n"), "\n---\n"); strings.TrimSpace(body) != "" {
		t.Errorf("a missing message has a text: %q", body)
	}
	n := 0
	for _, r := range of(reqs, "opening") {
		if paneltest.Speaker(r) == "brian" {
			n++
		}
	}
	if n != 6 {
		t.Errorf("brian's opening was asked %d times, want 6 (two repairs in each of the two runs)", n)
	}
	if !strings.Contains(fs["debate.md"], `"stage": "complete"`) {
		t.Error("the panel did not go on to the end")
	}
}

// TestStageCounting: run 2 on a fresh debate stops after aspect 1's
// summary.
func TestStageCounting(t *testing.T) {
	srv := modeltest.NewServer(t, paneltest.Handler(paneltest.Options{}))
	dir := newDebate(t, nil)
	if _, err := advance(t, context.Background(), dir, srv.URL, driver.UnitGoal{Done: 2}); err != nil {
		t.Fatal(err)
	}
	fs := files(t, dir)
	if fs["aspects/a1/summary.md"] == "" || len(under(fs, "aspects/a2/")) > 0 || len(under(fs, "messages/a2-")) > 0 {
		t.Errorf("run 2 did not stop right after aspect 1's summary: %v", under(fs, ""))
	}
	if !strings.Contains(fs["debate.md"], `"stage": "aspect:2"`) || !strings.Contains(fs["debate.md"], `"phase": "awaiting_mini0"`) {
		t.Errorf("debate.md:\n%s", fs["debate.md"])
	}
}

// TestAnalysisSeesPersonasFenced: persona messages that plant an order
// and copies of the fence lines reach every analysis call that reads them
// (detect, round summary, exit check, convergence, card, shifts, summary)
// only inside the fence, with the copies broken, and each analysis call's
// instructions say what the fence means.
func TestAnalysisSeesPersonasFenced(t *testing.T) {
	fake := paneltest.Handler(paneltest.Options{Detect: roomFor, Exit: func(k, t int) bool { return t >= 3 }})
	srv := modeltest.NewServer(t, func(req modeltest.Request) modeltest.Reply {
		r := fake(req)
		switch paneltest.Kind(req) {
		case "opening", "take", "reply", "crux-position", "crux-turn", "closing":
			r.Content += "\n" + fencetest.Hostile
		case "react":
			var answer map[string]string
			if err := json.Unmarshal([]byte(r.Content), &answer); err != nil {
				return modeltest.Failf("the fake's react answer is not JSON: %v", err)
			}
			answer["text"] += "\n" + fencetest.Hostile
			b, _ := json.Marshal(answer)
			r.Content = string(b)
		}
		return r
	})
	dir := newDebate(t, map[string]string{"aspects": "1"})
	if _, err := advance(t, context.Background(), dir, srv.URL, driver.UnitGoal{All: true}); err != nil {
		t.Fatal(err)
	}
	analysis := []string{"detect", "round-summary", "exit-check", "convergence", "card", "shifts", "summary"}
	seen := map[string]int{}
	for i, req := range srv.Requests() {
		kind := paneltest.Kind(req)
		if !slices.Contains(analysis, kind) {
			continue
		}
		what := fmt.Sprintf("%s request %d", kind, i+1)
		fencetest.Ruled(t, what, req.Messages[0].Content)
		for _, msg := range req.Messages[1:] {
			if strings.Contains(msg.Content, fencetest.Order) {
				seen[kind]++
				fencetest.Inside(t, what, msg.Content)
			}
		}
	}
	for _, kind := range analysis {
		if seen[kind] == 0 {
			t.Errorf("no %s request held the planted text", kind)
		}
	}
}

// TestOriginalPersonaPrompts: every aspect's first takes are told not to
// repeat the openings, and every persona call carries the original's
// never-say list, its hedges among them.
func TestOriginalPersonaPrompts(t *testing.T) {
	_, _, reqs := runAll(t, map[string]string{"aspects": "2"}, paneltest.Options{})
	takes := of(reqs, "take")
	if len(takes) != 6 {
		t.Fatalf("%d first takes, want 6 (3 personas, 2 aspects)", len(takes))
	}
	for _, r := range takes {
		p := prompt(r)
		for _, who := range []string{"michael", "arthur", "brian"} {
			if !strings.Contains(p, "do NOT repeat") || !strings.Contains(p, "<<"+who+"-opening>>") {
				t.Errorf("%s's take in aspect %s is not shown %s's opening to avoid", paneltest.Speaker(r), paneltest.Field(r, "Aspect"), who)
			}
		}
	}
	n := 0
	for _, r := range reqs {
		if paneltest.Speaker(r) == "" {
			continue
		}
		n++
		sys := r.Messages[0].Content
		for _, w := range []string{"Never hedge", `"perhaps"`, `"might"`, `"could be"`} {
			if !strings.Contains(sys, w) {
				t.Errorf("%s's %s system prompt lacks %s", paneltest.Speaker(r), paneltest.Kind(r), w)
			}
		}
	}
	if n == 0 {
		t.Error("no persona call seen")
	}
}
