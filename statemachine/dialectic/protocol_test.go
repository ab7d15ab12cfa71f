package dialectic_test

import (
	"reflect"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	sm "github.com/moot-dev/moot/statemachine"
	"github.com/moot-dev/moot/statemachine/dialectic"
	"github.com/moot-dev/moot/statemachine/dialectic/dialectictest"
)

// TestProtocolSteps: dialectic through the step model. A new debate waits
// for both debaters in parallel, then for the judge; each step's Apply
// writes the files of the dialectic format, debate.md last, and the debate
// read back from them waits for the next step.
func TestProtocolSteps(t *testing.T) {
	p := dialectic.Protocol{}
	files, err := p.New(sm.NewInput{Slug: "tea", Motion: "This house prefers tea.",
		Values: map[string][]string{"definition": {"tea: a hot drink"}, "scope": {"Mornings."}}})
	if err != nil {
		t.Fatal(err)
	}
	fsys := fstest.MapFS{}
	for _, f := range files {
		fsys[f.Name] = &fstest.MapFile{Data: f.Data}
	}
	if !strings.Contains(string(fsys["debate.md"].Data), "- **tea**: a hot drink") {
		t.Errorf("debate.md:\n%s", fsys["debate.md"].Data)
	}
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	for i, want := range []struct {
		roles []string
		done  int
	}{{[]string{"proposition", "opposition"}, 0}, {[]string{"judge"}, 0}, {[]string{"proposition", "opposition"}, 1}} {
		deb, err := p.Load(fsys)
		if err != nil {
			t.Fatal(err)
		}
		if f := deb.Check(); !f.OK() {
			t.Fatalf("step %d: check: %v", i, f.Problems)
		}
		if got := deb.Status().Done; got != want.done {
			t.Errorf("step %d: %d exchanges done, want %d", i, got, want.done)
		}
		step, err := deb.Next()
		if err != nil {
			t.Fatal(err)
		}
		var roles []string
		answers := map[string]sm.Answer{}
		for _, c := range step.Calls {
			roles = append(roles, c.Role)
			var a []byte
			switch c.Role {
			case "proposition":
				a = dialectictest.Answer(dialectic.Prop, step.Unit)
			case "opposition":
				a = dialectictest.Answer(dialectic.Opp, step.Unit)
			default:
				a = dialectictest.Judgment(step.Unit)
			}
			if rep := c.Validate(a); !rep.OK() {
				t.Fatalf("step %d: %s's scripted answer refused: %v", i, c.Role, rep.Errors)
			}
			if rep := c.Validate([]byte(`{"title": "x"}`)); rep.OK() {
				t.Errorf("step %d: %s's validation took a broken answer", i, c.Role)
			}
			answers[c.ID] = sm.Answer{Text: a}
		}
		if strings.Join(roles, ",") != strings.Join(want.roles, ",") {
			t.Errorf("step %d asks %v, want %v", i, roles, want.roles)
		}
		if i == 2 {
			break
		}
		c, err := step.Apply(answers, now)
		if err != nil {
			t.Fatalf("step %d: %v", i, err)
		}
		if last := c.Files[len(c.Files)-1].Name; last != "debate.md" {
			t.Errorf("step %d writes %s last, want debate.md", i, last)
		}
		for _, f := range c.Files {
			fsys[f.Name] = &fstest.MapFile{Data: f.Data}
		}
	}
	for _, name := range []string{"arguments/prop_000a.md", "arguments/opp_000c.md", "argument-graph.mmd"} {
		if _, ok := fsys[name]; !ok {
			t.Errorf("no %s after the opening and its judgment", name)
		}
	}
	if !strings.Contains(string(fsys["scores.json"].Data), "prop_000a") {
		t.Errorf("scores.json:\n%s", fsys["scores.json"].Data)
	}
	// Read back, its arguments are the parts the live view and `moot
	// calls` list: in order, each by its side, which its score counts for,
	// with its current score once judged and its body in full.
	deb, err := p.Load(fsys)
	if err != nil {
		t.Fatal(err)
	}
	sh, ok := deb.(sm.Shower)
	if !ok {
		t.Fatal("a dialectic debate lists no parts (sm.Shower)")
	}
	parts := sh.Parts()
	if len(parts) == 0 || parts[0].ID != "prop_000a" {
		t.Fatalf("parts %+v, want the opening's arguments from prop_000a", parts)
	}
	sides := map[string]bool{}
	for _, pt := range parts {
		sides[pt.Role] = true
		if pt.Unit != 0 || pt.For != pt.Role || pt.Score == nil || pt.Title == "" {
			t.Errorf("part %+v: want the opening (exchange 0), a title, a score counted for its own side", pt)
		}
		if body, ok := sh.Show(pt.ID); !ok || !strings.Contains(string(fsys["arguments/"+pt.ID+".md"].Data), body) || body == "" {
			t.Errorf("Show(%s) = %q, %v: want the body of its file", pt.ID, body, ok)
		}
	}
	if !sides["proposition"] || !sides["opposition"] || len(sides) != 2 {
		t.Errorf("parts by %v, want proposition and opposition", sides)
	}
	if _, ok := sh.Show("prop_999z"); ok {
		t.Error("Show found an argument the debate does not have")
	}
}

// TestCheckFiles: dialectic's own check of its files (sm.FilesChecker),
// which moot check asks in place of Load. An argument file that Load
// cannot read is a problem that names it, not an error; a judge's folder
// that scores an argument with no file is one too, once the debate's own
// files pass; and it reads how many argument files there are.
func TestCheckFiles(t *testing.T) {
	p := dialectic.Protocol{}
	fsys := judgedOpening(t, p)
	f, read, err := p.CheckFiles(fsys)
	if err != nil || !f.OK() || read != "6 argument files" {
		t.Fatalf("a sound debate: %v, %q, %v", f.Problems, read, err)
	}

	judge := fstest.MapFS{}
	for n, file := range fsys {
		judge[n] = file
	}
	judge["judgments/again/judge.json"] = &fstest.MapFile{Data: []byte(`{"name": "again", "model": "m", "kind": "rejudge", "from": 0, "created": "2026-01-02T03:04:05Z"}` + "\n")}
	judge["judgments/again/scores.json"] = &fstest.MapFile{Data: []byte(strings.ReplaceAll(string(fsys["scores.json"].Data), `"prop_000a"`, `"prop_005"`))}
	f, _, err = p.CheckFiles(judge)
	if err != nil || len(f.Problems) == 0 || f.Problems[0].File != "judgments/again/scores.json" || !strings.Contains(f.Problems[0].Message, "prop_005 is scored but has no argument file") {
		t.Errorf("a judge's folder that scores no argument: %v, %v", f.Problems, err)
	}
	// The judges' folders, as every protocol's are checked.
	delete(judge, "judgments/again/judge.json")
	judge["judgments/again/notes.txt"] = &fstest.MapFile{Data: []byte("x")}
	f, _, err = p.CheckFiles(judge)
	want := []sm.Problem{
		{File: "judgments/again/notes.txt", Message: "is not a file of a judge's folder, which holds judge.json, scores.json and missing.json"},
		{File: "judgments/again/judge.json", Message: "is missing: judgments/again holds the judge's scores.json"},
	}
	if err != nil || !reflect.DeepEqual(f.Problems, want) {
		t.Errorf("a judge's folder with a stray file and without its record: %v, %v; want %v", f.Problems, err, want)
	}

	broken := fstest.MapFS{}
	for n, file := range fsys {
		broken[n] = file
	}
	broken["arguments/opp_000b.md"] = &fstest.MapFile{Data: []byte("{\n  \"id\": \n")}
	if _, err := p.Load(broken); err == nil {
		t.Fatal("Load read a truncated argument file")
	}
	f, read, err = p.CheckFiles(broken)
	if err != nil || f.OK() || f.Problems[0].File != "arguments/opp_000b.md" || read != "6 argument files" {
		t.Errorf("a truncated argument file: %v, %q, %v", f.Problems, read, err)
	}
}

// judgedOpening returns the files of a new dialectic debate whose opening
// exchange is argued and judged, by the fixture's answers.
func judgedOpening(t *testing.T, p dialectic.Protocol) fstest.MapFS {
	t.Helper()
	files, err := p.New(sm.NewInput{Slug: "tea", Motion: "This house prefers tea."})
	if err != nil {
		t.Fatal(err)
	}
	fsys := fstest.MapFS{}
	for _, f := range files {
		fsys[f.Name] = &fstest.MapFile{Data: f.Data}
	}
	for range 2 {
		deb, err := p.Load(fsys)
		if err != nil {
			t.Fatal(err)
		}
		step, err := deb.Next()
		if err != nil {
			t.Fatal(err)
		}
		answers := map[string]sm.Answer{}
		for _, c := range step.Calls {
			switch c.Role {
			case "proposition":
				answers[c.ID] = sm.Answer{Text: dialectictest.Answer(dialectic.Prop, step.Unit)}
			case "opposition":
				answers[c.ID] = sm.Answer{Text: dialectictest.Answer(dialectic.Opp, step.Unit)}
			default:
				answers[c.ID] = sm.Answer{Text: dialectictest.Judgment(step.Unit)}
			}
		}
		c, err := step.Apply(answers, time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC))
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range c.Files {
			fsys[f.Name] = &fstest.MapFile{Data: f.Data}
		}
	}
	return fsys
}
