package model

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
)

// toolServer answers a chat request whose last message is not a tool
// result with the calls of calls (one round each time), and one whose
// last message is a tool result with text quoting it, recording each
// request's body.
type toolServer struct {
	mu     sync.Mutex
	bodies []map[string]any
	rounds int // rounds of calls to make before answering with text
	refuse bool
}

func (s *toolServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	raw, _ := io.ReadAll(r.Body)
	var body map[string]any
	_ = json.Unmarshal(raw, &body)
	s.mu.Lock()
	s.bodies = append(s.bodies, body)
	n := len(s.bodies)
	s.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	if s.refuse && body["tools"] != nil {
		w.WriteHeader(400)
		_, _ = io.WriteString(w, `{"error":{"message":"tools are not supported by this model","type":"invalid_request_error"}}`)
		return
	}
	msgs := body["messages"].([]any)
	last := msgs[len(msgs)-1].(map[string]any)
	if n <= s.rounds {
		_, _ = io.WriteString(w, `{"choices":[{"message":{"content":null,"tool_calls":[{"id":"c`+string(rune('0'+n))+`","type":"function","function":{"name":"search","arguments":"{\"query\":\"q`+string(rune('0'+n))+`\"}"}}]},"finish_reason":"tool_calls"}],"usage":{"prompt_tokens":10,"completion_tokens":2}}`)
		return
	}
	text, _ := json.Marshal("saw: " + last["content"].(string))
	_, _ = io.WriteString(w, `{"choices":[{"message":{"content":`+string(text)+`},"finish_reason":"stop"}],"usage":{"prompt_tokens":10,"completion_tokens":3}}`)
}

func TestCompleteWithTools(t *testing.T) {
	tools := []Tool{{Name: "search", Description: "search the web", Parameters: map[string]any{"type": "object"}}}
	tests := []struct {
		name      string
		rounds    int
		maxRounds int
		wantText  string
		wantRuns  int
		wantMsgs  int
		wantErr   error
		wantFail  string // in the error of a model that never stops calling
		refuse    bool
	}{
		{name: "no call", rounds: 0, maxRounds: 3, wantText: "saw: hello", wantRuns: 0},
		{name: "two rounds", rounds: 2, maxRounds: 3, wantText: "saw: result of q2", wantRuns: 2, wantMsgs: 4},
		{name: "over the limit", rounds: 2, maxRounds: 1, wantText: "saw: error: no more tool calls (at most 1 rounds): write your answer now", wantRuns: 1, wantMsgs: 4},
		{name: "no tools", refuse: true, wantErr: ErrNoTools},
		{name: "calls forever", rounds: 1000, maxRounds: 1, wantFail: `model "m" kept calling tools after 3 rounds`, wantRuns: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := &toolServer{rounds: tt.rounds, refuse: tt.refuse}
			srv := httptest.NewServer(s)
			defer srv.Close()
			c, err := New(Config{BaseURL: srv.URL + "/v1"})
			if err != nil {
				t.Fatal(err)
			}
			runs := 0
			run := func(_ context.Context, tc ToolCall) string {
				runs++
				var args struct{ Query string }
				if err := tc.Decode(&args); err != nil {
					return "error: " + err.Error()
				}
				return "result of " + args.Query
			}
			resp, added, err := CompleteWithTools(context.Background(), c,
				Request{Model: "m", Messages: []Message{{Role: "user", Content: "hello"}}, Tools: tools}, run, tt.maxRounds)
			if tt.wantErr != nil {
				if !errors.Is(err, tt.wantErr) {
					t.Fatalf("err = %v, want %v", err, tt.wantErr)
				}
				return
			}
			if tt.wantFail != "" {
				if err == nil || err.Error() != tt.wantFail || runs != tt.wantRuns || len(s.bodies) != 4 {
					t.Fatalf("err = %v, runs %d, requests %d; want %q, %d, 4", err, runs, len(s.bodies), tt.wantFail, tt.wantRuns)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if resp.Text != tt.wantText || runs != tt.wantRuns || len(added) != tt.wantMsgs {
				t.Errorf("text %q runs %d msgs %d, want %q %d %d", resp.Text, runs, len(added), tt.wantText, tt.wantRuns, tt.wantMsgs)
			}
			if resp.PromptTokens != 10*(tt.rounds+1) {
				t.Errorf("prompt tokens = %d, want the sum of every round", resp.PromptTokens)
			}
			if tt.rounds > 0 {
				// The second request carries the call and its result.
				second := s.bodies[1]["messages"].([]any)
				call := second[1].(map[string]any)
				res := second[2].(map[string]any)
				if call["role"] != "assistant" || call["tool_calls"] == nil || res["role"] != "tool" || res["tool_call_id"] != "c1" {
					t.Errorf("second request's messages = %v", second)
				}
				if s.bodies[0]["tools"] == nil || strings.Contains(srv.URL, "stream") {
					t.Errorf("tools not sent")
				}
			}
		})
	}
}
