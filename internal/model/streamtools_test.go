package model

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// TestToolCallsStream checks that a request with tools and OnChunk asks
// for a stream, and that tool calls whose name and arguments come in
// pieces across the stream's chunks are put back together, as are the
// text pieces of the next round.
func TestToolCallsStream(t *testing.T) {
	var bodies []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		bodies = append(bodies, string(b))
		w.Header().Set("Content-Type", "text/event-stream")
		if !strings.Contains(string(b), `"role":"tool"`) {
			for _, ev := range []string{
				`{"id":"s1","choices":[{"index":0,"delta":{"role":"assistant","tool_calls":[{"index":0,"id":"call_a","type":"function","function":{"name":"search","arguments":""}}]}}]}`,
				`{"id":"s1","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{\"query\":"}}]}}]}`,
				`{"id":"s1","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"\"sugar tax\"}"}}]}}]}`,
				`{"id":"s1","choices":[{"index":0,"delta":{"tool_calls":[{"index":1,"id":"call_b","type":"function","function":{"name":"read","arguments":"{\"url\":\"https://x.example\"}"}}]}}]}`,
				`{"id":"s1","choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}`,
				`{"id":"s1","choices":[],"usage":{"prompt_tokens":20,"completion_tokens":9}}`,
			} {
				fmt.Fprintf(w, "data: %s\n\n", ev)
			}
		} else {
			for _, ev := range []string{
				`{"id":"s2","choices":[{"index":0,"delta":{"role":"assistant","content":"found "}}]}`,
				`{"id":"s2","choices":[{"index":0,"delta":{"content":"it"},"finish_reason":"stop"}]}`,
			} {
				fmt.Fprintf(w, "data: %s\n\n", ev)
			}
		}
		fmt.Fprint(w, "data: [DONE]\n\n")
	}))
	defer srv.Close()
	c, err := New(Config{BaseURL: srv.URL + "/v1"})
	if err != nil {
		t.Fatal(err)
	}
	req, chunks := collect("m")
	req.Tools = []Tool{{Name: "search", Parameters: map[string]any{"type": "object"}}, {Name: "read"}}
	var calls []ToolCall
	resp, added, err := CompleteWithTools(context.Background(), c, req, func(_ context.Context, tc ToolCall) string {
		calls = append(calls, tc)
		return "result of " + tc.Name
	}, 3)
	if err != nil {
		t.Fatal(err)
	}
	want := []ToolCall{{ID: "call_a", Name: "search", Arguments: `{"query":"sugar tax"}`}, {ID: "call_b", Name: "read", Arguments: `{"url":"https://x.example"}`}}
	if fmt.Sprint(calls) != fmt.Sprint(want) {
		t.Errorf("calls run = %+v, want %+v", calls, want)
	}
	if resp.Text != "found it" || !resp.Streamed || strings.Join(*chunks, "|") != "found |it" {
		t.Errorf("answer %q (streamed %v, chunks %q), want \"found it\" streamed in two pieces", resp.Text, resp.Streamed, *chunks)
	}
	if resp.PromptTokens != 20 || resp.CompletionTokens != 9 {
		t.Errorf("usage %d/%d, want the streamed round's 20/9", resp.PromptTokens, resp.CompletionTokens)
	}
	if len(added) != 3 || len(bodies) != 2 {
		t.Fatalf("%d messages added, %d requests; want the calls and two results, in two requests", len(added), len(bodies))
	}
	for i, b := range bodies {
		if !strings.Contains(b, `"stream":true`) || !strings.Contains(b, `"tools":[`) {
			t.Errorf("request %d = %s, want it streamed with the tools", i+1, b)
		}
	}
}
