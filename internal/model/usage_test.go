package model

import (
	"context"
	"testing"

	"github.com/moot-dev/moot/internal/testkit/modeltest"
)

// completion is a whole chat completion whose usage object is usage.
func completion(usage string) string {
	return `{"id":"x","object":"chat.completion","created":1,"model":"m",` +
		`"choices":[{"index":0,"message":{"role":"assistant","content":"ok"},"finish_reason":"stop"}],` +
		`"usage":` + usage + `}`
}

func TestCachedTokensAsEachServerReportsThem(t *testing.T) {
	tests := []struct {
		name       string
		usage      string
		wantPrompt int
		wantCached int
	}{
		{"OpenAI, OpenRouter, vLLM, Ollama", `{"prompt_tokens":2006,"completion_tokens":300,"prompt_tokens_details":{"cached_tokens":1920}}`, 2006, 1920},
		{"OpenRouter with cache writes", `{"prompt_tokens":194,"completion_tokens":2,"cost":0.95,"prompt_tokens_details":{"cached_tokens":0,"cache_write_tokens":100}}`, 194, 0},
		{"vLLM without --enable-prompt-tokens-details", `{"prompt_tokens":25,"completion_tokens":10,"prompt_tokens_details":null}`, 25, 0},
		{"no details at all", `{"prompt_tokens":25,"completion_tokens":10}`, 25, 0},
		{"DeepSeek", `{"prompt_tokens":100,"completion_tokens":10,"prompt_cache_hit_tokens":64,"prompt_cache_miss_tokens":36}`, 100, 64},
		{"details win over DeepSeek's field", `{"prompt_tokens":100,"completion_tokens":10,"prompt_cache_hit_tokens":64,"prompt_tokens_details":{"cached_tokens":80}}`, 100, 80},
		{"more cached than prompt is cut to the prompt", `{"prompt_tokens":10,"completion_tokens":1,"prompt_tokens_details":{"cached_tokens":50}}`, 10, 10},
		{"a negative count is none", `{"prompt_tokens":10,"completion_tokens":1,"prompt_tokens_details":{"cached_tokens":-5}}`, 10, 0},
		{"counts written as 12.0", `{"prompt_tokens":12.0,"completion_tokens":1.0,"prompt_tokens_details":{"cached_tokens":8.0}}`, 12, 8},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := modeltest.NewServer(t, modeltest.Script(modeltest.Reply{RawBody: completion(tt.usage)}))
			resp, err := newClient(t, s, Config{}).Complete(context.Background(), chat("m"))
			if err != nil {
				t.Fatalf("Complete: %v", err)
			}
			if resp.PromptTokens != tt.wantPrompt || resp.CachedTokens != tt.wantCached {
				t.Errorf("prompt %d, cached %d; want %d, %d", resp.PromptTokens, resp.CachedTokens, tt.wantPrompt, tt.wantCached)
			}
		})
	}
}

func TestCachedTokensOfAStream(t *testing.T) {
	tests := []struct {
		name       string
		opts       []modeltest.Option
		wantCached int
	}{
		{"usage in the last chunk", nil, 48},
		{"server ignores stream", []modeltest.Option{modeltest.IgnoreStream()}, 48},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			reply := modeltest.Reply{Content: "A streamed answer.", PromptTokens: 60, CompletionTokens: 5, CachedTokens: 48}
			s := modeltest.NewServer(t, modeltest.Script(reply), tt.opts...)
			req, _ := collect("m")
			resp, err := newClient(t, s, Config{}).Complete(context.Background(), req)
			if err != nil {
				t.Fatalf("Complete: %v", err)
			}
			if resp.PromptTokens != 60 || resp.CachedTokens != tt.wantCached {
				t.Errorf("prompt %d, cached %d; want 60, %d", resp.PromptTokens, resp.CachedTokens, tt.wantCached)
			}
			if r := s.Requests()[0]; !r.Stream || !r.StreamUsage {
				t.Errorf("stream %v, include_usage %v; want a stream that asks for the usage", r.Stream, r.StreamUsage)
			}
		})
	}
}

// TestReasoningTokensOfChat checks that the reasoning tokens OpenAI's
// reasoning models report in completion_tokens_details are read from a
// chat completion too, never more than the completion tokens.
func TestReasoningTokensOfChat(t *testing.T) {
	for _, tt := range []struct {
		name  string
		usage string
		want  int
	}{
		{"reported", `{"prompt_tokens":20,"completion_tokens":300,"completion_tokens_details":{"reasoning_tokens":256}}`, 256},
		{"not reported", `{"prompt_tokens":20,"completion_tokens":30}`, 0},
		{"more than the completion is cut to it", `{"prompt_tokens":20,"completion_tokens":30,"completion_tokens_details":{"reasoning_tokens":64}}`, 30},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s := modeltest.NewServer(t, modeltest.Script(modeltest.Reply{RawBody: completion(tt.usage)}))
			resp, err := newClient(t, s, Config{}).Complete(context.Background(), chat("m"))
			if err != nil {
				t.Fatalf("Complete: %v", err)
			}
			if resp.ReasoningTokens != tt.want {
				t.Errorf("reasoning tokens %d, want %d", resp.ReasoningTokens, tt.want)
			}
		})
	}
}
