// Package page is the HTML page every report of moot shares, whatever its
// protocol: one self-contained file with inline CSS, no script and
// nothing fetched, the markdown moot wrote rendered in it with its raw
// HTML dropped. It knows pages, not protocols.
package page

import (
	"bytes"
	"fmt"
	"html/template"
	"strings"
	"sync"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/parser"
)

// htmlMarkdown renders the report's markdown, its tables with
// goldmark's GFM table extension. It has heading ids, and it is not given
// the unsafe option: raw HTML in the markdown is dropped and dangerous
// link targets are emptied, so nothing a debate says can become markup.
// It is built on first use: only report.html needs it.
var htmlMarkdown = sync.OnceValue(func() goldmark.Markdown {
	return goldmark.New(
		goldmark.WithExtensions(extension.Table),
		goldmark.WithParserOptions(parser.WithAutoHeadingID()),
	)
})

// File is the name of the HTML report in a debate's directory.
const File = "report.html"

// Readme is the name of the markdown report in a debate's directory, the
// page File renders.
const Readme = "README.md"

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

// MarkdownPage renders markdown, a report moot wrote as README.md, as one
// self-contained HTML page titled title, as report.html is: the same
// inline CSS and Content-Security-Policy, raw HTML in the markdown
// dropped. Protocols whose README.md is plain markdown use it for `moot
// report --html`.
func MarkdownPage(title string, markdown []byte) ([]byte, error) {
	var body bytes.Buffer
	if err := Render(markdown, &body); err != nil {
		return nil, fmt.Errorf("render the report: %w", err)
	}
	return Wrap(Truncate(title, 120), body.Bytes()), nil
}

// AppendSection adds markdown, rendered as the report renders its own,
// at the end of page, a report.html: before its closing </main>, or
// </body>, or at the very end.
func AppendSection(page []byte, markdown string) ([]byte, error) {
	var section bytes.Buffer
	if err := Render([]byte(markdown), &section); err != nil {
		return nil, fmt.Errorf("render the report: %w", err)
	}
	for _, end := range []string{"</main>", "</body>"} {
		if i := bytes.LastIndex(page, []byte(end)); i >= 0 {
			out := make([]byte, 0, len(page)+section.Len())
			out = append(out, page[:i]...)
			out = append(out, section.Bytes()...)
			return append(out, page[i:]...), nil
		}
	}
	return append(append([]byte(nil), page...), section.Bytes()...), nil
}

// Wrap wraps body, rendered HTML, in the page of report.html, titled
// title.
func Wrap(title string, body []byte) []byte {
	// The layout and its data are moot's own: it cannot fail.
	out, _ := Page{Title: title, Body: template.HTML(body)}.HTML()
	return out
}

// Render renders src, markdown that moot wrote, to out. Heading ids stay
// unique across the whole of src.
func Render(src []byte, out *bytes.Buffer) error {
	return htmlMarkdown().Convert(src, out)
}

// Truncate shortens s to at most n runes, ending it with an ellipsis.
func Truncate(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return strings.TrimRight(string(r[:n-1]), " ") + "…"
}
