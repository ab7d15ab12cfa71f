package model

import (
	"context"
	"net/http"
	"sync"
	"time"
)

// budgetWindow is the sliding window over which a Budget counts.
const budgetWindow = time.Minute

// Budget limits the requests of every Client that shares it: at most RPM
// requests and TPM tokens (prompt and completion) in any sliding 60-second
// window, and when any request gets a 429 that may be retried, every
// request of every Client sharing the budget waits as long as that one was
// told to (its Retry-After, or the computed back-off), not just the one
// that got it. Zero or negative limits are no limit. Give one Budget to
// every Client that talks to one endpoint with one API key, since that is
// what a provider's limits count.
//
// Every attempt counts, retries and fallbacks included. An attempt is in
// the window from the moment it is let through until 60 s after its answer
// came back (or it failed): however long it was on its way, the server
// cannot have seen more than RPM requests in any minute of its own. A
// request waits until enough of the oldest attempts have left the window.
//
// An attempt's tokens are estimated before it is sent as a quarter of the
// size of its JSON body (the messages, with the schema when there is one)
// plus its answer: its max tokens when set, else the mean answer of its
// Request.Role so far, else of every role (see takeAnswer). The estimate
// is replaced by the usage the server reports when the answer comes:
// prompt plus completion tokens. An answer
// without usage keeps the estimate; an error answer counts no tokens. A
// request estimated above TPM on its own is let through alone, when the
// window is empty.
//
// A Budget is safe for concurrent use. Its zero value is not usable: make
// one with NewBudget. A nil *Budget is no limit.
type Budget struct {
	rpm, tpm int
	// window is budgetWindow, shorter only in tests that talk to a
	// real server and cannot fake the clock.
	window time.Duration

	mu sync.Mutex
	// inflight counts the attempts let through and not yet over, and
	// inflightTokens their estimates.
	inflight, inflightTokens int
	// done holds the attempts that are over and still in the window, in
	// the order they ended, and doneTokens their tokens.
	done       []spent
	doneTokens int
	// pausedUntil is when the last 429 lets requests go again.
	pausedUntil time.Time
	// waiting counts the requests waiting now, and waitStarts is the sum
	// of the instants they began to wait, as durations since base.
	waiting    int
	waitStarts time.Duration
	base       time.Time
	// waited is the time requests that have stopped waiting waited.
	waited time.Duration
	// changed is closed, and then replaced, when an attempt ends, which
	// may let a waiting request through before its timer says.
	changed chan struct{}
	// answers holds the completion tokens reported, by role, and
	// allAnswers over every role; blind counts the requests under way
	// sent before any answer's size was known.
	answers    map[string]answerMean
	allAnswers answerMean
	blind      int
}

// spent is an attempt that is over: when it ended and the tokens it cost.
type spent struct {
	at     time.Time
	tokens int
}

// NewBudget returns a budget of rpm requests and tpm tokens a minute. A
// limit of zero (or less) is no limit.
func NewBudget(rpm, tpm int) *Budget {
	return &Budget{rpm: max(rpm, 0), tpm: max(tpm, 0), window: budgetWindow}
}

// BudgetStats is a snapshot of a Budget, for a progress line.
type BudgetStats struct {
	// RPM and TPM are the limits, 0 for none.
	RPM, TPM int
	// Requests and Tokens are the attempts in the current window and
	// their tokens, those still under way counted with their estimates.
	Requests, Tokens int
	// Waiting is the number of requests waiting for the budget now.
	Waiting int
	// Waited is the time requests have spent waiting for the budget, added
	// up over every request (so it can exceed the time elapsed), the
	// current waits included.
	Waited time.Duration
	// Paused is how much longer every request waits after a 429; 0 when
	// none does.
	Paused time.Duration
}

// Stats returns the budget's state now. A nil budget has none.
func (b *Budget) Stats() BudgetStats {
	if b == nil {
		return BudgetStats{}
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	now := time.Now()
	b.prune(now)
	s := BudgetStats{
		RPM:      b.rpm,
		TPM:      b.tpm,
		Requests: b.inflight + len(b.done),
		Tokens:   b.inflightTokens + b.doneTokens,
		Waiting:  b.waiting,
		Waited:   b.waited,
	}
	if b.waiting > 0 {
		s.Waited += time.Duration(b.waiting)*now.Sub(b.base) - b.waitStarts
	}
	if b.pausedUntil.After(now) {
		s.Paused = b.pausedUntil.Sub(now)
	}
	return s
}

// ticket is an attempt let through by a Budget, to be settled or
// cancelled once.
type ticket struct {
	b      *Budget
	tokens int // the estimate
	// role is the role whose answer it asks, and blind marks a request
	// sent before any answer's size was known.
	role  string
	blind bool
}

// answerMean sums answers' completion tokens, for their mean.
type answerMean struct {
	sum int64
	n   int
}

// take waits until an attempt estimated at tokens may be sent and counts
// it, or returns ctx's error if ctx ends first. A nil budget lets every
// attempt through at once (and its ticket is nil, which settles as a
// no-op).
func (b *Budget) take(ctx context.Context, tokens int) (*ticket, error) {
	return b.takeWith(ctx, "", func() (int, bool) { return tokens, false })
}

// takeAnswer is take for a chat request whose JSON body has payload
// bytes, capped at maxTokens (0 for no cap), asked for role: its answer
// is reserved before it is sent, as the cap when there is one, else as
// the mean answer of role so far, else the mean of every role's. While
// no answer at all is known, a request without a cap goes only when no
// other such request is under way, so that the first answer's size is
// learnt before many are sent blind.
func (b *Budget) takeAnswer(ctx context.Context, payload, maxTokens int, role string) (*ticket, error) {
	if b == nil {
		return nil, nil
	}
	prompt := estimateTokens(payload, 0)
	return b.takeWith(ctx, role, func() (int, bool) {
		if maxTokens > 0 {
			return prompt + maxTokens, false
		}
		m, ok := b.meanAnswer(role)
		if !ok {
			return prompt, true
		}
		// A role none of whose answers came yet is estimated by every
		// role's mean, but its answer may be longer than any seen: it
		// goes as one of unknown size, alone among those.
		return prompt + m, b.answers[role].n == 0
	})
}

// meanAnswer is the mean completion tokens of role's answers so far,
// else of every answer, rounded up; false when none is known. b.mu is
// held.
func (b *Budget) meanAnswer(role string) (int, bool) {
	m := b.answers[role]
	if m.n == 0 {
		m = b.allAnswers
	}
	if m.n == 0 {
		return 0, false
	}
	return int((m.sum + int64(m.n) - 1) / int64(m.n)), true
}

// takeWith is take with an estimate made afresh, under the lock, each
// time the request looks whether it may go: est returns the estimate and
// whether the answer's size is unknown, in which case the request waits
// while another of unknown size is under way.
func (b *Budget) takeWith(ctx context.Context, role string, est func() (int, bool)) (*ticket, error) {
	if b == nil {
		return nil, nil
	}
	b.mu.Lock()
	waiting := false
	var start time.Time
	for {
		now := time.Now()
		b.prune(now)
		tokens, blind := est()
		until, blocked := b.next(now, tokens)
		if blind && b.tpm > 0 && b.blind > 0 {
			blocked = true
		}
		if !blocked && !until.After(now) {
			if waiting {
				b.stopWaiting(start, now)
			}
			b.inflight++
			b.inflightTokens += tokens
			if blind {
				b.blind++
			}
			b.mu.Unlock()
			return &ticket{b: b, tokens: tokens, role: role, blind: blind}, nil
		}
		if !waiting {
			waiting, start = true, now
			if b.waiting == 0 {
				b.base, b.waitStarts = now, 0
			}
			b.waiting++
			b.waitStarts += now.Sub(b.base)
		}
		if b.changed == nil {
			b.changed = make(chan struct{})
		}
		changed := b.changed
		b.mu.Unlock()

		var timer *time.Timer
		var fired <-chan time.Time
		if until.After(now) {
			timer = time.NewTimer(until.Sub(now))
			fired = timer.C
		}
		var err error
		select {
		case <-ctx.Done():
			err = ctx.Err()
		case <-fired:
		case <-changed:
		}
		if timer != nil {
			timer.Stop()
		}
		b.mu.Lock()
		if err != nil {
			b.stopWaiting(start, time.Now())
			b.mu.Unlock()
			return nil, err
		}
	}
}

// stopWaiting records the end of a wait that began at start. b.mu is held.
func (b *Budget) stopWaiting(start, now time.Time) {
	b.waiting--
	b.waitStarts -= start.Sub(b.base)
	b.waited += now.Sub(start)
}

// next says when an attempt estimated at tokens may go, as far as the
// attempts already over and the pause tell: not before until, and, when
// blocked, not before some attempt under way is over either. b.mu is held
// and the window pruned.
func (b *Budget) next(now time.Time, tokens int) (until time.Time, blocked bool) {
	until = b.pausedUntil
	if b.rpm > 0 {
		// So many must leave for one more to fit.
		if excess := b.inflight + len(b.done) + 1 - b.rpm; excess > len(b.done) {
			blocked = true
		} else if excess > 0 {
			until = later(until, b.done[excess-1].at.Add(b.window))
		}
	}
	if b.tpm > 0 && b.inflight+len(b.done) > 0 {
		over := b.inflightTokens + b.doneTokens + tokens - b.tpm
		i := 0
		for over > 0 && i < len(b.done) {
			over -= b.done[i].tokens
			i++
		}
		switch {
		case over > 0 && b.inflight > 0:
			blocked = true
		case over > 0:
			// Too large even for an empty window: it goes alone once
			// every other has left.
			until = later(until, b.done[len(b.done)-1].at.Add(b.window))
		case i > 0:
			until = later(until, b.done[i-1].at.Add(b.window))
		}
	}
	return until, blocked
}

func later(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}

// prune drops the attempts that have left the window. b.mu is held.
func (b *Budget) prune(now time.Time) {
	i := 0
	for i < len(b.done) && !b.done[i].at.Add(b.window).After(now) {
		b.doneTokens -= b.done[i].tokens
		i++
	}
	if i == len(b.done) {
		b.done = b.done[:0]
	} else if i > 0 {
		b.done = b.done[i:]
	}
}

// pause makes every request wait d from now, unless they already wait
// longer.
func (b *Budget) pause(d time.Duration) {
	if b == nil || d <= 0 {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	b.pausedUntil = later(b.pausedUntil, time.Now().Add(d))
}

// settle records that the attempt is over, having cost tokens, and wakes
// the requests waiting, which may now fit.
func (t *ticket) settle(tokens int) { t.settleAnswer(tokens, 0) }

// settleAnswer is settle for an answer of completion tokens (0 when not
// reported), which the means of the estimates learn from.
func (t *ticket) settleAnswer(tokens, completion int) {
	if t == nil {
		return
	}
	b := t.b
	b.mu.Lock()
	defer b.mu.Unlock()
	b.inflight--
	b.inflightTokens -= t.tokens
	b.done = append(b.done, spent{at: time.Now(), tokens: tokens})
	b.doneTokens += tokens
	if completion > 0 {
		if b.answers == nil {
			b.answers = map[string]answerMean{}
		}
		m := b.answers[t.role]
		m.sum, m.n = m.sum+int64(completion), m.n+1
		b.answers[t.role] = m
		b.allAnswers.sum, b.allAnswers.n = b.allAnswers.sum+int64(completion), b.allAnswers.n+1
	}
	t.unblind()
	b.wake()
}

// unblind ends the ticket's part in the count of blind requests. b.mu is
// held.
func (t *ticket) unblind() {
	if t.blind {
		t.blind = false
		t.b.blind--
	}
}

// cancel forgets an attempt that was never sent.
func (t *ticket) cancel() {
	if t == nil {
		return
	}
	b := t.b
	b.mu.Lock()
	defer b.mu.Unlock()
	b.inflight--
	b.inflightTokens -= t.tokens
	t.unblind()
	b.wake()
}

// wake tells the waiting requests that the window changed. b.mu is held.
func (b *Budget) wake() {
	if b.changed != nil {
		close(b.changed)
		b.changed = nil
	}
}

// estimateTokens guesses the tokens of an attempt before it is sent: a
// token for every four bytes of its JSON body, plus the most the answer
// may have.
func estimateTokens(payload, maxTokens int) int {
	return (payload+3)/4 + max(maxTokens, 0)
}

// completionTokens is the answer's completion tokens as the server
// reported them in out, 0 when it did not or when err says the answer
// never came whole.
func completionTokens(out any, err error) int {
	if o, ok := out.(*chatCompletion); ok && err == nil && o.usage.CompletionTokens > 0 && o.usage.CompletionTokens < 1<<40 {
		return int(o.usage.CompletionTokens)
	}
	return 0
}

// spentTokens says what an attempt whose answer was decoded into out cost:
// the usage the server reported, the estimate when it reported none or the
// answer never came whole, and nothing for an error answer.
func spentTokens(out any, res *http.Response, err error, estimate int) int {
	if err != nil {
		if res != nil && res.StatusCode >= 400 {
			return 0
		}
		return estimate
	}
	var n float64
	switch o := out.(type) {
	case *chatCompletion:
		n = float64(o.usage.PromptTokens) + float64(o.usage.CompletionTokens)
	case *embedResult:
		n = float64(o.promptTokens)
	}
	if n <= 0 || n > 1<<40 {
		return estimate
	}
	return int(n)
}
