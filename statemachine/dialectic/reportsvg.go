package dialectic

import (
	"fmt"
	"html"
	"html/template"
	"math"
	"strconv"
	"strings"
	"sync"

	"github.com/moot-dev/moot/internal/chart"
	"github.com/moot-dev/moot/internal/escape"
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
// total minus the opposition's) as one line, through the chart every
// report draws with: exchanges left to right, above the zero line the
// proposition leads, below it the opposition. Each point is coloured by
// the side ahead and its tooltip gives both totals.
func TrajectorySVG(tr []Point) string {
	lo, hi := 0.0, 0.0
	for _, p := range tr {
		lo, hi = math.Min(lo, p.Margin()), math.Max(hi, p.Margin())
	}
	step := niceStep(math.Max(hi-lo, 0.5))
	lo, hi = math.Floor(lo/step)*step, math.Ceil(hi/step)*step
	if hi-lo < step {
		lo, hi = lo-step, hi+step
	}
	c := chart.Lines{Title: "Margin after each exchange: the proposition's total minus the opposition's",
		XLabel: "exchange", YLabel: "margin", YMin: lo, YMax: hi, YStep: step, Width: 800, Class: "chart trajectory",
		Zero: true, Format: FormatScore,
		Above: chart.Note{Text: "↑ proposition ahead", Colour: propColour}, Below: chart.Note{Text: "↓ opposition ahead", Colour: oppColour}}
	s := chart.Series{Name: "margin: proposition total minus opposition total", Colour: marginColour}
	for _, p := range tr {
		m := p.Margin()
		mk, lead := chart.Mark{Colour: marginColour}, "the sides are level"
		switch {
		case m > 0:
			mk.Colour, lead = propColour, "the proposition leads by "+points(m)
		case m < 0:
			mk.Colour, lead = oppColour, "the opposition leads by "+points(m)
		}
		mk.Title = fmt.Sprintf("exchange %d: %s (%s to %s)", p.Exchange, lead, FormatScore(p.Prop), FormatScore(p.Opp))
		c.X = append(c.X, strconv.Itoa(p.Exchange))
		s.Values, s.Marks = append(s.Values, m), append(s.Marks, mk)
	}
	c.Series = []chart.Series{s}
	return c.SVG()
}

// Layout of the argument graph, in pixels. The graph is laid out
// vertically, so that its width does not grow with the debate: the
// proposition's lane on the left, the opposition's on the right, a row per
// opening argument and then a row per exchange, top to bottom. Attacks cross
// the gap between the lanes; defences stay on the lane's outer side.
const (
	graphOuter  = 128.0 // beside each lane, for defences and their labels
	graphNodeW  = 212.0
	graphGap    = 232.0 // between the lanes, for attacks and their labels
	graphTop    = 64.0  // legend and lane names
	graphRowGap = 30.0  // between rows, for the exchange names
	graphNodeH  = 64.0  // the least height of a node
	// An edge leaves its node along a straight run that carries its label,
	// and arrives along a short one that carries its arrowhead.
	graphAttackRun  = 100.0
	graphDefenceRun = 102.0
	graphArriveRun  = 14.0
	// Where edges meet a node's side: outgoing edges first, a label's
	// height apart, then incoming ones, closer together.
	graphSlotTop   = 16.0
	graphOutStep   = 16.0
	graphInStep    = 10.0
	graphLabelSize = 11.0 // the edge labels' font size
	// Attack and defence types are cut to fit their runs.
	graphAttackChars  = 15
	graphDefenceChars = 17
)

// GraphWidth is the width of every argument graph, however long the debate.
const GraphWidth = 2*graphOuter + 2*graphNodeW + graphGap

// graphEdge is an attack or defence drawn in the graph.
type graphEdge struct {
	from, to *ScoredArg
	link     GraphLink
	attack   bool
	inner    bool // between the lanes (the sides differ), else outside
	out, in  int  // the edge's slot among the from node's outgoing and the to node's incoming edges on that side
}

// GraphSVG draws the argument graph: the proposition's lane on the left and
// the opposition's on the right, a row per opening argument and then per
// exchange from the top down; attacks as orange curves between the lanes,
// defences as blue arcs outside them, a concession dashed. Each edge is
// labelled with its type next to the argument it comes from, so labels never
// share a place.
func GraphSVG(an *Analysis) string {
	row := func(a *ScoredArg) int {
		if Opening(a.Exchange) {
			if id, err := ParseID(a.ID); err == nil && id.Letter >= 'a' {
				return int(id.Letter - 'a')
			}
			return 0
		}
		return a.Exchange + 2
	}
	rows := 0
	for _, a := range an.Args {
		rows = max(rows, row(a)+1)
	}
	rows = max(rows, 1)

	// Every edge, with its slots on each node's sides.
	type face struct {
		id    string
		inner bool
	}
	outs, ins := map[face]int{}, map[face]int{}
	var edges []graphEdge
	for _, from := range an.Args {
		for _, attack := range []bool{true, false} {
			for _, l := range linksOf(from, attack) {
				to, ok := an.byID[l.To]
				if !ok {
					continue
				}
				e := graphEdge{from: from, to: to, link: l, attack: attack, inner: from.Side != to.Side}
				e.out = outs[face{from.ID, e.inner}]
				outs[face{from.ID, e.inner}]++
				e.in = ins[face{to.ID, e.inner}]
				ins[face{to.ID, e.inner}]++
				edges = append(edges, e)
			}
		}
	}
	need := func(a *ScoredArg) float64 {
		h := graphNodeH
		for _, inner := range []bool{true, false} {
			f := face{a.ID, inner}
			h = math.Max(h, graphSlotTop+graphOutStep*float64(outs[f])+graphInStep*float64(ins[f])+4)
		}
		return h
	}
	// Rows take the height of their tallest node.
	rowH := make([]float64, rows)
	for _, a := range an.Args {
		rowH[row(a)] = math.Max(rowH[row(a)], need(a))
	}
	rowY := make([]float64, rows+1)
	y := graphTop
	for r := range rowH {
		rowH[r] = math.Max(rowH[r], graphNodeH)
		y += graphRowGap
		rowY[r] = y
		y += rowH[r]
	}
	height := y + 24
	propX := graphOuter
	oppX := graphOuter + graphNodeW + graphGap
	nodeX := func(a *ScoredArg) float64 {
		if a.Side == Opp {
			return oppX
		}
		return propX
	}
	nodeY := func(a *ScoredArg) float64 { return rowY[row(a)] }
	outY := func(a *ScoredArg, k int) float64 { return nodeY(a) + graphSlotTop + graphOutStep*float64(k) }
	inY := func(a *ScoredArg, inner bool, k int) float64 {
		return nodeY(a) + graphSlotTop + graphOutStep*float64(outs[face{a.ID, inner}]) + graphInStep*float64(k)
	}

	v := graphView{W: f(GraphWidth), H: f(height)}
	for _, m := range []struct{ id, c string }{{"arrow-attack", attackColour}, {"arrow-defence", defenceColour}} {
		v.Markers = append(v.Markers, graphMarker{ID: m.id, Colour: m.c})
	}
	// Legend and lane names.
	lx := propX
	v.Legend = [9]string{f(lx), f(lx + 28), f(lx + 34), f(lx + 100), f(lx + 128), f(lx + 134), f(lx + 210), f(lx + 238), f(lx + 244)}
	v.AttackColour, v.DefenceColour = attackColour, defenceColour
	for _, lane := range []struct {
		name string
		x    float64
		c    string
	}{{"proposition", propX, propColour}, {"opposition", oppX, oppColour}} {
		v.Lanes = append(v.Lanes, graphText{X: f(lane.x + graphNodeW/2), Y: f(graphTop - 8), Colour: lane.c, Text: lane.name})
	}
	// Exchange names, in the space above each exchange's first row: the
	// separators here, the names over the edges.
	labelled := map[int]bool{}
	for _, a := range an.Args {
		if labelled[a.Exchange] {
			continue
		}
		labelled[a.Exchange] = true
		name := fmt.Sprintf("exchange %d", a.Exchange)
		if Opening(a.Exchange) {
			name += ": openings"
		}
		ry := rowY[row(a)]
		if Opening(a.Exchange) {
			ry = rowY[0]
		}
		v.Grid = append(v.Grid, f(ry-graphRowGap/2))
		v.Names = append(v.Names, graphText{Y: f(ry - graphRowGap/2 - 3), Text: name})
	}

	// Edges first, so that nodes sit on top of them; then their labels.
	for i, e := range edges {
		colour, marker, dash := attackColour, "arrow-attack", false
		name := shorten(typeName(e.link.Type), graphAttackChars)
		if !e.attack {
			colour, marker = defenceColour, "arrow-defence"
			name = shorten(typeName(e.link.Type), graphDefenceChars)
			dash = e.link.Type == "concede_and_pivot"
		}
		sy, ty := outY(e.from, e.out), inY(e.to, e.inner, e.in)
		var d string
		var lx float64
		anchor := "start"
		if e.inner {
			// Out of the side facing the other lane, across the gap, into
			// the target's side facing back.
			sx, dir := propX+graphNodeW, 1.0
			if e.from.Side == Opp {
				sx, dir = oppX, -1.0
			}
			tx := oppX
			if e.to.Side == Prop {
				tx = propX + graphNodeW
			}
			x1, x2 := sx+dir*graphAttackRun, tx-dir*graphArriveRun
			c := math.Abs(x2-x1) / 2
			d = fmt.Sprintf("M%s,%s H%s C%s,%s %s,%s %s,%s H%s", f(sx), f(sy), f(x1), f(x1+dir*c), f(sy), f(x2-dir*c), f(ty), f(x2), f(ty), f(tx))
			lx = sx + dir*5
			if dir < 0 {
				anchor = "end"
			}
		} else {
			// Out of the lane's outer side and back into it.
			fx, dir := propX, -1.0
			if e.from.Side == Opp {
				fx, dir = oppX+graphNodeW, 1.0
			}
			x1 := fx + dir*graphDefenceRun
			xv := x1 + dir*(4+4*float64(i%5))
			d = fmt.Sprintf("M%s,%s H%s C%s,%s %s,%s %s,%s H%s", f(fx), f(sy), f(x1), f(xv), f(sy), f(xv), f(ty), f(x1), f(ty), f(fx))
			lx = fx + dir*5
			if dir < 0 {
				anchor = "end"
			}
		}
		verb := "attacks"
		if !e.attack {
			verb = "defends"
		}
		v.Edges = append(v.Edges, graphPath{D: d, Colour: colour, Dash: dash, Marker: marker,
			From: e.from.ID, Verb: verb, To: e.to.ID, Type: escape.Fold(typeName(e.link.Type))})
		v.Labels = append(v.Labels, graphText{X: f(lx), Y: f(sy - 4), Anchor: anchor, Size: f(graphLabelSize), Colour: colour, Text: escape.Fold(name)})
	}

	// Nodes.
	for _, a := range an.Args {
		x, y := nodeX(a), nodeY(a)
		n := graphNode{X: f(x), Y: f(y), W: f(graphNodeW), H: f(rowH[row(a)]), Stroke: propColour, Fill: propFill,
			IDX: f(x + 8), IDY: f(y + 17), ID: a.ID, Score: ownNumber(scoreOf(a))}
		if a.Side == Opp {
			n.Stroke, n.Fill = oppColour, oppFill
		}
		n.Tip = a.ID + ": " + titleOf(a)
		if c := escape.Fold(a.ClaimText()); c != "" {
			n.Tip += " — " + c
		}
		n.Tip = escape.Fold(n.Tip)
		for i, line := range wrap(titleOf(a), 27, 2) {
			n.Lines = append(n.Lines, graphText{X: f(x + 8), Y: f(y + 35 + float64(i)*15), Text: escape.Fold(line)})
		}
		v.Nodes = append(v.Nodes, n)
	}
	var b strings.Builder
	if err := graphTemplate().Execute(&b, v); err != nil {
		// The template is moot's and its data plain values: it cannot
		// fail but by a mistake in this file, which the tests catch.
		panic(fmt.Sprintf("argument graph: %v", err))
	}
	return b.String()
}

// ownNumber is a number moot formatted itself (a score such as "+0.30",
// or "not scored yet"), escaped here so that its sign stays a plain '+'
// rather than the entity html/template would write: never model text.
func ownNumber(s string) template.HTML { return template.HTML(html.EscapeString(s)) }

// graphView is what the argument graph's template draws, every number
// already formatted by f.
type graphView struct {
	W, H                        string
	Markers                     []graphMarker
	Legend                      [9]string // the x of each legend entry's line start, line end and text
	AttackColour, DefenceColour string
	Lanes, Names, Labels        []graphText
	Grid                        []string // the y of each exchange's separator
	Edges                       []graphPath
	Nodes                       []graphNode
}

type graphMarker struct{ ID, Colour string }

// graphText is a text of the graph and where it stands.
type graphText struct{ X, Y, Anchor, Size, Colour, Text string }

// graphPath is an edge: its path, its look and its tooltip's parts.
type graphPath struct {
	D, Colour, Marker    string
	Dash                 bool
	From, Verb, To, Type string
}

// graphNode is an argument's box.
type graphNode struct {
	X, Y, W, H, Fill, Stroke string
	Tip                      string
	IDX, IDY, ID             string
	Score                    template.HTML
	Lines                    []graphText
}

// graphTemplate draws the argument graph; html/template escapes every
// text of a debate in it.
var graphTemplate = sync.OnceValue(func() *template.Template {
	return template.Must(template.New("graph").Parse(
		`<svg xmlns="http://www.w3.org/2000/svg" class="chart graph" viewBox="0 0 {{.W}} {{.H}}" width="{{.W}}" height="{{.H}}" role="img" aria-label="Argument graph: attacks and defences between the arguments of each exchange">` + "\n" +
			`<defs>{{range .Markers}}<marker id="{{.ID}}" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z" fill="{{.Colour}}"/></marker>{{end}}</defs>` + "\n" +
			`<g class="legend"><line x1="{{index .Legend 0}}" y1="14" x2="{{index .Legend 1}}" y2="14" stroke="{{.AttackColour}}" stroke-width="2"/><text x="{{index .Legend 2}}" y="18">attack</text>` +
			`<line x1="{{index .Legend 3}}" y1="14" x2="{{index .Legend 4}}" y2="14" stroke="{{.DefenceColour}}" stroke-width="2"/><text x="{{index .Legend 5}}" y="18">defence</text>` +
			`<line x1="{{index .Legend 6}}" y1="14" x2="{{index .Legend 7}}" y2="14" stroke="{{.DefenceColour}}" stroke-width="2" stroke-dasharray="5 4"/><text x="{{index .Legend 8}}" y="18">concede and pivot</text></g>` + "\n" +
			`{{range .Lanes}}<text class="lane" x="{{.X}}" y="{{.Y}}" fill="{{.Colour}}" text-anchor="middle">{{.Text}}</text>` + "\n" + `{{end}}` +
			`{{range .Grid}}<line class="grid" x1="0" y1="{{.}}" x2="{{$.W}}" y2="{{.}}"/>` + "\n" + `{{end}}` +
			`<g class="edges">` + "\n" +
			`{{range .Edges}}<path d="{{.D}}" fill="none" stroke="{{.Colour}}" stroke-width="1.6"{{if .Dash}} stroke-dasharray="5 4"{{end}} marker-end="url(#{{.Marker}})"><title>{{.From}} {{.Verb}} {{.To}} ({{.Type}})</title></path>` + "\n" + `{{end}}` +
			`</g>` + "\n" + `<g class="edge-labels">` + "\n" +
			`{{range .Labels}}<text class="edge-label" x="{{.X}}" y="{{.Y}}" text-anchor="{{.Anchor}}" font-size="{{.Size}}" fill="{{.Colour}}">{{.Text}}</text>` + "\n" + `{{end}}` +
			`</g>` + "\n" +
			`{{range .Names}}<text class="exchange" x="4" y="{{.Y}}">{{.Text}}</text>` + "\n" + `{{end}}` +
			`{{range .Nodes}}<g class="node"><title>{{.Tip}}</title><rect x="{{.X}}" y="{{.Y}}" width="{{.W}}" height="{{.H}}" rx="6" fill="{{.Fill}}" stroke="{{.Stroke}}" stroke-width="1.5"/>` +
			`<text x="{{.IDX}}" y="{{.IDY}}" class="node-id">{{.ID}} <tspan fill="{{.Stroke}}">{{.Score}}</tspan></text>` +
			`{{range .Lines}}<text x="{{.X}}" y="{{.Y}}" class="node-title">{{.Text}}</text>{{end}}</g>` + "\n" + `{{end}}` +
			`</svg>` + "\n"))
})

func linksOf(a *ScoredArg, attacks bool) []GraphLink {
	src := a.Defends
	if attacks {
		src = a.Attacks
	}
	out := make([]GraphLink, len(src))
	for i, t := range src {
		out[i] = GraphLink{From: a.ID, To: t.TargetID, Type: t.Type, Exchange: a.Exchange}
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
		all[i] = shorten(all[i], width)
	}
	if cut {
		all[lines-1] = strings.TrimSuffix(shorten(all[lines-1], width-1), "…") + "…"
	}
	return all
}
