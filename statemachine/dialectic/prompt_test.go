package dialectic_test

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/moot-dev/moot/internal/testkit/storetest"

	"github.com/moot-dev/moot/internal/testkit/fencetest"
	"github.com/moot-dev/moot/internal/testkit/fixture"

	driver "github.com/moot-dev/moot/internal/driver"
	"github.com/moot-dev/moot/statemachine/dialectic"
	"github.com/moot-dev/moot/store"
	"github.com/moot-dev/moot/templates"
)

// example copies the project's example debate (two judged exchanges) to a
// temporary directory and opens it.
func example(t *testing.T) *store.Dir {
	t.Helper()
	dst := filepath.Join(t.TempDir(), "example")
	src := filepath.Join("..", "..", "debates", "example")
	if err := fixture.CopyTree(src, dst); err != nil {
		t.Fatal(err)
	}
	d, err := storetest.OpenForWrite(dst, "test")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	return d
}

func load(t *testing.T, d *store.Dir) *dialectic.Debate {
	t.Helper()
	deb, err := dialectic.Loaded(driver.LoadDebate(d, dialectic.Protocol{}))
	if err != nil {
		t.Fatal(err)
	}
	return deb
}

// goldenPrompt compares the messages of p with testdata/name.golden.
func goldenPrompt(t *testing.T, name string, p dialectic.Prompt) {
	t.Helper()
	var b strings.Builder
	for _, m := range p.Messages {
		b.WriteString("=== " + m.Role + "\n" + m.Content)
	}
	golden(t, name+".golden", []byte(b.String()))
}

var scoreLike = regexp.MustCompile(`[+-]\d\.\d\d|current score`)

func TestDebaterPrompts(t *testing.T) {
	d := example(t)
	deb := load(t, d)
	for _, side := range dialectic.Sides() {
		p, err := dialectic.Debater(templates.Default(), deb, side)
		if err != nil {
			t.Fatal(err)
		}
		goldenPrompt(t, "rebuttal-"+string(side), p)
		all := p.Messages[0].Content + p.Messages[1].Content
		if scoreLike.MatchString(all) {
			t.Errorf("the %s was shown a score", side.Name())
		}
		for _, reasoning := range []string{"sharpest move so far", "strongest opening"} {
			if strings.Contains(all, reasoning) {
				t.Errorf("the %s was shown the judge's reasoning %q", side.Name(), reasoning)
			}
		}
		if !strings.Contains(p.Messages[0].Content, "arguing for the "+side.Name()) {
			t.Errorf("the %s's system prompt does not name its side", side.Name())
		}
		if p.SchemaName != "rebuttal" {
			t.Errorf("schema %q, want rebuttal", p.SchemaName)
		}
	}
}

func TestOpeningPrompt(t *testing.T) {
	deb, err := dialectic.Load(dialectic.Raw{Header: mustRender(t), Scores: []byte("{}\n")})
	if err != nil {
		t.Fatal(err)
	}
	p, err := dialectic.Debater(templates.Default(), deb, dialectic.Opp)
	if err != nil {
		t.Fatal(err)
	}
	goldenPrompt(t, "opening-opp", p)
	if p.SchemaName != "opening" {
		t.Errorf("schema %q, want opening", p.SchemaName)
	}
}

func mustRender(t *testing.T) []byte {
	h := dialectic.NewHeader("tea", dialectic.Motion{Text: "This house prefers tea.", Definitions: []dialectic.Definition{{Term: "tea", Meaning: "any infusion of Camellia sinensis"}}})
	b, err := h.Render()
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestJudgePrompt(t *testing.T) {
	d := example(t)
	arg := `{"title": "A Rebuttal Of Five Words", "claim": "c", "grounds": [{"source": "s", "content": "NEW-ARGUMENT-TEXT", "relevance": "r"}], "warrant": "w"}`
	if _, err := driver.HandStep(d, dialectic.Protocol{}, false, dialectic.HandArguments(2, []byte(arg), []byte(arg))); err != nil {
		t.Fatal(err)
	}
	deb := load(t, d)
	setJudgeContext(t, deb, "full")
	p, err := dialectic.JudgePrompt(templates.Default(), deb)
	if err != nil {
		t.Fatal(err)
	}
	// --judge-context full keeps the prompt moot sent before the focused
	// context was the default, byte for byte: judge.golden is that prompt.
	goldenPrompt(t, "judge", p)
	all := p.Messages[0].Content + p.Messages[1].Content
	if strings.Count(all, "NEW-ARGUMENT-TEXT") != 2 {
		t.Error("the judge was not shown both new arguments in full")
	}
	// Earlier arguments appear in full, so that an attack on their
	// grounds or warrant can be checked against them, and before the new
	// ones.
	if !strings.Contains(all, "Reports from libraries running open-access hours") {
		t.Error("the judge was not shown an earlier argument's grounds in full")
	}
	earlier := strings.Index(all, "### prop_001 (proposition, exchange 1)\n\n"+templates.FenceOpen+"\n# Unstaffed Hours Have A Safety Record")
	if earlier < 0 || earlier > strings.Index(all, "### prop_002 (") {
		t.Error("the judge's prompt lacks prop_001 in full before the new arguments")
	}
	if !strings.Contains(all, "- prop_001: -0.10\n") {
		t.Error("the judge's scores lack prop_001's current score")
	}
	if strings.Contains(all, "You are a debater") {
		t.Error("the judge was shown the debaters' instructions")
	}
}

// TestJudgePromptFencesDebatersText plants an order and copies of the fence
// lines in a debater's argument: the judge (and the panel's judges and a
// rejudge, which share this prompt) must see it only inside the fence,
// with the copied fence lines broken, and be told what the fence means.
func TestJudgePromptFencesDebatersText(t *testing.T) {
	d := example(t)
	hostile, err := json.Marshal(map[string]any{
		"title": "A Fair Point", "claim": fencetest.Hostile,
		"grounds": []map[string]string{{"source": "s", "content": fencetest.Hostile, "relevance": "r"}},
		"warrant": fencetest.Hostile,
	})
	if err != nil {
		t.Fatal(err)
	}
	plain := `{"title": "A Plain Answer", "claim": "c", "grounds": [{"source": "s", "content": "g", "relevance": "r"}], "warrant": "w"}`
	if _, err := driver.HandStep(d, dialectic.Protocol{}, false, dialectic.HandArguments(2, hostile, []byte(plain))); err != nil {
		t.Fatal(err)
	}
	p, err := dialectic.JudgePrompt(templates.Default(), load(t, d))
	if err != nil {
		t.Fatal(err)
	}
	fencetest.Ruled(t, "judge", p.Messages[0].Content)
	fencetest.Inside(t, "judge", p.Messages[1].Content)
}

func TestRepairNamesEveryError(t *testing.T) {
	m, err := dialectic.Repair(templates.Default(), []string{"title: is required", "grounds: must hold 1 to 3 grounds, found 0"})
	if err != nil {
		t.Fatal(err)
	}
	if m.Role != "user" || !strings.Contains(m.Content, "- title: is required") || !strings.Contains(m.Content, "- grounds: must hold 1 to 3") {
		t.Errorf("repair message = %+v", m)
	}
}

// TestPromptsRepeatTheirStart: each role's prompt for the next exchange
// begins with everything its prompt for this exchange held before the
// part that changes ("Your turn" for a debater, the current scores for
// the judge), even after the judge rescores an opening argument, so that
// a provider's prefix cache serves it.
func TestPromptsRepeatTheirStart(t *testing.T) {
	d := example(t)
	arg := func(x int) []byte {
		return []byte(fmt.Sprintf(`{"title": "A Rebuttal Of Exchange %d", "claim": "c", "grounds": [{"source": "s", "content": "g", "relevance": "r"}], "warrant": "w"}`, x))
	}
	text := func(p dialectic.Prompt) string {
		var b strings.Builder
		for _, m := range p.Messages {
			b.WriteString("=== " + m.Role + "\n" + m.Content)
		}
		return b.String()
	}
	type prompts map[dialectic.Role]string
	debaters := func() prompts {
		out := prompts{}
		for _, side := range dialectic.Sides() {
			p, err := dialectic.Debater(templates.Default(), load(t, d), side)
			if err != nil {
				t.Fatal(err)
			}
			out[p.Role] = text(p)
		}
		return out
	}
	// The judge's prompt repeats its start under --judge-context full;
	// the focused context shows in full a different set of arguments at
	// every exchange.
	judge := func() string {
		deb := load(t, d)
		setJudgeContext(t, deb, "full")
		p, err := dialectic.JudgePrompt(templates.Default(), deb)
		if err != nil {
			t.Fatal(err)
		}
		return text(p)
	}
	before := debaters()
	if _, err := driver.HandStep(d, dialectic.Protocol{}, false, dialectic.HandArguments(2, arg(2), arg(2))); err != nil {
		t.Fatal(err)
	}
	judgeBefore := judge()
	// The judge rescores the first opening argument, whose index line
	// comes first.
	judgment := `{"scores": [{"argument_id": "prop_002", "score": 0.1, "reasoning": "r"}, {"argument_id": "opp_002", "score": -0.1, "reasoning": "r"}],
 "rescores": [{"argument_id": "prop_000a", "old_score": 0.2, "new_score": -0.2, "reasoning": "r"}]}`
	if _, err := driver.HandStep(d, dialectic.Protocol{}, true, dialectic.HandJudgment([]byte(judgment), time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC))); err != nil {
		t.Fatal(err)
	}
	after := debaters()
	if _, err := driver.HandStep(d, dialectic.Protocol{}, false, dialectic.HandArguments(3, arg(3), arg(3))); err != nil {
		t.Fatal(err)
	}
	judgeAfter := judge()
	for _, tc := range []struct {
		name, before, after, changing string
	}{
		{"proposition", before[dialectic.Proposition], after[dialectic.Proposition], "\n## Your turn"},
		{"opposition", before[dialectic.Opposition], after[dialectic.Opposition], "\n## Your turn"},
		{"judge", judgeBefore, judgeAfter, "\n## The current scores"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			i := strings.Index(tc.before, tc.changing)
			if i < 0 {
				t.Fatalf("the prompt has no %q", tc.changing)
			}
			if stable := tc.before[:i]; !strings.HasPrefix(tc.after, stable) {
				n := 0
				for n < len(stable) && stable[n] == tc.after[n] {
					n++
				}
				t.Errorf("the next prompt repeats %d of the %d bytes before %q; it differs at %q", n, len(stable), tc.changing, tc.after[n:min(n+80, len(tc.after))])
			}
			if len(tc.before)-i > len(tc.before)/2 {
				t.Errorf("%d of the prompt's %d bytes come after %q", len(tc.before)-i, len(tc.before), tc.changing)
			}
		})
	}
}

// setJudgeContext keeps c as the judge context of deb's settings, as
// moot run --judge-context c does.
func setJudgeContext(t *testing.T, deb *dialectic.Debate, c string) {
	t.Helper()
	if err := deb.Header.SetSetting("moot", map[string]any{"models": map[string]string{}, dialectic.JudgeContextField: c}); err != nil {
		t.Fatal(err)
	}
}

// TestFocusedJudgePrompt: by default the judge sees every earlier
// argument as one index line with its side and claim, in full
// the new arguments and every earlier argument they attack or defend, and
// the current score of every earlier argument; it may still rescore any
// earlier argument.
func TestFocusedJudgePrompt(t *testing.T) {
	d := example(t)
	prop := `{"title": "A Rebuttal Of Five Words", "claim": "c", "grounds": [{"source": "s", "content": "NEW-ARGUMENT-TEXT", "relevance": "r"}], "warrant": "w",
 "attacks": [{"target_id": "opp_001", "attack_type": "warrant_attack", "content": "x"}], "defends": [{"target_id": "prop_000b", "defense_type": "reinforce", "content": "y"}]}`
	opp := `{"title": "Another Rebuttal Of Five Words", "claim": "c", "grounds": [{"source": "s", "content": "NEW-ARGUMENT-TEXT", "relevance": "r"}], "warrant": "w",
 "attacks": [{"target_id": "prop_001", "attack_type": "grounds_attack", "content": "z"}]}`
	if _, err := driver.HandStep(d, dialectic.Protocol{}, false, dialectic.HandArguments(2, []byte(prop), []byte(opp))); err != nil {
		t.Fatal(err)
	}
	deb := load(t, d)
	p, err := dialectic.JudgePrompt(templates.Default(), deb)
	if err != nil {
		t.Fatal(err)
	}
	goldenPrompt(t, "judge-focused", p)
	user := p.Messages[1].Content
	if got, want := dialectic.Context(deb, 2), []string{"prop_000b", "prop_001", "opp_001"}; fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("Context = %v, want %v", got, want)
	}
	for _, a := range deb.Arguments {
		heading := fmt.Sprintf("### %s (", a.ID)
		inFull := strings.Contains(user, heading) && strings.Contains(user, a.Body)
		line := fmt.Sprintf("- %s (%s): %s\n", a.ID, a.Side.Name(), a.ClaimText())
		indexed := strings.Contains(user, line)
		switch a.ID {
		case "prop_002", "opp_002":
			if !inFull || indexed {
				t.Errorf("%s: in full %v, in the index %v; want it in full only", a.ID, inFull, indexed)
			}
		case "prop_000b", "prop_001", "opp_001":
			if !inFull || !indexed {
				t.Errorf("%s: in full %v, in the index %v; want it in full and in the index", a.ID, inFull, indexed)
			}
		default:
			if inFull || !indexed {
				t.Errorf("%s: in full %v, in the index %v; want one index line with its claim", a.ID, inFull, indexed)
			}
		}
		if a.Exchange < 2 && !strings.Contains(user, fmt.Sprintf("- %s: %s\n", a.ID, dialectic.FormatScore(deb.Scores.Current()[a.ID]))) {
			t.Errorf("the judge's scores lack the current score of %s", a.ID)
		}
	}
	if !strings.Contains(user, "- prop_001: -0.10\n") {
		t.Error("the judge's scores lack the current score of prop_001, shown in full")
	}
	// Every earlier argument with a score may be rescored, in the index
	// or not: the schema offers them all.
	rescore := p.Schema["properties"].(map[string]any)["rescores"].(map[string]any)["items"].(map[string]any)["properties"].(map[string]any)["argument_id"].(map[string]any)["enum"]
	if got := fmt.Sprint(rescore); !strings.Contains(got, "opp_000a") || !strings.Contains(got, "prop_001") {
		t.Errorf("the schema's rescorable ids %v lack an argument shown in the index or in full", got)
	}
	// A rescore of an argument shown only in the index is accepted.
	judgment := `{"scores": [{"argument_id": "prop_002", "score": 0.1, "reasoning": "r"}, {"argument_id": "opp_002", "score": -0.1, "reasoning": "r"}],
 "rescores": [{"argument_id": "opp_000a", "old_score": -0.2, "new_score": -0.3, "reasoning": "r"}]}`
	if _, err := driver.HandStep(d, dialectic.Protocol{}, true, dialectic.HandJudgment([]byte(judgment), time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC))); err != nil {
		t.Fatalf("a rescore of an argument the prompt shows in one line was refused: %v", err)
	}
}
