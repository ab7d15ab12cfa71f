package model

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/http"
	"os"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/moot-dev/moot/internal/testkit/modeltest"
)

// These tests talk to the fake server over real connections, which a
// synctest bubble cannot hold, so they run on the real clock with the
// budget's window shortened from a minute to a fraction of a second: the
// limits are then per that window, and the same property is checked on
// the instants the server received the requests.

// arrivals records when the fake server received each request, by the
// server's clock.
type arrivals struct {
	mu    sync.Mutex
	times []time.Time
	model []string
}

func (a *arrivals) before(ctx context.Context, req modeltest.Request) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.times = append(a.times, time.Now())
	a.model = append(a.model, req.Model)
}

func (a *arrivals) all() []time.Time {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]time.Time(nil), a.times...)
}

// of returns when the requests for model arrived.
func (a *arrivals) of(model string) []time.Time {
	a.mu.Lock()
	defer a.mu.Unlock()
	var out []time.Time
	for i, m := range a.model {
		if m == model {
			out = append(out, a.times[i])
		}
	}
	return out
}

func budgetClient(t testing.TB, url string, b *Budget, retries int) *Client {
	t.Helper()
	c, err := New(Config{BaseURL: url, MaxRetries: retries, Budget: b})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// runShared sends n requests from workers goroutines, each with a Client
// of its own sharing b, to a fake server answering after up to delay,
// and returns when the server received each one.
func runShared(t testing.TB, b *Budget, workers, n int, delay time.Duration) []time.Time {
	var arr arrivals
	srv := modeltest.NewServer(t, func(req modeltest.Request) modeltest.Reply {
		return modeltest.Reply{Content: "ok", Delay: time.Duration(rand.Int64N(int64(delay) + 1))}
	}, modeltest.Before(arr.before))
	jobs := make(chan int, n)
	for i := range n {
		jobs <- i
	}
	close(jobs)
	var failed atomic.Int64
	var wg sync.WaitGroup
	for range workers {
		c := budgetClient(t, srv.URL, b, 0)
		wg.Go(func() {
			for i := range jobs {
				_, err := c.Complete(context.Background(), Request{Model: "m",
					Messages: []Message{{Role: "user", Content: fmt.Sprintf("request %d", i)}}})
				if err != nil {
					failed.Add(1)
					t.Error(err)
				}
			}
		})
	}
	wg.Wait()
	if failed.Load() > 0 {
		t.FailNow()
	}
	return arr.all()
}

func TestBudgetSharedByClientsAgainstFakeServer(t *testing.T) {
	const rpm, window = 8, 400 * time.Millisecond
	b := NewBudget(rpm, 0)
	b.window = window
	start := time.Now()
	times := runShared(t, b, 16, 40, 30*time.Millisecond)
	elapsed := time.Since(start)
	if len(times) != 40 {
		t.Fatalf("the server received %d requests, want 40", len(times))
	}
	if most := maxInWindow(times, window); most != rpm {
		t.Errorf("a window of %s saw %d requests at most, want the limit, %d", window, most, rpm)
	}
	// Forty requests, eight a window: the last eight wait for four
	// windows at least.
	if elapsed < 4*window {
		t.Errorf("40 requests took %s, less than 4 windows of %s", elapsed, window)
	}
	if s := b.Stats(); s.Waited == 0 {
		t.Errorf("stats = %+v, want some time waited", s)
	}
}

func TestBudget429PausesEveryClient(t *testing.T) {
	const retryAfter = 500 * time.Millisecond
	tests := []struct {
		name   string
		shared bool
	}{
		{"shared budget", true},
		{"budgets of their own", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var arr arrivals
			var limited atomic.Bool
			srv := modeltest.NewServer(t, func(req modeltest.Request) modeltest.Reply {
				if req.Model == "a" && limited.CompareAndSwap(false, true) {
					return modeltest.Reply{Status: http.StatusTooManyRequests, RetryAfter: "0.5"}
				}
				return modeltest.Reply{Content: "ok"}
			}, modeltest.Before(arr.before))
			shared := NewBudget(0, 0)
			a := budgetClient(t, srv.URL, shared, 1)
			bBudget := NewBudget(0, 0)
			if tt.shared {
				bBudget = shared
			}
			b := budgetClient(t, srv.URL, bBudget, 1)

			var limitedAt time.Time
			retried := make(chan struct{})
			var wg sync.WaitGroup
			wg.Go(func() {
				_, err := a.Complete(context.Background(), Request{Model: "a",
					Messages: []Message{{Role: "user", Content: "hi"}},
					OnRetry: func(r Retry) {
						limitedAt = time.Now()
						close(retried)
					}})
				if err != nil {
					t.Error(err)
				}
			})
			<-retried
			if _, err := b.Complete(context.Background(), Request{Model: "b",
				Messages: []Message{{Role: "user", Content: "hi"}}}); err != nil {
				t.Fatal(err)
			}
			wg.Wait()

			bAt := arr.of("b")
			if len(bAt) != 1 {
				t.Fatalf("b sent %d requests, want 1", len(bAt))
			}
			waited := bAt[0].Sub(limitedAt)
			// The pause begins a moment before OnRetry is called.
			if paused := waited > retryAfter-20*time.Millisecond; paused != tt.shared {
				t.Errorf("b's request reached the server %s after a's 429 asked for %s: paused %v, want %v",
					waited, retryAfter, paused, tt.shared)
			}
			if aAt := arr.of("a"); len(aAt) != 2 || aAt[1].Sub(aAt[0]) < retryAfter {
				t.Errorf("a's requests arrived at %v, want a retry %s after the 429", aAt, retryAfter)
			}
		})
	}
}

func TestBudgetCountsEmbeddings(t *testing.T) {
	const window = 300 * time.Millisecond
	var arr arrivals
	srv := modeltest.NewServer(t, func(req modeltest.Request) modeltest.Reply {
		return modeltest.Failf("no chat request expected")
	}, modeltest.Before(arr.before), modeltest.Embeddings(func(model, text string) []float64 { return []float64{1, 0} }))
	b := NewBudget(1, 0)
	b.window = window
	c := budgetClient(t, srv.URL, b, 0)
	var answered time.Time
	for range 2 {
		if _, err := c.Embed(context.Background(), EmbedRequest{Model: "e", Input: []string{"one", "two"}}); err != nil {
			t.Fatal(err)
		}
		if answered.IsZero() {
			answered = time.Now()
			if s := b.Stats(); s.Requests != 1 || s.Tokens != 2 {
				t.Errorf("stats after one embedding = %+v, want 1 request and the 2 tokens reported", s)
			}
		}
	}
	times := arr.all()
	if len(times) != 2 || times[1].Sub(answered) < window {
		t.Errorf("the embeddings arrived at %v, want the second a window of %s after the first's answer at %v", times, window, answered)
	}
}

func TestBudgetWaitStopsWithContext(t *testing.T) {
	var arr arrivals
	srv := modeltest.NewServer(t, func(req modeltest.Request) modeltest.Reply {
		return modeltest.Reply{Content: "ok"}
	}, modeltest.Before(arr.before))
	b := NewBudget(1, 0)
	c := budgetClient(t, srv.URL, b, 2)
	req := Request{Model: "m", Messages: []Message{{Role: "user", Content: "hi"}}}
	if _, err := c.Complete(context.Background(), req); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	start := time.Now()
	resp, err := c.Complete(ctx, req)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Complete while the budget is spent = %v, want the context's deadline", err)
	}
	// The budget frees its request a minute after the first: half of that
	// tells a return at the context's end from one at the budget's,
	// however loaded the machine.
	if took := time.Since(start); took > 30*time.Second {
		t.Errorf("Complete returned %s after its context ended", took-100*time.Millisecond)
	}
	if resp.Attempts != 0 || len(arr.all()) != 1 {
		t.Errorf("%d attempts and %d requests received, want the first request only", resp.Attempts, len(arr.all()))
	}
	if s := b.Stats(); s.Waiting != 0 || s.Requests != 1 {
		t.Errorf("stats = %+v, want 1 request and none waiting", s)
	}
}

func TestBudgetSettlesWithReportedUsage(t *testing.T) {
	b := NewBudget(100, 100000)
	var mu sync.Mutex
	var during BudgetStats
	srv := modeltest.NewServer(t, modeltest.Script(
		modeltest.Reply{Status: http.StatusTooManyRequests, RetryAfter: "0"},
		modeltest.Reply{Content: "ok", PromptTokens: 7, CompletionTokens: 5},
	), modeltest.Before(func(ctx context.Context, req modeltest.Request) {
		mu.Lock()
		defer mu.Unlock()
		during = b.Stats()
	}))
	c := budgetClient(t, srv.URL, b, 1)
	req := Request{Model: "m", Messages: []Message{{Role: "user", Content: "hi"}}, MaxTokens: 1000}
	if _, err := c.Complete(context.Background(), req); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	// Under way, the estimate: the body's size over four and max tokens.
	if during.Requests != 2 || during.Tokens <= 1000 || during.Tokens > 1100 {
		t.Errorf("stats while the retry was under way = %+v, want 2 requests and about 1000 tokens", during)
	}
	// After: the 429 counts as a request but costs nothing, and the
	// answer costs what the server reported.
	if s := b.Stats(); s.Requests != 2 || s.Tokens != 12 {
		t.Errorf("stats after = %+v, want 2 requests and 12 tokens", s)
	}
}

// TestBudgetRPM120 is issue 15's benchmark at full scale: 300 requests
// from 16 clients sharing a budget of 120 requests a minute, against the
// fake server answering in 500 ms, on the real clock with the real
// window. It takes two minutes, so it runs only when MOOT_BENCH_RPM is
// set (to the number of requests, or 1 for 300):
//
//	MOOT_BENCH_RPM=1 go test -run TestBudgetRPM120 -v ./internal/model/
func TestBudgetRPM120(t *testing.T) {
	n, _ := strconv.Atoi(os.Getenv("MOOT_BENCH_RPM"))
	if n <= 0 {
		t.Skip("a benchmark of two minutes: set MOOT_BENCH_RPM=1 to run it")
	}
	if n == 1 {
		n = 300
	}
	const rpm = 120
	b := NewBudget(rpm, 0)
	start := time.Now()
	times := runShared(t, b, 16, n, 500*time.Millisecond)
	elapsed := time.Since(start)
	most := maxInWindow(times, time.Minute)
	if most > rpm {
		t.Errorf("a minute saw %d requests, over the limit of %d", most, rpm)
	}
	// At best the budget lets a minute's worth through at once, then
	// waits a minute: the last request cannot go before that.
	slices.SortFunc(times, func(a, b time.Time) int { return a.Compare(b) })
	span := times[len(times)-1].Sub(times[0])
	ideal := time.Duration((len(times)-1)/rpm) * time.Minute
	t.Logf("%d requests in %s; at most %d in any 60 s window (limit %d); last sent %s after the first, %.1f%% over the least the limit allows (%s); %s waited in all",
		len(times), elapsed.Round(time.Millisecond), most, rpm, span.Round(time.Millisecond),
		100*(span.Seconds()/ideal.Seconds()-1), ideal, b.Stats().Waited.Round(time.Second))
}
