package dialectic

import (
	"strings"
	"testing"
)

func TestParseScoresRefusesInvalidUTF8(t *testing.T) {
	in := "{\"prop_000a\": {\"current_score\": 0.1, \"history\": [{\"score\": 0.1, \"reasoning\": \"\xe2\x82\", \"scored_at\": \"x\"}]}}"
	if _, err := ParseScores([]byte(in)); err == nil || !strings.Contains(err.Error(), "not valid UTF-8") {
		t.Fatalf("ParseScores: %v", err)
	}
}

func TestParseScoresOutOfRange(t *testing.T) {
	in := `{"prop_000a": {"current_score": 1e999, "history": []}}`
	if _, err := ParseScores([]byte(in)); err == nil || err.Error() != "prop_000a.current_score: must be a finite number, found 1e999" {
		t.Fatalf("ParseScores: %v", err)
	}
}
