package model

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/moot-dev/moot/internal/testkit/modeltest"
)

const testKey = "sk-test-Zq8vX3-do-not-print-41"

// newClient returns a client for s with quick retries of its own.
func newClient(t *testing.T, s *modeltest.Server, cfg Config) *Client {
	t.Helper()
	return clientAt(t, s.URL, cfg)
}

// clientAt returns a client for the endpoint at url (unless cfg names
// one) with quick retries of its own.
func clientAt(t *testing.T, url string, cfg Config) *Client {
	t.Helper()
	if cfg.BaseURL == "" {
		cfg.BaseURL = url
	}
	if cfg.APIKey == "" {
		cfg.APIKey = testKey
	}
	c, err := New(cfg)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	c.backoff = func(int) time.Duration { return time.Millisecond }
	return c
}

func chat(model string) Request {
	return Request{
		Model: model,
		Messages: []Message{
			{Role: "system", Content: "You are the judge."},
			{Role: "user", Content: "Who won? Answer in JSON."},
		},
	}
}

var verdictSchema = map[string]any{
	"type": "object",
	"properties": map[string]any{
		"winner": map[string]any{"type": "string"},
	},
	"required":             []any{"winner"},
	"additionalProperties": false,
}

func formats(reqs []modeltest.Request) []string {
	out := make([]string, len(reqs))
	for i, r := range reqs {
		out[i] = r.ResponseFormat
		if out[i] == "" {
			out[i] = "none"
		}
	}
	return out
}

func TestNew(t *testing.T) {
	tests := []struct {
		name      string
		cfg       Config
		wantErr   error  // checked with errors.Is
		wantText  string // part of the error message
		wantBase  string
		wantKeyed bool // the key is a secret, masked in text
	}{
		{name: "no key for OpenAI", wantErr: ErrNoAPIKey},
		{name: "no key for explicit OpenAI URL", cfg: Config{BaseURL: "https://API.openai.com/v1/"}, wantErr: ErrNoAPIKey},
		{name: "key from environment", cfg: ConfigFromEnv(envOf(map[string]string{"OPENAI_API_KEY": " " + testKey + "\n"})), wantBase: DefaultBaseURL, wantKeyed: true},
		{name: "key in config", cfg: Config{APIKey: testKey}, wantBase: DefaultBaseURL, wantKeyed: true},
		{name: "short key is no secret", cfg: Config{BaseURL: "http://localhost:11434/v1", APIKey: "ollama"}, wantBase: "http://localhost:11434/v1"},
		{name: "key of 11 characters is no secret", cfg: Config{APIKey: "abcdefghijk"}, wantBase: DefaultBaseURL},
		{name: "key of 12 characters is a secret", cfg: Config{APIKey: "abcdefghijkl"}, wantBase: DefaultBaseURL, wantKeyed: true},
		{name: "local server needs no key", cfg: Config{BaseURL: "http://localhost:11434/v1"}, wantBase: "http://localhost:11434/v1"},
		{name: "base URL from environment", cfg: ConfigFromEnv(envOf(map[string]string{"OPENAI_BASE_URL": "http://127.0.0.1:8080/v1"})), wantBase: "http://127.0.0.1:8080/v1"},
		{name: "not a URL", cfg: Config{BaseURL: "localhost:11434"}, wantText: "invalid base URL"},
		{name: "negative retries", cfg: Config{APIKey: "k", MaxRetries: -1}, wantText: "must not be negative"},
		{name: "negative timeout", cfg: Config{APIKey: "k", Timeout: -time.Second}, wantText: "must not be negative"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// The process's environment is never read: only the
			// environment the caller hands ConfigFromEnv is.
			t.Setenv("OPENAI_API_KEY", "sk-process-environment-0123456789")
			t.Setenv("OPENAI_BASE_URL", "http://process-environment.invalid/v1")
			c, err := New(tt.cfg)
			switch {
			case tt.wantErr != nil || tt.wantText != "":
				if err == nil {
					t.Fatalf("New succeeded, want an error")
				}
				if tt.wantErr != nil && !errors.Is(err, tt.wantErr) {
					t.Errorf("error = %v, want %v", err, tt.wantErr)
				}
				if !strings.Contains(err.Error(), tt.wantText) {
					t.Errorf("error = %q, want it to contain %q", err, tt.wantText)
				}
			case err != nil:
				t.Fatalf("New: %v", err)
			default:
				if c.baseURL != tt.wantBase {
					t.Errorf("base URL = %q, want %q", c.baseURL, tt.wantBase)
				}
				if keyed := c.apiKey != ""; keyed != tt.wantKeyed {
					t.Errorf("real key in use = %v, want %v", keyed, tt.wantKeyed)
				}
				if c.timeout != DefaultTimeout || c.maxRetries != 0 {
					t.Errorf("timeout %s retries %d, want %s and 0", c.timeout, c.maxRetries, DefaultTimeout)
				}
			}
		})
	}
}

func TestErrNoAPIKeyNamesBothFixes(t *testing.T) {
	for _, want := range []string{"OPENAI_API_KEY", "OPENAI_BASE_URL", "http://localhost:11434/v1"} {
		if !strings.Contains(ErrNoAPIKey.Error(), want) {
			t.Errorf("ErrNoAPIKey = %q, want it to mention %s", ErrNoAPIKey, want)
		}
	}
}

func TestAuthorizationHeader(t *testing.T) {
	tests := []struct {
		name string
		key  string
		want string
	}{
		{"placeholder for keyless server", "", "Bearer none"},
		{"configured key", "k-123", "Bearer k-123"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv("OPENAI_API_KEY", "")
			s := modeltest.NewServer(t, modeltest.Script(modeltest.Reply{Content: "hi"}))
			c, err := New(Config{BaseURL: s.URL, APIKey: tt.key})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := c.Complete(context.Background(), chat("m")); err != nil {
				t.Fatal(err)
			}
			if got := s.Requests()[0].Header.Get("Authorization"); got != tt.want {
				t.Errorf("Authorization = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestCompleteSendsRequest(t *testing.T) {
	s := modeltest.NewServer(t, modeltest.Script(modeltest.Reply{
		Content: `{"winner":"proposition"}`, Model: "m-2024", PromptTokens: 31, CompletionTokens: 7,
	}))
	c := newClient(t, s, Config{})
	temp := 0.25
	req := chat("m")
	req.Messages = append(req.Messages, Message{Role: "assistant", Content: "thinking"})
	req.Temperature = &temp
	req.MaxTokens = 300
	req.SchemaName = "verdict v1"
	req.Schema = verdictSchema

	resp, err := c.Complete(context.Background(), req)
	if err != nil {
		t.Fatalf("Complete: %v", err)
	}
	want := Response{Text: `{"winner":"proposition"}`, Mode: ModeSchema, PromptTokens: 31, CompletionTokens: 7, UsageReported: true, Model: "m-2024", Attempts: 1}
	got := resp
	got.Latency = 0
	if !reflect.DeepEqual(got, want) {
		t.Errorf("response = %+v, want %+v", got, want)
	}
	if resp.Latency <= 0 {
		t.Errorf("latency = %s, want > 0", resp.Latency)
	}

	reqs := s.Requests()
	if len(reqs) != 1 {
		t.Fatalf("server got %d requests, want 1", len(reqs))
	}
	r := reqs[0]
	if r.Model != "m" || len(r.Messages) != 3 || r.Messages[2] != (modeltest.Message{Role: "assistant", Content: "thinking"}) {
		t.Errorf("model %q messages %v", r.Model, r.Messages)
	}
	if r.Temperature == nil || *r.Temperature != temp {
		t.Errorf("temperature = %v, want %v", r.Temperature, temp)
	}
	if r.MaxTokens != 300 || r.MaxTokensField != "max_tokens" {
		t.Errorf("max tokens %d in %q, want 300 in max_tokens", r.MaxTokens, r.MaxTokensField)
	}
	if r.ResponseFormat != "json_schema" || r.SchemaName != "verdict_v1" || !r.Strict {
		t.Errorf("format %q name %q strict %v, want json_schema verdict_v1 strict", r.ResponseFormat, r.SchemaName, r.Strict)
	}
	var schema map[string]any
	if err := json.Unmarshal(r.Schema, &schema); err != nil || fmt.Sprint(schema) != fmt.Sprint(verdictSchema) {
		t.Errorf("schema = %s (%v), want %v", r.Schema, err, verdictSchema)
	}
}

func TestModeFallback(t *testing.T) {
	tests := []struct {
		name        string
		opts        []modeltest.Option
		mode        Mode
		schema      map[string]any
		wantMode    Mode
		wantFormats []string
	}{
		{"schema works", nil, ModeSchema, verdictSchema, ModeSchema, []string{"json_schema"}},
		{"default mode with schema", nil, "", verdictSchema, ModeSchema, []string{"json_schema"}},
		{"default mode without schema", nil, "", nil, ModeText, []string{"none"}},
		{"schema refused", []modeltest.Option{modeltest.RefuseSchema()}, ModeSchema, verdictSchema, ModeObject,
			[]string{"json_schema", "json_object"}},
		{"both refused", []modeltest.Option{modeltest.RefuseSchema(), modeltest.RefuseJSONObject()}, ModeSchema, verdictSchema, ModeText,
			[]string{"json_schema", "json_object", "none"}},
		{"start at object", []modeltest.Option{modeltest.RefuseJSONObject()}, ModeObject, nil, ModeText,
			[]string{"json_object", "none"}},
		{"start at text", []modeltest.Option{modeltest.RefuseSchema(), modeltest.RefuseJSONObject()}, ModeText, verdictSchema, ModeText,
			[]string{"none"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := modeltest.NewServer(t, modeltest.Script(modeltest.Reply{Content: `{"winner":"opposition"}`}), tt.opts...)
			c := newClient(t, s, Config{MaxRetries: 2})
			req := chat("m")
			req.Mode = tt.mode
			req.Schema = tt.schema
			resp, err := c.Complete(context.Background(), req)
			if err != nil {
				t.Fatalf("Complete: %v", err)
			}
			if resp.Mode != tt.wantMode || resp.Text != `{"winner":"opposition"}` {
				t.Errorf("mode %q text %q, want %q", resp.Mode, resp.Text, tt.wantMode)
			}
			if got := formats(s.Requests()); fmt.Sprint(got) != fmt.Sprint(tt.wantFormats) {
				t.Errorf("formats sent = %v, want %v", got, tt.wantFormats)
			}
		})
	}
}

func TestFallbackOnRefusalMessages(t *testing.T) {
	tests := []struct {
		name   string
		refuse modeltest.Reply
	}{
		{"llama.cpp style 400", modeltest.Reply{Status: 400, ErrorMessage: "Unsupported response format type"}},
		{"vLLM style 422", modeltest.Reply{Status: 422, ErrorMessage: "json_schema: guided decoding backend unavailable"}},
		{"param only", modeltest.Reply{Status: 400, ErrorMessage: "bad value", ErrorParam: "response_format"}},
		{"invalid schema on OpenAI", modeltest.Reply{Status: 400, ErrorMessage: "Invalid schema for response_format 'answer': In context=(), 'required' is required"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := modeltest.NewServer(t, modeltest.Script(tt.refuse, modeltest.Reply{Content: "{}"}))
			c := newClient(t, s, Config{})
			req := chat("m")
			req.Schema = verdictSchema
			resp, err := c.Complete(context.Background(), req)
			if err != nil {
				t.Fatalf("Complete: %v", err)
			}
			if resp.Mode != ModeObject {
				t.Errorf("mode = %q, want %q", resp.Mode, ModeObject)
			}
		})
	}
}

func TestNoFallbackOnOtherErrors(t *testing.T) {
	tests := []struct {
		name     string
		reply    modeltest.Reply
		wantText []string
	}{
		{"bad key", modeltest.Reply{Status: 401, ErrorMessage: "Incorrect API key provided."},
			[]string{"401", "Incorrect API key provided.", "OPENAI_API_KEY"}},
		{"unknown model", modeltest.Reply{Status: 404, ErrorMessage: "The model `gpt-9` does not exist", ErrorCode: "model_not_found"},
			[]string{"404", "does not exist", `model name "gpt-9"`, "/v1"}},
		{"forbidden", modeltest.Reply{Status: 403, ErrorMessage: "Project does not have access"},
			[]string{"403", "Project does not have access", "permissions"}},
		{"other bad request", modeltest.Reply{Status: 400, ErrorMessage: "messages must not be empty"},
			[]string{"400", "messages must not be empty"}},
		{"context too long", modeltest.Reply{Status: 400, ErrorMessage: "too many tokens", ErrorCode: "context_length_exceeded"},
			[]string{"400", "too long for model"}},
		{"plain text 404", modeltest.Reply{Status: 404, RawBody: "404 page not found", ContentType: "text/plain"},
			[]string{"404", "404 page not found", "/v1"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := modeltest.NewServer(t, modeltest.Script(tt.reply))
			c := newClient(t, s, Config{MaxRetries: 3})
			req := chat("gpt-9")
			req.Schema = verdictSchema
			_, err := c.Complete(context.Background(), req)
			var apiErr *APIError
			if !errors.As(err, &apiErr) {
				t.Fatalf("error = %v (%T), want an *APIError", err, err)
			}
			if apiErr.Status != tt.reply.Status || apiErr.Model != "gpt-9" {
				t.Errorf("status %d model %q, want %d gpt-9", apiErr.Status, apiErr.Model, tt.reply.Status)
			}
			for _, want := range tt.wantText {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("error %q does not mention %q", err, want)
				}
			}
			if n := len(s.Requests()); n != 1 {
				t.Errorf("server got %d requests, want 1 (no retry, no fallback)", n)
			}
		})
	}
}

func TestParamAdjustments(t *testing.T) {
	tests := []struct {
		name      string
		refusal   modeltest.Reply
		wantField string // max tokens field of the second request
		wantTemp  bool   // second request still has a temperature
	}{
		{"max_tokens refused",
			modeltest.Reply{Status: 400, ErrorParam: "max_tokens", ErrorMessage: "Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead."},
			"max_completion_tokens", true},
		{"temperature refused",
			modeltest.Reply{Status: 400, ErrorParam: "temperature", ErrorMessage: "Unsupported value: 'temperature' does not support 0.7 with this model. Only the default (1) value is supported."},
			"max_tokens", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := modeltest.NewServer(t, modeltest.Script(tt.refusal, modeltest.Reply{Content: "fine"}))
			c := newClient(t, s, Config{})
			temp := 0.7
			req := chat("m")
			req.Temperature = &temp
			req.MaxTokens = 50
			resp, err := c.Complete(context.Background(), req)
			if err != nil {
				t.Fatalf("Complete: %v", err)
			}
			if resp.Text != "fine" {
				t.Errorf("text = %q", resp.Text)
			}
			reqs := s.Requests()
			if len(reqs) != 2 {
				t.Fatalf("server got %d requests, want 2", len(reqs))
			}
			second := reqs[1]
			if second.MaxTokensField != tt.wantField || second.MaxTokens != 50 {
				t.Errorf("second request: %d in %q, want 50 in %q", second.MaxTokens, second.MaxTokensField, tt.wantField)
			}
			if (second.Temperature != nil) != tt.wantTemp {
				t.Errorf("second request temperature = %v, want present: %v", second.Temperature, tt.wantTemp)
			}
		})
	}
}

func TestMaxTokensFieldByHost(t *testing.T) {
	tests := []struct {
		base string
		want string
	}{
		{"https://api.openai.com/v1", fieldMaxCompletionTokens},
		{"https://openrouter.ai/api/v1", fieldMaxTokens},
		{"http://localhost:11434/v1", fieldMaxTokens},
	}
	for _, tt := range tests {
		t.Run(tt.base, func(t *testing.T) {
			c, err := New(Config{BaseURL: tt.base, APIKey: "k"})
			if err != nil {
				t.Fatal(err)
			}
			p := c.params(Request{Model: "m", MaxTokens: 9}, nil, variant{mode: ModeText, tokenField: tokenField(c)})
			b, err := json.Marshal(p)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(string(b), `"`+tt.want+`":9`) {
				t.Errorf("body %s lacks %s", b, tt.want)
			}
		})
	}
}

func tokenField(c *Client) string {
	if c.openAI {
		return fieldMaxCompletionTokens
	}
	return fieldMaxTokens
}

func TestCompleteRejectsBadRequests(t *testing.T) {
	tests := []struct {
		name string
		edit func(*Request)
		want string
	}{
		{"no model", func(r *Request) { r.Model = "" }, "no model"},
		{"no messages", func(r *Request) { r.Messages = nil }, "no messages"},
		{"bad role", func(r *Request) { r.Messages[0].Role = "tool" }, `role "tool"`},
		{"schema mode without schema", func(r *Request) { r.Mode = ModeSchema }, "needs a schema"},
		{"unknown mode", func(r *Request) { r.Mode = "yaml" }, `unknown mode "yaml"`},
		{"negative max tokens", func(r *Request) { r.MaxTokens = -1 }, "must not be negative"},
		{"schema that is not JSON", func(r *Request) { r.Schema = map[string]any{"type": make(chan int)} }, "building the request"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := modeltest.NewServer(t, modeltest.Script())
			c := newClient(t, s, Config{})
			req := chat("m")
			tt.edit(&req)
			_, err := c.Complete(context.Background(), req)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error = %v, want one containing %q", err, tt.want)
			}
			if n := len(s.Requests()); n != 0 {
				t.Errorf("server got %d requests, want none", n)
			}
		})
	}
}

func TestEmptyAndTruncatedAnswers(t *testing.T) {
	tests := []struct {
		name          string
		reply         modeltest.Reply
		wantErr       error
		wantText      string
		wantTruncated bool
	}{
		{"empty content", modeltest.Reply{Content: ""}, ErrEmptyCompletion, "", false},
		{"blank content", modeltest.Reply{Content: " \n"}, ErrEmptyCompletion, "", false},
		{"no choices", modeltest.Reply{RawBody: `{"id":"x","object":"chat.completion","created":1,"model":"m","choices":[]}`}, ErrEmptyCompletion, "", false},
		{"empty at length limit", modeltest.Reply{FinishReason: "length"}, ErrEmptyCompletion, "", false},
		{"refusal", modeltest.Reply{Refusal: "I can't help with that."}, ErrRefusal, "", false},
		{"truncated", modeltest.Reply{Content: `{"winner":"pro`, FinishReason: "length"}, nil, `{"winner":"pro`, true},
		{"complete", modeltest.Reply{Content: "done"}, nil, "done", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := modeltest.NewServer(t, modeltest.Script(tt.reply))
			c := newClient(t, s, Config{MaxRetries: 2})
			resp, err := c.Complete(context.Background(), chat("m"))
			if tt.wantErr != nil {
				if !errors.Is(err, tt.wantErr) {
					t.Fatalf("error = %v, want %v", err, tt.wantErr)
				}
				if n := len(s.Requests()); n != 1 {
					t.Errorf("server got %d requests, want 1", n)
				}
				return
			}
			if err != nil {
				t.Fatalf("Complete: %v", err)
			}
			if resp.Text != tt.wantText || resp.Truncated != tt.wantTruncated {
				t.Errorf("text %q truncated %v, want %q %v", resp.Text, resp.Truncated, tt.wantText, tt.wantTruncated)
			}
		})
	}
}

func TestRetries(t *testing.T) {
	ok := modeltest.Reply{Content: "ok"}
	unavailable := modeltest.Reply{Status: 503, ErrorMessage: "overloaded", RetryAfter: "0"}
	tests := []struct {
		name       string
		timeout    time.Duration
		maxRetries int
		replies    []modeltest.Reply
		wantErr    bool
		wantStatus int // of the *APIError, when wantErr
		wantCalls  int
	}{
		{name: "server error then success", maxRetries: 2, replies: []modeltest.Reply{unavailable, ok}, wantCalls: 2},
		{name: "rate limit then success", maxRetries: 2,
			replies:   []modeltest.Reply{{Status: 429, ErrorMessage: "slow down", RetryAfter: "0"}, ok},
			wantCalls: 2},
		{name: "retries exhausted", maxRetries: 2, replies: []modeltest.Reply{unavailable, unavailable, unavailable},
			wantErr: true, wantStatus: 503, wantCalls: 3},
		{name: "no retries", maxRetries: 0, replies: []modeltest.Reply{unavailable}, wantErr: true, wantStatus: 503, wantCalls: 1},
		// The timeouts leave a loaded machine time to deliver each
		// request before it is given up: the server counts only those it
		// was sent. The late answers are cut short when the client goes.
		{name: "timeout then success", timeout: time.Second, maxRetries: 2,
			replies: []modeltest.Reply{{Content: "late", Delay: time.Minute}, ok}, wantCalls: 2},
		{name: "timeouts exhausted", timeout: time.Second, maxRetries: 1,
			replies: []modeltest.Reply{{Content: "late", Delay: time.Minute}, {Content: "late", Delay: time.Minute}},
			wantErr: true, wantCalls: 2},
		{name: "cut short then success", maxRetries: 2, replies: []modeltest.Reply{{Content: "partial answer", CutShort: true}, ok}, wantCalls: 2},
		{name: "budget shared by both retry loops", timeout: time.Second, maxRetries: 2,
			replies:   []modeltest.Reply{unavailable, {Content: "late", Delay: time.Minute}, unavailable},
			wantErr:   true,
			wantCalls: 3},
		{name: "out of credit is not retried", maxRetries: 2,
			replies: []modeltest.Reply{{Status: 429, ErrorMessage: "You exceeded your current quota", ErrorCode: "insufficient_quota", RetryAfter: "0"}},
			wantErr: true, wantStatus: 429, wantCalls: 1},
		{name: "non-JSON answer is not retried", maxRetries: 2,
			replies: []modeltest.Reply{{RawBody: "<html>web UI</html>", ContentType: "text/html"}},
			wantErr: true, wantCalls: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := modeltest.NewServer(t, modeltest.Script(tt.replies...))
			c := newClient(t, s, Config{Timeout: tt.timeout, MaxRetries: tt.maxRetries})
			resp, err := c.Complete(context.Background(), chat("m"))
			if n := len(s.Requests()); n != tt.wantCalls {
				t.Errorf("server got %d requests, want %d", n, tt.wantCalls)
			}
			if !tt.wantErr {
				if err != nil || resp.Text != "ok" {
					t.Fatalf("Complete = %q, %v, want ok", resp.Text, err)
				}
				return
			}
			if err == nil {
				t.Fatalf("Complete succeeded with %q, want an error", resp.Text)
			}
			var apiErr *APIError
			if tt.wantStatus != 0 && (!errors.As(err, &apiErr) || apiErr.Status != tt.wantStatus) {
				t.Errorf("error = %v, want an *APIError with status %d", err, tt.wantStatus)
			}
			if errors.Is(err, context.Canceled) {
				t.Errorf("error = %v, should not look like a cancellation", err)
			}
		})
	}
}

func TestTimeoutErrorSaysSo(t *testing.T) {
	s := modeltest.NewServer(t, modeltest.Script(modeltest.Reply{Delay: 5 * time.Second}))
	c := newClient(t, s, Config{Timeout: 50 * time.Millisecond})
	_, err := c.Complete(context.Background(), chat("m"))
	if !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), "within 50ms") {
		t.Errorf("error = %v, want a deadline error saying it waited 50ms", err)
	}
}

func TestRetryAfterIsHonoured(t *testing.T) {
	s := modeltest.NewServer(t, modeltest.Script(
		modeltest.Reply{Status: 429, ErrorMessage: "slow down", RetryAfter: "1"},
		modeltest.Reply{Content: "ok"},
	))
	c := newClient(t, s, Config{MaxRetries: 1})
	start := time.Now()
	if _, err := c.Complete(context.Background(), chat("m")); err != nil {
		t.Fatalf("Complete: %v", err)
	}
	if d := time.Since(start); d < 950*time.Millisecond {
		t.Errorf("retried after %s, want at least the 1s the server asked for", d)
	}
}

func TestCancel(t *testing.T) {
	tests := []struct {
		name    string
		reply   modeltest.Reply
		backoff time.Duration
	}{
		{"while waiting for the answer", modeltest.Reply{Content: "late", Delay: 10 * time.Second}, 0},
		{"during the server's Retry-After wait", modeltest.Reply{Status: 429, ErrorMessage: "slow", RetryAfter: "10"}, 0},
		{"during this package's backoff", modeltest.Reply{Content: "partial", CutShort: true}, 10 * time.Second},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := modeltest.NewServer(t, func(modeltest.Request) modeltest.Reply { return tt.reply })
			c := newClient(t, s, Config{MaxRetries: 3})
			if tt.backoff > 0 {
				c.backoff = func(int) time.Duration { return tt.backoff }
			}
			ctx, cancel := context.WithCancel(context.Background())
			time.AfterFunc(100*time.Millisecond, cancel)
			start := time.Now()
			_, err := c.Complete(ctx, chat("m"))
			if !errors.Is(err, context.Canceled) {
				t.Errorf("error = %v, want context.Canceled", err)
			}
			if d := time.Since(start); d > 2*time.Second {
				t.Errorf("Complete returned %s after the call, want at once after the cancel", d)
			}
			if n := len(s.Requests()); n != 1 {
				t.Errorf("server got %d requests, want 1", n)
			}
		})
	}
}

func TestAlreadyCancelled(t *testing.T) {
	s := modeltest.NewServer(t, modeltest.Script())
	c := newClient(t, s, Config{MaxRetries: 3})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := c.Complete(ctx, chat("m")); !errors.Is(err, context.Canceled) {
		t.Errorf("error = %v, want context.Canceled", err)
	}
}

func TestAPIKeyNeverShown(t *testing.T) {
	echo := "Incorrect API key provided: " + testKey
	tests := []struct {
		name    string
		timeout time.Duration
		reply   modeltest.Reply
	}{
		{"401 echoing the key", 0, modeltest.Reply{Status: 401, ErrorMessage: echo}},
		{"500 echoing the key", 0, modeltest.Reply{Status: 500, ErrorMessage: echo, RetryAfter: "0"}},
		{"404", 0, modeltest.Reply{Status: 404, ErrorMessage: "no such model"}},
		{"400 echoing the key", 0, modeltest.Reply{Status: 400, ErrorMessage: echo}},
		{"plain text error echoing the key", 0, modeltest.Reply{Status: 502, RawBody: echo, ContentType: "text/plain", RetryAfter: "0"}},
		{"refusal echoing the key", 0, modeltest.Reply{Refusal: echo}},
		{"cut short", 0, modeltest.Reply{Content: echo, CutShort: true}},
		{"not JSON", 0, modeltest.Reply{RawBody: echo, ContentType: "text/html"}},
		{"bad JSON", 0, modeltest.Reply{RawBody: "{" + echo}},
		{"timeout", 50 * time.Millisecond, modeltest.Reply{Delay: 5 * time.Second}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := modeltest.NewServer(t, func(modeltest.Request) modeltest.Reply { return tt.reply })
			c := newClient(t, s, Config{Timeout: tt.timeout, MaxRetries: 1})
			_, err := c.Complete(context.Background(), chat("m"))
			if err == nil {
				t.Fatal("Complete succeeded, want an error")
			}
			if got := s.Requests()[0].Header.Get("Authorization"); got != "Bearer "+testKey {
				t.Fatalf("Authorization = %q: the test does not send the key it checks for", got)
			}
			var apiErr *APIError
			errors.As(err, &apiErr)
			for _, shown := range []string{err.Error(), fmt.Sprintf("%v|%+v|%#v|%s", err, err, err, err), fmt.Sprintf("%+v %#v", apiErr, apiErr)} {
				if strings.Contains(shown, testKey) {
					t.Errorf("error shows the API key: %s", shown)
				}
			}
		})
	}
}

func TestAPIKeyNotInStrings(t *testing.T) {
	cfg := Config{BaseURL: "http://localhost:11434/v1", APIKey: testKey, Timeout: time.Second, HTTPClient: &http.Client{}}
	c, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range []any{cfg, &cfg, c, *c} {
		for _, verb := range []string{"%v", "%+v", "%#v", "%s"} {
			if s := fmt.Sprintf(verb, v); strings.Contains(s, testKey) {
				t.Errorf("%s of %T shows the API key: %s", verb, v, s)
			}
		}
	}
	if s := cfg.String(); !strings.Contains(s, "localhost:11434") || !strings.Contains(s, "APIKey: set") {
		t.Errorf("Config.String() = %q, want the base URL and that a key is set", s)
	}
}

func TestConcurrentCompletes(t *testing.T) {
	s := modeltest.NewServer(t, modeltest.ByRole(
		func(modeltest.Request) modeltest.Reply { return modeltest.Reply{Content: "for"} },
		func(modeltest.Request) modeltest.Reply { return modeltest.Reply{Content: "against"} },
		nil,
	))
	c := newClient(t, s, Config{})
	var wg sync.WaitGroup
	for i := range 8 {
		role, want := modeltest.Proposition, "for"
		if i%2 == 1 {
			role, want = modeltest.Opposition, "against"
		}
		wg.Go(func() {
			req := chat("m")
			req.Messages[0].Content = "You are a debater arguing for the " + role + "."
			resp, err := c.Complete(context.Background(), req)
			if err != nil || resp.Text != want {
				t.Errorf("%s: got %q, %v, want %q", role, resp.Text, err, want)
			}
		})
	}
	wg.Wait()
	if n := len(s.Requests()); n != 8 {
		t.Errorf("server got %d requests, want 8", n)
	}
}

func TestStrictCompatible(t *testing.T) {
	obj := func(props map[string]any, required []any, additional any) map[string]any {
		m := map[string]any{"type": "object", "properties": props, "required": required}
		if additional != nil {
			m["additionalProperties"] = additional
		}
		return m
	}
	str := map[string]any{"type": "string"}
	tests := []struct {
		name   string
		schema map[string]any
		want   bool
	}{
		{"strict object", verdictSchema, true},
		{"nil", nil, false},
		{"additional properties missing", obj(map[string]any{"a": str}, []any{"a"}, nil), false},
		{"additional properties allowed", obj(map[string]any{"a": str}, []any{"a"}, true), false},
		{"optional property", obj(map[string]any{"a": str, "b": str}, []any{"a"}, false), false},
		{"required as []string", map[string]any{"type": "object", "properties": map[string]any{"a": str}, "required": []string{"a"}, "additionalProperties": false}, true},
		{"loose nested object", obj(map[string]any{"a": obj(map[string]any{"b": str}, []any{}, false)}, []any{"a"}, false), false},
		{"loose object in array", obj(map[string]any{"a": map[string]any{"type": "array", "items": obj(nil, nil, nil)}}, []any{"a"}, false), false},
		{"strict object in array", obj(map[string]any{"a": map[string]any{"type": "array", "items": obj(map[string]any{"b": str}, []any{"b"}, false)}}, []any{"a"}, false), true},
		{"loose object in anyOf", obj(map[string]any{"a": map[string]any{"anyOf": []any{str, obj(nil, nil, true)}}}, []any{"a"}, false), false},
		{"loose object in $defs", map[string]any{"$defs": map[string]any{"x": obj(nil, nil, nil)}, "type": "string"}, false},
		{"property named properties", obj(map[string]any{"properties": str}, []any{"properties"}, false), true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := strictCompatible(tt.schema); got != tt.want {
				t.Errorf("strictCompatible = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestSchemaName(t *testing.T) {
	tests := []struct{ in, want string }{
		{"", "answer"},
		{"verdict", "verdict"},
		{"my schema/v2.1", "my_schema_v2_1"},
		{strings.Repeat("a", 70), strings.Repeat("a", 64)},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			if got := schemaName(tt.in); got != tt.want {
				t.Errorf("schemaName(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

func TestParseMode(t *testing.T) {
	tests := []struct {
		in      string
		want    Mode
		wantErr bool
	}{
		{"json_schema", ModeSchema, false},
		{" json_object ", ModeObject, false},
		{"text", ModeText, false},
		{"", "", false},
		{"xml", "", true},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := ParseMode(tt.in)
			if got != tt.want || (err != nil) != tt.wantErr {
				t.Errorf("ParseMode(%q) = %q, %v; want %q, error %v", tt.in, got, err, tt.want, tt.wantErr)
			}
		})
	}
}

func TestExplicitConfigIgnoresEnvironment(t *testing.T) {
	t.Setenv("OPENAI_BASE_URL", "http://[::1")
	t.Setenv("OPENAI_API_KEY", "env-key")
	t.Setenv("OPENAI_ORG_ID", "org-moot")
	s := modeltest.NewServer(t, modeltest.Script(modeltest.Reply{Content: "ok"}))
	c := newClient(t, s, Config{APIKey: "cfg-key", Organization: "org-cfg"})
	if _, err := c.Complete(context.Background(), chat("m")); err != nil {
		t.Fatalf("Complete: %v", err)
	}
	h := s.Requests()[0].Header
	if got := h.Get("Authorization"); got != "Bearer cfg-key" {
		t.Errorf("Authorization = %q, want the configured key", got)
	}
	if got := h.Get("OpenAI-Organization"); got != "" {
		t.Errorf("OpenAI-Organization = %q sent to a server other than OpenAI", got)
	}
}

func TestConfigFromEnv(t *testing.T) {
	env := map[string]string{
		"OPENAI_BASE_URL":   " http://127.0.0.1:8080/v1 ",
		"OPENAI_API_KEY":    "k-123\n",
		"OPENAI_ORG_ID":     "org-moot",
		"OPENAI_PROJECT_ID": "proj-moot",
	}
	t.Setenv("OPENAI_API_KEY", "sk-process-environment")
	want := Config{BaseURL: "http://127.0.0.1:8080/v1", APIKey: "k-123", Organization: "org-moot", Project: "proj-moot"}
	if got := ConfigFromEnv(envOf(env)); got.BaseURL != want.BaseURL || got.APIKey != want.APIKey ||
		got.Organization != want.Organization || got.Project != want.Project {
		t.Errorf("ConfigFromEnv = %+v, want %+v", got, want)
	}
	if got := ConfigFromEnv(envOf(nil)); got.APIKey != "" || got.BaseURL != "" {
		t.Errorf("ConfigFromEnv of an empty environment = %#v, want no key and no URL", got)
	}
}

// envOf returns a getenv that reads env.
func envOf(env map[string]string) func(string) string {
	return func(k string) string { return env[k] }
}

// TestOrganizationAndProjectGoToOpenAI checks that the organization and
// project of the configuration reach api.openai.com.
func TestOrganizationAndProjectGoToOpenAI(t *testing.T) {
	var got http.Header
	rt := roundTrip(func(r *http.Request) (*http.Response, error) {
		got = r.Header.Clone()
		body := `{"id":"x","object":"chat.completion","model":"m","choices":[{"index":0,"finish_reason":"stop","message":{"role":"assistant","content":"ok"}}]}`
		return &http.Response{StatusCode: 200, Header: http.Header{"Content-Type": {"application/json"}},
			Body: io.NopCloser(strings.NewReader(body)), Request: r}, nil
	})
	c, err := New(Config{APIKey: testKey, Organization: "org-moot", Project: "proj-moot", HTTPClient: &http.Client{Transport: rt}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Complete(context.Background(), chat("m")); err != nil {
		t.Fatalf("Complete: %v", err)
	}
	if got.Get("OpenAI-Organization") != "org-moot" || got.Get("OpenAI-Project") != "proj-moot" {
		t.Errorf("headers %v, want the organization and project", got)
	}
}

type roundTrip func(*http.Request) (*http.Response, error)

func (f roundTrip) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// TestConcurrentCallsReuseConnections checks that a client without an
// HTTPClient of its own keeps the connections of concurrent calls to one
// endpoint for the next calls, as a tournament's jobs make them step after
// step: 16 calls at once, three times over, open 16 connections, not 16
// and then 14 more each time (net/http's default keeps 2 idle a host).
func TestConcurrentCallsReuseConnections(t *testing.T) {
	const calls, rounds = 16, 3
	var (
		mu      sync.Mutex
		opened  int
		arrived int
		all     = make(chan struct{})
	)
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		// Answer once every call of the round has arrived, so that all
		// of them are open at once.
		mu.Lock()
		arrived++
		if arrived == calls {
			close(all)
		}
		wait := all
		mu.Unlock()
		<-wait
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"id":"x","object":"chat.completion","choices":[{"index":0,"message":{"role":"assistant","content":"hi"},"finish_reason":"stop"}],"usage":{"prompt_tokens":1,"completion_tokens":1,"total_tokens":2}}`)
	}))
	srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			mu.Lock()
			opened++
			mu.Unlock()
		}
	}
	srv.Start()
	defer srv.Close()
	c, err := New(Config{BaseURL: srv.URL + "/v1"})
	if err != nil {
		t.Fatal(err)
	}
	for round := range rounds {
		var wg sync.WaitGroup
		for range calls {
			wg.Add(1)
			go func() {
				defer wg.Done()
				if _, err := c.Complete(context.Background(), chat("m")); err != nil {
					t.Errorf("round %d: %v", round, err)
				}
			}()
		}
		wg.Wait()
		mu.Lock()
		arrived, all = 0, make(chan struct{})
		mu.Unlock()
	}
	mu.Lock()
	defer mu.Unlock()
	if opened != calls {
		t.Errorf("%d rounds of %d calls at once opened %d connections, want %d", rounds, calls, opened, calls)
	}
}
