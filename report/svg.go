package report

import (
	"fmt"
	"html"
	"math"
	"strconv"
	"strings"

	sm "github.com/moot-dev/moot/statemachine"
)

// Colours of the drawings, shared with the page's CSS.
const (
	propColour    = "#2e7d32"
	oppColour     = "#c62828"
	propFill      = "#e8f5e9"
	oppFill       = "#ffebee"
	attackColour  = "#ef6c00"
	defenceColour = "#1e88e5"
	marginColour  = "#424a53"
)

// svgText escapes debate text for an SVG text node or attribute.
func svgText(s string) string { return html.EscapeString(fold(s)) }

// f writes a coordinate with at most one decimal.
func f(x float64) string { return strconv.FormatFloat(math.Round(x*10)/10, 'f', -1, 64) }

// niceStep picks a grid step that gives at most about eight lines over span.
func niceStep(span float64) float64 {
	for _, s := range []float64{0.1, 0.25, 0.5, 1, 2, 2.5, 5, 10, 25, 50, 100, 250, 500, 1000} {
		if span/s <= 8 {
			return s
		}
	}
	return math.Pow(10, math.Ceil(math.Log10(span/8)))
}

// TrajectorySVG draws the margin after each exchange (the proposition's
// total minus the opposition's) as one line: exchanges left to right, above
// the zero line the proposition leads, below it the opposition. Each point
// is coloured by the side ahead and its tooltip gives both totals.
func TrajectorySVG(tr []Point) string {
	const (
		width, height            = 800.0, 320.0
		left, right, top, bottom = 56.0, 20.0, 40.0, 44.0
	)
	plotW, plotH := width-left-right, height-top-bottom
	lo, hi := 0.0, 0.0
	for _, p := range tr {
		lo, hi = math.Min(lo, p.Margin()), math.Max(hi, p.Margin())
	}
	step := niceStep(math.Max(hi-lo, 0.5))
	lo, hi = math.Floor(lo/step)*step, math.Ceil(hi/step)*step
	if hi-lo < step {
		lo, hi = lo-step, hi+step
	}
	n := len(tr)
	x := func(i int) float64 {
		if n <= 1 {
			return left + plotW/2
		}
		return left + float64(i)*plotW/float64(n-1)
	}
	y := func(v float64) float64 { return top + (hi-v)/(hi-lo)*plotH }

	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" class="chart trajectory" viewBox="0 0 %s %s" width="%s" height="%s" role="img" aria-label="Margin after each exchange: the proposition's total minus the opposition's">`,
		f(width), f(height), f(width), f(height))
	b.WriteString("\n")
	// Grid and axes.
	for v := lo; v <= hi+step/2; v += step {
		v = math.Round(v/step) * step
		cls := "grid"
		if math.Abs(v) < step/2 {
			cls = "zero"
		}
		fmt.Fprintf(&b, `<line class="%s" x1="%s" y1="%s" x2="%s" y2="%s"/>`, cls, f(left), f(y(v)), f(width-right), f(y(v)))
		fmt.Fprintf(&b, `<text class="tick" x="%s" y="%s" text-anchor="end">%s</text>`+"\n", f(left-6), f(y(v)+4), html.EscapeString(sm.FormatScore(v)))
	}
	every := max(1, (n+19)/20)
	for i, p := range tr {
		if i%every == 0 || i == n-1 {
			fmt.Fprintf(&b, `<text class="tick" x="%s" y="%s" text-anchor="middle">%d</text>`, f(x(i)), f(height-bottom+16), p.Exchange)
		}
	}
	fmt.Fprintf(&b, `<text class="axis" x="%s" y="%s" text-anchor="middle">exchange</text>`+"\n", f(left+plotW/2), f(height-8))
	// What above and below the zero line mean.
	fmt.Fprintf(&b, `<text class="legend" x="%s" y="20">margin: proposition total minus opposition total</text>`, f(left))
	fmt.Fprintf(&b, `<text class="region" x="%s" y="%s" text-anchor="end" fill="%s">↑ proposition ahead</text>`, f(width-right-4), f(top+14), propColour)
	fmt.Fprintf(&b, `<text class="region" x="%s" y="%s" text-anchor="end" fill="%s">↓ opposition ahead</text>`+"\n", f(width-right-4), f(top+plotH-6), oppColour)
	// The line and its points.
	pts := make([]string, n)
	for i, p := range tr {
		pts[i] = f(x(i)) + "," + f(y(p.Margin()))
	}
	fmt.Fprintf(&b, `<polyline class="margin" fill="none" stroke="%s" stroke-width="2.5" stroke-linejoin="round" points="%s"/>`+"\n", marginColour, strings.Join(pts, " "))
	if n <= 60 {
		for i, p := range tr {
			m := p.Margin()
			c, lead := marginColour, "the sides are level"
			switch {
			case m > 0:
				c, lead = propColour, "the proposition leads by "+points(m)
			case m < 0:
				c, lead = oppColour, "the opposition leads by "+points(m)
			}
			fmt.Fprintf(&b, `<circle cx="%s" cy="%s" r="4" fill="%s"><title>exchange %d: %s (%s to %s)</title></circle>`+"\n",
				f(x(i)), f(y(m)), c, p.Exchange, lead, html.EscapeString(sm.FormatScore(p.Prop)), html.EscapeString(sm.FormatScore(p.Opp)))
		}
	}
	b.WriteString("</svg>\n")
	return b.String()
}

// GraphSVG draws the argument graph: exchanges left to right (the three
// openings of each side side by side), the proposition's lane above the
// opposition's, attacks as orange curves between the lanes and defences as
// blue arcs outside them, a concession dashed.
func GraphSVG(an *Analysis) string {
	const (
		nodeW, nodeH = 168.0, 64.0
		colW         = 188.0
		left, top    = 40.0, 112.0
		laneGap      = 120.0
		arcRoom      = 80.0
	)
	// Columns: the openings take one each, every later exchange one.
	col := func(a *Arg) int {
		if sm.Opening(a.Exchange) {
			if id, err := sm.ParseID(a.ID); err == nil && id.Letter >= 'a' {
				return int(id.Letter - 'a')
			}
			return 0
		}
		return a.Exchange + 2
	}
	cols := 0
	for _, a := range an.Args {
		cols = max(cols, col(a)+1)
	}
	cols = max(cols, 1)
	width := left + float64(cols)*colW + 20
	propY := top
	oppY := top + nodeH + laneGap
	height := oppY + nodeH + arcRoom
	nodeX := func(a *Arg) float64 { return left + float64(col(a))*colW }
	nodeY := func(a *Arg) float64 {
		if a.Side == sm.Opp {
			return oppY
		}
		return propY
	}

	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" class="chart graph" viewBox="0 0 %s %s" width="%s" height="%s" role="img" aria-label="Argument graph: attacks and defences between the arguments of each exchange">`,
		f(width), f(height), f(width), f(height))
	b.WriteString("\n<defs>")
	for _, m := range []struct{ id, c string }{{"arrow-attack", attackColour}, {"arrow-defence", defenceColour}} {
		fmt.Fprintf(&b, `<marker id="%s" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z" fill="%s"/></marker>`, m.id, m.c)
	}
	b.WriteString("</defs>\n")
	// Legend and lane names.
	fmt.Fprintf(&b, `<g class="legend"><line x1="%s" y1="14" x2="%s" y2="14" stroke="%s" stroke-width="2"/><text x="%s" y="18">attack</text>`,
		f(left), f(left+28), attackColour, f(left+34))
	fmt.Fprintf(&b, `<line x1="%s" y1="14" x2="%s" y2="14" stroke="%s" stroke-width="2"/><text x="%s" y="18">defence</text>`,
		f(left+100), f(left+128), defenceColour, f(left+134))
	fmt.Fprintf(&b, `<line x1="%s" y1="14" x2="%s" y2="14" stroke="%s" stroke-width="2" stroke-dasharray="5 4"/><text x="%s" y="18">concede and pivot</text></g>`+"\n",
		f(left+210), f(left+238), defenceColour, f(left+244))
	for _, lane := range []struct {
		name string
		y    float64
		c    string
	}{{"proposition", propY, propColour}, {"opposition", oppY, oppColour}} {
		cy := lane.y + nodeH/2
		fmt.Fprintf(&b, `<text class="lane" x="18" y="%s" fill="%s" text-anchor="middle" transform="rotate(-90 18 %s)">%s</text>`+"\n", f(cy), lane.c, f(cy), lane.name)
	}
	// Exchange labels.
	labelled := map[int]bool{}
	for _, a := range an.Args {
		if labelled[a.Exchange] {
			continue
		}
		labelled[a.Exchange] = true
		x := nodeX(a) + nodeW/2
		if sm.Opening(a.Exchange) {
			x = left + 1.5*colW - (colW-nodeW)/2
		}
		fmt.Fprintf(&b, `<text class="exchange" x="%s" y="40" text-anchor="middle">exchange %d</text>`+"\n", f(x), a.Exchange)
	}

	// Edges first, so that nodes sit on top of them. Each end of an edge
	// gets its own point along the node's side, so that edges meeting at
	// one node do not overlap.
	ends := map[string]int{}
	slot := func(id string, face string) float64 {
		k := ends[id+face]
		ends[id+face]++
		offsets := []float64{0, -30, 30, -60, 60, -15, 15, -45, 45}
		return offsets[k%len(offsets)]
	}
	b.WriteString(`<g class="edges">` + "\n")
	for _, from := range an.Args {
		for _, kind := range []struct {
			links  []Link
			attack bool
		}{{linksOf(from, true), true}, {linksOf(from, false), false}} {
			for _, l := range kind.links {
				to, ok := an.byID[l.To]
				if !ok {
					continue
				}
				sx, tx := nodeX(from)+nodeW/2, nodeX(to)+nodeW/2
				var d string
				colour, marker, dash := attackColour, "arrow-attack", ""
				if !kind.attack {
					colour, marker = defenceColour, "arrow-defence"
					if l.Type == "concede_and_pivot" {
						dash = ` stroke-dasharray="5 4"`
					}
				}
				switch {
				case from.Side != to.Side:
					// Between the lanes: leave from the face towards the
					// other lane, arrive on the target's face towards it.
					var sy, ty, dy float64
					if from.Side == sm.Prop {
						sy, ty, dy = propY+nodeH, oppY, laneGap/2
					} else {
						sy, ty, dy = oppY, propY+nodeH, -laneGap/2
					}
					sx += slot(from.ID, "in")
					tx += slot(to.ID, "in")
					d = fmt.Sprintf("M%s,%s C%s,%s %s,%s %s,%s", f(sx), f(sy), f(sx), f(sy+dy), f(tx), f(ty-dy), f(tx), f(ty))
				default:
					// Within a lane: an arc on the outer side.
					y0, dir := propY, -1.0
					if from.Side == sm.Opp {
						y0, dir = oppY+nodeH, 1.0
					}
					sx += slot(from.ID, "out")
					tx += slot(to.ID, "out")
					rise := math.Min(arcRoom-12, 24+math.Abs(sx-tx)/12)
					d = fmt.Sprintf("M%s,%s C%s,%s %s,%s %s,%s", f(sx), f(y0), f(sx), f(y0+dir*rise), f(tx), f(y0+dir*rise), f(tx), f(y0))
				}
				verb := "attacks"
				if !kind.attack {
					verb = "defends"
				}
				fmt.Fprintf(&b, `<path d="%s" fill="none" stroke="%s" stroke-width="1.8"%s marker-end="url(#%s)"><title>%s %s %s (%s)</title></path>`+"\n",
					d, colour, dash, marker, html.EscapeString(from.ID), verb, html.EscapeString(to.ID), svgText(typeName(l.Type)))
			}
		}
	}
	b.WriteString("</g>\n")

	// Nodes.
	for _, a := range an.Args {
		x, y := nodeX(a), nodeY(a)
		stroke, fill := propColour, propFill
		if a.Side == sm.Opp {
			stroke, fill = oppColour, oppFill
		}
		tip := a.ID + ": " + titleOf(a)
		if c := fold(a.Claim); c != "" {
			tip += " — " + c
		}
		fmt.Fprintf(&b, `<g class="node"><title>%s</title><rect x="%s" y="%s" width="%s" height="%s" rx="6" fill="%s" stroke="%s" stroke-width="1.5"/>`,
			svgText(tip), f(x), f(y), f(nodeW), f(nodeH), fill, stroke)
		fmt.Fprintf(&b, `<text x="%s" y="%s" class="node-id">%s <tspan fill="%s">%s</tspan></text>`,
			f(x+8), f(y+17), html.EscapeString(a.ID), stroke, html.EscapeString(scoreOf(a)))
		for i, line := range wrap(titleOf(a), 27, 2) {
			fmt.Fprintf(&b, `<text x="%s" y="%s" class="node-title">%s</text>`, f(x+8), f(y+35+float64(i)*15), svgText(line))
		}
		b.WriteString("</g>\n")
	}
	b.WriteString("</svg>\n")
	return b.String()
}

func linksOf(a *Arg, attacks bool) []Link {
	src := a.Defends
	if attacks {
		src = a.Attacks
	}
	out := make([]Link, len(src))
	for i, t := range src {
		out[i] = Link{From: a.ID, To: t.TargetID, Type: t.Type, Exchange: a.Exchange}
	}
	return out
}

// wrap breaks s into at most lines lines of at most width runes; what
// does not fit is cut and marked with an ellipsis.
func wrap(s string, width, lines int) []string {
	var all []string
	cur := ""
	for _, w := range strings.Fields(s) {
		if cur != "" && len([]rune(cur))+1+len([]rune(w)) > width {
			all = append(all, cur)
			cur = ""
		}
		if cur == "" {
			cur = w
		} else {
			cur += " " + w
		}
	}
	if cur != "" {
		all = append(all, cur)
	}
	cut := len(all) > lines
	if cut {
		all = all[:lines]
	}
	for i := range all {
		all[i] = truncate(all[i], width)
	}
	if cut {
		all[lines-1] = strings.TrimSuffix(truncate(all[lines-1], width-1), "…") + "…"
	}
	return all
}
