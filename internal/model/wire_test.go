package model

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/moot-dev/moot/internal/testkit/modeltest"
)

// TestErrorBodies checks that the fields of an error body are read
// whether a server writes them as OpenAI does, as numbers, or not in
// OpenAI's shape at all, in which case the body itself is shown.
func TestErrorBodies(t *testing.T) {
	tests := []struct {
		name      string
		body      string
		wantMsg   string
		wantCode  string
		wantParam string
	}{
		{"OpenAI's shape", `{"error":{"message":"bad value","type":"invalid_request_error","code":"bad","param":"temperature"}}`,
			"bad value", "bad", "temperature"},
		{"numeric code and null param", `{"error":{"message":"bad value","code":400,"param":null}}`, "bad value", "400", ""},
		{"error as a string", `{"error":"model 'x' not found"}`, `{"error":"model 'x' not found"}`, "", ""},
		{"no error key", `{"object":"error","message":"bad value","code":400}`, `{"object":"error","message":"bad value","code":400}`, "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := modeltest.NewServer(t, modeltest.Script(modeltest.Reply{Status: 400, RawBody: tt.body}))
			c := newClient(t, s, Config{})
			_, err := c.Complete(context.Background(), chat("m"))
			var apiErr *APIError
			if !errors.As(err, &apiErr) {
				t.Fatalf("error = %v, want an *APIError", err)
			}
			if apiErr.Message != tt.wantMsg || apiErr.Code != tt.wantCode || apiErr.Param != tt.wantParam {
				t.Errorf("message %q code %q param %q, want %q %q %q",
					apiErr.Message, apiErr.Code, apiErr.Param, tt.wantMsg, tt.wantCode, tt.wantParam)
			}
		})
	}
}

// TestRequestHeadersAndPath checks the path and headers of a request.
func TestRequestHeadersAndPath(t *testing.T) {
	s := modeltest.NewServer(t, modeltest.Script(modeltest.Reply{Content: "ok"}))
	c := newClient(t, s, Config{BaseURL: s.URL + "/"})
	if _, err := c.Complete(context.Background(), chat("m")); err != nil {
		t.Fatal(err)
	}
	r := s.Requests()[0]
	if r.Method != "POST" || r.Path != "/v1/chat/completions" {
		t.Errorf("request %s %s, want POST /v1/chat/completions", r.Method, r.Path)
	}
	if ct := r.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
		t.Errorf("Content-Type = %q, want application/json", ct)
	}
	if ua := r.Header.Get("User-Agent"); ua != "moot" {
		t.Errorf("User-Agent = %q, want moot", ua)
	}
	for name := range r.Header {
		if strings.HasPrefix(strings.ToLower(name), "x-stainless") {
			t.Errorf("header %s: %q sent, want none of the SDK's telemetry", name, r.Header.Get(name))
		}
	}
}
