package moderated_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/moot-dev/moot/internal/driver"
	"github.com/moot-dev/moot/internal/testkit/modeltest"
	"github.com/moot-dev/moot/statemachine/moderated"
	"github.com/moot-dev/moot/statemachine/moderated/moderatedtest"
)

func TestTotal(t *testing.T) {
	tests := []struct {
		name     string
		criteria []moderated.Criterion
		raws     []float64
		want     float64
	}{
		{"the design's weights", moderated.DefaultCriteria(), []float64{8, 6, 7, 7, 9}, 7.30},
		{"all tens is ten, not clamped from a hundred", moderated.DefaultCriteria(), []float64{10, 10, 10, 10, 10}, 10},
		{"all zeros", moderated.DefaultCriteria(), []float64{0, 0, 0, 0, 0}, 0},
		{"weights need not sum to one", []moderated.Criterion{{Name: "a", Weight: 3}, {Name: "b", Weight: 1}}, []float64{10, 2}, 8},
		{"two decimals", []moderated.Criterion{{Name: "a", Weight: 1}, {Name: "b", Weight: 2}}, []float64{7, 8}, 7.67},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			raws := map[string]float64{}
			for i, c := range tt.criteria {
				raws[c.Name] = tt.raws[i]
			}
			if got := moderated.Total(tt.criteria, raws); got != tt.want {
				t.Errorf("Total = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestParseRubric(t *testing.T) {
	two := []moderated.Criterion{{Name: "logic", Weight: 1}, {Name: "evidence", Weight: 1}}
	tests := []struct {
		name    string
		reply   string
		wantErr string // "" when the reply is accepted
	}{
		{"whole numbers", `{"logic": {"score": 8, "justification": "j"}, "evidence": {"score": 6, "justification": "k"}}`, ""},
		{"fractions are accepted", `{"logic": {"score": 7.5, "justification": "j"}, "evidence": {"score": 0, "justification": "k"}}`, ""},
		{"a fence around the JSON", "```json\n{\"logic\": {\"score\": 8, \"justification\": \"j\"}, \"evidence\": {\"score\": 6, \"justification\": \"k\"}}\n```", ""},
		{"above ten", `{"logic": {"score": 11, "justification": "j"}, "evidence": {"score": 6, "justification": "k"}}`, "logic.score: 11 is outside 0 to 10"},
		{"below zero", `{"logic": {"score": -1, "justification": "j"}, "evidence": {"score": 6, "justification": "k"}}`, "logic.score: -1 is outside 0 to 10"},
		{"a criterion missing", `{"logic": {"score": 8, "justification": "j"}}`, "evidence: missing"},
		{"an unknown criterion", `{"logic": {"score": 8, "justification": "j"}, "evidence": {"score": 6, "justification": "k"}, "style": {"score": 1, "justification": "x"}}`, `"style" is not a criterion`},
		{"a score as text", `{"logic": {"score": "eight", "justification": "j"}, "evidence": {"score": 6, "justification": "k"}}`, `logic.score: "eight" is not a number`},
		// Answers as models write them (see internal/lenient).
		{"a score as a string of a number", `{"logic": {"score": "8", "justification": "j"}, "evidence": {"score": "6.5", "justification": "k"}}`, ""},
		{"scores as fractions", `{"logic": {"score": "8/10", "justification": "j"}, "evidence": {"score": "3 out of 5", "justification": "k"}}`, ""},
		{"a bare fraction", `{"logic": {"score": 8/10, "justification": "j"}, "evidence": {"score": 6, "justification": "k"}}`, ""},
		{"sentences around the JSON", "Here are my scores:\n" + `{"logic": {"score": 8, "justification": "j"}, "evidence": {"score": 6, "justification": "k"}}` + "\nOverall a {solid} statement.", ""},
		{"a criterion dressed", `{" Logic ": {"score": 8, "justification": "j"}, "**evidence**": {"score": 6, "justification": "k"}}`, ""},
		{"smart quotes and a trailing comma", `{“logic”: {“score”: 8, “justification”: “j”}, “evidence”: {“score”: 6, “justification”: “k”},}`, ""},
		{"no justification", `{"logic": {"score": 8}, "evidence": {"score": 6, "justification": "k"}}`, "logic.justification: missing"},
		{"an empty justification", `{"logic": {"score": 8, "justification": " "}, "evidence": {"score": 6, "justification": "k"}}`, "logic.justification: want a text"},
		{"a bare number", `{"logic": 8, "evidence": {"score": 6, "justification": "k"}}`, "logic: want an object"},
		{"no JSON", `I would give it an 8.`, "holds no JSON object"},
		{"broken JSON", `{"logic": {"score": 8 "x"}}`, "not valid JSON"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			marks, errs := moderated.ParseRubric(two, []byte(tt.reply))
			if tt.wantErr == "" {
				if len(errs) > 0 || len(marks) != 2 {
					t.Fatalf("refused: %v", errs)
				}
				return
			}
			if marks != nil || !strings.Contains(strings.Join(errs, "\n"), tt.wantErr) {
				t.Fatalf("errors %v (marks %v), want one with %q", errs, marks, tt.wantErr)
			}
		})
	}
}

// TestScoreFiles: the rubric replies 8, 6, 7, 7, 9 give every statement
// 7.30 and each advocate a mean of 7.30, written in the score files.
func TestScoreFiles(t *testing.T) {
	_, fs, _ := runAll(t, map[string]string{"rounds": "1"}, moderatedtest.Options{})
	n := 0
	for name, data := range fs {
		if !strings.HasPrefix(name, "scores/") || strings.HasSuffix(name, "/") {
			continue
		}
		n++
		if !strings.Contains(data, `"total": 7.3`) || !strings.Contains(data, `"raw": 8`) || !strings.Contains(data, `"weighted": 2`) {
			t.Errorf("%s:\n%s", name, data)
		}
	}
	if n != 4 {
		t.Errorf("%d score files, want 4", n)
	}
	if !strings.Contains(fs["summary.md"], "| Advocate A | Cities should ban cars. | 2 | 7.30 | 7.30 |") {
		t.Errorf("summary.md:\n%s", fs["summary.md"])
	}
}

// TestBadRubricRepairedThenRefused: a rubric out of range is sent back
// with its errors; one that stays wrong refuses the step and writes no
// score, never a default.
func TestBadRubricRepairedThenRefused(t *testing.T) {
	t.Run("repaired", func(t *testing.T) {
		_, fs, reqs := runAll(t, map[string]string{"rounds": "1"}, moderatedtest.Options{BadRubrics: 1})
		if len(reqs) != 26 {
			t.Errorf("%d requests, want 25 and one repair", len(reqs))
		}
		var repair modeltest.Request
		for _, r := range of(reqs, "scorer") {
			if len(r.Messages) > 2 {
				repair = r
			}
		}
		if repair.Messages == nil || !strings.Contains(repair.Messages[len(repair.Messages)-1].Content, "logical_coherence.score: 11 is outside 0 to 10") {
			t.Errorf("the repair request: %+v", repair.Messages)
		}
		if !strings.Contains(fs["summary.md"], "7.30") {
			t.Errorf("summary.md:\n%s", fs["summary.md"])
		}
	})
	t.Run("refused", func(t *testing.T) {
		srv := modeltest.NewServer(t, moderatedtest.Handler(moderatedtest.Options{BadRubrics: -1}))
		dir := newDebate(t, map[string]string{"rounds": "1"})
		_, err := advance(t, context.Background(), dir, srv.URL, driver.UnitGoal{All: true})
		var re *driver.RoleError
		if !errors.As(err, &re) || !strings.Contains(err.Error(), "outside 0 to 10") {
			t.Fatalf("err = %v, want the moderator's rubric refused", err)
		}
		fs := files(t, dir)
		if len(messageFiles(fs)) != 8 || !strings.Contains(fs["debate.md"], `"current_step": 8,`) {
			t.Errorf("after the refusal: %d messages; debate.md:\n%s", len(messageFiles(fs)), fs["debate.md"])
		}
		for name := range fs {
			if strings.HasPrefix(name, "scores/") && !strings.HasSuffix(name, "/") {
				t.Errorf("%s written for a refused rubric", name)
			}
		}
		// The rubric was tried three times and never again. The calls
		// after it read no score (see sm.Lookahead): a run may ask them,
		// later statements' scores among them, while the rubric is being
		// repaired, and keeps their answers for the next run; but it
		// never asks one call again beyond its repairs.
		reqs := srv.Requests()
		if len(reqs) < 8+3 {
			t.Errorf("%d requests, want at least 8 and the rubric's 3 tries", len(reqs))
		}
		asked := map[string]int{}
		for _, r := range reqs {
			asked[moderatedtest.Kind(r)+"\n"+r.Messages[1].Content]++
		}
		if tries := of(reqs, "scorer"); len(tries) == 0 || asked["scorer\n"+tries[0].Messages[1].Content] != 3 {
			t.Errorf("the refused rubric was not tried 3 times: %v", asked)
		}
		for call, n := range asked {
			kind, prompt, _ := strings.Cut(call, "\n")
			if kind == "scorer" && n > 3 || kind != "scorer" && n != 1 {
				t.Errorf("a %s call asked %d times:\n%s", kind, n, prompt)
			}
		}
	})
}
