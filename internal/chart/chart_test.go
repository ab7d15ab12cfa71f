package chart

import (
	"encoding/xml"
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

func TestLines(t *testing.T) {
	c := Lines{Title: "Running <scores>", XLabel: "after turn", YLabel: "running score", X: []string{"1", "2", "3"},
		YMin: 0, YMax: 10, YStep: 5, Series: []Series{
			{Name: "Ada & co", Colour: "#c33", Values: []float64{6, 7, 8}},
			{Name: "Brook", Colour: "#36c", Values: []float64{math.NaN(), 5, 9}},
		}}
	svg := c.SVG()
	// It is well-formed XML: every name is escaped.
	if err := xml.Unmarshal([]byte(svg), new(struct{})); err != nil {
		t.Fatalf("not well-formed: %v\n%s", err, svg)
	}
	for _, want := range []string{
		">after turn</text>", ">running score</text>", // both axes are labelled
		">0</text>", ">5</text>", ">10</text>", // the y ticks with their values
		">1</text>", ">2</text>", ">3</text>", // a tick per turn
		"<title>Running &lt;scores&gt;</title>",
		"Ada &amp; co", "Brook",
	} {
		if !strings.Contains(svg, want) {
			t.Errorf("the chart lacks %q:\n%s", want, svg)
		}
	}
	// Brook has no score at turn 1: the line starts at turn 2, with two
	// points, not at a 0 nobody gave.
	for _, line := range strings.Split(svg, "\n") {
		if strings.Contains(line, "<title>Brook</title>") {
			if n := strings.Count(line, ","); n != 2 {
				t.Errorf("Brook's line has %d points, want 2: %s", n, line)
			}
		}
	}
	if strings.Count(svg, "<circle") != 5 {
		t.Errorf("want a dot at each of the 5 scores:\n%s", svg)
	}
}

func TestBars(t *testing.T) {
	c := Bars{Title: "Statement <totals>", XLabel: "weighted total (0 to 10)", XMin: 0, XMax: 10, XStep: 2,
		Bars: []Bar{
			{Label: "001 Ada & co, opening", Value: 7.3, Colour: "#3b6ea5"},
			{Label: "002 Brook, opening", Value: 12, Colour: "#b5563c"},
		},
		Legend: []Series{{Name: "Ada & co", Colour: "#3b6ea5"}, {Name: "Brook", Colour: "#b5563c"}}}
	svg := c.SVG()
	if err := xml.Unmarshal([]byte(svg), new(struct{})); err != nil {
		t.Fatalf("not well-formed: %v\n%s", err, svg)
	}
	for _, want := range []string{
		">weighted total (0 to 10)</text>",                               // the axis is labelled
		">0</text>", ">2</text>", ">4</text>", ">6</text>", ">10</text>", // a tick at each step with its value
		">001 Ada &amp; co, opening</text>", ">7.30</text>", // each bar's label and value
		"<title>Statement &lt;totals&gt;</title>",
	} {
		if !strings.Contains(svg, want) {
			t.Errorf("the chart lacks %q:\n%s", want, svg)
		}
	}
	// A value past the axis is drawn to its end, not beyond: 10 points
	// are the 360 pixels of the axis.
	if !strings.Contains(svg, `width="360" height="14" fill="#b5563c"`) {
		t.Errorf("the bar past the axis is not cut at its end:\n%s", svg)
	}
	if strings.Count(svg, "<rect") != 4 {
		t.Errorf("want two bars and two legend swatches:\n%s", svg)
	}
}

func TestLinesOfMany(t *testing.T) {
	c := Lines{Title: "Margin", XLabel: "exchange", YLabel: "margin", YMin: -2, YMax: 2, YStep: 1, Zero: true,
		Format: func(v float64) string { return fmt.Sprintf("%+.2f", v) },
		Above:  Note{Text: "↑ A ahead", Colour: "#2e7d32"}, Below: Note{Text: "↓ B ahead", Colour: "#c62828"}}
	s := Series{Name: "margin", Colour: "#424a53"}
	for i := range 120 {
		c.X = append(c.X, strconv.Itoa(i))
		s.Values = append(s.Values, float64(i%5-2))
		s.Marks = append(s.Marks, Mark{Colour: "#111", Title: Own("exchange " + strconv.Itoa(i))})
	}
	c.Series = []Series{s}
	svg := c.SVG()
	if err := xml.Unmarshal([]byte(svg), new(struct{})); err != nil {
		t.Fatalf("not well-formed: %v\n%s", err, svg)
	}
	for _, want := range []string{">+0.00</text>", ">-2.00</text>", ">↑ A ahead</text>", ">↓ B ahead</text>", ">0</text>", ">119</text>"} {
		if !strings.Contains(svg, want) {
			t.Errorf("the chart lacks %q", want)
		}
	}
	// 120 points: a label every few, the last among them, and no dots.
	if strings.Contains(svg, ">1</text>") || strings.Count(svg, "<circle") != 0 {
		t.Errorf("120 points should be labelled every few and have no dots:\n%s", svg)
	}
	// The zero line is drawn darker than the grid.
	if !regexp.MustCompile(`<line x1="\d+" y1="(\d+(\.\d+)?)" x2="\d+" y2="(\d+(\.\d+)?)" stroke="` + axisColour + `"/>\n<line [^\n]*\n<text [^>]*>\+0\.00<`).MatchString(svg) {
		t.Errorf("the zero line is not darker than the grid:\n%.2000s", svg)
	}
	// The widest value, "+0.00", pushes the plot right so that the y
	// axis's label does not run into the values.
	if !strings.Contains(svg, `<line x1="59" y1="16" x2="59"`) {
		t.Errorf("the y axis is not right of the values:\n%.1500s", svg)
	}
	// A few points: a dot at each, in its mark's colour, with its title.
	c.X, c.Series[0].Values, c.Series[0].Marks = c.X[:3], s.Values[:3], s.Marks[:3]
	if svg := c.SVG(); strings.Count(svg, `fill="#111"><title>exchange `) != 3 {
		t.Errorf("want three dots with their marks:\n%s", svg)
	}
}

// TestOwnTextKeepsItsSign checks that the numbers a chart writes and the
// Own tooltips of its dots keep a plain '+', while a series's name, which
// may come from a debate, is escaped and never markup.
func TestOwnTextKeepsItsSign(t *testing.T) {
	c := Lines{Title: "Margin", XLabel: "exchange", YLabel: "margin", X: []string{"0", "1"}, YMin: -1, YMax: 1, YStep: 1,
		Format: func(v float64) string { return fmt.Sprintf("%+.2f", v) },
		Series: []Series{{Name: "a+b <i>c</i>", Colour: "#111", Values: []float64{0.5, -0.5},
			Marks: []Mark{{Colour: "#222", Title: "exchange 0: ahead (+0.50 to -0.00) & <level>"}}}}}
	svg := c.SVG()
	for _, want := range []string{">+1.00</text>", "<title>exchange 0: ahead (+0.50 to -0.00) &amp; &lt;level&gt;</title>"} {
		if !strings.Contains(svg, want) {
			t.Errorf("the chart has no %q:\n%s", want, svg)
		}
	}
	if strings.Contains(svg, "<i>") {
		t.Errorf("a series's name reached the chart as markup:\n%s", svg)
	}
	var text strings.Builder
	dec := xml.NewDecoder(strings.NewReader(svg))
	for {
		tok, err := dec.Token()
		if err != nil {
			break
		}
		if cd, ok := tok.(xml.CharData); ok {
			text.Write(cd)
		}
	}
	if !strings.Contains(text.String(), "a+b <i>c</i>") {
		t.Errorf("the chart's text lacks the series's name as written:\n%s", text.String())
	}
}
