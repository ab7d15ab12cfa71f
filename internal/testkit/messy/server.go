package messy

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"sync"

	"github.com/moot-dev/moot/internal/builtin"
	"github.com/moot-dev/moot/internal/driver"
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

// Scripts carries the built-in model's script for each request
// (model.Request.Script, which is never sent) across a fake
// OpenAI-compatible server: Client keeps a request's script under a
// number it puts in the model's name ("messy#12"), and Builtin, the
// server's handler, answers with that script, as the built-in model
// would. Its zero value is ready.
type Scripts struct {
	mu      sync.Mutex
	next    int
	scripts map[int]func([]model.Message) (string, error)
}

// Client returns inner with every request's script kept aside and the
// answer's model named as the request named it.
func (s *Scripts) Client(inner *model.Client) driver.Completer { return scripted{s, inner} }

type scripted struct {
	s     *Scripts
	inner *model.Client
}

func (c scripted) Complete(ctx context.Context, req model.Request) (model.Response, error) {
	name := req.Model
	if req.Script != nil {
		c.s.mu.Lock()
		if c.s.scripts == nil {
			c.s.scripts = map[int]func([]model.Message) (string, error){}
		}
		c.s.next++
		n := c.s.next
		c.s.scripts[n] = req.Script
		c.s.mu.Unlock()
		req.Model = fmt.Sprintf("%s#%d", name, n)
	}
	resp, err := c.inner.Complete(ctx, req)
	resp.Model = name
	return resp, err
}

func (c scripted) Embed(ctx context.Context, req model.EmbedRequest) (model.EmbedResponse, error) {
	return c.inner.Embed(ctx, req)
}

func (c scripted) Mask(text string) string { return c.inner.Mask(text) }

// Builtin answers a request as moot's built-in model does (internal/
// builtin), with the script Client kept for it.
func (s *Scripts) Builtin(req modeltest.Request) modeltest.Reply {
	msgs := make([]model.Message, len(req.Messages))
	for i, m := range req.Messages {
		msgs[i] = model.Message{Role: m.Role, Content: m.Content}
	}
	r := model.Request{Model: req.Model, Messages: msgs}
	if _, num, ok := strings.Cut(req.Model, "#"); ok {
		n, _ := strconv.Atoi(num)
		s.mu.Lock()
		r.Script = s.scripts[n]
		s.mu.Unlock()
	}
	resp, err := builtin.Client{}.Complete(context.Background(), r)
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
