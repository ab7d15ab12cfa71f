package model

import (
	"context"
	"fmt"
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
			srv := streamServer(t, append(tt.events, "[DONE]")...)
			c, err := New(Config{BaseURL: srv.URL + "/v1"})
			if err != nil {
				t.Fatal(err)
			}
			req, _ := collect("m")
			if tt.tools {
				req.Tools = []Tool{{Name: "search", Parameters: map[string]any{"type": "object"}}}
			}
			resp, err := c.Complete(context.Background(), req)
			if err != nil {
				t.Fatalf("Complete: %v", err)
			}
			calls := ""
			for _, tc := range resp.ToolCalls {
				calls += fmt.Sprint(tc)
			}
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
