package dialectic_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/moot-dev/moot/statemachine/dialectic"
)

// genDebate writes the files of a debate of n judged exchanges: three
// openings a side, then one rebuttal a side per exchange that attacks up to
// three opposing arguments and defends up to two of its own, a zero-sum
// judgment per exchange and a rescore of each attacked argument. 500
// exchanges give 1,004 arguments.
func genDebate(t testing.TB, n int) dialectic.Raw {
	rng := rand.New(rand.NewPCG(uint64(n), 7))
	header, err := dialectic.NewHeader("bench", dialectic.Motion{Text: "This house would benchmark its reports."}).Render()
	if err != nil {
		t.Fatal(err)
	}
	deb, err := dialectic.Load(dialectic.Raw{Header: header})
	if err != nil {
		t.Fatal(err)
	}
	args := map[dialectic.Side][]string{}
	at := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	current := map[string]float64{}
	var all []*dialectic.Argument
	sentence := func(words int) string {
		s := ""
		for i := 0; i < words; i++ {
			if i > 0 {
				s += " "
			}
			s += fmt.Sprintf("word%d", rng.IntN(1000))
		}
		return s
	}
	for e := 0; e < n; e++ {
		var entries []dialectic.Entry
		var made []*dialectic.Argument
		for _, side := range dialectic.Sides() {
			for _, id := range dialectic.ArgumentIDs(e, side) {
				s := dialectic.Submission{
					Title: sentence(6), Claim: sentence(20), Warrant: sentence(40),
					Grounds: []dialectic.Ground{{Source: sentence(4), Content: sentence(80), Relevance: sentence(20)}},
				}
				if !dialectic.Opening(e) {
					opp := args[side.Other()]
					for k := 0; k < 1+rng.IntN(3); k++ {
						s.Attacks = append(s.Attacks, dialectic.Link{TargetID: opp[rng.IntN(len(opp))], Type: dialectic.AttackTypes()[rng.IntN(4)], Content: sentence(50)})
					}
					own := args[side]
					for k := 0; k < rng.IntN(3); k++ {
						s.Defends = append(s.Defends, dialectic.Link{TargetID: own[rng.IntN(len(own))], Type: dialectic.DefenceTypes()[rng.IntN(3)], Content: sentence(50)})
					}
				}
				made = append(made, dialectic.NewArgument(id, side, e, s))
			}
		}
		// A zero-sum judgment: each proposition score mirrored by the opposition.
		k := len(made) / 2
		for i := 0; i < k; i++ {
			s := math.Round((rng.Float64()-0.5)*100) / 100
			entries = append(entries,
				dialectic.Entry{ArgumentID: made[i].ID, Score: s, Reasoning: sentence(60)},
				dialectic.Entry{ArgumentID: made[k+i].ID, Score: -s, Reasoning: sentence(60)})
		}
		seen := map[string]bool{}
		for _, a := range made {
			for _, l := range a.Attacks {
				if seen[l.TargetID] {
					continue
				}
				seen[l.TargetID] = true
				prev := current[l.TargetID]
				next := math.Max(-1, prev-0.05)
				diff := dialectic.Round3(next - prev)
				entries = append(entries, dialectic.Entry{ArgumentID: l.TargetID, Score: next, Reasoning: sentence(30), TriggeredBy: a.ID, PreviousScore: &prev, Diff: &diff})
			}
		}
		all = append(all, made...)
		for _, a := range made {
			args[a.Side] = append(args[a.Side], a.ID)
		}
		deb.Scores.Apply(entries, at.Add(time.Duration(e)*time.Minute))
		for _, en := range entries {
			current[en.ArgumentID] = en.Score
		}
	}
	deb.Add(all...)
	deb.Header.State = dialectic.State{Exchange: n, Phase: dialectic.AwaitingArguments}
	deb.Header.Totals = dialectic.Cumulative(deb.Scores.Current())
	raw := dialectic.Raw{Arguments: map[string][]byte{}}
	if raw.Header, err = deb.Header.Render(); err != nil {
		t.Fatal(err)
	}
	if raw.Scores, err = deb.Scores.Render(); err != nil {
		t.Fatal(err)
	}
	for _, a := range deb.Arguments {
		data, err := a.Render()
		if err != nil {
			t.Fatal(err)
		}
		raw.Arguments[a.ID+".md"] = data
	}
	if ps := dialectic.Check(raw).Problems; len(ps) > 0 {
		t.Fatalf("the generated debate is broken: %v", ps[:min(5, len(ps))])
	}
	return raw
}

// TestGeneratedDebate checks the benchmarks' debates and the report of a
// long one: the trajectory ends at debate.md's totals and the graph is
// too big to embed, so the README says so instead.
func TestGeneratedDebate(t *testing.T) {
	raw := genDebate(t, 200)
	if len(raw.Arguments) != 404 {
		t.Fatalf("%d arguments, want 404", len(raw.Arguments))
	}
	deb, err := dialectic.Load(raw)
	if err != nil {
		t.Fatal(err)
	}
	r := dialectic.Build(deb, nil)
	an := dialectic.Analyze(deb)
	last := an.Trajectory[len(an.Trajectory)-1]
	if len(an.Trajectory) != 200 || last.Prop != deb.Header.Totals.Proposition.Total || last.Opp != deb.Header.Totals.Opposition.Total {
		t.Errorf("trajectory: %d points ending at %+v; debate.md says %+v", len(an.Trajectory), last, deb.Header.Totals)
	}
	md := string(r.Markdown())
	if !strings.Contains(md, "too large for GitHub to draw here") || strings.Contains(md, "```mermaid\ngraph TD") {
		t.Error("a 404-argument graph should not be embedded in README.md")
	}
	if !strings.Contains(md, `x-axis "exchange" 0 --> 199`) {
		t.Error("a long trajectory should use a numeric x axis")
	}
}

// benchReport measures what `moot report` does between reading the files
// and writing them: parse the debate, compute the report, render README.md
// and argument-graph.mmd (and report.html when html is set).
func benchReport(b *testing.B, exchanges int, html bool) {
	raw := genDebate(b, exchanges)
	if want := 6 + 2*(exchanges-1); len(raw.Arguments) != want {
		b.Fatalf("%d arguments, want %d", len(raw.Arguments), want)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		deb, err := dialectic.Load(raw)
		if err != nil {
			b.Fatal(err)
		}
		r := dialectic.Build(deb, nil)
		_ = r.Markdown()
		_ = r.GraphFile()
		if html {
			if _, err := r.HTML(); err != nil {
				b.Fatal(err)
			}
		}
	}
}

func BenchmarkReport20(b *testing.B)      { benchReport(b, 20, false) }
func BenchmarkReport500(b *testing.B)     { benchReport(b, 500, false) }
func BenchmarkReportHTML20(b *testing.B)  { benchReport(b, 20, true) }
func BenchmarkReportHTML500(b *testing.B) { benchReport(b, 500, true) }
