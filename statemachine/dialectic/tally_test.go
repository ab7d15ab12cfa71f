package dialectic_test

import (
	"testing"
	"testing/fstest"
	"time"

	sm "github.com/moot-dev/moot/statemachine"
	"github.com/moot-dev/moot/statemachine/dialectic"
	"github.com/moot-dev/moot/statemachine/dialectic/dialectictest"
)

// TestTally: dialectic's debate as moot run tells it (sm.TallyDebate):
// argued while its exchange waits for the judge, and each side's total
// and scored arguments as debate.md keeps them once judged.
func TestTally(t *testing.T) {
	p := dialectic.Protocol{}
	files, err := p.New(sm.NewInput{Slug: "tea", Motion: "This house prefers tea."})
	if err != nil {
		t.Fatal(err)
	}
	fsys := fstest.MapFS{}
	for _, f := range files {
		fsys[f.Name] = &fstest.MapFile{Data: f.Data}
	}
	load := func() sm.TallyDebate {
		t.Helper()
		deb, err := p.Load(fsys)
		if err != nil {
			t.Fatal(err)
		}
		td, ok := deb.(sm.TallyDebate)
		if !ok {
			t.Fatal("a dialectic debate is not an sm.TallyDebate")
		}
		return td
	}
	for i, argued := range []bool{false, true, false} {
		td := load()
		if td.ID() != "tea" {
			t.Errorf("step %d: id %q, want tea", i, td.ID())
		}
		if td.Argued() != argued {
			t.Errorf("step %d: argued %v, want %v", i, td.Argued(), argued)
		}
		if i == 2 {
			break
		}
		step, err := td.Next()
		if err != nil {
			t.Fatal(err)
		}
		answers := map[string]sm.Answer{}
		for _, c := range step.Calls {
			switch c.Role {
			case "proposition":
				answers[c.ID] = sm.Answer{Text: dialectictest.Answer(dialectic.Prop, step.Unit)}
			case "opposition":
				answers[c.ID] = sm.Answer{Text: dialectictest.Answer(dialectic.Opp, step.Unit)}
			default:
				answers[c.ID] = sm.Answer{Text: dialectictest.Judgment(step.Unit)}
			}
		}
		c, err := step.Apply(answers, time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC))
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range c.Files {
			fsys[f.Name] = &fstest.MapFile{Data: f.Data}
		}
	}
	deb, err := dialectic.Loaded(p.Load(fsys))
	if err != nil {
		t.Fatal(err)
	}
	h, got := deb.Header.Totals, load().Tally()
	want := sm.Tally{
		Proposition: sm.SideTally{Total: h.Proposition.Total, Count: h.Proposition.Count},
		Opposition:  sm.SideTally{Total: h.Opposition.Total, Count: h.Opposition.Count},
	}
	if got != want || got.Proposition.Count == 0 || got.Opposition.Count == 0 {
		t.Errorf("tally %+v, want %+v with every opening argument scored", got, want)
	}
	if s := p.FormatScore(0.3); s != "+0.30" {
		t.Errorf("FormatScore(0.3) = %q, want +0.30", s)
	}
}
