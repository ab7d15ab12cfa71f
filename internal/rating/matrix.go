package rating

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strconv"

	"github.com/moot-dev/moot/internal/chart"
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

// caption explains the heat map beneath it.
const caption = "row's points / games against column: red none, white half, blue all"

// SVGHeatMap renders m as a self-contained SVG image with no script and no
// external reference, through the chart every report draws with: one row
// and one column per model, each cell coloured by the row model's share
// of the points against the column model, from red (none) through white
// (half) to blue (all), and labelled with its points and games. A cell's
// title (the tooltip of a browser) spells its record out, and models with
// no games between them get a grey cell. Every label is escaped for XML,
// and a label longer than 40 characters is shortened, with its full text
// in the titles.
func SVGHeatMap(m Matrix) string {
	h := chart.Heat{Title: "Win matrix: the row model's points against the column model", Caption: caption,
		Labels: m.Models, Cells: make([][]chart.HeatCell, len(m.Models))}
	for i := range m.Models {
		h.Cells[i] = make([]chart.HeatCell, len(m.Models))
		for j := range m.Models {
			games := 0
			if i < len(m.Games) && j < len(m.Games[i]) {
				games = m.Games[i][j]
			}
			if i == j || games == 0 {
				h.Cells[i][j].Empty = true
				continue
			}
			points := m.Wins[i][j]
			h.Cells[i][j] = chart.HeatCell{Share: points / float64(games), Text: fmt.Sprintf("%s/%d", num(points), games),
				Title: fmt.Sprintf("%s against %s: %s points of %d", m.Models[i], m.Models[j], num(points), games)}
		}
	}
	return h.SVG()
}

// num formats points to two decimals without trailing zeros: 2, 2.5, 0.75,
// and 1.3 for the 1.2999999999999998 that 0.7 + 0.6 makes.
func num(x float64) string {
	return strconv.FormatFloat(math.Round(x*100)/100, 'f', -1, 64)
}

// colour returns the fill of a share of points in [0, 1]: red at 0, white
// at ½, blue at 1.
func colour(share float64) string { return chart.ShareColour(share) }
