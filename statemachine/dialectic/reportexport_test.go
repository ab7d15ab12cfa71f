package dialectic_test

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"math"
	"strconv"
	"strings"
	"testing"

	sm "github.com/moot-dev/moot/statemachine"
	"github.com/moot-dev/moot/statemachine/dialectic"
)

// exportRow is what a JSON reader sees of one row.
type exportRow struct {
	ID         string             `json:"id"`
	Side       string             `json:"side"`
	Exchange   int                `json:"exchange"`
	Title      string             `json:"title"`
	Claim      string             `json:"claim"`
	Score      *float64           `json:"current_score"`
	FirstScore *float64           `json:"first_score"`
	Rescores   int                `json:"rescores"`
	Attacks    []dialectic.Target `json:"attacks"`
	Defends    []dialectic.Target `json:"defends"`
	Reasoning  string             `json:"reasoning"`
}

// checkRow compares an exported row with the debate's own files.
func checkRow(t *testing.T, deb *dialectic.Debate, r exportRow) {
	t.Helper()
	a, ok := deb.Argument(r.ID)
	if !ok {
		t.Fatalf("row %s is not an argument of the debate", r.ID)
	}
	if r.Side != string(a.Side) || r.Exchange != a.Exchange || r.Title != a.Title || r.Claim != a.Claim {
		t.Errorf("%s: got side %q exchange %d title %q claim %q; the file says %q %d %q %q", r.ID, r.Side, r.Exchange, r.Title, r.Claim, a.Side, a.Exchange, a.Title, a.Claim)
	}
	if !sameTargets(r.Attacks, a.Attacks) || !sameTargets(r.Defends, a.Defends) {
		t.Errorf("%s: attacks %v defends %v; the file says %v %v", r.ID, r.Attacks, r.Defends, a.Attacks, a.Defends)
	}
	rec, scored := deb.Scores.Get(r.ID)
	if !scored {
		if r.Score != nil || r.FirstScore != nil || r.Rescores != 0 || r.Reasoning != "" {
			t.Errorf("%s is not scored, but the row has %+v", r.ID, r)
		}
		return
	}
	last := rec.History[len(rec.History)-1]
	if r.Score == nil || *r.Score != rec.CurrentScore || r.FirstScore == nil || *r.FirstScore != rec.History[0].Score ||
		r.Rescores != len(rec.History)-1 || r.Reasoning != last.Reasoning {
		t.Errorf("%s: row %+v disagrees with scores.json %+v", r.ID, r, rec)
	}
}

func sameTargets(a, b []dialectic.Target) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestExportJSON(t *testing.T) {
	deb := loadDir(t, hostileDir)
	out, err := dialectic.ExportJSON(deb, sm.Judgments{})
	if err != nil {
		t.Fatal(err)
	}
	var rows []exportRow
	if err := json.Unmarshal(out, &rows); err != nil {
		t.Fatalf("not JSON: %v", err)
	}
	if len(rows) != len(deb.Arguments) {
		t.Fatalf("%d rows for %d arguments", len(rows), len(deb.Arguments))
	}
	for i, r := range rows {
		if r.ID != deb.Arguments[i].ID {
			t.Errorf("row %d is %s, want %s (moot's order)", i, r.ID, deb.Arguments[i].ID)
		}
		checkRow(t, deb, r)
	}
	// Every row has every key, null for a missing score, [] for no links.
	var raw []map[string]json.RawMessage
	if err := json.Unmarshal(out, &raw); err != nil {
		t.Fatal(err)
	}
	for _, r := range raw {
		for _, k := range dialectic.CSVHeader() {
			if _, ok := r[k]; !ok {
				t.Errorf("row %s has no key %q", r["id"], k)
			}
		}
		if string(r["attacks"]) == "null" || string(r["defends"]) == "null" {
			t.Errorf("row %s has null links; want []", r["id"])
		}
	}
	if !bytes.Contains(out, []byte(`"current_score": null`)) {
		t.Error("an unscored argument should have current_score null")
	}
}

func TestExportCSV(t *testing.T) {
	deb := loadDir(t, hostileDir)
	out, err := dialectic.ExportCSV(deb, sm.Judgments{})
	if err != nil {
		t.Fatal(err)
	}
	recs, err := csv.NewReader(bytes.NewReader(out)).ReadAll()
	if err != nil {
		t.Fatalf("not CSV: %v", err)
	}
	if strings.Join(recs[0], ",") != strings.Join(dialectic.CSVHeader(), ",") {
		t.Errorf("header %v, want %v", recs[0], dialectic.CSVHeader())
	}
	if len(recs) != len(deb.Arguments)+1 {
		t.Fatalf("%d records for %d arguments and a header", len(recs), len(deb.Arguments))
	}
	col := map[string]int{}
	for i, h := range recs[0] {
		col[h] = i
	}
	for _, rec := range recs[1:] {
		r := exportRow{ID: rec[col["id"]], Side: rec[col["side"]], Title: rec[col["title"]], Claim: rec[col["claim"]], Reasoning: rec[col["reasoning"]]}
		var err error
		if r.Exchange, err = strconv.Atoi(rec[col["exchange"]]); err != nil {
			t.Fatal(err)
		}
		if r.Rescores, err = strconv.Atoi(rec[col["rescores"]]); err != nil {
			t.Fatal(err)
		}
		for _, f := range []struct {
			key string
			dst **float64
		}{{"current_score", &r.Score}, {"first_score", &r.FirstScore}} {
			if s := rec[col[f.key]]; s != "" {
				v, err := strconv.ParseFloat(s, 64)
				if err != nil {
					t.Fatalf("%s: %s: %v", r.ID, f.key, err)
				}
				*f.dst = &v
			}
		}
		r.Attacks, r.Defends = parsePairs(t, rec[col["attacks"]]), parsePairs(t, rec[col["defends"]])
		checkRow(t, deb, r)
	}
	if !bytes.HasPrefix(out, []byte("id,side,exchange,title,claim,")) || !bytes.HasSuffix(out, []byte("\r\n")) ||
		bytes.Count(out, []byte("\r\n")) != len(deb.Arguments)+1 {
		t.Error("RFC 4180 records end in CRLF, one per line")
	}
	// A line break inside a field reaches readers other than Go's as written.
	if !bytes.Contains(out, []byte("\"Backticks ``` and\nnewlines in titles\"")) {
		t.Error("the title with a line break is not kept as written, quoted")
	}
}

func parsePairs(t *testing.T, s string) []dialectic.Target {
	out := []dialectic.Target{}
	if s == "" {
		return out
	}
	for _, p := range strings.Split(s, ";") {
		id, typ, ok := strings.Cut(p, ":")
		if !ok {
			t.Fatalf("%q is not target:type", p)
		}
		out = append(out, dialectic.Target{TargetID: id, Type: typ})
	}
	return out
}

// TestExportJudges: every judge with a folder of its own gets a column
// (judge_NAME) with its scores, and every scored argument its strength
// from the graph alone.
func TestExportJudges(t *testing.T) {
	deb := loadDir(t, hostileDir)
	var j sm.Judgments
	j.Min, j.Max, j.Graph = -1, 1, true
	official := sm.JudgeScores{Name: "debate", Kind: sm.KindOfficial, Final: deb.Scores.Current(), First: map[string]float64{}}
	for _, a := range deb.Arguments {
		j.Items = append(j.Items, sm.Item{ID: a.ID, Unit: a.Exchange})
		if rec, ok := deb.Scores.Get(a.ID); ok {
			official.First[a.ID] = rec.History[0].Score
		}
	}
	first := deb.Arguments[0].ID
	j.Judges = []sm.JudgeScores{official, {Name: "again", Kind: sm.KindRejudge, Final: map[string]float64{first: 0.25}}}
	out, err := dialectic.ExportCSV(deb, j)
	if err != nil {
		t.Fatal(err)
	}
	recs, err := csv.NewReader(bytes.NewReader(out)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	header := recs[0]
	if header[len(header)-2] != "graph_strength" || header[len(header)-1] != "judge_again" {
		t.Fatalf("header ends %v, want graph_strength, judge_again", header[len(header)-2:])
	}
	if got := recs[1][len(header)-1]; recs[1][0] != first || got != "0.25" {
		t.Errorf("row %s: judge_again %q, want 0.25", recs[1][0], got)
	}
	if got := recs[2][len(header)-1]; got != "" {
		t.Errorf("row %s: judge_again %q, want empty (not scored by that judge)", recs[2][0], got)
	}
	// An argument no other argument attacks or defends keeps its base:
	// its first score mapped to [0, 1].
	for i, a := range deb.Arguments {
		rec, ok := deb.Scores.Get(a.ID)
		if !ok || attacked(deb, a.ID) {
			continue
		}
		want := (rec.History[0].Score + 1) / 2
		got, err := strconv.ParseFloat(recs[i+1][len(header)-2], 64)
		if err != nil || math.Abs(got-want) > 1e-6 {
			t.Errorf("%s: graph_strength %q, want its base %v", a.ID, recs[i+1][len(header)-2], want)
		}
	}
}

func attacked(deb *dialectic.Debate, id string) bool {
	for _, a := range deb.Arguments {
		for _, t := range append(append([]dialectic.Target(nil), a.Attacks...), a.Defends...) {
			if t.TargetID == id {
				return true
			}
		}
	}
	return false
}
