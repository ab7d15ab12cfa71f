package moderated_test

import (
	"encoding/csv"
	"strings"
	"testing"

	"github.com/moot-dev/moot/internal/testkit/protocoltest"
	sm "github.com/moot-dev/moot/statemachine"
	"github.com/moot-dev/moot/statemachine/moderated"
	"github.com/moot-dev/moot/statemachine/moderated/moderatedtest"
)

func loaded(t *testing.T, dir string) sm.Debate {
	t.Helper()
	return protocoltest.Load(t, moderated.Protocol{}, dir)
}

// TestReport: README.md shows the rounds, each scored statement's rubric
// as a table, a chart of the totals and the leader by mean marked as
// derived; report.html the same on one page; the CSV one row per
// statement with every criterion.
func TestReport(t *testing.T) {
	dir, _, _ := runAll(t, map[string]string{"rounds": "1"}, moderatedtest.Options{Marks: []float64{8, 6, 7, 7, 9}})
	deb := loaded(t, dir)
	files, err := deb.(sm.Reporter).Report()
	if err != nil || len(files) != 1 || files[0].Name != "README.md" {
		t.Fatalf("Report = %v, %v", files, err)
	}
	readme := string(files[0].Data)
	for _, want := range []string{
		"## Argument Round 1 of 1", "## Closing Statements", "## Conclusion",
		"| logical_coherence | 8 | 0.25 | 2 | JUST-logical_coherence-\\<\\<A-argument-r1\\>\\> |",
		"| **total** | **7.30** |",
		"## Statement totals", "| 008 | Advocate A | round 1 argument | 7.30 | `███████████████░░░░░` |",
		"Leader by mean: none: both at 7.30 (derived by moot",
	} {
		if !strings.Contains(readme, want) {
			t.Errorf("README.md lacks %q:\n%s", want, readme)
		}
	}
	page, err := deb.(sm.HTMLReporter).ReportHTML()
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"<svg", ">weighted total of the rubric (0 to 10)</text>", ">10</text>", "&lt;&lt;A-argument-r1&gt;&gt;", "<th>total</th><th>7.30</th>", "Leader by mean"} {
		if !strings.Contains(string(page), want) {
			t.Errorf("report.html lacks %q", want)
		}
	}
	if strings.Contains(string(page), "<<A-") {
		t.Errorf("report.html holds model text unescaped")
	}
	ex := deb.(sm.Exporter)
	if f := ex.Formats(); len(f) != 1 || f[0].Name != "csv" {
		t.Fatalf("formats %v", f)
	}
	data, err := ex.Export("csv")
	if err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(strings.NewReader(string(data))).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 1+8 {
		t.Fatalf("%d rows, want a header and 8 statements:\n%s", len(rows), data)
	}
	head := strings.Join(rows[0], ",")
	for _, c := range moderated.DefaultCriteria() {
		if !strings.Contains(head, c.Name+","+c.Name+"_justification") {
			t.Errorf("the header lacks %s: %s", c.Name, head)
		}
	}
	arg := rows[3] // A's round-1 argument
	if arg[0] != "8" || arg[4] != "argument" || arg[len(arg)-1] != "7.30" || arg[7] != "8" {
		t.Errorf("row of message 008: %v", arg)
	}
	if open := rows[1]; open[4] != "opening" || open[len(open)-1] != "" {
		t.Errorf("an opening has a score: %v", open)
	}
	if strings.Contains(strings.ToLower(readme+string(page)), "winner") {
		t.Errorf("the report names a winner")
	}
}

// TestCheck: check finds a file missing, a file ahead of the state, a
// total that is not its rubric's and a state that disagrees with itself.
func TestCheck(t *testing.T) {
	dir, fs, _ := runAll(t, map[string]string{"rounds": "1"}, moderatedtest.Options{})
	if f := loaded(t, dir).Check(); !f.OK() {
		t.Fatalf("a whole debate has problems: %v", f.Problems)
	}
	var msg, score string
	for k := range fs {
		if strings.HasPrefix(k, "messages/010_") {
			msg = k
		}
		if strings.HasPrefix(k, "scores/010_") {
			score = k
		}
	}
	tests := []struct {
		name string
		edit func(fs map[string]string)
		want string
	}{
		{"a message missing", func(fs map[string]string) { delete(fs, msg) }, "is missing: message 10 was given"},
		{"a score missing", func(fs map[string]string) { delete(fs, score) }, "is missing: message 10 was scored"},
		{"a total that is not its rubric's", func(fs map[string]string) {
			fs[score] = strings.Replace(fs[score], `"total": 7.3`, `"total": 10`, 1)
		}, "total is 10.00, but its criteria make 7.30"},
		{"a step out of step", func(fs map[string]string) {
			fs["debate.md"] = strings.Replace(fs["debate.md"], `"current_step": 25`, `"current_step": 24`, 1)
		}, "current_exchange is 3, but 24 steps done make 2"},
		{"a stray file", func(fs map[string]string) { fs["messages/notes.md"] = "x" }, "is not a message file"},
		{"a second total", func(fs map[string]string) {
			fs[score] = strings.Replace(fs[score], `"total": 7.3`, `"total": 7.3, "total": 10`, 1)
		}, `field "total" appears twice`},
		{"a criterion the debate does not have", func(fs map[string]string) {
			fs[score] = strings.Replace(fs[score], `"criteria": {`, `"criteria": {"charm": {"raw": 10, "weight": 1, "weighted": 10, "justification": "x"},`, 1)
		}, "criteria.charm is not a criterion of this debate"},
		{"a weight that is not the debate's", func(fs map[string]string) {
			fs[score] = strings.Replace(fs[score], `"weight": 0.25,`, `"weight": 0.5,`, 1)
		}, "weight is 0.5, but the debate weighs it 0.25"},
		{"a message's role changed", func(fs map[string]string) {
			fs[msg] = strings.Replace(fs[msg], `"role": "position_advocate"`, `"role": "moderator"`, 1)
		}, `role: "moderator", but message 10 is the position_advocate's`},
		{"a message's name changed", func(fs map[string]string) {
			fs[msg] = strings.Replace(fs[msg], `"name": "Advocate`, `"name": "Someone`, 1)
		}, `name: "Someone`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			edited := map[string]string{}
			for k, v := range fs {
				edited[k] = v
			}
			tt.edit(edited)
			d := t.TempDir()
			if err := writeTree(d, edited); err != nil {
				t.Fatal(err)
			}
			deb, err := moderated.Protocol{}.Load(osFS(d))
			if err != nil {
				t.Fatal(err)
			}
			f := deb.Check()
			var all []string
			for _, p := range f.Problems {
				all = append(all, p.String())
			}
			if !strings.Contains(strings.Join(all, "\n"), tt.want) {
				t.Errorf("problems %v, want one with %q", all, tt.want)
			}
		})
	}
}
