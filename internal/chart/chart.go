// Package chart draws the line charts of moot's HTML reports as inline
// SVG: labelled axes, ticks with their values, and a line per series that
// starts at its first value, with a legend.
package chart

import (
	"fmt"
	"html"
	"math"
	"strconv"
	"strings"
)

// Series is one line of a chart: its name in the legend, its colour, and
// a value for each point of the x axis, NaN where it has none (yet).
type Series struct {
	Name   string
	Colour string
	Values []float64
	// Marks, when set, give the dot of each value (by its index) its own
	// colour and tooltip.
	Marks []Mark
}

// Mark is the colour and the tooltip of one dot of a line.
type Mark struct {
	Colour, Title string
}

// Note is a text in a colour, written on the plot.
type Note struct {
	Text, Colour string
}

// Lines is a line chart.
type Lines struct {
	// Title names the chart for screen readers (the SVG's title).
	Title string
	// XLabel and YLabel name the axes; X labels each point of the x axis.
	XLabel, YLabel string
	X              []string
	// YMin, YMax and YStep give the y axis's range and its ticks.
	YMin, YMax, YStep float64
	Series            []Series
	// Zero draws the line of zero darker than the grid, for values whose
	// sign means something; Above and Below, when set, say what a value
	// above or below zero means, at the top and the bottom of the plot.
	Zero         bool
	Above, Below Note
	// Format writes the value of a y tick; with at most two decimals when
	// nil.
	Format func(float64) string
	// Width is the chart's width; 520 when 0.
	Width int
	// Class is the SVG element's class, for the page's styles.
	Class string
}

const (
	defaultW, height = 520, 240
	// manyPoints is how many points an x axis labels at the most, and how
	// many dots a line has at the most: past it, a label every few
	// points, and no dots.
	manyPoints     = 60
	leftMin, right = 48, 16
	// tickCharW is about the width of a character of a tick's value, and
	// yLabelW the room the y axis's label takes left of the values.
	tickCharW, yLabelW = 6, 22
	top, bottom        = 16, 44
	plotH              = height - top - bottom
	tickLen            = 4
	axisColour         = "#555"
	gridColour         = "#e4e4e4"
	labelSize, tickSz  = 13, 11
	legendGap, swatchW = 12, 14
)

// SVG returns the chart as an inline SVG element followed by nothing:
// the legend is drawn inside it, under the x axis's label.
func (c Lines) SVG() string {
	var b strings.Builder
	esc := html.EscapeString
	legend := 22
	width := defaultW
	if c.Width > 0 {
		width = c.Width
	}
	format := c.Format
	if format == nil {
		format = num
	}
	// The plot starts right of the widest value of a y tick.
	left := leftMin
	if c.YStep > 0 {
		for i := 0; c.YMin+float64(i)*c.YStep <= c.YMax+c.YStep/1e6; i++ {
			left = max(left, yLabelW+tickCharW*len([]rune(format(c.YMin+float64(i)*c.YStep)))+tickLen+3)
		}
	}
	plotW := width - left - right
	class := ""
	if c.Class != "" {
		class = ` class="` + esc(c.Class) + `"`
	}
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg"%s width="%d" height="%d" viewBox="0 0 %d %d" role="img" font-family="system-ui,sans-serif">`+"\n",
		class, width, height+legend, width, height+legend)
	fmt.Fprintf(&b, "<title>%s</title>\n", esc(c.Title))
	yOf := func(v float64) float64 {
		span := c.YMax - c.YMin
		if span <= 0 {
			span = 1
		}
		return top + plotH - (v-c.YMin)/span*plotH
	}
	xOf := func(i int) float64 {
		if len(c.X) <= 1 {
			return float64(left + plotW/2)
		}
		return float64(left) + float64(plotW)*float64(i)/float64(len(c.X)-1)
	}
	// The y axis: a grid line and a tick with its value at each step.
	if c.YStep > 0 {
		for i := 0; ; i++ {
			// Each tick from the first, so that steps add no error.
			v := c.YMin + float64(i)*c.YStep
			if v > c.YMax+c.YStep/1e6 {
				break
			}
			y := yOf(v)
			grid := gridColour
			if c.Zero && math.Abs(v) < c.YStep/1e6 {
				grid = axisColour
			}
			fmt.Fprintf(&b, `<line x1="%d" y1="%s" x2="%d" y2="%s" stroke="%s"/>`+"\n", left, num(y), left+plotW, num(y), grid)
			fmt.Fprintf(&b, `<line x1="%d" y1="%s" x2="%d" y2="%s" stroke="%s"/>`+"\n", left-tickLen, num(y), left, num(y), axisColour)
			fmt.Fprintf(&b, `<text x="%d" y="%s" font-size="%d" text-anchor="end" dominant-baseline="middle">%s</text>`+"\n", left-tickLen-3, num(y), tickSz, esc(format(v)))
		}
	}
	if c.Above.Text != "" {
		fmt.Fprintf(&b, `<text x="%d" y="%d" font-size="%d" text-anchor="end" fill="%s">%s</text>`+"\n", left+plotW-4, top+14, labelSize, esc(c.Above.Colour), esc(c.Above.Text))
	}
	if c.Below.Text != "" {
		fmt.Fprintf(&b, `<text x="%d" y="%d" font-size="%d" text-anchor="end" fill="%s">%s</text>`+"\n", left+plotW-4, top+plotH-6, labelSize, esc(c.Below.Colour), esc(c.Below.Text))
	}
	fmt.Fprintf(&b, `<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="%s"/>`+"\n", left, top, left, top+plotH, axisColour)
	fmt.Fprintf(&b, `<text x="12" y="%d" font-size="%d" text-anchor="middle" transform="rotate(-90 12 %d)">%s</text>`+"\n", top+plotH/2, labelSize, top+plotH/2, esc(c.YLabel))
	// The x axis: a tick and its label at each point.
	fmt.Fprintf(&b, `<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="%s"/>`+"\n", left, top+plotH, left+plotW, top+plotH, axisColour)
	n := len(c.X)
	every := max(1, (n+manyPoints/3-1)/(manyPoints/3))
	for i, label := range c.X {
		// Every few points when there are many, and the last, unless it
		// would crowd the one before.
		if (i%every != 0 || n-1-i < (every+1)/2) && i != n-1 {
			continue
		}
		x := xOf(i)
		fmt.Fprintf(&b, `<line x1="%s" y1="%d" x2="%s" y2="%d" stroke="%s"/>`+"\n", num(x), top+plotH, num(x), top+plotH+tickLen, axisColour)
		fmt.Fprintf(&b, `<text x="%s" y="%d" font-size="%d" text-anchor="middle">%s</text>`+"\n", num(x), top+plotH+tickLen+12, tickSz, esc(label))
	}
	fmt.Fprintf(&b, `<text x="%d" y="%d" font-size="%d" text-anchor="middle">%s</text>`+"\n", left+plotW/2, height-6, labelSize, esc(c.XLabel))
	// The lines, each from its first value on, and a dot at each value.
	for _, s := range c.Series {
		var pts []string
		var at []int
		for i, v := range s.Values {
			if i >= len(c.X) || math.IsNaN(v) {
				continue
			}
			pts = append(pts, num(xOf(i))+","+num(yOf(v)))
			at = append(at, i)
		}
		if len(pts) == 0 {
			continue
		}
		fmt.Fprintf(&b, `<polyline fill="none" stroke="%s" stroke-width="2" points="%s"><title>%s</title></polyline>`+"\n", esc(s.Colour), strings.Join(pts, " "), esc(s.Name))
		if n > manyPoints {
			continue
		}
		for k, p := range pts {
			x, y, _ := strings.Cut(p, ",")
			if i := at[k]; i < len(s.Marks) {
				fmt.Fprintf(&b, `<circle cx="%s" cy="%s" r="3" fill="%s"><title>%s</title></circle>`+"\n", x, y, esc(s.Marks[i].Colour), esc(s.Marks[i].Title))
				continue
			}
			fmt.Fprintf(&b, `<circle cx="%s" cy="%s" r="3" fill="%s"/>`+"\n", x, y, esc(s.Colour))
		}
	}
	// The legend, under the chart.
	x := left
	for _, s := range c.Series {
		fmt.Fprintf(&b, `<rect x="%d" y="%d" width="%d" height="4" fill="%s"/>`+"\n", x, height+8, swatchW, esc(s.Colour))
		fmt.Fprintf(&b, `<text x="%d" y="%d" font-size="%d" dominant-baseline="middle">%s</text>`+"\n", x+swatchW+4, height+10, labelSize, esc(s.Name))
		x += swatchW + 4 + 8*len([]rune(s.Name)) + legendGap
	}
	b.WriteString("</svg>\n")
	return b.String()
}

// num writes v with at most two decimals and no trailing zeros.
func num(v float64) string {
	return strconv.FormatFloat(math.Round(v*100)/100, 'f', -1, 64)
}
