package model

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/moot-dev/moot/internal/testkit/modeltest"
)

// TestTypedErrorFields checks the fields of an error body as the SDK
// types them: each read where it is a string or a number, none where it
// is null or of another kind, the body itself shown when the message is
// not text, and the key masked in the message.
func TestTypedErrorFields(t *testing.T) {
	tests := []struct {
		name                           string
		body                           string
		wantMsg, wantType, wantCode    string
		wantParam                      string
		wantInError, wantNotInTheError string
	}{
		{"type read", `{"error":{"message":"slow down","type":"rate_limit_error","code":"rate_limit_exceeded"}}`,
			"slow down", "rate_limit_error", "rate_limit_exceeded", "", "slow down", ""},
		{"null code and type", `{"error":{"message":"no such model","type":null,"code":null,"param":"model"}}`,
			"no such model", "", "", "model", "no such model", ""},
		{"message an object", `{"error":{"message":{"text":"nested"},"code":"bad"}}`,
			`{"error":{"message":{"text":"nested"},"code":"bad"}}`, "", "bad", "", "nested", ""},
		{"key in the message", `{"error":{"message":"Incorrect API key provided: ` + testKey + `","code":"invalid_api_key"}}`,
			"Incorrect API key provided: [redacted]", "", "invalid_api_key", "", "[redacted]", testKey},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := modeltest.NewServer(t, modeltest.Script(modeltest.Reply{Status: 400, RawBody: tt.body}))
			_, err := newClient(t, s, Config{}).Complete(context.Background(), chat("m"))
			var apiErr *APIError
			if !errors.As(err, &apiErr) {
				t.Fatalf("error = %v, want an *APIError", err)
			}
			if apiErr.Message != tt.wantMsg || apiErr.Type != tt.wantType || apiErr.Code != tt.wantCode || apiErr.Param != tt.wantParam {
				t.Errorf("message %q type %q code %q param %q, want %q %q %q %q", apiErr.Message, apiErr.Type, apiErr.Code, apiErr.Param,
					tt.wantMsg, tt.wantType, tt.wantCode, tt.wantParam)
			}
			if !strings.Contains(err.Error(), tt.wantInError) {
				t.Errorf("error %q does not say %q", err, tt.wantInError)
			}
			if tt.wantNotInTheError != "" && strings.Contains(err.Error(), tt.wantNotInTheError) {
				t.Errorf("error %q shows the key", err)
			}
		})
	}
}

// streamServer answers every request with the stream of events given,
// each sent as one data line.
func streamServer(t *testing.T, events ...string) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		for _, ev := range events {
			fmt.Fprintf(w, "data: %s\n\n", ev)
		}
	}))
	t.Cleanup(srv.Close)
	return srv
}

// TestStreamedUsageOfEachServer checks that the usage of a stream's last
// chunk is read with the fields the SDK does not type (Anthropic's cache
// names, DeepSeek's hits), and that the chunks before it, whose usage is
// null, do not hide it.
func TestStreamedUsageOfEachServer(t *testing.T) {
	tests := []struct {
		name                     string
		usage                    string
		wantPrompt, wantCached   int
		wantWritten              int
		wantCachedReported, want bool
	}{
		{"Anthropic's names through a proxy", `{"prompt_tokens":300,"completion_tokens":4,"cache_read_input_tokens":120,"cache_creation_input_tokens":60}`,
			300, 120, 60, true, true},
		{"DeepSeek", `{"prompt_tokens":100,"completion_tokens":4,"prompt_cache_hit_tokens":64,"prompt_cache_miss_tokens":36}`,
			100, 64, 0, true, true},
		{"OpenRouter", `{"prompt_tokens":100,"completion_tokens":4,"prompt_tokens_details":{"cached_tokens":10,"cache_write_tokens":30}}`,
			100, 10, 30, true, true},
		{"no cache fields", `{"prompt_tokens":100,"completion_tokens":4}`, 100, 0, 0, false, true},
		{"a cache field that is no number", `{"prompt_tokens":100,"completion_tokens":4,"cache_read_input_tokens":"many"}`, 100, 0, 0, false, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := streamServer(t,
				`{"id":"s","choices":[{"index":0,"delta":{"role":"assistant","content":"a"}}],"usage":null}`,
				`{"id":"s","choices":[{"index":0,"delta":{"content":"b"},"finish_reason":"stop"}],"usage":null}`,
				`{"id":"s","choices":[],"usage":`+tt.usage+`}`,
				`[DONE]`)
			c, err := New(Config{BaseURL: srv.URL + "/v1"})
			if err != nil {
				t.Fatal(err)
			}
			req, _ := collect("m")
			resp, err := c.Complete(context.Background(), req)
			if err != nil {
				t.Fatal(err)
			}
			if resp.Text != "ab" || !resp.Streamed {
				t.Errorf("answer %q (streamed %v), want \"ab\" streamed", resp.Text, resp.Streamed)
			}
			if resp.PromptTokens != tt.wantPrompt || resp.CachedTokens != tt.wantCached || resp.CacheWriteTokens != tt.wantWritten {
				t.Errorf("prompt %d, cached %d, written %d; want %d, %d, %d", resp.PromptTokens, resp.CachedTokens, resp.CacheWriteTokens,
					tt.wantPrompt, tt.wantCached, tt.wantWritten)
			}
			if resp.CachedReported != tt.wantCachedReported || resp.UsageReported != tt.want {
				t.Errorf("cached reported %v, usage reported %v; want %v, %v", resp.CachedReported, resp.UsageReported, tt.wantCachedReported, tt.want)
			}
		})
	}
}

// TestMidStreamErrorMessage checks that an error event in a stream is
// shown by its message, whatever the type of its code.
func TestMidStreamErrorMessage(t *testing.T) {
	srv := streamServer(t,
		`{"id":"s","choices":[{"index":0,"delta":{"role":"assistant","content":"a"}}]}`,
		`{"error":{"message":"the provider went away","code":502,"type":null}}`)
	c, err := New(Config{BaseURL: srv.URL + "/v1"})
	if err != nil {
		t.Fatal(err)
	}
	req, _ := collect("m")
	_, err = c.Complete(context.Background(), req)
	if err == nil || !strings.Contains(err.Error(), "the server sent an error mid-stream: the provider went away") {
		t.Errorf("error = %v, want the stream's error message", err)
	}
}
