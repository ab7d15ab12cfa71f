package report

import (
	"bytes"
	"encoding/csv"
	"strconv"
	"strings"

	"github.com/moot-dev/moot/internal/frontmatter"
	"github.com/moot-dev/moot/statemachine/dialectic"
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
	FirstScore *float64           `json:"first_score"`
	Rescores   int                `json:"rescores"`
	Attacks    []dialectic.Target `json:"attacks"`
	Defends    []dialectic.Target `json:"defends"`
	// Reasoning is the judge's reasoning for the current score.
	Reasoning string `json:"reasoning"`
}

// CSVHeader returns the header line of the CSV export. Each call returns
// a new slice, which the caller may change.
func CSVHeader() []string {
	return []string{"id", "side", "exchange", "title", "claim", "current_score", "first_score", "rescores", "attacks", "defends", "reasoning"}
}

// Rows lists the arguments of d, one row each, in moot's order.
func Rows(d *dialectic.Debate) []Row {
	an := Analyze(d)
	rows := make([]Row, 0, len(an.Args))
	for _, a := range an.Args {
		r := Row{
			ID: a.ID, Side: string(a.Side), Exchange: a.Exchange, Title: a.Title, Claim: a.Claim,
			Rescores: a.Rescores(), Attacks: nonNil(a.Attacks), Defends: nonNil(a.Defends), Reasoning: a.LastReasoning(),
		}
		if a.Scored {
			score, first := a.Score, a.First
			r.Score, r.FirstScore = &score, &first
		}
		rows = append(rows, r)
	}
	return rows
}

func nonNil(t []dialectic.Target) []dialectic.Target {
	if t == nil {
		return []dialectic.Target{}
	}
	return t
}

// ExportJSON writes the rows as a JSON array of objects.
func ExportJSON(d *dialectic.Debate) ([]byte, error) {
	return frontmatter.Marshal(Rows(d))
}

// ExportCSV writes the rows as CSV (RFC 4180) with a header line: records
// end in CRLF, fields with commas, quotes or line breaks are quoted, and
// line breaks inside a field are kept as they are. Attacks and defends are
// written as "target:type" pairs separated by semicolons; an unscored
// argument has empty score cells.
func ExportCSV(d *dialectic.Debate) ([]byte, error) {
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
	if err := write(CSVHeader()); err != nil {
		return nil, err
	}
	for _, r := range Rows(d) {
		if err := write([]string{r.ID, r.Side, strconv.Itoa(r.Exchange), r.Title, r.Claim, optNum(r.Score), optNum(r.FirstScore),
			strconv.Itoa(r.Rescores), pairs(r.Attacks), pairs(r.Defends), r.Reasoning}); err != nil {
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

func pairs(ts []dialectic.Target) string {
	parts := make([]string, len(ts))
	for i, t := range ts {
		parts[i] = t.TargetID + ":" + t.Type
	}
	return strings.Join(parts, ";")
}
