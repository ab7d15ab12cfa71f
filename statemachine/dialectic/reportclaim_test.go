package dialectic_test

import (
	"path/filepath"
	"strings"
	"testing"

	driver "github.com/moot-dev/moot/internal/driver"
	"github.com/moot-dev/moot/internal/testkit/fixture"
	"github.com/moot-dev/moot/internal/testkit/storetest"
	sm "github.com/moot-dev/moot/statemachine"
	"github.com/moot-dev/moot/statemachine/dialectic"
	"github.com/moot-dev/moot/templates"
)

// TestOneClaimForEveryReader edits the body of an argument under "##
// Claim" and leaves its frontmatter as it was: two versions of one
// argument, which check refuses. Whatever reaches a reader all the same,
// every reader shows one version, the body's: the judge's prompt (its
// index line, and the argument in full), the markdown and HTML reports,
// the narrative's prompt and the export.
func TestOneClaimForEveryReader(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "example")
	if err := fixture.CopyTree(filepath.Join("..", "..", "debates", "example"), dir); err != nil {
		t.Fatal(err)
	}
	d, err := storetest.OpenForWrite(dir, "test")
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	arg := `{"title": "A Rebuttal Of Five Words", "claim": "c", "grounds": [{"source": "s", "content": "g", "relevance": "r"}], "warrant": "w"}`
	if _, err := driver.HandStep(d, dialectic.Protocol{}, false, dialectic.HandArguments(2, []byte(arg), []byte(arg))); err != nil {
		t.Fatal(err)
	}
	deb, err := dialectic.Loaded(driver.LoadDebate(d, dialectic.Protocol{}))
	if err != nil {
		t.Fatal(err)
	}
	a, ok := deb.Argument("prop_000a")
	if !ok {
		t.Fatal("the example has no prop_000a")
	}
	const edited = "Edited by hand in the body alone."
	old := strings.TrimSpace(a.Claim)
	if !strings.Contains(a.Body, "## Claim\n\n"+old) {
		t.Fatalf("prop_000a's body does not state its claim:\n%s", a.Body)
	}
	a.Body = strings.Replace(a.Body, "## Claim\n\n"+old, "## Claim\n\n"+edited, 1)
	if a.ClaimText() != edited {
		t.Fatalf("ClaimText = %q, want the body's %q", a.ClaimText(), edited)
	}

	p, err := dialectic.JudgePrompt(templates.Default(), deb)
	if err != nil {
		t.Fatal(err)
	}
	var prompt strings.Builder
	for _, m := range p.Messages {
		prompt.WriteString(m.Content)
	}
	r := dialectic.Build(deb, nil)
	html, err := r.HTML()
	if err != nil {
		t.Fatal(err)
	}
	readers := map[string]string{
		"the judge's prompt":     prompt.String(),
		"the markdown report":    string(r.Markdown()),
		"the HTML report":        string(html),
		"the narrative's prompt": dialectic.NarrativePrompt(deb),
	}
	for _, row := range dialectic.Rows(deb, sm.Judgments{}) {
		if row.ID == a.ID {
			readers["the export"] = row.Claim
		}
	}
	for who, text := range readers {
		if !strings.Contains(text, edited) {
			t.Errorf("%s lacks the body's claim %q", who, edited)
		}
		if strings.Contains(text, old) {
			t.Errorf("%s shows the frontmatter's claim %q", who, old)
		}
	}
}
