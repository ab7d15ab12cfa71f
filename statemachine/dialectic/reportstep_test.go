package dialectic_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/moot-dev/moot/internal/testkit/protocoltest"
	sm "github.com/moot-dev/moot/statemachine"
	"github.com/moot-dev/moot/statemachine/dialectic"
)

// stepDebate reads the debate in dir as the step model does.
func stepDebate(t *testing.T, dir string) sm.Debate {
	t.Helper()
	return protocoltest.Read(t, dialectic.Protocol{}, dir)
}

// file returns the file called name among files.
func file(t *testing.T, files []sm.File, name string) []byte {
	t.Helper()
	for _, f := range files {
		if f.Name == name {
			return f.Data
		}
	}
	t.Fatalf("no %s among the report's files", name)
	return nil
}

// TestStepReport checks that the report the step model reaches is the
// report of the golden files, byte for byte, with and without a stored
// narrative, and that its HTML is the report's.
func TestStepReport(t *testing.T) {
	deb := stepDebate(t, hostileDir)
	readGolden := func(name string) []byte {
		data, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			t.Fatal(err)
		}
		return data
	}
	files, err := deb.(sm.Reporter).Report()
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != 2 {
		t.Errorf("Report wrote %d files, want README.md and argument-graph.mmd", len(files))
	}
	if got := file(t, files, "README.md"); !bytes.Equal(got, readGolden("hostile.README.md")) {
		t.Errorf("README.md differs from testdata/hostile.README.md:\n%s", firstDiff(readGolden("hostile.README.md"), got))
	}
	if got := file(t, files, dialectic.GraphFile); !bytes.Equal(got, readGolden("hostile.argument-graph.mmd")) {
		t.Error("argument-graph.mmd differs from testdata/hostile.argument-graph.mmd")
	}

	stored, err := hostileNarrative.Render()
	if err != nil {
		t.Fatal(err)
	}
	files, err = deb.(sm.AddendaReporter).ReportWith(sm.Addenda{Narrative: stored})
	if err != nil {
		t.Fatal(err)
	}
	if got := file(t, files, "README.md"); !bytes.Equal(got, readGolden("hostile-narrative.README.md")) {
		t.Errorf("README.md with the narrative differs from testdata/hostile-narrative.README.md:\n%s", firstDiff(readGolden("hostile-narrative.README.md"), got))
	}

	page, err := deb.(sm.HTMLReporter).ReportHTML()
	if err != nil {
		t.Fatal(err)
	}
	want, err := dialectic.Build(loadDir(t, hostileDir), nil).HTML()
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(page, want) {
		t.Errorf("ReportHTML differs from the report's HTML:\n%s", firstDiff(want, page))
	}

	if _, err := deb.(sm.AddendaReporter).ReportWith(sm.Addenda{Narrative: []byte("not a narrative\n")}); err == nil || !strings.Contains(err.Error(), dialectic.NarrativeFile) {
		t.Errorf("a broken narrative: %v, want an error naming %s", err, dialectic.NarrativeFile)
	}
}

// TestStepReportAddenda checks where the report puts what moot adds: the
// note under the title, moot's sections in order before the line that
// says how the report was made, in README.md and report.html alike.
func TestStepReportAddenda(t *testing.T) {
	deb := stepDebate(t, hostileDir).(sm.AddendaReporter)
	add := sm.Addenda{
		Note:     "Written by a script <b>here</b>.",
		Sections: []string{"## Cost\n\nTwelve cents.\n", "## People\n\nAda took part.\n"},
	}
	files, err := deb.ReportWith(add)
	if err != nil {
		t.Fatal(err)
	}
	md := string(file(t, files, "README.md"))
	lines := strings.Split(md, "\n")
	if !strings.HasPrefix(lines[0], "# ") || lines[2] != "> **Scripted.** Written by a script \\<b\\>here\\</b\\>." {
		t.Errorf("the note is not the quote under the title: %q", lines[:3])
	}
	cost, people, footer := strings.Index(md, "## Cost\n\nTwelve cents.\n\n"), strings.Index(md, "## People\n\nAda took part.\n\n"), strings.LastIndex(md, "\n---\n")
	if cost < 0 || people < cost || footer < people {
		t.Errorf("the sections are not in order before the footer: cost at %d, people at %d, footer at %d", cost, people, footer)
	}
	page, err := deb.ReportHTMLWith(add)
	if err != nil {
		t.Fatal(err)
	}
	h := string(page)
	note, cost, people, footer := strings.Index(h, "<strong>Scripted.</strong> Written by a script &lt;b&gt;here&lt;/b&gt;."), strings.Index(h, ">Cost</h2>"), strings.Index(h, ">People</h2>"), strings.LastIndex(h, "<hr")
	if note < 0 || note > strings.Index(h, "</h1>")+200 || cost < note || people < cost || footer < people {
		t.Errorf("report.html: note at %d, cost at %d, people at %d, footer at %d", note, cost, people, footer)
	}
}

// TestStepExport checks the export the step model reaches: JSON by
// default, then CSV, each what the export functions write, and no other
// format.
func TestStepExport(t *testing.T) {
	deb := stepDebate(t, hostileDir)
	x := deb.(sm.Exporter)
	j := deb.(sm.Judged).Judgments()
	if f := x.Formats(); len(f) != 2 || f[0].Name != "json" || f[1].Name != "csv" {
		t.Fatalf("formats %v, want json then csv", f)
	}
	for _, tc := range []struct {
		format string
		want   func(*dialectic.Debate, sm.Judgments) ([]byte, error)
	}{
		{"json", dialectic.ExportJSON},
		{"csv", dialectic.ExportCSV},
	} {
		t.Run(tc.format, func(t *testing.T) {
			got, err := x.Export(tc.format)
			if err != nil {
				t.Fatal(err)
			}
			want, err := tc.want(loadDir(t, hostileDir), j)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("Export(%q) differs:\n%s", tc.format, firstDiff(want, got))
			}
		})
	}
	if _, err := x.Export("xml"); err == nil {
		t.Error("Export(xml) gave no error")
	}
}

// TestStepNarrative checks the narrative as the step model reaches it:
// the prompt, an answer far too short refused, one of the length asked
// for kept as narrative.md, which the report then carries.
func TestStepNarrative(t *testing.T) {
	deb := stepDebate(t, hostileDir)
	n := deb.(sm.Narrated)
	if n.NarrativeFile() != "narrative.md" {
		t.Errorf("NarrativeFile = %q", n.NarrativeFile())
	}
	prompt, err := n.NarrativePrompt()
	if err != nil || !strings.Contains(prompt, "prop_001") {
		t.Fatalf("prompt: %v, lacking the record:\n%.300s", err, prompt)
	}
	if _, _, err := n.Narrative("Too short.", "m"); err == nil {
		t.Error("a narrative of two words was kept")
	}
	answer := "```\n" + strings.Repeat("The opposition's cost case met the proposition's health case head on. ", 50) + "\n```"
	data, warning, err := n.Narrative(answer, "judge-model")
	if err != nil || warning != "" {
		t.Fatalf("a narrative of 550 words: %v, warning %q", err, warning)
	}
	if err := n.CheckNarrative(data); err != nil {
		t.Fatalf("the narrative.md it wrote does not read back: %v\n%s", err, data)
	}
	if bytes.Contains(data, []byte("```")) {
		t.Error("the code fence around the answer was kept")
	}
	files, err := deb.(sm.AddendaReporter).ReportWith(sm.Addenda{Narrative: data})
	if err != nil {
		t.Fatal(err)
	}
	if md := file(t, files, "README.md"); !bytes.Contains(md, []byte("## Analysis\n\n*Written by a language model (judge-model)")) {
		t.Error("README.md lacks the narrative")
	}
	if err := n.CheckNarrative([]byte("no frontmatter\n")); err == nil {
		t.Error("CheckNarrative took a file without frontmatter")
	}
}
