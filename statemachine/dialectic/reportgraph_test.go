package dialectic_test

import (
	"encoding/xml"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/moot-dev/moot/statemachine/dialectic"
)

// maxFigureWidth is the widest a drawing in report.html may be.
const maxFigureWidth = 1200.0

// charWidth is a generous estimate of the width of a character, as a share
// of the font size: the page's sans-serif fonts average about 0.5.
const charWidth = 0.6

// box is a rectangle in SVG user units.
type box struct {
	x0, y0, x1, y1 float64
	what           string
}

func (a box) overlaps(b box) bool {
	return a.x0 < b.x1 && b.x0 < a.x1 && a.y0 < b.y1 && b.y0 < a.y1
}

func (a box) inside(b box) bool {
	return a.x0 >= b.x0 && a.x1 <= b.x1 && a.y0 >= b.y0 && a.y1 <= b.y1
}

// svgNode is an element of an SVG drawing with what these tests read.
type svgNode struct {
	XMLName  xml.Name
	Attrs    []xml.Attr `xml:",any,attr"`
	Children []svgNode  `xml:",any"`
	Text     string     `xml:",chardata"`
}

func (n svgNode) attr(name string) string {
	for _, a := range n.Attrs {
		if a.Name.Local == name {
			return a.Value
		}
	}
	return ""
}

func (n svgNode) num(t *testing.T, name string) float64 {
	t.Helper()
	v, err := strconv.ParseFloat(n.attr(name), 64)
	if err != nil {
		t.Fatalf("<%s %s=%q>: %v", n.XMLName.Local, name, n.attr(name), err)
	}
	return v
}

// textBox is where a <text> of the given font size draws, estimated from
// its length.
func textBox(t *testing.T, n svgNode, size float64, what string) box {
	t.Helper()
	x, y := n.num(t, "x"), n.num(t, "y")
	w := charWidth * size * float64(len([]rune(svgTextOf(n))))
	switch n.attr("text-anchor") {
	case "end":
		x -= w
	case "middle":
		x -= w / 2
	}
	return box{x, y - 0.8*size, x + w, y + 0.2*size, what + " " + strconv.Quote(svgTextOf(n))}
}

func svgTextOf(n svgNode) string {
	s := n.Text
	for _, c := range n.Children {
		if c.XMLName.Local != "title" {
			s += svgTextOf(c)
		}
	}
	return strings.Join(strings.Fields(s), " ")
}

var svgElement = regexp.MustCompile(`(?s)<svg .*?</svg>`)

// pageSVGs returns the drawings in report.html.
func pageSVGs(t *testing.T, page []byte) []svgNode {
	t.Helper()
	var out []svgNode
	for _, src := range svgElement.FindAll(page, -1) {
		var n svgNode
		if err := xml.Unmarshal(src, &n); err != nil {
			t.Fatalf("an <svg> in report.html does not parse: %v", err)
		}
		out = append(out, n)
	}
	return out
}

func reportOf(t *testing.T, exchanges int) []byte {
	t.Helper()
	deb, err := dialectic.Load(genDebate(t, exchanges))
	if err != nil {
		t.Fatal(err)
	}
	page, err := dialectic.Build(deb, nil).HTML()
	if err != nil {
		t.Fatal(err)
	}
	return page
}

// TestFiguresFitThePage checks that no drawing in report.html is wider than
// maxFigureWidth, by its width attribute and by its viewBox, however long
// the debate.
func TestFiguresFitThePage(t *testing.T) {
	for _, n := range []int{1, 4, 27, 50} {
		t.Run(fmt.Sprintf("%d exchanges", n), func(t *testing.T) {
			svgs := pageSVGs(t, reportOf(t, n))
			if len(svgs) != 2 {
				t.Fatalf("%d drawings, want the trajectory and the graph", len(svgs))
			}
			// The page's column: main's max-width less its side padding.
			m := regexp.MustCompile(`main \{ max-width: (\d+)px; margin: [^;]*; padding: \d+px (\d+)px`).FindSubmatch(reportOf(t, 1))
			if m == nil {
				t.Fatal("the page's CSS no longer sets main's width as this test reads it")
			}
			maxW, _ := strconv.Atoi(string(m[1]))
			pad, _ := strconv.Atoi(string(m[2]))
			column := float64(maxW - 2*pad)
			for _, s := range svgs {
				if strings.Contains(s.attr("class"), "graph") && s.num(t, "width") > column {
					t.Errorf("the graph is %g wide, wider than the page's column (%g)", s.num(t, "width"), column)
				}
				vb := strings.Fields(s.attr("viewBox"))
				if len(vb) != 4 {
					t.Fatalf("%s: viewBox %q", s.attr("class"), s.attr("viewBox"))
				}
				vw, err := strconv.ParseFloat(vb[2], 64)
				if err != nil {
					t.Fatal(err)
				}
				if w := s.num(t, "width"); w > maxFigureWidth || vw > maxFigureWidth {
					t.Errorf("%s is %g wide (viewBox %g), more than %g", s.attr("class"), w, vw, maxFigureWidth)
				}
			}
		})
	}
}

// TestGraphReads checks that the argument graph of a long debate can be
// read: no text smaller than 11 px, node boxes apart, each node's text
// inside its box, every attack and defence labelled with its type in
// visible text, and no label or exchange name over another or over a node.
func TestGraphReads(t *testing.T) {
	for _, n := range []int{4, 27} {
		t.Run(fmt.Sprintf("%d exchanges", n), func(t *testing.T) {
			page := reportOf(t, n)
			if !regexp.MustCompile(`svg\.chart \{[^}]*font: 12px`).Match(page) {
				t.Fatal("the drawings' font is no longer 12px; this test assumes it")
			}
			var graph svgNode
			for _, s := range pageSVGs(t, page) {
				if strings.Contains(s.attr("class"), "graph") {
					graph = s
				}
			}
			var nodes, labels []box
			var edgeTypes, labelTexts []string
			var walk func(n svgNode, size float64)
			walk = func(n svgNode, size float64) {
				if fs := n.attr("font-size"); fs != "" {
					size = n.num(t, "font-size")
				}
				switch {
				case n.XMLName.Local == "text" && size < 11:
					t.Errorf("text %q is %g px", svgTextOf(n), size)
				case n.attr("class") == "node":
					var rect box
					for _, c := range n.Children {
						if c.XMLName.Local == "rect" {
							x, y := c.num(t, "x"), c.num(t, "y")
							rect = box{x, y, x + c.num(t, "width"), y + c.num(t, "height"), "node " + svgTextOf(n)}
						}
					}
					for _, c := range n.Children {
						if c.XMLName.Local == "text" {
							if tb := textBox(t, c, size, "node text"); !tb.inside(box{rect.x0 + 4, rect.y0, rect.x1 - 4, rect.y1, ""}) {
								t.Errorf("%s does not fit in its box %v", tb.what, rect)
							}
						}
					}
					nodes = append(nodes, rect)
				case n.XMLName.Local == "path" && n.attr("marker-end") != "":
					// The tooltip ends with the type in brackets.
					title := ""
					for _, c := range n.Children {
						if c.XMLName.Local == "title" {
							title = c.Text
						}
					}
					i := strings.LastIndex(title, "(")
					edgeTypes = append(edgeTypes, strings.TrimSuffix(title[i+1:], ")"))
				case n.attr("class") == "exchange":
					// Exchange names must not meet labels or nodes either.
					labels = append(labels, textBox(t, n, size, "exchange name"))
				case n.attr("class") == "edge-label":
					labels = append(labels, textBox(t, n, size, "label"))
					labelTexts = append(labelTexts, svgTextOf(n))
				}
				for _, c := range n.Children {
					walk(c, size)
				}
			}
			walk(graph, 12)

			if len(edgeTypes) == 0 {
				t.Fatal("the graph has no edges")
			}
			if strings.Join(labelTexts, "|") != strings.Join(edgeTypes, "|") {
				t.Errorf("the edges' visible labels are not their types:\nlabels %q\ntypes  %q", labelTexts, edgeTypes)
			}
			for i := range nodes {
				for j := i + 1; j < len(nodes); j++ {
					if nodes[i].overlaps(nodes[j]) {
						t.Errorf("%s overlaps %s", nodes[i].what, nodes[j].what)
					}
				}
			}
			for i, l := range labels {
				for j := i + 1; j < len(labels); j++ {
					if l.overlaps(labels[j]) {
						t.Errorf("%s at %v overlaps %s at %v", l.what, l, labels[j].what, labels[j])
					}
				}
				for _, nb := range nodes {
					if l.overlaps(nb) {
						t.Errorf("%s overlaps %s", l.what, nb.what)
					}
				}
				if l.x0 < 0 || l.x1 > dialectic.GraphWidth {
					t.Errorf("%s is cut at the graph's edge: %v", l.what, l)
				}
			}
		})
	}
}
