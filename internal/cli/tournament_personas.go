package cli

import (
	"fmt"
	"math"
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
	// Models and JudgeModels are the same tables by model, when a batch
	// has more than one.
	Models      []debaterStats `json:"models,omitempty"`
	JudgeModels []judgeStats   `json:"judge_models,omitempty"`
	Order       *orderStats    `json:"speaking_order,omitempty"`
}

type debaterStats struct {
	Name     string   `json:"name"`
	Side     string   `json:"side,omitempty"`
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
	s := &personaSummary{}
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
	s.Debaters = tallyDebaters(rows, "agent_")
	s.Judges = tallyJudges(rows, "judge", s.UpholdRate)
	// The original's tables by model, where the models differ.
	if models := tallyDebaters(rows, "model_"); len(models) > 1 || len(tallyJudges(rows, "model_judge", nil)) > 1 {
		s.Models = models
		s.JudgeModels = tallyJudges(rows, "model_judge", s.UpholdRate)
	}
	if order.Debates > 0 {
		order.SecondWins = order.Debates - order.FirstWins
		order.FirstRate = float64(order.FirstWins) / float64(order.Debates)
		order.SecondRate = float64(order.SecondWins) / float64(order.Debates)
		s.Order = &order
	}
	return s
}

// tallyDebaters counts each debater by its column prefix+side (agent_for
// and agent_against for personas, model_for and model_against for
// models): debates, wins (the winner is the side's persona) and average
// final score, the best win rate first; ties keep the order of first
// appearance.
func tallyDebaters(rows []map[string]string, prefix string) []debaterStats {
	byName := map[string]*debaterStats{}
	var names []string
	for _, row := range rows {
		for _, side := range []string{"for", "against"} {
			name := row[prefix+side]
			if name == "" || row["agent_"+side] == "" {
				continue
			}
			d := byName[name]
			if d == nil {
				d = &debaterStats{Name: name}
				if prefix == "agent_" {
					d.Side = side
				}
				byName[name] = d
				names = append(names, name)
			}
			d.Debates++
			if row["winner"] == row["agent_"+side] {
				d.Wins++
			}
			if v, err := strconv.ParseFloat(row["score_"+side], 64); err == nil {
				d.scoreSum += v
				d.scoreN++
			}
		}
	}
	out := []debaterStats{}
	for _, name := range names {
		d := byName[name]
		d.WinRate = float64(d.Wins) / float64(d.Debates)
		if d.scoreN > 0 {
			avg := math.Round(d.scoreSum/float64(d.scoreN)*10) / 10
			d.AvgScore = &avg
		}
		out = append(out, *d)
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].WinRate > out[j].WinRate })
	return out
}

// tallyJudges counts each judge by the column key (judge for personas,
// model_judge for models): debates, premises upheld and rejected, and the
// bias against overall, every judge's uphold rate together; the judge of
// most debates first.
func tallyJudges(rows []map[string]string, key string, overall *float64) []judgeStats {
	byName := map[string]*judgeStats{}
	var names []string
	for _, row := range rows {
		name := row[key]
		if name == "" || row["judge"] == "" {
			continue
		}
		j := byName[name]
		if j == nil {
			j = &judgeStats{Name: name}
			byName[name] = j
			names = append(names, name)
		}
		j.Debates++
		switch row["premise_upheld"] {
		case "TRUE":
			j.Upheld++
		case "FALSE":
			j.Rejected++
		}
	}
	out := []judgeStats{}
	for _, name := range names {
		j := byName[name]
		if n := j.Upheld + j.Rejected; n > 0 {
			r := float64(j.Upheld) / float64(n)
			j.UpholdRate = &r
			if overall != nil {
				b := r - *overall
				j.Bias = &b
			}
		}
		out = append(out, *j)
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Debates > out[j].Debates })
	return out
}

// percent shows a rate as a whole percentage, "–" for none.
func percent(r *float64) string {
	if r == nil {
		return "–"
	}
	return fmt.Sprintf("%.0f%%", *r*100)
}

// markdown writes the summary's three tables, and the two by model when
// there are several.
func (s *personaSummary) markdown(b *strings.Builder) {
	fmt.Fprintf(b, "## Personas\n\nsilicon-forum's batch summary, over %s with a verdict", english.Count(s.Debates, "debate"))
	if s.UpholdRate != nil {
		fmt.Fprintf(b, ": the premise upheld in %d, rejected in %d (%s upheld)", s.Upheld, s.Rejected, percent(s.UpholdRate))
	}
	b.WriteString(".\n\n### Debaters\n\n")
	debaterTable(b, "persona", s.Debaters)
	b.WriteString("\n### Judges\n\nA judge's bias is its rate of upholding the premise less every judge's together: above zero it leans to the side arguing for.\n\n")
	judgeTable(b, "judge", s.Judges)
	if o := s.Order; o != nil {
		fr, sr := o.FirstRate, o.SecondRate
		fmt.Fprintf(b, "\n### Speaking order\n\n| speaker | wins | win rate |\n|---|---:|---:|\n| first | %d | %s |\n| second | %d | %s |\n\nOver %s whose verdict named a winner.\n",
			o.FirstWins, percent(&fr), o.SecondWins, percent(&sr), english.Count(o.Debates, "debate"))
	}
	if len(s.Models) > 0 || len(s.JudgeModels) > 0 {
		b.WriteString("\n### Models debating\n\n")
		debaterTable(b, "model", s.Models)
		b.WriteString("\n### Models judging\n\n")
		judgeTable(b, "model", s.JudgeModels)
	}
	b.WriteString("\n")
}

// debaterTable writes rows as a table; personas (what "persona") with
// their side, models without, as a model argues either.
func debaterTable(b *strings.Builder, what string, rows []debaterStats) {
	persona := what == "persona"
	if persona {
		b.WriteString("| persona | side | debates | wins | win rate | average score |\n|---|---|---:|---:|---:|---:|\n")
	} else {
		fmt.Fprintf(b, "| %s | debates | wins | win rate | average score |\n|---|---:|---:|---:|---:|\n", what)
	}
	for _, d := range rows {
		avg := "–"
		if d.AvgScore != nil {
			avg = strconv.FormatFloat(*d.AvgScore, 'f', 1, 64)
		}
		rate := d.WinRate
		side := ""
		if persona {
			side = " " + d.Side + " |"
		}
		fmt.Fprintf(b, "| %s |%s %d | %d | %s | %s |\n", escape.Markdown(d.Name), side, d.Debates, d.Wins, percent(&rate), avg)
	}
}

// judgeTable writes rows as a table, the judges called what.
func judgeTable(b *strings.Builder, what string, rows []judgeStats) {
	fmt.Fprintf(b, "| %s | debates | upheld | rejected | uphold rate | bias |\n|---|---:|---:|---:|---:|---:|\n", what)
	for _, j := range rows {
		bias := "–"
		if j.Bias != nil {
			bias = fmt.Sprintf("%+.0f points", *j.Bias*100)
		}
		fmt.Fprintf(b, "| %s | %d | %d | %d | %s | %s |\n", escape.Markdown(j.Name), j.Debates, j.Upheld, j.Rejected, percent(j.UpholdRate), bias)
	}
}
