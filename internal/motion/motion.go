// Package motion reads and writes the motion of a debate as every
// protocol's state file keeps it in its markdown body: the motion under a
// "# Motion" heading, its definitions and its scope under headings of
// their own. It knows the format, not the protocols.
package motion

import (
	"bytes"
	"fmt"
	"regexp"
	"strings"
	"sync"

	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"
)

// Definition is one defined term of the motion.
type Definition struct {
	Term    string `json:"term"`
	Meaning string `json:"meaning"`
}

// Motion is what is debated: the motion itself, its definitions and scope,
// as written in the body of debate.md.
type Motion struct {
	Text        string       `json:"motion"`
	Definitions []Definition `json:"definitions"`
	Scope       string       `json:"scope"`
}

// blocks reads the block structure of markdown only: the body of debate.md
// needs its headings and lists, and inline markup (emphasis, links, code
// spans) is kept as written. Leaving inline parsing out also leaves out its
// quadratic cases (a long run of unclosed links, say).
// It is built on first use, not at start-up: most commands never read a
// motion.
var blocks = sync.OnceValue(func() parser.Parser {
	return parser.NewParser(
		parser.WithBlockParsers(parser.DefaultBlockParsers()...),
		parser.WithParagraphTransformers(parser.DefaultParagraphTransformers()...),
	)
})

// maxNesting is how deep block quotes and list items may nest in what moot
// reads; deeper markers on a line are read as text. goldmark's work grows
// with the square of the nesting depth, and a motion need not nest deeper.
const maxNesting = 32

// parseBlocks parses src with container nesting bounded by maxNesting. The
// tree's offsets are those of src.
func parseBlocks(src []byte) ast.Node {
	return blocks().Parse(text.NewReader(boundNesting(src)))
}

// boundNesting returns src, or a copy of the same length in which, on each
// line whose block quote and list markers nest deeper than maxNesting, the
// first marker past that depth is replaced by 'x': the line's content at
// that depth is then a paragraph, and the markers after it are text. Only
// what is nested deeper than maxNesting reads differently.
func boundNesting(src []byte) []byte {
	out := src
	for i := 0; i < len(src); {
		depth := 0
		j := i
		for j < len(src) && src[j] != '\n' {
			for j < len(src) && (src[j] == ' ' || src[j] == '\t') {
				j++
			}
			n := marker(src[j:])
			if n == 0 {
				break
			}
			if depth++; depth > maxNesting {
				if &out[0] == &src[0] {
					out = append([]byte(nil), src...)
				}
				for k := j; k < j+n; k++ {
					out[k] = 'x'
				}
				break
			}
			j += n
		}
		nl := bytes.IndexByte(src[j:], '\n')
		if nl < 0 {
			break
		}
		i = j + nl + 1
	}
	return out
}

// marker returns the length of the block quote or list item marker b
// starts with, or 0.
func marker(b []byte) int {
	if len(b) == 0 {
		return 0
	}
	if b[0] == '>' {
		return 1
	}
	n := 0
	switch {
	case b[0] == '-' || b[0] == '+' || b[0] == '*':
		n = 1
	case b[0] >= '0' && b[0] <= '9':
		for n < len(b) && n < 9 && b[n] >= '0' && b[n] <= '9' {
			n++
		}
		if n >= len(b) || (b[n] != '.' && b[n] != ')') {
			return 0
		}
		n++
	default:
		return 0
	}
	if n < len(b) && b[n] != ' ' && b[n] != '\t' && b[n] != '\n' && b[n] != '\r' {
		return 0
	}
	return n
}

// Parse reads the body of debate.md by walking its markdown tree:
// the text under "# Motion", the list under "## Definitions" (items of the
// form "**term**: meaning") and the text under "## Scope". The text of each
// section is kept as written, markdown and all, except that the backslash
// Render puts before a heading line of the motion or scope is taken
// away again.
func Parse(body string) Motion {
	src := []byte(body)
	root := parseBlocks(src)
	type section struct {
		name  string
		nodes []ast.Node
	}
	var sections []section
	for n := root.FirstChild(); n != nil; n = n.NextSibling() {
		if h, ok := n.(*ast.Heading); ok {
			sections = append(sections, section{name: headingName(h, src)})
			continue
		}
		if len(sections) == 0 {
			sections = append(sections, section{name: ""})
		}
		sections[len(sections)-1].nodes = append(sections[len(sections)-1].nodes, n)
	}
	var m Motion
	for _, s := range sections {
		switch s.name {
		case "motion":
			if m.Text == "" {
				m.Text = unescapeHeadings(rawText(s.nodes, src))
			}
		case "scope":
			if m.Scope == "" {
				m.Scope = unescapeHeadings(rawText(s.nodes, src))
			}
		case "definitions":
			for _, n := range s.nodes {
				if l, ok := n.(*ast.List); ok {
					for it := l.FirstChild(); it != nil; it = it.NextSibling() {
						if d, ok := definition(it, src); ok {
							m.Definitions = append(m.Definitions, d)
						}
					}
				}
			}
		}
	}
	return m
}

// headingName is the lower-cased plain text of a heading.
func headingName(h *ast.Heading, src []byte) string {
	var b strings.Builder
	for i := 0; i < h.Lines().Len(); i++ {
		seg := h.Lines().At(i)
		b.Write(seg.Value(src))
	}
	return strings.ToLower(strings.TrimSpace(b.String()))
}

// start returns the offset of the line on which n's source begins.
func start(n ast.Node, src []byte) (int, bool) {
	if n.Type() == ast.TypeBlock && n.Lines().Len() > 0 {
		off := n.Lines().At(0).Start
		return bytes.LastIndexByte(src[:off], '\n') + 1, true
	}
	if t, ok := n.(*ast.Text); ok {
		return bytes.LastIndexByte(src[:t.Segment.Start], '\n') + 1, true
	}
	for c := n.FirstChild(); c != nil; c = c.NextSibling() {
		if s, ok := start(c, src); ok {
			return s, true
		}
	}
	return 0, false
}

// rawText returns the source of a run of top-level blocks, from the first
// line of the first to the line before whatever follows the last.
func rawText(nodes []ast.Node, src []byte) string {
	if len(nodes) == 0 {
		return ""
	}
	from, ok := start(nodes[0], src)
	if !ok {
		return ""
	}
	to := len(src)
	if next := nodes[len(nodes)-1].NextSibling(); next != nil {
		if s, ok := start(next, src); ok {
			to = s
		}
	}
	if to < from {
		return ""
	}
	return strings.TrimSpace(string(src[from:to]))
}

// definition reads a list item of the form "**term**: meaning" (or
// "**term:** meaning"). The bold term opens the item and is closed by the
// last two stars of the first run of two or more stars that follows a
// character other than a space, so that emphasis inside the term ("**a
// *b***") stays part of it. An item without a bold term is all meaning.
func definition(item ast.Node, src []byte) (Definition, bool) {
	block := item.FirstChild()
	if block == nil || block.Lines().Len() == 0 {
		return Definition{}, false
	}
	lines := block.Lines()
	first, last := lines.At(0), lines.At(lines.Len()-1)
	all := string(src[first.Start:last.Stop])
	plain := Definition{Meaning: strings.TrimSpace(all)}
	var delim byte
	switch {
	case strings.HasPrefix(all, "**"):
		delim = '*'
	case strings.HasPrefix(all, "__"):
		delim = '_'
	default:
		return plain, true
	}
	if len(all) < 3 || isSpace(all[2]) {
		return plain, true
	}
	for i := 3; i < len(all); {
		if all[i] != delim {
			i++
			continue
		}
		j := i
		for j < len(all) && all[j] == delim {
			j++
		}
		if j-i >= 2 && !isSpace(all[i-1]) {
			return Definition{
				Term:    strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(all[2:j-2]), ":")),
				Meaning: strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(all[j:]), ":")),
			}, true
		}
		i = j
	}
	return plain, true
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// Render writes the body of debate.md for m. A heading in the text of
// the motion or the scope would start a section of its own when the file is
// read back, so each such line gets a backslash, which markdown shows as
// the text it was; Parse takes it away again.
func Render(m Motion) string {
	var b strings.Builder
	b.WriteString("# Motion\n\n")
	b.WriteString(escapeHeadings(strings.TrimSpace(m.Text)))
	b.WriteString("\n")
	if len(m.Definitions) > 0 {
		b.WriteString("\n## Definitions\n")
		for _, d := range m.Definitions {
			b.WriteString("\n- **")
			b.WriteString(OneLine(d.Term))
			b.WriteString("**: ")
			b.WriteString(OneLine(d.Meaning))
			b.WriteString("\n")
		}
	}
	if s := strings.TrimSpace(m.Scope); s != "" {
		b.WriteString("\n## Scope\n\n")
		b.WriteString(escapeHeadings(s))
		b.WriteString("\n")
	}
	return b.String()
}

// Error is a motion that debate.md cannot hold as given: written and
// read back, one of its parts would come back different.
type Error struct {
	// Field is "motion", "scope" or "definition".
	Field string
	// Index is the definition's place, from 0, when Field is "definition".
	Index  int
	Reason string
}

func (e *Error) Error() string {
	if e.Field == "definition" {
		return fmt.Sprintf("definition %d cannot be stored as given: %s", e.Index+1, e.Reason)
	}
	return fmt.Sprintf("the %s cannot be stored as given: %s", e.Field, e.Reason)
}

// Check reports whether debate.md can hold m exactly: written by
// Render and read back by Parse, the motion and the scope come
// back as given (apart from surrounding white space), and each definition as
// given with its line breaks folded into spaces. Headings are stored
// exactly; markdown that would run on into the sections after it, such as
// a code fence or an HTML comment left open, is not, and gives a
// *Error.
func Check(m Motion) error {
	back := Parse(Render(m))
	const runsOn = "written to debate.md and read back it would come out different, as its markdown runs on into what follows it (an unclosed ``` fence or <!-- comment, for instance)"
	if back.Text != strings.TrimSpace(m.Text) {
		return &Error{Field: "motion", Reason: runsOn}
	}
	if back.Scope != strings.TrimSpace(m.Scope) {
		return &Error{Field: "scope", Reason: runsOn}
	}
	if len(back.Definitions) != len(m.Definitions) {
		return &Error{Field: "definition", Index: min(len(back.Definitions), len(m.Definitions)), Reason: "written to debate.md and read back the list of definitions would come out different"}
	}
	for i, d := range m.Definitions {
		if back.Definitions[i].Term != OneLine(d.Term) || back.Definitions[i].Meaning != OneLine(d.Meaning) {
			return &Error{Field: "definition", Index: i, Reason: "written to debate.md as \"- **term**: meaning\" and read back it would come out different (a term may not hold \"**\" or end with \":\")"}
		}
	}
	return nil
}

// The patterns below are compiled on first use, not at start-up.
var (
	// atxLine is a line that can be an ATX heading.
	atxLine = lazyRegexp(`^ {0,3}#{1,6}(?:[ \t]|$)`)
	// underline is a line that can be a setext heading's underline.
	underline = lazyRegexp(`^ {0,3}(?:=+|-+)[ \t]*$`)
	// escapedLine is a line Render escaped, or that looks like one: a
	// backslash before what would otherwise be a heading line.
	escapedLine = lazyRegexp(`^ {0,3}\\+(?:#|=+[ \t]*$|-+[ \t]*$)`)
)

// lazyRegexp returns a function that compiles expr the first time it is
// called and returns the same regexp from then on.
func lazyRegexp(expr string) func() *regexp.Regexp {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(expr) })
}

// escapeLine puts a backslash after the indentation of line.
func escapeLine(line string) string {
	n := len(line) - len(strings.TrimLeft(line, " "))
	return line[:n] + "\\" + line[n:]
}

// escapeHeadings puts a backslash before every line of text that makes a
// heading (the "#" line of an ATX heading, the underline of a setext one),
// and before every line that already looks escaped, so that
// unescapeHeadings gives text back exactly. Escaping a line can turn
// another into a heading ("# a" above "---"), so it goes on until none is
// left.
func escapeHeadings(text string) string {
	lines := strings.Split(text, "\n")
	escape := make([]bool, len(lines))
	for i, l := range lines {
		escape[i] = escapedLine().MatchString(l)
	}
	apply := func() string {
		out := make([]string, len(lines))
		for i, l := range lines {
			if escape[i] {
				l = escapeLine(l)
			}
			out[i] = l
		}
		return strings.Join(out, "\n")
	}
	for range 16 {
		t := apply()
		found := false
		for _, i := range headingLines([]byte(t)) {
			if !escape[i] && (atxLine().MatchString(lines[i]) || underline().MatchString(lines[i])) {
				escape[i], found = true, true
			}
		}
		if !found {
			return t
		}
	}
	return apply()
}

// headingLines lists the line numbers, from 0, of the lines that make the
// top-level headings of src: an ATX heading's line, a setext heading's
// underline.
func headingLines(src []byte) []int {
	var out []int
	lineOf := func(off int) int { return bytes.Count(src[:off], []byte("\n")) }
	root := parseBlocks(src)
	for n := root.FirstChild(); n != nil; n = n.NextSibling() {
		h, ok := n.(*ast.Heading)
		if !ok {
			continue
		}
		var first, last int
		if h.Lines().Len() > 0 {
			first, last = h.Lines().At(0).Start, h.Lines().At(h.Lines().Len()-1).Start
		} else if h.Pos() >= 0 {
			first, last = h.Pos(), h.Pos()
		} else {
			continue
		}
		firstLine := src[bytes.LastIndexByte(src[:first], '\n')+1:]
		if i := bytes.IndexByte(firstLine, '\n'); i >= 0 {
			firstLine = firstLine[:i]
		}
		if h.Lines().Len() <= 1 && atxLine().Match(firstLine) {
			out = append(out, lineOf(first))
			continue
		}
		// A setext heading: its underline is the line after its last.
		out = append(out, lineOf(last)+1)
	}
	return out
}

// unescapeHeadings takes away the backslash escapeHeadings put before a
// line.
func unescapeHeadings(text string) string {
	if !strings.Contains(text, "\\") {
		return text
	}
	lines := strings.Split(text, "\n")
	for i, l := range lines {
		if escapedLine().MatchString(l) {
			n := strings.Index(l, "\\")
			lines[i] = l[:n] + l[n+1:]
		}
	}
	return strings.Join(lines, "\n")
}

// OneLine folds the line breaks of s into spaces, so that a list item stays
// one item.
func OneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}
