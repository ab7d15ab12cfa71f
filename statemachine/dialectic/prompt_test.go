package dialectic_test

import (
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/moot-dev/moot/internal/testkit/storetest"

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
	deb, err := driver.Load(d)
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
	if _, err := driver.ProcessExchange(d, 2, []byte(arg), []byte(arg)); err != nil {
		t.Fatal(err)
	}
	deb := load(t, d)
	p, err := dialectic.JudgePrompt(templates.Default(), deb)
	if err != nil {
		t.Fatal(err)
	}
	goldenPrompt(t, "judge", p)
	all := p.Messages[0].Content + p.Messages[1].Content
	if strings.Count(all, "NEW-ARGUMENT-TEXT") != 2 {
		t.Error("the judge was not shown both new arguments in full")
	}
	// Earlier arguments appear as index lines with their scores, not in full.
	if strings.Contains(all, "Reports from libraries running open-access hours") {
		t.Error("the judge was shown an earlier argument's grounds in full")
	}
	if !strings.Contains(all, "- prop_001 (proposition, exchange 1, current score -0.10)") {
		t.Error("the judge's index lacks prop_001 with its current score")
	}
	if strings.Contains(all, "You are a debater") {
		t.Error("the judge was shown the debaters' instructions")
	}
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
