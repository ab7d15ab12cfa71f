package dialectic

import (
	"strings"
	"testing"
)

// TestAnswersMustBeUTF8 checks that an answer holding bytes that are not
// UTF-8 is refused, naming the byte, rather than having them silently
// replaced by U+FFFD on the way to the files.
func TestAnswersMustBeUTF8(t *testing.T) {
	opening := "[{\"title\": \"A \xff title\", \"claim\": \"c\", \"grounds\": [{\"source\": \"s\", \"content\": \"c\", \"relevance\": \"r\"}], \"warrant\": \"w\"}]"
	if _, p := ParseSubmissions([]byte(opening), Prop, 0, Known{}); p.OK() || !strings.Contains(strings.Join(p.Errors, " "), "not valid UTF-8 (at byte 14)") {
		t.Errorf("submission: %v", p.Errors)
	}
	judgment := "{\"argument_id\": \"prop_001\", \"score\": 0, \"reasoning\": \"\xc0\"}"
	if _, p := ParseJudgment([]byte(judgment), 1, Known{}, nil); p.OK() || !strings.Contains(strings.Join(p.Errors, " "), "not valid UTF-8") {
		t.Errorf("judgment: %v", p.Errors)
	}
}

// TestOutOfRangeNumbers checks the message for a number JSON allows but a
// float64 cannot hold: it used to read "must be a number, found a number".
func TestOutOfRangeNumbers(t *testing.T) {
	for _, num := range []string{"1e999", "-1e400"} {
		j := `{"argument_id": "prop_001", "score": ` + num + `, "reasoning": "r"}`
		_, p := ParseJudgment([]byte(j), 1, Known{}, nil)
		if want := "score: must be a finite number, found " + num; len(p.Errors) != 1 || p.Errors[0] != want {
			t.Errorf("%s: errors %q, want %q", num, p.Errors, want)
		}
	}
}
