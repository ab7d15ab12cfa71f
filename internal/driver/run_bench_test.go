package driver_test

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	driver "github.com/moot-dev/moot/internal/driver"
	"github.com/moot-dev/moot/internal/testkit/modeltest"
	"github.com/moot-dev/moot/statemachine/dialectic"
	"github.com/moot-dev/moot/statemachine/dialectic/dialectictest/sparring"
	"github.com/moot-dev/moot/templates"
)

// BenchmarkThreeExchanges runs three exchanges against a fake server that
// takes 500 ms per answer: the target is under 3.5 s, two model latencies
// per exchange plus moot's own time.
func BenchmarkThreeExchanges(b *testing.B) {
	srv := modeltest.NewServer(b, sparring.Handler(sparring.Options{Delay: 500 * time.Millisecond}))
	c := client(b, srv)
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		d, err := driver.Create(filepath.Join(b.TempDir(), "bench"), "bench", dialectic.Motion{Text: "This house would benchmark."})
		if err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		if _, err := driver.Run(context.Background(), d, driver.Goal{Exchange: 3}, options(c)); err != nil {
			b.Fatal(err)
		}
		d.Close()
	}
}

// BenchmarkPhaseOverhead measures moot's own time per phase against a fake
// server that answers at once: prompt building, validation, the commit with
// its fsyncs, and the loopback HTTP round trips.
func BenchmarkPhaseOverhead(b *testing.B) {
	srv := modeltest.NewServer(b, sparring.Handler(sparring.Options{}))
	c := client(b, srv)
	d, err := driver.Create(filepath.Join(b.TempDir(), "bench"), "bench", dialectic.Motion{Text: "This house would benchmark."})
	if err != nil {
		b.Fatal(err)
	}
	defer d.Close()
	b.ResetTimer()
	if _, err := driver.Run(context.Background(), d, driver.Goal{Steps: b.N}, options(c)); err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(float64(b.Elapsed().Milliseconds())/float64(b.N), "ms/phase")
}

// TestPromptSizes runs a 10-exchange debate and checks how the prompts
// grow. Every role sees the debate in full, each argument once, so that a
// provider's prefix cache serves what it saw before: the judge's prompt
// grows as the debaters' do, by the exchange's two arguments, plus a
// line of current score for each earlier argument, and never by more
// (an argument shown twice, or a transcript repeated, would). With -v it
// prints the estimated prompt tokens of every role per exchange.
func TestPromptSizes(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a 10-exchange debate; skipped with -short")
	}
	srv := modeltest.NewServer(t, sparring.Handler(sparring.Options{}))
	d := newRunDebate(t)
	// The full judge context, in which the judge, like the debaters, sees
	// every argument once (bench/judgectx measures the focused default).
	opts := options(client(t, srv))
	opts.Overrides.JudgeContext = string(dialectic.ContextFull)
	// Ten exchanges show the growth from the third on, steady enough to
	// compare; each step reads the whole debate, so that twenty cost four
	// times as much for the same check.
	const exchanges = 10
	if _, err := driver.Run(context.Background(), d, driver.Goal{Exchange: exchanges}, opts); err != nil {
		t.Fatal(err)
	}
	sizes := map[string][]int{}
	for _, r := range srv.Requests() {
		n := 0
		for _, m := range r.Messages {
			n += len(m.Content)
		}
		role := modeltest.RoleOf(r)
		sizes[role] = append(sizes[role], n/4) // about four characters a token
	}
	judge, prop := sizes[modeltest.Judge], sizes[modeltest.Proposition]
	if len(judge) != exchanges || len(prop) != exchanges {
		t.Fatalf("got %d judge and %d proposition prompts, want %d each", len(judge), len(prop), exchanges)
	}
	for x := 0; x < exchanges; x++ {
		t.Logf("exchange %2d: proposition %5d tok, opposition %5d tok, judge %5d tok", x, prop[x], sizes[modeltest.Opposition][x], judge[x])
	}
	// Each exchange adds two full arguments to every prompt; the judge's
	// also gains the two score lines of the exchange before (a few
	// tokens each).
	last := exchanges - 1
	debaterGrowth := float64(prop[last]-prop[2]) / float64(last-2)
	judgeGrowth := float64(judge[last]-judge[2]) / float64(last-2)
	if debaterGrowth <= 0 || judgeGrowth < debaterGrowth*0.9 || judgeGrowth > debaterGrowth*1.15 {
		t.Errorf("the judge's prompt grows by %.0f tokens an exchange, the debaters' by %.0f: want about the same, each argument shown once to each role", judgeGrowth, debaterGrowth)
	}
}

// TestPromptsArePure checks that building a prompt twice from the same
// files gives the same messages, which is what makes a resumed run ask
// exactly what an uninterrupted one would.
func TestPromptsArePure(t *testing.T) {
	srv := modeltest.NewServer(t, sparring.Handler(sparring.Options{}))
	d := newRunDebate(t)
	if _, err := driver.Run(context.Background(), d, driver.Goal{Exchange: 2}, options(client(t, srv))); err != nil {
		t.Fatal(err)
	}
	a, _ := driver.Load(d)
	b, _ := driver.Load(d)
	for _, build := range []func(*dialectic.Debate) (dialectic.Prompt, error){
		func(x *dialectic.Debate) (dialectic.Prompt, error) {
			return dialectic.Debater(templates.Default(), x, "prop")
		},
		func(x *dialectic.Debate) (dialectic.Prompt, error) {
			return dialectic.Debater(templates.Default(), x, "opp")
		},
	} {
		pa, err1 := build(a)
		pb, err2 := build(b)
		if err1 != nil || err2 != nil {
			t.Fatal(err1, err2)
		}
		if fmt.Sprint(pa.Messages) != fmt.Sprint(pb.Messages) {
			t.Error("the same files gave two different prompts")
		}
	}
}
