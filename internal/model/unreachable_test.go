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
	// Each server counts the connections made to it and fails the test
	// if a request goes through.
	for _, tc := range []struct {
		name string
		tls  bool   // the server speaks TLS; moot is always given https
		want string // what the error says of its cause
	}{
		// The default client: the test server's certificate is signed
		// by no authority the machine trusts.
		{"untrusted certificate", true, "TLS certificate is refused"},
		{"https at a server that speaks http", false, "did not answer in TLS"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var conns atomic.Int32
			srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				t.Error("a request went through")
			}))
			srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
				if s == http.StateNew {
					conns.Add(1)
				}
			}
			srv.Config.ErrorLog = log.New(io.Discard, "", 0)
			if tc.tls {
				srv.StartTLS()
			} else {
				srv.Start()
			}
			defer srv.Close()
			_, hostPort, _ := strings.Cut(srv.URL, "://")
			c, err := New(Config{BaseURL: "https://" + hostPort + "/v1", APIKey: testKey, MaxRetries: 4, Timeout: time.Minute})
			if err != nil {
				t.Fatal(err)
			}
			_, err = c.Complete(context.Background(), chat("m"))
			var un *UnreachableError
			if !errors.As(err, &un) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error = %v, want an UnreachableError saying %q", err, tc.want)
			}
			if strings.Contains(err.Error(), testKey) {
				t.Errorf("the key is in the error: %v", err)
			}
			if n := conns.Load(); n != 1 {
				t.Errorf("%d connections, want 1: the cause cannot pass on a second try", n)
			}
		})
	}
}
