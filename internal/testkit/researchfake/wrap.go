package researchfake

import (
	"context"
	"sync"

	"github.com/moot-dev/moot/internal/driver"
	"github.com/moot-dev/moot/internal/model"
	"github.com/moot-dev/moot/internal/research"
)

// Completer is a model client, as the driver takes one.
type Completer interface {
	Complete(ctx context.Context, req model.Request) (model.Response, error)
}

// Researching wraps the fake model of a protocol's tests: a request that
// offers tools is answered with a search, then a read of /a and one of
// /b of Web; then the wrapped fake answers the conversation without the
// tool rounds, as it would without research, and a paragraph is added
// to its text that quotes /a (found there) and what /b does not hold.
type Researching struct {
	Inner Completer
	Web   *Web
	mu    sync.Mutex
	asked []model.Request
}

// Paragraph is what Researching adds to a researched answer.
func (r *Researching) Paragraph() string {
	return "As " + r.Web.URL + "/a puts it, \"" + QuotedA + "\". And " + r.Web.URL + "/b says \"" + NotInPageB + "\"."
}

// Complete answers req.
func (r *Researching) Complete(ctx context.Context, req model.Request) (model.Response, error) {
	r.mu.Lock()
	r.asked = append(r.asked, req)
	r.mu.Unlock()
	if len(req.Tools) == 0 {
		return r.Inner.Complete(ctx, req)
	}
	n := 0
	var plain []model.Message
	for _, m := range req.Messages {
		switch {
		case m.Role == "tool":
			n++
		case len(m.ToolCalls) > 0:
		default:
			plain = append(plain, m)
		}
	}
	calls := []model.ToolCall{
		{ID: "s", Name: "search", Arguments: `{"query":"boiling"}`},
		{ID: "a", Name: "read", Arguments: `{"url":"` + r.Web.URL + `/a"}`},
		{ID: "b", Name: "read", Arguments: `{"url":"` + r.Web.URL + `/b"}`},
	}
	if n < len(calls) {
		return model.Response{ToolCalls: calls[n : n+1], Model: req.Model, PromptTokens: 1}, nil
	}
	inner := req
	inner.Tools, inner.Messages = nil, plain
	resp, err := r.Inner.Complete(ctx, inner)
	if err == nil {
		resp.Text += "\n\n" + r.Paragraph()
	}
	return resp, err
}

// Asked returns every request so far, tool rounds included.
func (r *Researching) Asked() []model.Request {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]model.Request(nil), r.asked...)
}

// On returns opts researching on w: research turned on with the default
// limits, the SearXNG of w as provider, and reads of loopback allowed.
func On(opts driver.Options, w *Web) driver.Options {
	opts.Overrides.Research = &research.Limits{}
	opts.Research = func() (*driver.ResearchTools, error) {
		p, err := research.NewProvider("searxng:"+w.URL, nil, nil)
		if err != nil {
			return nil, err
		}
		return &driver.ResearchTools{Provider: p, Reader: &research.Reader{AllowPrivate: true}}, nil
	}
	return opts
}
