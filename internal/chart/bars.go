package chart

import (
	"fmt"
	"html"
	"strings"
)

// Bar is one bar of a bar chart: its label, its value, and its colour.
type Bar struct {
	Label  string
	Value  float64
	Colour string
}

// Bars is a horizontal bar chart: a bar per item from the x axis's
// minimum, its label at its left and its value at its end, over a
// labelled x axis with ticks, and a legend of what the colours mean.
type Bars struct {
	// Title names the chart for screen readers (the SVG's title).
	Title string
	// XLabel names the x axis; XMin, XMax and XStep give its range and
	// its ticks.
	XLabel            string
	XMin, XMax, XStep float64
	Bars              []Bar
	// Legend names the colours: a Series's Values are not used.
	Legend []Series
}

const (
	barH, barGap   = 14, 6
	barW           = 360
	valueGap, barR = 4, 40
	// charW is about the width of a character of a bar's label.
	charW = 7
)

// SVG returns the chart as an inline SVG element.
func (c Bars) SVG() string {
	var b strings.Builder
	esc := html.EscapeString
	// The labels' column is as wide as the longest label.
	labelW := 60
	for _, bar := range c.Bars {
		labelW = max(labelW, charW*len([]rune(bar.Label))+12)
	}
	rows := len(c.Bars) * (barH + barGap)
	axisY := top + rows
	legend := 0
	if len(c.Legend) > 0 {
		legend = 22
	}
	w, h := labelW+barW+barR, axisY+tickLen+12+labelSize+12+legend
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" role="img" font-family="system-ui,sans-serif">`+"\n", w, h, w, h)
	fmt.Fprintf(&b, "<title>%s</title>\n", esc(c.Title))
	xOf := func(v float64) float64 {
		span := c.XMax - c.XMin
		if span <= 0 {
			span = 1
		}
		v = min(max(v, c.XMin), c.XMax)
		return float64(labelW) + (v-c.XMin)/span*barW
	}
	// The x axis: a grid line, a tick and its value at each step.
	if c.XStep > 0 {
		for v := c.XMin; v <= c.XMax+c.XStep/1e6; v += c.XStep {
			x := num(xOf(v))
			fmt.Fprintf(&b, `<line x1="%s" y1="%d" x2="%s" y2="%d" stroke="%s"/>`+"\n", x, top, x, axisY, gridColour)
			fmt.Fprintf(&b, `<line x1="%s" y1="%d" x2="%s" y2="%d" stroke="%s"/>`+"\n", x, axisY, x, axisY+tickLen, axisColour)
			fmt.Fprintf(&b, `<text x="%s" y="%d" font-size="%d" text-anchor="middle">%s</text>`+"\n", x, axisY+tickLen+12, tickSz, esc(num(v)))
		}
	}
	fmt.Fprintf(&b, `<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="%s"/>`+"\n", labelW, axisY, labelW+barW, axisY, axisColour)
	fmt.Fprintf(&b, `<text x="%d" y="%d" font-size="%d" text-anchor="middle">%s</text>`+"\n", labelW+barW/2, axisY+tickLen+12+labelSize+6, labelSize, esc(c.XLabel))
	// The bars, each with its label and its value.
	for i, bar := range c.Bars {
		y := top + i*(barH+barGap) + barGap/2
		end := xOf(bar.Value)
		fmt.Fprintf(&b, `<text x="%d" y="%d" font-size="%d" text-anchor="end" dominant-baseline="middle">%s</text>`+"\n", labelW-6, y+barH/2, tickSz+1, esc(bar.Label))
		fmt.Fprintf(&b, `<rect x="%d" y="%d" width="%s" height="%d" fill="%s"><title>%s: %s</title></rect>`+"\n", labelW, y, num(end-float64(labelW)), barH, esc(bar.Colour), esc(bar.Label), esc(num(bar.Value)))
		fmt.Fprintf(&b, `<text x="%s" y="%d" font-size="%d" dominant-baseline="middle">%s</text>`+"\n", num(end+valueGap), y+barH/2, tickSz, esc(fmt.Sprintf("%.2f", bar.Value)))
	}
	// The legend, under the chart.
	x := labelW
	for _, s := range c.Legend {
		fmt.Fprintf(&b, `<rect x="%d" y="%d" width="%d" height="4" fill="%s"/>`+"\n", x, h-legend+8, swatchW, esc(s.Colour))
		fmt.Fprintf(&b, `<text x="%d" y="%d" font-size="%d" dominant-baseline="middle">%s</text>`+"\n", x+swatchW+4, h-legend+10, labelSize, esc(s.Name))
		x += swatchW + 4 + 8*len([]rune(s.Name)) + legendGap
	}
	b.WriteString("</svg>\n")
	return b.String()
}
