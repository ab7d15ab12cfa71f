package dialectic

import (
	"bytes"
	"fmt"

	"github.com/moot-dev/moot/internal/page"
)

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
		body.WriteString("<figure>\n")
		switch bl.fig {
		case trajectoryFigure:
			body.WriteString(TrajectorySVG(r.an.Trajectory))
		case graphFigure:
			body.WriteString(GraphSVG(r.an))
		}
		body.WriteString("</figure>\n")
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
