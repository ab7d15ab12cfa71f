package builtin

import (
	"encoding/json"
	"fmt"
	"hash/fnv"
	"strings"

	sm "github.com/moot-dev/moot/statemachine"
)

// Conversation is a call as a protocol's script reads it.
type Conversation struct {
	// Msgs are the call's messages.
	Msgs []sm.Message
	// System is the first message's text when it is a system (or
	// developer) message.
	System string
	// Prompt is the newest user message, and First the first.
	Prompt, First string
	// Repair is true when an answer was sent back for repair: the script
	// then answers by the rules.
	Repair bool
}

// Read returns call as a Conversation.
func Read(call sm.ScriptCall) Conversation {
	c := Conversation{Msgs: call.Messages, Repair: call.Repair}
	msgs := call.Messages
	if len(msgs) > 0 && (msgs[0].Role == "system" || msgs[0].Role == "developer") {
		c.System = msgs[0].Content
	}
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i].Role == "user" {
			c.Prompt = msgs[i].Content
			break
		}
	}
	for _, m := range msgs {
		if m.Role == "user" {
			c.First = m.Content
			break
		}
	}
	return c
}

// Field returns the value of the first line of text that starts with
// label and ": ", trimmed.
func Field(text, label string) string {
	for _, line := range strings.Split(text, "\n") {
		if v, ok := strings.CutPrefix(strings.TrimSpace(line), label+": "); ok {
			return strings.TrimSpace(v)
		}
	}
	return ""
}

// Between returns the text of s after the first before and up to the
// next after ("" for none: up to the end), and whether before was found.
func Between(s, before, after string) (string, bool) {
	i := strings.Index(s, before)
	if i < 0 {
		return "", false
	}
	s = s[i+len(before):]
	if after != "" {
		if j := strings.Index(s, after); j >= 0 {
			s = s[:j]
		}
	}
	return s, true
}

// Pick returns a number from 0 to n-1 that depends only on key.
func Pick(key string, n int) int {
	h := fnv.New32a()
	h.Write([]byte(key))
	return int(h.Sum32() % uint32(n))
}

// Clip shortens text to at most n words, marking a cut with "...".
func Clip(text string, n int) string {
	w := strings.Fields(text)
	if len(w) <= n {
		return strings.Join(w, " ")
	}
	return strings.Join(w[:n], " ") + "..."
}

// Unquoted is text without the quotes, spaces and final full stop around
// it.
func Unquoted(text string) string {
	return strings.TrimRight(strings.Trim(strings.TrimSpace(text), `"'“”`), ".")
}

// LowerFirst is s with its first letter in lower case, unless it starts
// an acronym.
func LowerFirst(s string) string {
	if s == "" || (len(s) > 1 && s[1] >= 'A' && s[1] <= 'Z') {
		return s
	}
	return strings.ToLower(s[:1]) + s[1:]
}

// Marshal writes v as indented JSON.
func Marshal(v any) (string, error) {
	b, err := json.MarshalIndent(v, "", "  ")
	return string(b), err
}

// Errorf is the error of a call whose prompt lacks what its script reads,
// wrapping ErrUnknownPrompt.
func Errorf(format string, args ...any) error {
	return fmt.Errorf("%w (%s)", ErrUnknownPrompt, fmt.Sprintf(format, args...))
}
