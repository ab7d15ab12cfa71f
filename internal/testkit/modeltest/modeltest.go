// Package modeltest provides a fake OpenAI-compatible Chat Completions
// server for tests. It listens on 127.0.0.1 only, answers with scripted
// replies, and records every request it receives so a test can check what a
// client sent.
//
// POST {base}/chat/completions is served, a request with "stream": true
// answered with server-sent events that split the content into a few
// deltas (see RefuseStream and IgnoreStream for servers that do not
// stream), and POST {base}/embeddings when the server has the Embeddings
// option. Any other path answers 404 with an error body shaped like
// OpenAI's.
package modeltest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// Message is one chat message as the server received it. Content given as
// an array of parts is joined from its text parts.
type Message struct {
	Role    string
	Content string
}

// Request is one request as the server received it.
type Request struct {
	// Method and Path are those of the HTTP request, for example "POST" and
	// "/v1/chat/completions".
	Method string
	Path   string

	Model    string
	Messages []Message

	// ResponseFormat is the type of response_format that was sent: "" when
	// there was none, otherwise "json_object", "json_schema" or whatever the
	// client wrote (such as "text").
	ResponseFormat string
	// SchemaName, Strict and Schema come from response_format.json_schema.
	SchemaName string
	Strict     bool
	Schema     json.RawMessage

	Temperature *float64
	// MaxTokens is the value of max_tokens or of max_completion_tokens,
	// whichever was sent, and MaxTokensField names the one that was used
	// ("" when neither was).
	MaxTokens      int
	MaxTokensField string
	Stream         bool
	// StreamUsage is stream_options.include_usage.
	StreamUsage bool

	Header http.Header
	Body   []byte

	// Input holds the texts of a request to /v1/embeddings.
	Input []string
}

// Reply is a scripted answer to one request.
type Reply struct {
	// Content is the text of the assistant message.
	Content string
	// Refusal, when set, is sent as the message's refusal field.
	Refusal string
	// Model is the model name reported back; "" echoes the request's model.
	Model string

	// Status is the HTTP status; 0 means 200.
	Status int
	// ErrorMessage, ErrorType, ErrorCode and ErrorParam make up the OpenAI
	// style error body sent with a status other than 200. An empty message
	// becomes the status text and an empty type is derived from the status.
	ErrorMessage string
	ErrorType    string
	ErrorCode    string
	ErrorParam   string
	// RetryAfter, when set, is sent as the Retry-After header.
	RetryAfter string

	// Delay is how long to wait before answering. The wait ends early when
	// the client goes away or the server shuts down.
	Delay time.Duration
	// FinishReason is the choice's finish_reason; "" means "stop".
	FinishReason string
	// PromptTokens and CompletionTokens are the usage to report. Zero means
	// a rough count of about four characters a token.
	PromptTokens     int
	CompletionTokens int
	// CachedTokens, when above 0, is reported as the part of the prompt
	// read from the server's cache, in usage.prompt_tokens_details
	// .cached_tokens as OpenAI, OpenRouter, vLLM and Ollama report it
	// (and in the last chunk of a stream that asked for the usage).
	CachedTokens int
	// CacheWriteTokens, when above 0, is reported as the part of the
	// prompt written to the server's cache, in
	// usage.prompt_tokens_details.cache_write_tokens as OpenRouter
	// reports it for Anthropic and Gemini models.
	CacheWriteTokens int

	// CutShort makes the server announce the full body, send only half of
	// it and close the connection, as a dropped connection would.
	CutShort bool
	// RawBody, when set, is sent as the body instead of one built from the
	// fields above (Status, RetryAfter, Delay and CutShort still apply).
	RawBody string
	// ContentType overrides the Content-Type header; "" means
	// application/json.
	ContentType string

	// StreamCut makes a streamed answer stop after its first half of
	// deltas, without finishing, as a dropped connection would.
	StreamCut bool
	// StreamError, when set, is sent as an error event after the first
	// delta of a streamed answer, which then ends.
	StreamError string

	// failure, when set, makes the server report a test failure and answer
	// 500 without asking the client to retry.
	failure string
	// noUsage leaves the usage out of the answer (see NoUsage).
	noUsage bool
}

// Handler decides the reply to one request. It may be called from several
// goroutines at once when requests arrive concurrently.
type Handler func(req Request) Reply

// Option changes how a Server behaves before the handler is consulted.
type Option func(*Server)

// RefuseSchema makes the server answer 400 to any request whose
// response_format is json_schema, as a server without structured output
// support does. The handler is not called for such requests.
func RefuseSchema() Option {
	return func(s *Server) { s.refuse["json_schema"] = true }
}

// RefuseJSONObject makes the server answer 400 to any request whose
// response_format is json_object. Combined with RefuseSchema it imitates a
// server that only produces free text.
func RefuseJSONObject() Option {
	return func(s *Server) { s.refuse["json_object"] = true }
}

// RefuseStream makes the server answer 400 to a request with "stream":
// true, as a server that cannot stream and says so does.
func RefuseStream() Option {
	return func(s *Server) { s.stream = "refuse" }
}

// IgnoreStream makes the server answer a request with "stream": true with
// a whole JSON completion, as a server that ignores the field does.
func IgnoreStream() Option {
	return func(s *Server) { s.stream = "ignore" }
}

// EmbedHandler decides the vector of one text of a request to
// /v1/embeddings. A nil vector makes the server answer the whole request
// with a test failure (see Failf).
type EmbedHandler func(model, text string) []float64

// Embeddings makes the server answer POST /v1/embeddings with the vectors
// h gives, in the shape of OpenAI's answer. Without it that path answers
// 404, as a server without embeddings does.
func Embeddings(h EmbedHandler) Option {
	return func(s *Server) { s.embed = h }
}

// RequireAPIKey makes the server answer 401 to any request that does not
// carry "Authorization: Bearer key". The answer never repeats the key.
func RequireAPIKey(key string) Option {
	return func(s *Server) { s.apiKey = key }
}

// Before makes the server pass every request it is about to answer, on
// either path, to f, once the request is read and recorded and before the
// handler or the embeddings are asked: the request waits for f to return,
// and is not answered when its client has gone away by then. ctx ends
// when the client goes away or the server shuts down. A test can so hold
// any request, embeddings included, or count them all in one order.
func Before(f func(ctx context.Context, req Request)) Option {
	return func(s *Server) { s.before = f }
}

// ListModels makes the server answer GET /v1/models with these model
// ids, in the shape of OpenAI's list. Without it that path answers 404,
// as a server that does not list its models does.
func ListModels(ids ...string) Option {
	return func(s *Server) { s.models = ids }
}

// NoUsage makes the server report no usage, neither with an answer nor in
// a stream, as some servers do not.
func NoUsage() Option {
	return func(s *Server) { s.noUsage = true }
}

// NoStreamUsage makes the server leave the usage out of a stream, even
// when the request asks for it, and report it only with a whole answer,
// as some servers do.
func NoStreamUsage() Option {
	return func(s *Server) { s.noStreamUsage = true }
}

// Forget makes the server keep no requests (Requests returns none): for
// a server that answers a great many, as a benchmark's does.
func Forget() Option {
	return func(s *Server) { s.record = false }
}

// Server is a running fake server.
type Server struct {
	// URL is the base URL to give a client; it ends in /v1.
	URL string

	// fail reports what would fail a test.
	fail    func(msg string)
	handler Handler
	srv     *httptest.Server
	done    chan struct{}
	refuse  map[string]bool
	apiKey  string
	embed   EmbedHandler
	// stream is how a request to stream is met: "" streams, "refuse"
	// answers 400, "ignore" answers with a whole completion.
	stream string
	before func(ctx context.Context, req Request)
	// models are the ids GET /v1/models lists, nil for a 404; noUsage
	// leaves the usage out of every answer.
	models  []string
	noUsage bool
	// noStreamUsage leaves the usage out of every stream (NoStreamUsage).
	noStreamUsage bool

	// record is whether requests are kept, for Requests.
	record    bool
	closeOnce sync.Once

	mu       sync.Mutex
	requests []Request
}

// NewServer starts a fake server on 127.0.0.1 that answers with h. The
// server is closed when the test ends.
func NewServer(t testing.TB, h Handler, opts ...Option) *Server {
	t.Helper()
	if h == nil {
		t.Fatal("modeltest: NewServer needs a handler")
	}
	s, err := start(h, func(msg string) { t.Errorf("modeltest: %s", msg) }, opts)
	if err != nil {
		t.Fatalf("modeltest: %v", err)
	}
	t.Cleanup(s.Close)
	return s
}

// Serve starts a fake server on 127.0.0.1 that answers with h outside any
// test, for a benchmark's program: what would fail a test (see Failf) is
// passed to fail instead, and the server runs until Close.
func Serve(h Handler, fail func(msg string), opts ...Option) (*Server, error) {
	if h == nil || fail == nil {
		return nil, fmt.Errorf("modeltest: Serve needs a handler and a fail function")
	}
	return start(h, fail, opts)
}

// start listens on 127.0.0.1 and serves with h.
func start(h Handler, fail func(msg string), opts []Option) (*Server, error) {
	s := &Server{
		fail:    fail,
		handler: h,
		record:  true,
		done:    make(chan struct{}),
		refuse:  map[string]bool{},
	}
	for _, o := range opts {
		o(s)
	}
	srv, err := Listen(http.HandlerFunc(s.serve))
	if err != nil {
		return nil, err
	}
	s.srv = srv
	s.URL = s.srv.URL + "/v1"
	return s, nil
}

// Listen starts a test server with h on 127.0.0.1 only (httptest's
// would also take another address when that one fails), for a fake of
// another API.
func Listen(h http.Handler) (*httptest.Server, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("listen on 127.0.0.1: %w", err)
	}
	srv := httptest.NewUnstartedServer(h)
	srv.Listener.Close()
	srv.Listener = ln
	srv.Start()
	return srv, nil
}

// Close stops the server, ending the requests it is still answering.
// NewServer's server is closed when its test ends.
func (s *Server) Close() {
	s.closeOnce.Do(func() {
		close(s.done)
		s.srv.CloseClientConnections()
		s.srv.Close()
	})
}

// Requests returns a copy of every request received so far, in the order
// they arrived.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]Request, len(s.requests))
	copy(out, s.requests)
	return out
}

func (s *Server) keep(r Request) {
	if !s.record {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.requests = append(s.requests, r)
}

// wireRequest is the part of a Chat Completions request body the server
// reads.
type wireRequest struct {
	Model    string `json:"model"`
	Messages []struct {
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"`
	} `json:"messages"`
	Temperature         *float64 `json:"temperature"`
	MaxTokens           *int     `json:"max_tokens"`
	MaxCompletionTokens *int     `json:"max_completion_tokens"`
	Stream              bool     `json:"stream"`
	StreamOptions       *struct {
		IncludeUsage bool `json:"include_usage"`
	} `json:"stream_options"`
	ResponseFormat *struct {
		Type       string `json:"type"`
		JSONSchema *struct {
			Name   string          `json:"name"`
			Strict bool            `json:"strict"`
			Schema json.RawMessage `json:"schema"`
		} `json:"json_schema"`
	} `json:"response_format"`
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		writeError(w, http.StatusBadRequest, "invalid_request_error", "", "", "cannot read request body")
		return
	}
	req := Request{
		Method: r.Method,
		Path:   r.URL.Path,
		Header: r.Header.Clone(),
		Body:   body,
	}
	if r.URL.Path == "/v1/embeddings" && s.embed != nil && r.Method == http.MethodPost {
		s.serveEmbeddings(w, r, req)
		return
	}
	if r.URL.Path == "/v1/models" && s.models != nil && r.Method == http.MethodGet {
		s.keep(req)
		if s.apiKey != "" && r.Header.Get("Authorization") != "Bearer "+s.apiKey {
			writeError(w, http.StatusUnauthorized, "invalid_request_error", "invalid_api_key", "",
				"Incorrect API key provided.")
			return
		}
		data := make([]any, len(s.models))
		for i, id := range s.models {
			data[i] = map[string]any{"id": id, "object": "model", "owned_by": "modeltest"}
		}
		b, _ := json.Marshal(map[string]any{"object": "list", "data": data})
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(b)
		return
	}
	if r.URL.Path != "/v1/chat/completions" {
		s.keep(req)
		writeError(w, http.StatusNotFound, "invalid_request_error", "unknown_url", "",
			fmt.Sprintf("unknown request URL: %s %s", r.Method, r.URL.Path))
		return
	}
	if r.Method != http.MethodPost {
		s.keep(req)
		writeError(w, http.StatusMethodNotAllowed, "invalid_request_error", "", "",
			fmt.Sprintf("method %s is not allowed on %s", r.Method, r.URL.Path))
		return
	}
	var wire wireRequest
	if err := json.Unmarshal(body, &wire); err != nil {
		s.keep(req)
		writeError(w, http.StatusBadRequest, "invalid_request_error", "", "",
			"request body is not valid JSON")
		return
	}
	fillRequest(&req, &wire)
	s.keep(req)

	if s.apiKey != "" && r.Header.Get("Authorization") != "Bearer "+s.apiKey {
		writeError(w, http.StatusUnauthorized, "invalid_request_error", "invalid_api_key", "",
			"Incorrect API key provided.")
		return
	}
	if req.Stream && s.stream == "refuse" {
		writeError(w, http.StatusBadRequest, "invalid_request_error", "", "stream",
			"streaming is not supported by this server")
		return
	}
	if s.refuse[req.ResponseFormat] {
		writeError(w, http.StatusBadRequest, "invalid_request_error", "", "response_format",
			fmt.Sprintf("response_format %s is not supported", req.ResponseFormat))
		return
	}

	if !s.wait(r, req) {
		return
	}
	reply := s.handler(req)
	reply.noUsage = reply.noUsage || s.noUsage
	if reply.failure != "" {
		s.fail(reply.failure)
		w.Header().Set("X-Should-Retry", "false")
		writeError(w, http.StatusInternalServerError, "server_error", "", "", "modeltest: "+reply.failure)
		return
	}
	if req.Stream && s.stream == "" && reply.Status == 0 && reply.RawBody == "" && !reply.CutShort {
		s.answerStream(w, r, req, reply)
		return
	}
	s.answer(w, r, req, reply)
}

// wait passes req to the Before function, if any, and reports whether
// the request is still to be answered.
func (s *Server) wait(r *http.Request, req Request) bool {
	if s.before == nil {
		return true
	}
	ctx, cancel := context.WithCancel(r.Context())
	defer cancel()
	go func() {
		select {
		case <-s.done:
			cancel()
		case <-ctx.Done():
		}
	}()
	s.before(ctx, req)
	return ctx.Err() == nil
}

func fillRequest(req *Request, wire *wireRequest) {
	req.Model = wire.Model
	for _, m := range wire.Messages {
		req.Messages = append(req.Messages, Message{Role: m.Role, Content: contentText(m.Content)})
	}
	req.Temperature = wire.Temperature
	switch {
	case wire.MaxCompletionTokens != nil:
		req.MaxTokens = *wire.MaxCompletionTokens
		req.MaxTokensField = "max_completion_tokens"
	case wire.MaxTokens != nil:
		req.MaxTokens = *wire.MaxTokens
		req.MaxTokensField = "max_tokens"
	}
	req.Stream = wire.Stream
	req.StreamUsage = wire.StreamOptions != nil && wire.StreamOptions.IncludeUsage
	if rf := wire.ResponseFormat; rf != nil {
		req.ResponseFormat = rf.Type
		if js := rf.JSONSchema; js != nil {
			req.SchemaName = js.Name
			req.Strict = js.Strict
			req.Schema = js.Schema
		}
	}
}

// contentText reads a message content that is either a JSON string or an
// array of parts, keeping the text of the parts.
func contentText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var parts []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if json.Unmarshal(raw, &parts) != nil {
		return string(raw)
	}
	var b strings.Builder
	for _, p := range parts {
		b.WriteString(p.Text)
	}
	return b.String()
}

// delay waits d before a reply is given, and reports false when the
// request was given up or the server closed meanwhile.
func (s *Server) delay(r *http.Request, d time.Duration) bool {
	if d <= 0 {
		return true
	}
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-timer.C:
		return true
	case <-r.Context().Done():
		return false
	case <-s.done:
		return false
	}
}

func (s *Server) answer(w http.ResponseWriter, r *http.Request, req Request, reply Reply) {
	if !s.delay(r, reply.Delay) {
		return
	}
	status := reply.Status
	if status == 0 {
		status = http.StatusOK
	}
	var body []byte
	switch {
	case reply.RawBody != "":
		body = []byte(reply.RawBody)
	case status != http.StatusOK:
		body = errorBody(status, reply.ErrorType, reply.ErrorCode, reply.ErrorParam, reply.ErrorMessage)
	default:
		body = completionBody(req, reply)
	}
	contentType := reply.ContentType
	if contentType == "" {
		contentType = "application/json"
	}
	if reply.CutShort {
		cutShort(w, status, contentType, body)
		return
	}
	w.Header().Set("Content-Type", contentType)
	if reply.RetryAfter != "" {
		w.Header().Set("Retry-After", reply.RetryAfter)
	}
	w.Header().Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(status)
	_, _ = w.Write(body)
}

// cutShort takes over the connection, promises the whole body, writes half
// of it and hangs up.
func cutShort(w http.ResponseWriter, status int, contentType string, body []byte) {
	hj, ok := w.(http.Hijacker)
	if !ok {
		panic("modeltest: response writer cannot be hijacked")
	}
	conn, buf, err := hj.Hijack()
	if err != nil {
		return
	}
	defer conn.Close()
	fmt.Fprintf(buf, "HTTP/1.1 %d %s\r\n", status, http.StatusText(status))
	fmt.Fprintf(buf, "Content-Type: %s\r\nContent-Length: %d\r\n\r\n", contentType, len(body))
	buf.Write(body[:len(body)/2])
	_ = buf.Flush()
}

func completionBody(req Request, reply Reply) []byte {
	model := reply.Model
	if model == "" {
		model = req.Model
	}
	finish := reply.FinishReason
	if finish == "" {
		finish = "stop"
	}
	prompt := reply.PromptTokens
	if prompt == 0 {
		for _, m := range req.Messages {
			prompt += roughTokens(m.Content) + 3
		}
	}
	completion := reply.CompletionTokens
	if completion == 0 {
		completion = roughTokens(reply.Content)
	}
	usage := map[string]any{
		"prompt_tokens":     prompt,
		"completion_tokens": completion,
		"total_tokens":      prompt + completion,
	}
	if reply.CachedTokens > 0 || reply.CacheWriteTokens > 0 {
		details := map[string]any{"cached_tokens": reply.CachedTokens}
		if reply.CacheWriteTokens > 0 {
			details["cache_write_tokens"] = reply.CacheWriteTokens
		}
		usage["prompt_tokens_details"] = details
	}
	message := map[string]any{"role": "assistant", "content": reply.Content}
	if reply.Refusal != "" {
		message["refusal"] = reply.Refusal
	} else {
		message["refusal"] = nil
	}
	out := map[string]any{
		"id":      "chatcmpl-modeltest",
		"object":  "chat.completion",
		"created": time.Now().Unix(),
		"model":   model,
		"choices": []any{map[string]any{
			"index":         0,
			"message":       message,
			"finish_reason": finish,
			"logprobs":      nil,
		}},
		"usage": usage,
	}
	if reply.noUsage {
		delete(out, "usage")
	}
	b, err := json.Marshal(out)
	if err != nil {
		panic(fmt.Sprintf("modeltest: encode completion: %v", err))
	}
	return b
}

// roughTokens estimates a token count as one token per four characters,
// rounded up.
func roughTokens(s string) int {
	return (len(s) + 3) / 4
}

func errorBody(status int, typ, code, param, message string) []byte {
	if message == "" {
		message = http.StatusText(status)
	}
	if typ == "" {
		typ = errorType(status)
	}
	e := map[string]any{"message": message, "type": typ, "param": nil, "code": nil}
	if code != "" {
		e["code"] = code
	}
	if param != "" {
		e["param"] = param
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(map[string]any{"error": e}); err != nil {
		panic(fmt.Sprintf("modeltest: encode error: %v", err))
	}
	return b.Bytes()
}

func errorType(status int) string {
	switch {
	case status == http.StatusUnauthorized:
		return "authentication_error"
	case status == http.StatusForbidden:
		return "permission_error"
	case status == http.StatusTooManyRequests:
		return "rate_limit_error"
	case status >= 500:
		return "server_error"
	default:
		return "invalid_request_error"
	}
}

func writeError(w http.ResponseWriter, status int, typ, code, param, message string) {
	body := errorBody(status, typ, code, param, message)
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(status)
	_, _ = w.Write(body)
}

func (s *Server) serveEmbeddings(w http.ResponseWriter, r *http.Request, req Request) {
	var wire struct {
		Model string          `json:"model"`
		Input json.RawMessage `json:"input"`
	}
	if err := json.Unmarshal(req.Body, &wire); err != nil {
		s.keep(req)
		writeError(w, http.StatusBadRequest, "invalid_request_error", "", "", "request body is not valid JSON")
		return
	}
	req.Model = wire.Model
	var one string
	if json.Unmarshal(wire.Input, &one) == nil {
		req.Input = []string{one}
	} else if err := json.Unmarshal(wire.Input, &req.Input); err != nil {
		s.keep(req)
		writeError(w, http.StatusBadRequest, "invalid_request_error", "", "input", "input is not a string or a list of strings")
		return
	}
	s.keep(req)
	if !s.wait(r, req) {
		return
	}
	data := make([]any, len(req.Input))
	tokens := 0
	for i, text := range req.Input {
		v := s.embed(req.Model, text)
		if v == nil {
			s.fail(fmt.Sprintf("no vector for the text %q", text))
			w.Header().Set("X-Should-Retry", "false")
			writeError(w, http.StatusInternalServerError, "server_error", "", "", "modeltest: no vector")
			return
		}
		data[i] = map[string]any{"object": "embedding", "index": i, "embedding": v}
		tokens += roughTokens(text)
	}
	body, err := json.Marshal(map[string]any{"object": "list", "data": data, "model": req.Model,
		"usage": map[string]any{"prompt_tokens": tokens, "total_tokens": tokens}})
	if err != nil {
		panic(fmt.Sprintf("modeltest: encode embeddings: %v", err))
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(body)
}
