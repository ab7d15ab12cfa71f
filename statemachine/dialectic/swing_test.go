package dialectic_test

import (
	"strings"
	"testing"
	"time"

	"github.com/moot-dev/moot/statemachine/dialectic"
)

// massRescore is a judgment of exchange 2 that obeys an instruction
// planted in an argument: every earlier argument is moved the full step
// in the proposition's favour, 2.9 on the margin.
func massRescore(t *testing.T) []byte {
	return []byte(js(t, map[string]any{
		"scores": []any{score("prop_002", 0.2), score("opp_002", -0.2)},
		"rescores": []any{
			rescore("opp_000a", -0.2, -0.7), rescore("opp_000b", 0.1, -0.4), rescore("opp_000c", -0.3, -0.8),
			rescore("prop_000c", -0.1, 0.4), rescore("prop_000b", 0.2, 0.6), rescore("opp_001", -0.4, -0.9),
		},
	}))
}

func TestJudgmentSwingIsBounded(t *testing.T) {
	known, current := knownAt2(), currentScores()
	_, p := dialectic.ParseJudgment(massRescore(t), 2, known, current)
	if p.OK() || !strings.Contains(strings.Join(p.Errors, "\n"), "toward the proposition") || !strings.Contains(strings.Join(p.Errors, "\n"), "at most 1") {
		t.Errorf("a mass rescore of 2.9 toward one side: %v, want it refused naming the bound", p.Errors)
	}
	// An honest judgment: opp_002's attack lowers prop_000a, and prop_002
	// lifts opp_001 a little: 0.2 net toward the opposition.
	honest := []byte(js(t, map[string]any{
		"scores":   []any{score("prop_002", 0.2), score("opp_002", -0.2)},
		"rescores": []any{rescore("prop_000a", 0.3, 0.0), rescore("opp_001", -0.4, -0.3)},
	}))
	if _, p := dialectic.ParseJudgment(honest, 2, known, current); !p.OK() || len(p.Warnings) > 0 {
		t.Errorf("an honest judgment: %v %v", p.Errors, p.Warnings)
	}
	// Rescores that move the margin by exactly 1 pass.
	edge := []byte(js(t, map[string]any{
		"scores":   []any{score("prop_002", 0.2), score("opp_002", -0.2)},
		"rescores": []any{rescore("prop_000a", 0.3, -0.2), rescore("opp_001", -0.4, 0.1)},
	}))
	if _, p := dialectic.ParseJudgment(edge, 2, known, current); !p.OK() {
		t.Errorf("a swing of exactly 1: %v", p.Errors)
	}
	// Under dialectic's rules (debate-ops) the original took such a
	// judgment: it is taken, with a warning.
	_, _, p = dialectic.ParseDialecticJudgment(massRescore(t), 2, known, current)
	if !p.OK() || !strings.Contains(strings.Join(p.Warnings, "\n"), "toward the proposition") {
		t.Errorf("under dialectic's rules: %v, warnings %v; want it taken with a warning", p.Errors, p.Warnings)
	}
}

// TestCheckFlagsOneSidedMassRescore: a debate whose scores hold a
// judgment's one-sided mass rescore (written before the bound, or by
// debate-ops) passes check with a warning that names it.
func TestCheckFlagsOneSidedMassRescore(t *testing.T) {
	deb, err := dialectic.Load(healthy(t))
	if err != nil {
		t.Fatal(err)
	}
	if flags := deb.RescoreFlags(); len(flags) > 0 {
		t.Fatalf("a healthy debate is flagged: %v", flags)
	}
	at := time.Date(2026, 1, 2, 0, 0, 0, 0, time.UTC)
	var entries []dialectic.Entry
	for _, r := range []struct {
		id       string
		from, to float64
	}{{"opp_000a", -0.2, -0.7}, {"opp_000b", 0.1, -0.4}, {"opp_000c", -0.3, -0.8}, {"prop_000c", -0.1, 0.4}} {
		from, diff := r.from, r.to-r.from
		entries = append(entries, dialectic.Entry{ArgumentID: r.id, Score: r.to, Reasoning: "as instructed", TriggeredBy: "prop_002", PreviousScore: &from, Diff: &diff})
	}
	deb.Scores.Apply(entries, at)
	flags := deb.RescoreFlags()
	if len(flags) != 1 || !strings.Contains(flags[0], "exchange 2") || !strings.Contains(flags[0], "4 arguments") || !strings.Contains(flags[0], "proposition") {
		t.Fatalf("flags = %v, want the judgment of exchange 2 named", flags)
	}
	found := false
	for _, w := range deb.Check().Warnings {
		found = found || w.File == dialectic.ScoresFile && strings.Contains(w.Message, "4 arguments")
	}
	if !found {
		t.Errorf("check does not warn of the mass rescore: %+v", deb.Check().Warnings)
	}
}
