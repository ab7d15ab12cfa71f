// Package chart draws the line charts of moot's HTML reports as inline
// SVG: labelled axes, ticks with their values, and a line per series that
// starts at its first value, with a legend. The charts of a page are drawn
// with html/template, which escapes every text they are given.
package chart

import (
	"fmt"
	"html"
	"html/template"
	"math"
	"strconv"
	"strings"
	"sync"
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
	Colour string
	Title  Own
}

// Own is a text moot writes itself, its own words and numbers, never a
// text of a debate: the chart escapes it as it does its numbers, keeping
// a sign such as the '+' of "+0.50" a plain character.
type Own string

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
	v := linesView{Class: c.Class, W: width, H: height + legend, Title: c.Title, Above: c.Above, Below: c.Below,
		Left: left, Right: left + plotW, Top: top, Bottom: top + plotH, MidX: left + plotW/2, MidY: top + plotH/2,
		TickLeft: left - tickLen, TickText: left - tickLen - 3, TickBottom: top + plotH + tickLen, TickLabelY: top + plotH + tickLen + 12,
		NoteX: left + plotW - 4, AboveY: top + 14, BelowY: top + plotH - 6, XLabelY: height - 6, YLabel: c.YLabel, XLabel: c.XLabel,
		LegendY: height + 8, LegendTextY: height + 10}
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
			val := c.YMin + float64(i)*c.YStep
			if val > c.YMax+c.YStep/1e6 {
				break
			}
			grid := gridColour
			if c.Zero && math.Abs(val) < c.YStep/1e6 {
				grid = axisColour
			}
			v.YTicks = append(v.YTicks, yTick{Y: num(yOf(val)), Grid: grid, Label: own(format(val))})
		}
	}
	// The x axis: a tick and its label at each point.
	n := len(c.X)
	every := max(1, (n+manyPoints/3-1)/(manyPoints/3))
	for i, label := range c.X {
		// Every few points when there are many, and the last, unless it
		// would crowd the one before.
		if (i%every != 0 || n-1-i < (every+1)/2) && i != n-1 {
			continue
		}
		v.XTicks = append(v.XTicks, xTick{X: num(xOf(i)), Label: label})
	}
	// The lines, each from its first value on, and a dot at each value.
	for _, s := range c.Series {
		var pts []string
		line := lineView{Colour: s.Colour, Name: s.Name}
		for i, val := range s.Values {
			if i >= len(c.X) || math.IsNaN(val) {
				continue
			}
			x, y := num(xOf(i)), num(yOf(val))
			pts = append(pts, x+","+y)
			d := dot{X: x, Y: y, Colour: s.Colour}
			if i < len(s.Marks) {
				d.Colour, d.Title, d.Titled = s.Marks[i].Colour, ownTitle(s.Marks[i].Title), true
			}
			line.Dots = append(line.Dots, d)
		}
		if len(pts) == 0 {
			continue
		}
		line.Points = strings.Join(pts, " ")
		if n > manyPoints {
			line.Dots = nil
		}
		v.Lines = append(v.Lines, line)
	}
	// The legend, under the chart.
	x := left
	for _, s := range c.Series {
		v.Legend = append(v.Legend, legendEntry{X: x, TextX: x + swatchW + 4, Colour: s.Colour, Name: s.Name})
		x += swatchW + 4 + 8*len([]rune(s.Name)) + legendGap
	}
	var b strings.Builder
	if err := linesTemplate().Execute(&b, v); err != nil {
		// The template is the package's and its data plain values: it
		// cannot fail but by a mistake here, which the tests catch.
		panic(fmt.Sprintf("chart: %v", err))
	}
	return b.String()
}

// own is a value the chart or its caller's Format wrote (such as
// "+0.50"), escaped here so that a sign stays a plain '+'
// rather than the entity html/template writes for one: never a text of a
// debate.
func own(s string) template.HTML { return template.HTML(html.EscapeString(s)) }

// ownTitle is the title element of an Own text. It is made here, not in
// the template, because html/template escapes a '+' inside a title
// element even in HTML it is given.
func ownTitle(s Own) template.HTML {
	return template.HTML("<title>" + html.EscapeString(string(s)) + "</title>")
}

// linesView is what linesTemplate draws: every position already counted,
// every number already written.
type linesView struct {
	Class, Title                               string
	W, H, Left, Right, Top, Bottom, MidX, MidY int
	TickLeft, TickText, TickBottom, TickLabelY int
	NoteX, AboveY, BelowY, XLabelY             int
	LegendY, LegendTextY                       int
	Above, Below                               Note
	YLabel, XLabel                             string
	YTicks                                     []yTick
	XTicks                                     []xTick
	Lines                                      []lineView
	Legend                                     []legendEntry
}

type yTick struct {
	Y, Grid string
	Label   template.HTML
}

type xTick struct{ X, Label string }

type lineView struct {
	Colour, Name, Points string
	Dots                 []dot
}

type dot struct {
	X, Y, Colour string
	Title        template.HTML
	Titled       bool
}

type legendEntry struct {
	X, TextX     int
	Colour, Name string
}

// linesTemplate draws a line chart; html/template escapes its texts.
var linesTemplate = sync.OnceValue(func() *template.Template {
	return template.Must(template.New("lines").Parse(
		`<svg xmlns="http://www.w3.org/2000/svg"{{if .Class}} class="{{.Class}}"{{end}} width="{{.W}}" height="{{.H}}" viewBox="0 0 {{.W}} {{.H}}" role="img" font-family="system-ui,sans-serif">` + "\n" +
			`<title>{{.Title}}</title>` + "\n" +
			`{{range .YTicks}}<line x1="{{$.Left}}" y1="{{.Y}}" x2="{{$.Right}}" y2="{{.Y}}" stroke="{{.Grid}}"/>` + "\n" +
			`<line x1="{{$.TickLeft}}" y1="{{.Y}}" x2="{{$.Left}}" y2="{{.Y}}" stroke="` + axisColour + `"/>` + "\n" +
			`<text x="{{$.TickText}}" y="{{.Y}}" font-size="` + strconv.Itoa(tickSz) + `" text-anchor="end" dominant-baseline="middle">{{.Label}}</text>` + "\n" + `{{end}}` +
			`{{with .Above}}{{if .Text}}<text x="{{$.NoteX}}" y="{{$.AboveY}}" font-size="` + strconv.Itoa(labelSize) + `" text-anchor="end" fill="{{.Colour}}">{{.Text}}</text>` + "\n" + `{{end}}{{end}}` +
			`{{with .Below}}{{if .Text}}<text x="{{$.NoteX}}" y="{{$.BelowY}}" font-size="` + strconv.Itoa(labelSize) + `" text-anchor="end" fill="{{.Colour}}">{{.Text}}</text>` + "\n" + `{{end}}{{end}}` +
			`<line x1="{{.Left}}" y1="{{.Top}}" x2="{{.Left}}" y2="{{.Bottom}}" stroke="` + axisColour + `"/>` + "\n" +
			`<text x="12" y="{{.MidY}}" font-size="` + strconv.Itoa(labelSize) + `" text-anchor="middle" transform="rotate(-90 12 {{.MidY}})">{{.YLabel}}</text>` + "\n" +
			`<line x1="{{.Left}}" y1="{{.Bottom}}" x2="{{.Right}}" y2="{{.Bottom}}" stroke="` + axisColour + `"/>` + "\n" +
			`{{range .XTicks}}<line x1="{{.X}}" y1="{{$.Bottom}}" x2="{{.X}}" y2="{{$.TickBottom}}" stroke="` + axisColour + `"/>` + "\n" +
			`<text x="{{.X}}" y="{{$.TickLabelY}}" font-size="` + strconv.Itoa(tickSz) + `" text-anchor="middle">{{.Label}}</text>` + "\n" + `{{end}}` +
			`<text x="{{.MidX}}" y="{{.XLabelY}}" font-size="` + strconv.Itoa(labelSize) + `" text-anchor="middle">{{.XLabel}}</text>` + "\n" +
			`{{range .Lines}}<polyline fill="none" stroke="{{.Colour}}" stroke-width="2" points="{{.Points}}"><title>{{.Name}}</title></polyline>` + "\n" +
			`{{range .Dots}}{{if .Titled}}<circle cx="{{.X}}" cy="{{.Y}}" r="3" fill="{{.Colour}}">{{.Title}}</circle>` + "\n" +
			`{{else}}<circle cx="{{.X}}" cy="{{.Y}}" r="3" fill="{{.Colour}}"/>` + "\n" + `{{end}}{{end}}{{end}}` +
			`{{range .Legend}}<rect x="{{.X}}" y="{{$.LegendY}}" width="` + strconv.Itoa(swatchW) + `" height="4" fill="{{.Colour}}"/>` + "\n" +
			`<text x="{{.TextX}}" y="{{$.LegendTextY}}" font-size="` + strconv.Itoa(labelSize) + `" dominant-baseline="middle">{{.Name}}</text>` + "\n" + `{{end}}` +
			`</svg>` + "\n"))
})

// num writes v with at most two decimals and no trailing zeros.
func num(v float64) string {
	return strconv.FormatFloat(math.Round(v*100)/100, 'f', -1, 64)
}
