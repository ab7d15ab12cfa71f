package driver_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/moot-dev/moot/internal/testkit/fixture"

	driver "github.com/moot-dev/moot/internal/driver"
	"github.com/moot-dev/moot/internal/frontmatter"
	"github.com/moot-dev/moot/statemachine/dialectic"
)

// compatDir returns the debate written by the original tool, which lives
// next to the repository as ../shared/compat/halt-ai-development. A clone
// of moot alone does not have it, and the test is then skipped.
func compatDir(t *testing.T) string {
	t.Helper()
	dir := fixture.Shared(t, "compat", "halt-ai-development")
	return dir
}

func frontKeys(t *testing.T, data []byte) (string, string) {
	t.Helper()
	front, body, err := frontmatter.Parse(data)
	if err != nil {
		t.Fatal(err)
	}
	var ks []string
	for _, f := range front.Fields {
		ks = append(ks, f.Key)
	}
	return strings.Join(ks, " "), body
}

// TestCompatDebate reads the original tool's debate, checks it, and
// continues it by one exchange through the engine, on a copy.
func TestCompatDebate(t *testing.T) {
	src := compatDir(t)
	if ps := checkDir(t, src); len(ps) != 0 {
		t.Fatalf("Check finds problems in the original debate:\n%v", ps)
	}
	dir := filepath.Join(t.TempDir(), "halt-ai-development")
	if err := fixture.CopyTree(src, dir); err != nil {
		t.Fatal(err)
	}
	orig := snapshot(t, dir, false)

	d := openDir(t, dir)
	deb, err := driver.Load(d)
	if err != nil {
		t.Fatal(err)
	}
	if deb.Header.State != (dialectic.State{Exchange: 5, Phase: dialectic.AwaitingArguments}) {
		t.Fatalf("state %+v", deb.Header.State)
	}
	totals := deb.Header.Totals
	if totals.Proposition.Total != 2.05 || totals.Opposition.Total != -2.05 || totals.Proposition.Count != 7 || totals.Opposition.Count != 7 {
		t.Errorf("totals %+v, want 2.05 / -2.05 over 7 each", totals)
	}
	if got := dialectic.Cumulative(deb.Scores.Current()); got != totals {
		t.Errorf("recomputed totals %+v differ from debate.md %+v", got, totals)
	}
	if len(deb.Header.Motion.Definitions) != 2 || deb.Header.Motion.Scope == "" || !strings.HasPrefix(deb.Header.Motion.Text, "This house would") {
		t.Errorf("motion %+v", deb.Header.Motion)
	}
	for _, def := range deb.Header.Motion.Definitions {
		if def.Term == "" || def.Meaning == "" || strings.Contains(def.Term, "*") || strings.HasPrefix(def.Meaning, ":") {
			t.Errorf("definition read as %+v", def)
		}
	}
	// moot writes the motion the way the original tool did.
	if got := dialectic.RenderMotion(deb.Header.Motion); got != deb.Header.Body {
		t.Errorf("RenderMotion of the parsed motion differs from the body:\n%q\n%q", got, deb.Header.Body)
	}
	if len(deb.Arguments) != 14 {
		t.Errorf("%d arguments, want 14", len(deb.Arguments))
	}

	// Exchange 5: each side attacks the other's exchange 4 argument and
	// defends its own.
	res, err := driver.ProcessExchange(d, 5, rebuttalAnswer(dialectic.Prop, 5), rebuttalAnswer(dialectic.Opp, 5))
	if err != nil {
		t.Fatalf("exchange 5: %v (%v)", err, res.Errors)
	}
	if len(res.Warnings) != 0 {
		t.Errorf("warnings %q", res.Warnings)
	}
	if ps := checkDir(t, dir); len(ps) != 0 {
		t.Fatalf("Check after exchange 5:\n%v", ps)
	}
	deb, err = driver.Load(d)
	if err != nil {
		t.Fatal(err)
	}
	current := deb.Scores.Current()
	rescored := dialectic.ArgumentIDs(3, dialectic.Prop)[0]
	res, err = driver.ProcessJudge(d, judgeAnswer(5, current), fixedNow)
	if err != nil {
		t.Fatalf("judgment of exchange 5: %v (%v)", err, res.Errors)
	}
	if ps := checkDir(t, dir); len(ps) != 0 {
		t.Fatalf("Check after the judgment:\n%v", ps)
	}

	after := snapshot(t, dir, false)
	deb, err = driver.Load(d)
	if err != nil {
		t.Fatal(err)
	}
	// judgeAnswer gives prop_005 +0.15, opp_005 -0.15 and rescores
	// prop_003 by +0.05.
	want := dialectic.Totals{
		Proposition: dialectic.Total{Total: dialectic.Round3(2.05 + 0.15 + 0.05), Count: 8},
		Opposition:  dialectic.Total{Total: dialectic.Round3(-2.05 - 0.15), Count: 8},
	}
	if deb.Header.Totals != want {
		t.Errorf("totals after exchange 5: %+v, want %+v", deb.Header.Totals, want)
	}
	if r, _ := deb.Scores.Get(rescored); len(r.History) != 2 || r.History[1].TriggeredBy != "prop_005" || *r.History[1].PreviousScore != current[rescored] {
		t.Errorf("rescore of %s: %+v", rescored, r)
	}

	// debate.md keeps its keys in order and its body byte for byte.
	keys, body := frontKeys(t, []byte(after["debate.md"]))
	if keys != "debate_id current_exchange current_phase cumulative_scores" {
		t.Errorf("debate.md keys %q", keys)
	}
	_, origBody := frontKeys(t, []byte(orig["debate.md"]))
	if body != origBody {
		t.Errorf("debate.md body changed:\n%q\n%q", origBody, body)
	}
	h, err := dialectic.ParseHeader([]byte(after["debate.md"]))
	if err != nil || h.State != (dialectic.State{Exchange: 6, Phase: dialectic.AwaitingArguments}) {
		t.Errorf("debate.md state %+v, %v", h, err)
	}

	// The original's files are untouched but for the state, the scores and
	// the derived graph; its scores keep their history.
	for name, data := range orig {
		switch name {
		case "debate.md", "scores.json", dialectic.GraphFile:
			continue
		}
		if after[name] != data {
			t.Errorf("%s changed", name)
		}
	}
	for _, name := range []string{"arguments/prop_005.md", "arguments/opp_005.md"} {
		if _, ok := after[name]; !ok {
			t.Errorf("%s not written", name)
		}
	}
	old, err := dialectic.ParseScores([]byte(orig["scores.json"]))
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range old.IDs() {
		o, _ := old.Get(id)
		n, ok := deb.Scores.Get(id)
		if !ok || len(n.History) < len(o.History) {
			t.Errorf("%s lost its history", id)
			continue
		}
		for i, e := range o.History {
			if n.History[i].Score != e.Score || n.History[i].Reasoning != e.Reasoning || n.History[i].ScoredAt != e.ScoredAt {
				t.Errorf("%s.history[%d] changed", id, i)
			}
		}
	}
}

// TestCompatScoresRoundTrip checks that reading and rewriting the original
// scores.json keeps every key, string and number as written. (The bytes
// differ: the original escapes non-ASCII as \uXXXX, moot writes UTF-8.)
func TestCompatScoresRoundTrip(t *testing.T) {
	src := compatDir(t)
	data, err := os.ReadFile(filepath.Join(src, "scores.json"))
	if err != nil {
		t.Fatal(err)
	}
	s, err := dialectic.ParseScores(data)
	if err != nil {
		t.Fatal(err)
	}
	out, err := s.Render()
	if err != nil {
		t.Fatal(err)
	}
	decode := func(b []byte) any {
		dec := json.NewDecoder(bytes.NewReader(b))
		dec.UseNumber()
		var v any
		if err := dec.Decode(&v); err != nil {
			t.Fatal(err)
		}
		return v
	}
	if !reflect.DeepEqual(decode(out), decode(data)) {
		t.Errorf("rewriting scores.json changes its content")
	}
	if bytes.Contains(out, []byte(`\u2014`)) || !bytes.Contains(out, []byte("—")) {
		t.Errorf("non-ASCII text not written as UTF-8")
	}
}
