package model

import (
	"context"
	"errors"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// TestUnreachableFailsAtOnce: a host name no server has and a certificate
// that is not trusted fail on the first try, with their cause, as a refused
// connection does; they are not retried as if they might pass.
func TestUnreachableFailsAtOnce(t *testing.T) {
	t.Run("no such host", func(t *testing.T) {
		var dials atomic.Int32
		tr := &http.Transport{DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
			dials.Add(1)
			return nil, &net.OpError{Op: "dial", Net: network, Err: &net.DNSError{Err: "no such host", Name: "llm.example.invalid", IsNotFound: true}}
		}}
		c, err := New(Config{BaseURL: "http://llm.example.invalid/v1", APIKey: testKey, MaxRetries: 4,
			HTTPClient: &http.Client{Transport: tr}})
		if err != nil {
			t.Fatal(err)
		}
		_, err = c.Complete(context.Background(), chat("m"))
		var un *UnreachableError
		if !errors.As(err, &un) || !strings.Contains(err.Error(), "no address is known for the host llm.example.invalid") {
			t.Fatalf("error = %v, want an UnreachableError naming the host", err)
		}
		if n := dials.Load(); n != 1 {
			t.Errorf("%d dials, want 1: a name that is not known is not asked again", n)
		}
	})
	t.Run("untrusted certificate", func(t *testing.T) {
		var conns atomic.Int32
		srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			t.Error("a request went through a refused certificate")
		}))
		srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
			if s == http.StateNew {
				conns.Add(1)
			}
		}
		srv.Config.ErrorLog = log.New(io.Discard, "", 0)
		srv.StartTLS()
		defer srv.Close()
		// The default client: the test server's certificate is signed
		// by no authority the machine trusts.
		c, err := New(Config{BaseURL: srv.URL + "/v1", APIKey: testKey, MaxRetries: 4, Timeout: time.Minute})
		if err != nil {
			t.Fatal(err)
		}
		_, err = c.Complete(context.Background(), chat("m"))
		var un *UnreachableError
		if !errors.As(err, &un) || !strings.Contains(err.Error(), "TLS certificate is refused") {
			t.Fatalf("error = %v, want an UnreachableError naming the certificate", err)
		}
		if strings.Contains(err.Error(), testKey) {
			t.Errorf("the key is in the error: %v", err)
		}
		if n := conns.Load(); n != 1 {
			t.Errorf("%d connections, want 1: a refused certificate is not tried again", n)
		}
	})
	t.Run("https at a server that speaks http", func(t *testing.T) {
		var conns atomic.Int32
		srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			t.Error("a request went through at an https URL to a plain-http server")
		}))
		srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
			if s == http.StateNew {
				conns.Add(1)
			}
		}
		srv.Config.ErrorLog = log.New(io.Discard, "", 0)
		srv.Start()
		defer srv.Close()
		url := "https://" + strings.TrimPrefix(srv.URL, "http://") + "/v1"
		c, err := New(Config{BaseURL: url, APIKey: testKey, MaxRetries: 4, Timeout: time.Minute})
		if err != nil {
			t.Fatal(err)
		}
		_, err = c.Complete(context.Background(), chat("m"))
		var un *UnreachableError
		if !errors.As(err, &un) || !strings.Contains(err.Error(), "did not answer in TLS") {
			t.Fatalf("error = %v, want an UnreachableError saying the server speaks no TLS", err)
		}
		if n := conns.Load(); n != 1 {
			t.Errorf("%d connections, want 1: a server that speaks no TLS is not tried again", n)
		}
	})
}
