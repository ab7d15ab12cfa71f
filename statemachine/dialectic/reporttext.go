package dialectic

import (
	"strings"

	"github.com/moot-dev/moot/internal/escape"
	"github.com/moot-dev/moot/internal/page"
)

// paragraphs splits text into its paragraphs (runs of lines separated by a
// blank line), each folded onto one line.
func paragraphs(s string) []string {
	var out []string
	for _, p := range strings.Split(strings.ReplaceAll(s, "\r\n", "\n"), "\n\n") {
		if f := escape.Fold(p); f != "" {
			out = append(out, f)
		}
	}
	return out
}

// truncate shortens s to at most n runes, ending it with an ellipsis.
func shorten(s string, n int) string { return page.Truncate(s, n) }

// firstSentence returns the first sentence of s, at most n runes.
func firstSentence(s string, n int) string {
	s = escape.Fold(s)
	for i, r := range s {
		if (r == '.' || r == '!' || r == '?') && (i+1 == len(s) || s[i+1] == ' ') {
			return shorten(s[:i+1], n)
		}
	}
	return shorten(s, n)
}
