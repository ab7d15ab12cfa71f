package model

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/moot-dev/moot/internal/testkit/modeltest"
	"github.com/moot-dev/moot/internal/testkit/responsesfake"
)

// responsesClient returns a client speaking the Responses API to s, with
// quick retries.
func responsesClient(t *testing.T, s *responsesfake.Server, cfg Config) *Client {
	t.Helper()
	cfg.API = APIResponses
	return clientAt(t, s.URL, cfg)
}

// reply answers every request with r.
func reply(r responsesfake.Reply) responsesfake.Handler {
	return func(responsesfake.Request) responsesfake.Reply { return r }
}

func TestParseAPI(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want API
		ok   bool
	}{
		{"", APIChat, true}, {"chat", APIChat, true}, {" Responses ", APIResponses, true},
		{"response", "", false}, {"completions", "", false},
	} {
		t.Run(tc.in, func(t *testing.T) {
			got, err := ParseAPI(tc.in)
			if got != tc.want || (err == nil) != tc.ok {
				t.Fatalf("ParseAPI(%q) = %q, %v; want %q, ok %v", tc.in, got, err, tc.want, tc.ok)
			}
			if err != nil && !strings.Contains(err.Error(), "want chat (Chat Completions) or responses") {
				t.Errorf("error %q does not say what to write", err)
			}
		})
	}
	cfg := ConfigFromEnv(func(k string) string { return map[string]string{APIEnv: "responses"}[k] })
	if cfg.API != APIResponses {
		t.Errorf("ConfigFromEnv read API %q from %s=responses", cfg.API, APIEnv)
	}
	if _, err := New(Config{BaseURL: "http://127.0.0.1:1/v1", API: "soap"}); err == nil || !strings.Contains(err.Error(), `unknown API "soap"`) {
		t.Errorf("New with API soap: %v, want an error naming it", err)
	}
}

// TestResponsesRequest checks what a request to the Responses API sends
// and what is read of its whole answer: the path, the headers (the key as
// a bearer, no compression, none of the SDK's telemetry), the messages
// as input items, the schema as a strict text.format, the cap as
// max_output_tokens, nothing stored and no Chat Completions field; the
// text, the format, the model and the usage, cached and reasoning tokens
// included.
func TestResponsesRequest(t *testing.T) {
	s := responsesfake.NewServer(t, reply(responsesfake.Reply{
		Reply:           modeltest.Reply{Content: `{"winner":"proposition"}`, Model: "o4-mini-2025-04-16", PromptTokens: 120, CompletionTokens: 40, CachedTokens: 64},
		ReasoningTokens: 32,
	}), responsesfake.RequireAPIKey(testKey))
	c := responsesClient(t, s, Config{})
	if c.API() != APIResponses {
		t.Fatalf("client API %q, want responses", c.API())
	}
	req := chat("o4-mini")
	req.Messages = append(req.Messages, Message{Role: "assistant", Content: "Let me think."}, Message{Role: "user", Content: "Now answer."})
	req.Schema, req.SchemaName, req.MaxTokens = verdictSchema, "verdict", 500
	temp := 0.2
	req.Temperature = &temp
	resp, err := c.Complete(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	if resp.Text != `{"winner":"proposition"}` || resp.Mode != ModeSchema || resp.Model != "o4-mini-2025-04-16" || resp.Streamed {
		t.Errorf("response %+v, want the verdict in json_schema from the model named, whole", resp)
	}
	if resp.PromptTokens != 120 || resp.CompletionTokens != 40 || resp.CachedTokens != 64 || resp.ReasoningTokens != 32 ||
		!resp.UsageReported || !resp.CachedReported {
		t.Errorf("usage %d in (%d cached), %d out (%d reasoning), reported %v/%v; want 120 (64), 40 (32), true/true",
			resp.PromptTokens, resp.CachedTokens, resp.CompletionTokens, resp.ReasoningTokens, resp.UsageReported, resp.CachedReported)
	}
	reqs := s.Requests()
	if len(reqs) != 1 {
		t.Fatalf("%d requests, want 1", len(reqs))
	}
	r := reqs[0]
	if r.Method != "POST" || r.Path != "/v1/responses" {
		t.Errorf("sent %s %s, want POST /v1/responses", r.Method, r.Path)
	}
	for h, want := range map[string]string{"Authorization": "Bearer " + testKey, "Accept-Encoding": "identity",
		"Content-Type": "application/json", "User-Agent": "moot", "X-Stainless-Os": ""} {
		if got := r.Header.Get(h); got != want {
			t.Errorf("header %s = %q, want %q", h, got, want)
		}
	}
	if r.Model != "o4-mini" || r.Store == nil || *r.Store || r.Stream || r.MaxTokens != 500 || r.MaxTokensField != "max_output_tokens" ||
		r.Temperature == nil || *r.Temperature != 0.2 {
		t.Errorf("request model %q store %v stream %v max %d (%s) temperature %v; want o4-mini, false, false, 500 (max_output_tokens), 0.2",
			r.Model, r.Store, r.Stream, r.MaxTokens, r.MaxTokensField, r.Temperature)
	}
	if r.ResponseFormat != "json_schema" || r.SchemaName != "verdict" || !r.Strict || !strings.Contains(string(r.Schema), `"winner"`) {
		t.Errorf("text.format %s %q strict %v schema %s, want the strict json_schema verdict", r.ResponseFormat, r.SchemaName, r.Strict, r.Schema)
	}
	wantMsgs := []modeltest.Message{{Role: "system", Content: "You are the judge."}, {Role: "user", Content: "Who won? Answer in JSON."},
		{Role: "assistant", Content: "Let me think."}, {Role: "user", Content: "Now answer."}}
	if !slices.Equal(r.Messages, wantMsgs) || !slices.Equal(r.ItemTypes, []string{"message", "message", "message", "message"}) {
		t.Errorf("input %v (%v), want the four messages as message items", r.Messages, r.ItemTypes)
	}
}

// TestResponsesStream checks that a streamed answer gives its text
// deltas to OnChunk as they come and is the same answer as a whole one,
// with the usage of response.completed.
func TestResponsesStream(t *testing.T) {
	const text = "The answer, streamed in a few pieces."
	for _, bare := range []bool{false, true} {
		t.Run(fmt.Sprintf("bare completed %v", bare), func(t *testing.T) {
			s := responsesfake.NewServer(t, reply(responsesfake.Reply{
				Reply:         modeltest.Reply{Content: text, PromptTokens: 50, CompletionTokens: 30, CachedTokens: 10},
				BareCompleted: bare, ReasoningTokens: 20,
			}))
			c := responsesClient(t, s, Config{})
			req, chunks := collect("gpt-5")
			resp, err := c.Complete(context.Background(), req)
			if err != nil {
				t.Fatal(err)
			}
			if resp.Text != text || !resp.Streamed || len(*chunks) < 2 || strings.Join(*chunks, "") != text {
				t.Errorf("answer %q streamed %v in %q, want %q in pieces", resp.Text, resp.Streamed, *chunks, text)
			}
			if resp.PromptTokens != 50 || resp.CompletionTokens != 30 || resp.CachedTokens != 10 || resp.ReasoningTokens != 20 {
				t.Errorf("usage %+v, want 50 in (10 cached), 30 out (20 reasoning)", resp)
			}
			if r := s.Requests(); len(r) != 1 || !r[0].Stream {
				t.Errorf("requests %d, stream %v; want one streamed", len(r), len(r) > 0 && r[0].Stream)
			}
		})
	}
}

// TestResponsesWithoutStream checks that a server that ignores "stream"
// and answers whole, or refuses it, gives the same answer, not streamed.
func TestResponsesWithoutStream(t *testing.T) {
	for _, tc := range []struct {
		name string
		opt  responsesfake.Option
		reqs int
	}{
		{"ignores stream", responsesfake.IgnoreStream(), 1},
		{"refuses stream", responsesfake.RefuseStream(), 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := responsesfake.NewServer(t, reply(responsesfake.Reply{Reply: modeltest.Reply{Content: "whole", PromptTokens: 9, CompletionTokens: 2}}), tc.opt)
			req, chunks := collect("gpt-5")
			resp, err := responsesClient(t, s, Config{}).Complete(context.Background(), req)
			if err != nil {
				t.Fatal(err)
			}
			if resp.Text != "whole" || resp.Streamed || len(*chunks) != 0 || resp.PromptTokens != 9 || len(s.Requests()) != tc.reqs {
				t.Errorf("answer %q streamed %v chunks %q usage %d after %d requests; want \"whole\", not streamed, 9 tokens, %d requests",
					resp.Text, resp.Streamed, *chunks, resp.PromptTokens, len(s.Requests()), tc.reqs)
			}
			if r := s.Requests(); tc.reqs == 2 && (!r[0].Stream || r[1].Stream) {
				t.Errorf("streams asked: %v then %v, want true then false", r[0].Stream, r[1].Stream)
			}
		})
	}
}

// TestResponsesTools checks a round of tool calls and the answer after
// it, streamed: the tools are offered as function tools, strict only
// when their schema allows; the calls' arguments come in deltas and are
// put together (from the events too when response.completed carries no
// output); the next request sends the calls back as function_call items
// and their results as function_call_output items naming them.
func TestResponsesTools(t *testing.T) {
	for _, bare := range []bool{false, true} {
		t.Run(fmt.Sprintf("bare completed %v", bare), func(t *testing.T) {
			s := responsesfake.NewServer(t, func(req responsesfake.Request) responsesfake.Reply {
				if len(req.Outputs) == 0 {
					return responsesfake.Reply{BareCompleted: bare, Reply: modeltest.Reply{PromptTokens: 20, CompletionTokens: 9},
						Calls: []responsesfake.Call{{CallID: "call_a", Name: "search", Arguments: `{"query":"sugar tax"}`},
							{CallID: "call_b", Name: "read", Arguments: `{"url":"https://x.example/page"}`}}}
				}
				return responsesfake.Reply{BareCompleted: bare, Reply: modeltest.Reply{Content: "found it", PromptTokens: 40, CompletionTokens: 3}}
			})
			c := responsesClient(t, s, Config{})
			req, chunks := collect("gpt-5")
			strictArgs := map[string]any{"type": "object", "properties": map[string]any{"url": map[string]any{"type": "string"}},
				"required": []any{"url"}, "additionalProperties": false}
			req.Tools = []Tool{{Name: "search", Description: "search the web", Parameters: map[string]any{"type": "object"}},
				{Name: "read", Parameters: strictArgs}}
			var ran []ToolCall
			resp, added, err := CompleteWithTools(context.Background(), c, req, func(_ context.Context, tc ToolCall) string {
				ran = append(ran, tc)
				return "result of " + tc.Name
			}, 3)
			if err != nil {
				t.Fatal(err)
			}
			want := []ToolCall{{ID: "call_a", Name: "search", Arguments: `{"query":"sugar tax"}`},
				{ID: "call_b", Name: "read", Arguments: `{"url":"https://x.example/page"}`}}
			if fmt.Sprint(ran) != fmt.Sprint(want) {
				t.Errorf("calls run %+v, want %+v", ran, want)
			}
			if resp.Text != "found it" || strings.Join(*chunks, "") != "found it" || len(added) != 3 {
				t.Errorf("answer %q (chunks %q), %d messages added; want \"found it\" streamed after the calls and two results", resp.Text, *chunks, len(added))
			}
			if resp.PromptTokens != 60 || resp.CompletionTokens != 12 {
				t.Errorf("usage %d/%d, want both rounds' 60/12", resp.PromptTokens, resp.CompletionTokens)
			}
			reqs := s.Requests()
			if len(reqs) != 2 {
				t.Fatalf("%d requests, want 2", len(reqs))
			}
			for i, r := range reqs {
				if len(r.Tools) != 2 || r.Tools[0].Type != "function" || r.Tools[0].Name != "search" || r.Tools[0].Description != "search the web" ||
					r.Tools[0].Strict == nil || *r.Tools[0].Strict || r.Tools[1].Strict == nil || !*r.Tools[1].Strict || !r.Stream {
					t.Errorf("request %d tools %+v stream %v, want search (not strict) and read (strict), streamed", i+1, r.Tools, r.Stream)
				}
			}
			second := reqs[1]
			wantCalls := []responsesfake.Call{{CallID: "call_a", Name: "search", Arguments: `{"query":"sugar tax"}`},
				{CallID: "call_b", Name: "read", Arguments: `{"url":"https://x.example/page"}`}}
			wantOutputs := []responsesfake.Output{{CallID: "call_a", Output: "result of search"}, {CallID: "call_b", Output: "result of read"}}
			if !slices.Equal(second.Calls, wantCalls) || !slices.Equal(second.Outputs, wantOutputs) ||
				!slices.Equal(second.ItemTypes, []string{"message", "message", "function_call", "function_call", "function_call_output", "function_call_output"}) {
				t.Errorf("second request items %v, calls %+v, outputs %+v; want the two calls sent back, then their results", second.ItemTypes, second.Calls, second.Outputs)
			}
		})
	}
}

// TestResponsesFallback checks moot's chain of ways of asking for JSON on
// the Responses API: a model that refuses a json_schema text.format is
// asked again with json_object, and one that refuses that too in text.
func TestResponsesFallback(t *testing.T) {
	for _, tc := range []struct {
		name     string
		opts     []responsesfake.Option
		want     Mode
		formats  []string
		streamed bool
	}{
		{"schema", nil, ModeSchema, []string{"json_schema"}, false},
		{"no schema", []responsesfake.Option{responsesfake.RefuseSchema()}, ModeObject, []string{"json_schema", "json_object"}, false},
		{"text only", []responsesfake.Option{responsesfake.RefuseSchema(), responsesfake.RefuseJSONObject()}, ModeText,
			[]string{"json_schema", "json_object", ""}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := responsesfake.NewServer(t, reply(responsesfake.Reply{Reply: modeltest.Reply{Content: `{"winner":"opposition"}`}}), tc.opts...)
			c := responsesClient(t, s, Config{})
			req := chat("gpt-5")
			req.Schema = verdictSchema
			if tc.streamed {
				req.OnChunk = func(string) {}
			}
			resp, err := c.Complete(context.Background(), req)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, r := range s.Requests() {
				got = append(got, r.ResponseFormat)
			}
			if resp.Mode != tc.want || !slices.Equal(got, tc.formats) || resp.Text != `{"winner":"opposition"}` || resp.Attempts != len(tc.formats) {
				t.Errorf("mode %s after formats %q (%d attempts), want %s after %q", resp.Mode, got, resp.Attempts, tc.want, tc.formats)
			}
		})
	}
}

// TestResponsesAnswers checks the answers that are not plain text: a
// refusal, an answer cut at max_output_tokens, and the model's failures,
// whole and streamed.
func TestResponsesAnswers(t *testing.T) {
	for _, stream := range []bool{false, true} {
		for _, tc := range []struct {
			name  string
			reply responsesfake.Reply
			check func(t *testing.T, resp Response, err error, attempts int)
		}{
			{"refusal", responsesfake.Reply{Reply: modeltest.Reply{Refusal: "I cannot judge this."}},
				func(t *testing.T, _ Response, err error, attempts int) {
					if !errors.Is(err, ErrRefusal) || !strings.Contains(err.Error(), "I cannot judge this.") || attempts != 1 {
						t.Errorf("err %v after %d attempts, want ErrRefusal with its words at once", err, attempts)
					}
				}},
			{"cut at the cap", responsesfake.Reply{Reply: modeltest.Reply{Content: "Half an ans", FinishReason: "length"}},
				func(t *testing.T, resp Response, err error, _ int) {
					if err != nil || !resp.Truncated || resp.Text != "Half an ans" {
						t.Errorf("resp %+v err %v, want the text marked truncated", resp, err)
					}
				}},
			{"failed", responsesfake.Reply{Failed: "The model overloaded."},
				func(t *testing.T, _ Response, err error, attempts int) {
					if err == nil || !strings.Contains(err.Error(), "The model overloaded.") || attempts != 3 {
						t.Errorf("err %v after %d attempts, want the failure's message after 3", err, attempts)
					}
				}},
		} {
			t.Run(fmt.Sprintf("%s stream %v", tc.name, stream), func(t *testing.T) {
				s := responsesfake.NewServer(t, reply(tc.reply))
				c := responsesClient(t, s, Config{MaxRetries: 2})
				req := chat("gpt-5")
				if stream {
					req.OnChunk = func(string) {}
				}
				resp, err := c.Complete(context.Background(), req)
				tc.check(t, resp, err, len(s.Requests()))
			})
		}
	}
}

// TestResponsesStreamOfFewWords checks a stream that says no more than
// the events themselves: response.incomplete without a status, and the
// reason it gives, makes the answer one cut at the cap.
func TestResponsesStreamOfFewWords(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		for _, ev := range []string{
			`{"type":"response.output_text.delta","output_index":0,"content_index":0,"delta":"Half an "}`,
			`{"type":"response.output_text.delta","output_index":0,"content_index":0,"delta":"ans"}`,
			`{"type":"response.incomplete","response":{"incomplete_details":{"reason":"max_output_tokens"},"usage":{"input_tokens":7,"output_tokens":3}}}`,
		} {
			fmt.Fprintf(w, "data: %s\n\n", ev)
		}
	}))
	defer srv.Close()
	c, err := New(Config{BaseURL: srv.URL + "/v1", API: APIResponses})
	if err != nil {
		t.Fatal(err)
	}
	req, _ := collect("gpt-5")
	resp, err := c.Complete(context.Background(), req)
	if err != nil || resp.Text != "Half an ans" || !resp.Truncated || resp.PromptTokens != 7 {
		t.Errorf("resp %+v, err %v; want \"Half an ans\" cut at the cap, 7 input tokens", resp, err)
	}
}

// TestResponsesStreamRetried checks that a stream cut short, or ended by
// an error event, is asked again, and the second answer is the answer.
func TestResponsesStreamRetried(t *testing.T) {
	for _, first := range []modeltest.Reply{{Content: "a first answer cut short", StreamCut: true},
		{Content: "a first answer", StreamError: "upstream failed"}} {
		t.Run(fmt.Sprintf("cut %v", first.StreamCut), func(t *testing.T) {
			n := 0
			s := responsesfake.NewServer(t, func(responsesfake.Request) responsesfake.Reply {
				n++
				if n == 1 {
					return responsesfake.Reply{Reply: first}
				}
				return responsesfake.Reply{Reply: modeltest.Reply{Content: "the whole answer"}}
			})
			c := responsesClient(t, s, Config{MaxRetries: 2})
			var retries []Retry
			req := chat("gpt-5")
			req.OnChunk = func(string) {}
			req.OnRetry = func(r Retry) { retries = append(retries, r) }
			resp, err := c.Complete(context.Background(), req)
			if err != nil || resp.Text != "the whole answer" || resp.Attempts != 2 || len(retries) != 1 {
				t.Errorf("resp %q (%d attempts, %d retries announced), err %v; want the second answer", resp.Text, resp.Attempts, len(retries), err)
			}
		})
	}
}

// TestResponsesErrors checks the errors of the Responses API as those of
// Chat Completions: typed, the key masked, a rate limit retried, and an
// endpoint without /responses told how to do without it.
func TestResponsesErrors(t *testing.T) {
	t.Run("wrong key", func(t *testing.T) {
		s := responsesfake.NewServer(t, reply(responsesfake.Reply{Reply: modeltest.Reply{Content: "x"}}), responsesfake.RequireAPIKey("another-key-0123456789"))
		c := responsesClient(t, s, Config{MaxRetries: 2})
		_, err := c.Complete(context.Background(), chat("gpt-5"))
		var api *APIError
		if !errors.As(err, &api) || api.Status != 401 || strings.Contains(err.Error(), testKey) || len(s.Requests()) != 1 {
			t.Errorf("err %v after %d requests, want an unretried 401 APIError without the key", err, len(s.Requests()))
		}
	})
	t.Run("rate limited", func(t *testing.T) {
		n := 0
		s := responsesfake.NewServer(t, func(responsesfake.Request) responsesfake.Reply {
			if n++; n == 1 {
				return responsesfake.Reply{Reply: modeltest.Reply{Status: 429, RetryAfter: "0"}}
			}
			return responsesfake.Reply{Reply: modeltest.Reply{Content: "ok"}}
		})
		c := responsesClient(t, s, Config{MaxRetries: 2})
		resp, err := c.Complete(context.Background(), chat("gpt-5"))
		if err != nil || resp.Text != "ok" || resp.Attempts != 2 {
			t.Errorf("resp %q after %d attempts, err %v; want ok after 2", resp.Text, resp.Attempts, err)
		}
	})
	t.Run("no responses api", func(t *testing.T) {
		// A chat-only server answers 404 to /responses.
		s := modeltest.NewServer(t, modeltest.Script())
		c, err := New(Config{BaseURL: s.URL, API: APIResponses, APIKey: testKey})
		if err != nil {
			t.Fatal(err)
		}
		_, err = c.Complete(context.Background(), chat("gpt-5"))
		var api *APIError
		if !errors.As(err, &api) || api.Status != 404 || !api.Responses || !strings.Contains(err.Error(), "--api chat") {
			t.Errorf("err %v, want a 404 whose hint says --api chat", err)
		}
		if r := s.Requests(); len(r) != 1 || r[0].Path != "/v1/responses" {
			t.Errorf("requests %+v, want one to /v1/responses", r)
		}
	})
	t.Run("key in the answer", func(t *testing.T) {
		s := responsesfake.NewServer(t, reply(responsesfake.Reply{Reply: modeltest.Reply{Status: 400, ErrorMessage: "bad key " + testKey}}))
		c := responsesClient(t, s, Config{})
		_, err := c.Complete(context.Background(), chat("gpt-5"))
		if err == nil || strings.Contains(err.Error(), testKey) || !strings.Contains(err.Error(), "[redacted]") {
			t.Errorf("err %v, want the key masked", err)
		}
	})
}

// TestResponsesLimits checks the limits on a Responses answer: one over
// 4 MiB, streamed or not, and a compressed one are refused.
func TestResponsesLimits(t *testing.T) {
	big := strings.Repeat("x", MaxResponseSize+10)
	for _, tc := range []struct {
		name string
		h    http.HandlerFunc
		want any
	}{
		{"too large", func(w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			io.WriteString(w, `{"id":"r","status":"completed","output":[{"type":"message","content":[{"type":"output_text","text":"`+big+`"}]}]}`)
		}, new(*TooLargeError)},
		{"too large streamed", func(w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Content-Type", "text/event-stream")
			for range 5 {
				b, _ := json.Marshal(map[string]any{"type": "response.output_text.delta", "output_index": 0, "content_index": 0, "delta": big[:MaxResponseSize/4]})
				fmt.Fprintf(w, "data: %s\n\n", b)
			}
		}, new(*TooLargeError)},
		{"compressed", func(w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			w.Header().Set("Content-Encoding", "gzip")
			io.WriteString(w, "not really gzip")
		}, new(*EncodingError)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := httptest.NewServer(tc.h)
			defer srv.Close()
			c, err := New(Config{BaseURL: srv.URL + "/v1", API: APIResponses})
			if err != nil {
				t.Fatal(err)
			}
			req := chat("gpt-5")
			if strings.HasSuffix(tc.name, "streamed") {
				req.OnChunk = func(string) {}
			}
			_, err = c.Complete(context.Background(), req)
			if !errors.As(err, tc.want) {
				t.Errorf("err %v, want %T", err, tc.want)
			}
		})
	}
}

// TestResponsesAzure checks the Responses API on Azure OpenAI: the path
// is the resource's /openai/responses with the API version, the model
// (the deployment) goes in the body, and the key in api-key.
func TestResponsesAzure(t *testing.T) {
	type seen struct{ path, version, key, auth, model string }
	got := make(chan seen, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var body struct {
			Model string `json:"model"`
		}
		b, _ := io.ReadAll(r.Body)
		_ = json.Unmarshal(b, &body)
		got <- seen{r.URL.Path, r.URL.Query().Get("api-version"), r.Header.Get("Api-Key"), r.Header.Get("Authorization"), body.Model}
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"id":"r","status":"completed","model":"gpt-5","output":[{"type":"message","role":"assistant","content":[{"type":"output_text","text":"hello"}]}],"usage":{"input_tokens":5,"output_tokens":1}}`)
	}))
	defer srv.Close()
	const key = "azure-key-0123456789abcdef"
	c, err := New(Config{AzureEndpoint: srv.URL, AzureAPIVersion: "2025-04-01-preview", APIKey: key, API: APIResponses})
	if err != nil {
		t.Fatal(err)
	}
	resp, err := c.Complete(context.Background(), chat("gpt5-prod"))
	if err != nil || resp.Text != "hello" {
		t.Fatalf("resp %q, err %v", resp.Text, err)
	}
	want := seen{"/openai/responses", "2025-04-01-preview", key, "", "gpt5-prod"}
	if s := <-got; s != want {
		t.Errorf("request %+v, want %+v", s, want)
	}
}
