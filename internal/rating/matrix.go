package rating

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Matrix is the head-to-head record of the models of a tournament.
// Wins[i][j] is Models[i]'s points against Models[j] (a win 1, a draw ½),
// and Games[i][j] the number of their games; Games is symmetric and
// Wins[i][j] + Wins[j][i] = Games[i][j].
type Matrix struct {
	Models []string
	Wins   [][]float64
	Games  [][]int
}

// WinMatrix returns the head-to-head record of the games, with the models in
// the order of Ratings (strongest first, ties by name) so that a heat map of
// it reads like the leaderboard. Like Ratings it leaves out games with no
// score and games of a model against itself.
func WinMatrix(games []Game) Matrix {
	names, gs := index(games)
	order := newFitter(len(names), gs).fit(nil)
	rank := make([]int, len(names)) // rank[r] is the model at row r
	for i := range rank {
		rank[i] = i
	}
	// The names are sorted, so a stable sort by rating breaks ties by name.
	slices.SortStableFunc(rank, func(x, y int) int { return cmp.Compare(order[y], order[x]) })
	row := make([]int, len(names)) // row[i] is model i's row
	m := Matrix{
		Models: make([]string, len(names)),
		Wins:   make([][]float64, len(names)),
		Games:  make([][]int, len(names)),
	}
	for r, i := range rank {
		row[i] = r
		m.Models[r] = names[i]
		m.Wins[r] = make([]float64, len(names))
		m.Games[r] = make([]int, len(names))
	}
	for _, g := range gs {
		a, b := row[g.a], row[g.b]
		m.Wins[a][b] += g.s
		m.Wins[b][a] += 1 - g.s
		m.Games[a][b]++
		m.Games[b][a]++
	}
	return m
}

// Heat map geometry, in SVG user units.
const (
	cell      = 44  // side of a cell
	charWidth = 7.5 // width allowed per character of a label at font size 12
	margin    = 8
	maxLabel  = 40 // characters of a label shown; the cell's title has all
)

// caption explains the heat map beneath it.
const caption = "row's points / games against column: red none, white half, blue all"

// SVGHeatMap renders m as a self-contained SVG image with no script and no
// external reference: one row and one column per model, each cell coloured
// by the row model's share of the points against the column model, from red
// (none) through white (half) to blue (all), and labelled with its points
// and games. A cell's title (the tooltip of a browser) spells its record
// out, and models with no games between them get a grey cell. Every label is
// escaped for XML, and a label longer than 40 characters is shortened, with
// its full text in the titles.
func SVGHeatMap(m Matrix) string {
	labels := make([]string, len(m.Models))
	longest := 0
	for i, name := range m.Models {
		labels[i] = shorten(name, maxLabel)
		longest = max(longest, utf8.RuneCountInString(labels[i]))
	}
	side := margin + int(float64(longest)*charWidth) // room for the labels
	size := len(m.Models) * cell
	width, height := side+size+margin, side+size+margin+20
	width = max(width, 2*margin+int(float64(utf8.RuneCountInString(caption))*charWidth*11/12))

	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" font-family="sans-serif" font-size="12">`+"\n",
		width, height, width, height)
	b.WriteString("<title>Win matrix: the row model's points against the column model</title>\n")
	fmt.Fprintf(&b, `<rect width="%d" height="%d" fill="#ffffff"/>`+"\n", width, height)
	for i, label := range labels {
		y := side + i*cell + cell/2
		fmt.Fprintf(&b, `<text x="%d" y="%d" text-anchor="end" dominant-baseline="middle">%s</text>`+"\n",
			side-margin, y, esc(label))
		x := side + i*cell + cell/2
		fmt.Fprintf(&b, `<text transform="translate(%d %d) rotate(-90)" dominant-baseline="middle">%s</text>`+"\n",
			x, side-margin, esc(label))
	}
	for i := range m.Models {
		for j := range m.Models {
			x, y := side+j*cell, side+i*cell
			games := 0
			if i < len(m.Games) && j < len(m.Games[i]) {
				games = m.Games[i][j]
			}
			if i == j || games == 0 {
				fmt.Fprintf(&b, `<rect x="%d" y="%d" width="%d" height="%d" fill="#e0e0e0" stroke="#ffffff"/>`+"\n",
					x, y, cell, cell)
				continue
			}
			points := m.Wins[i][j]
			share := points / float64(games)
			fmt.Fprintf(&b, `<g><title>%s against %s: %s points of %d</title>`,
				esc(m.Models[i]), esc(m.Models[j]), num(points), games)
			fmt.Fprintf(&b, `<rect x="%d" y="%d" width="%d" height="%d" fill="%s" stroke="#ffffff"/>`,
				x, y, cell, cell, colour(share))
			fmt.Fprintf(&b, `<text x="%d" y="%d" text-anchor="middle" dominant-baseline="middle" font-size="11">%s/%d</text></g>`+"\n",
				x+cell/2, y+cell/2, num(points), games)
		}
	}
	fmt.Fprintf(&b, `<text x="%d" y="%d" font-size="11">%s</text>`+"\n", margin, height-margin, esc(caption))
	b.WriteString("</svg>\n")
	return b.String()
}

// shorten returns s cut to at most n characters, ending in an ellipsis when
// cut.
func shorten(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n-1]) + "…"
}

// esc escapes s for XML text and attribute values. A character that XML
// does not allow (a control character, say) becomes U+FFFD.
func esc(s string) string {
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

// num formats points to two decimals without trailing zeros: 2, 2.5, 0.75,
// and 1.3 for the 1.2999999999999998 that 0.7 + 0.6 makes.
func num(x float64) string {
	return strconv.FormatFloat(math.Round(x*100)/100, 'f', -1, 64)
}

// colour returns the fill of a share of points in [0, 1]: red at 0, white
// at ½, blue at 1.
func colour(share float64) string {
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
