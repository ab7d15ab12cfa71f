package model

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/moot-dev/moot/internal/testkit/modeltest"
)

func TestContentInParts(t *testing.T) {
	type part struct {
		Text  string
		Cache bool
	}
	tests := []struct {
		name string
		text string
		cuts []int
		want []part // nil: sent as a plain string
	}{
		{"no cut", "abcdef", nil, nil},
		{"one cut", "abcdef", []int{4}, []part{{"abcd", true}, {"ef", false}}},
		{"a cut at the end", "abcdef", []int{6}, []part{{"abcdef", true}}},
		{"two cuts out of order", "abcdef", []int{5, 2}, []part{{"ab", true}, {"cde", true}, {"f", false}}},
		{"cuts at the start, twice or outside are left out", "abcdef", []int{0, 3, 3, 9, -1}, []part{{"abc", true}, {"def", false}}},
		{"a cut inside a character is left out", "né", []int{2}, nil},
		{"a cut after a character", "né!", []int{3}, []part{{"né", true}, {"!", false}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := content(tt.text, tt.cuts)
			if tt.want == nil {
				if s, ok := got.(string); !ok || s != tt.text {
					t.Fatalf("content = %#v, want the string %q", got, tt.text)
				}
				return
			}
			parts, ok := got.([]textPart)
			if !ok || len(parts) != len(tt.want) {
				t.Fatalf("content = %#v, want %d parts", got, len(tt.want))
			}
			for i, p := range parts {
				if p.Type != "text" || p.Text != tt.want[i].Text || (p.CacheControl != nil) != tt.want[i].Cache ||
					(p.CacheControl != nil && p.CacheControl.Type != "ephemeral") {
					t.Errorf("part %d = %+v, want %+v", i, p, tt.want[i])
				}
			}
		})
	}
}

// wireMessages reads the messages of a request body as sent.
func wireMessages(t *testing.T, body []byte) []json.RawMessage {
	t.Helper()
	var req struct {
		Messages []struct {
			Content json.RawMessage `json:"content"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		t.Fatal(err)
	}
	out := make([]json.RawMessage, len(req.Messages))
	for i, m := range req.Messages {
		out[i] = m.Content
	}
	return out
}

func TestBreakpointsOnTheWire(t *testing.T) {
	s := modeltest.NewServer(t, modeltest.Script(modeltest.Reply{Content: "a"}, modeltest.Reply{Content: "b"}, modeltest.Reply{Content: "c"}))
	c := newClient(t, s, Config{})
	plain := chat("m")
	if _, err := c.Complete(context.Background(), plain); err != nil {
		t.Fatal(err)
	}
	marked := chat("m")
	marked.Breakpoints = []Breakpoint{{Message: 0, Offset: len(marked.Messages[0].Content)}, {Message: 1, Offset: 4}}
	if _, err := c.Complete(context.Background(), marked); err != nil {
		t.Fatal(err)
	}
	// Five breakpoints: the first is dropped, as Anthropic takes four.
	five := chat("m")
	five.Breakpoints = []Breakpoint{{0, 3}, {0, 6}, {1, 1}, {1, 2}, {1, 3}}
	if _, err := c.Complete(context.Background(), five); err != nil {
		t.Fatal(err)
	}
	reqs := s.Requests()
	for i, m := range wireMessages(t, reqs[0].Body) {
		var text string
		if json.Unmarshal(m, &text) != nil {
			t.Errorf("without breakpoints, message %d is sent as %s, want a string", i, m)
		}
	}
	got := wireMessages(t, reqs[1].Body)
	want := []string{
		`[{"type":"text","text":"You are the judge.","cache_control":{"type":"ephemeral"}}]`,
		`[{"type":"text","text":"Who ","cache_control":{"type":"ephemeral"}},{"type":"text","text":"won? Answer in JSON."}]`,
	}
	for i := range want {
		if string(got[i]) != want[i] {
			t.Errorf("message %d sent as %s, want %s", i, got[i], want[i])
		}
	}
	// The server reads the same text whichever way it was sent.
	for i := range reqs[1].Messages {
		if reqs[1].Messages[i] != reqs[0].Messages[i] {
			t.Errorf("message %d reads %q in parts, %q whole", i, reqs[1].Messages[i].Content, reqs[0].Messages[i].Content)
		}
	}
	n := 0
	for _, m := range wireMessages(t, reqs[2].Body) {
		var parts []textPart
		if json.Unmarshal(m, &parts) == nil {
			for _, p := range parts {
				if p.CacheControl != nil {
					n++
				}
			}
		}
	}
	if n != MaxBreakpoints {
		t.Errorf("five breakpoints sent as %d, want %d", n, MaxBreakpoints)
	}
}

func TestCacheWritesAsEachServerReportsThem(t *testing.T) {
	tests := []struct {
		name                string
		usage               string
		wantCached, wantWrs int
	}{
		{"OpenRouter", `{"prompt_tokens":194,"completion_tokens":2,"prompt_tokens_details":{"cached_tokens":50,"cache_write_tokens":100}}`, 50, 100},
		{"Anthropic's names", `{"prompt_tokens":194,"completion_tokens":2,"cache_read_input_tokens":40,"cache_creation_input_tokens":90}`, 40, 90},
		{"OpenAI reports no writes", `{"prompt_tokens":194,"completion_tokens":2,"prompt_tokens_details":{"cached_tokens":128}}`, 128, 0},
		{"more written than prompt is cut to the prompt", `{"prompt_tokens":10,"completion_tokens":2,"prompt_tokens_details":{"cache_write_tokens":100}}`, 0, 10},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := modeltest.NewServer(t, modeltest.Script(modeltest.Reply{RawBody: completion(tt.usage)}))
			resp, err := newClient(t, s, Config{}).Complete(context.Background(), chat("m"))
			if err != nil {
				t.Fatal(err)
			}
			if resp.CachedTokens != tt.wantCached || resp.CacheWriteTokens != tt.wantWrs {
				t.Errorf("cached %d, written %d; want %d, %d", resp.CachedTokens, resp.CacheWriteTokens, tt.wantCached, tt.wantWrs)
			}
		})
	}
}
