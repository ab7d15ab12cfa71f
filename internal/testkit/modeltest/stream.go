package modeltest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"time"
)

// StreamParts is how many deltas a streamed answer's content is split
// into, at most.
const StreamParts = 4

// answerStream answers req with server-sent events: a chunk naming the
// role, the content in up to StreamParts deltas, a chunk with the finish
// reason, one with the usage when it was asked for, and [DONE].
func (s *Server) answerStream(w http.ResponseWriter, r *http.Request, req Request, reply Reply) {
	if !s.delay(r, reply.Delay) {
		return
	}
	model := reply.Model
	if model == "" {
		model = req.Model
	}
	var whole struct {
		Usage map[string]any `json:"usage"`
	}
	_ = json.Unmarshal(completionBody(req, reply), &whole)
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	flusher, _ := w.(http.Flusher)
	send := func(v any) {
		b, err := json.Marshal(v)
		if err != nil {
			panic(fmt.Sprintf("modeltest: encode chunk: %v", err))
		}
		fmt.Fprintf(w, "data: %s\n\n", b)
		if flusher != nil {
			flusher.Flush()
		}
	}
	chunk := func(delta map[string]any, finish any) map[string]any {
		return map[string]any{
			"id": "chatcmpl-modeltest", "object": "chat.completion.chunk", "created": time.Now().Unix(), "model": model,
			"choices": []any{map[string]any{"index": 0, "delta": delta, "finish_reason": finish}},
		}
	}
	send(chunk(map[string]any{"role": "assistant", "content": ""}, nil))
	parts := SplitContent(reply.Content, StreamParts)
	for i, p := range parts {
		if reply.StreamCut && i >= (len(parts)+1)/2 {
			return
		}
		send(chunk(map[string]any{"content": p}, nil))
		if reply.StreamError != "" {
			send(map[string]any{"error": map[string]any{"message": reply.StreamError, "type": "server_error"}})
			return
		}
	}
	if reply.StreamCut {
		return
	}
	if reply.Refusal != "" {
		send(chunk(map[string]any{"refusal": reply.Refusal}, nil))
	}
	finish := reply.FinishReason
	if finish == "" {
		finish = "stop"
	}
	send(chunk(map[string]any{}, finish))
	if req.StreamUsage && !reply.noUsage && !s.noStreamUsage {
		send(map[string]any{"id": "chatcmpl-modeltest", "object": "chat.completion.chunk", "model": model,
			"choices": []any{}, "usage": whole.Usage})
	}
	fmt.Fprint(w, "data: [DONE]\n\n")
}

// SplitContent splits s into at most n pieces of about equal length, cut
// between characters, as the server streams it. Joined, they give s.
func SplitContent(s string, n int) []string {
	runes := []rune(s)
	if len(runes) == 0 {
		return nil
	}
	n = min(n, len(runes))
	out := make([]string, 0, n)
	for i := range n {
		out = append(out, string(runes[i*len(runes)/n:(i+1)*len(runes)/n]))
	}
	return out
}
