package dialectic_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/moot-dev/moot/statemachine/dialectic"
)

func TestScoresRoundTrip(t *testing.T) {
	in, err := os.ReadFile(filepath.Join("testdata", "scores.json"))
	if err != nil {
		t.Fatal(err)
	}
	s, err := dialectic.ParseScores(in)
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(s.IDs(), " "); got != "prop_000a opp_000a" {
		t.Errorf("IDs %q, want file order", got)
	}
	r, ok := s.Get("prop_000a")
	if !ok || r.CurrentScore != 0.1 || len(r.History) != 2 {
		t.Fatalf("prop_000a record %+v", r)
	}
	h := r.History[1]
	if h.TriggeredBy != "opp_001" || h.PreviousScore == nil || *h.PreviousScore != 0.3 || h.Diff == nil || *h.Diff != -0.2 || h.ScoredAt != "2025-11-21T07:00:00.000001+00:00" {
		t.Errorf("rescore entry %+v", h)
	}
	if r.History[0].PreviousScore != nil || r.History[0].Diff != nil || r.History[0].TriggeredBy != "" {
		t.Errorf("first entry has rescore fields: %+v", r.History[0])
	}
	if cur := s.Current(); len(cur) != 2 || cur["prop_000a"] != 0.1 || cur["opp_000a"] != -0.3 {
		t.Errorf("Current %v", cur)
	}
	out, err := s.Render()
	if err != nil {
		t.Fatal(err)
	}
	// Unknown keys (judge_model, note) and every rescore field survive,
	// byte for byte.
	if !bytes.Equal(out, in) {
		t.Errorf("Render(ParseScores(x)) != x\n--- got ---\n%s\n--- want ---\n%s", out, in)
	}
}

func TestScoresUnknownKeyInTheMiddleIsKept(t *testing.T) {
	in := `{"opp_001": {"x_before": [1], "current_score": 0.2, "history": [{"model": "m", "score": 0.2, "reasoning": "r", "scored_at": "t"}]}}`
	out := rerender(t, in)
	for _, want := range []string{`"x_before": [`, `"model": "m"`, `"current_score": 0.2`} {
		if !strings.Contains(string(out), want) {
			t.Errorf("rendered scores lack %s:\n%s", want, out)
		}
	}
}

func TestScoresApply(t *testing.T) {
	in, _ := os.ReadFile(filepath.Join("testdata", "scores.json"))
	s, err := dialectic.ParseScores(in)
	if err != nil {
		t.Fatal(err)
	}
	prev, diff := -0.3, 0.2
	at := time.Date(2026, 1, 2, 3, 4, 5, 6000, time.FixedZone("x", 3600))
	s.Apply([]dialectic.Entry{
		{ArgumentID: "prop_001", Score: 0.25, Reasoning: "New."},
		{ArgumentID: "opp_001", Score: -0.25, Reasoning: "New too."},
		{ArgumentID: "opp_000a", Score: -0.1, Reasoning: "Rescored.", TriggeredBy: "opp_001", PreviousScore: &prev, Diff: &diff},
	}, at)
	if got := strings.Join(s.IDs(), " "); got != "prop_000a opp_000a prop_001 opp_001" {
		t.Errorf("IDs %q: new records go at the end", got)
	}
	r, _ := s.Get("opp_000a")
	if r.CurrentScore != -0.1 || len(r.History) != 2 {
		t.Fatalf("rescored record %+v", r)
	}
	e := r.History[1]
	if e.ScoredAt != "2026-01-02T02:04:05.000006+00:00" {
		t.Errorf("scored_at %q, want UTC with microseconds and +00:00", e.ScoredAt)
	}
	if e.TriggeredBy != "opp_001" || *e.PreviousScore != -0.3 || *e.Diff != 0.2 {
		t.Errorf("rescore entry %+v", e)
	}
	out, err := s.Render()
	if err != nil {
		t.Fatal(err)
	}
	back, err := dialectic.ParseScores(out)
	if err != nil {
		t.Fatal(err)
	}
	if r, _ := back.Get("prop_001"); r.CurrentScore != 0.25 || len(r.History) != 1 || r.History[0].Reasoning != "New." {
		t.Errorf("prop_001 after a round trip %+v", r)
	}
	// The old records keep their history and unknown keys.
	if !bytes.Contains(out, []byte(`"judge_model": "judge-model"`)) || !bytes.Contains(out, []byte(`"note": "kept"`)) {
		t.Errorf("unknown keys lost:\n%s", out)
	}
}

func TestScoresEmpty(t *testing.T) {
	out, err := dialectic.NewScores().Render()
	if err != nil || string(out) != "{}\n" {
		t.Errorf("empty scores render as %q, %v", out, err)
	}
	s, err := dialectic.ParseScores([]byte("{}\n"))
	if err != nil || len(s.IDs()) != 0 {
		t.Errorf("ParseScores({}) = %v, %v", s, err)
	}
}

func TestParseScoresErrors(t *testing.T) {
	tests := []struct{ name, in, err string }{
		{"not an object", `[1]`, "not a JSON object"},
		{"invalid JSON", `{"prop_001": {`, ""},
		{"record not an object", `{"prop_001": 3}`, "prop_001"},
		{"current_score missing", `{"prop_001": {"history": []}}`, `prop_001: field "current_score" is missing`},
		{"current_score a string", `{"prop_001": {"current_score": "0.1", "history": []}}`, "prop_001.current_score: must be a number"},
		{"current_score huge", `{"prop_001": {"current_score": 1e999, "history": []}}`, "prop_001.current_score"},
		{"history not a list", `{"prop_001": {"current_score": 0, "history": {}}}`, "prop_001.history"},
		{"entry without score", `{"prop_001": {"current_score": 0, "history": [{"reasoning": "r"}]}}`, "prop_001.history[0].score: is missing"},
		{"entry score a string", `{"prop_001": {"current_score": 0, "history": [{"score": "x"}]}}`, "prop_001.history[0].score"},
		{"previous_score null", `{"prop_001": {"current_score": 0, "history": [{"score": 0}, {"score": 0, "previous_score": null}]}}`, "prop_001.history[1].previous_score: must be a number, found null"},
		{"score null", `{"prop_001": {"current_score": null, "history": []}}`, "prop_001.current_score: must be a number, found null"},
		{"reasoning a number", `{"prop_001": {"current_score": 0, "history": [{"score": 0, "reasoning": 5}]}}`, "prop_001.history[0].reasoning"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := dialectic.ParseScores([]byte(tc.in))
			if err == nil {
				t.Fatal("accepted")
			}
			if !strings.Contains(err.Error(), tc.err) {
				t.Errorf("error %q lacks %q", err, tc.err)
			}
		})
	}
}

// TestScoresRenderTextAsWritten checks that text is written back as it
// was read: no HTML escapes, and non-ASCII text as itself.
func TestScoresRenderTextAsWritten(t *testing.T) {
	in := "{\n  \"prop_001\": {\n    \"current_score\": 0.2,\n    \"history\": [\n      {\n        \"score\": 0.2,\n        \"reasoning\": \"a <b> & c \\\"d\\\" — é\",\n        \"scored_at\": \"t\"\n      }\n    ]\n  }\n}\n"
	out := rerender(t, in)
	if string(out) != in {
		t.Errorf("Render = %s, want %s", out, in)
	}
}

// rerender parses the scores.json in and renders it again.
func rerender(t *testing.T, in string) []byte {
	t.Helper()
	s, err := dialectic.ParseScores([]byte(in))
	if err != nil {
		t.Fatal(err)
	}
	out, err := s.Render()
	if err != nil {
		t.Fatal(err)
	}
	return out
}
