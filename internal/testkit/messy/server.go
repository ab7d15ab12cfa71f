package messy

import (
	"context"

	"github.com/moot-dev/moot/internal/builtin"
	"github.com/moot-dev/moot/internal/model"
	"github.com/moot-dev/moot/internal/testkit/modeltest"
)

// Handler answers every request as inner does, its answer written in the
// style its turn in r gives (see Rotation.Apply). inner sees its own
// earlier answers in the conversation as it wrote them, not as styled,
// since a scripted fake reads them back. A reply that is not a plain
// answer (an error, a refusal, a raw body) is passed on as it is.
func Handler(inner modeltest.Handler, r *Rotation) modeltest.Handler {
	return func(req modeltest.Request) modeltest.Reply {
		msgs := make([]modeltest.Message, len(req.Messages))
		for i, m := range req.Messages {
			if a, ok := r.Plain(m.Content); ok && m.Role == "assistant" {
				m.Content = a
			}
			msgs[i] = m
		}
		req.Messages = msgs
		reply := inner(req)
		if reply.Content == "" || reply.Status != 0 || reply.RawBody != "" || reply.Refusal != "" {
			return reply
		}
		reply.Content, _ = r.Apply(reply.Content)
		return reply
	}
}

// Builtin answers a request as moot's built-in model does (internal/
// builtin), from its messages alone.
func Builtin(req modeltest.Request) modeltest.Reply {
	msgs := make([]model.Message, len(req.Messages))
	for i, m := range req.Messages {
		msgs[i] = model.Message{Role: m.Role, Content: m.Content}
	}
	resp, err := builtin.Client{}.Complete(context.Background(), model.Request{Model: req.Model, Messages: msgs})
	if err != nil {
		return modeltest.Failf("messy: the built-in model: %v", err)
	}
	return modeltest.Reply{Content: resp.Text}
}

// BuiltinEmbed gives the built-in model's vector of text, for
// modeltest.Embeddings.
func BuiltinEmbed(_ string, text string) []float64 {
	resp, err := builtin.Client{}.Embed(context.Background(), model.EmbedRequest{Input: []string{text}})
	if err != nil || len(resp.Vectors) != 1 {
		return nil
	}
	return resp.Vectors[0]
}
