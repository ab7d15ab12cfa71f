package refine_test

import (
	"strings"
	"testing"

	"github.com/moot-dev/moot/statemachine/refine"
	"github.com/moot-dev/moot/templates"
)

func TestDecide(t *testing.T) {
	tests := []struct {
		name   string
		f      refine.Facts
		round  int
		stop   bool
		reason string
	}{
		{"ready in round 1 overrides the minimum", refine.Facts{Ready: true, Critical: 2, Score: 9}, 1, true, refine.ReasonReady},
		{"last round", refine.Facts{Critical: 1}, 5, true, refine.ReasonMaxRounds},
		{"no critical below the minimum", refine.Facts{Major: 3}, 2, false, ""},
		{"no critical at the minimum", refine.Facts{Major: 3}, 3, true, refine.ReasonNoCritical},
		{"critical after the minimum", refine.Facts{Critical: 1}, 4, false, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := refine.Decide(tt.f, tt.round, 3, 5)
			if d.Stop != tt.stop || d.Reason != tt.reason || d.Why == "" {
				t.Errorf("Decide = %+v, want stop=%t %q with a reason", d, tt.stop, tt.reason)
			}
		})
	}
}

func TestParseScore(t *testing.T) {
	tests := []struct {
		name, text string
		want       int
		err        string
	}{
		{"good", `{"score": 7, "criteria": {"correctness": 7, "completeness": 7, "clarity": 7, "depth": 7}, "justification": "ok", "would_benefit_from_finetune": true}`, 7, ""},
		{"fenced", "```json\n" + `{"score": 8, "criteria": {"correctness": 8, "completeness": 8, "clarity": 8, "depth": 7}, "justification": "ok", "would_benefit_from_finetune": false}` + "\n```", 8, ""},
		{"prose", "Score: 8\nJustification: good.", 0, "no JSON object"},
		{"twelve", `{"score": 12, "criteria": {"correctness": 10, "completeness": 10, "clarity": 10, "depth": 10}, "justification": "ok", "would_benefit_from_finetune": false}`, 0, "outside 1 to 10"},
		{"fraction", `{"score": 7.5, "criteria": {"correctness": 7, "completeness": 7, "clarity": 7, "depth": 7}, "justification": "ok", "would_benefit_from_finetune": false}`, 0, "not a whole number"},
		{"far from the weights", `{"score": 9, "criteria": {"correctness": 3, "completeness": 9, "clarity": 9, "depth": 9}, "justification": "ok", "would_benefit_from_finetune": false}`, 0, "weighted mean"},
		{"no flag", `{"score": 7, "criteria": {"correctness": 7, "completeness": 7, "clarity": 7, "depth": 7}, "justification": "ok"}`, 0, "would_benefit_from_finetune: missing"},
		// Scores as models write them (see internal/lenient).
		{"scores as strings", `{"score": "7", "criteria": {"correctness": "7/10", "completeness": "7 out of 10", "clarity": 7.0, "depth": "7.0"}, "justification": "ok", "would_benefit_from_finetune": false}`, 7, ""},
		{"bare fraction and a sentence", "Here is my assessment:\n" + `{"score": 7/10, "criteria": {"correctness": 7, "completeness": 7, "clarity": 7, "depth": 7}, "justification": "ok", "would_benefit_from_finetune": false,}` + "\nThanks!", 7, ""},
		{"a string that is no number", `{"score": "good", "criteria": {"correctness": 7, "completeness": 7, "clarity": 7, "depth": 7}, "justification": "ok", "would_benefit_from_finetune": false}`, 0, "not the JSON object asked for"},
		{"missing criterion", `{"score": 7, "criteria": {"correctness": 7, "completeness": 7, "clarity": 7}, "justification": "ok", "would_benefit_from_finetune": false}`, 0, "criteria.depth: missing"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, errs := refine.ParseScore([]byte(tt.text))
			if tt.err == "" {
				if len(errs) > 0 || s.Score != tt.want {
					t.Fatalf("ParseScore = %+v, %v; want %d", s, errs, tt.want)
				}
				return
			}
			if s != nil || !strings.Contains(strings.Join(errs, "; "), tt.err) {
				t.Errorf("ParseScore = %+v, %v; want an error with %q", s, errs, tt.err)
			}
		})
	}
}

// TestLibrary: at least 12 built-in templates, each with a name, when to
// use it and its steps.
func TestLibrary(t *testing.T) {
	lib := templates.Folder("refine", "reasoning")
	if len(lib) < 12 {
		t.Fatalf("%d templates, want at least 12", len(lib))
	}
	for name, data := range lib {
		text := string(data)
		if !strings.HasPrefix(text, "# ") || !strings.Contains(text, "\n## When to use\n") || !strings.Contains(text, "\n## Steps\n") {
			t.Errorf("%s lacks a name, when to use it or its steps", name)
		}
	}
}

func TestRankAndBM25(t *testing.T) {
	cs := []refine.Candidate{{ID: "b", Score: 0.7}, {ID: "a", Score: 0.7}, {ID: "c", Score: 0.9}, {ID: "d", Score: 0.66}, {ID: "e", Score: 0.2}}
	ranked, kept := refine.Rank(cs, 3, 0.65)
	if strings.Join(kept, ",") != "c,a,b" || ranked[3].ID != "d" || ranked[3].Kept {
		t.Errorf("Rank kept %v, ranked %+v", kept, ranked)
	}
	s := refine.BM25("piano tuners in Chicago", []string{"a piano and its tuners", "weather in Chicago", "nothing here"})
	if !(s[0] > s[1] && s[1] > s[2] && s[2] == 0) {
		t.Errorf("BM25 = %v", s)
	}
	if c := refine.Cosine([]float64{1, 0}, []float64{0.6, 0.8}); c < 0.5999 || c > 0.6001 {
		t.Errorf("Cosine = %v", c)
	}
}
