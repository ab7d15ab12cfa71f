package cli

import (
	"strings"
	"unicode/utf8"

	"github.com/moot-dev/moot/internal/escape"
	"github.com/moot-dev/moot/internal/termwidth"
)

// visible makes text from a debate safe to print for a person: see
// escape.Terminal.
func visible(s string, keepNewlines bool) string { return escape.Terminal(s, keepNewlines) }

// wrapLines splits s, folded onto one line, into lines of at most width
// columns of a terminal at spaces (a wide character takes two). A word longer than width gets a line of its own;
// nothing is ever cut.
func wrapLines(s string, width int) []string {
	var lines []string
	line := ""
	for _, w := range strings.Fields(s) {
		switch {
		case line == "":
			line = w
		case termwidth.Width(line)+1+termwidth.Width(w) <= width:
			line += " " + w
		default:
			lines = append(lines, line)
			line = w
		}
	}
	if line != "" || len(lines) == 0 {
		lines = append(lines, line)
	}
	return lines
}

// nearest returns the candidate closest to word by edit distance, if one
// is close enough to be a likely slip: at most a third of the word's
// length (at least 1, at most 3) edits away, or word with spaces and
// underscores turned into hyphens, or the beginning of one candidate
// shorter than all the others it begins.
// Ties go to the earliest candidate.
func nearest(word string, candidates []string) (string, bool) {
	if word == "" {
		return "", false
	}
	norm := strings.ToLower(strings.NewReplacer(" ", "-", "_", "-").Replace(strings.TrimSpace(word)))
	var prefixed []string
	for _, c := range candidates {
		if c == norm && c != word {
			return c, true
		}
		if strings.HasPrefix(c, word) {
			prefixed = append(prefixed, c)
		}
	}
	limit := min(max(utf8.RuneCountInString(word)/3, 1), 3)
	best, bestD := "", limit+1
	for _, c := range candidates {
		if c == word {
			continue
		}
		if d := editDistance(word, c); d < bestD {
			best, bestD = c, d
		}
	}
	if best != "" {
		return best, true
	}
	// Of the candidates word begins, the shortest, if only one is.
	short := ""
	for _, c := range prefixed {
		switch {
		case short == "" || len(c) < len(short):
			short = c
		case len(c) == len(short):
			return "", false
		}
	}
	return short, short != "" && short != word
}

// editDistance is the Levenshtein distance between a and b, counted in
// runes, with a swap of two neighbours counting as one edit.
func editDistance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev2 := make([]int, len(rb)+1)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(rb)]
}
