// Package escape makes text from a debate safe inside markdown and
// mermaid, and on a terminal: what a debater or judge wrote reads as the
// same characters and can never become markup or steer the terminal.
// Reports, the dialectic graph and the commands' output use it.
package escape

import (
	"fmt"
	"strings"
	"unicode"
)

// Markdown makes debate text safe as inline markdown: inside a
// paragraph, a heading or a table cell it reads as the same characters and
// nothing else. Line breaks fold into spaces, so it cannot end a table row
// or start a block; every character markdown, GitHub or HTML give meaning
// to is escaped with a backslash, so no emphasis, link, image, code span,
// math, raw HTML, entity or cell boundary can come out of it. Underscores
// inside a word, which never start emphasis, are left alone so that ids
// like prop_000a stay readable.
func Markdown(s string) string {
	s = Fold(s)
	var b strings.Builder
	b.Grow(len(s) + len(s)/8)
	rs := []rune(s)
	for i, r := range rs {
		switch r {
		case '\\', '`', '*', '[', ']', '<', '>', '|', '~', '#', '$':
			b.WriteByte('\\')
		case '_':
			if i == 0 || i == len(rs)-1 || !wordRune(rs[i-1]) || !wordRune(rs[i+1]) {
				b.WriteByte('\\')
			}
		case '&':
			// Only an ampersand that could start an entity is escaped.
			if i+1 < len(rs) && (rs[i+1] == '#' || wordRune(rs[i+1])) {
				b.WriteByte('\\')
			}
		}
		b.WriteRune(r)
	}
	return b.String()
}

func wordRune(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }

// Fold puts s on one line: every run of white space, line breaks included,
// becomes one space, and other control characters are dropped.
func Fold(s string) string {
	clean := strings.Map(func(r rune) rune {
		switch {
		case unicode.IsSpace(r):
			return ' '
		case unicode.IsControl(r), r == '\uFEFF', unicode.Is(unicode.Bidi_Control, r):
			return -1
		}
		return r
	}, s)
	return strings.Join(strings.Fields(clean), " ")
}

// Mermaid makes debate text safe inside a quoted mermaid label or an
// edge label: characters mermaid gives meaning to become entity codes, line
// breaks become spaces and other control characters are dropped.
func Mermaid(s string) string {
	var b strings.Builder
	for _, r := range Fold(s) {
		switch r {
		case '"':
			b.WriteString("#quot;")
		case '#':
			b.WriteString("#35;")
		case '<':
			b.WriteString("#lt;")
		case '>':
			b.WriteString("#gt;")
		case '&':
			b.WriteString("#amp;")
		case '`':
			b.WriteString("#96;")
		case '|':
			b.WriteString("#124;")
		case '[', ']', '{', '}', '(', ')':
			fmt.Fprintf(&b, "#%d;", r)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}
