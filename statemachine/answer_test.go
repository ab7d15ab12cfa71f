package statemachine_test

import (
	"bytes"
	"strings"
	"testing"

	sm "github.com/moot-dev/moot/statemachine"
)

// TestCallCheck: every answer passes the limit of an answer and UTF-8
// before the call's own validation, which never sees one that breaks
// them; a call without validation takes any answer that is not empty.
func TestCallCheck(t *testing.T) {
	accepts := func([]byte) sm.Report { return sm.Report{} }
	tests := []struct {
		name     string
		validate func([]byte) sm.Report
		answer   []byte
		want     string // the first error, "" when accepted
	}{
		{"text", nil, []byte("An answer."), ""},
		{"empty, without validation", nil, []byte(" \n"), "the answer is empty"},
		{"empty, with validation that takes it", accepts, nil, ""},
		{"not UTF-8", accepts, []byte("An \xff answer."), "the answer is not valid UTF-8 (at byte 3)"},
		{"a cut rune at the end", accepts, []byte("déj\xc3"), "the answer is not valid UTF-8 (at byte 4)"},
		{"at the limit", accepts, bytes.Repeat([]byte("a"), sm.MaxAnswerSize), ""},
		{"over the limit", accepts, bytes.Repeat([]byte("a"), sm.MaxAnswerSize+1), "the answer is 1048577 bytes, over the 1048576-byte (1 MiB) limit for an answer"},
		{"the call's own rule", func([]byte) sm.Report { return sm.Report{Errors: []string{"own"}} }, []byte("x"), "own"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			seen := false
			c := sm.Call{}
			if tt.validate != nil {
				c.Validate = func(a []byte) sm.Report { seen = true; return tt.validate(a) }
			}
			rep := c.Check(tt.answer)
			got := ""
			if !rep.OK() {
				got = rep.Errors[0]
			}
			if got != tt.want {
				t.Errorf("Check = %q, want %q", got, tt.want)
			}
			if seen && strings.HasPrefix(tt.want, "the answer is ") && tt.want != "the answer is empty" {
				t.Errorf("the call's validation saw an answer the common rule refuses")
			}
		})
	}
}
