package moderated_test

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/moot-dev/moot/internal/driver"
	"github.com/moot-dev/moot/internal/testkit/modeltest"
	"github.com/moot-dev/moot/internal/testkit/protocoltest"
	"github.com/moot-dev/moot/statemachine/moderated"
	"github.com/moot-dev/moot/statemachine/moderated/moderatedtest"
)

// TestCounts: the messages and requests of a whole debate, by rounds and
// options (the design's 11 + 10R messages, 11 + 14R calls; 9R and 13R
// without round summaries; 4R more of each with a fact checker).
func TestCounts(t *testing.T) {
	tests := []struct {
		name               string
		flags              map[string]string
		messages, requests int
		last               string
	}{
		{"two rounds", map[string]string{"rounds": "2"}, 31, 39, "031_moderator_"},
		{"three rounds", map[string]string{"rounds": "3"}, 41, 53, "041_moderator_"},
		{"two rounds without summaries", map[string]string{"rounds": "2", "no-round-summaries": "true"}, 29, 37, "029_moderator_"},
		{"one round", map[string]string{"rounds": "1"}, 21, 25, "021_moderator_"},
		{"two rounds with a fact checker", map[string]string{"rounds": "2", "fact-checker": "true"}, 39, 47, "039_moderator_"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, fs, reqs := runAll(t, tt.flags, moderatedtest.Options{})
			msgs := messageFiles(fs)
			if len(msgs) != tt.messages {
				t.Errorf("%d message files, want %d: %v", len(msgs), tt.messages, msgs)
			}
			for i, m := range msgs {
				if !strings.HasPrefix(m, fmt.Sprintf("%03d_", i+1)) {
					t.Errorf("message file %d is %s", i+1, m)
				}
			}
			if len(msgs) > 0 && !strings.HasPrefix(msgs[len(msgs)-1], tt.last) {
				t.Errorf("last message %s, want %s...", msgs[len(msgs)-1], tt.last)
			}
			if len(reqs) != tt.requests {
				t.Errorf("%d requests, want %d", len(reqs), tt.requests)
			}
		})
	}
}

// TestRoleOrder: the design's order, A arguing first in each round.
func TestRoleOrder(t *testing.T) {
	_, fs, _ := runAll(t, map[string]string{"rounds": "1"}, moderatedtest.Options{})
	var got []string
	for _, m := range messageFiles(fs) {
		var front struct {
			Name, Kind, Phase string
		}
		if err := json.Unmarshal([]byte(fs["messages/"+m][:strings.Index(fs["messages/"+m], "\n}\n")+2]), &front); err != nil {
			t.Fatal(err)
		}
		got = append(got, map[string]string{"Moderator": "M", "Advocate A": "A", "Advocate B": "B"}[front.Name])
	}
	want := "M M A M B M M A M B M B M A M M M A M B M"
	if strings.Join(got, " ") != want {
		t.Errorf("roles in file order:\n got %s\nwant %s", strings.Join(got, " "), want)
	}
	// A's first turn of the round is an argument, and its file says so.
	if !strings.Contains(fs["messages/"+messageFiles(fs)[7]], `"kind": "argument"`) {
		t.Errorf("message 008 is not A's argument:\n%s", fs["messages/"+messageFiles(fs)[7]])
	}
}

// TestRebuttalsAnswerTheRoundsArgument: B's round-r rebuttal request holds
// A's round-r argument, and A's holds B's.
func TestRebuttalsAnswerTheRoundsArgument(t *testing.T) {
	_, _, reqs := runAll(t, map[string]string{"rounds": "2"}, moderatedtest.Options{})
	seen := 0
	for _, r := range reqs {
		k := moderatedtest.Kind(r)
		if (k != "A" && k != "B") || moderatedtest.Field(r, "Your task") != "rebuttal" {
			continue
		}
		seen++
		other := map[string]string{"A": "B", "B": "A"}[k]
		round := moderatedtest.Round(r)
		want := fmt.Sprintf("The argument you answer (Advocate %s, round %s argument):\n\n<<%s-argument-r%s>>", other, round, other, round)
		if !strings.Contains(user(r), want) {
			t.Errorf("%s's round %s rebuttal request lacks %q:\n%s", k, round, want, user(r))
		}
	}
	if seen != 4 {
		t.Errorf("%d rebuttal requests, want 4", seen)
	}
}

// TestScoringVisibility: advocates never see a score or a justification;
// each scoring request holds exactly one statement, and only argument
// round statements are scored, each once.
func TestScoringVisibility(t *testing.T) {
	const rounds = 2
	_, fs, reqs := runAll(t, map[string]string{"rounds": fmt.Sprint(rounds)}, moderatedtest.Options{})
	for _, r := range reqs {
		k := moderatedtest.Kind(r)
		if k == "A" || k == "B" || k == "moderator" {
			if strings.Contains(all(r), "JUST-") || strings.Contains(all(r), `"score"`) {
				t.Errorf("a %s request holds a score or justification:\n%s", k, all(r))
			}
		}
	}
	scored := map[string]int{}
	for _, r := range of(reqs, "scorer") {
		ms := moderatedtest.StatementMarker.FindAllString(all(r), -1)
		if len(ms) != 1 {
			t.Errorf("a scoring request holds %d statements %v, want 1", len(ms), ms)
			continue
		}
		if !regexp.MustCompile(`-(argument|rebuttal)-r[0-9]`).MatchString(ms[0]) {
			t.Errorf("%s is scored; only arguments and rebuttals are", ms[0])
		}
		scored[ms[0]]++
		if r.SchemaName != "rubric" {
			t.Errorf("a scoring request asks for schema %q", r.SchemaName)
		}
	}
	if len(scored) != 4*rounds {
		t.Errorf("%d statements scored, want %d: %v", len(scored), 4*rounds, scored)
	}
	n := 0
	for k := range fs {
		if strings.HasPrefix(k, "scores/") && !strings.HasSuffix(k, "/") {
			n++
		}
	}
	if n != 4*rounds {
		t.Errorf("%d score files, want %d", n, 4*rounds)
	}
}

// TestConclusion: the conclusion request holds both closings and asks for
// no winner; no file names one.
func TestConclusion(t *testing.T) {
	_, fs, reqs := runAll(t, map[string]string{"rounds": "1"}, moderatedtest.Options{})
	var concl []modeltest.Request
	for _, r := range of(reqs, "moderator") {
		if moderatedtest.Field(r, "Next action") == "conclusion" {
			concl = append(concl, r)
		}
	}
	if len(concl) != 1 {
		t.Fatalf("%d conclusion requests", len(concl))
	}
	for _, want := range []string{"<<A-closing-rc>>", "<<B-closing-rc>>", "Declare no winner"} {
		if !strings.Contains(user(concl[0]), want) {
			t.Errorf("the conclusion request lacks %q:\n%s", want, user(concl[0]))
		}
	}
	for name, data := range fs {
		if strings.Contains(strings.ToLower(data), "winner") {
			t.Errorf("%s writes a winner:\n%s", name, data)
		}
	}
	if !strings.Contains(fs["summary.md"], "M-conclusion-rc") {
		t.Errorf("summary.md lacks the conclusion:\n%s", fs["summary.md"])
	}
}

// TestMaxTokens: the design's limits are sent by statement kind.
func TestMaxTokens(t *testing.T) {
	_, _, reqs := runAll(t, map[string]string{"rounds": "1"}, moderatedtest.Options{})
	want := map[string]int{"opening": 300, "argument": 250, "rebuttal": 250, "closing": 350}
	seen := map[string]bool{}
	for _, r := range reqs {
		k := moderatedtest.Kind(r)
		if k != "A" && k != "B" {
			continue
		}
		task := moderatedtest.Field(r, "Your task")
		seen[task] = true
		if r.MaxTokens != want[task] {
			t.Errorf("%s's %s: max_tokens %d, want %d", k, task, r.MaxTokens, want[task])
		}
	}
	if len(seen) != 4 {
		t.Errorf("kinds seen: %v", seen)
	}
	// Overridden at new.
	_, _, reqs = runAll(t, map[string]string{"rounds": "1", "token-limits": "closing:500"}, moderatedtest.Options{})
	for _, r := range reqs {
		if k := moderatedtest.Kind(r); (k == "A" || k == "B") && moderatedtest.Field(r, "Your task") == "closing" && r.MaxTokens != 500 {
			t.Errorf("closing max_tokens %d, want 500", r.MaxTokens)
		}
	}
}

// TestTransitions: each hand-over names the speaker just heard and the
// one to come, and announces nothing of a later phase.
func TestTransitions(t *testing.T) {
	_, _, reqs := runAll(t, map[string]string{"rounds": "1"}, moderatedtest.Options{})
	type hand struct{ phase, prev, next string }
	var got []hand
	for _, r := range of(reqs, "moderator") {
		if moderatedtest.Field(r, "Next action") != "transition" {
			continue
		}
		u := strings.TrimSpace(user(r))
		instr := u[strings.LastIndex(u, "\n")+1:]
		h := hand{phase: moderatedtest.Field(r, "Current phase")}
		if m := regexp.MustCompile(`^(.+?) has just given their (.+?)\.`).FindStringSubmatch(instr); m != nil {
			h.prev = m[1] + " " + m[2]
		}
		if m := regexp.MustCompile(`floor to (.+?) for their (.+?)\.`).FindStringSubmatch(instr); m != nil {
			h.next = m[1] + " " + m[2]
		}
		for _, later := range []string{"Closing Statements", "Argument Round", "Conclusion"} {
			if strings.Contains(instr, later) && !strings.Contains(h.phase, later) {
				t.Errorf("a transition in %s announces %s:\n%s", h.phase, later, instr)
			}
		}
		got = append(got, h)
	}
	want := []hand{
		{"Opening Statements", "", "Advocate A opening statement"},
		{"Opening Statements", "Advocate A opening statement", "Advocate B opening statement"},
		{"Argument Round 1 of 1", "", "Advocate A round 1 argument"},
		{"Argument Round 1 of 1", "Advocate A round 1 argument", "Advocate B round 1 rebuttal"},
		{"Argument Round 1 of 1", "Advocate B round 1 rebuttal", "Advocate B round 1 argument"},
		{"Argument Round 1 of 1", "Advocate B round 1 argument", "Advocate A round 1 rebuttal"},
		{"Closing Statements", "", "Advocate A closing statement"},
		{"Closing Statements", "Advocate A closing statement", "Advocate B closing statement"},
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("transitions:\n got %v\nwant %v", got, want)
	}
}

// TestRunCountsExchanges: run N completes N exchanges: 0 the openings,
// 1..R the rounds, R+1 the closings and conclusion.
func TestRunCountsExchanges(t *testing.T) {
	srv := modeltest.NewServer(t, moderatedtest.Handler(moderatedtest.Options{}))
	dir := newDebate(t, map[string]string{"rounds": "2"})
	wantMsgs := []int{5, 15, 25, 31}
	for done, want := range wantMsgs {
		if _, err := advance(t, context.Background(), dir, srv.URL, driver.UnitGoal{Done: done + 1}); err != nil {
			t.Fatal(err)
		}
		if got := len(messageFiles(files(t, dir))); got != want {
			t.Errorf("after %d exchanges, %d messages, want %d", done+1, got, want)
		}
	}
	// One step is one call, a score included.
	dir = newDebate(t, map[string]string{"rounds": "1"})
	before := len(srv.Requests())
	for i := 0; i < 8; i++ {
		if _, err := advance(t, context.Background(), dir, srv.URL, driver.UnitGoal{Steps: 1}); err != nil {
			t.Fatal(err)
		}
	}
	fs := files(t, dir)
	if got := len(srv.Requests()) - before; got != 8 || len(messageFiles(fs)) != 8 {
		t.Errorf("8 steps: %d requests, %d messages", got, len(messageFiles(fs)))
	}
	if _, err := advance(t, context.Background(), dir, srv.URL, driver.UnitGoal{Steps: 1}); err != nil {
		t.Fatal(err)
	}
	if fs := files(t, dir); len(messageFiles(fs)) != 8 || !strings.Contains(strings.Join(keysOf(fs), " "), "scores/008_") {
		t.Errorf("the ninth step is not the score of message 008: %v", keysOf(fs))
	}
}

func keysOf(m map[string]string) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

// TestFactChecker: with --fact-checker each argument and rebuttal gets a
// note of its own, seen by the scorer of that statement and by the next
// speaker; the fact checker sees only the statement it checks.
func TestFactChecker(t *testing.T) {
	_, fs, reqs := runAll(t, map[string]string{"rounds": "1", "fact-checker": "true"}, moderatedtest.Options{})
	checks := of(reqs, "fact-checker")
	if len(checks) != 4 {
		t.Fatalf("%d fact checks, want 4", len(checks))
	}
	for _, r := range checks {
		if ms := moderatedtest.StatementMarker.FindAllString(all(r), -1); len(ms) != 1 {
			t.Errorf("a fact check request holds %v", ms)
		}
	}
	for _, r := range of(reqs, "scorer") {
		target := moderatedtest.StatementMarker.FindString(user(r))
		if !strings.Contains(user(r), "FACT-CHECK of "+target) {
			t.Errorf("the scoring of %s lacks its fact check", target)
		}
	}
	for _, r := range of(reqs, "B") {
		if moderatedtest.Field(r, "Your task") == "rebuttal" && !strings.Contains(user(r), "FACT-CHECK of <<A-argument-r1>>") {
			t.Errorf("B's rebuttal request lacks the fact check of A's argument")
		}
	}
	if !strings.Contains(strings.Join(messageFiles(fs), " "), "_fact_checker_") {
		t.Errorf("no fact checker message files: %v", messageFiles(fs))
	}
}

// TestTemperatures: every call is sent the original's 0.7, and a
// --ROLE-temperature replaces it for that role only.
func TestTemperatures(t *testing.T) {
	_, _, reqs := runAll(t, map[string]string{"rounds": "1", "fact-checker": "true"}, moderatedtest.Options{})
	kinds := map[string]bool{}
	for _, r := range reqs {
		kinds[moderatedtest.Kind(r)] = true
		if r.Temperature == nil || *r.Temperature != moderated.DefaultTemperature {
			t.Errorf("%s call: temperature %v, want %g", moderatedtest.Kind(r), r.Temperature, moderated.DefaultTemperature)
		}
	}
	if len(kinds) != 5 {
		t.Errorf("kinds of call seen: %v, want A, B, moderator, scorer and fact-checker", kinds)
	}

	srv := modeltest.NewServer(t, moderatedtest.Handler(moderatedtest.Options{}))
	dir := newDebate(t, map[string]string{"rounds": "1"})
	o := protocoltest.Served(t, srv.URL)
	o.Overrides = driver.Overrides{Temperature: map[string]float64{moderated.RoleA: 0.2}}
	if _, err := protocoltest.Advance(t, context.Background(), moderated.Protocol{}, dir, driver.UnitGoal{All: true}, o); err != nil {
		t.Fatal(err)
	}
	for _, r := range srv.Requests() {
		want := moderated.DefaultTemperature
		if moderatedtest.Kind(r) == "A" {
			want = 0.2
		}
		if r.Temperature == nil || *r.Temperature != want {
			t.Errorf("%s call with --advocate-a-temperature 0.2: temperature %v, want %g", moderatedtest.Kind(r), r.Temperature, want)
		}
	}
}

// anyStatement matches the marker of any advocate's statement, closings
// (round "rc") included.
var anyStatement = regexp.MustCompile(`<<[AB]-[a-z]+-r[0-9c]+>>`)

// TestHandOversCarryTheLastStatement: a hand-over is shown the phase and
// the statement just given, not the whole debate; the round summaries and
// the conclusion still see every statement before them. It logs the
// prompt characters of whole debates (go test -v -run HandOvers).
func TestHandOversCarryTheLastStatement(t *testing.T) {
	for _, rounds := range []string{"2", "3"} {
		_, _, reqs := runAll(t, map[string]string{"rounds": rounds}, moderatedtest.Options{})
		total, handOvers := 0, 0
		for _, r := range reqs {
			n := 0
			for _, m := range r.Messages {
				n += len(m.Content)
			}
			total += n
			if moderatedtest.Kind(r) != "moderator" {
				continue
			}
			u := user(r)
			held := anyStatement.FindAllString(u, -1)
			switch moderatedtest.Field(r, "Next action") {
			case "transition":
				handOvers += n
				if len(held) > 1 {
					t.Errorf("R=%s: a hand-over in %s holds %d statements %v, want at most the one just given", rounds, moderatedtest.Field(r, "Current phase"), len(held), held)
				}
				if m := regexp.MustCompile(`(?m)^(.+?) has just given their`).FindStringSubmatch(u); m != nil && len(held) != 1 {
					t.Errorf("R=%s: a hand-over after %s's statement does not hold it:\n%s", rounds, m[1], u)
				}
			case "round summary", "conclusion":
				if len(held) < 4 {
					t.Errorf("R=%s: a %s holds %d statements, want the debate so far", rounds, moderatedtest.Field(r, "Next action"), len(held))
				}
			}
		}
		t.Logf("R=%s: %d requests, %d prompt characters, %d of them in hand-overs", rounds, len(reqs), total, handOvers)
	}
}
