package model

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/packages/ssestream"
	"github.com/openai/openai-go/v3/responses"
	"github.com/openai/openai-go/v3/shared"
)

// This file speaks OpenAI's Responses API (POST /responses) through the
// SDK's responses package, for a client made with Config.API
// APIResponses: the same Request and Response as Chat Completions, the
// same retries, fallbacks, limits and errors (Complete in complete.go
// chooses the API), only the wire differs. The messages go as input
// items, the JSON schema as text.format, the cap as max_output_tokens,
// and a stream comes as typed events (response.output_text.delta,
// response.function_call_arguments.delta, ..., response.completed with
// the whole response and its usage).

// API is the API a client speaks to its endpoint.
type API string

// The APIs.
const (
	// APIChat is Chat Completions (POST /chat/completions), which every
	// OpenAI-compatible server serves: the default.
	APIChat API = "chat"
	// APIResponses is OpenAI's Responses API (POST /responses), which
	// OpenAI's reasoning models favour and some of them only serve.
	APIResponses API = "responses"
)

// APIEnv is the environment variable ConfigFromEnv reads Config.API from.
const APIEnv = "MOOT_API"

// ParseAPI turns an API's name as written in a flag, the environment or
// moot.yaml into an API; "" gives APIChat.
func ParseAPI(s string) (API, error) {
	switch a := API(strings.ToLower(strings.TrimSpace(s))); a {
	case "", APIChat:
		return APIChat, nil
	case APIResponses:
		return a, nil
	}
	return "", fmt.Errorf("unknown API %q: want %s (Chat Completions) or %s (the Responses API)", s, APIChat, APIResponses)
}

// API returns the API the client speaks.
func (c *Client) API() API {
	if c.useResponses {
		return APIResponses
	}
	return APIChat
}

// responseInput returns the messages of r as the Responses API's input
// items: each message of role system, developer, user or assistant as a
// message item, an assistant's tool calls each as a function_call item
// after it, and a tool's result as a function_call_output item naming
// its call. Breakpoints are not sent: the Responses API takes no
// cache_control, and OpenAI caches the prompt's prefixes by itself.
func (r Request) responseInput() (responses.ResponseInputParam, error) {
	if strings.TrimSpace(r.Model) == "" {
		return nil, errors.New("request names no model")
	}
	if len(r.Messages) == 0 {
		return nil, errors.New("request has no messages")
	}
	out := make(responses.ResponseInputParam, 0, len(r.Messages))
	for i, m := range r.Messages {
		switch m.Role {
		case "system", "developer", "user", "assistant":
			// A turn of tool calls alone is its calls, with no message.
			if m.Content != "" || len(m.ToolCalls) == 0 {
				item := responses.ResponseInputItemParamOfMessage(m.Content, responses.EasyInputMessageRole(m.Role))
				item.OfMessage.Type = responses.EasyInputMessageTypeMessage
				out = append(out, item)
			}
			for _, tc := range m.ToolCalls {
				out = append(out, responses.ResponseInputItemParamOfFunctionCall(tc.Arguments, tc.ID, tc.Name))
			}
		case "tool":
			if m.ToolCallID == "" {
				return nil, fmt.Errorf("message %d has role \"tool\" but names no tool call", i)
			}
			item := responses.ResponseInputItemParamOfFunctionCallOutput(m.Content)
			item.OfFunctionCallOutput.CallID = openai.String(m.ToolCallID)
			out = append(out, item)
		default:
			return nil, fmt.Errorf("message %d has role %q: want system, user, assistant or tool", i, m.Role)
		}
	}
	return out, nil
}

// responseParams are the Responses API's parameters of req in the
// variant v. moot keeps its own record of every call, so it asks the
// endpoint to store nothing (store false).
func (c *Client) responseParams(req Request, input responses.ResponseInputParam, v variant) responses.ResponseNewParams {
	p := responses.ResponseNewParams{
		Model: req.Model,
		Input: responses.ResponseNewParamsInputUnion{OfInputItemList: input},
		Store: openai.Bool(false),
	}
	if v.sendTemperature {
		p.Temperature = openai.Float(*req.Temperature)
	}
	if req.MaxTokens > 0 {
		p.MaxOutputTokens = openai.Int(int64(req.MaxTokens))
	}
	for _, t := range req.Tools {
		fn := responses.FunctionToolParam{Name: t.Name, Parameters: t.Parameters,
			// The Responses API makes a function strict unless told
			// otherwise, and refuses a strict one whose schema strict
			// mode cannot take.
			Strict: openai.Bool(strictCompatible(t.Parameters))}
		if t.Description != "" {
			fn.Description = openai.String(t.Description)
		}
		p.Tools = append(p.Tools, responses.ToolUnionParam{OfFunction: &fn})
	}
	switch v.mode {
	case ModeSchema:
		js := responses.ResponseFormatTextJSONSchemaConfigParam{Name: schemaName(req.SchemaName), Schema: req.Schema}
		if strictCompatible(req.Schema) {
			js.Strict = openai.Bool(true)
		}
		p.Text.Format.OfJSONSchema = &js
	case ModeObject:
		p.Text.Format.OfJSONObject = &shared.ResponseFormatJSONObjectParam{}
	}
	return p
}

// sendResponse makes one request to the Responses API, with retries, and
// turns its failure into an error for the caller.
func (c *Client) sendResponse(ctx context.Context, p responses.ResponseNewParams, stream bool, cl *call) (*chatCompletion, error) {
	var comp chatCompletion
	err := c.do(ctx, cl, &comp, func(x *exchange) error {
		return c.responseAttempt(ctx, p, stream, cl, x, &comp)
	})
	if err != nil {
		return nil, err
	}
	return &comp, nil
}

// responseAttempt sends p once and reads the answer into comp, giving
// each piece of streamed text to onChunk (when not nil), as chatAttempt
// does for Chat Completions.
func (c *Client) responseAttempt(ctx context.Context, p responses.ResponseNewParams, stream bool, cl *call, x *exchange, comp *chatCompletion) error {
	*comp = chatCompletion{}
	mw := c.middleware(ctx, x, cl, stream)
	defer x.done()
	if !stream {
		res, err := c.responses.New(ctx, p, mw)
		if err != nil {
			return sdkFailure(err, x)
		}
		return comp.fromResponse(res)
	}
	s := c.responses.NewStreaming(ctx, p, mw)
	defer s.Close()
	if x.whole != nil {
		var whole responses.Response
		if err := json.Unmarshal(x.whole, &whole); err != nil {
			return fmt.Errorf("parsing the JSON: %w", err)
		}
		return comp.fromResponse(&whole)
	}
	if err := readResponseStream(s, comp, cl.onChunk); err != nil {
		if !x.streaming {
			return sdkFailure(err, x)
		}
		return fmt.Errorf("reading the stream: %w", err)
	}
	return nil
}

// fromResponse reads a response of the Responses API as moot reads a
// chat completion: its output text, its refusal, its function calls, why
// it ended and its usage. A response that failed is an error, as an
// error in a stream is.
func (comp *chatCompletion) fromResponse(r *responses.Response) error {
	if r.Status == responses.ResponseStatusFailed {
		return &streamError{message: responseFailure(r)}
	}
	comp.model = r.Model
	comp.choice = r.JSON.Output.Valid() || r.Status != ""
	var text, refusal strings.Builder
	for _, item := range r.Output {
		switch item.Type {
		case "message":
			for _, part := range item.Content {
				switch part.Type {
				case "output_text":
					text.WriteString(part.Text)
				case "refusal":
					refusal.WriteString(part.Refusal)
				}
			}
		case "function_call":
			fc := item.AsFunctionCall()
			comp.toolCalls = append(comp.toolCalls, readCall(len(comp.toolCalls), fc.CallID, fc.Name, fc.Arguments))
		}
	}
	comp.content, comp.refusal = text.String(), refusal.String()
	comp.finishReason = "stop"
	if r.Status == responses.ResponseStatusIncomplete {
		switch reason := r.IncompleteDetails.Reason; reason {
		case "max_output_tokens":
			comp.finishReason = "length"
		case "":
			comp.finishReason = "incomplete"
		default:
			comp.finishReason = reason
		}
	}
	comp.usage = readResponseUsage(r.Usage)
	return nil
}

// responseFailure says why a response failed, from its error.
func responseFailure(r *responses.Response) string {
	msg := r.Error.Message
	if msg == "" {
		msg = "the response failed"
	}
	if r.Error.Code != "" {
		msg += " (" + string(r.Error.Code) + ")"
	}
	return msg
}

// readResponseUsage reads the usage of a response: input and output
// tokens, the input tokens read from and written to the prompt cache,
// and the output tokens spent reasoning.
func readResponseUsage(u responses.ResponseUsage) tokenUsage {
	d := u.InputTokensDetails
	t := tokenUsage{
		PromptTokens:     u.InputTokens,
		CompletionTokens: u.OutputTokens,
		cachedReported:   d.JSON.CachedTokens.Valid(),
		cachedTokens:     d.CachedTokens,
		reasoningTokens:  u.OutputTokensDetails.ReasoningTokens,
	}
	if d.JSON.CacheWriteTokens.Valid() {
		t.writtenTokens = d.CacheWriteTokens
	}
	return t
}

// streamItem is what a stream said so far of one output item.
type streamItem struct {
	typ     string
	texts   map[int64]*strings.Builder // by content index
	refusal strings.Builder
	callID  string
	name    string
	args    strings.Builder
}

// text is the builder of the item's content part n.
func (it *streamItem) text(n int64) *strings.Builder {
	if it.texts == nil {
		it.texts = map[int64]*strings.Builder{}
	}
	b := it.texts[n]
	if b == nil {
		b = &strings.Builder{}
		it.texts[n] = b
	}
	return b
}

// readResponseStream reads the events of a streamed response into comp,
// calling onChunk with each piece of output text as it arrives. The
// response the last event (response.completed or response.incomplete)
// carries is the answer, usage included; when it comes without its
// output (as some servers send it), the output is the one the events put
// together: the text deltas, and each function call from its item and
// its argument deltas. A stream that stops before that last event is an
// error: the answer may be cut short. An error event, or a
// response.failed, is an error.
func readResponseStream(s *ssestream.Stream[responses.ResponseStreamEventUnion], comp *chatCompletion, onChunk func(string)) error {
	items := map[int64]*streamItem{}
	item := func(n int64) *streamItem {
		it := items[n]
		if it == nil {
			it = &streamItem{}
			items[n] = it
		}
		return it
	}
	var final *responses.Response
	ended := "" // the type of the event that ended the response
	for final == nil && s.Next() {
		ev := s.Current()
		switch ev.Type {
		case "response.output_item.added", "response.output_item.done":
			it := item(ev.OutputIndex)
			it.typ = ev.Item.Type
			if ev.Item.Type == "function_call" {
				fc := ev.Item.AsFunctionCall()
				it.callID, it.name = fc.CallID, fc.Name
				if fc.Arguments != "" || ev.Type == "response.output_item.done" {
					it.args.Reset()
					it.args.WriteString(fc.Arguments)
				}
			}
		case "response.output_text.delta":
			item(ev.OutputIndex).text(ev.ContentIndex).WriteString(ev.Delta)
			if ev.Delta != "" && onChunk != nil {
				onChunk(ev.Delta)
			}
		case "response.output_text.done":
			b := item(ev.OutputIndex).text(ev.ContentIndex)
			b.Reset()
			b.WriteString(ev.Text)
		case "response.refusal.delta":
			item(ev.OutputIndex).refusal.WriteString(ev.Delta)
		case "response.refusal.done":
			it := item(ev.OutputIndex)
			it.refusal.Reset()
			it.refusal.WriteString(ev.Refusal)
		case "response.function_call_arguments.delta":
			item(ev.OutputIndex).args.WriteString(ev.Delta)
		case "response.function_call_arguments.done":
			it := item(ev.OutputIndex)
			it.args.Reset()
			it.args.WriteString(ev.Arguments)
		case "response.completed", "response.incomplete":
			final, ended = &ev.Response, ev.Type
		case "response.failed":
			return &streamError{message: responseFailure(&ev.Response)}
		case "error":
			msg := ev.Message
			if msg == "" {
				msg = "unknown error"
			}
			return &streamError{message: msg}
		}
	}
	if err := s.Err(); err != nil {
		return streamFailure(err)
	}
	if final == nil {
		return errStreamCut
	}
	if final.Status == "" {
		// The event says how the response ended.
		final.Status = responses.ResponseStatus(strings.TrimPrefix(ended, "response."))
	}
	if err := comp.fromResponse(final); err != nil {
		return err
	}
	if len(final.Output) == 0 {
		comp.content, comp.refusal, comp.toolCalls = "", "", nil
		var text, refusal strings.Builder
		for _, n := range slices.Sorted(maps.Keys(items)) {
			it := items[n]
			for _, k := range slices.Sorted(maps.Keys(it.texts)) {
				text.WriteString(it.texts[k].String())
			}
			refusal.WriteString(it.refusal.String())
			if it.typ == "function_call" {
				comp.toolCalls = append(comp.toolCalls, readCall(len(comp.toolCalls), it.callID, it.name, it.args.String()))
			}
		}
		comp.content, comp.refusal = text.String(), refusal.String()
	}
	comp.streamed = true
	return nil
}
