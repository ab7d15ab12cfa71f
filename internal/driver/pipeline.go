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
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"slices"
	"sync"

	sm "github.com/moot-dev/moot/statemachine"
	"github.com/moot-dev/moot/store"
)

// maxAhead is how many steps past the first whose answers are not all in
// (the step being taken, or one asked early) a run looks for a step whose
// calls it may ask early; the steps whose answers have all come, which it
// takes past, are not counted.
const maxAhead = 4

// pipeline is what a run asks ahead of its steps.
type pipeline struct {
	mu sync.Mutex
	// flights are the calls asked ahead of their step, by flightKey.
	flights map[string]*flight
	// out are the model calls asked and not yet answered, early or not,
	// by flightKey: what --budget counts as in flight.
	out map[string]outCall
	// outs counts the calls put in out, to name each (outCall.n).
	outs int
	// unlogged are the usage lines of the answers accepted and not yet
	// logged, by flightKey: what --budget counts as spent with the log's
	// (see accept).
	unlogged map[string]Usage
	wg       sync.WaitGroup
	// stopped is set once the run stops: no call is asked early after.
	stopped bool
	// refused holds the steps (stepName) that failed their checks ahead
	// of their turn: they wait for it.
	refused map[string]bool
	// before serializes the calls of Options.BeforeStep.
	before sync.Mutex
	// accepted holds the answers accepted, by flightKey, from the moment
	// they pass their checks, before they are kept (see accept).
	accepted map[string]accepted
	// kept lists the files under .moot/answers when the run began, by
	// their names under .moot (nil when they could not be listed), and
	// called the calls (by flightKey) this run has asked, early or not:
	// a call neither names has nothing kept (see untouched).
	kept   map[string]bool
	called map[string]bool
	// dirty marks that something onward plans from has changed since it
	// last planned (an answer came, a step was committed or loaded).
	dirty bool
	// ahead serializes what asks calls early (foresee, onward), so that
	// no call is asked twice.
	ahead sync.Mutex
	// spec is what onward plans from; its load nil when the run plans
	// only from its committed files.
	spec speculation
}

// speculation is the debate a run will have once the steps it is taking
// and those whose answers have come are committed, in memory: the files
// its last load read (base), the files of the step being committed
// (pending, nil when none is), how to read a debate from them, and the
// debates read so far (nodes), so that each is read and each step applied
// once however often onward plans.
type speculation struct {
	load    func(fs.FS) (sm.Debate, error)
	ctx     context.Context
	goal    UnitGoal
	base    *memFS
	pending []store.File
	// baseSteps is how many steps the run had taken when base was read.
	baseSteps int
	// nodes are the debates planned from memory, by how many steps the
	// run will have taken once each is committed: nodes[baseSteps] is
	// base's, and nodes[n+1], when there is one, the debate its step's
	// commit leaves, its answers all in. Replacing one drops those after
	// it.
	nodes map[int]*specNode
	// cur is the debate whose step is being taken, for a run that plans
	// only from its committed files (load nil); curSteps is steps for it.
	cur      sm.Debate
	curSteps int
}

// specNode is a debate planned from memory (see speculation.nodes).
type specNode struct {
	steps int
	// in are the files of the commit that leads to it from the node
	// before, nil for one read from base.
	in  []store.File
	mem *memFS
	// deb is the debate read from mem, never applied: the calls asked
	// early from its step check their answers against it.
	deb    sm.Debate
	status sm.Status
	// step is deb's next step, nil when there is none.
	step *sm.Step
}

// outCall is a call of pipeline.out: n tells it from a call asked again
// under the same key once it has ended.
type outCall struct {
	call PlannedCall
	n    int
}

// accepted is an answer accepted for the prompt of digest, and perhaps
// not kept yet: enough to plan from (see accept).
type accepted struct {
	digest string
	answer sm.Answer
}

// flight is a call asked ahead of its step.
type flight struct {
	// digest is the digest of the prompt asked (promptDigest).
	digest string
	// known marks a call planned from a debate whose every answer had
	// come, not foreseen (see fly).
	known  bool
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
// taken, step, that the protocol foresees (sm.Lookahead) and whose
// prompts read none of the answers not yet in; never those of a step
// past goal. A foreseen step passes the checks its step passes (its
// models reachable, Options.BeforeStep with the calls in flight counted):
// one that fails them is not asked early, and is checked again when its
// turn comes.
func (r *runner) foresee(ctx context.Context, deb sm.Debate, goal UnitGoal) {
	if !r.pipelined() {
		return
	}
	p := &r.early
	p.ahead.Lock()
	defer p.ahead.Unlock()
	if p.spec.load == nil {
		// Planned from the committed files only: what deb foresees.
		p.spec.cur, p.spec.curSteps = deb, r.sum.Steps+1
		r.lookPast(ctx, deb, goal, p.spec.curSteps, maxAhead)
		return
	}
	// Its answers may all have come already.
	p.dirty = true
	r.onward()
}

// lookPast asks early, as foresee says, the calls of the steps that deb,
// a debate whose next step is asked, foresees, looking at most depth
// steps past it; steps is how many steps the run will have taken once
// deb's next step is committed. A foreseen step whose calls have all
// answered is taken past (sm.Foreseen) when its debate can. It is called
// with the ahead lock held.
func (r *runner) lookPast(ctx context.Context, deb sm.Debate, goal UnitGoal, steps, depth int) {
	for range depth {
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
		for ready {
			next, err := ahead.Next()
			if err != nil || next == nil {
				return
			}
			answers, landed := r.landed(next)
			fr, ok := ahead.(sm.Foreseen)
			if !landed || !ok {
				if !r.fly(ctx, next, false) {
					return
				}
				break
			}
			// Its answers have come: the step after it may be asked.
			then, thenReady, err := fr.Then(answers, r.opts.Now())
			if err != nil {
				return
			}
			if then == nil {
				// Not taken past: what its debate foresees, below.
				break
			}
			ahead, ready = then, thenReady
			steps++
			if goal.reached(ahead.Status(), steps) {
				return
			}
		}
		deb = ahead
		steps++
	}
}

// landed returns the answers of the calls of step asked early when every
// one of them has come, accepted, for the prompt it has: what its turn
// will take (see answer).
func (r *runner) landed(step *sm.Step) (map[string]sm.Answer, bool) {
	p := &r.early
	p.mu.Lock()
	defer p.mu.Unlock()
	answers := make(map[string]sm.Answer, len(step.Calls))
	for _, c := range step.Calls {
		key, digest := flightKey(step, c), promptDigest(c)
		if a, ok := p.accepted[key]; ok && a.digest == digest {
			answers[c.ID] = a.answer
			continue
		}
		f := p.flights[key]
		if f == nil {
			return nil, false
		}
		select {
		case <-f.done:
		default:
			return nil, false
		}
		if f.err != nil || f.digest != digest || (len(f.answer.Text) > 0 && !validator(c)(f.answer.Text).OK()) {
			return nil, false
		}
		answers[c.ID] = f.answer
	}
	return answers, true
}

// accept records a, the answer to call c of step that has just passed
// its checks, before it is kept and logged, and reports whether it did:
// the calls that read it may be asked while it is (see onward). A run
// killed before it is kept asks c again, as it always did, and takes what
// those calls kept only if their prompts come out the same. Until the
// call is logged, u, its line of the usage log, is counted as spent in
// every step's plan, in place of the call's estimate in flight, so that
// the checks of the calls asked meanwhile (--budget) see what it cost.
func (r *runner) accept(step *sm.Step, c sm.Call, a sm.Answer, u Usage) bool {
	p := &r.early
	if !r.pipelined() || p.spec.load == nil {
		return false
	}
	key := flightKey(step, c)
	u.Model, u.Asked = r.opts.Mask(u.Model), r.opts.Mask(u.Asked)
	p.mu.Lock()
	if p.stopped {
		p.mu.Unlock()
		return false
	}
	if p.accepted == nil {
		p.accepted = map[string]accepted{}
	}
	p.accepted[key] = accepted{digest: promptDigest(c), answer: a}
	if p.unlogged == nil {
		p.unlogged = map[string]Usage{}
	}
	p.unlogged[key] = u
	delete(p.out, key)
	p.wg.Add(1)
	p.mu.Unlock()
	go func() {
		defer p.wg.Done()
		p.ahead.Lock()
		defer p.ahead.Unlock()
		p.dirty = true
		r.onward()
	}()
	return true
}

// logged records that the call of key, whose answer accept recorded, is
// logged: its line is in the run's usage now. It is called with the
// runner's lock held, as the line is added, so that a plan (which holds
// it too) counts the call once.
func (p *pipeline) logged(key string) {
	p.mu.Lock()
	delete(p.unlogged, key)
	p.mu.Unlock()
}

// planned returns the files the commit of step, a step planned from
// memory, would write with answers.
func (r *runner) planned(step *sm.Step, answers map[string]sm.Answer) ([]store.File, error) {
	commit, err := step.Apply(answers, r.opts.Now())
	if err != nil {
		return nil, err
	}
	return r.commitFiles(step, answers, commit)
}

// loaded records the debate the run has just read from its committed
// files, rec having noted the reads: onward plans from it.
func (r *runner) loaded(rec *recorder) {
	if rec == nil {
		return
	}
	p := &r.early
	p.ahead.Lock()
	defer p.ahead.Unlock()
	sp := &p.spec
	sp.base, sp.pending, sp.cur, sp.baseSteps = rec.snapshot(), nil, nil, r.sum.Steps
	for n := range sp.nodes {
		if n < sp.baseSteps {
			delete(sp.nodes, n)
		}
	}
	p.dirty = true
}

// applying records that the step being taken is about to apply its
// answers to its debate, which Apply may change in place: what that
// debate foresees is no longer looked at (see onward). It waits for a
// look in progress, which holds the ahead lock.
func (r *runner) applying() {
	p := &r.early
	p.ahead.Lock()
	defer p.ahead.Unlock()
	p.spec.cur = nil
}

// committing records that step, the step being taken, is about to
// commit files, its answers all in, and asks early what the debate they
// leave waits for (see onward).
func (r *runner) committing(step *sm.Step, files []store.File) {
	p := &r.early
	if p.spec.load == nil || !r.pipelined() {
		return
	}
	p.ahead.Lock()
	defer p.ahead.Unlock()
	sp := &p.spec
	p.mu.Lock()
	for _, c := range step.Calls {
		delete(p.accepted, flightKey(step, c))
	}
	p.mu.Unlock()
	if sp.base == nil {
		return
	}
	sp.pending = files
	steps := r.sum.Steps + 1
	if n := sp.nodes[steps]; n != nil && sameFiles(n.in, files) {
		// Planned from its answers already, as it is committed.
		return
	}
	sp.drop(steps)
	p.dirty = true
	r.onward()
}

// drop forgets the nodes of steps and after.
func (sp *speculation) drop(steps int) {
	for n := range sp.nodes {
		if n >= steps {
			delete(sp.nodes, n)
		}
	}
}

// sameFiles reports whether a and b are the same files, in the same order.
func sameFiles(a, b []store.File) bool {
	return slices.EqualFunc(a, b, func(x, y store.File) bool { return x.Name == y.Name && bytes.Equal(x.Data, y.Data) })
}

// node returns the node of steps, read from mem (with in, the files of
// the commit that leads to it), which replaces the nodes of steps and
// after; nil when it cannot be read.
func (r *runner) node(steps int, in []store.File, mem *memFS) *specNode {
	sp := &r.early.spec
	sp.drop(steps)
	n := &specNode{steps: steps, in: in, mem: mem}
	if !r.read(n) {
		return nil
	}
	if sp.nodes == nil {
		sp.nodes = map[int]*specNode{}
	}
	sp.nodes[steps] = n
	return n
}

// read reads n's debate from its files, and its next step; it reports
// whether it could.
func (r *runner) read(n *specNode) bool {
	deb, err := r.early.spec.load(n.mem)
	if err != nil {
		return false
	}
	step, err := deb.Next()
	if err != nil {
		return false
	}
	n.deb, n.status, n.step = deb, deb.Status(), step
	return true
}

// onward asks early the calls of the steps after the one being taken
// whose prompts read only answers that have come. From the debate the
// last load read (or the one the step being committed leaves), read in
// memory, it takes past every step whose calls have all answered, the
// step being taken among them (applying it in memory to the debate its
// commit will leave, once however often it plans), asks the calls
// of the first step that waits, but the step being taken, which its turn
// asks, and then what that step's debate foresees (lookPast). It is
// called with the ahead lock held, as a step is taken or committed and
// whenever an answer comes. What it plans is only ever a plan: each step
// is still planned again from the committed files in its turn (see
// answer).
func (r *runner) onward() {
	p := &r.early
	sp := &p.spec
	p.mu.Lock()
	stopped := p.stopped
	p.mu.Unlock()
	if stopped || sp.ctx == nil || sp.ctx.Err() != nil {
		return
	}
	if sp.load == nil {
		// Planned from the committed files only: what the debate of the
		// step being taken foresees, which may have come (see lookPast).
		if sp.cur != nil {
			r.lookPast(sp.ctx, sp.cur, sp.goal, sp.curSteps, maxAhead)
		}
		return
	}
	if !p.dirty || sp.base == nil {
		return
	}
	p.dirty = false
	n := sp.nodes[sp.baseSteps]
	if n == nil {
		if n = r.node(sp.baseSteps, nil, sp.base); n == nil {
			return
		}
	}
	if sp.pending != nil && sp.nodes[sp.baseSteps+1] == nil {
		// The step being committed: its files are known.
		r.node(sp.baseSteps+1, sp.pending, sp.base.with(sp.pending))
	}
	for {
		if n.step == nil || sp.goal.reached(n.status, n.steps) {
			return
		}
		if next := sp.nodes[n.steps+1]; next != nil {
			n = next
			continue
		}
		answers, ok := r.landed(n.step)
		if !ok {
			if n.steps == sp.baseSteps {
				// The step being taken, which its turn asks.
				r.lookPast(sp.ctx, n.deb, sp.goal, n.steps+1, maxAhead)
			} else if r.fly(sp.ctx, n.step, true) {
				r.lookPast(sp.ctx, n.deb, sp.goal, n.steps+1, maxAhead-1)
			}
			return
		}
		// Applied to a debate read anew: Apply may change the one it
		// is applied to, and the checks of the calls asked from n's
		// may still read it, as may what lookPast foresaw from it.
		deb, err := sp.load(n.mem)
		if err != nil {
			return
		}
		step, err := deb.Next()
		if err != nil || step == nil || stepName(step) != stepName(n.step) {
			return
		}
		files, err := r.planned(step, answers)
		if err != nil {
			return
		}
		if n = r.node(n.steps+1, files, n.mem.with(files)); n == nil {
			return
		}
	}
}

// fly asks the calls of a step ahead of its turn that are neither kept
// nor already asked, and reports whether they are out; a step that a
// person answers, or that fails its checks (then never asked early
// again), is not asked. known marks a step planned from the debate its
// commit will leave (onward), whose calls replace those asked for
// another prompt; a step foreseen (lookPast) leaves those of a known
// one. It is called with the ahead lock held.
func (r *runner) fly(ctx context.Context, step *sm.Step, known bool) bool {
	p := &r.early
	name := stepName(step)
	p.mu.Lock()
	stopped, refused := p.stopped, p.refused[name]
	p.mu.Unlock()
	if stopped {
		return false
	}
	var ask []sm.Call
	for _, c := range step.Calls {
		if r.byPerson(c) {
			return false
		}
		p.mu.Lock()
		f := p.flights[flightKey(step, c)]
		p.mu.Unlock()
		if f != nil && (f.digest == promptDigest(c) || (f.known && !known)) {
			continue
		}
		if !r.hasKept(step, c) {
			ask = append(ask, c)
		}
	}
	if len(ask) == 0 {
		return true
	}
	if refused || !r.mayFly(step) {
		p.mu.Lock()
		if p.refused == nil {
			p.refused = map[string]bool{}
		}
		p.refused[name] = true
		p.mu.Unlock()
		return false
	}
	for _, c := range ask {
		key := flightKey(step, c)
		p.mu.Lock()
		old := p.flights[key]
		p.mu.Unlock()
		if old != nil {
			// Asked for another prompt: it will not be taken.
			old.cancel()
			<-old.done
		}
		fctx, cancel := context.WithCancel(ctx)
		f := &flight{digest: promptDigest(c), known: known, cancel: cancel, done: make(chan struct{})}
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
			f.answer, f.err = r.call(fctx, step, c)
			close(f.done)
			out()
			// What waited for this answer may be asked now.
			p.ahead.Lock()
			defer p.ahead.Unlock()
			p.dirty = true
			r.onward()
		}()
	}
	return true
}

// stepName names step among those of the run: its key and its calls
// (dialectic's arguments and judgment of an exchange share a key).
func stepName(step *sm.Step) string {
	name := step.Key
	for _, c := range step.Calls {
		name += "/" + c.ID
	}
	return name
}

// mayFly reports whether step passes, ahead of its turn, the checks it
// passes in its turn: its models reachable, Options.BeforeStep with the
// calls in flight counted.
func (r *runner) mayFly(step *sm.Step) bool {
	if mc, ok := r.opts.Client.(ModelChecker); ok {
		if err := mc.CheckModels(r.stepModels(step)); err != nil {
			return false
		}
	}
	if r.opts.BeforeStep == nil {
		return true
	}
	plan := r.plan(step)
	plan.Early = true
	return r.beforeStep(plan) == nil
}

// beforeStep calls Options.BeforeStep, one call at a time.
func (r *runner) beforeStep(plan StepPlan) error {
	r.early.before.Lock()
	defer r.early.before.Unlock()
	return r.opts.BeforeStep(plan)
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
// answers it, or it is asked already, early, for the same prompt (and
// recorded then); the function it returns records that it was answered.
func (r *runner) flying(step *sm.Step, c sm.Call) func() {
	if r.byPerson(c) || r.hasKept(step, c) || r.asked(step, c) {
		return func() {}
	}
	pc := r.plannedCall(step, c)
	key := flightKey(step, c)
	p := &r.early
	p.mu.Lock()
	if p.out == nil {
		p.out = map[string]outCall{}
	}
	p.outs++
	n := p.outs
	p.out[key] = outCall{call: pc, n: n}
	p.mu.Unlock()
	return func() {
		p.mu.Lock()
		if p.out[key].n == n {
			delete(p.out, key)
		}
		p.mu.Unlock()
	}
}

// inFlight lists the calls asked and not answered, but those of step, in
// the order of their names. It is called with the pipeline's lock held.
func (r *runner) inFlight(step *sm.Step) []PlannedCall {
	p := &r.early
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
	slices.Sort(keys)
	out := make([]PlannedCall, len(keys))
	for i, k := range keys {
		out[i] = p.out[k].call
	}
	return out
}

// unlogged lists the usage lines of the answers accepted and not yet
// logged (see accept), in the order of their calls' names. It is called
// with the pipeline's lock held.
func (r *runner) unlogged() []Usage {
	p := &r.early
	keys := slices.Sorted(maps.Keys(p.unlogged))
	out := make([]Usage, len(keys))
	for i, k := range keys {
		out[i] = p.unlogged[k]
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
	p.mu.Lock()
	p.stopped = true
	if ctx.Err() != nil {
		for _, f := range p.flights {
			f.cancel()
		}
	}
	p.mu.Unlock()
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
	if r.untouched(step, c) {
		return false
	}
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

// listKept notes the files kept under .moot/answers as the run begins,
// for untouched.
func (r *runner) listKept() {
	names, err := r.d.List(store.PrivateDir+"/answers", "")
	if err != nil {
		return
	}
	kept := make(map[string]bool, len(names))
	for _, n := range names {
		kept["answers/"+n] = true
	}
	r.early.kept = kept
}

// untouched reports whether nothing is kept for call c of step: no file
// of it was under .moot/answers as the run began, and the run has not
// asked it (only the run that holds the debate writes there, and it
// writes a call's files only as it asks that call). Such a call is asked
// without reading its kept files first: a call asked early is asked
// without waiting for the disk, which the run's commits and the syncs of
// the answers kept meanwhile can hold for a long time.
func (r *runner) untouched(step *sm.Step, c sm.Call) bool {
	p := &r.early
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.kept == nil || p.called[flightKey(step, c)] {
		return false
	}
	for _, name := range []string{keptName(step, c), metaName(step, c), skippedName(step, c), missingName(step, c), repairsName(step, c), researchName(step, c)} {
		if p.kept[name] {
			return false
		}
	}
	return true
}

// calling records that call c of step is asked by this run (see
// untouched) and reports whether it was untouched until then.
func (r *runner) calling(step *sm.Step, c sm.Call) bool {
	was := r.untouched(step, c)
	p := &r.early
	p.mu.Lock()
	if p.called == nil {
		p.called = map[string]bool{}
	}
	p.called[flightKey(step, c)] = true
	p.mu.Unlock()
	return was
}
