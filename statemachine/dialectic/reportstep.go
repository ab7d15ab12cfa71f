package dialectic

import (
	"errors"
	"fmt"

	sm "github.com/moot-dev/moot/statemachine"
)

// This file is dialectic's report, HTML report, export and narrative as
// the step model reaches them, for `moot report`, `moot export` and
// `moot serve`.

var (
	_ sm.Reporter        = (*stepDebate)(nil)
	_ sm.HTMLReporter    = (*stepDebate)(nil)
	_ sm.AddendaReporter = (*stepDebate)(nil)
	_ sm.Exporter        = (*stepDebate)(nil)
	_ sm.Narrated        = (*stepDebate)(nil)
)

// Report returns README.md and argument-graph.mmd.
func (s *stepDebate) Report() ([]sm.File, error) { return s.ReportWith(sm.Addenda{}) }

// ReportHTML returns report.html.
func (s *stepDebate) ReportHTML() ([]byte, error) { return s.ReportHTMLWith(sm.Addenda{}) }

// ReportWith returns README.md and argument-graph.mmd with moot's addenda:
// the note as a quote under the title, the sections before the line that
// says how the report was made, the narrative as the report's analysis.
func (s *stepDebate) ReportWith(a sm.Addenda) ([]sm.File, error) {
	r, err := s.report(a)
	if err != nil {
		return nil, err
	}
	return []sm.File{{Name: ReadmeFile, Data: r.Markdown()}, {Name: GraphFile, Data: r.GraphFile()}}, nil
}

// ReportHTMLWith returns report.html with moot's addenda, placed as
// ReportWith places them.
func (s *stepDebate) ReportHTMLWith(a sm.Addenda) ([]byte, error) {
	r, err := s.report(a)
	if err != nil {
		return nil, err
	}
	return r.HTML()
}

func (s *stepDebate) report(a sm.Addenda) (*Report, error) {
	var n *Narrative
	if a.Narrative != nil {
		var err error
		if n, err = ParseNarrative(a.Narrative); err != nil {
			return nil, fmt.Errorf("read %s: %w", NarrativeFile, err)
		}
	}
	r := BuildWithNote(s.deb, n, nil, a.Note)
	for _, sec := range a.Sections {
		r.AddSection(sec)
	}
	return r, nil
}

// exportFormats are the formats of `moot export`, JSON first, the default.
var exportFormats = []sm.Format{
	{Name: "json", Usage: "an array of objects, one per argument", Ext: "json"},
	{Name: "csv", Usage: "RFC 4180, with a header, a row per argument", Ext: "csv"},
}

// Formats returns json and csv.
func (s *stepDebate) Formats() []sm.Format { return exportFormats }

// Export returns one row per argument, with what the debate's judges made
// of it, as JSON or CSV.
func (s *stepDebate) Export(name string) ([]byte, error) {
	switch name {
	case "json":
		return ExportJSON(s.deb, s.Judgments())
	case "csv":
		return ExportCSV(s.deb, s.Judgments())
	}
	return nil, fmt.Errorf("no export format %q", name)
}

// NarrativeFile returns narrative.md.
func (s *stepDebate) NarrativeFile() string { return NarrativeFile }

// NarratorModel returns the judge's model, as debate.md's settings name it.
func (s *stepDebate) NarratorModel() string { return readModels(s.deb.Header).Judge }

// errNothingToNarrate is NarrativePrompt's error before any judgment.
var errNothingToNarrate = errors.New("no exchange has been judged yet, so there is nothing to analyse")

// NarrativePrompt returns what the model is asked for the narrative.
func (s *stepDebate) NarrativePrompt() (string, error) {
	if s.deb.Header.State.Exchange == 0 {
		return "", errNothingToNarrate
	}
	return NarrativePrompt(s.deb), nil
}

// Narrative reads the model's answer and returns narrative.md.
func (s *stepDebate) Narrative(answer, model string) ([]byte, string, error) {
	n, warning, err := readNarrative(s.deb, answer, model)
	if err != nil {
		return nil, "", err
	}
	data, err := n.Render()
	if err != nil {
		return nil, "", fmt.Errorf("render %s: %w", NarrativeFile, err)
	}
	return data, warning, nil
}

// CheckNarrative reads a kept narrative.md.
func (s *stepDebate) CheckNarrative(data []byte) error {
	_, err := ParseNarrative(data)
	return err
}
