package dialectic

import (
	"bytes"
	"fmt"
	"html/template"

	"github.com/moot-dev/moot/internal/page"
)

// figureTemplate holds one drawing of report.html.
var figureTemplate = template.Must(template.New("figure").Parse("<figure>\n{{.}}</figure>\n"))

// HTML returns report.html: the same report as README.md, rendered, with
// the trajectory and the argument graph drawn as inline SVG. The page is
// one self-contained file: inline CSS, no script, nothing fetched; its
// Content-Security-Policy forbids both even if something slipped through.
func (r *Report) HTML() ([]byte, error) {
	var body bytes.Buffer
	var md bytes.Buffer
	flush := func() error {
		if md.Len() == 0 {
			return nil
		}
		err := page.Render(md.Bytes(), &body)
		md.Reset()
		return err
	}
	for _, bl := range r.blocks {
		if bl.fig == noFigure {
			md.WriteString(bl.md)
			continue
		}
		if err := flush(); err != nil {
			return nil, fmt.Errorf("render the report: %w", err)
		}
		var svg string
		switch bl.fig {
		case trajectoryFigure:
			svg = TrajectorySVG(r.an.Trajectory)
		case graphFigure:
			svg = GraphSVG(r.an)
		}
		// The drawings are html/template's work, their texts escaped.
		if err := figureTemplate.Execute(&body, template.HTML(svg)); err != nil {
			return nil, fmt.Errorf("render the report: %w", err)
		}
	}
	if err := flush(); err != nil {
		return nil, fmt.Errorf("render the report: %w", err)
	}
	title := "Debate report"
	if ps := paragraphs(r.an.Debate.Header.Motion.Text); len(ps) > 0 {
		title = shorten(ps[0], 120)
	}
	return page.Wrap(title, body.Bytes()), nil
}
