package dialectic

import (
	"bytes"

	"github.com/moot-dev/moot/internal/page"
)

// RenderMarkdown is how the report renders its markdown, for the tests of
// package report_test.
func RenderMarkdown(src []byte, out *bytes.Buffer) error { return page.Render(src, out) }

// MarkdownRuns returns the runs of markdown HTML renders, one per stretch
// of the report between two figures, as HTML puts them together.
func (r *Report) MarkdownRuns() [][]byte {
	var runs [][]byte
	var md []byte
	for _, bl := range r.blocks {
		if bl.fig == noFigure {
			md = append(md, bl.md...)
			continue
		}
		if len(md) > 0 {
			runs = append(runs, md)
		}
		md = nil
	}
	if len(md) > 0 {
		runs = append(runs, md)
	}
	return runs
}
