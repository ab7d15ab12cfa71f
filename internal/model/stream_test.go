package model

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/moot-dev/moot/internal/testkit/modeltest"
)

// collect returns a request that streams, and the pieces it was given.
func collect(model string) (Request, *[]string) {
	var got []string
	req := chat(model)
	req.OnChunk = func(s string) { got = append(got, s) }
	return req, &got
}

func TestStreamedAnswerIsTheWholeAnswer(t *testing.T) {
	const text = "The answer, streamed in a few pieces."
	tests := []struct {
		name       string
		opts       []modeltest.Option
		wantChunks bool
		wantReqs   int
	}{
		{name: "streams", wantChunks: true, wantReqs: 1},
		{name: "server ignores stream", opts: []modeltest.Option{modeltest.IgnoreStream()}, wantReqs: 1},
		{name: "server refuses stream", opts: []modeltest.Option{modeltest.RefuseStream()}, wantReqs: 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			reply := modeltest.Reply{Content: text, PromptTokens: 11, CompletionTokens: 7, FinishReason: "length", Model: "m-2024"}
			s := modeltest.NewServer(t, modeltest.Script(reply, reply), tt.opts...)
			c := newClient(t, s, Config{})
			req, got := collect("m")
			resp, err := c.Complete(context.Background(), req)
			if err != nil {
				t.Fatalf("Complete: %v", err)
			}
			if resp.Text != text || resp.PromptTokens != 11 || resp.CompletionTokens != 7 || !resp.Truncated || resp.Model != "m-2024" {
				t.Errorf("response = %+v, want the whole text, usage 11/7, truncated, model m-2024", resp)
			}
			if tt.wantChunks {
				if len(*got) < 2 || strings.Join(*got, "") != text {
					t.Errorf("chunks = %q, want several that join to the text", *got)
				}
			} else if len(*got) != 0 {
				t.Errorf("chunks = %q, want none from a server that does not stream", *got)
			}
			reqs := s.Requests()
			if len(reqs) != tt.wantReqs || !reqs[0].Stream || !reqs[0].StreamUsage {
				t.Errorf("requests = %d (first stream %v, usage %v), want %d, the first streaming with usage", len(reqs), reqs[0].Stream, reqs[0].StreamUsage, tt.wantReqs)
			}
			if last := reqs[len(reqs)-1]; tt.wantReqs == 2 && last.Stream {
				t.Errorf("the request after a refused stream streams again")
			}
		})
	}
}

func TestUnstreamedRequestSendsNoStream(t *testing.T) {
	s := modeltest.NewServer(t, modeltest.Script(modeltest.Reply{Content: "hi"}))
	c := newClient(t, s, Config{})
	if _, err := c.Complete(context.Background(), chat("m")); err != nil {
		t.Fatal(err)
	}
	if r := s.Requests()[0]; r.Stream || r.StreamUsage || strings.Contains(string(r.Body), "stream") {
		t.Errorf("a request without OnChunk sent %s", r.Body)
	}
}

func TestStreamFailureIsRetried(t *testing.T) {
	tests := []struct {
		name  string
		first modeltest.Reply
	}{
		{"cut mid-stream", modeltest.Reply{Content: "a first try that stops", StreamCut: true}},
		{"error event mid-stream", modeltest.Reply{Content: "a first try that fails", StreamError: "overloaded"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := modeltest.NewServer(t, modeltest.Script(tt.first, modeltest.Reply{Content: "second try"}))
			c := newClient(t, s, Config{MaxRetries: 2})
			var retries []Retry
			req, got := collect("m")
			var atRetry int
			req.OnRetry = func(r Retry) { retries = append(retries, r); atRetry = len(*got) }
			resp, err := c.Complete(context.Background(), req)
			if err != nil {
				t.Fatalf("Complete: %v", err)
			}
			if resp.Text != "second try" || resp.Attempts != 2 || len(retries) != 1 {
				t.Fatalf("text %q, %d attempts, %d retries; want the second try's text, 2 attempts, 1 retry", resp.Text, resp.Attempts, len(retries))
			}
			if atRetry == 0 || strings.Join((*got)[atRetry:], "") != "second try" {
				t.Errorf("chunks %q (%d before the retry): want the first try's pieces, then the second try whole", *got, atRetry)
			}
		})
	}
}

func TestReadStream(t *testing.T) {
	tests := []struct {
		name    string
		body    string
		want    string
		chunks  []string
		usage   [2]float64
		finish  string
		wantErr string
	}{
		{name: "done ends it", body: "data: {\"choices\":[{\"delta\":{\"content\":\"a\"}}]}\n\ndata: {\"choices\":[{\"delta\":{\"content\":\"b\"},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\ndata: {\"choices\":[{\"delta\":{\"content\":\"late\"}}]}\n\n",
			want: "ab", chunks: []string{"a", "b"}, finish: "stop"},
		{name: "comments, CRLF and usage", body: ": keep-alive\r\n\r\ndata:{\"choices\":[{\"delta\":{\"content\":\"x\"},\"finish_reason\":\"stop\"}]}\r\n\r\ndata: {\"choices\":[],\"usage\":{\"prompt_tokens\":3,\"completion_tokens\":4}}\r\n\r\ndata: [DONE]\r\n",
			want: "x", chunks: []string{"x"}, usage: [2]float64{3, 4}, finish: "stop"},
		{name: "finished without done", body: "data: {\"choices\":[{\"delta\":{\"content\":\"y\"},\"finish_reason\":\"length\"}]}\n",
			want: "y", chunks: []string{"y"}, finish: "length"},
		{name: "cut before the end", body: "data: {\"choices\":[{\"delta\":{\"content\":\"y\"}}]}\n\n", chunks: []string{"y"}, wantErr: "ended before"},
		{name: "a null error is none", body: "data: {\"choices\":[{\"delta\":{\"content\":\"z\"},\"finish_reason\":\"stop\"}],\"error\":null}\r\n\r\ndata: [DONE]\n\n",
			want: "z", chunks: []string{"z"}, finish: "stop"},
		{name: "error event", body: "data: {\"error\":{\"message\":\"boom\"}}\n\n", wantErr: "boom"},
		{name: "not JSON", body: "data: {oops\n\n", wantErr: "parsing"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "text/event-stream")
				fmt.Fprint(w, tt.body)
			}))
			defer srv.Close()
			c, err := New(Config{BaseURL: srv.URL + "/v1"})
			if err != nil {
				t.Fatal(err)
			}
			req, chunks := collect("m")
			resp, err := c.Complete(context.Background(), req)
			if got := *chunks; !slices.Equal(got, tt.chunks) {
				t.Errorf("chunks = %q, want %q", got, tt.chunks)
			}
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want one saying %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if resp.Text != tt.want || resp.Truncated != (tt.finish == "length") || !resp.Streamed ||
				float64(resp.PromptTokens) != tt.usage[0] || float64(resp.CompletionTokens) != tt.usage[1] {
				t.Errorf("response = %+v, want text %q, finish %q, usage %v", resp, tt.want, tt.finish, tt.usage)
			}
		})
	}
}

// TestStreamOptionsRefused checks that a server refusing stream_options is
// asked again streaming without it.
func TestStreamOptionsRefused(t *testing.T) {
	var bodies []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b := make([]byte, r.ContentLength)
		_, _ = r.Body.Read(b)
		bodies = append(bodies, string(b))
		if strings.Contains(string(b), "stream_options") {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(400)
			fmt.Fprint(w, `{"error":{"message":"unrecognized field stream_options","param":"stream_options"}}`)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprint(w, "data: {\"choices\":[{\"delta\":{\"content\":\"ok\"},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n")
	}))
	defer srv.Close()
	c, err := New(Config{BaseURL: srv.URL + "/v1"})
	if err != nil {
		t.Fatal(err)
	}
	req, got := collect("m")
	resp, err := c.Complete(context.Background(), req)
	if err != nil || resp.Text != "ok" || len(*got) != 1 {
		t.Fatalf("text %q, chunks %q, err %v; want ok streamed", resp.Text, *got, err)
	}
	if len(bodies) != 2 || !strings.Contains(bodies[1], `"stream":true`) {
		t.Errorf("requests %q: want a second one streaming without stream_options", bodies)
	}
}
