package model

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/shared"
)

// This file is function calling ("tools") of the Chat Completions API: a
// request offers tools, the model answers with tool calls instead of text,
// the caller runs them and sends each result back in a message of role
// "tool", and the model answers again, until it answers with text.

// ErrNoTools marks an endpoint that refused a request for offering tools:
// its models cannot call them.
var ErrNoTools = errors.New("the endpoint does not take tools (function calling)")

// Tool is a function the model may call.
type Tool struct {
	Name        string
	Description string
	// Parameters is the JSON schema of the call's arguments.
	Parameters map[string]any
}

// ToolCall is one call of a tool the model asked for.
type ToolCall struct {
	ID   string `json:"id"`
	Name string `json:"name"`
	// Arguments is the JSON of the arguments, as the model wrote it: it
	// may be anything, and is checked by whoever runs the tool.
	Arguments string `json:"arguments"`
	// Extra is the call's extra_content as the server sent it, sent back
	// with the call in the next round: Gemini's OpenAI-compatible endpoint
	// puts there the thought signature that Gemini 3 wants back with the
	// calls it made. Nil when the call had none.
	Extra json.RawMessage `json:"extra_content,omitempty"`
}

// toolParam is t as the SDK sends it, a function tool.
func toolParam(t Tool) openai.ChatCompletionToolUnionParam {
	fn := shared.FunctionDefinitionParam{Name: t.Name, Parameters: shared.FunctionParameters(t.Parameters)}
	if t.Description != "" {
		fn.Description = openai.String(t.Description)
	}
	return openai.ChatCompletionFunctionTool(fn)
}

// toolCallParams are the tool calls of an assistant message as the SDK
// sends them.
func toolCallParams(calls []ToolCall) []openai.ChatCompletionMessageToolCallUnionParam {
	if len(calls) == 0 {
		return nil
	}
	out := make([]openai.ChatCompletionMessageToolCallUnionParam, len(calls))
	for i, c := range calls {
		out[i].OfFunction = &openai.ChatCompletionMessageFunctionToolCallParam{
			ID:       c.ID,
			Function: openai.ChatCompletionMessageFunctionToolCallFunctionParam{Name: c.Name, Arguments: c.Arguments},
		}
		if len(c.Extra) > 0 {
			out[i].OfFunction.SetExtraFields(map[string]any{"extra_content": c.Extra})
		}
	}
	return out
}

// callExtra returns the extra_content of a tool call's JSON, nil when it
// has none.
func callExtra(raw string) json.RawMessage {
	var v struct {
		Extra json.RawMessage `json:"extra_content"`
	}
	if raw == "" || json.Unmarshal([]byte(raw), &v) != nil {
		return nil
	}
	return extraValue(string(v.Extra))
}

// extraValue returns the JSON of an extra_content field, nil when it is
// missing or null.
func extraValue(raw string) json.RawMessage {
	if raw == "" || raw == "null" {
		return nil
	}
	return json.RawMessage(raw)
}

// readCall reads the i-th tool call of an answer, giving it an id of its
// own when it has none, as a "tool" message must name the call it
// answers.
func readCall(i int, id, name, arguments string) ToolCall {
	if id == "" {
		id = fmt.Sprintf("call_%d", i)
	}
	return ToolCall{ID: id, Name: name, Arguments: arguments}
}

// refusesTools reports whether e is a server saying it cannot take tools.
func refusesTools(e *APIError) bool {
	if e.Status != http.StatusBadRequest && e.Status != http.StatusUnprocessableEntity {
		return false
	}
	if e.Param == "tools" || e.Param == "tool_choice" {
		return true
	}
	msg := strings.ToLower(e.Message)
	return (strings.Contains(msg, "tool") || strings.Contains(msg, "function call")) && mentionsUnsupported(msg)
}

// ToolRunner runs one tool call and returns what the model is told: its
// result, or an error message. It never fails: whatever goes wrong is
// said in the text the model reads.
type ToolRunner func(ctx context.Context, call ToolCall) string

// Completer is what CompleteWithTools needs of a client.
type Completer interface {
	Complete(ctx context.Context, req Request) (Response, error)
}

// CompleteWithTools asks req, offering its tools, and runs the tool calls
// the model makes with run, sending their results back, until the model
// answers with text. After maxRounds rounds of calls, every further call
// is answered with an error asking for the answer; two rounds more and it
// fails. It returns the final answer, its usage and time the sum of every
// round's, and the messages the rounds added to the conversation (the
// model's calls and their results), which is the research's transcript.
func CompleteWithTools(ctx context.Context, c Completer, req Request, run ToolRunner, maxRounds int) (Response, []Message, error) {
	var added []Message
	var total Response
	msgs := append([]Message(nil), req.Messages...)
	for round := 0; ; round++ {
		r := req
		r.Messages = msgs
		resp, err := c.Complete(ctx, r)
		total.PromptTokens += resp.PromptTokens
		total.CompletionTokens += resp.CompletionTokens
		total.CachedTokens += resp.CachedTokens
		total.CacheWriteTokens += resp.CacheWriteTokens
		total.ReasoningTokens += resp.ReasoningTokens
		total.Attempts += resp.Attempts
		total.Latency += resp.Latency
		if err != nil {
			total.Text, total.ToolCalls = "", nil
			return total, added, err
		}
		if len(resp.ToolCalls) == 0 {
			resp.PromptTokens, resp.CompletionTokens, resp.CachedTokens = total.PromptTokens, total.CompletionTokens, total.CachedTokens
			resp.CacheWriteTokens, resp.ReasoningTokens = total.CacheWriteTokens, total.ReasoningTokens
			resp.Attempts, resp.Latency = total.Attempts, total.Latency
			return resp, added, nil
		}
		if round >= maxRounds+2 {
			return total, added, fmt.Errorf("model %q kept calling tools after %d rounds", req.Model, round)
		}
		call := Message{Role: "assistant", Content: resp.Text, ToolCalls: resp.ToolCalls}
		msgs = append(msgs, call)
		added = append(added, call)
		for _, tc := range resp.ToolCalls {
			var out string
			if round >= maxRounds {
				out = fmt.Sprintf("error: no more tool calls (at most %d rounds): write your answer now", maxRounds)
			} else {
				start := time.Now()
				out = run(ctx, tc)
				total.Latency += time.Since(start)
			}
			if ctx.Err() != nil {
				return total, added, ctx.Err()
			}
			m := Message{Role: "tool", Content: out, ToolCallID: tc.ID}
			msgs = append(msgs, m)
			added = append(added, m)
		}
	}
}

// Decode decodes a tool call's arguments into v, saying what is wrong
// in words the model can act on.
func (tc ToolCall) Decode(v any) error {
	args := strings.TrimSpace(tc.Arguments)
	if args == "" {
		args = "{}"
	}
	if err := json.Unmarshal([]byte(args), v); err != nil {
		return fmt.Errorf("the arguments of %s are not the JSON object it takes: %v", tc.Name, err)
	}
	return nil
}
