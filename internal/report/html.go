package report

import (
	"bytes"
	"fmt"
	"html"
	"sync"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/parser"
)

// htmlMarkdown renders the report's markdown. It has GFM tables and heading
// ids, and it is not given the unsafe option: raw HTML in the markdown is
// dropped and dangerous link targets are emptied, so nothing a debate says
// can become markup. It is built on first use: only report.html needs it.
var htmlMarkdown = sync.OnceValue(func() goldmark.Markdown {
	return goldmark.New(
		goldmark.WithExtensions(extension.Table),
		goldmark.WithParserOptions(parser.WithAutoHeadingID()),
	)
})

// pageCSS styles report.html; it is inline, so that the page needs nothing
// but itself.
const pageCSS = `
:root { color-scheme: light; }
body { margin: 0; background: #f6f7f9; color: #1f2328; font: 16px/1.55 -apple-system, "Segoe UI", Helvetica, Arial, sans-serif; }
main { max-width: 980px; margin: 0 auto; padding: 24px 32px 64px; background: #fff; box-shadow: 0 0 0 1px #e5e7eb; }
h1 { font-size: 1.9em; line-height: 1.25; margin: 0.4em 0 0.5em; }
h2 { font-size: 1.45em; border-bottom: 1px solid #e5e7eb; padding-bottom: 0.25em; margin-top: 1.8em; }
h3 { font-size: 1.2em; margin-top: 1.4em; }
h4 { font-size: 1.02em; margin: 1.5em 0 0.3em; }
p, ul { margin: 0.5em 0 0.8em; }
table { border-collapse: collapse; margin: 0.6em 0 1.2em; font-size: 0.93em; display: block; overflow-x: auto; }
th, td { border: 1px solid #d0d7de; padding: 5px 10px; vertical-align: top; }
th { background: #f3f4f6; }
tr:nth-child(even) td { background: #fafbfc; }
blockquote { margin: 0.5em 0 0.8em; padding: 0.3em 1em; border-left: 4px solid #d0d7de; color: #424a53; background: #fafbfc; }
code { background: #f3f4f6; padding: 0.1em 0.3em; border-radius: 4px; font-size: 0.9em; }
hr { border: 0; border-top: 1px solid #e5e7eb; margin: 2em 0 1em; }
figure { margin: 0.8em 0 1.2em; overflow-x: auto; border: 1px solid #e5e7eb; border-radius: 6px; background: #fff; }
svg.trajectory { width: 100%; height: auto; }
svg.graph { max-width: 100%; height: auto; }
svg.chart { display: block; font: 12px -apple-system, "Segoe UI", Helvetica, Arial, sans-serif; }
svg .grid { stroke: #eaeef2; }
svg .zero { stroke: #8c959f; stroke-width: 1.2; }
svg .tick { fill: #57606a; }
svg .axis, svg .exchange { fill: #57606a; font-weight: 600; }
svg .legend text, svg text.legend { fill: #1f2328; }
svg .region { font-weight: 600; }
svg .lane { font-weight: 700; font-size: 13px; }
svg .node-id { font-weight: 700; fill: #1f2328; }
svg .node-title { fill: #1f2328; }
svg .node:hover rect { stroke-width: 3; }
svg path:hover { stroke-width: 3.5; }
svg .edge-label, svg .exchange { paint-order: stroke; stroke: #fff; stroke-width: 3px; stroke-linejoin: round; }
`

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
		err := htmlMarkdown().Convert(md.Bytes(), &body)
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
		title = truncate(ps[0], 120)
	}
	var page bytes.Buffer
	page.WriteString("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n")
	page.WriteString("<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'; img-src data:\">\n")
	page.WriteString("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n")
	page.WriteString("<meta name=\"generator\" content=\"moot report\">\n")
	fmt.Fprintf(&page, "<title>%s</title>\n", html.EscapeString(title))
	fmt.Fprintf(&page, "<style>%s</style>\n</head>\n<body>\n<main>\n", pageCSS)
	page.Write(body.Bytes())
	page.WriteString("</main>\n</body>\n</html>\n")
	return page.Bytes(), nil
}
