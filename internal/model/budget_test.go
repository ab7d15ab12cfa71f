package model

import (
	"context"
	"errors"
	"maps"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"
	"testing/synctest"
	"time"
)

// The tests of the Budget alone run in a synctest bubble, whose clock is
// fake: time stands still while a goroutine works and jumps to the next
// timer when every goroutine waits, so that minutes of waiting take no
// time and every instant is exact. The tests against the fake server, which
// a bubble cannot hold, shorten the window instead (see budget_server_test.go).

// maxInWindow returns the most of times that fall in any half-open
// interval of length w.
func maxInWindow(times []time.Time, w time.Duration) int {
	ts := slices.Clone(times)
	slices.SortFunc(ts, func(a, b time.Time) int { return a.Compare(b) })
	most, j := 0, 0
	for i := range ts {
		for j < len(ts) && ts[j].Before(ts[i].Add(w)) {
			j++
		}
		most = max(most, j-i)
	}
	return most
}

// maxTokensInWindow is maxInWindow weighed by tokens.
func maxTokensInWindow(times []time.Time, tokens []int, w time.Duration) int {
	idx := make([]int, len(times))
	for i := range idx {
		idx[i] = i
	}
	slices.SortFunc(idx, func(a, b int) int { return times[a].Compare(times[b]) })
	most, sum, j := 0, 0, 0
	for i := range idx {
		for j < len(idx) && times[idx[j]].Before(times[idx[i]].Add(w)) {
			sum += tokens[idx[j]]
			j++
		}
		most = max(most, sum)
		sum -= tokens[idx[i]]
	}
	return most
}

func TestMaxInWindow(t *testing.T) {
	t0 := time.Unix(0, 0)
	at := func(secs ...float64) []time.Time {
		var ts []time.Time
		for _, s := range secs {
			ts = append(ts, t0.Add(time.Duration(s*float64(time.Second))))
		}
		return ts
	}
	tests := []struct {
		name  string
		times []time.Time
		want  int
	}{
		{"none", nil, 0},
		{"one", at(5), 1},
		{"a minute apart", at(0, 60, 120), 1},
		{"just under a minute apart", at(0, 59.999, 120), 2},
		{"unsorted", at(100, 0, 30, 50, 10), 4},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := maxInWindow(tt.times, time.Minute); got != tt.want {
				t.Errorf("maxInWindow = %d, want %d", got, tt.want)
			}
		})
	}
	if got := maxTokensInWindow(at(0, 30, 61), []int{5, 7, 11}, time.Minute); got != 18 {
		t.Errorf("maxTokensInWindow = %d, want 18", got)
	}
}

// goTake takes from b in a goroutine and returns a function that reports
// when the take returned (the zero time while it has not) and its error.
func goTake(ctx context.Context, b *Budget, tokens int) func() (time.Time, *ticket, error) {
	var mu sync.Mutex
	var at time.Time
	var tk *ticket
	var err error
	go func() {
		k, e := b.take(ctx, tokens)
		mu.Lock()
		defer mu.Unlock()
		at, tk, err = time.Now(), k, e
	}()
	return func() (time.Time, *ticket, error) {
		synctest.Wait()
		mu.Lock()
		defer mu.Unlock()
		return at, tk, err
	}
}

func mustTake(t *testing.T, b *Budget, tokens int) *ticket {
	t.Helper()
	start := time.Now()
	tk, err := b.take(context.Background(), tokens)
	if err != nil {
		t.Fatal(err)
	}
	if waited := time.Since(start); waited != 0 {
		t.Fatalf("take(%d) waited %s, want none", tokens, waited)
	}
	return tk
}

func TestBudgetRequestWaitsForTheOldestToLeave(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := NewBudget(3, 0)
		start := time.Now()
		var tks []*ticket
		for range 3 {
			tks = append(tks, mustTake(t, b, 1))
		}
		fourth := goTake(context.Background(), b, 1)
		time.Sleep(time.Second)
		tks[0].settle(1) // leaves the window at 61 s
		time.Sleep(2 * time.Second)
		tks[1].settle(1) // at 63 s
		tks[2].settle(1)
		time.Sleep(58*time.Second - 1)
		if at, _, _ := fourth(); !at.IsZero() {
			t.Fatalf("the fourth request went at %s, before the first left the window", at.Sub(start))
		}
		time.Sleep(time.Nanosecond) // the fake clock moves; the real one need only tick
		at, tk, err := fourth()
		if err != nil || at.Sub(start) != 61*time.Second {
			t.Fatalf("the fourth request went at %s (error %v), want 1m1s", at.Sub(start), err)
		}
		tk.settle(1)
		// The window now holds the second, third and fourth: a fifth
		// waits for the second, at 63 s.
		fifth := goTake(context.Background(), b, 1)
		time.Sleep(2 * time.Second)
		if at, _, err := fifth(); err != nil || at.Sub(start) != 63*time.Second {
			t.Fatalf("the fifth request went at %s (error %v), want 1m3s", at.Sub(start), err)
		}
	})
}

func TestBudgetInFlightRequestsNeverLeave(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := NewBudget(1, 0)
		start := time.Now()
		first := mustTake(t, b, 1)
		second := goTake(context.Background(), b, 1)
		// An answer that takes five minutes keeps its place all along,
		// and for a minute after it came.
		time.Sleep(5 * time.Minute)
		if at, _, _ := second(); !at.IsZero() {
			t.Fatalf("the second request went at %s, while the first was under way", at.Sub(start))
		}
		first.settle(1)
		time.Sleep(time.Minute)
		if at, _, _ := second(); at.Sub(start) != 6*time.Minute {
			t.Fatalf("the second request went at %s, want 6m0s", at.Sub(start))
		}
	})
}

func TestBudgetTokens(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := NewBudget(0, 100)
		start := time.Now()
		first := mustTake(t, b, 60)
		second := goTake(context.Background(), b, 50)
		time.Sleep(10 * time.Second)
		if at, _, _ := second(); !at.IsZero() {
			t.Fatalf("50 tokens went with 60 estimated under way and a budget of 100")
		}
		// The answer cost less than estimated: the rest fits at once.
		first.settle(10)
		at, tk, _ := second()
		if at.Sub(start) != 10*time.Second {
			t.Fatalf("the second request went at %s, want 10s, when the first settled", at.Sub(start))
		}
		if s := b.Stats(); s.Tokens != 60 || s.Requests != 2 {
			t.Errorf("stats = %+v, want 2 requests and 60 tokens", s)
		}
		tk.settle(80) // more than estimated: 90 in the window
		third := goTake(context.Background(), b, 20)
		// 10 leave at 70 s, which leaves 80 + 20.
		time.Sleep(time.Minute)
		if at, _, _ := third(); at.Sub(start) != 70*time.Second {
			t.Fatalf("the third request went at %s, want 1m10s", at.Sub(start))
		}
	})
}

func TestBudgetTooLargeGoesAlone(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := NewBudget(0, 100)
		start := time.Now()
		mustTake(t, b, 30).settle(30)
		big := goTake(context.Background(), b, 500)
		time.Sleep(time.Minute)
		at, tk, _ := big()
		if at.Sub(start) != time.Minute {
			t.Fatalf("the request larger than the budget went at %s, want 1m0s, when the window was empty", at.Sub(start))
		}
		small := goTake(context.Background(), b, 1)
		time.Sleep(time.Second)
		tk.settle(500)
		time.Sleep(time.Minute)
		if at, _, _ := small(); at.Sub(start) != 2*time.Minute+time.Second {
			t.Fatalf("the next request went at %s, want 2m1s, once the large one left", at.Sub(start))
		}
	})
}

func TestBudgetPauseStopsEveryone(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := NewBudget(0, 0)
		start := time.Now()
		mustTake(t, b, 1).settle(0) // the one that got the 429
		b.pause(5 * time.Second)
		b.pause(time.Second) // a shorter pause does not cut the longer one
		var takes []func() (time.Time, *ticket, error)
		for range 3 {
			takes = append(takes, goTake(context.Background(), b, 1))
		}
		time.Sleep(2 * time.Second)
		if s := b.Stats(); s.Waiting != 3 || s.Paused != 3*time.Second || s.Waited != 6*time.Second {
			t.Errorf("stats during the pause = %+v, want 3 waiting for 2 s each and 3 s of pause left", s)
		}
		time.Sleep(3 * time.Second)
		for i, take := range takes {
			if at, _, _ := take(); at.Sub(start) != 5*time.Second {
				t.Errorf("request %d went at %s, want 5s", i+1, at.Sub(start))
			}
		}
		if s := b.Stats(); s.Waiting != 0 || s.Paused != 0 || s.Waited != 15*time.Second {
			t.Errorf("stats after the pause = %+v, want none waiting and 15 s waited", s)
		}
	})
}

func TestBudgetWaitEndsWithContext(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := NewBudget(1, 0)
		mustTake(t, b, 1).settle(1)
		ctx, cancel := context.WithCancel(context.Background())
		start := time.Now()
		take := goTake(ctx, b, 1)
		time.Sleep(2 * time.Second)
		cancel()
		at, tk, err := take()
		if !errors.Is(err, context.Canceled) || tk != nil {
			t.Fatalf("take = %v, %v, want context.Canceled", tk, err)
		}
		if at.Sub(start) != 2*time.Second {
			t.Errorf("take returned at %s, want 2s, when cancelled", at.Sub(start))
		}
		if s := b.Stats(); s.Requests != 1 || s.Waiting != 0 || s.Waited != 2*time.Second {
			t.Errorf("stats = %+v, want the first request only and 2 s waited", s)
		}
	})
}

func TestBudgetCancelForgetsTheAttempt(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := NewBudget(1, 10)
		mustTake(t, b, 10).cancel()
		mustTake(t, b, 10)
	})
}

func TestBudgetNoLimits(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		for _, b := range []*Budget{NewBudget(0, 0), NewBudget(-1, -5), nil} {
			for range 1000 {
				tk := mustTake(t, b, 1<<20)
				tk.settle(1 << 20)
			}
		}
		var none *Budget
		if s := none.Stats(); s != (BudgetStats{}) {
			t.Errorf("a nil budget's stats = %+v, want none", s)
		}
	})
}

// TestBudgetNoWindowExceedsTheLimits runs many goroutines sharing one
// budget for ten (fake) minutes, each request under way for a random time
// and reaching the server at a random instant of it, and checks that no
// 60-second window of arrivals holds more requests or tokens than allowed,
// while the budget does not waste much of what it allows.
func TestBudgetNoWindowExceedsTheLimits(t *testing.T) {
	tests := []struct {
		name     string
		rpm, tpm int
		workers  int
		latency  time.Duration // at most
	}{
		{"rpm 120 by 40 workers", 120, 0, 40, 3 * time.Second},
		{"rpm 10 by 50 workers, slow answers", 10, 0, 50, 50 * time.Second},
		{"tpm 20000 by 16 workers", 0, 20000, 16, 2 * time.Second},
		{"rpm 60 and tpm 30000", 60, 30000, 16, 5 * time.Second},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				b := NewBudget(tt.rpm, tt.tpm)
				ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
				defer cancel()
				var mu sync.Mutex
				var arrivals []time.Time
				var tokens []int
				var wg sync.WaitGroup
				for w := range tt.workers {
					rng := rand.New(rand.NewPCG(uint64(w), 1))
					wg.Go(func() {
						for ctx.Err() == nil {
							estimate := 100 + rng.IntN(900)
							tk, err := b.take(ctx, estimate)
							if err != nil {
								return
							}
							latency := time.Duration(rng.Int64N(int64(tt.latency)))
							arrive := time.Duration(rng.Int64N(int64(latency) + 1))
							time.Sleep(arrive)
							spent := estimate - rng.IntN(estimate/2)
							mu.Lock()
							arrivals = append(arrivals, time.Now())
							tokens = append(tokens, spent)
							mu.Unlock()
							time.Sleep(latency - arrive)
							tk.settle(spent)
						}
					})
				}
				wg.Wait()
				if tt.rpm > 0 {
					if most := maxInWindow(arrivals, time.Minute); most > tt.rpm {
						t.Errorf("a minute saw %d requests, over the limit of %d", most, tt.rpm)
					}
					// Each place is held one minute and one answer's time.
					if least := 10 * tt.rpm * 60 / (60 + int(tt.latency/time.Second)); len(arrivals) < least {
						t.Errorf("%d requests in 10 minutes, want at least %d", len(arrivals), least)
					}
				}
				if tt.tpm > 0 {
					if most := maxTokensInWindow(arrivals, tokens, time.Minute); most > tt.tpm {
						t.Errorf("a minute saw %d tokens, over the limit of %d", most, tt.tpm)
					}
				}
				t.Logf("%d requests in 10 minutes, at most %d in a minute", len(arrivals), maxInWindow(arrivals, time.Minute))
			})
		})
	}
}

// TestBudgetForeseesAnswersWithoutACap runs a tournament's worth of
// workers whose requests set no max_tokens and whose answers are long:
// the budget must reserve each answer before it is sent (the role's
// running mean of answers, and only one request at a time until any
// answer of its role is known) so that no 60-second window holds more
// than the TPM but for one answer longer than its estimate, as
// docs/tournaments.md says: an answer without a cap is not known before
// it comes. Before, each request was estimated at its prompt alone and
// sixteen went at once.
func TestBudgetForeseesAnswersWithoutACap(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const tpm = 12000
		b := NewBudget(0, tpm)
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
		defer cancel()
		answer := map[string]int{"proposition": 1500, "opposition": 1400, "judge": 700}
		roles := []string{"proposition", "opposition", "judge"}
		var mu sync.Mutex
		var arrivals []time.Time
		var tokens []int
		var wg sync.WaitGroup
		for w := range 8 {
			wg.Go(func() {
				for i := w; ctx.Err() == nil; i++ {
					role := roles[i%len(roles)]
					const prompt = 1000 // bytes of its body: 250 tokens
					tk, err := b.takeAnswer(ctx, prompt, 0, role)
					if err != nil {
						return
					}
					mu.Lock()
					arrivals = append(arrivals, time.Now())
					tokens = append(tokens, 250+answer[role])
					mu.Unlock()
					time.Sleep(5 * time.Second)
					tk.settleAnswer(250+answer[role], answer[role])
				}
			})
		}
		wg.Wait()
		// The estimate of a role's first answer may fall short of it by
		// at most the longest answer; one such goes at a time.
		longest := slices.Max(slices.Collect(maps.Values(answer)))
		if most := maxTokensInWindow(arrivals, tokens, time.Minute); most > tpm+longest {
			t.Errorf("a minute saw %d tokens, over --tpm %d by more than the longest answer, %d", most, tpm, longest)
		}
		// Ten minutes at 12,000 a minute hold about 60 answers of ~1,450
		// tokens with their prompts; the budget must not waste most of it.
		if len(arrivals) < 50 {
			t.Errorf("%d requests in 10 minutes, want at least 50", len(arrivals))
		}
	})
}

// TestBudgetReservesTheCap: a request with max_tokens reserves its cap,
// one without reserves its role's mean once an answer of the role came,
// else the mean of every role's.
func TestBudgetReservesTheCap(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := NewBudget(0, 100000)
		ctx := context.Background()
		tk, _ := b.takeAnswer(ctx, 400, 300, "judge")
		if tk.tokens != 100+300 {
			t.Errorf("with a cap: reserved %d, want 400 (100 for the prompt, the cap of 300)", tk.tokens)
		}
		tk.settleAnswer(150, 50)
		tk, _ = b.takeAnswer(ctx, 400, 0, "judge")
		if tk.tokens != 100+50 {
			t.Errorf("the judge's second: reserved %d, want 150 (its mean answer of 50)", tk.tokens)
		}
		tk.settleAnswer(250, 150)
		tk, _ = b.takeAnswer(ctx, 400, 0, "proposition")
		if tk.tokens != 100+100 {
			t.Errorf("a role not seen yet: reserved %d, want 200 (the mean of every answer, 100)", tk.tokens)
		}
		tk.cancel()
	})
}
