package dialectic_test

import (
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/moot-dev/moot/statemachine/dialectic"
)

func score(id string, s float64) map[string]any {
	return map[string]any{"argument_id": id, "score": s, "reasoning": "Because of its evidence."}
}

func rescore(id string, old, new float64) map[string]any {
	return map[string]any{"argument_id": id, "old_score": old, "new_score": new, "reasoning": "The rebuttal changed things."}
}

// currentScores are the scores of the debate of debateKnown after the
// judgments of exchanges 0 and 1, as it waits for the judgment of 2.
func currentScores() map[string]float64 {
	return map[string]float64{
		"prop_000a": 0.3, "prop_000b": 0.2, "prop_000c": -0.1,
		"opp_000a": -0.2, "opp_000b": 0.1, "opp_000c": -0.3,
		"prop_001": 0.4, "opp_001": -0.4,
	}
}

// knownAt2 is debateKnown with the arguments of exchange 2 accepted:
// opp_002 attacks prop_000a, prop_002 defends prop_001.
func knownAt2() dialectic.Known {
	k := debateKnown()
	k["prop_002"] = dialectic.Arg{Side: dialectic.Prop, Exchange: 2, Targets: []string{"prop_001"}}
	k["opp_002"] = dialectic.Arg{Side: dialectic.Opp, Exchange: 2, Targets: []string{"prop_000a", "opp_001"}}
	return k
}

func knownAt0() dialectic.Known {
	k := dialectic.Known{}
	for id, a := range debateKnown() {
		if a.Exchange == 0 {
			k[id] = a
		}
	}
	return k
}

func scores(items ...any) map[string]any { return map[string]any{"scores": items} }

func TestParseJudgment(t *testing.T) {
	s2 := func(p, o float64) map[string]any { return scores(score("prop_002", p), score("opp_002", o)) }
	withRescores := func(j map[string]any, rs ...any) map[string]any { return with(j, "rescores", rs) }
	tests := []struct {
		name     string
		exchange int // 2 unless the opening (0) is meant
		answer   string
		errs     []string
		warns    []string
		noWarn   bool
	}{
		// Forms.
		{name: "scores form", exchange: 2, answer: js(t, s2(0.25, -0.25)), noWarn: true},
		{name: "scores form in a fence", exchange: 2, answer: "My verdict:\n```json\n" + js(t, s2(0.25, -0.25)) + "\n```", noWarn: true},
		{name: "opening scores", exchange: 0, answer: js(t, scores(score("prop_000a", 0.3), score("prop_000b", 0.2), score("prop_000c", -0.5), score("opp_000a", 0.1), score("opp_000b", 0), score("opp_000c", -0.1))), noWarn: true},
		// The single-score form parses as a score: it can only fall short of
		// scoring every argument, since every exchange has at least two.
		{name: "single-score form is read as one score", exchange: 2, answer: js(t, score("prop_002", 0)), errs: []string{"missing scores for opp_002"}},
		{name: "single-score form names its score", exchange: 2, answer: js(t, score("prop_002", 1.5)), errs: []string{"score: score 1.5 of prop_002 is outside [-1, 1]"}},
		{name: "scores form of one entry names it by index", exchange: 2, answer: js(t, scores(score("prop_002", 1.5))), errs: []string{"scores[0]: score 1.5 of prop_002 is outside [-1, 1]"}},
		{name: "single-score form names bad fields", exchange: 2, answer: js(t, map[string]any{"argument_id": "prop_002", "score": "high", "reasoning": ""}), errs: []string{"score: must be a number, found a string", "reasoning: must not be empty"}},
		{name: "neither form", exchange: 2, answer: `{"verdict": "prop wins"}`, errs: []string{`the judgment needs "scores"`}},
		{name: "a bare string", exchange: 2, answer: `"prop_002: 0.2"`, errs: []string{"the judgment must be a JSON object, found a string"}},
		{name: "a bare null", exchange: 2, answer: "null", errs: []string{"the judgment must be a JSON object, found null"}},
		{name: "an array", exchange: 2, answer: js(t, []any{score("prop_002", 0), score("opp_002", 0)}), errs: []string{"the judgment must be a JSON object, found an array"}},
		{name: "invalid JSON", exchange: 2, answer: `{"scores": [}`, errs: []string{"judgment: invalid JSON at line 1, column 13: invalid character '}'"}},
		{name: "invalid JSON on a later line", exchange: 2, answer: "{\"scores\": [\n  {\"argument_id\": \"prop_002\", \"score\": 0.5 ;},\n]}", errs: []string{"judgment: invalid JSON at line 2, column 44: invalid character ';' after object key:value pair"}},
		// A trailing comma is read as a person reads it (see internal/lenient).
		{name: "trailing commas", exchange: 2, answer: "{\"scores\": [\n  {\"argument_id\": \"prop_002\", \"score\": 0.5,},\n]}", errs: []string{"scores[0].reasoning: is required"}},
		{name: "scores not an array", exchange: 2, answer: js(t, map[string]any{"scores": score("prop_002", 0)}), errs: []string{"scores: must be an array, found an object"}},
		{name: "score not an object", exchange: 2, answer: js(t, scores(score("prop_002", 0), 0.5)), errs: []string{"scores[1]: must be a JSON object, found a number"}},
		{name: "score a string", exchange: 2, answer: js(t, scores(score("prop_002", 0), with(score("opp_002", 0), "score", "none"))), errs: []string{"scores[1].score: must be a number, found a string"}},
		// A score written as a string that reads as a number on the scale
		// from -1 to 1 is that number (see internal/lenient).
		{name: "score a string of a number", exchange: 2, answer: js(t, scores(score("prop_002", 0), with(score("opp_002", 0), "score", "0"))), noWarn: true},
		{name: "score a fraction", exchange: 2, answer: js(t, scores(with(score("prop_002", 0), "score", "0/10"), with(score("opp_002", 0), "score", "0 out of 1"))), noWarn: true},
		{name: "ids dressed", exchange: 2, answer: js(t, scores(with(score("prop_002", 0), "argument_id", " “prop_002” "), with(score("opp_002", 0), "argument_id", "**opp_002**"))), noWarn: true},
		{name: "score missing", exchange: 2, answer: js(t, scores(score("prop_002", 0), with(score("opp_002", 0), "score", del))), errs: []string{"scores[1].score: is required"}},
		{name: "reasoning missing", exchange: 2, answer: js(t, scores(with(score("prop_002", 0), "reasoning", del), score("opp_002", 0))), errs: []string{"scores[0].reasoning: is required"}},
		{name: "reasoning blank", exchange: 2, answer: js(t, scores(with(score("prop_002", 0), "reasoning", " "), score("opp_002", 0))), errs: []string{"scores[0].reasoning: must not be empty"}},
		{name: "argument_id a number", exchange: 2, answer: js(t, scores(with(score("prop_002", 0), "argument_id", 2), score("opp_002", 0))), errs: []string{"scores[0].argument_id: must be a string, found a number"}},
		{name: "unknown key at the top", exchange: 2, answer: js(t, with(s2(0.1, -0.1), "winner", "prop")), warns: []string{`ignored unknown key "winner"`}},
		{name: "unknown key in a score", exchange: 2, answer: js(t, scores(with(score("prop_002", 0.1), "confidence", 1), score("opp_002", -0.1))), warns: []string{`scores[0]: ignored unknown key "confidence"`}},

		// Every argument of the exchange scored exactly once, nothing else.
		{name: "one missing", exchange: 2, answer: js(t, scores(score("prop_002", 0))), errs: []string{"missing scores for opp_002"}},
		{name: "opening missing two", exchange: 0, answer: js(t, scores(score("prop_000a", 0.3), score("prop_000b", -0.3), score("opp_000a", 0), score("opp_000b", 0))), errs: []string{"missing scores for prop_000c, opp_000c"}},
		{name: "scored twice", exchange: 2, answer: js(t, scores(score("prop_002", 0.1), score("prop_002", 0.1), score("opp_002", -0.1))), errs: []string{"scores[1]: prop_002 is scored twice"}},
		{name: "earlier argument scored", exchange: 2, answer: js(t, scores(score("prop_002", 0.1), score("opp_002", -0.1), score("prop_001", 0))), errs: []string{"scores[2]: prop_001 is from exchange 1; change an earlier score with a rescore"}},
		{name: "later argument scored", exchange: 2, answer: js(t, scores(score("prop_002", 0.1), score("opp_002", -0.1), score("opp_003", 0))), errs: []string{"scores[2]: opp_003 is not an argument of exchange 2 (score exactly prop_002, opp_002)"}},
		{name: "not an id scored", exchange: 2, answer: js(t, scores(score("prop_002", 0.1), score("opp_002", -0.1), score("../debate.md", 0))), errs: []string{"is not an argument of exchange 2"}},

		// Range [-1, 1].
		{name: "the limits", exchange: 2, answer: js(t, s2(1, -1)), noWarn: true},
		{name: "above 1", exchange: 2, answer: js(t, s2(1.5, -1.5)), errs: []string{"score 1.5 of prop_002 is outside [-1, 1]", "score -1.5 of opp_002 is outside [-1, 1]"}},
		{name: "just above 1", exchange: 2, answer: js(t, s2(1.001, -1.001)), errs: []string{"outside [-1, 1]"}},
		{name: "huge number", exchange: 2, answer: `{"scores": [{"argument_id": "prop_002", "score": 1e999, "reasoning": "x"}, {"argument_id": "opp_002", "score": 0, "reasoning": "x"}]}`, errs: []string{"scores[0].score: must be a finite number"}},
		{name: "NaN literal", exchange: 2, answer: `{"scores": [{"argument_id": "prop_002", "score": NaN, "reasoning": "x"}]}`, errs: []string{"invalid JSON"}},
		{name: "Infinity literal", exchange: 2, answer: `{"scores": [{"argument_id": "prop_002", "score": Infinity, "reasoning": "x"}]}`, errs: []string{"invalid JSON"}},

		// Zero sum, tolerance 0.01.
		{name: "zero sum with binary error", exchange: 0, answer: js(t, scores(score("prop_000a", 0.3), score("prop_000b", 0.2), score("prop_000c", -0.5), score("opp_000a", 0.1), score("opp_000b", 0.2), score("opp_000c", -0.3))), noWarn: true},
		{name: "sum of exactly 0.01", exchange: 2, answer: js(t, s2(0.505, -0.495)), noWarn: true},
		{name: "sum of -0.01", exchange: 2, answer: js(t, s2(-0.3, 0.29)), noWarn: true},
		{name: "sum of 0.011", exchange: 2, answer: js(t, s2(0.511, -0.5)), errs: []string{"the scores sum to 0.011, not 0"}},
		{name: "sum of -0.011", exchange: 2, answer: js(t, s2(-0.511, 0.5)), errs: []string{"sum to -0.011"}},
		{name: "both positive", exchange: 2, answer: js(t, s2(0.5, 0.5)), errs: []string{"sum to 1, not 0"}},

		// Rescores.
		{name: "rescore of an earlier argument", exchange: 2, answer: js(t, withRescores(s2(0.2, -0.2), rescore("prop_000a", 0.3, 0.1))), noWarn: true},
		{name: "rescores are not zero-sum", exchange: 2, answer: js(t, withRescores(s2(0.2, -0.2), rescore("prop_000a", 0.3, 0.7), rescore("opp_001", -0.4, -0.1))), noWarn: true},
		{name: "rescore with the single-score form", exchange: 1, answer: js(t, with(score("prop_001", 0), "rescores", []any{rescore("opp_000a", -0.2, 0)})), errs: []string{"missing scores for opp_001"}},
		{name: "rescore of the current exchange", exchange: 2, answer: js(t, withRescores(s2(0.2, -0.2), rescore("opp_002", -0.2, 0))), errs: []string{"rescores[0]: opp_002 is from exchange 2; only arguments of earlier exchanges"}},
		{name: "rescore twice", exchange: 2, answer: js(t, withRescores(s2(0.2, -0.2), rescore("prop_000a", 0.3, 0.2), rescore("prop_000a", 0.3, 0.1))), errs: []string{"rescores[1]: prop_000a is rescored twice in one judgment"}},
		{name: "rescore of nothing", exchange: 2, answer: js(t, withRescores(s2(0.2, -0.2), rescore("opp_000d", 0, 0))), errs: []string{"rescores[0].argument_id:", "not an argument id"}},
		{name: "rescore of a missing argument", exchange: 4, answer: js(t, withRescores(scores(score("prop_004", 0), score("opp_004", 0)), rescore("prop_003", 0, 0))), errs: []string{"rescores[0]: prop_003 does not exist in this debate"}},
		{name: "rescore by exactly 0.5", exchange: 2, answer: js(t, withRescores(s2(0.2, -0.2), rescore("prop_000a", 0.3, -0.2))), noWarn: true},
		{name: "rescore by more than 0.5", exchange: 2, answer: js(t, withRescores(s2(0.2, -0.2), rescore("prop_000a", 0.3, -0.21))), errs: []string{"rescores[0]: new_score -0.21 moves prop_000a by 0.51 from its current 0.3; a rescore moves at most 0.5"}},
		{name: "rescore out of range", exchange: 2, answer: js(t, withRescores(s2(0.2, -0.2), rescore("prop_001", 0.4, 1.2))), errs: []string{"rescores[0]: new_score 1.2 is outside [-1, 1]"}},
		{name: "rescore new_score missing", exchange: 2, answer: js(t, withRescores(s2(0.2, -0.2), with(rescore("prop_001", 0.4, 0), "new_score", del))), errs: []string{"rescores[0].new_score: is required"}},
		{name: "rescore new_score huge", exchange: 2, answer: `{"scores": [{"argument_id": "prop_002", "score": 0, "reasoning": "x"}, {"argument_id": "opp_002", "score": 0, "reasoning": "x"}], "rescores": [{"argument_id": "prop_001", "new_score": -1e400, "reasoning": "x"}]}`, errs: []string{"rescores[0].new_score: must be a finite number"}},
		{name: "rescore without reasoning", exchange: 2, answer: js(t, withRescores(s2(0.2, -0.2), with(rescore("prop_001", 0.4, 0.3), "reasoning", del))), errs: []string{"rescores[0].reasoning: is required"}},
		{name: "rescores not an array", exchange: 2, answer: js(t, with(s2(0.2, -0.2), "rescores", rescore("prop_001", 0.4, 0.3))), errs: []string{"rescores: must be an array, found an object"}},
		{name: "old_score mismatch warns", exchange: 2, answer: js(t, withRescores(s2(0.2, -0.2), rescore("prop_000a", 0.9, 0.1))), warns: []string{"rescores[0]: old_score 0.9 of prop_000a differs from its current score 0.3"}},
		{name: "old_score absent", exchange: 2, answer: js(t, withRescores(s2(0.2, -0.2), with(rescore("prop_000a", 0, 0.1), "old_score", del))), noWarn: true},
		{name: "triggered_by of the exchange", exchange: 2, answer: js(t, withRescores(s2(0.2, -0.2), with(rescore("prop_000a", 0.3, 0.1), "triggered_by", "prop_002"))), noWarn: true},
		{name: "triggered_by of another exchange", exchange: 2, answer: js(t, withRescores(s2(0.2, -0.2), with(rescore("prop_000a", 0.3, 0.1), "triggered_by", "opp_001"))), errs: []string{"rescores[0].triggered_by: opp_001 is not an argument of exchange 2"}},
		{name: "unknown key in a rescore", exchange: 2, answer: js(t, withRescores(s2(0.2, -0.2), with(rescore("prop_000a", 0.3, 0.1), "why", "x"))), warns: []string{`rescores[0]: ignored unknown key "why"`}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			known, current := knownAt2(), currentScores()
			switch tc.exchange {
			case 0:
				known, current = knownAt0(), map[string]float64{}
			case 1:
				known = debateKnown()
				delete(current, "prop_001")
				delete(current, "opp_001")
			}
			j, p := dialectic.ParseJudgment([]byte(tc.answer), tc.exchange, known, current)
			if tc.errs == nil {
				if !p.OK() {
					t.Fatalf("refused, want accepted: %q", p.Errors)
				}
				if len(j.Scores) != 2*dialectic.ArgumentsPerSide(tc.exchange) {
					t.Errorf("got %d scores", len(j.Scores))
				}
			} else {
				if p.OK() {
					t.Fatalf("accepted, want errors %q", tc.errs)
				}
				if len(j.Scores) != 0 || len(j.Rescores) != 0 {
					t.Errorf("refused judgment still returned %+v", j)
				}
				if miss := missingFrom(p.Errors, tc.errs); len(miss) > 0 {
					t.Errorf("errors %q\nlack %q", p.Errors, miss)
				}
			}
			if miss := missingFrom(p.Warnings, tc.warns); len(miss) > 0 {
				t.Errorf("warnings %q\nlack %q", p.Warnings, miss)
			}
			if tc.noWarn && len(p.Warnings) > 0 {
				t.Errorf("unexpected warnings %q", p.Warnings)
			}
			for _, e := range p.Errors {
				if strings.Contains(e, "NaN") || strings.Contains(e, "Inf") {
					t.Errorf("error shows a non-finite number: %q", e)
				}
			}
		})
	}
}

func TestParseJudgmentValues(t *testing.T) {
	answer := js(t, with(scores(score("opp_002", -0.35), score("prop_002", 0.35)), "rescores", []any{rescore("opp_000b", 0.1, 0.3)}))
	j, p := dialectic.ParseJudgment([]byte(answer), 2, knownAt2(), currentScores())
	if !p.OK() {
		t.Fatalf("refused: %q", p.Errors)
	}
	if len(j.Scores) != 2 || j.Scores[0].ArgumentID != "opp_002" || j.Scores[0].Score != -0.35 || j.Scores[1].ArgumentID != "prop_002" || j.Scores[1].Reasoning != "Because of its evidence." {
		t.Errorf("scores %+v", j.Scores)
	}
	if len(j.Rescores) != 1 {
		t.Fatalf("rescores %+v", j.Rescores)
	}
	r := j.Rescores[0]
	if r.ArgumentID != "opp_000b" || r.NewScore != 0.3 || r.OldScore == nil || *r.OldScore != 0.1 || r.TriggeredBy != "" {
		t.Errorf("rescore %+v", r)
	}
}

func TestEntries(t *testing.T) {
	base := scores(score("opp_002", 0.2), score("prop_002", -0.2))
	tests := []struct {
		name    string
		rescore map[string]any
		want    string // the triggered_by of the rescore's entry
	}{
		// The judge said who caused it.
		{name: "explicit", rescore: with(rescore("prop_001", 0.4, 0.2), "triggered_by", "opp_002"), want: "opp_002"},
		{name: "explicit even when another attacks it", rescore: with(rescore("prop_000a", 0.3, 0.2), "triggered_by", "prop_002"), want: "prop_002"},
		// opp_002 attacks prop_000a.
		{name: "the argument that attacks it", rescore: rescore("prop_000a", 0.3, 0.1), want: "opp_002"},
		// prop_002 defends prop_001, though the judge listed opp_002 first.
		{name: "the argument that defends it", rescore: rescore("prop_001", 0.4, 0.6), want: "prop_002"},
		// Nothing of exchange 2 touches opp_000c: the first argument of the
		// exchange in moot's order, whatever order the judge used.
		{name: "else the first scored", rescore: rescore("opp_000c", -0.3, -0.1), want: "prop_002"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			answer := js(t, with(base, "rescores", []any{tc.rescore}))
			j, p := dialectic.ParseJudgment([]byte(answer), 2, knownAt2(), currentScores())
			if !p.OK() {
				t.Fatalf("refused: %q", p.Errors)
			}
			es := j.Entries(knownAt2(), currentScores())
			if len(es) != 3 {
				t.Fatalf("got %d entries, want 3", len(es))
			}
			// Scores first, in the judge's order, and not rescores.
			if es[0].ArgumentID != "opp_002" || es[0].Score != 0.2 || es[1].ArgumentID != "prop_002" || es[1].Score != -0.2 {
				t.Errorf("score entries %+v %+v", es[0], es[1])
			}
			for _, e := range es[:2] {
				if e.TriggeredBy != "" || e.PreviousScore != nil || e.Diff != nil {
					t.Errorf("score entry %s carries rescore fields: %+v", e.ArgumentID, e)
				}
			}
			r := es[2]
			if r.TriggeredBy != tc.want {
				t.Errorf("triggered_by %q, want %q", r.TriggeredBy, tc.want)
			}
			id := tc.rescore["argument_id"].(string)
			prev := currentScores()[id]
			newScore := tc.rescore["new_score"].(float64)
			if r.ArgumentID != id || r.Score != newScore || r.PreviousScore == nil || *r.PreviousScore != prev {
				t.Errorf("rescore entry %+v, want %s from %g to %g", r, id, prev, newScore)
			}
			if r.Diff == nil || *r.Diff != dialectic.Round3(newScore-prev) {
				t.Errorf("diff %v, want %g", r.Diff, dialectic.Round3(newScore-prev))
			}
		})
	}
}

func TestEntriesDiffRounded(t *testing.T) {
	// 0.1 - 0.3 is -0.19999999999999998 in binary; the diff is stored as -0.2.
	cur := map[string]float64{"prop_000a": 0.3}
	known := knownAt0()
	known["prop_001"] = dialectic.Arg{Side: dialectic.Prop, Exchange: 1}
	known["opp_001"] = dialectic.Arg{Side: dialectic.Opp, Exchange: 1}
	answer := js(t, with(scores(score("prop_001", 0), score("opp_001", 0)), "rescores", []any{rescore("prop_000a", 0.3, 0.1)}))
	j, p := dialectic.ParseJudgment([]byte(answer), 1, known, cur)
	if !p.OK() {
		t.Fatalf("refused: %q", p.Errors)
	}
	es := j.Entries(known, cur)
	if d := *es[2].Diff; d != -0.2 {
		t.Errorf("diff %v, want -0.2", d)
	}
}

func TestRound3(t *testing.T) {
	// Every want below is what Python 3 prints for round(in, 3): dialectic
	// rounds with it, and moot must write the same totals and diffs. Python
	// rounds the exact binary value of in, and a value that is exactly half
	// way (0.0625 is, in binary) goes to the even digit. The one deliberate
	// difference: Python gives -0.0 for round(-0.0001, 3), moot writes 0.
	tests := []struct{ in, want float64 }{
		{0.1 + 0.2, 0.3},
		{-2.0500000000000003, -2.05},
		{0.12345, 0.123},
		{0.1236, 0.124},
		{-0.0004, 0},
		{1e-12, 0},
		{-1e-12, 0},
		{-0.0001, 0},
		// Exact halves in binary: ties to even.
		{0.0625, 0.062},
		{-0.0625, -0.062},
		{0.5625, 0.562},
		{0.1875, 0.188},
		{-0.1875, -0.188},
		{0.3125, 0.312},
		{0.9375, 0.938},
		// Decimal halves that are not halves in binary: the binary value
		// decides, above or below the half.
		{0.0005, 0.001},
		{-0.0005, -0.001},
		{0.0015, 0.002},
		{0.0025, 0.003},
		{0.0045, 0.004},
		{-0.0045, -0.004},
		{0.0125, 0.013},
		{0.0135, 0.013},
		{0.0715, 0.071},
		{0.0725, 0.072},
		{0.1235, 0.123},
		{1.0005, 1.0},
		{-1.0005, -1.0},
		{1.2345, 1.234},
		{-1.2345, -1.234},
		{2.0675, 2.067},
		{12.3455, 12.345},
		{0.000499, 0},
	}
	for _, tc := range tests {
		t.Run(strconv.FormatFloat(tc.in, 'g', -1, 64), func(t *testing.T) {
			got := dialectic.Round3(tc.in)
			if got != tc.want || math.Signbit(got) != math.Signbit(tc.want) {
				t.Errorf("Round3(%v) = %v, want %v (Python's round)", tc.in, got, tc.want)
			}
		})
	}
}

// TestCumulativeRoundsAsPython checks the totals of debate.md: one
// argument scored 0.0625 against one scored -0.0625 gives totals of 0.062
// and -0.062 in dialectic, so in moot too.
func TestCumulativeRoundsAsPython(t *testing.T) {
	got := dialectic.Cumulative(map[string]float64{"prop_000a": 0.0625, "opp_000a": -0.0625})
	if got.Proposition.Total != 0.062 || got.Opposition.Total != -0.062 {
		t.Errorf("totals %v and %v, want 0.062 and -0.062", got.Proposition.Total, got.Opposition.Total)
	}
}

// TestRescoreMessagesShowExactScores checks that a message about a rescore
// shows the current score with all its digits, under both rules: -0.0625,
// not -0.062.
func TestRescoreMessagesShowExactScores(t *testing.T) {
	current := currentScores()
	current["prop_000a"] = -0.0625
	answer := func(old, new float64) []byte {
		return []byte(js(t, with(scores(score("prop_002", 0.2), score("opp_002", -0.2)), "rescores", []any{rescore("prop_000a", old, new)})))
	}
	_, p := dialectic.ParseJudgment(answer(0.9, 0.1), 2, knownAt2(), current)
	if want := "rescores[0]: old_score 0.9 of prop_000a differs from its current score -0.0625; the current score was used"; missingFrom(p.Warnings, []string{want}) != nil {
		t.Errorf("moot's rules: warnings %q lack %q", p.Warnings, want)
	}
	_, p = dialectic.ParseJudgment(answer(-0.0625, 0.9), 2, knownAt2(), current)
	if want := "from its current -0.0625"; !strings.Contains(strings.Join(p.Errors, "\n"), want) {
		t.Errorf("moot's rules: errors %q lack %q", p.Errors, want)
	}
	_, _, p = dialectic.ParseDialecticJudgment(answer(0.2, 0.1), 2, knownAt2(), current)
	if want := "rescores[0]: old_score 0.2 of prop_000a differs from its current score -0.0625; previous_score records old_score, as dialectic did"; missingFrom(p.Warnings, []string{want}) != nil {
		t.Errorf("dialectic's rules: warnings %q lack %q", p.Warnings, want)
	}
}

// TestParseDialecticJudgment checks dialectic's rules for rescores: what is
// skipped rather than refused, and the entries a judgment gives.
func TestParseDialecticJudgment(t *testing.T) {
	base := func(rs ...any) []byte {
		return []byte(js(t, with(scores(score("opp_002", 0.2), score("prop_002", -0.2)), "rescores", rs)))
	}
	tests := []struct {
		name       string
		rescore    map[string]any
		incomplete bool
		skipped    bool
		delta      float64
		errs       bool
		// prev is the previous_score of the entry; nil for none.
		prev *float64
	}{
		{name: "no new_score", rescore: with(rescore("prop_000a", 0.3, 0), "new_score", del), skipped: true, incomplete: true},
		{name: "null new_score", rescore: with(rescore("prop_000a", 0.3, 0), "new_score", nil), skipped: true, incomplete: true},
		{name: "empty argument_id", rescore: with(rescore("prop_000a", 0.3, 0.2), "argument_id", ""), skipped: true, incomplete: true},
		{name: "over 0.5 from old_score", rescore: rescore("prop_000a", 0.3, -0.3), skipped: true, delta: -0.6},
		{name: "exactly 0.5 from old_score is kept", rescore: rescore("prop_000a", 0.3, 0.8), prev: ptr(0.3)},
		{name: "far from the current score without old_score", rescore: with(rescore("prop_000a", 0, 0.9), "old_score", del)},
		{name: "old_score other than the current score is recorded", rescore: rescore("prop_000a", 0.5, 0.6), prev: ptr(0.5)},
		{name: "an unknown argument is still refused", rescore: rescore("prop_009", 0.3, 0.2), errs: true},
		{name: "a new_score out of range is still refused", rescore: with(rescore("prop_000a", 0, 1.2), "old_score", del), errs: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			j, skipped, p := dialectic.ParseDialecticJudgment(base(tc.rescore), 2, knownAt2(), currentScores())
			if tc.errs {
				if p.OK() {
					t.Fatalf("accepted, want refused")
				}
				return
			}
			if !p.OK() {
				t.Fatalf("refused: %q", p.Errors)
			}
			if tc.skipped {
				if len(skipped) != 1 || len(j.Rescores) != 0 || skipped[0].Incomplete != tc.incomplete || skipped[0].Delta != tc.delta {
					t.Errorf("skipped %+v, rescores %+v", skipped, j.Rescores)
				}
				return
			}
			if len(skipped) != 0 || len(j.Rescores) != 1 {
				t.Fatalf("skipped %+v, rescores %+v", skipped, j.Rescores)
			}
			es := j.Entries(knownAt2(), currentScores())
			e := es[len(es)-1]
			if e.TriggeredBy != "opp_002" {
				t.Errorf("triggered_by %q, want the first argument scored", e.TriggeredBy)
			}
			switch {
			case tc.prev == nil && (e.PreviousScore != nil || e.Diff != nil):
				t.Errorf("previous_score %v, diff %v; want none", *e.PreviousScore, e.Diff)
			case tc.prev != nil && (e.PreviousScore == nil || *e.PreviousScore != *tc.prev || e.Diff == nil || *e.Diff != dialectic.Round3(e.Score-*tc.prev)):
				t.Errorf("previous_score %v, diff %v; want %v", e.PreviousScore, e.Diff, *tc.prev)
			}
		})
	}
}

func ptr(x float64) *float64 { return &x }
