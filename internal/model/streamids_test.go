package model

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
)

// TestStreamChunksWithoutTheAnswersID checks that a stream is read whole
// when some of its chunks carry another id than the answer's, or none, as
// servers send the usage after the answer and Azure OpenAI its content
// filter results before it; tool calls streamed so are put together too.
func TestStreamChunksWithoutTheAnswersID(t *testing.T) {
	const usage = `"usage":{"prompt_tokens":30,"completion_tokens":4}`
	tests := []struct {
		name     string
		events   []string
		tools    bool
		wantText string
		wantCall string
	}{
		{"usage without an id", []string{
			`{"id":"s","choices":[{"index":0,"delta":{"role":"assistant","content":"a"}}]}`,
			`{"id":"s","choices":[{"index":0,"delta":{"content":"b"},"finish_reason":"stop"}]}`,
			`{"choices":[],` + usage + `}`,
		}, false, "ab", ""},
		{"usage with another id", []string{
			`{"id":"s","choices":[{"index":0,"delta":{"role":"assistant","content":"a"}}]}`,
			`{"id":"s","choices":[{"index":0,"delta":{"content":"b"},"finish_reason":"stop"}]}`,
			`{"id":"usage-1","choices":[],` + usage + `}`,
		}, false, "ab", ""},
		{"Azure's content filter results first", []string{
			`{"id":"","object":"","created":0,"model":"","choices":[],"prompt_filter_results":[{"prompt_index":0,"content_filter_results":{}}]}`,
			`{"id":"chatcmpl-1","choices":[{"index":0,"delta":{"role":"assistant","content":"a"}}]}`,
			`{"id":"chatcmpl-1","choices":[{"index":0,"delta":{"content":"b"},"finish_reason":"stop"}],` + usage + `}`,
		}, false, "ab", ""},
		{"a chunk without its id mid-answer", []string{
			`{"id":"s","choices":[{"index":0,"delta":{"role":"assistant","content":"a"}}]}`,
			`{"choices":[{"index":0,"delta":{"content":"b"},"finish_reason":"stop"}]}`,
			`{"id":"s","choices":[],` + usage + `}`,
		}, false, "ab", ""},
		{"tool call, usage without an id", []string{
			`{"id":"t","choices":[{"index":0,"delta":{"role":"assistant","tool_calls":[{"index":0,"id":"call_1","type":"function","function":{"name":"search","arguments":"{\"query\":"}}]}}]}`,
			`{"id":"t","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"\"tea\"}"}}]},"finish_reason":"tool_calls"}]}`,
			`{"choices":[],` + usage + `}`,
		}, true, "", `{call_1 search {"query":"tea"}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var tools []Tool
			if tt.tools {
				tools = []Tool{{Name: "search", Parameters: map[string]any{"type": "object"}}}
			}
			resp, err := askStream(t, tools, append(tt.events, "[DONE]")...)
			if err != nil {
				t.Fatalf("Complete: %v", err)
			}
			calls := callsText(resp.ToolCalls)
			if resp.Text != tt.wantText || calls != tt.wantCall || !resp.Streamed || resp.PromptTokens != 30 {
				t.Errorf("answer %q, calls %s, streamed %v, prompt tokens %d; want %q, %s, streamed, 30",
					resp.Text, calls, resp.Streamed, resp.PromptTokens, tt.wantText, tt.wantCall)
			}
		})
	}
}

// TestToolRoundsCountEveryCacheWrite checks that the usage of an answer
// reached through tool calls counts the prompt tokens every round wrote
// to the cache, as it counts those each read, so that the cost of a
// researched answer leaves none out.
func TestToolRoundsCountEveryCacheWrite(t *testing.T) {
	var rounds atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		round := rounds.Add(1)
		w.Header().Set("Content-Type", "text/event-stream")
		events := []string{
			`{"id":"r1","choices":[{"index":0,"delta":{"role":"assistant","tool_calls":[{"index":0,"id":"call_1","type":"function","function":{"name":"search","arguments":"{}"}}]},"finish_reason":"tool_calls"}]}`,
			`{"id":"r1","choices":[],"usage":{"prompt_tokens":100,"completion_tokens":5,"cache_read_input_tokens":0,"cache_creation_input_tokens":80}}`,
		}
		if round > 1 {
			events = []string{
				`{"id":"r2","choices":[{"index":0,"delta":{"role":"assistant","content":"done"},"finish_reason":"stop"}]}`,
				`{"id":"r2","choices":[],"usage":{"prompt_tokens":150,"completion_tokens":2,"cache_read_input_tokens":80,"cache_creation_input_tokens":60}}`,
			}
		}
		for _, ev := range append(events, "[DONE]") {
			fmt.Fprintf(w, "data: %s\n\n", ev)
		}
	}))
	defer srv.Close()
	c, err := New(Config{BaseURL: srv.URL + "/v1"})
	if err != nil {
		t.Fatal(err)
	}
	req, _ := collect("m")
	req.Tools = []Tool{{Name: "search", Parameters: map[string]any{"type": "object"}}}
	resp, _, err := CompleteWithTools(context.Background(), c, req, func(context.Context, ToolCall) string { return "found" }, 3)
	if err != nil {
		t.Fatal(err)
	}
	if resp.Text != "done" || resp.PromptTokens != 250 || resp.CachedTokens != 80 || resp.CacheWriteTokens != 140 {
		t.Errorf("answer %q, prompt %d, cached %d, written %d; want \"done\", 250, 80, 140 (both rounds')",
			resp.Text, resp.PromptTokens, resp.CachedTokens, resp.CacheWriteTokens)
	}
}

// TestToolCallsWithoutIndex checks that streamed tool calls that come
// without their index, as Gemini's OpenAI-compatible endpoint and some
// proxies send them, are told apart by their ids, and that a piece
// without an id goes on with the call before it.
func TestToolCallsWithoutIndex(t *testing.T) {
	tests := []struct {
		name   string
		events []string
		want   string
	}{
		{"two whole calls, as Gemini sends them", []string{
			`{"id":"g","choices":[{"index":0,"delta":{"role":"assistant","tool_calls":[{"id":"call_1","type":"function","function":{"name":"search","arguments":"{\"query\":\"tea\"}"}}]}}]}`,
			`{"id":"g","choices":[{"index":0,"delta":{"tool_calls":[{"id":"call_2","type":"function","function":{"name":"read","arguments":"{\"url\":\"https://x.example\"}"}}]},"finish_reason":"tool_calls"}]}`,
		}, `{call_1 search {"query":"tea"}}{call_2 read {"url":"https://x.example"}}`},
		{"two calls in one chunk", []string{
			`{"id":"g","choices":[{"index":0,"delta":{"role":"assistant","tool_calls":[{"id":"call_1","type":"function","function":{"name":"search","arguments":"{}"}},{"id":"call_2","type":"function","function":{"name":"read","arguments":"{}"}}]},"finish_reason":"tool_calls"}]}`,
		}, `{call_1 search {}}{call_2 read {}}`},
		{"arguments in pieces without an id", []string{
			`{"id":"g","choices":[{"index":0,"delta":{"role":"assistant","tool_calls":[{"id":"call_1","type":"function","function":{"name":"search","arguments":"{\"query\":"}}]}}]}`,
			`{"id":"g","choices":[{"index":0,"delta":{"tool_calls":[{"function":{"arguments":"\"tea\"}"}}]}}]}`,
			`{"id":"g","choices":[{"index":0,"delta":{"tool_calls":[{"id":"call_2","type":"function","function":{"name":"read","arguments":"{}"}}]},"finish_reason":"tool_calls"}]}`,
		}, `{call_1 search {"query":"tea"}}{call_2 read {}}`},
		{"with their index, as OpenAI sends them", []string{
			`{"id":"o","choices":[{"index":0,"delta":{"role":"assistant","tool_calls":[{"index":0,"id":"call_1","type":"function","function":{"name":"search","arguments":""}}]}}]}`,
			`{"id":"o","choices":[{"index":0,"delta":{"tool_calls":[{"index":1,"id":"call_2","type":"function","function":{"name":"read","arguments":"{}"}}]}}]}`,
			`{"id":"o","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{}"}}]},"finish_reason":"tool_calls"}]}`,
		}, `{call_1 search {}}{call_2 read {}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp, err := askStream(t, []Tool{{Name: "search"}, {Name: "read"}}, append(tt.events, "[DONE]")...)
			if err != nil {
				t.Fatalf("Complete: %v", err)
			}
			if got := callsText(resp.ToolCalls); got != tt.want {
				t.Errorf("calls %s, want %s", got, tt.want)
			}
		})
	}
}

// TestThoughtSignaturesGoBack checks that a tool call's extra_content, in
// which Gemini's OpenAI-compatible endpoint sends the thought signature
// Gemini 3 wants back, is sent back with the call in the next round, as
// it came, whether the calls came whole or streamed.
func TestThoughtSignaturesGoBack(t *testing.T) {
	const extra = `{"google":{"thought_signature":"c2lnbmF0dXJl"}}`
	whole := `{"id":"w","object":"chat.completion","model":"gemini-3","choices":[{"index":0,"finish_reason":"tool_calls","message":{"role":"assistant",` +
		`"tool_calls":[{"id":"call_1","type":"function","extra_content":` + extra + `,"function":{"name":"search","arguments":"{\"query\":\"tea\"}"}},` +
		`{"id":"call_2","type":"function","function":{"name":"read","arguments":"{}"}}]}}]}`
	streamed := []string{
		`{"id":"s","choices":[{"index":0,"delta":{"role":"assistant","tool_calls":[{"id":"call_1","type":"function","extra_content":` + extra + `,"function":{"name":"search","arguments":"{\"query\":\"tea\"}"}}]}}]}`,
		`{"id":"s","choices":[{"index":0,"delta":{"tool_calls":[{"id":"call_2","type":"function","function":{"name":"read","arguments":"{}"}}]},"finish_reason":"tool_calls"}]}`,
	}
	for _, stream := range []bool{false, true} {
		t.Run(fmt.Sprintf("streamed %v", stream), func(t *testing.T) {
			var second atomic.Value
			var rounds atomic.Int32
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				body, _ := io.ReadAll(r.Body)
				if rounds.Add(1) > 1 {
					second.Store(string(body))
					w.Header().Set("Content-Type", "application/json")
					fmt.Fprint(w, completion(`{"prompt_tokens":5,"completion_tokens":1}`))
					return
				}
				if !stream {
					w.Header().Set("Content-Type", "application/json")
					fmt.Fprint(w, whole)
					return
				}
				w.Header().Set("Content-Type", "text/event-stream")
				for _, ev := range append(streamed, "[DONE]") {
					fmt.Fprintf(w, "data: %s\n\n", ev)
				}
			}))
			defer srv.Close()
			c, err := New(Config{BaseURL: srv.URL + "/v1"})
			if err != nil {
				t.Fatal(err)
			}
			req := chat("gemini-3")
			if stream {
				req, _ = collect("gemini-3")
			}
			req.Tools = []Tool{{Name: "search"}, {Name: "read"}}
			_, added, err := CompleteWithTools(context.Background(), c, req, func(context.Context, ToolCall) string { return "found" }, 3)
			if err != nil {
				t.Fatal(err)
			}
			if len(added) == 0 || len(added[0].ToolCalls) != 2 || string(added[0].ToolCalls[0].Extra) != extra || added[0].ToolCalls[1].Extra != nil {
				t.Fatalf("calls %+v, want the first with its extra_content, the second with none", added)
			}
			var sent struct {
				Messages []struct {
					ToolCalls []map[string]json.RawMessage `json:"tool_calls"`
				} `json:"messages"`
			}
			body, _ := second.Load().(string)
			if err := json.Unmarshal([]byte(body), &sent); err != nil {
				t.Fatalf("second request %q: %v", body, err)
			}
			var calls []map[string]json.RawMessage
			for _, m := range sent.Messages {
				calls = append(calls, m.ToolCalls...)
			}
			if len(calls) != 2 || string(calls[0]["extra_content"]) != extra || calls[1]["extra_content"] != nil {
				t.Errorf("second request's tool calls %s, want the first with extra_content %s and the second without", body, extra)
			}
		})
	}
}
