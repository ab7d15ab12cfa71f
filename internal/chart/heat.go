package chart

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// HeatCell is one cell of a heat map: its share, from 0 (red) through ½
// (white) to 1 (blue), the text written in it and its tooltip. An Empty
// cell is grey, with neither.
type HeatCell struct {
	Share       float64
	Text, Title string
	Empty       bool
}

// Heat is a heat map of a square matrix: a row and a column per label,
// the row's labels left of it and the columns' above it, each cell
// coloured by its share, and a caption beneath that says how to read it.
type Heat struct {
	Title, Caption string
	Labels         []string
	// Cells[i][j] is row i's cell in column j.
	Cells [][]HeatCell
}

// Heat map geometry, in SVG user units.
const (
	cell      = 44  // side of a cell
	charWidth = 7.5 // width allowed per character of a label at font size 12
	margin    = 8
	maxLabel  = 40 // characters of a label shown; the cell's title has all
)

// SVG renders the heat map as a self-contained SVG image with no script
// and no external reference. Every text is escaped for XML, and a label
// longer than 40 characters is shortened: the cells' titles should have
// its full text. Unlike the charts drawn inside a page, it is not drawn
// with html/template: it is an XML file of its own, whose texts xmlText
// makes valid XML, where html/template's HTML escaping lets through
// control characters XML forbids.
func (h Heat) SVG() string {
	labels := make([]string, len(h.Labels))
	longest := 0
	for i, name := range h.Labels {
		labels[i] = shorten(name, maxLabel)
		longest = max(longest, utf8.RuneCountInString(labels[i]))
	}
	side := margin + int(float64(longest)*charWidth) // room for the labels
	size := len(h.Labels) * cell
	width, height := side+size+margin, side+size+margin+20
	width = max(width, 2*margin+int(float64(utf8.RuneCountInString(h.Caption))*charWidth*11/12))

	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" font-family="sans-serif" font-size="12">`+"\n",
		width, height, width, height)
	fmt.Fprintf(&b, "<title>%s</title>\n", xmlText(h.Title))
	fmt.Fprintf(&b, `<rect width="%d" height="%d" fill="#ffffff"/>`+"\n", width, height)
	for i, label := range labels {
		y := side + i*cell + cell/2
		fmt.Fprintf(&b, `<text x="%d" y="%d" text-anchor="end" dominant-baseline="middle">%s</text>`+"\n",
			side-margin, y, xmlText(label))
		x := side + i*cell + cell/2
		fmt.Fprintf(&b, `<text transform="translate(%d %d) rotate(-90)" dominant-baseline="middle">%s</text>`+"\n",
			x, side-margin, xmlText(label))
	}
	for i := range h.Labels {
		for j := range h.Labels {
			x, y := side+j*cell, side+i*cell
			var c HeatCell
			if i < len(h.Cells) && j < len(h.Cells[i]) {
				c = h.Cells[i][j]
			} else {
				c.Empty = true
			}
			if c.Empty {
				fmt.Fprintf(&b, `<rect x="%d" y="%d" width="%d" height="%d" fill="#e0e0e0" stroke="#ffffff"/>`+"\n",
					x, y, cell, cell)
				continue
			}
			fmt.Fprintf(&b, `<g><title>%s</title>`, xmlText(c.Title))
			fmt.Fprintf(&b, `<rect x="%d" y="%d" width="%d" height="%d" fill="%s" stroke="#ffffff"/>`,
				x, y, cell, cell, ShareColour(c.Share))
			fmt.Fprintf(&b, `<text x="%d" y="%d" text-anchor="middle" dominant-baseline="middle" font-size="11">%s</text></g>`+"\n",
				x+cell/2, y+cell/2, xmlText(c.Text))
		}
	}
	fmt.Fprintf(&b, `<text x="%d" y="%d" font-size="11">%s</text>`+"\n", margin, height-margin, xmlText(h.Caption))
	b.WriteString("</svg>\n")
	return b.String()
}

// shorten returns s cut to at most n characters, ending in an ellipsis when
// cut.
func shorten(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n-1]) + "…"
}

// xmlText escapes s for XML text and attribute values, for an SVG file
// that stands alone. A character that XML does not allow (a control
// character, say) becomes U+FFFD.
func xmlText(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case r == '<':
			b.WriteString("&lt;")
		case r == '>':
			b.WriteString("&gt;")
		case r == '&':
			b.WriteString("&amp;")
		case r == '"':
			b.WriteString("&quot;")
		case r == '\'':
			b.WriteString("&apos;")
		case r == '\t' || r == '\n' || r == '\r':
			b.WriteByte(' ')
		case r < 0x20 || r == utf8.RuneError || r >= 0xFFFE && r <= 0xFFFF || r >= 0xD800 && r <= 0xDFFF:
			b.WriteRune('\uFFFD')
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// ShareColour returns the fill of a share in [0, 1]: red at 0, white at
// ½, blue at 1.
func ShareColour(share float64) string {
	share = min(1, max(0, share))
	red := [3]float64{0xd7, 0x30, 0x27}
	white := [3]float64{0xf7, 0xf7, 0xf7}
	blue := [3]float64{0x21, 0x66, 0xac}
	from, to, t := red, white, share*2
	if share > 0.5 {
		from, to, t = white, blue, share*2-1
	}
	var c [3]int
	for k := range c {
		c[k] = int(from[k] + (to[k]-from[k])*t + 0.5)
	}
	return fmt.Sprintf("#%02x%02x%02x", c[0], c[1], c[2])
}
