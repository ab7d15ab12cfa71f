package chart

import (
	"fmt"
	"html/template"
	"strconv"
	"strings"
	"sync"
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
// its full text. It is drawn with html/template, as the other charts are,
// but its texts are escaped by xmlText before the template sees them (as
// template.HTML): the image is also an XML file of its own (a tournament's
// win-matrix.svg), whose texts must be valid XML, where html/template's
// HTML escaping lets through control characters XML forbids.
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

	v := heatView{W: width, H: height, Title: xmlTitle(h.Title), LabelX: side - margin,
		CaptionX: margin, CaptionY: height - margin, Caption: template.HTML(xmlText(h.Caption))}
	for i, label := range labels {
		v.Labels = append(v.Labels, heatLabel{Text: template.HTML(xmlText(label)), Y: side + i*cell + cell/2, X: side + i*cell + cell/2})
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
			hc := heatCellView{X: x, Y: y, Empty: c.Empty}
			if !c.Empty {
				hc.Title, hc.Fill, hc.Text = xmlTitle(c.Title), ShareColour(c.Share), template.HTML(xmlText(c.Text))
				hc.TextX, hc.TextY = x+cell/2, y+cell/2
			}
			v.Cells = append(v.Cells, hc)
		}
	}
	var b strings.Builder
	if err := heatTemplate().Execute(&b, v); err != nil {
		// The view is made above and the template is fixed: it cannot
		// fail but by a mistake here, which the tests catch.
		panic(fmt.Sprintf("chart: %v", err))
	}
	return b.String()
}

// xmlTitle is the title element of s, escaped by xmlText. It is made
// here, not in the template, because html/template escapes a '+' inside
// a title element even in HTML it is given.
func xmlTitle(s string) template.HTML {
	return template.HTML("<title>" + xmlText(s) + "</title>")
}

// heatView is what heatTemplate draws: every position counted, every
// text escaped.
type heatView struct {
	W, H, LabelX, CaptionX, CaptionY int
	Title, Caption                   template.HTML
	Labels                           []heatLabel
	Cells                            []heatCellView
}

// heatLabel is a label, written left of its row (at Y) and above its
// column (at X).
type heatLabel struct {
	Text template.HTML
	X, Y int
}

type heatCellView struct {
	X, Y, TextX, TextY int
	Empty              bool
	Fill               string
	Title, Text        template.HTML
}

// heatTemplate draws a heat map.
var heatTemplate = sync.OnceValue(func() *template.Template {
	return template.Must(template.New("heat").Parse(
		`<svg xmlns="http://www.w3.org/2000/svg" width="{{.W}}" height="{{.H}}" viewBox="0 0 {{.W}} {{.H}}" font-family="sans-serif" font-size="12">` + "\n" +
			`{{.Title}}` + "\n" +
			`<rect width="{{.W}}" height="{{.H}}" fill="#ffffff"/>` + "\n" +
			`{{range .Labels}}<text x="{{$.LabelX}}" y="{{.Y}}" text-anchor="end" dominant-baseline="middle">{{.Text}}</text>` + "\n" +
			`<text transform="translate({{.X}} {{$.LabelX}}) rotate(-90)" dominant-baseline="middle">{{.Text}}</text>` + "\n" + `{{end}}` +
			`{{range .Cells}}{{if .Empty}}<rect x="{{.X}}" y="{{.Y}}" width="` + strconv.Itoa(cell) + `" height="` + strconv.Itoa(cell) + `" fill="#e0e0e0" stroke="#ffffff"/>` + "\n" +
			`{{else}}<g>{{.Title}}<rect x="{{.X}}" y="{{.Y}}" width="` + strconv.Itoa(cell) + `" height="` + strconv.Itoa(cell) + `" fill="{{.Fill}}" stroke="#ffffff"/>` +
			`<text x="{{.TextX}}" y="{{.TextY}}" text-anchor="middle" dominant-baseline="middle" font-size="11">{{.Text}}</text></g>` + "\n" + `{{end}}{{end}}` +
			`<text x="{{.CaptionX}}" y="{{.CaptionY}}" font-size="11">{{.Caption}}</text>` + "\n" +
			`</svg>` + "\n"))
})

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
