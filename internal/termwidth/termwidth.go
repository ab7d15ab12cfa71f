// Package termwidth measures, cuts and pads text by the columns a
// terminal gives it, not by its bytes or runes: a CJK character or an
// emoji takes two columns, a combining mark none, and a cut never splits
// a character made of several runes (an emoji with a skin tone, a flag, a
// letter and its accent). The widths are those of Unicode's East Asian
// Width and emoji properties, as github.com/rivo/uniseg gives them.
package termwidth

import (
	"strings"

	"github.com/rivo/uniseg"
)

// Width returns the columns s takes on a terminal.
func Width(s string) int { return uniseg.StringWidth(s) }

// Fit returns s cut to at most width columns, a cut marked with "…"
// (which takes one column); s itself when it fits. A width below 1 gives
// "".
func Fit(s string, width int) string {
	if width < 1 {
		return ""
	}
	if Width(s) <= width {
		return s
	}
	var b strings.Builder
	used := 0
	state := -1
	rest := s
	for rest != "" {
		var cluster string
		var w int
		cluster, rest, w, state = uniseg.FirstGraphemeClusterInString(rest, state)
		if used+w > width-1 {
			break
		}
		b.WriteString(cluster)
		used += w
	}
	return b.String() + "…"
}

// Pad returns s followed by spaces up to width columns; s itself when it
// takes width columns or more.
func Pad(s string, width int) string {
	if n := width - Width(s); n > 0 {
		return s + strings.Repeat(" ", n)
	}
	return s
}
