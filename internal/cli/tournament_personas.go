package cli

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/moot-dev/moot/internal/english"
	"github.com/moot-dev/moot/internal/escape"
)

// personaSummary is silicon-forum's batch summary (its summary.html) of a
// tournament's finished debates whose outcomes carry the original's
// results.csv columns: how each persona fared, how each judge ruled on
// the premise, and how the first speaker fared.
type personaSummary struct {
	Debates int `json:"debates"`
	// Upheld and Rejected count the debates whose verdict upheld or
	// rejected the premise; UpholdRate is Upheld of the two, nil when
	// no debate had a premise.
	Upheld     int            `json:"upheld"`
	Rejected   int            `json:"rejected"`
	UpholdRate *float64       `json:"uphold_rate"`
	Debaters   []debaterStats `json:"debaters"`
	Judges     []judgeStats   `json:"judges"`
	Order      *orderStats    `json:"speaking_order,omitempty"`
}

type debaterStats struct {
	Name     string   `json:"name"`
	Side     string   `json:"side"`
	Debates  int      `json:"debates"`
	Wins     int      `json:"wins"`
	WinRate  float64  `json:"win_rate"`
	AvgScore *float64 `json:"average_score"`
	scoreSum float64
	scoreN   int
}

type judgeStats struct {
	Name       string   `json:"name"`
	Debates    int      `json:"debates"`
	Upheld     int      `json:"upheld"`
	Rejected   int      `json:"rejected"`
	UpholdRate *float64 `json:"uphold_rate"`
	// Bias is the judge's uphold rate less the rate of every judge
	// together: above zero, the judge leans to the side arguing for.
	Bias *float64 `json:"bias"`
}

type orderStats struct {
	Debates    int     `json:"debates"`
	FirstWins  int     `json:"first_wins"`
	FirstRate  float64 `json:"first_win_rate"`
	SecondWins int     `json:"second_wins"`
	SecondRate float64 `json:"second_win_rate"`
}

// summarizePersonas computes the summary from each finished debate's
// columns (agent_for, agent_against, judge, first_speaker, winner,
// premise_upheld, score_for, score_against), nil when no debate has them.
func summarizePersonas(rows []map[string]string) *personaSummary {
	s := &personaSummary{Debaters: []debaterStats{}, Judges: []judgeStats{}}
	debaters := map[string]*debaterStats{}
	var debaterOrder []string
	judges := map[string]*judgeStats{}
	var judgeOrder []string
	order := orderStats{}
	for _, row := range rows {
		if row["agent_for"] == "" && row["agent_against"] == "" {
			continue
		}
		s.Debates++
		switch row["premise_upheld"] {
		case "TRUE":
			s.Upheld++
		case "FALSE":
			s.Rejected++
		}
		for _, side := range []string{"for", "against"} {
			name := row["agent_"+side]
			if name == "" {
				continue
			}
			d := debaters[name]
			if d == nil {
				d = &debaterStats{Name: name, Side: side}
				debaters[name] = d
				debaterOrder = append(debaterOrder, name)
			}
			d.Debates++
			if row["winner"] == name {
				d.Wins++
			}
			if v, err := strconv.ParseFloat(row["score_"+side], 64); err == nil {
				d.scoreSum += v
				d.scoreN++
			}
		}
		if name := row["judge"]; name != "" {
			j := judges[name]
			if j == nil {
				j = &judgeStats{Name: name}
				judges[name] = j
				judgeOrder = append(judgeOrder, name)
			}
			j.Debates++
			switch row["premise_upheld"] {
			case "TRUE":
				j.Upheld++
			case "FALSE":
				j.Rejected++
			}
		}
		if first, winner := row["first_speaker"], row["winner"]; first != "" && winner != "" {
			order.Debates++
			if winner == first {
				order.FirstWins++
			}
		}
	}
	if s.Debates == 0 {
		return nil
	}
	if n := s.Upheld + s.Rejected; n > 0 {
		r := float64(s.Upheld) / float64(n)
		s.UpholdRate = &r
	}
	for _, name := range debaterOrder {
		d := debaters[name]
		d.WinRate = float64(d.Wins) / float64(d.Debates)
		if d.scoreN > 0 {
			avg := float64(int(d.scoreSum/float64(d.scoreN)*10+0.5)) / 10
			d.AvgScore = &avg
		}
		s.Debaters = append(s.Debaters, *d)
	}
	// The best win rate first, as the original lists them; ties keep
	// the order in which the personas first appear.
	sort.SliceStable(s.Debaters, func(i, j int) bool { return s.Debaters[i].WinRate > s.Debaters[j].WinRate })
	for _, name := range judgeOrder {
		j := judges[name]
		if n := j.Upheld + j.Rejected; n > 0 {
			r := float64(j.Upheld) / float64(n)
			j.UpholdRate = &r
			if s.UpholdRate != nil {
				b := r - *s.UpholdRate
				j.Bias = &b
			}
		}
		s.Judges = append(s.Judges, *j)
	}
	sort.SliceStable(s.Judges, func(i, j int) bool { return s.Judges[i].Debates > s.Judges[j].Debates })
	if order.Debates > 0 {
		order.SecondWins = order.Debates - order.FirstWins
		order.FirstRate = float64(order.FirstWins) / float64(order.Debates)
		order.SecondRate = float64(order.SecondWins) / float64(order.Debates)
		s.Order = &order
	}
	return s
}

// percent shows a rate as a whole percentage, "–" for none.
func percent(r *float64) string {
	if r == nil {
		return "–"
	}
	return fmt.Sprintf("%.0f%%", *r*100)
}

// markdown writes the summary's three tables.
func (s *personaSummary) markdown(b *strings.Builder) {
	fmt.Fprintf(b, "## Personas\n\nsilicon-forum's batch summary, over %s with a verdict", english.Count(s.Debates, "debate"))
	if s.UpholdRate != nil {
		fmt.Fprintf(b, ": the premise upheld in %d, rejected in %d (%s upheld)", s.Upheld, s.Rejected, percent(s.UpholdRate))
	}
	b.WriteString(".\n\n### Debaters\n\n| persona | side | debates | wins | win rate | average score |\n|---|---|---:|---:|---:|---:|\n")
	for _, d := range s.Debaters {
		avg := "–"
		if d.AvgScore != nil {
			avg = strconv.FormatFloat(*d.AvgScore, 'f', 1, 64)
		}
		rate := d.WinRate
		fmt.Fprintf(b, "| %s | %s | %d | %d | %s | %s |\n", escape.Markdown(d.Name), d.Side, d.Debates, d.Wins, percent(&rate), avg)
	}
	b.WriteString("\n### Judges\n\nA judge's bias is its rate of upholding the premise less every judge's together: above zero it leans to the side arguing for.\n\n| judge | debates | upheld | rejected | uphold rate | bias |\n|---|---:|---:|---:|---:|---:|\n")
	for _, j := range s.Judges {
		bias := "–"
		if j.Bias != nil {
			bias = fmt.Sprintf("%+.0f points", *j.Bias*100)
		}
		fmt.Fprintf(b, "| %s | %d | %d | %d | %s | %s |\n", escape.Markdown(j.Name), j.Debates, j.Upheld, j.Rejected, percent(j.UpholdRate), bias)
	}
	if o := s.Order; o != nil {
		fr, sr := o.FirstRate, o.SecondRate
		fmt.Fprintf(b, "\n### Speaking order\n\n| speaker | wins | win rate |\n|---|---:|---:|\n| first | %d | %s |\n| second | %d | %s |\n\nOver %s whose verdict named a winner.\n",
			o.FirstWins, percent(&fr), o.SecondWins, percent(&sr), english.Count(o.Debates, "debate"))
	}
	b.WriteString("\n")
}
