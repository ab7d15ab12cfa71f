package refine

import (
	"strings"
	"testing"
)

// TestParseCritiqueAsWritten: a skeptic's answer as models write it is
// read as the answer it means: a score as a string or a fraction, ids and
// statuses dressed in quotes, spaces, emphasis or capitals, a ready signal
// below the early-stop score (read as not ready, with a note).
func TestParseCritiqueAsWritten(t *testing.T) {
	open := []openPoint{{Point: Point{ID: "R1.1", Severity: "critical"}}, {Point: Point{ID: "R1.2", Severity: "minor"}}}
	for _, tc := range []struct {
		name, text string
		score      int
		ready      bool
		note       string
		err        string
	}{
		{name: "as asked", text: `{"critique": "c", "previous": [{"id": "R1.1", "status": "resolved", "note": ""}, {"id": "R1.2", "status": "unresolved", "note": ""}], "points": [], "score": 9, "ready": true}`, score: 9, ready: true},
		{name: "dressed", text: "Here is my critique:\n```json\n" + `{"critique": "c", "previous": [{"id": " “R1.1” ", "status": "Resolved", "note": ""}, {"id": "**R1.2**", "status": "partly resolved", "note": ""}], "points": [{"severity": "Major", "text": "t"}], "score": "9/10", "ready": true,}` + "\n```", score: 9, ready: true},
		{name: "ready below the early-stop score", text: `{"critique": "c", "previous": [{"id": "R1.1", "status": "resolved", "note": ""}, {"id": "R1.2", "status": "resolved", "note": ""}], "points": [], "score": "6 out of 10", "ready": true}`, score: 6, note: "the skeptic said ready, but its score 6 is below the early-stop score 8: read as not ready"},
		{name: "an id that is none", text: `{"critique": "c", "previous": [{"id": "R1.3", "status": "resolved", "note": ""}], "points": [], "score": 5, "ready": false}`, err: `previous[0]: "R1.3" is not an earlier point still open`},
		{name: "a status that is none", text: `{"critique": "c", "previous": [{"id": "R1.1", "status": "gone", "note": ""}, {"id": "R1.2", "status": "resolved", "note": ""}], "points": [], "score": 5, "ready": false}`, err: `status "gone" is none of`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, errs := parseCritique([]byte(tc.text), 2, 8, open)
			if tc.err != "" {
				if c != nil || !strings.Contains(strings.Join(errs, "; "), tc.err) {
					t.Fatalf("parseCritique = %+v, %v; want an error with %q", c, errs, tc.err)
				}
				return
			}
			if len(errs) > 0 {
				t.Fatalf("refused: %v", errs)
			}
			if c.Score != tc.score || c.Ready != tc.ready || c.Note != tc.note {
				t.Errorf("score %d ready %t note %q; want %d %t %q", c.Score, c.Ready, c.Note, tc.score, tc.ready, tc.note)
			}
		})
	}
}
