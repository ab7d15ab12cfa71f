package model

import (
	"context"
	"fmt"
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
