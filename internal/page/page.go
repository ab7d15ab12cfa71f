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
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/util"
)

// htmlMarkdown renders the report's markdown, tables aside (see
// writeTable). It has heading ids, and it is not given the unsafe option:
// raw HTML in the markdown is dropped and dangerous link targets are
// emptied, so nothing a debate says can become markup. It is built on
// first use: only report.html needs it.
var htmlMarkdown = sync.OnceValue(func() goldmark.Markdown {
	return goldmark.New(goldmark.WithParserOptions(parser.WithAutoHeadingID()))
})

// cellMarkdown renders the text of one table cell as a GFM table does: as
// inline markdown only, whatever the text starts with. Like htmlMarkdown,
// it keeps raw HTML out.
var cellMarkdown = sync.OnceValue(func() goldmark.Markdown {
	return goldmark.New(goldmark.WithParser(parser.NewParser(
		parser.WithBlockParsers(util.Prioritized(parser.NewParagraphParser(), 100)),
		parser.WithInlineParsers(parser.DefaultInlineParsers()...),
	)))
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

// Render renders src, markdown that moot wrote, to out: its tables
// with writeTable, the rest with htmlMarkdown. Rendering tables here rather
// than with goldmark's table extension keeps that extension, whose
// package initialisation compiles regexps at every start of every
// command, out of moot. Heading ids stay unique across the whole of src.
//
// A table is found as moot writes them: after a blank line (or at the
// start), a row starting with "|", a delimiter row, then rows up to a
// blank line. Nothing else in a report starts a line with "|": every text
// from a debate goes through escape.Markdown, which escapes it.
func Render(src []byte, out *bytes.Buffer) error {
	pc := parser.NewContext()
	lines := bytes.SplitAfter(src, []byte("\n"))
	text := 0 // the offset in src where the text not yet rendered starts
	off := 0
	blank := true // whether the line before lines[i] is blank
	for i := 0; i < len(lines); {
		line := lines[i]
		if blank && i+1 < len(lines) && bytes.HasPrefix(line, []byte("|")) {
			head := tableCells(line)
			align, ok := tableAlign(lines[i+1])
			if ok && len(align) == len(head) {
				if err := htmlMarkdown().Convert(src[text:off], out, parser.WithContext(pc)); err != nil {
					return err
				}
				var rows [][]string
				j := i + 2
				end := off + len(line) + len(lines[i+1])
				for ; j < len(lines) && bytes.HasPrefix(lines[j], []byte("|")); j++ {
					rows = append(rows, tableCells(lines[j]))
					end += len(lines[j])
				}
				if err := writeTable(out, head, align, rows); err != nil {
					return err
				}
				i, off, text, blank = j, end, end, false
				continue
			}
		}
		blank = len(bytes.TrimSpace(line)) == 0
		off += len(line)
		i++
	}
	return htmlMarkdown().Convert(src[text:], out, parser.WithContext(pc))
}

// tableCells splits a table row into the text of its cells, trimmed: the
// row's outer pipes are dropped, and a pipe after a backslash is text.
func tableCells(line []byte) []string {
	row := strings.TrimSpace(string(line))
	row = strings.TrimPrefix(row, "|")
	if strings.HasSuffix(row, "|") && !escapedAt(row, len(row)-1) {
		row = row[:len(row)-1]
	}
	var cells []string
	start := 0
	for i := 0; i < len(row); i++ {
		if row[i] == '|' && !escapedAt(row, i) {
			cells = append(cells, strings.TrimSpace(row[start:i]))
			start = i + 1
		}
	}
	return append(cells, strings.TrimSpace(row[start:]))
}

// escapedAt reports whether s[i] follows an odd number of backslashes.
func escapedAt(s string, i int) bool {
	n := 0
	for i > 0 && s[i-1] == '\\' {
		n++
		i--
	}
	return n%2 == 1
}

// tableAlign reads a delimiter row ("|---|:--:|---:|"): the alignment of
// each column, "" for none. It reports false for any other line.
func tableAlign(line []byte) ([]string, bool) {
	if !bytes.HasPrefix(line, []byte("|")) {
		return nil, false
	}
	var align []string
	for _, c := range tableCells(line) {
		left, right := strings.HasPrefix(c, ":"), strings.HasSuffix(c, ":")
		dashes := strings.TrimSuffix(strings.TrimPrefix(c, ":"), ":")
		if dashes == "" || strings.Trim(dashes, "-") != "" {
			return nil, false
		}
		switch {
		case left && right:
			align = append(align, "center")
		case left:
			align = append(align, "left")
		case right:
			align = append(align, "right")
		default:
			align = append(align, "")
		}
	}
	return align, true
}

// writeTable writes a table: a head row, then the body rows, if any, each
// cell aligned as its column says and rendered as inline markdown. A row
// with fewer cells than the head is padded with empty ones; cells past the
// head's are dropped.
func writeTable(out *bytes.Buffer, head, align []string, rows [][]string) error {
	row := func(tag string, cells []string) error {
		out.WriteString("<tr>\n")
		for i := range head {
			out.WriteString("<" + tag)
			if align[i] != "" {
				out.WriteString(` style="text-align:` + align[i] + `"`)
			}
			out.WriteString(">")
			if i < len(cells) {
				if err := writeCell(out, cells[i]); err != nil {
					return err
				}
			}
			out.WriteString("</" + tag + ">\n")
		}
		out.WriteString("</tr>\n")
		return nil
	}
	out.WriteString("<table>\n<thead>\n")
	if err := row("th", head); err != nil {
		return err
	}
	out.WriteString("</thead>\n")
	if len(rows) > 0 {
		out.WriteString("<tbody>\n")
		for _, r := range rows {
			if err := row("td", r); err != nil {
				return err
			}
		}
		out.WriteString("</tbody>\n")
	}
	out.WriteString("</table>\n")
	return nil
}

// writeCell renders the text of a cell as inline markdown: cellMarkdown
// makes it one paragraph, whose tags are left out.
func writeCell(out *bytes.Buffer, text string) error {
	if text == "" {
		return nil
	}
	var b bytes.Buffer
	if err := cellMarkdown().Convert([]byte(text), &b); err != nil {
		return err
	}
	out.Write(bytes.TrimSuffix(bytes.TrimPrefix(b.Bytes(), []byte("<p>")), []byte("</p>\n")))
	return nil
}

// Truncate shortens s to at most n runes, ending it with an ellipsis.
func Truncate(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return strings.TrimRight(string(r[:n-1]), " ") + "…"
}
