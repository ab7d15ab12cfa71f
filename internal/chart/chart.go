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
}

const (
	width, height      = 520, 240
	left, right        = 48, 16
	top, bottom        = 16, 44
	plotW, plotH       = width - left - right, height - top - bottom
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
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" role="img" font-family="system-ui,sans-serif">`+"\n",
		width, height+legend, width, height+legend)
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
			return left + plotW/2
		}
		return left + float64(plotW)*float64(i)/float64(len(c.X)-1)
	}
	// The y axis: a grid line and a tick with its value at each step.
	if c.YStep > 0 {
		for v := c.YMin; v <= c.YMax+c.YStep/1e6; v += c.YStep {
			y := yOf(v)
			fmt.Fprintf(&b, `<line x1="%d" y1="%s" x2="%d" y2="%s" stroke="%s"/>`+"\n", left, num(y), left+plotW, num(y), gridColour)
			fmt.Fprintf(&b, `<line x1="%d" y1="%s" x2="%d" y2="%s" stroke="%s"/>`+"\n", left-tickLen, num(y), left, num(y), axisColour)
			fmt.Fprintf(&b, `<text x="%d" y="%s" font-size="%d" text-anchor="end" dominant-baseline="middle">%s</text>`+"\n", left-tickLen-3, num(y), tickSz, esc(num(v)))
		}
	}
	fmt.Fprintf(&b, `<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="%s"/>`+"\n", left, top, left, top+plotH, axisColour)
	fmt.Fprintf(&b, `<text x="12" y="%d" font-size="%d" text-anchor="middle" transform="rotate(-90 12 %d)">%s</text>`+"\n", top+plotH/2, labelSize, top+plotH/2, esc(c.YLabel))
	// The x axis: a tick and its label at each point.
	fmt.Fprintf(&b, `<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="%s"/>`+"\n", left, top+plotH, left+plotW, top+plotH, axisColour)
	for i, label := range c.X {
		x := xOf(i)
		fmt.Fprintf(&b, `<line x1="%s" y1="%d" x2="%s" y2="%d" stroke="%s"/>`+"\n", num(x), top+plotH, num(x), top+plotH+tickLen, axisColour)
		fmt.Fprintf(&b, `<text x="%s" y="%d" font-size="%d" text-anchor="middle">%s</text>`+"\n", num(x), top+plotH+tickLen+12, tickSz, esc(label))
	}
	fmt.Fprintf(&b, `<text x="%d" y="%d" font-size="%d" text-anchor="middle">%s</text>`+"\n", left+plotW/2, height-6, labelSize, esc(c.XLabel))
	// The lines, each from its first value on, and a dot at each value.
	for _, s := range c.Series {
		var pts []string
		for i, v := range s.Values {
			if i >= len(c.X) || math.IsNaN(v) {
				continue
			}
			pts = append(pts, num(xOf(i))+","+num(yOf(v)))
		}
		if len(pts) == 0 {
			continue
		}
		fmt.Fprintf(&b, `<polyline fill="none" stroke="%s" stroke-width="2" points="%s"><title>%s</title></polyline>`+"\n", esc(s.Colour), strings.Join(pts, " "), esc(s.Name))
		for _, p := range pts {
			x, y, _ := strings.Cut(p, ",")
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
