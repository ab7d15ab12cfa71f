// Package responsesfake is a fake of OpenAI's Responses API for tests: a
// server on 127.0.0.1 that answers POST /v1/responses with scripted
// replies, whole or as the API's stream of typed events, and records
// every request it receives so that a test can check what a client sent.
//
// It is as strict as OpenAI's endpoint where a client could go wrong: a
// request with a field the API does not have (a Chat Completions field
// such as messages, max_tokens or response_format), without input, with
// an input item of a type it does not know, a function_call_output
// naming no call, or a json_schema format without a name is answered 400
// with OpenAI's error body, naming the field, and so is a body not sent
// as application/json. Any other path answers 404,
// as a server without the Responses API does.
//
// A handler of modeltest (such as sparring's) answers through Chat: the
// input is handed to it as the messages of a chat request.
package responsesfake

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/moot-dev/moot/internal/testkit/modeltest"
)

// Request is one request as the server received it. Its modeltest
// fields hold what a chat request would: Messages are the input's
// message items and function call outputs (role "tool"), ResponseFormat,
// SchemaName, Strict and Schema come from text.format, MaxTokens from
// max_output_tokens (MaxTokensField then says so).
type Request struct {
	modeltest.Request
	// Store is the store field, nil when it was not sent.
	Store *bool
	// Tools are the tools offered.
	Tools []Tool
	// Calls are the input's function_call items, and Outputs its
	// function_call_output items, in their order.
	Calls   []Call
	Outputs []Output
	// ItemTypes are the types of the input's items, in their order.
	ItemTypes []string
}

// Tool is one tool a request offered.
type Tool struct {
	Type, Name, Description string
	// Strict is the tool's strict field, nil when it was not sent.
	Strict     *bool
	Parameters json.RawMessage
}

// Call is a function call: one the model made, or one a request sends
// back with its output.
type Call struct {
	CallID, Name, Arguments string
}

// Output is the result of a function call a request sends back.
type Output struct {
	CallID, Output string
}

// Reply is a scripted answer. Its modeltest fields work as they do for
// a chat request (Content, Refusal, Model, Status and the error fields,
// RetryAfter, Delay, PromptTokens, CompletionTokens, CachedTokens,
// CacheWriteTokens, RawBody, ContentType, StreamCut, StreamError);
// FinishReason "length" makes the response incomplete for its
// max_output_tokens.
type Reply struct {
	modeltest.Reply
	// Calls are function calls the model makes, after its text if any.
	Calls []Call
	// ReasoningTokens is reported as the part of the output tokens spent
	// reasoning, with a reasoning item before the output.
	ReasoningTokens int
	// Failed makes the response fail with this message: status failed
	// when whole, a response.failed event when streamed.
	Failed string
	// BareCompleted sends a stream's response.completed without the
	// output, as some servers do: the client must put the answer
	// together from the events.
	BareCompleted bool
}

// Handler decides the reply to one request. It may be called from
// several goroutines at once.
type Handler func(req Request) Reply

// Chat answers each request with h, the handler of a chat server, given
// the request as a chat request.
func Chat(h modeltest.Handler) Handler {
	return func(req Request) Reply { return Reply{Reply: h(req.Request)} }
}

// Option changes how a Server behaves before the handler is asked.
type Option func(*Server)

// RefuseSchema makes the server answer 400 to a request whose
// text.format is json_schema, as a model without structured output
// does; RefuseJSONObject does the same for json_object. The handler is
// not asked.
func RefuseSchema() Option { return func(s *Server) { s.refuse["json_schema"] = true } }

// RefuseJSONObject: see RefuseSchema.
func RefuseJSONObject() Option { return func(s *Server) { s.refuse["json_object"] = true } }

// RefuseStream makes the server answer 400 to a request with "stream":
// true, as a server that cannot stream and says so does; IgnoreStream
// makes it answer such a request whole, as one that ignores the field
// does.
func RefuseStream() Option { return func(s *Server) { s.streaming = "refuse" } }

// IgnoreStream: see RefuseStream.
func IgnoreStream() Option { return func(s *Server) { s.streaming = "ignore" } }

// RequireAPIKey makes the server answer 401 to a request that does not
// carry "Authorization: Bearer key". The answer never repeats the key.
func RequireAPIKey(key string) Option { return func(s *Server) { s.apiKey = key } }

// Server is a running fake.
type Server struct {
	// URL is the base URL to give a client; it ends in /v1.
	URL string

	fail    func(string)
	handler Handler
	srv     *httptest.Server
	done    chan struct{}
	refuse  map[string]bool
	apiKey  string
	// streaming is how a request to stream is met: "" streams, "refuse"
	// answers 400, "ignore" answers whole.
	streaming string
	once      sync.Once

	mu       sync.Mutex
	requests []Request
}

// NewServer starts a fake answering with h; it is closed when the test
// ends.
func NewServer(t testing.TB, h Handler, opts ...Option) *Server {
	t.Helper()
	s := &Server{fail: func(msg string) { t.Errorf("responsesfake: %s", msg) }, handler: h,
		done: make(chan struct{}), refuse: map[string]bool{}}
	for _, o := range opts {
		o(s)
	}
	srv, err := modeltest.Listen(http.HandlerFunc(s.serve))
	if err != nil {
		t.Fatalf("responsesfake: %v", err)
	}
	s.srv = srv
	s.URL = s.srv.URL + "/v1"
	t.Cleanup(s.Close)
	return s
}

// Close stops the server, ending the requests it is still answering.
func (s *Server) Close() {
	s.once.Do(func() {
		close(s.done)
		s.srv.CloseClientConnections()
		s.srv.Close()
	})
}

// Requests returns every request received so far, in their order.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.requests)
}

// fields are the top-level fields of a request to POST /responses that
// the fake accepts: those of OpenAI's API a client like moot's may send.
var fields = []string{"model", "input", "instructions", "store", "stream", "stream_options", "temperature", "top_p",
	"max_output_tokens", "tools", "tool_choice", "parallel_tool_calls", "text", "reasoning", "metadata", "user",
	"previous_response_id", "include", "truncation", "service_tier", "prompt_cache_key", "safety_identifier"}

// failure is a request the fake refuses: its status, the field at fault
// and a message as OpenAI words it.
type failure struct {
	status         int
	param, message string
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		writeError(w, failure{http.StatusBadRequest, "", "cannot read the request body"})
		return
	}
	req := Request{Request: modeltest.Request{Method: r.Method, Path: r.URL.Path, Header: r.Header.Clone(), Body: body}}
	if r.URL.Path != "/v1/responses" || r.Method != http.MethodPost {
		s.keep(req)
		writeError(w, failure{http.StatusNotFound, "", fmt.Sprintf("Invalid URL (%s %s)", r.Method, r.URL.Path)})
		return
	}
	f := parse(&req)
	if f == nil && !strings.HasPrefix(r.Header.Get("Content-Type"), "application/json") {
		f = &failure{http.StatusBadRequest, "", "Invalid Content-Type header: want application/json."}
	}
	s.keep(req)
	switch {
	case s.apiKey != "" && r.Header.Get("Authorization") != "Bearer "+s.apiKey:
		f = &failure{http.StatusUnauthorized, "", "Incorrect API key provided."}
	case f == nil && req.Stream && s.streaming == "refuse":
		f = &failure{http.StatusBadRequest, "stream", "Unsupported parameter: 'stream' is not supported with this model."}
	case f == nil && s.refuse[req.ResponseFormat]:
		f = &failure{http.StatusBadRequest, "text.format",
			fmt.Sprintf("Invalid parameter: 'text.format' of type '%s' is not supported with this model.", req.ResponseFormat)}
	}
	if f != nil {
		writeError(w, *f)
		return
	}
	reply := s.handler(req)
	if msg := reply.Failure(); msg != "" {
		s.fail(msg)
		w.Header().Set("X-Should-Retry", "false")
		writeError(w, failure{http.StatusInternalServerError, "", "responsesfake: " + msg})
		return
	}
	if !s.wait(r, reply.Delay) {
		return
	}
	switch {
	case reply.RawBody != "":
		w.Header().Set("Content-Type", cmp.Or(reply.ContentType, "application/json"))
		w.WriteHeader(cmp.Or(reply.Status, http.StatusOK))
		io.WriteString(w, reply.RawBody)
	case reply.Status != 0 && reply.Status != http.StatusOK:
		if reply.RetryAfter != "" {
			w.Header().Set("Retry-After", reply.RetryAfter)
		}
		writeError(w, failure{reply.Status, reply.ErrorParam, cmp.Or(reply.ErrorMessage, http.StatusText(reply.Status))})
	case req.Stream && s.streaming == "":
		s.stream(w, req, reply)
	default:
		b, _ := json.Marshal(response(req, reply, true))
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Content-Length", strconv.Itoa(len(b)))
		w.Write(b)
	}
}

func (s *Server) keep(r Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.requests = append(s.requests, r)
}

// wait waits d, and reports false when the client went away or the
// server closed first.
func (s *Server) wait(r *http.Request, d time.Duration) bool {
	if d <= 0 {
		return true
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-r.Context().Done():
	case <-s.done:
	}
	return false
}

// wire is a request's body as the fake reads it.
type wire struct {
	Model           string            `json:"model"`
	Input           json.RawMessage   `json:"input"`
	Instructions    *string           `json:"instructions"`
	Store           *bool             `json:"store"`
	Stream          bool              `json:"stream"`
	Temperature     *float64          `json:"temperature"`
	MaxOutputTokens *int              `json:"max_output_tokens"`
	Tools           []json.RawMessage `json:"tools"`
	Text            *struct {
		Format *struct {
			Type   string          `json:"type"`
			Name   string          `json:"name"`
			Strict bool            `json:"strict"`
			Schema json.RawMessage `json:"schema"`
		} `json:"format"`
	} `json:"text"`
}

// item is one input item as the fake reads it.
type item struct {
	Type      string          `json:"type"`
	Role      string          `json:"role"`
	Content   json.RawMessage `json:"content"`
	CallID    *string         `json:"call_id"`
	Name      string          `json:"name"`
	Arguments string          `json:"arguments"`
	Output    json.RawMessage `json:"output"`
}

// parse reads the body of req into its fields, and returns what the API
// would refuse in it, nil when nothing.
func parse(req *Request) *failure {
	bad := func(param, format string, args ...any) *failure {
		return &failure{http.StatusBadRequest, param, fmt.Sprintf(format, args...)}
	}
	var top map[string]json.RawMessage
	if json.Unmarshal(req.Body, &top) != nil {
		return bad("", "We could not parse the JSON body of your request.")
	}
	for k := range top {
		if !slices.Contains(fields, k) {
			return bad(k, "Unknown parameter: '%s'.", k)
		}
	}
	var wr wire
	if err := json.Unmarshal(req.Body, &wr); err != nil {
		return bad("", "Invalid body: %v", err)
	}
	req.Model, req.Store, req.Stream, req.Temperature = wr.Model, wr.Store, wr.Stream, wr.Temperature
	if wr.MaxOutputTokens != nil {
		req.MaxTokens, req.MaxTokensField = *wr.MaxOutputTokens, "max_output_tokens"
	}
	if wr.Model == "" {
		return bad("model", "Missing required parameter: 'model'.")
	}
	if wr.Instructions != nil {
		req.Messages = append(req.Messages, modeltest.Message{Role: "system", Content: *wr.Instructions})
	}
	var text string
	var items []item
	switch {
	case json.Unmarshal(wr.Input, &text) == nil:
		req.Messages = append(req.Messages, modeltest.Message{Role: "user", Content: text})
	case json.Unmarshal(wr.Input, &items) == nil && len(items) > 0:
	default:
		return bad("input", "Missing required parameter: 'input'.")
	}
	for i, it := range items {
		typ := cmp.Or(it.Type, "message")
		req.ItemTypes = append(req.ItemTypes, typ)
		switch typ {
		case "message":
			if !slices.Contains([]string{"system", "developer", "user", "assistant"}, it.Role) {
				return bad(fmt.Sprintf("input[%d].role", i), "Invalid value: '%s'.", it.Role)
			}
			req.Messages = append(req.Messages, modeltest.Message{Role: it.Role, Content: contentText(it.Content)})
		case "function_call":
			if it.CallID == nil || it.Name == "" {
				return bad(fmt.Sprintf("input[%d]", i), "A function_call item needs a call_id and a name.")
			}
			req.Calls = append(req.Calls, Call{CallID: *it.CallID, Name: it.Name, Arguments: it.Arguments})
		case "function_call_output":
			if it.CallID == nil || *it.CallID == "" {
				return bad(fmt.Sprintf("input[%d].call_id", i), "Missing required parameter: 'input[%d].call_id'.", i)
			}
			out := contentText(it.Output)
			req.Outputs = append(req.Outputs, Output{CallID: *it.CallID, Output: out})
			req.Messages = append(req.Messages, modeltest.Message{Role: "tool", Content: out})
		default:
			return bad(fmt.Sprintf("input[%d].type", i), "Invalid value: '%s'.", typ)
		}
	}
	for i, raw := range wr.Tools {
		var t struct {
			Type, Name, Description string
			Strict                  *bool
			Parameters              json.RawMessage
		}
		if json.Unmarshal(raw, &t) != nil || t.Type != "function" || t.Name == "" {
			return bad(fmt.Sprintf("tools[%d]", i), "Invalid tool: want a function tool with a name.")
		}
		req.Tools = append(req.Tools, Tool{Type: t.Type, Name: t.Name, Description: t.Description, Strict: t.Strict, Parameters: t.Parameters})
	}
	if wr.Text != nil && wr.Text.Format != nil {
		f := wr.Text.Format
		req.ResponseFormat, req.SchemaName, req.Strict, req.Schema = f.Type, f.Name, f.Strict, f.Schema
		if f.Type == "json_schema" && (f.Name == "" || len(f.Schema) == 0) {
			return bad("text.format.name", "Missing required parameter: 'text.format.name'.")
		}
	}
	return nil
}

// contentText reads a content or an output given as a string or as a
// list of parts, keeping the parts' text.
func contentText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var parts []struct {
		Text string `json:"text"`
	}
	_ = json.Unmarshal(raw, &parts)
	var b strings.Builder
	for _, p := range parts {
		b.WriteString(p.Text)
	}
	return b.String()
}

// response is the response to req as the API gives it: whole, or (not
// whole) as the events of a stream carry it before its output is done.
func response(req Request, reply Reply, whole bool) map[string]any {
	status := "completed"
	var incomplete any
	switch {
	case !whole:
		status = "in_progress"
	case reply.Failed != "":
		status = "failed"
	case reply.FinishReason == "length":
		status, incomplete = "incomplete", map[string]any{"reason": "max_output_tokens"}
	}
	out := map[string]any{
		"id": "resp_fake", "object": "response", "created_at": time.Now().Unix(), "status": status,
		"model": cmp.Or(reply.Model, req.Model), "output": []any{}, "error": nil, "incomplete_details": incomplete,
		"parallel_tool_calls": true, "tool_choice": "auto", "tools": []any{}, "temperature": 1, "top_p": 1,
	}
	if !whole {
		return out
	}
	if reply.Failed != "" {
		out["error"] = map[string]any{"code": "server_error", "message": reply.Failed}
		return out
	}
	out["output"] = outputItems(reply)
	out["usage"] = usage(req, reply)
	return out
}

// outputItems are the output of the reply: a reasoning item when it
// reasoned, a message with its text or refusal, and its function calls.
func outputItems(reply Reply) []any {
	var items []any
	if reply.ReasoningTokens > 0 {
		items = append(items, map[string]any{"type": "reasoning", "id": "rs_0", "summary": []any{}})
	}
	if reply.Content != "" || reply.Refusal != "" || len(reply.Calls) == 0 {
		items = append(items, message(reply, "completed"))
	}
	for i, c := range reply.Calls {
		items = append(items, call(i, c, c.Arguments, "completed"))
	}
	return items
}

// message is the reply's message item.
func message(reply Reply, status string) map[string]any {
	var parts []any
	if reply.Refusal != "" {
		parts = append(parts, map[string]any{"type": "refusal", "refusal": reply.Refusal})
	} else {
		parts = append(parts, map[string]any{"type": "output_text", "text": reply.Content, "annotations": []any{}})
	}
	return map[string]any{"type": "message", "id": "msg_0", "role": "assistant", "status": status, "content": parts}
}

// call is the function call item of call c, number i.
func call(i int, c Call, args, status string) map[string]any {
	return map[string]any{"type": "function_call", "id": fmt.Sprintf("fc_%d", i), "call_id": c.CallID,
		"name": c.Name, "arguments": args, "status": status}
}

// usage is the reply's usage, tokens counted roughly (four characters a
// token) where the reply does not say.
func usage(req Request, reply Reply) map[string]any {
	in := reply.PromptTokens
	if in == 0 {
		for _, m := range req.Messages {
			in += (len(m.Content)+3)/4 + 3
		}
	}
	out := reply.CompletionTokens
	if out == 0 {
		out = (len(reply.Content)+3)/4 + reply.ReasoningTokens
	}
	return map[string]any{
		"input_tokens":          in,
		"input_tokens_details":  map[string]any{"cached_tokens": reply.CachedTokens},
		"output_tokens":         out,
		"output_tokens_details": map[string]any{"reasoning_tokens": reply.ReasoningTokens},
		"total_tokens":          in + out,
	}
}

// stream answers with the events of a streamed response: created, each
// output item added, its text or arguments in deltas, done, and
// response.completed (or .incomplete, or .failed) with the whole
// response.
func (s *Server) stream(w http.ResponseWriter, req Request, reply Reply) {
	w.Header().Set("Content-Type", "text/event-stream")
	w.WriteHeader(http.StatusOK)
	flusher, _ := w.(http.Flusher)
	seq := 0
	send := func(typ string, ev map[string]any) {
		ev["type"], ev["sequence_number"] = typ, seq
		seq++
		b, _ := json.Marshal(ev)
		fmt.Fprintf(w, "event: %s\ndata: %s\n\n", typ, b)
		if flusher != nil {
			flusher.Flush()
		}
	}
	send("response.created", map[string]any{"response": response(req, reply, false)})
	index := 0
	if reply.ReasoningTokens > 0 {
		send("response.output_item.added", map[string]any{"output_index": index,
			"item": map[string]any{"type": "reasoning", "id": "rs_0", "summary": []any{}}})
		index++
	}
	if reply.Content != "" || reply.Refusal != "" || len(reply.Calls) == 0 {
		send("response.output_item.added", map[string]any{"output_index": index,
			"item": map[string]any{"type": "message", "id": "msg_0", "role": "assistant", "status": "in_progress", "content": []any{}}})
		part, delta := map[string]any{"type": "output_text", "text": "", "annotations": []any{}}, "response.output_text.delta"
		if reply.Refusal != "" {
			part, delta = map[string]any{"type": "refusal", "refusal": ""}, "response.refusal.delta"
		}
		send("response.content_part.added", map[string]any{"output_index": index, "item_id": "msg_0", "content_index": 0, "part": part})
		parts := modeltest.SplitContent(cmp.Or(reply.Refusal, reply.Content), modeltest.StreamParts)
		for i, p := range parts {
			if reply.StreamCut && i >= (len(parts)+1)/2 {
				return
			}
			send(delta, map[string]any{"output_index": index, "item_id": "msg_0", "content_index": 0, "delta": p})
			if reply.StreamError != "" {
				send("error", map[string]any{"code": "server_error", "message": reply.StreamError, "param": nil})
				return
			}
		}
		if reply.Refusal != "" {
			send("response.refusal.done", map[string]any{"output_index": index, "item_id": "msg_0", "content_index": 0, "refusal": reply.Refusal})
		} else {
			send("response.output_text.done", map[string]any{"output_index": index, "item_id": "msg_0", "content_index": 0, "text": reply.Content})
		}
		send("response.output_item.done", map[string]any{"output_index": index, "item": message(reply, "completed")})
		index++
	}
	for i, c := range reply.Calls {
		id := fmt.Sprintf("fc_%d", i)
		send("response.output_item.added", map[string]any{"output_index": index, "item": call(i, c, "", "in_progress")})
		parts := modeltest.SplitContent(c.Arguments, 3)
		for j, p := range parts {
			if reply.StreamCut && j >= (len(parts)+1)/2 {
				return
			}
			send("response.function_call_arguments.delta", map[string]any{"output_index": index, "item_id": id, "delta": p})
		}
		send("response.function_call_arguments.done", map[string]any{"output_index": index, "item_id": id, "arguments": c.Arguments})
		send("response.output_item.done", map[string]any{"output_index": index, "item": call(i, c, c.Arguments, "completed")})
		index++
	}
	if reply.StreamCut {
		return
	}
	final := response(req, reply, true)
	typ := "response." + final["status"].(string)
	if reply.BareCompleted {
		delete(final, "output")
	}
	send(typ, map[string]any{"response": final})
}

// writeError answers with f in OpenAI's error body.
func writeError(w http.ResponseWriter, f failure) {
	typ := "invalid_request_error"
	switch {
	case f.status == http.StatusUnauthorized:
		typ = "authentication_error"
	case f.status >= 500:
		typ = "server_error"
	}
	e := map[string]any{"message": f.message, "type": typ, "param": nil, "code": nil}
	if f.param != "" {
		e["param"] = f.param
	}
	var b bytes.Buffer
	_ = json.NewEncoder(&b).Encode(map[string]any{"error": e})
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Length", strconv.Itoa(b.Len()))
	w.WriteHeader(f.status)
	w.Write(b.Bytes())
}
