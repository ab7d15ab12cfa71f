package dialectic

import (
	"bytes"
	"encoding/csv"
	"math"
	"strconv"
	"strings"

	"github.com/moot-dev/moot/internal/frontmatter"
	"github.com/moot-dev/moot/internal/judging"
	sm "github.com/moot-dev/moot/statemachine"
)

// Row is one argument as export writes it.
type Row struct {
	ID       string `json:"id"`
	Side     string `json:"side"`
	Exchange int    `json:"exchange"`
	Title    string `json:"title"`
	Claim    string `json:"claim"`
	// Score is the current score, nil when the argument is not scored yet.
	Score *float64 `json:"current_score"`
	// FirstScore is the score the judge first gave, nil when not scored.
	FirstScore *float64 `json:"first_score"`
	Rescores   int      `json:"rescores"`
	Attacks    []Target `json:"attacks"`
	Defends    []Target `json:"defends"`
	// Reasoning is the judge's reasoning for the current score.
	Reasoning string `json:"reasoning"`
	// Strength is the argument's DF-QuAD strength from the attack and
	// defence graph alone; nil when it is not scored or on a cycle.
	Strength *float64 `json:"graph_strength"`
	// Judges holds the current score every judge with a folder under
	// judgments/ gave the argument, by the judge's name.
	Judges map[string]float64 `json:"judges"`
}

// CSVHeader returns the header line of the CSV export. Each call returns
// a new slice, which the caller may change.
func CSVHeader() []string {
	return []string{"id", "side", "exchange", "title", "claim", "current_score", "first_score", "rescores", "attacks", "defends", "reasoning", "graph_strength"}
}

// judgesOf lists the judges of j with a folder of their own, whose scores
// export gives a column each, named judge_NAME.
func judgesOf(j sm.Judgments) []sm.JudgeScores {
	var out []sm.JudgeScores
	for _, js := range j.Judges {
		if js.Kind != sm.KindOfficial {
			out = append(out, js)
		}
	}
	return out
}

// Rows lists the arguments of d, one row each, in moot's order, with what
// its judges j made of them.
func Rows(d *Debate, j sm.Judgments) []Row {
	an := Analyze(d)
	strength := judging.Strengths(j)
	judges := judgesOf(j)
	rows := make([]Row, 0, len(an.Args))
	for _, a := range an.Args {
		r := Row{
			ID: a.ID, Side: string(a.Side), Exchange: a.Exchange, Title: a.Title, Claim: a.ClaimText(),
			Rescores: a.Rescores(), Attacks: nonNil(a.Attacks), Defends: nonNil(a.Defends), Reasoning: a.LastReasoning(),
			Judges: map[string]float64{},
		}
		if a.Scored {
			score, first := a.Score, a.First
			r.Score, r.FirstScore = &score, &first
			if v, ok := strength[a.ID]; ok {
				v = math.Round(v*1e6) / 1e6 // no binary noise in the last digits
				r.Strength = &v
			}
		}
		for _, js := range judges {
			if v, ok := js.Final[a.ID]; ok {
				r.Judges[js.Name] = v
			}
		}
		rows = append(rows, r)
	}
	return rows
}

func nonNil(t []Target) []Target {
	if t == nil {
		return []Target{}
	}
	return t
}

// ExportJSON writes the rows as a JSON array of objects.
func ExportJSON(d *Debate, j sm.Judgments) ([]byte, error) {
	return frontmatter.Marshal(Rows(d, j))
}

// ExportCSV writes the rows as CSV (RFC 4180) with a header line: records
// end in CRLF, fields with commas, quotes or line breaks are quoted, and
// line breaks inside a field are kept as they are. Attacks and defends are
// written as "target:type" pairs separated by semicolons; an unscored
// argument has empty score cells. After graph_strength comes a column per
// judge with a folder of its own, judge_NAME.
func ExportCSV(d *Debate, j sm.Judgments) ([]byte, error) {
	var out, rec bytes.Buffer
	// encoding/csv's CRLF mode would also turn line breaks inside fields
	// into CRLF; writing each record alone and ending it by hand does not.
	write := func(fields []string) error {
		rec.Reset()
		w := csv.NewWriter(&rec)
		if err := w.Write(fields); err != nil {
			return err
		}
		w.Flush()
		if err := w.Error(); err != nil {
			return err
		}
		out.Write(bytes.TrimSuffix(rec.Bytes(), []byte("\n")))
		out.WriteString("\r\n")
		return nil
	}
	judges := judgesOf(j)
	header := CSVHeader()
	for _, js := range judges {
		header = append(header, "judge_"+js.Name)
	}
	if err := write(header); err != nil {
		return nil, err
	}
	for _, r := range Rows(d, j) {
		fields := []string{r.ID, r.Side, strconv.Itoa(r.Exchange), r.Title, r.Claim, optNum(r.Score), optNum(r.FirstScore),
			strconv.Itoa(r.Rescores), pairs(r.Attacks), pairs(r.Defends), r.Reasoning, optNum(r.Strength)}
		for _, js := range judges {
			cell := ""
			if v, ok := r.Judges[js.Name]; ok {
				cell = strconv.FormatFloat(v, 'f', -1, 64)
			}
			fields = append(fields, cell)
		}
		if err := write(fields); err != nil {
			return nil, err
		}
	}
	return out.Bytes(), nil
}

func optNum(x *float64) string {
	if x == nil {
		return ""
	}
	return strconv.FormatFloat(*x, 'f', -1, 64)
}

func pairs(ts []Target) string {
	parts := make([]string, len(ts))
	for i, t := range ts {
		parts[i] = t.TargetID + ":" + t.Type
	}
	return strings.Join(parts, ";")
}
