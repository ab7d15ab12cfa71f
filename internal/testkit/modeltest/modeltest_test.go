package modeltest_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/moot-dev/moot/internal/testkit/modeltest"
)

// recorder is a testing.TB that keeps Errorf calls instead of failing, so
// tests can check that the server reports misuse.
type recorder struct {
	testing.TB
	mu   sync.Mutex
	errs []string
}

func (r *recorder) Errorf(format string, args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.errs = append(r.errs, fmt.Sprintf(format, args...))
}

func (r *recorder) errors() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.errs...)
}

// post sends body to the server's path and returns the status, headers and
// decoded JSON answer.
func post(t *testing.T, url, body string) (int, http.Header, map[string]any) {
	t.Helper()
	res, err := http.Post(url, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatalf("post: %v", err)
	}
	defer res.Body.Close()
	var out map[string]any
	if err := json.NewDecoder(res.Body).Decode(&out); err != nil {
		t.Fatalf("decode answer: %v", err)
	}
	return res.StatusCode, res.Header, out
}

func errorMessage(t *testing.T, answer map[string]any) string {
	t.Helper()
	e, ok := answer["error"].(map[string]any)
	if !ok {
		t.Fatalf("answer has no error object: %v", answer)
	}
	msg, _ := e["message"].(string)
	return msg
}

func TestServerRecordsRequests(t *testing.T) {
	tests := []struct {
		name  string
		body  string
		check func(t *testing.T, r modeltest.Request)
	}{
		{
			name: "plain",
			body: `{"model":"m1","messages":[{"role":"system","content":"be brief"},{"role":"user","content":"hi"}],"temperature":0.5,"max_tokens":100}`,
			check: func(t *testing.T, r modeltest.Request) {
				want := []modeltest.Message{{Role: "system", Content: "be brief"}, {Role: "user", Content: "hi"}}
				if fmt.Sprint(r.Messages) != fmt.Sprint(want) {
					t.Errorf("messages = %v, want %v", r.Messages, want)
				}
				if r.Temperature == nil || *r.Temperature != 0.5 {
					t.Errorf("temperature = %v, want 0.5", r.Temperature)
				}
				if r.MaxTokens != 100 || r.MaxTokensField != "max_tokens" {
					t.Errorf("max tokens = %d in %q, want 100 in max_tokens", r.MaxTokens, r.MaxTokensField)
				}
				if r.ResponseFormat != "" {
					t.Errorf("response format = %q, want none", r.ResponseFormat)
				}
			},
		},
		{
			name: "json schema",
			body: `{"model":"m1","messages":[{"role":"user","content":"x"}],"max_completion_tokens":7,` +
				`"response_format":{"type":"json_schema","json_schema":{"name":"verdict","strict":true,"schema":{"type":"object"}}}}`,
			check: func(t *testing.T, r modeltest.Request) {
				if r.ResponseFormat != "json_schema" || r.SchemaName != "verdict" || !r.Strict {
					t.Errorf("format = %q name %q strict %v, want json_schema verdict true", r.ResponseFormat, r.SchemaName, r.Strict)
				}
				if string(r.Schema) != `{"type":"object"}` {
					t.Errorf("schema = %s", r.Schema)
				}
				if r.MaxTokens != 7 || r.MaxTokensField != "max_completion_tokens" {
					t.Errorf("max tokens = %d in %q, want 7 in max_completion_tokens", r.MaxTokens, r.MaxTokensField)
				}
				if r.Temperature != nil {
					t.Errorf("temperature = %v, want unset", *r.Temperature)
				}
			},
		},
		{
			name: "content parts",
			body: `{"model":"m1","messages":[{"role":"user","content":[{"type":"text","text":"one "},{"type":"text","text":"two"}]}],"response_format":{"type":"json_object"}}`,
			check: func(t *testing.T, r modeltest.Request) {
				if len(r.Messages) != 1 || r.Messages[0].Content != "one two" {
					t.Errorf("messages = %v, want one user message %q", r.Messages, "one two")
				}
				if r.ResponseFormat != "json_object" {
					t.Errorf("response format = %q, want json_object", r.ResponseFormat)
				}
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := modeltest.NewServer(t, modeltest.Script(modeltest.Reply{Content: "ok"}))
			status, _, _ := post(t, s.URL+"/chat/completions", tt.body)
			if status != http.StatusOK {
				t.Fatalf("status = %d, want 200", status)
			}
			reqs := s.Requests()
			if len(reqs) != 1 {
				t.Fatalf("recorded %d requests, want 1", len(reqs))
			}
			r := reqs[0]
			if r.Model != "m1" || r.Method != http.MethodPost || r.Path != "/v1/chat/completions" {
				t.Errorf("request = %s %s model %q", r.Method, r.Path, r.Model)
			}
			if string(r.Body) != tt.body {
				t.Errorf("body = %s, want %s", r.Body, tt.body)
			}
			if r.Header.Get("Content-Type") != "application/json" {
				t.Errorf("header Content-Type = %q", r.Header.Get("Content-Type"))
			}
			tt.check(t, r)
		})
	}
}

func TestServerAnswer(t *testing.T) {
	tests := []struct {
		name           string
		reply          modeltest.Reply
		wantModel      string
		wantFinish     string
		wantPrompt     float64
		wantCompletion float64
		// wantCached is prompt_tokens_details.cached_tokens, nil when the
		// usage must have no prompt_tokens_details.
		wantCached any
	}{
		{"defaults", modeltest.Reply{Content: "12345678"}, "asked", "stop", 2 + 3, 2, nil},
		{"set", modeltest.Reply{Content: "x", Model: "served", FinishReason: "length", PromptTokens: 40, CompletionTokens: 9}, "served", "length", 40, 9, nil},
		{"cached", modeltest.Reply{Content: "x", PromptTokens: 40, CompletionTokens: 9, CachedTokens: 32}, "asked", "stop", 40, 9, 32.0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := modeltest.NewServer(t, modeltest.Script(tt.reply))
			status, header, out := post(t, s.URL+"/chat/completions", `{"model":"asked","messages":[{"role":"user","content":"hello"}]}`)
			if status != http.StatusOK || header.Get("Content-Type") != "application/json" {
				t.Fatalf("status %d, content type %q", status, header.Get("Content-Type"))
			}
			if out["model"] != tt.wantModel || out["object"] != "chat.completion" {
				t.Errorf("model %v object %v, want %s chat.completion", out["model"], out["object"], tt.wantModel)
			}
			choice := out["choices"].([]any)[0].(map[string]any)
			msg := choice["message"].(map[string]any)
			if msg["content"] != tt.reply.Content || msg["role"] != "assistant" || choice["finish_reason"] != tt.wantFinish {
				t.Errorf("choice = %v", choice)
			}
			usage := out["usage"].(map[string]any)
			if usage["prompt_tokens"] != tt.wantPrompt || usage["completion_tokens"] != tt.wantCompletion {
				t.Errorf("usage = %v, want prompt %v completion %v", usage, tt.wantPrompt, tt.wantCompletion)
			}
			details, ok := usage["prompt_tokens_details"].(map[string]any)
			if tt.wantCached == nil && ok {
				t.Errorf("usage = %v, want no prompt_tokens_details", usage)
			}
			if tt.wantCached != nil && (!ok || details["cached_tokens"] != tt.wantCached) {
				t.Errorf("usage = %v, want prompt_tokens_details.cached_tokens %v", usage, tt.wantCached)
			}
		})
	}
}

func TestServerErrors(t *testing.T) {
	chat := `{"model":"m","messages":[{"role":"user","content":"hi"}]}`
	schema := `{"model":"m","messages":[],"response_format":{"type":"json_schema","json_schema":{"name":"a","schema":{}}}}`
	object := `{"model":"m","messages":[],"response_format":{"type":"json_object"}}`
	tests := []struct {
		name       string
		opts       []modeltest.Option
		reply      modeltest.Reply
		path, body string
		wantStatus int
		wantMsg    string
		wantHeader string // Retry-After
		wantCalls  int    // requests that reached the handler
	}{
		{name: "unknown path", path: "/embeddings", body: chat, wantStatus: 404, wantMsg: "unknown request URL"},

		{name: "bad json", body: `{`, wantStatus: 400, wantMsg: "not valid JSON"},
		{name: "refuse schema", opts: []modeltest.Option{modeltest.RefuseSchema()}, body: schema, wantStatus: 400,
			wantMsg: "response_format json_schema is not supported"},
		{name: "refuse schema lets json_object through", opts: []modeltest.Option{modeltest.RefuseSchema()}, body: object,
			reply: modeltest.Reply{Content: "{}"}, wantStatus: 200, wantCalls: 1},
		{name: "refuse json object", opts: []modeltest.Option{modeltest.RefuseJSONObject()}, body: object, wantStatus: 400,
			wantMsg: "response_format json_object is not supported"},
		{name: "wrong key", opts: []modeltest.Option{modeltest.RequireAPIKey("k1")}, body: chat, wantStatus: 401,
			wantMsg: "Incorrect API key"},
		{name: "scripted error", body: chat, reply: modeltest.Reply{Status: 429, ErrorMessage: "slow down", RetryAfter: "3"},
			wantStatus: 429, wantMsg: "slow down", wantHeader: "3", wantCalls: 1},
		{name: "scripted error default message", body: chat, reply: modeltest.Reply{Status: 503},
			wantStatus: 503, wantMsg: "Service Unavailable", wantCalls: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			calls := 0
			var mu sync.Mutex
			s := modeltest.NewServer(t, func(modeltest.Request) modeltest.Reply {
				mu.Lock()
				defer mu.Unlock()
				calls++
				return tt.reply
			}, tt.opts...)
			path := tt.path
			if path == "" {
				path = "/chat/completions"
			}
			status, header, out := post(t, s.URL+path, tt.body)
			if status != tt.wantStatus {
				t.Errorf("status = %d, want %d", status, tt.wantStatus)
			}
			if tt.wantMsg != "" {
				if msg := errorMessage(t, out); !strings.Contains(msg, tt.wantMsg) {
					t.Errorf("error message = %q, want it to contain %q", msg, tt.wantMsg)
				}
			}
			if got := header.Get("Retry-After"); got != tt.wantHeader {
				t.Errorf("Retry-After = %q, want %q", got, tt.wantHeader)
			}
			mu.Lock()
			defer mu.Unlock()
			if calls != tt.wantCalls {
				t.Errorf("handler called %d times, want %d", calls, tt.wantCalls)
			}
			if n := len(s.Requests()); n != 1 {
				t.Errorf("recorded %d requests, want 1", n)
			}
		})
	}
}

func TestScriptExhausted(t *testing.T) {
	rec := &recorder{TB: t}
	s := modeltest.NewServer(rec, modeltest.Script(modeltest.Reply{Content: "a"}, modeltest.Reply{Content: "b"}))
	body := `{"model":"m","messages":[{"role":"system","content":"You are the judge of a debate."}]}`
	for i, want := range []string{"a", "b"} {
		status, _, out := post(t, s.URL+"/chat/completions", body)
		content := out["choices"].([]any)[0].(map[string]any)["message"].(map[string]any)["content"]
		if status != 200 || content != want {
			t.Fatalf("request %d: status %d content %v, want 200 %q", i, status, content, want)
		}
	}
	if errs := rec.errors(); len(errs) != 0 {
		t.Fatalf("errors before the script ran out: %v", errs)
	}
	status, header, out := post(t, s.URL+"/chat/completions", body)
	if status != http.StatusInternalServerError || header.Get("X-Should-Retry") != "false" {
		t.Errorf("status %d, X-Should-Retry %q, want 500 and false", status, header.Get("X-Should-Retry"))
	}
	if msg := errorMessage(t, out); !strings.Contains(msg, "exhausted") {
		t.Errorf("error message = %q, want it to say the script is exhausted", msg)
	}
	errs := rec.errors()
	if len(errs) != 1 || !strings.Contains(errs[0], "script of 2 replies exhausted") || !strings.Contains(errs[0], `role "judge"`) {
		t.Errorf("reported errors = %q, want one about the exhausted script", errs)
	}
}

func TestRoleOf(t *testing.T) {
	tests := []struct {
		name     string
		messages []modeltest.Message
		want     string
	}{
		{"judge", []modeltest.Message{{Role: "system", Content: "You are the judge of a formal debate.\nBe fair."}}, "judge"},
		{"proposition", []modeltest.Message{{Role: "system", Content: "You are a debater arguing for the proposition in a debate."}}, "proposition"},
		{"case", []modeltest.Message{{Role: "system", Content: "You are a debater Arguing for the Opposition."}}, "opposition"},
		{"second system message", []modeltest.Message{{Role: "system", Content: "rules"}, {Role: "system", Content: "You are a debater arguing for the opposition."}}, "opposition"},
		{"developer message", []modeltest.Message{{Role: "developer", Content: "You are the judge."}}, "judge"},
		{"only in user message", []modeltest.Message{{Role: "user", Content: "You are the judge."}}, ""},
		{"a debater mentioning the judge", []modeltest.Message{{Role: "system", Content: "You are a debater arguing for the proposition; you are the judge's favourite."}}, "proposition"},
		{"not a whole word", []modeltest.Message{{Role: "system", Content: "arguing for the propositions"}}, ""},
		{"none", nil, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := modeltest.RoleOf(modeltest.Request{Messages: tt.messages}); got != tt.want {
				t.Errorf("RoleOf = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestByRole(t *testing.T) {
	answer := func(s string) modeltest.Handler {
		return func(modeltest.Request) modeltest.Reply { return modeltest.Reply{Content: s} }
	}
	tests := []struct {
		role       string
		wantStatus int
		wantText   string
		wantErrors int
	}{
		{"proposition", 200, "for", 0},
		{"opposition", 200, "against", 0},
		{"judge", 500, "", 1},
		{"", 500, "", 1},
	}
	for _, tt := range tests {
		t.Run("role "+tt.role, func(t *testing.T) {
			rec := &recorder{TB: t}
			s := modeltest.NewServer(rec, modeltest.ByRole(answer("for"), answer("against"), nil))
			system := "You debate.\n"
			switch tt.role {
			case "judge":
				system = "You are the judge."
			case "":
			default:
				system = "You are a debater arguing for the " + tt.role + "."
			}
			body, _ := json.Marshal(map[string]any{"model": "m", "messages": []any{map[string]string{"role": "system", "content": system}}})
			status, _, out := post(t, s.URL+"/chat/completions", string(body))
			if status != tt.wantStatus {
				t.Errorf("status = %d, want %d", status, tt.wantStatus)
			}
			if tt.wantText != "" {
				content := out["choices"].([]any)[0].(map[string]any)["message"].(map[string]any)["content"]
				if content != tt.wantText {
					t.Errorf("content = %v, want %q", content, tt.wantText)
				}
			}
			if errs := rec.errors(); len(errs) != tt.wantErrors {
				t.Errorf("reported errors = %q, want %d", errs, tt.wantErrors)
			}
		})
	}
}

func TestDelayEndsWhenClientLeaves(t *testing.T) {
	s := modeltest.NewServer(t, modeltest.Script(modeltest.Reply{Content: "late", Delay: time.Minute}))
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, s.URL+"/chat/completions",
		strings.NewReader(`{"model":"m","messages":[]}`))
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	res, err := http.DefaultClient.Do(req)
	if err == nil {
		res.Body.Close()
		t.Fatalf("got status %d, want the request to time out", res.StatusCode)
	}
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("error = %v, want a deadline error", err)
	}
	// Half the reply's minute tells a request ended with its client from
	// one that waited the delay out, however loaded the machine.
	if d := time.Since(start); d > 30*time.Second {
		t.Errorf("request took %s", d)
	}
	// The server's cleanup must not wait for the minute-long delay; the
	// test would time out if it did.
}

func TestCutShort(t *testing.T) {
	s := modeltest.NewServer(t, modeltest.Script(modeltest.Reply{Content: strings.Repeat("long answer ", 50), CutShort: true}))
	res, err := http.Post(s.URL+"/chat/completions", "application/json", strings.NewReader(`{"model":"m","messages":[]}`))
	if err != nil {
		t.Fatalf("post: %v", err)
	}
	defer res.Body.Close()
	if res.StatusCode != http.StatusOK {
		t.Errorf("status = %d, want 200", res.StatusCode)
	}
	b, err := io.ReadAll(res.Body)
	if !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Errorf("reading body: err = %v, want unexpected EOF", err)
	}
	if int64(len(b)) >= res.ContentLength {
		t.Errorf("read %d of %d bytes, want fewer", len(b), res.ContentLength)
	}
}

func TestServerListensOnLoopback(t *testing.T) {
	s := modeltest.NewServer(t, modeltest.Script())
	if !strings.HasPrefix(s.URL, "http://127.0.0.1:") || !strings.HasSuffix(s.URL, "/v1") {
		t.Errorf("URL = %q, want http://127.0.0.1:port/v1", s.URL)
	}
}

// TestBeforeSeesAndHoldsEveryPath: Before sees chats and embeddings in
// the order they come, and a request it holds is answered neither by the
// handler nor by the embeddings once its client has gone.
func TestBeforeSeesAndHoldsEveryPath(t *testing.T) {
	var mu sync.Mutex
	var seen []string
	handled := 0
	held := make(chan struct{})
	s := modeltest.NewServer(t, func(modeltest.Request) modeltest.Reply {
		mu.Lock()
		handled++
		mu.Unlock()
		return modeltest.Reply{Content: "ok"}
	}, modeltest.Embeddings(func(string, string) []float64 { return []float64{1, 0} }),
		modeltest.Before(func(ctx context.Context, req modeltest.Request) {
			mu.Lock()
			seen = append(seen, req.Path)
			hold := len(seen) == 3
			mu.Unlock()
			if hold {
				close(held)
				<-ctx.Done()
			}
		}))
	if code, _, _ := post(t, s.URL+"/embeddings", `{"model":"e","input":["a","b"]}`); code != 200 {
		t.Fatalf("embeddings: status %d", code)
	}
	if code, _, _ := post(t, s.URL+"/chat/completions", `{"model":"m","messages":[]}`); code != 200 {
		t.Fatalf("chat: status %d", code)
	}
	// The client gives up once the request is held; a minute is only a
	// guard, after which the check below names what never came.
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		select {
		case <-held:
		case <-time.After(time.Minute):
		}
		cancel()
	}()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, s.URL+"/chat/completions", strings.NewReader(`{"model":"m","messages":[]}`))
	if err != nil {
		t.Fatal(err)
	}
	if res, err := http.DefaultClient.Do(req); err == nil {
		res.Body.Close()
		t.Fatalf("the held request was answered: status %d", res.StatusCode)
	}
	// Close returns once every request, the held one too, is done with.
	s.Close()
	mu.Lock()
	defer mu.Unlock()
	if want := "/v1/embeddings /v1/chat/completions /v1/chat/completions"; strings.Join(seen, " ") != want {
		t.Errorf("Before saw %q, want %q", strings.Join(seen, " "), want)
	}
	if handled != 1 {
		t.Errorf("the handler answered %d requests, want 1 (the held one never)", handled)
	}
}

// TestServeOutsideTests checks the server a benchmark's program starts:
// it answers, passes a handler's failure to its fail function, keeps no
// requests with Forget, and stops answering once closed.
func TestServeOutsideTests(t *testing.T) {
	var mu sync.Mutex
	var failures []string
	fail := func(msg string) {
		mu.Lock()
		defer mu.Unlock()
		failures = append(failures, msg)
	}
	h := func(req modeltest.Request) modeltest.Reply {
		if req.Model == "bad" {
			return modeltest.Failf("no answer for %s", req.Model)
		}
		return modeltest.Reply{Content: "hello"}
	}
	s, err := modeltest.Serve(h, fail, modeltest.Forget())
	if err != nil {
		t.Fatal(err)
	}
	status, _, answer := post(t, s.URL+"/chat/completions", `{"model":"good","messages":[{"role":"user","content":"hi"}]}`)
	if status != http.StatusOK {
		t.Fatalf("status %d, want 200: %v", status, answer)
	}
	if status, _, _ := post(t, s.URL+"/chat/completions", `{"model":"bad","messages":[{"role":"user","content":"hi"}]}`); status != http.StatusInternalServerError {
		t.Errorf("a handler's failure: status %d, want 500", status)
	}
	mu.Lock()
	got := append([]string(nil), failures...)
	mu.Unlock()
	if len(got) != 1 || got[0] != "no answer for bad" {
		t.Errorf("failures %q, want the handler's one", got)
	}
	if n := len(s.Requests()); n != 0 {
		t.Errorf("kept %d requests with Forget, want none", n)
	}
	s.Close()
	s.Close() // a second Close does nothing
	if res, err := http.Post(s.URL+"/chat/completions", "application/json", strings.NewReader(`{}`)); err == nil {
		res.Body.Close()
		t.Errorf("a closed server answered: status %d", res.StatusCode)
	}
	if _, err := modeltest.Serve(nil, fail); err == nil {
		t.Errorf("Serve without a handler: no error")
	}
}
