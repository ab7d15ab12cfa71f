package forum_test

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/moot-dev/moot/internal/driver"
	"github.com/moot-dev/moot/internal/model"
	"github.com/moot-dev/moot/internal/testkit/crashtest"
	"github.com/moot-dev/moot/internal/testkit/fencetest"
	"github.com/moot-dev/moot/internal/testkit/fixture"
	"github.com/moot-dev/moot/internal/testkit/forumfake"
	"github.com/moot-dev/moot/internal/testkit/protocoltest"
	sm "github.com/moot-dev/moot/statemachine"
	"github.com/moot-dev/moot/statemachine/forum"
)

// castYAML is a cast in the original's format whose personas carry a
// marker in their system prompts, so that each request's role is known.
const castYAML = `topic: "Whether tests should talk to the network"
premise: "Tests should never talk to the network"
turns: 8
line_width: 80
audience:
  - name: Judge Jo
    type: proceduralist
    color: magenta
    personality: >
      You are Judge Jo. PERSONA-JUDGE
    judging_criteria: >
      You score logic and evidence.
for:
  - name: Ada
    type: academic
    color: yellow
    personality: >
      You are Ada. PERSONA-FOR
    position: >
      You argue that tests must be hermetic.
    instructions: >
      Keep every response to 3-4 sentences maximum. No stage directions.
against:
  - name: Brook
    type: practitioner
    color: cyan
    personality: >
      You are Brook. PERSONA-AGAINST
    position: >
      You argue that some tests must touch the real network.
    instructions: >
      Keep every response to 3-4 sentences maximum. No stage directions.
`

// fakeModel answers as forumfake does and records every request. fault,
// when set, may replace the answer to the n-th request of a kind.
type fakeModel struct {
	mu       sync.Mutex
	requests []model.Request
	answered int
	opts     forumfake.Options
	fault    func(kind string, n int) (string, bool)
	// judges, by model, answer as their options say; answer, when set,
	// may replace the answer of a model to a kind of request.
	judges map[string]forumfake.Options
	answer func(model, kind string) (string, bool)
	kinds  map[string]int
	block  func(ctx context.Context, n int)
}

func toFake(msgs []model.Message) []forumfake.Message {
	out := make([]forumfake.Message, len(msgs))
	for i, m := range msgs {
		out[i] = forumfake.Message{Role: m.Role, Content: m.Content}
	}
	return out
}

func (m *fakeModel) Complete(ctx context.Context, req model.Request) (model.Response, error) {
	m.mu.Lock()
	m.requests = append(m.requests, req)
	n := len(m.requests)
	if m.kinds == nil {
		m.kinds = map[string]int{}
	}
	kind := forumfake.Kind(toFake(req.Messages))
	m.kinds[kind]++
	k := m.kinds[kind]
	m.mu.Unlock()
	if m.block != nil {
		m.block(ctx, n)
	}
	if err := ctx.Err(); err != nil {
		return model.Response{}, err
	}
	opts := m.opts
	if o, ok := m.judges[req.Model]; ok {
		opts = o
	}
	text := forumfake.Reply(toFake(req.Messages), opts)
	if m.fault != nil {
		if t, ok := m.fault(kind, k); ok {
			text = t
		}
	}
	if m.answer != nil {
		if t, ok := m.answer(req.Model, kind); ok {
			text = t
		}
	}
	m.mu.Lock()
	m.answered++
	m.mu.Unlock()
	mode := model.ModeText
	if req.Schema != nil {
		mode = model.ModeSchema
	}
	return model.Response{Text: text, Model: req.Model, Mode: mode, PromptTokens: 10, CompletionTokens: 5}, nil
}

func (m *fakeModel) asked() []model.Request {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]model.Request(nil), m.requests...)
}

type setup struct {
	turns   int
	judge   bool
	premise bool
}

func newDebate(t *testing.T, s setup) string {
	t.Helper()
	yaml := castYAML
	if !s.judge {
		i, j := strings.Index(yaml, "audience:"), strings.Index(yaml, "for:")
		yaml = yaml[:i] + yaml[j:]
	}
	if !s.premise {
		yaml = regexp.MustCompile(`(?m)^premise:.*\n`).ReplaceAllString(yaml, "")
	}
	return protocoltest.Create(t, forum.Protocol{}, sm.NewInput{
		Slug: "d", Motion: "Whether tests should talk to the network",
		Values: map[string][]string{"turns": {fmt.Sprint(s.turns)}, "seed": {"7"}, "cast": {"cast.yaml"}},
		Files:  map[string][]byte{"cast": []byte(yaml)},
		Now:    time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC),
	})
}

func advance(t *testing.T, ctx context.Context, dir string, m *fakeModel, goal driver.UnitGoal) (driver.Summary, error) {
	t.Helper()
	return protocoltest.Advance(t, ctx, forum.Protocol{}, dir, goal, driver.Options{
		Client: m, DefaultModel: "m", Repairs: 2, Now: func() time.Time { return protocoltest.When },
	})
}

func roleOf(req model.Request) string {
	sys := req.Messages[0].Content
	switch {
	case strings.Contains(sys, "PERSONA-FOR"):
		return forum.For
	case strings.Contains(sys, "PERSONA-AGAINST"):
		return forum.Against
	case strings.Contains(sys, "PERSONA-JUDGE"):
		return forum.Judge
	}
	return "?"
}

func files(t *testing.T, dir string) map[string]string {
	t.Helper()
	return protocoltest.Files(t, dir)
}

var firstSpeaker = regexp.MustCompile(`"first_speaker": "(\w+)"`)

// seats returns the roles of A (who opens) and B.
func seats(t *testing.T, dir string) (a, b string) {
	t.Helper()
	m := firstSpeaker.FindStringSubmatch(files(t, dir)["debate.md"])
	if m == nil {
		t.Fatal("debate.md names no first speaker")
	}
	if m[1] == forum.For {
		return forum.For, forum.Against
	}
	return forum.Against, forum.For
}

func all(req model.Request) string {
	var b strings.Builder
	for _, m := range req.Messages {
		b.WriteString(m.Content)
		b.WriteString("\n")
	}
	return b.String()
}

// TestRequestCounts: the seed's call flow, counted at the model: 4T+6
// requests with a judge (T+1 of them asking for JSON), 2T+2 without, the
// n-th request of each role carrying 2n messages.
func TestRequestCounts(t *testing.T) {
	for _, tc := range []struct {
		name                 string
		s                    setup
		total, a, b, j, json int
	}{
		{"6 turns with a judge", setup{turns: 6, judge: true, premise: true}, 30, 7, 7, 16, 7},
		{"8 turns with a judge", setup{turns: 8, judge: true, premise: true}, 38, 9, 9, 20, 9},
		{"6 turns without a judge", setup{turns: 6, premise: true}, 14, 7, 7, 0, 0},
		{"2 turns with a judge", setup{turns: 2, judge: true}, 14, 3, 3, 8, 3},
		{"1 turn with a judge", setup{turns: 1, judge: true}, 10, 3, 1, 6, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := newDebate(t, tc.s)
			m := &fakeModel{}
			if _, err := advance(t, context.Background(), dir, m, driver.UnitGoal{All: true}); err != nil {
				t.Fatal(err)
			}
			a, b := seats(t, dir)
			per := map[string]int{}
			json := 0
			for _, req := range m.asked() {
				role := roleOf(req)
				per[role]++
				if want := 2 * per[role]; len(req.Messages) != want {
					t.Errorf("request %d of the %s has %d messages, want %d", per[role], role, len(req.Messages), want)
				}
				if req.Schema != nil {
					json++
					if req.Mode == model.ModeText {
						t.Errorf("a JSON request was sent in text mode")
					}
				} else if req.Mode != model.ModeText && req.Mode != "" {
					t.Errorf("a text request was sent in mode %q", req.Mode)
				}
			}
			if got := len(m.asked()); got != tc.total {
				t.Errorf("%d requests, want %d", got, tc.total)
			}
			if per[a] != tc.a || per[b] != tc.b || per[forum.Judge] != tc.j {
				t.Errorf("A %d, B %d, judge %d requests; want %d, %d, %d", per[a], per[b], per[forum.Judge], tc.a, tc.b, tc.j)
			}
			if json != tc.json {
				t.Errorf("%d requests ask for JSON, want %d", json, tc.json)
			}
			deb := load(t, dir)
			if st := deb.Status(); !st.Complete || st.Total != tc.s.turns+boolInt(tc.s.judge) || st.Done != st.Total {
				t.Errorf("status %+v", st)
			}
			if f := deb.Check(); !f.OK() {
				t.Errorf("check: %v", f.Problems)
			}
		})
	}
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

func load(t *testing.T, dir string) sm.Debate {
	t.Helper()
	return protocoltest.Read(t, forum.Protocol{}, dir)
}

// TestVisibility: no judge request holds a plan or a thought; no debater
// request holds the judge's text or the other debater's plans and
// thoughts. A debater does see its own plan and the other's public turns.
func TestVisibility(t *testing.T) {
	dir := newDebate(t, setup{turns: 6, judge: true, premise: true})
	m := &fakeModel{}
	if _, err := advance(t, context.Background(), dir, m, driver.UnitGoal{All: true}); err != nil {
		t.Fatal(err)
	}
	// Every reply, by the role that gave it and its kind.
	type reply struct{ role, kind, text string }
	var replies []reply
	for _, req := range m.asked() {
		msgs := toFake(req.Messages)
		replies = append(replies, reply{roleOf(req), forumfake.Kind(msgs), forumfake.Marker(msgs)})
	}
	sawOwnPlan, sawOtherTurn := false, false
	for i, req := range m.asked() {
		text, role := all(req), roleOf(req)
		for _, r := range replies {
			if !strings.Contains(text, r.text) {
				continue
			}
			private := r.kind == forumfake.Plan || r.kind == forumfake.Think
			switch {
			case role == forum.Judge && private:
				t.Errorf("judge request %d holds %s's %s (%s)", i+1, r.role, r.kind, r.text)
			case role != forum.Judge && r.role == forum.Judge:
				t.Errorf("%s request %d holds the judge's %s (%s)", role, i+1, r.kind, r.text)
			case role != forum.Judge && r.role != role && private:
				t.Errorf("%s request %d holds %s's %s (%s)", role, i+1, r.role, r.kind, r.text)
			case role == r.role && r.kind == forumfake.Plan:
				sawOwnPlan = true
			case role != forum.Judge && r.role != role && r.kind == forumfake.Turn:
				sawOtherTurn = true
			}
		}
	}
	if !sawOwnPlan || !sawOtherTurn {
		t.Errorf("a debater saw its own plan: %v; the other's turns: %v", sawOwnPlan, sawOtherTurn)
	}
}

// TestPromptWording: the closing wording only in the think and respond
// requests of turns T-1 and T; "initial score" exactly twice; the side
// line in A's opening think and opening, and in B's first think, only
// with a premise.
func TestPromptWording(t *testing.T) {
	for _, premise := range []bool{true, false} {
		t.Run(fmt.Sprintf("premise %v", premise), func(t *testing.T) {
			dir := newDebate(t, setup{turns: 6, judge: true, premise: premise})
			m := &fakeModel{}
			if _, err := advance(t, context.Background(), dir, m, driver.UnitGoal{All: true}); err != nil {
				t.Fatal(err)
			}
			a, _ := seats(t, dir)
			final, initial, side := 0, 0, map[string]int{}
			for _, req := range m.asked() {
				last := req.Messages[len(req.Messages)-1].Content
				if strings.Contains(last, "This is your last turn") {
					final++
				}
				if strings.Contains(last, "initial score") {
					initial++
				}
				if strings.Contains(last, "the premise: \"") {
					who := "B"
					if roleOf(req) == a {
						who = "A"
					}
					side[who+" "+forumfake.Kind(toFake(req.Messages))]++
				}
			}
			// Turns 5 and 6: a think and a respond each.
			if final != 4 {
				t.Errorf("the closing wording is in %d newest messages, want 4", final)
			}
			if initial != 2 {
				t.Errorf(`"initial score" is in %d newest messages, want 2`, initial)
			}
			want := map[string]int{}
			if premise {
				want = map[string]int{"A THINK": 1, "A TURN": 1, "B THINK": 1}
			}
			if fmt.Sprint(side) != fmt.Sprint(want) {
				t.Errorf("side lines %v, want %v", side, want)
			}
		})
	}
}

// TestUnits: run 3 stops after turn 3's score (14 calls); the rest,
// 16 calls, finishes with the verdict.
func TestUnits(t *testing.T) {
	dir := newDebate(t, setup{turns: 6, judge: true, premise: true})
	m := &fakeModel{}
	if _, err := advance(t, context.Background(), dir, m, driver.UnitGoal{Done: 3}); err != nil {
		t.Fatal(err)
	}
	if got := len(m.asked()); got != 14 {
		t.Errorf("run 3: %d requests, want 14", got)
	}
	st := load(t, dir).Status()
	if st.Done != 3 || st.Phase != "think" {
		t.Errorf("after run 3: done %d, phase %q", st.Done, st.Phase)
	}
	if _, ok := files(t, dir)["calls/014_score_judge.md"]; !ok {
		t.Errorf("no score of turn 3 after run 3")
	}
	if _, err := advance(t, context.Background(), dir, m, driver.UnitGoal{Done: 7}); err != nil {
		t.Fatal(err)
	}
	if got := len(m.asked()); got != 30 {
		t.Errorf("after run 4 more: %d requests, want 30", got)
	}
	if st := load(t, dir).Status(); !st.Complete || st.Done != 7 {
		t.Errorf("status %+v", st)
	}
}

// TestScoreRepairs: a score that is not a whole number from 0 to 10 is
// sent back with the exact error; two bad answers cost two requests and
// the valid third is kept; three bad ones refuse the step and write
// nothing. No score is ever made up.
func TestScoreRepairs(t *testing.T) {
	bad := []string{`{"score": 7.5, "reasoning": "x"}`, `{"score": 11, "reasoning": "x"}`, `{"score": "seven", "reasoning": "x"}`}
	for _, n := range []int{2, 3} {
		t.Run(fmt.Sprintf("%d bad answers", n), func(t *testing.T) {
			dir := newDebate(t, setup{turns: 6, judge: true, premise: true})
			m := &fakeModel{fault: func(kind string, k int) (string, bool) {
				if kind == forumfake.Score && k <= n {
					return bad[k-1], true
				}
				return "", false
			}}
			before := files(t, dir)
			_, err := advance(t, context.Background(), dir, m, driver.UnitGoal{Done: 1})
			if n == 3 {
				var re *driver.RoleError
				if !errors.As(err, &re) {
					t.Fatalf("three bad scores: %v, want a refusal", err)
				}
				after := files(t, dir)
				if _, ok := after["calls/006_score_judge.md"]; ok {
					t.Errorf("a refused score was written")
				}
				if after["debate.md"] == before["debate.md"] {
					t.Errorf("debate.md did not move past the plans")
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			reqs := m.asked()
			if len(reqs) != 8 {
				t.Errorf("%d requests, want 6 and 2 repairs", len(reqs))
			}
			last := reqs[len(reqs)-1].Messages
			if !strings.Contains(last[len(last)-1].Content, "score: 11 is outside 0 to 10") ||
				!strings.Contains(last[len(last)-3].Content, "score: 7.5 is not a whole number") {
				t.Errorf("the repairs do not carry the exact errors:\n%s", all(reqs[len(reqs)-1]))
			}
			got := files(t, dir)["calls/006_score_judge.md"]
			if !strings.Contains(got, `"attempts": 3`) || !strings.Contains(got, `"score": `) {
				t.Errorf("calls/006_score_judge.md:\n%s", got)
			}
		})
	}
}

// TestVerdict: the judge confirms B; the verdict JSON names B 8 and A 4:
// stored as such, the premise upheld exactly when B argued for it. A JSON
// naming the other winner is sent back with that error.
func TestVerdict(t *testing.T) {
	for _, tc := range []struct {
		name      string
		pickFirst bool
		wrongOnce bool
	}{
		{"confirms B", false, false},
		{"confirms A", true, false},
		{"JSON names the other winner once", false, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := newDebate(t, setup{turns: 2, judge: true, premise: true})
			a, b := seats(t, dir)
			names := map[string]string{forum.For: "Ada", forum.Against: "Brook"}
			winner := b
			if tc.pickFirst {
				winner = a
			}
			m := &fakeModel{opts: forumfake.Options{PickFirst: tc.pickFirst}}
			if tc.wrongOnce {
				m.fault = func(kind string, k int) (string, bool) {
					if kind == forumfake.Verdict && k == 1 {
						return fmt.Sprintf(`{"winner": %q, "scores": {%q: 9, %q: 2}}`, names[a], names[a], names[b]), true
					}
					return "", false
				}
			}
			if _, err := advance(t, context.Background(), dir, m, driver.UnitGoal{All: true}); err != nil {
				t.Fatal(err)
			}
			got := files(t, dir)
			v := got["verdict.md"]
			upheld := winner == forum.For
			for _, want := range []string{
				fmt.Sprintf(`"winner": %q`, names[winner]),
				fmt.Sprintf(`"winner_side": %q`, winner),
				fmt.Sprintf(`%q: 8`, names[winner]),
				fmt.Sprintf(`%q: 4`, names[other(winner)]),
				fmt.Sprintf(`"premise_upheld": %v`, upheld),
				`"winner_source": "confirmation"`,
			} {
				if !strings.Contains(v, want) {
					t.Errorf("verdict.md lacks %s:\n%s", want, v)
				}
			}
			if tc.wrongOnce {
				reqs := m.asked()
				if len(reqs) != 15 {
					t.Errorf("%d requests, want 14 and one send-back", len(reqs))
				}
				last := reqs[len(reqs)-2].Messages
				if msg := last[len(last)-1].Content; !strings.Contains(msg, fmt.Sprintf("you confirmed %q as the winner", names[winner])) {
					t.Errorf("the send-back does not say what is wrong:\n%s", msg)
				}
			}
		})
	}
}

// TestConfirmationAsWritten: a winner's confirmation that names exactly
// one of the two debaters, as models write it, is that debater, with no
// send-back, and the verdict is held to it; one naming both is sent back
// once with what to write, and the answer to that is taken. Such answers
// used to be refused twice and the confirmation skipped.
func TestConfirmationAsWritten(t *testing.T) {
	for _, tc := range []struct {
		name    string
		answers []string // the confirmations, in order; then the fake's own
		sent    int      // send-backs of the confirmation
	}{
		{"a sentence", []string{"The winner is {B}."}, 0},
		{"in bold with a verb", []string{"**{B}** wins"}, 0},
		{"lower case and spaces", []string{"{b}   \n"}, 0},
		{"both, then one", []string{"{A} argued well, but {B} won.", "{B}"}, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := newDebate(t, setup{turns: 2, judge: true, premise: true})
			a, b := seats(t, dir)
			names := map[string]string{forum.For: "Ada", forum.Against: "Brook"}
			// The answers name the second speaker, b, as the fake does.
			r := strings.NewReplacer("{A}", names[a], "{B}", names[b], "{b}", strings.ToLower(names[b]))
			m := &fakeModel{fault: func(kind string, k int) (string, bool) {
				if kind == forumfake.Confirmation && k <= len(tc.answers) {
					return r.Replace(tc.answers[k-1]), true
				}
				return "", false
			}}
			if _, err := advance(t, context.Background(), dir, m, driver.UnitGoal{All: true}); err != nil {
				t.Fatal(err)
			}
			confirmations := 0
			var sentBack string
			for _, req := range m.asked() {
				if forumfake.Kind(toFake(req.Messages)) == forumfake.Confirmation {
					confirmations++
					if confirmations == 2 {
						sentBack = req.Messages[len(req.Messages)-1].Content
					}
				}
			}
			if confirmations != 1+tc.sent {
				t.Errorf("the confirmation was asked %d times, want %d", confirmations, 1+tc.sent)
			}
			if tc.sent > 0 && !strings.Contains(sentBack, "your answer names both") || tc.sent > 0 && !strings.Contains(sentBack, "exactly 'Ada' or 'Brook'") {
				t.Errorf("the send-back does not say what to write:\n%s", sentBack)
			}
			v := files(t, dir)["verdict.md"]
			for _, want := range []string{fmt.Sprintf(`"winner": %q`, names[b]), `"winner_source": "confirmation"`} {
				if !strings.Contains(v, want) {
					t.Errorf("verdict.md lacks %s:\n%s", want, v)
				}
			}
		})
	}
}

// TestVerdictSentBackOnce: a verdict JSON naming the other winner is sent
// back once, even with --repairs 2; named again, the step is refused and
// no verdict is written.
func TestVerdictSentBackOnce(t *testing.T) {
	dir := newDebate(t, setup{turns: 2, judge: true, premise: true})
	a, b := seats(t, dir)
	names := map[string]string{forum.For: "Ada", forum.Against: "Brook"}
	m := &fakeModel{fault: func(kind string, k int) (string, bool) {
		if kind == forumfake.Verdict && k <= 2 {
			return fmt.Sprintf(`{"winner": %q, "scores": {%q: 9, %q: 2}}`, names[a], names[a], names[b]), true
		}
		return "", false
	}}
	_, err := advance(t, context.Background(), dir, m, driver.UnitGoal{All: true})
	var re *driver.RoleError
	if !errors.As(err, &re) || re.Role != forum.Judge {
		t.Fatalf("a verdict naming the other winner twice: %v, want the judge's answer refused", err)
	}
	verdicts := 0
	for _, req := range m.asked() {
		if forumfake.Kind(toFake(req.Messages)) == forumfake.Verdict {
			verdicts++
		}
	}
	if verdicts != 2 {
		t.Errorf("the verdict was asked %d times, want 2 (sent back once)", verdicts)
	}
	if _, ok := files(t, dir)["verdict.md"]; ok {
		t.Errorf("a refused verdict was written")
	}
}

func other(side string) string {
	if side == forum.For {
		return forum.Against
	}
	return forum.For
}

// TestInterruptedAtEveryCall: interrupted while any request is in
// flight, a resumed run ends with the files of a run never interrupted,
// and asks again only the request that was in flight.
func TestInterruptedAtEveryCall(t *testing.T) {
	whole := newDebate(t, setup{turns: 6, judge: true, premise: true})
	ref := &fakeModel{}
	if _, err := advance(t, context.Background(), whole, ref, driver.UnitGoal{All: true}); err != nil {
		t.Fatal(err)
	}
	want := files(t, whole)
	total := len(ref.asked())
	if total != 30 {
		t.Fatalf("%d requests in one run, want 30", total)
	}
	for _, stop := range crashtest.InterruptAt(t, total) {
		t.Run(fmt.Sprintf("interrupted at request %d", stop), func(t *testing.T) {
			// Each run has its own debate and fake: they go in parallel.
			t.Parallel()
			dir := newDebate(t, setup{turns: 6, judge: true, premise: true})
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			first := &fakeModel{block: func(c context.Context, n int) {
				if n == stop {
					cancel()
					<-c.Done()
				}
			}}
			if _, err := advance(t, ctx, dir, first, driver.UnitGoal{All: true}); !errors.Is(err, context.Canceled) {
				t.Fatalf("interrupted run: %v", err)
			}
			second := &fakeModel{}
			if _, err := advance(t, context.Background(), dir, second, driver.UnitGoal{All: true}); err != nil {
				t.Fatal(err)
			}
			if d := fixture.Diff(want, files(t, dir)); len(d) > 0 {
				t.Errorf("resumed files differ from an uninterrupted run:\n%s", strings.Join(d, "\n"))
				for _, n := range d {
					n = strings.TrimPrefix(n, "changed ")
					t.Logf("want %s:\n%s\ngot:\n%s", n, want[n], files(t, dir)[n])
				}
			}
			if got := first.answered + len(second.asked()); got != total {
				t.Errorf("%d answers before the interruption and %d requests after it, for %d in one run", first.answered, len(second.asked()), total)
			}
			// The resumed run's requests are those of the reference, each
			// once: the order may differ, as a debater's next call is
			// asked while the judge's are (see sm.Lookahead).
			left := map[string]int{}
			for _, req := range ref.asked() {
				left[all(req)]++
			}
			for i, req := range second.asked() {
				if left[all(req)] == 0 {
					t.Errorf("resumed request %d (%s) is none the reference made, or one it made fewer times", i+1, roleOf(req))
				}
				left[all(req)]--
			}
		})
	}
}

// TestReportAndExport: README.md folds every private text away and shows
// the score chips, the chart and the verdict; the HTML page is one file;
// the CSV row has the original's columns and this debate's values.
// TestReportOfADebateUnderWay: the report of a debate that has not
// reached its verdict says how many turns are done and that the verdict
// is still to come, in that order.
func TestReportOfADebateUnderWay(t *testing.T) {
	dir := newDebate(t, setup{turns: 6, judge: true})
	if _, err := advance(t, context.Background(), dir, &fakeModel{}, driver.UnitGoal{Done: 2}); err != nil {
		t.Fatal(err)
	}
	files, err := load(t, dir).(sm.Reporter).Report()
	if err != nil || len(files) != 1 {
		t.Fatalf("report: %v %v", files, err)
	}
	if want := "A forum debate of 6 turns: 2 of 6 turns done, then the verdict.\n"; !strings.Contains(string(files[0].Data), want) {
		t.Errorf("README.md does not say %q:\n%.400s", want, files[0].Data)
	}
}

func TestReportAndExport(t *testing.T) {
	dir := newDebate(t, setup{turns: 6, judge: true, premise: true})
	m := &fakeModel{}
	if _, err := advance(t, context.Background(), dir, m, driver.UnitGoal{All: true}); err != nil {
		t.Fatal(err)
	}
	deb := load(t, dir)
	files, err := deb.(sm.Reporter).Report()
	if err != nil || len(files) != 1 || files[0].Name != "README.md" {
		t.Fatalf("report: %v %v", files, err)
	}
	readme := string(files[0].Data)
	for _, want := range []string{"<details><summary>Ada's plan (private to Ada)</summary>", "(private to Judge Jo)",
		"→ Ada: ", "/10`", "xychart-beta", "## Verdict", "**Winner: ", "premise ", "### Turn 6: "} {
		if !strings.Contains(readme, want) {
			t.Errorf("README.md lacks %q", want)
		}
	}
	// Every private text sits inside a fold.
	outside := regexp.MustCompile(`(?s)<details>.*?</details>`).ReplaceAllString(readme, "")
	for _, k := range []string{"PLAN-", "THINK-", "EVAL-", "DELIB-"} {
		if strings.Contains(outside, k) {
			t.Errorf("a private %s text is outside the folds", k)
		}
	}
	page, err := deb.(sm.HTMLReporter).ReportHTML()
	if err != nil || !strings.HasPrefix(string(page), "<!DOCTYPE html>") || !strings.Contains(string(page), "<svg") || strings.Contains(string(page), "<script") {
		t.Errorf("HTML report: %v\n%.300s", err, page)
	}
	ex := deb.(sm.Exporter)
	if f := ex.Formats(); len(f) != 1 || f[0].Name != "csv" {
		t.Errorf("formats %v", f)
	}
	data, err := ex.Export("csv")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(data)), "\r\n")
	if len(lines) != 2 || lines[0] != "run_num,agent_for,model_for,agent_against,model_against,judge,model_judge,first_speaker,premise,premise_upheld,winner,winner_side,score_for,score_against,transcript_filename" {
		t.Fatalf("csv:\n%s", data)
	}
	a, b := seats(t, dir)
	names := map[string]string{forum.For: "Ada", forum.Against: "Brook"}
	upheld := map[bool]string{true: "TRUE", false: "FALSE"}[b == forum.For]
	score := map[bool]string{true: "8,4", false: "4,8"}[b == forum.For]
	want := fmt.Sprintf("1,Ada,m,Brook,m,Judge Jo,m,%s,Tests should never talk to the network,%s,%s,%s,%s,README.md", names[a], upheld, names[b], b, score)
	if lines[1] != want {
		t.Errorf("csv row\n%s\nwant\n%s", lines[1], want)
	}
	if _, err := ex.Export("json"); err == nil {
		t.Errorf("an unknown format was exported")
	}
}

// TestJudgeSeesSpeechesFenced: a speech that plants an order and copies of
// the fence lines reaches the judge only inside the fence, with the
// copies broken, and the judge's instructions say what the fence means.
func TestJudgeSeesSpeechesFenced(t *testing.T) {
	dir := newDebate(t, setup{turns: 2, judge: true, premise: true})
	m := &fakeModel{fault: func(kind string, n int) (string, bool) {
		return fencetest.Hostile, kind == forumfake.Turn && n == 1
	}}
	if _, err := advance(t, context.Background(), dir, m, driver.UnitGoal{All: true}); err != nil {
		t.Fatal(err)
	}
	seen := 0
	for i, req := range m.asked() {
		if roleOf(req) != forum.Judge {
			continue
		}
		fencetest.Ruled(t, fmt.Sprintf("judge request %d", i+1), req.Messages[0].Content)
		for j, msg := range req.Messages {
			if msg.Role == "user" && strings.Contains(msg.Content, fencetest.Order) {
				seen++
				fencetest.Inside(t, fmt.Sprintf("judge request %d message %d", i+1, j+1), msg.Content)
			}
		}
	}
	if seen == 0 {
		t.Fatal("no judge request held the planted speech")
	}
}
