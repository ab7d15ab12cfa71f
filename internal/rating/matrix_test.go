package rating

import (
	"encoding/xml"
	"errors"
	"io"
	"math"
	"reflect"
	"strings"
	"testing"
)

func TestWinMatrix(t *testing.T) {
	tests := []struct {
		name   string
		games  []Game
		models []string
		wins   [][]float64
		count  [][]int
	}{
		{
			name:  "no games",
			games: nil, models: []string{}, wins: [][]float64{}, count: [][]int{},
		},
		{
			// b scores 2.5 of 3 against a and 2 of 2 against c; a beats c
			// once and draws once; a game with no score and self-play are
			// left out. Ratings order: b, a, c.
			name: "three models",
			games: []Game{
				{A: "a", B: "b", Score: 0},
				{A: "b", B: "a", Score: 1},
				{A: "a", B: "b", Score: 0.5},
				{A: "c", B: "b", Score: 0},
				{A: "b", B: "c", Score: 1},
				{A: "a", B: "c", Score: 1},
				{A: "c", B: "a", Score: 0.5},
				{A: "a", B: "c", Score: math.NaN()},
				{A: "c", B: "c", Score: 1},
			},
			models: []string{"b", "a", "c"},
			wins: [][]float64{
				{0, 2.5, 2},
				{0.5, 0, 1.5},
				{0, 0.5, 0},
			},
			count: [][]int{
				{0, 3, 2},
				{3, 0, 2},
				{2, 2, 0},
			},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m := WinMatrix(tc.games)
			want := Matrix{Models: tc.models, Wins: tc.wins, Games: tc.count}
			if !reflect.DeepEqual(m, want) {
				t.Fatalf("WinMatrix = %+v, want %+v", m, want)
			}
			var order []string
			for _, r := range Ratings(tc.games, 0, 1) {
				order = append(order, r.Model)
			}
			if len(order) > 0 && !reflect.DeepEqual(order, m.Models) {
				t.Errorf("models %v, not in the order of Ratings %v", m.Models, order)
			}
		})
	}
}

// xmlText decodes svg as XML and returns its character data and the names
// of its elements, failing the test when it is not well-formed.
func xmlText(t *testing.T, svg string) (text string, elements []string) {
	t.Helper()
	d := xml.NewDecoder(strings.NewReader(svg))
	var b strings.Builder
	for {
		tok, err := d.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("not well-formed XML: %v\n%s", err, svg)
		}
		switch tok := tok.(type) {
		case xml.CharData:
			b.Write(tok)
			b.WriteByte('\n')
		case xml.StartElement:
			elements = append(elements, tok.Name.Local)
			for _, a := range tok.Attr {
				if strings.HasPrefix(strings.ToLower(a.Name.Local), "on") || a.Name.Local == "href" {
					t.Errorf("attribute %s=%q: the image must have no script or reference", a.Name.Local, a.Value)
				}
			}
		}
	}
	return b.String(), elements
}

func TestSVGHeatMap(t *testing.T) {
	long := strings.Repeat("very-long-model-name-", 5)
	tests := []struct {
		name   string
		games  []Game
		labels []string // text the decoded image must contain
		cells  int      // cells with a result
	}{
		{
			name:   "no models",
			labels: []string{"Win matrix"},
		},
		{
			name: "hostile names",
			games: []Game{
				{A: `<script>&"`, B: "o'brien</text>", Score: 1},
				{A: "o'brien</text>", B: `<script>&"`, Score: 0.5},
				{A: "nul\x00and\x01bell", B: `<script>&"`, Score: 0},
			},
			labels: []string{`<script>&"`, "o'brien</text>", "nul\uFFFDand\uFFFDbell",
				`<script>&" against o'brien</text>: 1.5 points of 2`},
			cells: 4,
		},
		{
			name:   "a long name",
			games:  []Game{{A: long, B: "b", Score: 0.7}, {A: long, B: "b", Score: 0.6}},
			labels: []string{long[:39] + "…", "against b: 1.3 points of 2", "0.7/2"},
			cells:  2,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			svg := SVGHeatMap(WinMatrix(tc.games))
			text, elements := xmlText(t, svg)
			if elements[0] != "svg" {
				t.Errorf("root element %q, want svg", elements[0])
			}
			cells := 0
			for _, e := range elements {
				switch e {
				case "script", "foreignObject", "image", "use", "a", "style":
					t.Errorf("element %s in the image", e)
				case "g":
					cells++
				}
			}
			if cells != tc.cells {
				t.Errorf("%d cells with a result, want %d", cells, tc.cells)
			}
			for _, l := range tc.labels {
				if !strings.Contains(text, l) {
					t.Errorf("the image's text lacks %q:\n%s", l, text)
				}
			}
			if strings.Contains(svg, "<script") || strings.Contains(svg, "\x00") {
				t.Errorf("an unescaped name in the image:\n%s", svg)
			}
		})
	}
}

func TestColour(t *testing.T) {
	tests := []struct {
		share float64
		want  string
	}{
		{share: 0, want: "#d73027"},
		{share: 0.5, want: "#f7f7f7"},
		{share: 1, want: "#2166ac"},
		{share: 0.75, want: "#8cafd2"}, // halfway from f7f7f7 to 2166ac: 140, 174.5, 209.5, rounded up
		{share: -1, want: "#d73027"},
		{share: 2, want: "#2166ac"},
	}
	for _, tc := range tests {
		t.Run(tc.want, func(t *testing.T) {
			if got := colour(tc.share); got != tc.want {
				t.Errorf("colour(%v) = %s, want %s", tc.share, got, tc.want)
			}
		})
	}
}
