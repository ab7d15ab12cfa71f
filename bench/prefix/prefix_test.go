package prefix_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/moot-dev/moot/bench/prefix"
	"github.com/moot-dev/moot/internal/driver"
	"github.com/moot-dev/moot/internal/model"
	"github.com/moot-dev/moot/internal/testkit/forumfake"
	"github.com/moot-dev/moot/internal/testkit/modeltest"
	"github.com/moot-dev/moot/internal/testkit/protocoltest"
	sm "github.com/moot-dev/moot/statemachine"
	"github.com/moot-dev/moot/statemachine/dialectic"
	"github.com/moot-dev/moot/statemachine/dialectic/dialectictest/sparring"
	"github.com/moot-dev/moot/statemachine/forum"
	"github.com/moot-dev/moot/templates"
)

// Issue 17's target: from a role's third call on, at least 80% of each
// prompt repeats the role's previous prompt. A role's first call has no
// previous prompt, and a dialectic debater's second is a rebuttal after
// an opening.
const (
	target = 0.80
	from   = 3
)

func TestCommon(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		want int
	}{
		{"", "", 0},
		{"abc", "", 0},
		{"abc", "abd", 2},
		{"abc", "abcdef", 3},
		{"xbc", "abc", 0},
	} {
		t.Run(tc.a+"/"+tc.b, func(t *testing.T) {
			if got := prefix.Common(tc.a, tc.b); got != tc.want {
				t.Errorf("Common(%q, %q) = %d, want %d", tc.a, tc.b, got, tc.want)
			}
		})
	}
}

func TestMeasure(t *testing.T) {
	sys := prefix.Message{Role: "system", Content: "rules"}
	calls := []prefix.Call{
		{Role: "a", Messages: []prefix.Message{sys, {Role: "user", Content: "one"}}},
		{Role: "b", Messages: []prefix.Message{sys, {Role: "user", Content: "one"}}},
		{Role: "a", Messages: []prefix.Message{sys, {Role: "user", Content: "one"}, {Role: "assistant", Content: "x"}, {Role: "user", Content: "two"}}},
		// The same content under another role is not the same prompt.
		{Role: "a", Messages: []prefix.Message{sys, {Role: "assistant", Content: "one"}}},
	}
	rows := prefix.Measure(calls)
	text := func(i int) int { return len(prefix.Text(calls[i].Messages)) }
	want := []prefix.Row{
		{Role: "a", N: 1, Bytes: text(0)},
		{Role: "b", N: 1, Bytes: text(1)},
		{Role: "a", N: 2, Bytes: text(2), Prefix: text(0), Prev: text(0)},
		{Role: "a", N: 3, Bytes: text(3), Prefix: len("<|system|>\nrules\n<|"), Prev: text(2)},
	}
	for i := range want {
		if rows[i] != want[i] {
			t.Errorf("row %d = %+v, want %+v", i, rows[i], want[i])
		}
	}
	s := prefix.Summarize(rows, 2)
	// a's second call repeats 30 of its 59 bytes, its third 19 of 35.
	second, third := rows[2].Share(), rows[3].Share()
	if rows[2].Prefix != 30 || rows[3].Prefix != 19 || s.Calls != 2 || s.Worst != rows[2] || s.Min != second || s.Median != (second+third)/2 {
		t.Errorf("summary %+v", s)
	}
}

func calls(reqs []modeltest.Request, role func(modeltest.Request) string) []prefix.Call {
	out := make([]prefix.Call, 0, len(reqs))
	for _, r := range reqs {
		c := prefix.Call{Role: role(r)}
		for _, m := range r.Messages {
			c.Messages = append(c.Messages, prefix.Message{Role: m.Role, Content: m.Content})
		}
		out = append(out, c)
	}
	return out
}

// check prints the table of rows and fails the test when a call from a
// role's third on repeats less of its role's previous prompt than least
// says.
func check(t *testing.T, title string, rows []prefix.Row, least func(prefix.Row) (float64, string)) {
	t.Helper()
	var b strings.Builder
	s := prefix.Print(&b, title, rows, from)
	t.Log("\n" + b.String())
	if s.Calls == 0 {
		t.Fatalf("%s: no call from a role's call %d on", title, from)
	}
	for _, r := range rows {
		if r.N < from {
			continue
		}
		if want, why := least(r); r.Share() < want {
			t.Errorf("%s: %s call %d: %.1f%% of the prompt repeats the previous one, want at least %.0f%%: %s", title, r.Role, r.N, 100*r.Share(), 100*want, why)
		}
	}
}

// TestDialecticShare runs a 20-exchange dialectic debate with the scripted
// sparring partner and measures every call's share, under
// --judge-context full, whose judge's prompt only grows, and under the
// default focused context, whose judge sees in full a different set of
// arguments at every exchange: there only the debaters are held to the
// target, and the judge's share is printed.
func TestDialecticShare(t *testing.T) {
	apart(t)
	for _, jc := range []dialectic.JudgeContext{dialectic.ContextFull, dialectic.ContextFocused} {
		t.Run(string(jc), func(t *testing.T) { dialecticShare(t, jc) })
	}
}

func dialecticShare(t *testing.T, jc dialectic.JudgeContext) {
	srv := modeltest.NewServer(t, sparring.Handler(sparring.Options{}))
	d, err := driver.CreateDebate(filepath.Join(t.TempDir(), "d"), dialectic.Protocol{}, dialectic.NewInput("d", dialectic.Motion{
		Text:        "This house would tax sugar.",
		Definitions: []dialectic.Definition{{Term: "sugar", Meaning: "added sugars"}},
		Scope:       "Rich countries only.",
	}))
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	c, err := model.New(model.Config{BaseURL: srv.URL, APIKey: "k"})
	if err != nil {
		t.Fatal(err)
	}
	opts := driver.Options{
		Client: c, Templates: templates.Default(), DefaultModel: "fake", Repairs: 2,
		Now:       func() time.Time { return protocoltest.When },
		Overrides: driver.Overrides{JudgeContext: string(jc)},
	}
	if _, err := driver.Advance(context.Background(), d, dialectic.Protocol{}, driver.UnitGoal{Done: 20}, opts); err != nil {
		t.Fatal(err)
	}
	rows := prefix.Measure(calls(srv.Requests(), modeltest.RoleOf))
	if len(rows) != 60 {
		t.Fatalf("%d calls, want 60", len(rows))
	}
	check(t, "dialectic, 20 exchanges, judge context "+string(jc), rows, func(r prefix.Row) (float64, string) {
		if r.Role == modeltest.Judge && jc == dialectic.ContextFocused {
			return 0, ""
		}
		// Every role's instructions and the form of its answer are in the
		// system prompt; the user message holds the motion and every
		// argument so far in order, then (for the judge) the current
		// scores and a line naming the exchange. What a call adds is the
		// previous exchange's two arguments, the scores and that line.
		return target, "a prompt holds the instructions, the motion and the arguments in order before what changes"
	})
}

// forumCast is a cast whose personas carry a marker in their system
// prompts, so that each request's role is known.
const forumCast = `topic: "Whether tests should talk to the network"
premise: "Tests should never talk to the network"
turns: 8
audience:
  - name: Judge Jo
    personality: >
      You are Judge Jo, a proceduralist. PERSONA-JUDGE
    judging_criteria: >
      You score logic and evidence.
for:
  - name: Ada
    personality: >
      You are Ada, an academic. PERSONA-FOR
    position: >
      You argue that tests must be hermetic.
    instructions: >
      Keep every response to 3-4 sentences maximum. No stage directions.
against:
  - name: Brook
    personality: >
      You are Brook, a practitioner. PERSONA-AGAINST
    position: >
      You argue that some tests must touch the real network.
    instructions: >
      Keep every response to 3-4 sentences maximum. No stage directions.
`

func forumRole(req modeltest.Request) string {
	if len(req.Messages) > 0 {
		for _, r := range []string{forum.For, forum.Against, forum.Judge} {
			if strings.Contains(req.Messages[0].Content, "PERSONA-"+strings.ToUpper(r)) {
				return r
			}
		}
	}
	return "?"
}

// TestForumShare runs an 8-turn forum debate with a judge, answered by
// forumfake, and measures every call's share.
func TestForumShare(t *testing.T) {
	apart(t)
	srv := modeltest.NewServer(t, func(req modeltest.Request) modeltest.Reply {
		msgs := make([]forumfake.Message, len(req.Messages))
		for i, m := range req.Messages {
			msgs[i] = forumfake.Message{Role: m.Role, Content: m.Content}
		}
		return modeltest.Reply{Content: forumfake.Reply(msgs, forumfake.Options{})}
	})
	dir := protocoltest.Create(t, forum.Protocol{}, sm.NewInput{
		Slug: "f", Motion: "Whether tests should talk to the network",
		Values: map[string][]string{"seed": {"7"}, "cast": {"cast.yaml"}},
		Files:  map[string][]byte{"cast": []byte(forumCast)},
		Now:    protocoltest.When,
	})
	if _, err := protocoltest.Advance(t, context.Background(), forum.Protocol{}, dir, driver.UnitGoal{All: true}, protocoltest.Served(t, srv.URL)); err != nil {
		t.Fatal(err)
	}
	rows := prefix.Measure(calls(srv.Requests(), forumRole))
	for _, r := range rows {
		if r.Role == "?" {
			t.Fatal("a request whose system prompt names no persona")
		}
	}
	// Each agent's conversation is its earlier prompts and answers, so a
	// prompt repeats all of the previous one; the share lacks only the
	// new text (the previous answer and the new request). The fixed
	// instructions are in the system prompt, so each request is short.
	for _, r := range rows {
		if r.N > 1 && r.Prefix != r.Prev {
			t.Errorf("forum: %s call %d repeats %d of the %d bytes of its previous prompt, want all", r.Role, r.N, r.Prefix, r.Prev)
		}
	}
	check(t, "forum, 8 turns", rows, func(r prefix.Row) (float64, string) {
		return target, "each prompt repeats its role's previous one, and the instructions are in the system prompt"
	})
}

// apart skips a measurement of this package, whose name ends in "Share",
// under the race detector when MOOT_BENCH_APART is set: each runs whole
// debates in one process, several times slower under the detector, which
// the protocols' own tests already race, and test.sh runs it in its pass
// without -race (go test -run 'Share$').
func apart(t *testing.T) {
	t.Helper()
	if !strings.HasSuffix(t.Name(), "Share") {
		t.Fatalf("%s is run apart but its name does not end in \"Share\": test.sh's pass without -race would not run it", t.Name())
	}
	if raceEnabled && os.Getenv("MOOT_BENCH_APART") != "" {
		t.Skip("a measurement: run without -race by test.sh's second pass, as MOOT_BENCH_APART is set")
	}
}
