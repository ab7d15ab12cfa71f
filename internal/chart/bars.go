package chart

import (
	"fmt"
	"html/template"
	"strconv"
	"strings"
	"sync"
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
	v := barsView{W: w, H: h, Title: c.Title, Top: top, AxisY: axisY, TickBottom: axisY + tickLen, TickLabelY: axisY + tickLen + 12,
		Left: labelW, Right: labelW + barW, MidX: labelW + barW/2, XLabelY: axisY + tickLen + 12 + labelSize + 6, XLabel: c.XLabel,
		LabelX: labelW - 6, LegendY: h - legend + 8, LegendTextY: h - legend + 10}
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
		for val := c.XMin; val <= c.XMax+c.XStep/1e6; val += c.XStep {
			v.Ticks = append(v.Ticks, xTick{X: num(xOf(val)), Label: num(val)})
		}
	}
	// The bars, each with its label and its value.
	for i, bar := range c.Bars {
		y := top + i*(barH+barGap) + barGap/2
		end := xOf(bar.Value)
		v.Bars = append(v.Bars, barView{Y: y + barH/2, Top: y, Width: num(end - float64(labelW)), Colour: bar.Colour, Label: bar.Label,
			Value: num(bar.Value), ValueX: num(end + valueGap), Shown: fmt.Sprintf("%.2f", bar.Value)})
	}
	// The legend, under the chart.
	x := labelW
	for _, s := range c.Legend {
		v.Legend = append(v.Legend, legendEntry{X: x, TextX: x + swatchW + 4, Colour: s.Colour, Name: s.Name})
		x += swatchW + 4 + 8*len([]rune(s.Name)) + legendGap
	}
	var b strings.Builder
	if err := barsTemplate().Execute(&b, v); err != nil {
		// The template is the package's and its data plain values: it
		// cannot fail but by a mistake here, which the tests catch.
		panic(fmt.Sprintf("chart: %v", err))
	}
	return b.String()
}

// barsView is what barsTemplate draws: every position already counted,
// every number already written.
type barsView struct {
	W, H, Top, AxisY, TickBottom, TickLabelY int
	Left, Right, MidX, XLabelY, LabelX       int
	LegendY, LegendTextY                     int
	Title, XLabel                            string
	Ticks                                    []xTick
	Bars                                     []barView
	Legend                                   []legendEntry
}

// barView is one bar: the middle of its row and its top, its length, and
// its texts.
type barView struct {
	Y, Top                                     int
	Width, Colour, Label, Value, ValueX, Shown string
}

// barsTemplate draws a bar chart; html/template escapes its texts.
var barsTemplate = sync.OnceValue(func() *template.Template {
	return template.Must(template.New("bars").Parse(
		`<svg xmlns="http://www.w3.org/2000/svg" width="{{.W}}" height="{{.H}}" viewBox="0 0 {{.W}} {{.H}}" role="img" font-family="system-ui,sans-serif">` + "\n" +
			`<title>{{.Title}}</title>` + "\n" +
			`{{range .Ticks}}<line x1="{{.X}}" y1="{{$.Top}}" x2="{{.X}}" y2="{{$.AxisY}}" stroke="` + gridColour + `"/>` + "\n" +
			`<line x1="{{.X}}" y1="{{$.AxisY}}" x2="{{.X}}" y2="{{$.TickBottom}}" stroke="` + axisColour + `"/>` + "\n" +
			`<text x="{{.X}}" y="{{$.TickLabelY}}" font-size="` + strconv.Itoa(tickSz) + `" text-anchor="middle">{{.Label}}</text>` + "\n" + `{{end}}` +
			`<line x1="{{.Left}}" y1="{{.AxisY}}" x2="{{.Right}}" y2="{{.AxisY}}" stroke="` + axisColour + `"/>` + "\n" +
			`<text x="{{.MidX}}" y="{{.XLabelY}}" font-size="` + strconv.Itoa(labelSize) + `" text-anchor="middle">{{.XLabel}}</text>` + "\n" +
			`{{range .Bars}}<text x="{{$.LabelX}}" y="{{.Y}}" font-size="` + strconv.Itoa(tickSz+1) + `" text-anchor="end" dominant-baseline="middle">{{.Label}}</text>` + "\n" +
			`<rect x="{{$.Left}}" y="{{.Top}}" width="{{.Width}}" height="` + strconv.Itoa(barH) + `" fill="{{.Colour}}"><title>{{.Label}}: {{.Value}}</title></rect>` + "\n" +
			`<text x="{{.ValueX}}" y="{{.Y}}" font-size="` + strconv.Itoa(tickSz) + `" dominant-baseline="middle">{{.Shown}}</text>` + "\n" + `{{end}}` +
			`{{range .Legend}}<rect x="{{.X}}" y="{{$.LegendY}}" width="` + strconv.Itoa(swatchW) + `" height="4" fill="{{.Colour}}"/>` + "\n" +
			`<text x="{{.TextX}}" y="{{$.LegendTextY}}" font-size="` + strconv.Itoa(labelSize) + `" dominant-baseline="middle">{{.Name}}</text>` + "\n" + `{{end}}` +
			`</svg>` + "\n"))
})
