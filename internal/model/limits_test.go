package model

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/moot-dev/moot/internal/testkit/modeltest"
)

// completionJSON is a chat completion whose answer is content.
func completionJSON(content string) string {
	return fmt.Sprintf(`{"id":"x","object":"chat.completion","created":1,"model":"m",`+
		`"choices":[{"index":0,"message":{"role":"assistant","content":%q},"finish_reason":"stop"}],`+
		`"usage":{"prompt_tokens":1,"completion_tokens":1,"total_tokens":2}}`, content)
}

// emptyBlocks writes a gzip stream of empty deflate blocks, which
// inflates to nothing, until the client hangs up, counting what it wrote.
// With gzipped set it says so in Content-Encoding.
func emptyBlocks(written *atomic.Int64, gzipped bool) http.HandlerFunc {
	// The stream is a gzip header and then empty stored blocks, made once
	// and written 64 KiB at a time: flushing a gzip writer for each block
	// would make the test spend its time making the stream.
	var head bytes.Buffer
	zw := gzip.NewWriter(&head)
	zw.Flush()
	n := head.Len()
	zw.Flush()
	block := bytes.Clone(head.Bytes()[n:])
	start := head.Bytes()[:n]
	chunk := bytes.Repeat(block, (64<<10)/len(block))
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		if gzipped {
			w.Header().Set("Content-Encoding", "gzip")
		}
		cw := &countingWriter{w: w, n: written}
		cw.Write(start)
		for written.Load() < 1<<30 {
			cw.Write(chunk)
			if cw.err != nil || r.Context().Err() != nil {
				return
			}
			w.(http.Flusher).Flush()
		}
	}
}

type countingWriter struct {
	w   http.ResponseWriter
	n   *atomic.Int64
	err error
}

func (c *countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n.Add(int64(n))
	if err != nil {
		c.err = err
	}
	return n, err
}

// endless writes the start of a completion and then spaces until the
// client hangs up, counting what it wrote.
func endless(written *atomic.Int64) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		chunk := bytes.Repeat([]byte(" "), 64<<10)
		n, _ := w.Write([]byte(`{"id":"x","choices":[{"message":{"content":"`))
		written.Add(int64(n))
		for written.Load() < 1<<30 {
			n, err := w.Write(chunk)
			written.Add(int64(n))
			if err != nil {
				return
			}
		}
	}
}

// TestCompressionIsNotAskedFor checks that the client asks for an
// uncompressed answer and refuses, unread, a compressed one sent anyway,
// even an endless one that inflates to nothing.
func TestCompressionIsNotAskedFor(t *testing.T) {
	var bomb bytes.Buffer
	zw := gzip.NewWriter(&bomb)
	zw.Write([]byte(completionJSON(strings.Repeat(" ", 2*MaxResponseSize))))
	zw.Close()
	var small bytes.Buffer
	zw = gzip.NewWriter(&small)
	zw.Write([]byte(completionJSON("hello")))
	zw.Close()
	tests := []struct {
		name    string
		handler func(*atomic.Int64) http.HandlerFunc
	}{
		{"endless gzip stream of empty blocks", func(written *atomic.Int64) http.HandlerFunc { return emptyBlocks(written, true) }},
		{"small gzip body that inflates past the limit", func(*atomic.Int64) http.HandlerFunc {
			return func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "application/json")
				w.Header().Set("Content-Encoding", "gzip")
				w.Write(bomb.Bytes())
			}
		}},
		{"valid gzip answer", func(*atomic.Int64) http.HandlerFunc {
			return func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "application/json")
				w.Header().Set("Content-Encoding", "gzip")
				w.Write(small.Bytes())
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var written atomic.Int64
			var requests atomic.Int32
			h := tt.handler(&written)
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				requests.Add(1)
				if got := r.Header.Get("Accept-Encoding"); got != "identity" {
					t.Errorf("Accept-Encoding = %q, want identity", got)
				}
				h(w, r)
			}))
			defer srv.Close()
			// A timeout far beyond the test's: only the refusal can end it.
			c, err := New(Config{BaseURL: srv.URL + "/v1", APIKey: testKey, MaxRetries: 2, Timeout: 10 * time.Minute})
			if err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			_, err = c.Complete(ctx, chat("m"))
			var enc *EncodingError
			if !errors.As(err, &enc) || enc.Encoding != "gzip" || !strings.Contains(err.Error(), `Content-Encoding "gzip"`) {
				t.Fatalf("error = %v, want an *EncodingError naming gzip", err)
			}
			if n := requests.Load(); n != 1 {
				t.Errorf("server got %d requests; a compressed answer is not asked for again", n)
			}
		})
	}
}

func TestResponseSizeIsCapped(t *testing.T) {
	big := completionJSON(strings.Repeat("a", MaxResponseSize))
	tests := []struct {
		name    string
		handler func(*atomic.Int64) http.HandlerFunc
	}{
		{"endless body", endless},
		{"body with a Content-Length over the limit", func(*atomic.Int64) http.HandlerFunc {
			return func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "application/json")
				w.Header().Set("Content-Length", fmt.Sprint(len(big)))
				w.Write([]byte(big))
			}
		}},
		{"endless stream of empty deflate blocks", func(written *atomic.Int64) http.HandlerFunc {
			// Sent as plain bytes, the stream is stopped by the cap on
			// the bytes read, not by the timeout.
			return emptyBlocks(written, false)
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var written atomic.Int64
			var requests atomic.Int32
			h := tt.handler(&written)
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				requests.Add(1)
				h(w, r)
			}))
			defer srv.Close()
			c, err := New(Config{BaseURL: srv.URL + "/v1", APIKey: testKey, MaxRetries: 2})
			if err != nil {
				t.Fatal(err)
			}
			_, err = c.Complete(context.Background(), chat("m"))
			var tooLarge *TooLargeError
			if !errors.As(err, &tooLarge) || !strings.Contains(err.Error(), "4 MiB") {
				t.Fatalf("error = %v, want a *TooLargeError naming the 4 MiB limit", err)
			}
			if n := requests.Load(); n != 1 {
				t.Errorf("server got %d requests; an answer too large is not asked for again", n)
			}
			if w := written.Load(); w > 64<<20 {
				t.Errorf("the server wrote %d bytes before the client stopped reading", w)
			}
		})
	}
}

func TestKeyIsMaskedBeforeTheCut(t *testing.T) {
	// The key starts 290 characters into the body, across the 300-character
	// cut of a plain-text error.
	for _, at := range []int{280, 290, 299} {
		t.Run(fmt.Sprint(at), func(t *testing.T) {
			body := strings.Repeat("x", at) + " " + testKey + " tail"
			s := modeltest.NewServer(t, modeltest.Script(modeltest.Reply{Status: 400, RawBody: body, ContentType: "text/plain"}))
			c := newClient(t, s, Config{})
			_, err := c.Complete(context.Background(), chat("m"))
			if err == nil {
				t.Fatal("want an error")
			}
			for i := 6; i <= len(testKey); i++ {
				if strings.Contains(err.Error(), testKey[:i]) {
					t.Fatalf("the error shows %d characters of the key: %v", i, err)
				}
			}
		})
	}
}

func TestConnectionRefusedFailsFast(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	c, err := New(Config{BaseURL: "http://" + addr + "/v1", APIKey: testKey, MaxRetries: DefaultMaxRetries})
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	resp, err := c.Complete(context.Background(), chat("m"))
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("gave up after %s, want at once", d)
	}
	var unreachable *UnreachableError
	if !errors.As(err, &unreachable) {
		t.Fatalf("error = %v, want an *UnreachableError", err)
	}
	for _, want := range []string{"is the server running?", "OPENAI_BASE_URL", addr} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not say %q", err, want)
		}
	}
	if resp.Attempts > 2 {
		t.Errorf("%d attempts, want at most one retry", resp.Attempts)
	}
}

func TestRetriesAreAnnouncedAndCounted(t *testing.T) {
	s := modeltest.NewServer(t, modeltest.Script(
		modeltest.Reply{Status: 429, ErrorMessage: "slow down", RetryAfter: "0"},
		modeltest.Reply{Status: 503, ErrorMessage: "overloaded", RetryAfter: "0"},
		modeltest.Reply{Content: "ok", Delay: 30 * time.Millisecond},
	))
	c := newClient(t, s, Config{MaxRetries: 4})
	var retries []Retry
	req := chat("m")
	req.OnRetry = func(r Retry) { retries = append(retries, r) }
	resp, err := c.Complete(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	if len(retries) != 2 || retries[0].Attempt != 1 || retries[0].Of != 5 || !strings.Contains(retries[0].Reason, "429") ||
		retries[1].Attempt != 2 || !strings.Contains(retries[1].Reason, "503") {
		t.Errorf("retries = %+v, want one for the 429 and one for the 503", retries)
	}
	if resp.Attempts != 3 || resp.Latency < 30*time.Millisecond {
		t.Errorf("attempts %d, latency %s; want 3 and the whole wait", resp.Attempts, resp.Latency)
	}
}

func TestFailedCallStillReportsItsTime(t *testing.T) {
	s := modeltest.NewServer(t, modeltest.Script(
		modeltest.Reply{Status: 503, RetryAfter: "0", Delay: 20 * time.Millisecond},
		modeltest.Reply{Status: 503, RetryAfter: "0", Delay: 20 * time.Millisecond},
	))
	c := newClient(t, s, Config{MaxRetries: 1})
	resp, err := c.Complete(context.Background(), chat("m"))
	if err == nil {
		t.Fatal("want an error")
	}
	if resp.Attempts != 2 || resp.Latency < 40*time.Millisecond {
		t.Errorf("attempts %d, latency %s; want 2 and at least 40ms", resp.Attempts, resp.Latency)
	}
}
