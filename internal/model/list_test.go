package model

import (
	"context"
	"errors"
	"net"
	"strings"
	"testing"

	"github.com/moot-dev/moot/internal/testkit/modeltest"
)

func TestListModels(t *testing.T) {
	ok := func(modeltest.Request) modeltest.Reply { return modeltest.Reply{Content: "{}"} }
	t.Run("listed, sorted, with the key", func(t *testing.T) {
		s := modeltest.NewServer(t, ok, modeltest.ListModels("zeta", "alpha", " "), modeltest.RequireAPIKey(testKey))
		ids, err := newClient(t, s, Config{}).ListModels(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if strings.Join(ids, ",") != "alpha,zeta" {
			t.Errorf("ids = %q, want alpha and zeta", ids)
		}
		reqs := s.Requests()
		if len(reqs) != 1 || reqs[0].Method != "GET" || reqs[0].Path != "/v1/models" || reqs[0].Header.Get("Authorization") != "Bearer "+testKey {
			t.Errorf("requests = %+v, want one GET /v1/models with the key", reqs)
		}
	})
	t.Run("not listed: 404", func(t *testing.T) {
		s := modeltest.NewServer(t, ok)
		_, err := newClient(t, s, Config{}).ListModels(context.Background())
		var api *APIError
		if !errors.As(err, &api) || api.Status != 404 {
			t.Errorf("err = %v, want an APIError 404", err)
		}
	})
	t.Run("wrong key: 401, the key not shown", func(t *testing.T) {
		s := modeltest.NewServer(t, ok, modeltest.ListModels("a"), modeltest.RequireAPIKey("another-key-of-some-length"))
		_, err := newClient(t, s, Config{}).ListModels(context.Background())
		var api *APIError
		if !errors.As(err, &api) || api.Status != 401 || strings.Contains(err.Error(), testKey) {
			t.Errorf("err = %v, want an APIError 401 without the key", err)
		}
	})
	t.Run("nothing listens", func(t *testing.T) {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		addr := ln.Addr().String()
		ln.Close()
		c, err := New(Config{BaseURL: "http://" + addr + "/v1", APIKey: testKey})
		if err != nil {
			t.Fatal(err)
		}
		_, err = c.ListModels(context.Background())
		var un *UnreachableError
		if !errors.As(err, &un) {
			t.Errorf("err = %v, want an UnreachableError", err)
		}
	})
}

// TestResponseSaysWhatWasReported checks that a response says whether the
// server reported the usage and the cached tokens, and streamed.
func TestResponseSaysWhatWasReported(t *testing.T) {
	tests := []struct {
		name                   string
		reply                  modeltest.Reply
		opts                   []modeltest.Option
		stream                 bool
		usage, cached, streamd bool
	}{
		{"usage, no cache field", modeltest.Reply{Content: "{}"}, nil, false, true, false, false},
		{"usage and cached tokens", modeltest.Reply{Content: "{}", CachedTokens: 3}, nil, false, true, true, false},
		{"no usage", modeltest.Reply{Content: "{}"}, []modeltest.Option{modeltest.NoUsage()}, false, false, false, false},
		{"a stream with its usage", modeltest.Reply{Content: "{}", CachedTokens: 2}, nil, true, true, true, true},
		{"a stream without usage", modeltest.Reply{Content: "{}"}, []modeltest.Option{modeltest.NoUsage()}, true, false, false, true},
		{"a server that answers a stream whole", modeltest.Reply{Content: "{}"}, []modeltest.Option{modeltest.IgnoreStream()}, true, true, false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := modeltest.NewServer(t, func(modeltest.Request) modeltest.Reply { return tt.reply }, tt.opts...)
			req := chat("m")
			if tt.stream {
				req.OnChunk = func(string) {}
			}
			resp, err := newClient(t, s, Config{}).Complete(context.Background(), req)
			if err != nil {
				t.Fatal(err)
			}
			if resp.UsageReported != tt.usage || resp.CachedReported != tt.cached || resp.Streamed != tt.streamd {
				t.Errorf("usage %v, cached %v, streamed %v; want %v, %v, %v", resp.UsageReported, resp.CachedReported, resp.Streamed, tt.usage, tt.cached, tt.streamd)
			}
		})
	}
}
