// Package builtin is moot's scripted model: a stand-in for a language
// model that runs in the moot process, with no network and no key, and
// plays every role of every protocol moot ships. It answers each call with
// the script its protocol ships (statemachine.Scripted), found by the
// call's role and kind, never by the wording of the prompts: the scripts
// answer in the shapes each protocol asks for, with text written from a
// fixed script around the motion, and on purpose get one answer of each
// debate wrong the first time, so that the repair path shows. This
// package holds what every script shares (Conversation and its helpers).
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
	"strings"

	"github.com/moot-dev/moot/internal/model"
)

// Name is the model name that selects the built-in model (--model
// builtin) and that every file records for its answers.
const Name = "builtin"

// Is reports whether name selects the built-in model.
func Is(name string) bool { return strings.TrimSpace(name) == Name }

// ErrUnknownPrompt is wrapped by the error of a request the built-in
// model cannot answer: one of no protocol's script (a protocol without
// one, or a request made outside a debate's step), or one whose prompts
// lack a fact the script reads.
var ErrUnknownPrompt = errors.New("the built-in model cannot tell what this prompt asks for: it answers the calls of moot's protocols only")

// NarratorRole is the role of the request for a written analysis of a
// dialectic debate (moot report --narrative): the built-in model answers
// it with a scripted analysis.
const NarratorRole = "narrator"

// Client answers chat and embedding requests as the built-in model. Its
// zero value is ready, it is safe for concurrent use, and the same
// request always gets the same answer.
type Client struct{}

// Complete answers req by its script (model.Request.Script), or by the
// scripted analysis for the narrator's request. It takes no time:
// Latency is zero. Its token counts are estimates (a token for every four
// bytes), since it has no tokenizer; they give the size of the prompts a
// model would be sent.
func (Client) Complete(ctx context.Context, req model.Request) (model.Response, error) {
	if err := ctx.Err(); err != nil {
		return model.Response{}, err
	}
	var text string
	var err error
	switch {
	case req.Script != nil:
		text, err = req.Script(req.Messages)
	case req.Role == NarratorRole:
		text = narrative()
	default:
		err = ErrUnknownPrompt
	}
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

// narrative is the built-in model's answer to the report's request for a
// written analysis of a dialectic debate.
func narrative() string {
	var b strings.Builder
	b.WriteString("This analysis is scripted: moot's built-in model wrote it without reading the debate, to show where a language model's analysis goes in the report.\n\n")
	for i := range 6 {
		fmt.Fprintf(&b, "Paragraph %d of the scripted analysis. A model would trace here how the debate moved: which arguments set its terms, which attacks landed and which defences held, and why the judge's scores went the way they did. ", i+1)
		b.WriteString("It would name the arguments by their ids and weigh the turning points of each exchange, the rescores among them, against the motion as it was defined and scoped. ")
		b.WriteString("The built-in model does none of this; it only fills the place with text of about the right length.\n\n")
	}
	return strings.TrimSpace(b.String())
}
