package builtin_test

import (
	"context"
	"errors"
	"math"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/moot-dev/moot/internal/builtin"
	"github.com/moot-dev/moot/internal/driver"
	"github.com/moot-dev/moot/internal/model"
	"github.com/moot-dev/moot/internal/testkit/protocoltest"
	sm "github.com/moot-dev/moot/statemachine"
	"github.com/moot-dev/moot/statemachine/dialectic"
	"github.com/moot-dev/moot/statemachine/forum"
	"github.com/moot-dev/moot/statemachine/moderated"
	"github.com/moot-dev/moot/statemachine/panel"
	"github.com/moot-dev/moot/statemachine/refine"
	"github.com/moot-dev/moot/store"
	"github.com/moot-dev/moot/templates"
)

// casesApartEnv, set in the environment of `go test -race`, makes
// TestEveryProtocol run one protocol's debate under the race detector.
const casesApartEnv = "MOOT_CASES_APART"

// TestEveryProtocol runs a debate of every protocol to its end with the
// built-in model in every role, through the protocol's own validation of
// every answer, and checks that exactly one answer was sent back for
// repair (the one the built-in model gets wrong on purpose), by the role
// and in the unit it is meant to, that the run gave no warning, and that
// the finished debate passes its check. Under the race detector with
// casesApartEnv set it runs the panel's debate alone, whose calls run most
// in parallel, as internal/cli's TestDemoDeterministic keeps the panel's
// demo: the others' runs race nothing of the built-in model that the
// panel's does not, and test.sh's pass without the detector runs them all.
func TestEveryProtocol(t *testing.T) {
	for _, tc := range []struct {
		name   string
		p      sm.Protocol
		values map[string][]string
		// role and unit are those of the one repair.
		role string
		unit int
		// events are kinds of event the run must give at least once.
		events []string
	}{
		{"dialectic", dialectic.Protocol{Templates: templates.Default()}, map[string][]string{"exchanges": {"3"},
			"definition": {"city centre: the central business district"}, "scope": {"Europe, this decade."}}, "judge", 2, []string{driver.EventRescored}},
		{"forum", forum.Protocol{}, map[string][]string{"premise": {"Cities should ban cars."}, "turns": {"4"}, "seed": {"1"}}, "judge", 5, nil},
		{"forum without a premise", forum.Protocol{}, map[string][]string{"turns": {"3"}, "seed": {"2"}}, "judge", 4, nil},
		{"moderated", moderated.Protocol{}, map[string][]string{"position-a": {"Ban cars."}, "position-b": {"Keep cars."}, "fact-checker": {"true"}}, "moderator", 1, nil},
		{"refine", refine.Protocol{}, nil, "judge", 4, nil},
		{"panel", panel.Protocol{}, nil, "card", 2, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if raceEnabled && os.Getenv(casesApartEnv) != "" && tc.name != "panel" {
				t.Skipf("the panel's debate alone under the race detector: run without it by test.sh's second pass (go test -run '^TestEveryProtocol$'), as %s is set", casesApartEnv)
			}
			values := map[string][]string{}
			for k, v := range tc.values {
				values[k] = v
			}
			dir := protocoltest.Create(t, tc.p, sm.NewInput{Slug: "d", Motion: "Should cities ban private cars from their centres?",
				Values: values, Now: protocoltest.When})
			var mu sync.Mutex
			var repairs []driver.Event
			seen := map[string]bool{}
			var warnings []string
			roles := driver.RoleNames(tc.p)
			o := driver.Overrides{Models: map[string]string{}}
			for _, r := range roles {
				o.Models[r] = builtin.Name
			}
			sum, err := protocoltest.Advance(t, context.Background(), tc.p, dir, driver.UnitGoal{All: true}, driver.Options{
				Client: builtin.Client{}, Overrides: o, DefaultModel: builtin.Name, Repairs: 2,
				Templates: templates.Default(),
				Now:       func() time.Time { return protocoltest.When },
				Emit: func(e driver.Event) {
					mu.Lock()
					defer mu.Unlock()
					seen[e.Kind] = true
					if e.Kind == driver.EventRepair {
						repairs = append(repairs, e)
					}
				},
				Warn: func(s string) {
					if !strings.HasSuffix(s, "(stored in debate.md)") {
						mu.Lock()
						warnings = append(warnings, s)
						mu.Unlock()
					}
				},
			})
			if err != nil {
				t.Fatalf("run: %v", err)
			}
			if len(warnings) > 0 || len(sum.Warnings) > 0 {
				t.Errorf("warnings: %q, %q", warnings, sum.Warnings)
			}
			for _, k := range tc.events {
				if !seen[k] {
					t.Errorf("the run gave no %s event", k)
				}
			}
			if len(repairs) != 1 {
				t.Fatalf("%d answers sent back for repair, want 1: %+v", len(repairs), repairs)
			}
			if r := repairs[0]; r.Role != tc.role || r.Exchange != tc.unit {
				t.Errorf("the repair was of the %s in unit %d, want the %s in unit %d: %s", r.Role, r.Exchange, tc.role, tc.unit, r.Message)
			}
			d := finished(t, tc.p, dir)
			models, err := driver.ModelsOf(d)
			if err != nil {
				t.Fatal(err)
			}
			for role, ms := range models {
				if len(ms) != 1 || ms[0] != builtin.Name {
					t.Errorf("the usage log has %s answered by %q, want %s only", role, ms, builtin.Name)
				}
			}
		})
	}
}

// finished opens the debate of p at dir, which must have ended complete
// and pass its check.
func finished(t *testing.T, p sm.Protocol, dir string) *store.Dir {
	t.Helper()
	d, err := store.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	deb, err := driver.ReadDebate(d, p)
	if err != nil {
		t.Fatal(err)
	}
	if st := deb.Status(); !st.Complete {
		t.Errorf("the debate stopped at %d of %d %ss", st.Done, st.Total, st.Unit)
	}
	if f := deb.Check(); len(f.Problems) > 0 {
		t.Errorf("check: %v", f.Problems)
	}
	return d
}

// TestSameAnswer checks that the same request gets the same answer, with
// token counts and no time taken, and that the answer names the model.
func TestSameAnswer(t *testing.T) {
	msgs := []sm.Message{
		{Role: "system", Content: "You are the Skeptic in a structured adversarial debate."},
		{Role: "user", Content: "## Original Question\n\nWhy?\n\nThis is round 1 of at most 3. The early-stop score is 8: ..."},
	}
	req := model.Request{Model: builtin.Name, Messages: []model.Message{{Role: msgs[0].Role, Content: msgs[0].Content}, {Role: msgs[1].Role, Content: msgs[1].Content}},
		Script: func([]model.Message) (string, error) {
			return refine.Protocol{}.Script(sm.ScriptCall{Role: refine.RoleSkeptic, Messages: msgs})
		}}
	a, err := builtin.Client{}.Complete(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	b, err := builtin.Client{}.Complete(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	if a.Text != b.Text || a.Text == "" {
		t.Errorf("answers differ or are empty:\n%s\n---\n%s", a.Text, b.Text)
	}
	if a.Model != builtin.Name || a.Latency != 0 || a.PromptTokens == 0 || a.CompletionTokens == 0 || a.Attempts != 1 {
		t.Errorf("response %+v: want model %s, no latency, token estimates and one attempt", a, builtin.Name)
	}
}

// TestUnknownPrompt checks that a request of no protocol's script, or
// one whose prompt lacks what its script reads, gets an error that says
// so, and a cancelled one the context's error.
func TestUnknownPrompt(t *testing.T) {
	script := func(p sm.Scripted, role, kind string) func([]model.Message) (string, error) {
		return func(msgs []model.Message) (string, error) {
			call := sm.ScriptCall{Role: role, Kind: kind}
			for _, m := range msgs {
				call.Messages = append(call.Messages, sm.Message{Role: m.Role, Content: m.Content})
			}
			return p.Script(call)
		}
	}
	for _, tc := range []struct {
		name   string
		msgs   []model.Message
		script func([]model.Message) (string, error)
	}{
		{"no messages", nil, nil},
		{"a stranger's prompt", []model.Message{{Role: "system", Content: "You are a helpful assistant."}, {Role: "user", Content: "Hello."}}, nil},
		{"a dialectic debater without an exchange", []model.Message{{Role: "system", Content: "You are a debater arguing for the proposition."}, {Role: "user", Content: "Argue."}},
			script(dialectic.Protocol{}, "proposition", "")},
		{"a role dialectic has not", []model.Message{{Role: "user", Content: "Argue."}}, script(dialectic.Protocol{}, "moderator", "")},
		{"a kind forum has not", []model.Message{{Role: "user", Content: "Argue."}}, script(forum.Protocol{}, "judge", "sing")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := builtin.Client{}.Complete(context.Background(), model.Request{Model: builtin.Name, Messages: tc.msgs, Script: tc.script})
			if !errors.Is(err, builtin.ErrUnknownPrompt) {
				t.Errorf("error %v, want ErrUnknownPrompt", err)
			}
		})
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := (builtin.Client{}).Complete(ctx, model.Request{}); !errors.Is(err, context.Canceled) {
		t.Errorf("error %v, want context.Canceled", err)
	}
}

// TestEmbed checks the built-in embeddings: one unit vector a text, the
// same every time, whose cosine is 2/3 between texts that share no word
// and higher the more words they share.
func TestEmbed(t *testing.T) {
	texts := []string{"How many parking spaces would the city free?", "Name: Fermi estimate\nWhen to use: how many, how much\n\nSteps",
		"zebra quokka", "how many parking spaces"}
	res, err := builtin.Client{}.Embed(context.Background(), model.EmbedRequest{Model: builtin.Name, Input: texts})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Vectors) != len(texts) || res.Model != builtin.Name {
		t.Fatalf("%d vectors of model %q for %d texts", len(res.Vectors), res.Model, len(texts))
	}
	again, _ := builtin.Client{}.Embed(context.Background(), model.EmbedRequest{Model: builtin.Name, Input: texts[:1]})
	for i, x := range again.Vectors[0] {
		if x != res.Vectors[0][i] {
			t.Fatal("the same text got another vector")
		}
	}
	cos := refine.Cosine
	for i, v := range res.Vectors {
		if n := cos(v, v); math.Abs(n-1) > 1e-5 {
			t.Errorf("vector %d: cosine with itself %g", i, n)
		}
	}
	if c := cos(res.Vectors[0], res.Vectors[2]); math.Abs(c-2.0/3) > 1e-3 {
		t.Errorf("texts without a common word: cosine %g, want 2/3", c)
	}
	if near, far := cos(res.Vectors[0], res.Vectors[3]), cos(res.Vectors[0], res.Vectors[1]); near <= far || far <= 2.0/3 {
		t.Errorf("cosines %g (more words shared) and %g (fewer): want the first higher, both above 2/3", near, far)
	}
}

// TestNote checks the sentence reports and status give a debate the
// built-in model wrote.
func TestNote(t *testing.T) {
	for _, tc := range []struct {
		name  string
		roles []string
		all   bool
		want  string
	}{
		{"none", nil, false, ""},
		{"all", []string{"judge", "opposition", "proposition"}, true, "The text of this debate was written by moot's scripted built-in model (builtin), not by a language model: it shows how moot runs a debate and argues nothing."},
		{"one role", []string{"judge"}, false, "Text of the judge in this debate was written by moot's scripted built-in model (builtin), not by a language model."},
		{"three roles", []string{"a", "b", "c"}, false, "Text of the a, the b and the c in this debate was written by moot's scripted built-in model (builtin), not by a language model."},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := builtin.Note(tc.roles, tc.all); got != tc.want {
				t.Errorf("Note = %q, want %q", got, tc.want)
			}
		})
	}
}

// TestNarrative checks that the built-in model's analysis of a dialectic
// debate, for report --narrative, has as many words as the report asks
// for.
func TestNarrative(t *testing.T) {
	res, err := builtin.Client{}.Complete(context.Background(), model.Request{Model: builtin.Name, Role: builtin.NarratorRole,
		Messages: []model.Message{{Role: "user", Content: "Write an analysis of the debate recorded below ..."}}})
	if err != nil {
		t.Fatal(err)
	}
	if n := len(strings.Fields(res.Text)); n < dialectic.NarrativeMinWords || n > dialectic.NarrativeMaxWords {
		t.Errorf("the narrative has %d words, want %d to %d", n, dialectic.NarrativeMinWords, dialectic.NarrativeMaxWords)
	}
	if !strings.Contains(res.Text, "scripted") {
		t.Errorf("the narrative does not say it is scripted:\n%s", res.Text)
	}
}

// TestRewordedTemplates runs a forum and a panel debate to their end with
// the built-in model on templates whose wording it used to find its place
// by: panel's opening line of every task ("Task: take") and forum's
// requests to plan, to think before the opening and to open. The built-in
// model answers by the call's role and kind, so the debate must still end
// complete, pass its check and take exactly the one repair it is meant to.
func TestRewordedTemplates(t *testing.T) {
	reword := func(protocol string, change func(name, text string) string) *templates.Set {
		set := templates.For(protocol)
		files := map[string][]byte{}
		for _, src := range set.List() {
			text, ok := set.Text(src.Name)
			if !ok {
				t.Fatalf("no text for template %s", src.Name)
			}
			if changed := change(src.Name, text); changed != text {
				files[src.Name] = []byte(changed)
			}
		}
		if len(files) == 0 {
			t.Fatalf("no %s template was reworded", protocol)
		}
		if err := set.Override(files, "reworded"); err != nil {
			t.Fatal(err)
		}
		return set
	}
	forumSet := reword(forum.Name, func(name, text string) string {
		for _, r := range [][2]string{
			{"Plan your case in private first:", "Before anyone speaks, work out your case for yourself:"},
			{"you are about to give the opening statement", "you speak first"},
			{"Give your opening statement now", "Open the debate now"},
		} {
			text = strings.ReplaceAll(text, r[0], r[1])
		}
		return text
	})
	panelSet := reword(panel.Name, func(name, text string) string {
		if rest, ok := strings.CutPrefix(text, "Task: "); ok {
			return "Your part now: " + rest
		}
		return text
	})
	for _, tc := range []struct {
		name   string
		p      sm.Protocol
		values map[string][]string
	}{
		{"forum", forum.Protocol{Templates: forumSet}, map[string][]string{"premise": {"Cities should ban cars."}, "turns": {"2"}, "seed": {"1"}}},
		{"panel", panel.Protocol{Templates: panelSet}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := protocoltest.Create(t, tc.p, sm.NewInput{Slug: "d", Motion: "Should cities ban private cars from their centres?",
				Values: tc.values, Now: protocoltest.When})
			o := driver.Overrides{Models: map[string]string{}}
			for _, r := range driver.RoleNames(tc.p) {
				o.Models[r] = builtin.Name
			}
			var mu sync.Mutex
			repairs := 0
			_, err := protocoltest.Advance(t, context.Background(), tc.p, dir, driver.UnitGoal{All: true}, driver.Options{
				Client: builtin.Client{}, Overrides: o, DefaultModel: builtin.Name, Repairs: 2,
				Now: func() time.Time { return protocoltest.When },
				Emit: func(e driver.Event) {
					if e.Kind == driver.EventRepair {
						mu.Lock()
						repairs++
						mu.Unlock()
					}
				},
			})
			if err != nil {
				t.Fatalf("run on reworded templates: %v", err)
			}
			if repairs != 1 {
				t.Errorf("%d answers sent back for repair, want 1", repairs)
			}
			finished(t, tc.p, dir)
		})
	}
}
