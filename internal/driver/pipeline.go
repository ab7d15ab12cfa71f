// This file asks calls ahead of their step: while a step's calls are out,
// the calls of a later step whose prompts read none of their answers (a
// protocol says which through sm.Lookahead) are asked too. Their answers
// are kept as any accepted answer is (under .moot/answers, with a digest
// of the prompt they answer), and taken when their step comes, planned
// again from the committed files, only if its call has the same prompt:
// steps are committed in the protocol's order, one at a time, so the
// files are those of a run that asks one step at a time, and a run killed
// at any instant resumes without asking again a call that had answered.

package driver

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"sync"

	sm "github.com/moot-dev/moot/statemachine"
)

// maxAhead is how many steps past the one being taken a run looks for a
// step whose calls it may ask early.
const maxAhead = 4

// pipeline is what a run asks ahead of its steps.
type pipeline struct {
	mu sync.Mutex
	// flights are the calls asked ahead of their step, by flightKey.
	flights map[string]*flight
	// out are the model calls asked and not yet answered, early or not,
	// by flightKey: what --budget counts as in flight.
	out map[string]PlannedCall
	wg  sync.WaitGroup
}

// flight is a call asked ahead of its step.
type flight struct {
	// digest is the digest of the prompt asked (promptDigest).
	digest string
	cancel context.CancelFunc
	done   chan struct{}
	answer sm.Answer
	err    error
}

// flightKey names call c of step, as the answers kept for it are named.
func flightKey(step *sm.Step, c sm.Call) string { return step.Key + "-" + c.ID }

// promptDigest is a digest of what call c asks, as its protocol wrote it:
// two calls with the same digest ask the same thing of the same role, and
// the answer of one answers the other. The settings of the run (the
// role's model, temperature, answer length) are not in it: an answer kept
// by one run is taken by the next whatever its settings, as it always
// was.
func promptDigest(c sm.Call) string {
	h := sha256.New()
	put := func(s string) { fmt.Fprintf(h, "%d:%s;", len(s), s) }
	put(c.Role)
	put(c.Kind)
	put(c.Model)
	put(c.SchemaName)
	if c.Schema != nil {
		schema, _ := json.Marshal(c.Schema) // map keys sorted
		put(string(schema))
	}
	put(fmt.Sprint(len(c.Messages)))
	for _, m := range c.Messages {
		put(m.Role)
		put(m.Content)
	}
	put(fmt.Sprint(len(c.Embed)))
	for _, t := range c.Embed {
		put(t)
	}
	return hex.EncodeToString(h.Sum(nil)[:16])
}

// pipelined reports whether this run asks calls ahead of their step: not
// with Sequential, nor with Serial (whose calls must be logged in the same
// order every time), nor in a debate that researches or a run in which a
// person answers (who is asked with nothing else writing meanwhile).
func (r *runner) pipelined() bool {
	return !r.opts.Sequential && !r.opts.Serial && r.research == nil && r.opts.Person == nil
}

// foresee asks early the calls of the steps after the step of deb being
// taken that deb's protocol foresees (sm.Lookahead) and whose
// prompts read none of the answers not yet committed; never those of a
// step past goal. A foreseen step passes the checks its step passes
// (its models reachable, Options.BeforeStep with the calls in flight
// counted): one that fails them is not asked early, and is checked again
// when its turn comes.
func (r *runner) foresee(ctx context.Context, deb sm.Debate, goal UnitGoal) {
	if !r.pipelined() {
		return
	}
	steps := r.sum.Steps + 1 // once the step being taken is committed
	for range maxAhead {
		la, ok := deb.(sm.Lookahead)
		if !ok {
			return
		}
		ahead, ready, err := la.Ahead()
		if err != nil || ahead == nil {
			return
		}
		if goal.reached(ahead.Status(), steps) {
			return
		}
		if ready {
			next, err := ahead.Next()
			if err != nil || next == nil || !r.fly(ctx, next) {
				return
			}
		}
		deb = ahead
		steps++
	}
}

// fly asks the calls of a foreseen step that are neither kept nor already
// asked, and reports whether it did; a step that a person answers, or
// that fails its checks, is not asked.
func (r *runner) fly(ctx context.Context, step *sm.Step) bool {
	for _, c := range step.Calls {
		if r.byPerson(c) {
			return false
		}
	}
	if mc, ok := r.opts.Client.(ModelChecker); ok {
		if err := mc.CheckModels(r.stepModels(step)); err != nil {
			return false
		}
	}
	if r.opts.BeforeStep != nil {
		plan := r.plan(step)
		plan.Early = true
		if err := r.opts.BeforeStep(plan); err != nil {
			return false
		}
	}
	p := &r.early
	for _, c := range step.Calls {
		key, digest := flightKey(step, c), promptDigest(c)
		p.mu.Lock()
		f := p.flights[key]
		p.mu.Unlock()
		if (f != nil && f.digest == digest) || r.hasKept(step, c) {
			continue
		}
		if f != nil {
			// Asked for another prompt: it will not be taken.
			f.cancel()
			<-f.done
		}
		fctx, cancel := context.WithCancel(ctx)
		f = &flight{digest: digest, cancel: cancel, done: make(chan struct{})}
		out := r.flying(step, c)
		p.mu.Lock()
		if p.flights == nil {
			p.flights = map[string]*flight{}
		}
		p.flights[key] = f
		p.mu.Unlock()
		p.wg.Add(1)
		go func() {
			defer p.wg.Done()
			defer close(f.done)
			defer out()
			f.answer, f.err = r.call(fctx, step, c)
		}()
	}
	return true
}

// answer gets the answer to call c of step: the answer of the call asked
// early for the same prompt, when there is one, else that of call.
func (r *runner) answer(ctx context.Context, step *sm.Step, c sm.Call) (sm.Answer, error) {
	p := &r.early
	key := flightKey(step, c)
	p.mu.Lock()
	f := p.flights[key]
	delete(p.flights, key)
	p.mu.Unlock()
	if f == nil {
		return r.call(ctx, step, c)
	}
	select {
	case <-f.done:
	case <-ctx.Done():
		f.cancel()
		<-f.done
		return sm.Answer{}, ctx.Err()
	}
	if f.digest != promptDigest(c) {
		// Foreseen wrongly: what it kept is dropped by call (see stale).
		return r.call(ctx, step, c)
	}
	if f.err != nil {
		if errors.Is(f.err, context.Canceled) {
			return r.call(ctx, step, c)
		}
		// The call failed as it would have failed in its turn.
		return sm.Answer{}, f.err
	}
	if len(f.answer.Text) > 0 && !validator(c)(f.answer.Text).OK() {
		// Accepted by the foreseen call's rules but not by the call's:
		// asked again.
		r.forgetCall(step, c)
		return r.call(ctx, step, c)
	}
	return f.answer, nil
}

// flying records that call c of step is asked, for --budget (see
// StepPlan.InFlight), unless what an interrupted run kept or a person
// answers it; the function it returns records that it was answered.
func (r *runner) flying(step *sm.Step, c sm.Call) func() {
	if r.byPerson(c) || r.hasKept(step, c) {
		return func() {}
	}
	pc := r.plannedCall(step, c)
	key := flightKey(step, c)
	p := &r.early
	p.mu.Lock()
	if p.out == nil {
		p.out = map[string]PlannedCall{}
	}
	p.out[key] = pc
	p.mu.Unlock()
	return func() {
		p.mu.Lock()
		delete(p.out, key)
		p.mu.Unlock()
	}
}

// inFlight lists the calls asked and not answered, but those of step, in
// the order of their names.
func (r *runner) inFlight(step *sm.Step) []PlannedCall {
	p := &r.early
	p.mu.Lock()
	defer p.mu.Unlock()
	mine := map[string]bool{}
	for _, c := range step.Calls {
		mine[flightKey(step, c)] = true
	}
	keys := make([]string, 0, len(p.out))
	for k := range p.out {
		if !mine[k] {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	out := make([]PlannedCall, len(keys))
	for i, k := range keys {
		out[i] = p.out[k]
	}
	return out
}

// asked reports whether call c of step is asked already, early, for the
// prompt it has.
func (r *runner) asked(step *sm.Step, c sm.Call) bool {
	p := &r.early
	p.mu.Lock()
	defer p.mu.Unlock()
	f := p.flights[flightKey(step, c)]
	return f != nil && f.digest == promptDigest(c)
}

// land waits for the calls asked early that no step took, as the run
// stops before their step (a step before it failed): what they keep is
// paid for, and stays for the next run. A run interrupted (ctx done) calls
// them off instead.
func (r *runner) land(ctx context.Context) {
	p := &r.early
	if ctx.Err() != nil {
		p.mu.Lock()
		for _, f := range p.flights {
			f.cancel()
		}
		p.mu.Unlock()
	}
	p.wg.Wait()
	p.mu.Lock()
	p.flights = nil
	p.mu.Unlock()
}

// stale reports whether what is kept for call c of step was kept for
// another prompt: an answer asked early for a step foreseen wrongly.
// Answers kept without a digest (by a moot that kept none) are taken as
// they always were.
func (r *runner) stale(step *sm.Step, c sm.Call) bool {
	raw, err := r.d.ReadPrivate(metaName(step, c))
	if err != nil {
		return false
	}
	var meta keptMeta
	if json.Unmarshal(raw, &meta) != nil {
		return false
	}
	return meta.Prompt != "" && meta.Prompt != promptDigest(c)
}

// forgetCall removes what was kept for call c of step.
func (r *runner) forgetCall(step *sm.Step, c sm.Call) {
	r.forget(&sm.Step{Key: step.Key, Calls: []sm.Call{c}})
}
