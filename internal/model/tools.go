package model

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"
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
}

type wireTool struct {
	Type     string       `json:"type"`
	Function wireFunction `json:"function"`
}

type wireFunction struct {
	Name        string         `json:"name"`
	Description string         `json:"description,omitempty"`
	Parameters  map[string]any `json:"parameters,omitempty"`
}

type wireToolCall struct {
	ID       string `json:"id"`
	Type     string `json:"type"`
	Function struct {
		Name      string `json:"name"`
		Arguments string `json:"arguments"`
	} `json:"function"`
}

func wireCalls(calls []ToolCall) []wireToolCall {
	if len(calls) == 0 {
		return nil
	}
	out := make([]wireToolCall, len(calls))
	for i, c := range calls {
		out[i].ID, out[i].Type = c.ID, "function"
		out[i].Function.Name, out[i].Function.Arguments = c.Name, c.Arguments
	}
	return out
}

// readCalls reads the tool calls of an answer, giving each without an id
// one of its own, as a "tool" message must name the call it answers.
func readCalls(calls []wireToolCall) []ToolCall {
	if len(calls) == 0 {
		return nil
	}
	out := make([]ToolCall, 0, len(calls))
	for i, c := range calls {
		id := c.ID
		if id == "" {
			id = fmt.Sprintf("call_%d", i)
		}
		out = append(out, ToolCall{ID: id, Name: c.Function.Name, Arguments: c.Function.Arguments})
	}
	return out
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
		total.Attempts += resp.Attempts
		total.Latency += resp.Latency
		if err != nil {
			total.Text, total.ToolCalls = "", nil
			return total, added, err
		}
		if len(resp.ToolCalls) == 0 {
			resp.PromptTokens, resp.CompletionTokens, resp.CachedTokens = total.PromptTokens, total.CompletionTokens, total.CachedTokens
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
