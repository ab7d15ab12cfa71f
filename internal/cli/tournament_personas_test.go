package cli

import (
	"strings"
	"testing"
)

// TestSummarizePersonas: win rates per persona, each judge's uphold rate
// and bias against every judge's together, and the first speaker's record,
// as silicon-forum's summary computes them.
func TestSummarizePersonas(t *testing.T) {
	row := func(forName, against, judge, first, winner, upheld string) map[string]string {
		side := "for"
		if winner == against {
			side = "against"
		}
		return map[string]string{"agent_for": forName, "agent_against": against, "judge": judge, "first_speaker": first,
			"winner": winner, "winner_side": side, "premise_upheld": upheld, "score_for": "8", "score_against": "4"}
	}
	t.Run("three tables", func(t *testing.T) {
		s := summarizePersonas([]map[string]string{
			row("Ada", "Cy", "Jo", "Ada", "Ada", "TRUE"),
			row("Ada", "Cy", "Jo", "Cy", "Ada", "TRUE"),
			row("Bo", "Cy", "Kim", "Bo", "Cy", "FALSE"),
			row("Bo", "Cy", "Jo", "Cy", "Bo", "TRUE"),
		})
		if s == nil || s.Debates != 4 || s.Upheld != 3 || s.Rejected != 1 || *s.UpholdRate != 0.75 {
			t.Fatalf("summary %+v", s)
		}
		if d := s.Debaters[0]; d.Name != "Ada" || d.Wins != 2 || d.WinRate != 1 || *d.AvgScore != 8 {
			t.Errorf("first debater %+v, want Ada winning both", d)
		}
		if d := s.Debaters[len(s.Debaters)-1]; d.Name != "Cy" || d.Debates != 4 || d.Wins != 1 || d.Side != "against" {
			t.Errorf("last debater %+v, want Cy with 1 of 4", d)
		}
		jo, kim := s.Judges[0], s.Judges[1]
		if jo.Name != "Jo" || *jo.UpholdRate != 1 || *jo.Bias != 0.25 {
			t.Errorf("judge %+v, want Jo upholding 3 of 3, bias +0.25", jo)
		}
		if kim.Name != "Kim" || *kim.UpholdRate != 0 || *kim.Bias != -0.75 {
			t.Errorf("judge %+v, want Kim upholding none, bias -0.75", kim)
		}
		if o := s.Order; o == nil || o.Debates != 4 || o.FirstWins != 1 || o.SecondWins != 3 || o.FirstRate != 0.25 {
			t.Errorf("order %+v, want the first speaker winning 1 of 4", o)
		}
		var b strings.Builder
		s.markdown(&b)
		for _, want := range []string{"| Ada | for | 2 | 2 | 100% | 8.0 |", "| Kim | 1 | 0 | 1 | 0% | -75 points |", "| first | 1 | 25% |"} {
			if !strings.Contains(b.String(), want) {
				t.Errorf("markdown lacks %q:\n%s", want, b.String())
			}
		}
	})
	t.Run("by model", func(t *testing.T) {
		a := row("Ada", "Cy", "Jo", "Ada", "Ada", "TRUE")
		a["model_for"], a["model_against"], a["model_judge"] = "m1", "m1", "m1"
		b := row("Bo", "Cy", "Jo", "Cy", "Cy", "FALSE")
		b["model_for"], b["model_against"], b["model_judge"] = "m2", "m2", "m2"
		s := summarizePersonas([]map[string]string{a, b})
		if len(s.Models) != 2 || s.Models[0].Name != "m1" || s.Models[0].Debates != 2 || s.Models[0].Wins != 1 {
			t.Errorf("models %+v, want m1 and m2, each in 2 seats winning 1", s.Models)
		}
		if len(s.JudgeModels) != 2 || *s.JudgeModels[0].Bias != 0.5 || *s.JudgeModels[1].Bias != -0.5 {
			t.Errorf("judge models %+v, want biases +0.5 and -0.5", s.JudgeModels)
		}
		var out strings.Builder
		s.markdown(&out)
		if !strings.Contains(out.String(), "### Models judging") || !strings.Contains(out.String(), "| m2 | 1 | 0 | 1 | 0% | -50 points |") {
			t.Errorf("markdown lacks the models' tables:\n%s", out.String())
		}
		one := summarizePersonas([]map[string]string{a})
		if one.Models != nil || one.JudgeModels != nil {
			t.Errorf("one model: tables by model %+v %+v, want none", one.Models, one.JudgeModels)
		}
	})
	t.Run("no premise", func(t *testing.T) {
		s := summarizePersonas([]map[string]string{row("Ada", "Cy", "Jo", "Ada", "Cy", "")})
		if s.UpholdRate != nil || s.Judges[0].UpholdRate != nil || s.Judges[0].Bias != nil {
			t.Errorf("summary %+v: no premise, no uphold rate", s)
		}
	})
	t.Run("no forum columns", func(t *testing.T) {
		if s := summarizePersonas([]map[string]string{{"other": "x"}}); s != nil {
			t.Errorf("summary %+v, want none", s)
		}
	})
}
