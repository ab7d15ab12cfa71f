// Package builtin is moot's scripted model: a stand-in for a language
// model that runs in the moot process, with no network and no key, and
// plays every role of every protocol moot ships (dialectic, forum,
// moderated, refine and panel) from the prompts alone, as the test
// suite's fakes do. It answers in the shapes each protocol asks for, with
// text written from a fixed script around the motion, and on purpose gets
// one answer of each debate wrong the first time, so that the repair path
// shows.
//
// Its text argues nothing: it shows how a debate runs and what its files
// look like (moot demo). So that no one mistakes it for a model's, the
// model's name, Name, is recorded wherever a model's would be, and moot's
// reports and status say in words who wrote the text (Note).
package builtin

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"strings"

	"github.com/moot-dev/moot/internal/model"
)

// Name is the model name that selects the built-in model (--model
// builtin) and that every file records for its answers.
const Name = "builtin"

// Is reports whether name selects the built-in model.
func Is(name string) bool { return strings.TrimSpace(name) == Name }

// ErrUnknownPrompt is wrapped by the error of a request the built-in
// model cannot place: a prompt of none of moot's protocols, or one that
// templates of a debate's own have changed past recognition.
var ErrUnknownPrompt = errors.New("the built-in model cannot tell what this prompt asks for: it answers moot's own prompts only")

// Client answers chat and embedding requests as the built-in model. Its
// zero value is ready, it is safe for concurrent use, and the same
// request always gets the same answer.
type Client struct{}

// Complete answers req from its messages. It takes no time: Latency is
// zero. Its token counts are estimates (a token for every four bytes),
// since it has no tokenizer; they give the size of the prompts a model
// would be sent.
func (Client) Complete(ctx context.Context, req model.Request) (model.Response, error) {
	if err := ctx.Err(); err != nil {
		return model.Response{}, err
	}
	c := newConversation(req.Messages)
	text, err := answer(c)
	if err != nil {
		return model.Response{}, err
	}
	if req.OnChunk != nil {
		req.OnChunk(text)
	}
	prompt := 0
	for _, m := range req.Messages {
		prompt += len(m.Content)
	}
	return model.Response{
		Text: text, PromptTokens: estimate(prompt), CompletionTokens: estimate(len(text)),
		Attempts: 1, Model: Name,
	}, nil
}

// estimate is the tokens of n bytes of text, at four bytes a token.
func estimate(n int) int { return (n + 3) / 4 }

// answer is the built-in model's reply to the conversation c, by the
// protocol and role its prompts belong to.
func answer(c conversation) (string, error) {
	switch {
	case c.system == "" && strings.HasPrefix(c.prompt, "Write an analysis of the debate"):
		return narrative(c), nil
	case isDialectic(c):
		return dialecticAnswer(c)
	case isPanel(c):
		return panelAnswer(c)
	case isRefine(c):
		return refineAnswer(c)
	case isModerated(c):
		return moderatedAnswer(c)
	case forumKind(c) != "":
		return forumAnswer(c)
	}
	return "", ErrUnknownPrompt
}

// conversation is a request's messages as the built-in model reads them.
type conversation struct {
	msgs []model.Message
	// system is the first message's text when it is a system (or
	// developer) message.
	system string
	// prompt is the newest user message that is not a request for repair,
	// and first the first user message.
	prompt, first string
	// repair is true when the newest user message sends an answer back
	// for repair: the built-in model then answers by the rules.
	repair bool
}

func newConversation(msgs []model.Message) conversation {
	c := conversation{msgs: msgs}
	if len(msgs) > 0 && (msgs[0].Role == "system" || msgs[0].Role == "developer") {
		c.system = msgs[0].Content
	}
	last := true
	for i := len(msgs) - 1; i >= 0; i-- {
		m := msgs[i]
		if m.Role != "user" {
			continue
		}
		if isRepair(m.Content) {
			c.repair = c.repair || last
		} else if c.prompt == "" {
			c.prompt = m.Content
		}
		last = false
	}
	for _, m := range msgs {
		if m.Role == "user" {
			c.first = m.Content
			break
		}
	}
	return c
}

// isRepair reports whether a user message sends an answer back: moot's
// repair templates and the driver's own request both begin so.
func isRepair(text string) bool {
	return strings.HasPrefix(strings.TrimSpace(text), "Your answer could not be accepted") ||
		strings.HasPrefix(strings.TrimSpace(text), "Your answer broke these rules")
}

// field returns the value of the first line of text that starts with
// label and ": ", trimmed.
func field(text, label string) string {
	for _, line := range strings.Split(text, "\n") {
		if v, ok := strings.CutPrefix(strings.TrimSpace(line), label+": "); ok {
			return strings.TrimSpace(v)
		}
	}
	return ""
}

// between returns the text of s after the first before and up to the
// next after ("" for none: up to the end), and whether before was found.
func between(s, before, after string) (string, bool) {
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

// pick returns a number from 0 to n-1 that depends only on key.
func pick(key string, n int) int {
	h := fnv.New32a()
	h.Write([]byte(key))
	return int(h.Sum32() % uint32(n))
}

// clip shortens text to at most n words, marking a cut with "...".
func clip(text string, n int) string {
	w := strings.Fields(text)
	if len(w) <= n {
		return strings.Join(w, " ")
	}
	return strings.Join(w[:n], " ") + "..."
}

// unquoted is text without the quotes, spaces and final full stop around it.
func unquoted(text string) string {
	return strings.TrimRight(strings.Trim(strings.TrimSpace(text), `"'“”`), ".")
}

// errorf is an error of a prompt the built-in model found but could not
// answer, wrapping ErrUnknownPrompt.
func errorf(format string, args ...any) error {
	return fmt.Errorf("%w (%s)", ErrUnknownPrompt, fmt.Sprintf(format, args...))
}
