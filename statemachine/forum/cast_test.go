package forum

import (
	"strings"
	"testing"
)

// TestParseCast: a cast file of the original is read as it is; a missing
// required field, an unknown key or a side without a persona is refused
// with the field named; keys moot has no use for are noted.
func TestParseCast(t *testing.T) {
	const ok = "topic: T\npremise: P\nturns: 8\nline_width: 80\nweb_research: true\n" +
		"audience:\n  - name: J\n    type: t\n    model: m\n    color: red\n    personality: >\n      p\n    judging_criteria: c\n" +
		"for:\n  - name: F\n    position: x\n    instructions: i\n" +
		"against:\n  - name: A\n    personality: y\n"
	for _, tc := range []struct {
		name, yaml, err string
	}{
		{"the original's format", ok, ""},
		{"one judge as a mapping, as older files have it", "topic: T\naudience:\n  name: J\n  personality: p\nfor:\n  - name: F\nagainst:\n  - name: A\n", ""},
		{"no audience", "topic: T\nfor:\n  - name: F\nagainst:\n  - name: A\n", ""},
		{"no topic", strings.Replace(ok, "topic: T\n", "", 1), "topic: missing"},
		{"unknown key", "tpoic: T\n" + ok, `line 1: tpoic: unknown key`},
		{"unknown persona key", strings.Replace(ok, "    position: x", "    voice: x", 1), "for[0].voice: unknown key"},
		{"persona without a name", strings.Replace(ok, "  - name: A\n    personality: y", "  - personality: y", 1), "against[0].name: missing"},
		{"side without a persona", strings.Replace(ok, "against:\n  - name: A\n    personality: y\n", "against: []\n", 1), "against: no persona"},
		{"side missing", strings.Replace(ok, "against:\n  - name: A\n    personality: y\n", "", 1), "against: no persona"},
		{"older agents list", "topic: T\nagents:\n  - name: X\n", "agents: this is the older format"},
		{"turns not a number", strings.Replace(ok, "turns: 8", "turns: many", 1), "turns: want a whole number"},
		{"not a mapping", "- a\n- b\n", "want a mapping"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := ParseCast([]byte(tc.yaml))
			if tc.err == "" {
				if err != nil {
					t.Fatalf("error %v", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Fatalf("error %v, want one containing %q (cast %+v)", err, tc.err, c)
			}
		})
	}
	c, err := ParseCast([]byte(ok))
	if err != nil {
		t.Fatal(err)
	}
	if c.Turns != 8 || c.Premise != "P" || c.Audience[0].Personality != "p" || c.For[0].Side != For || !c.WebResearch || len(c.Notes) != 1 {
		t.Errorf("cast %+v", c)
	}
}

// TestDraw: the same seed draws the same cast; the draw covers the pools.
func TestDraw(t *testing.T) {
	c := BuiltinCast()
	seen := map[string]bool{}
	for seed := int64(0); seed < 40; seed++ {
		a, err := c.Draw(seed)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := c.Draw(seed)
		if a.For != b.For || a.Against != b.Against || *a.Judge != *b.Judge || a.First != b.First {
			t.Fatalf("seed %d drew two casts", seed)
		}
		seen[a.For.Name+"/"+a.First] = true
	}
	if len(seen) != 4 {
		t.Errorf("40 seeds drew %v", seen)
	}
}

// TestConfirmName: an answer that names exactly one of the two debaters
// is that debater; never a name inside another, never an answer naming
// both or neither.
func TestConfirmName(t *testing.T) {
	for _, tc := range []struct{ answer, want string }{
		{"Chen", "Chen"},
		{"Prof. Chen", "Prof. Chen"},
		{" 'Prof. Chen'. ", "Prof. Chen"},
		{"**chen**", "Chen"},
		{"I think Chen won", "Chen"},
		{"The winner is Prof. Chen.", "Prof. Chen"},
		{"Prof. Chen and Chen", ""},
		{"Neither of them.", ""},
	} {
		got, errs := confirmName([]byte(tc.answer), "Chen", "Prof. Chen")
		if got != tc.want || (tc.want == "") != (len(errs) > 0) {
			t.Errorf("%q: %q %v, want %q", tc.answer, got, errs, tc.want)
		}
	}
}

// TestConfirmNameAsWritten: the winner confirmations seen from real
// models, each naming one of the two debaters, are that debater; one
// naming both or neither is sent back with what to write.
func TestConfirmNameAsWritten(t *testing.T) {
	for _, tc := range []struct{ answer, want, err string }{
		{"Archie", "Archie", ""},
		{"The winner is Archie.", "Archie", ""},
		{"**Archie** wins", "Archie", ""},
		{"archie  \n", "Archie", ""},
		{"ARCHIE!", "Archie", ""},
		{"“Archie”", "Archie", ""},
		{"Winner: **Bea**.\n", "Bea", ""},
		{"After weighing both, I confirm Bea as the winner.", "Bea", ""},
		{"Archie's case was stronger.", "Archie", ""},
		{"Archie beat Bea.", "", "your answer names both (found \"Archie beat Bea\"): write only the winner's name, exactly 'Archie' or 'Bea', and nothing else"},
		{"It was a draw.", "", "your answer names neither of them (found \"It was a draw\"): write only the winner's name, exactly 'Archie' or 'Bea', and nothing else"},
		{"Archibald", "", "names neither"},
	} {
		t.Run(tc.answer, func(t *testing.T) {
			got, errs := confirmName([]byte(tc.answer), "Archie", "Bea")
			if got != tc.want {
				t.Errorf("%q read as %q, want %q", tc.answer, got, tc.want)
			}
			if e := strings.Join(errs, "; "); (tc.err == "") != (e == "") || !strings.Contains(e, tc.err) {
				t.Errorf("%q: errors %q, want %q", tc.answer, e, tc.err)
			}
		})
	}
}

// TestParseScore and TestParseVerdict: the exact errors sent back.
func TestParseScore(t *testing.T) {
	for _, tc := range []struct{ answer, err string }{
		{`{"score": 7, "reasoning": "r"}`, ""},
		{"```json\n{\"score\": 0, \"reasoning\": \"r\"}\n```", ""},
		{`{"score": 7.0, "reasoning": "r"}`, ""},
		{`{"score": 7.5, "reasoning": "r"}`, "score: 7.5 is not a whole number"},
		{`{"score": -1, "reasoning": "r"}`, "score: -1 is outside 0 to 10"},
		{`{"score": "seven", "reasoning": "r"}`, `score: want a whole number from 0 to 10, found "seven"`},
		// Scores and JSON as models write them (see internal/lenient).
		{`{"score": "7", "reasoning": "r"}`, ""},
		{`{"score": "7/10", "reasoning": "r"}`, ""},
		{`{"score": "7 out of 10", "reasoning": "r"}`, ""},
		{`{"score": 7/10, "reasoning": "r"}`, ""},
		{`{"score": "7.5/10", "reasoning": "r"}`, "score: 7.5 is not a whole number"},
		{"Here is my score:\n```json\n{\"score\": 7, \"reasoning\": \"r\"}\n```\nThanks.", ""},
		{`Sure! {"score": 7, "reasoning": "r",} Hope that helps.`, ""},
		{`{"reasoning": "r"}`, "score: missing"},
		{`seven`, "not a JSON object"},
	} {
		_, errs := parseScore([]byte(tc.answer))
		if got := strings.Join(errs, "; "); (tc.err == "") != (got == "") || !strings.Contains(got, tc.err) {
			t.Errorf("%s: %q, want %q", tc.answer, got, tc.err)
		}
	}
}

func TestParseVerdict(t *testing.T) {
	for _, tc := range []struct{ answer, confirmed, err string }{
		{`{"winner": "B", "scores": {"A": 4, "B": 8}}`, "B", ""},
		{`{"winner": "B", "scores": {"A": 4, "B": 8}}`, "", ""},
		{`{"winner": "A", "scores": {"A": 8, "B": 4}}`, "B", `you confirmed "B" as the winner, but the JSON names "A"`},
		{`{"winner": "B", "scores": {"A": 8, "B": 4}}`, "B", "a winner cannot score lower than the loser"},
		{`{"winner": "c", "scores": {"A": 4, "B": 8}}`, "", `"c" is neither "A" nor "B"`},
		{`{"winner": "B", "scores": {"A": 4}}`, "", `"B" has no score`},
		{`{"winner": "B", "scores": {"A": 4, "B": 8, "C": 1}}`, "", `"C" is not a debater`},
		// Names and scores as models write them (see internal/lenient).
		{`{"winner": " **B** ", "scores": {"A": 4, "B": 8}}`, "B", ""},
		{`{"winner": "b", "scores": {"a ": "4/10", "“B”": "8"}}`, "B", ""},
		{`{"winner": "Prof. B", "scores": {"A": 4, "B": 8}}`, "B", ""},
	} {
		_, errs := parseVerdict([]byte(tc.answer), "A", "B", tc.confirmed)
		if got := strings.Join(errs, "; "); (tc.err == "") != (got == "") || !strings.Contains(got, tc.err) {
			t.Errorf("%s: %q, want %q", tc.answer, got, tc.err)
		}
	}
}
