package statemachine

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/moot-dev/moot/internal/frontmatter"
	"github.com/moot-dev/moot/internal/lenient"
)

// MaxAnswerSize is the largest answer any call of any protocol takes, by
// any path (a model's, a person's, one kept from an earlier run, a file
// handed to a step by hand): 1 MiB.
const MaxAnswerSize = 1 << 20

// CheckSize refuses the answer of role over MaxAnswerSize, before any time
// is spent parsing it, with a *Refused that names the role.
func CheckSize(role string, answer []byte) error {
	if len(answer) > MaxAnswerSize {
		return &Refused{Reasons: []string{fmt.Sprintf("the %s's answer is %d bytes, over the %d-byte (1 MiB) limit for an answer",
			role, len(answer), MaxAnswerSize)}}
	}
	return nil
}

// AnswerProblem says what makes answer one that no call of any protocol
// takes: over MaxAnswerSize, or not valid UTF-8; "" when it is neither.
// It is said in the words a model is sent back or a person is shown.
func AnswerProblem(answer []byte) string {
	if len(answer) > MaxAnswerSize {
		return fmt.Sprintf("the answer is %d bytes, over the %d-byte (1 MiB) limit for an answer", len(answer), MaxAnswerSize)
	}
	if n := frontmatter.InvalidUTF8(answer); n >= 0 {
		return fmt.Sprintf("the answer is not valid UTF-8 (at byte %d)", n)
	}
	return ""
}

// Check puts answer through every check an answer to c passes before it
// is kept or applied: AnswerProblem's first, then c's own Validate, or
// without one, that the answer is not empty. Every path an answer comes
// by goes through it, so that an answer no Apply could write is refused
// before anything is written.
func (c Call) Check(answer []byte) Report {
	if p := AnswerProblem(answer); p != "" {
		return Report{Errors: []string{p}}
	}
	if c.Validate != nil {
		return c.Validate(answer)
	}
	if len(bytes.TrimSpace(answer)) == 0 {
		return Report{Errors: []string{"the answer is empty"}}
	}
	return Report{}
}

// JSONObject takes the JSON object out of a model's reply: from its
// first "{" to its last "}", so that a fence or a word around it does no
// harm; and when that is not JSON, the object a person would find
// (lenient.JSON). It reports false when the reply holds no object.
func JSONObject(text []byte) ([]byte, bool) {
	var body []byte
	i, j := bytes.IndexByte(text, '{'), bytes.LastIndexByte(text, '}')
	if i >= 0 && j > i {
		body = text[i : j+1]
	}
	if body == nil || !json.Valid(body) {
		if b, ok := lenient.JSON(text); ok && b[0] == '{' {
			body = b
		}
	}
	return body, body != nil
}
