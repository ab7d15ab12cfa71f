// This file drives a debate with language models: it asks the debaters
// and the judge for the answer the debate waits for, puts each answer
// through the same rules and commit path as process-exchange and
// process-judge, sends refused answers back for repair, and keeps answers
// already paid for until they are committed. Everything it needs to resume
// is in the debate directory.

package driver

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/moot-dev/moot/internal/frontmatter"
	"github.com/moot-dev/moot/internal/model"
	sm "github.com/moot-dev/moot/statemachine"
	"github.com/moot-dev/moot/store"
	"github.com/moot-dev/moot/templates"
)

// Completer is what run needs of a model client.
type Completer interface {
	Complete(ctx context.Context, req model.Request) (model.Response, error)
}

// Event is one thing that happened during a run, for progress output and
// for `moot run --json`, which prints each as one line of JSON. The README
// lists the events and their keys.
type Event struct {
	Time     time.Time `json:"time"`
	Kind     string    `json:"event"`
	Exchange int       `json:"exchange"`
	Role     string    `json:"role,omitempty"`
	Model    string    `json:"model,omitempty"`
	ID       string    `json:"id,omitempty"`
	Title    string    `json:"title,omitempty"`
	Score    *float64  `json:"score,omitempty"`
	// Calls, Seconds and Tokens are the model calls of an answer, or of a
	// unit in this run, their model time and their tokens.
	Calls   int     `json:"calls,omitempty"`
	Seconds float64 `json:"seconds,omitempty"`
	Tokens  int     `json:"tokens,omitempty"`
	Message string  `json:"message,omitempty"`
	// Text is a piece of a role's answer as it arrives (chunk events).
	Text string `json:"text,omitempty"`
	// Problems are the errors of a refused answer, one per item.
	Problems []string `json:"problems,omitempty"`
	// Extra holds what the protocol tells of the event besides, by JSON
	// key (dialectic's exchange event: ids, scores, rescored and
	// cumulative_scores).
	Extra map[string]any `json:"-"`
	// Ends marks the event that completes a unit.
	Ends bool `json:"-"`
	// Begins marks an event that says what a step begins (sm.Step.Begins).
	Begins bool `json:"-"`
}

// MarshalJSON writes the event, its Extra keys after the others; an event
// that completes a unit always has its calls, seconds and tokens, even
// when they are zero (answers kept from an earlier run cost nothing).
func (e Event) MarshalJSON() ([]byte, error) {
	type plain Event
	var data []byte
	var err error
	if !e.Ends {
		data, err = json.Marshal(plain(e))
	} else {
		data, err = json.Marshal(struct {
			plain
			Calls   int     `json:"calls"`
			Seconds float64 `json:"seconds"`
			Tokens  int     `json:"tokens"`
		}{plain(e), e.Calls, e.Seconds, e.Tokens})
	}
	if err != nil || len(e.Extra) == 0 {
		return data, err
	}
	keys := make([]string, 0, len(e.Extra))
	for k := range e.Extra {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b bytes.Buffer
	b.Write(data[:len(data)-1])
	for _, k := range keys {
		v, err := json.Marshal(e.Extra[k])
		if err != nil {
			return nil, err
		}
		kj, _ := json.Marshal(k)
		b.WriteByte(',')
		b.Write(kj)
		b.WriteByte(':')
		b.Write(v)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// Event kinds.
const (
	EventAsk      = "ask"      // a role is being asked
	EventAnswer   = "answer"   // a model answered, before the answer is checked
	EventRepair   = "repair"   // an answer was refused and sent back
	EventReused   = "reused"   // an answer already paid for was used again
	EventArgued   = "argued"   // an argument was accepted and written
	EventScored   = "scored"   // an argument was scored
	EventRescored = "rescored" // an earlier argument was rescored
	EventExchange = "exchange" // an exchange was judged: it is complete
	EventRetry    = "retry"    // a request failed and is tried again
	EventChunk    = "chunk"    // a piece of a role's answer arrived (Options.Chunks)
	EventDiscard  = "discard"  // the chunks of a failed attempt will not be committed
	EventComplete = "complete" // the run's last commit completed the debate
)

// Options configure a run.
type Options struct {
	Client       Completer
	Templates    *templates.Set
	Overrides    Overrides
	DefaultModel string
	// Repairs is how many times a refused answer is sent back.
	Repairs int
	// Fresh ignores answers already paid for.
	Fresh bool
	// KeepGoing records a missable call (sm.Call.Missable) whose answers
	// were refused after every repair as missing, and goes on, instead of
	// stopping the run (moot run --keep-going).
	KeepGoing bool
	Now       func() time.Time
	// Emit receives progress events; Warn receives notices for people.
	Emit func(Event)
	Warn func(string)
	// Chunks asks models to stream their answers and emits each piece as
	// it arrives (EventChunk). Only whole, accepted answers are committed.
	Chunks bool
	// Mask hides secrets (the API key) in text before anything is written
	// or shown. nil means the client's Mask method when it has one.
	Mask func(string) string
	// BeforeStep, when set, is shown each step before anything of it is
	// asked or written: an error stops the run there, returned as it is,
	// with every earlier step committed and nothing of this one begun.
	// moot run --budget prices the plan with it.
	BeforeStep func(StepPlan) error
	// Research gives the tools of a debate that researches (see
	// research.go); it is called only when the debate's settings turn
	// research on.
	Research func() (*ResearchTools, error)
	// Serial asks the calls of a step one after another, in their order,
	// instead of all at once: a run whose model takes no time (moot demo)
	// then logs its calls in the same order every time.
	Serial bool
	// NoPrompts keeps no transcript of the calls (Usage.Transcript):
	// what each was sent and answered is then not kept.
	NoPrompts bool
	// Person, when set, answers the calls of the roles a person plays
	// (moot run --human) in place of the model, after the step's model
	// calls.
	Person Person
	// committed, when set, is called once each step is committed, before
	// what was kept for its calls is removed.
	committed func(*sm.Step) error
	// Sequential asks no call before the step it belongs to comes (moot
	// run --sequential). Without it, a call whose prompt reads nothing
	// the steps still out will answer is asked while they are (see
	// sm.Lookahead); the steps are committed in order all the same.
	Sequential bool
}

// StepPlan is what a step is about to ask, for Options.BeforeStep.
type StepPlan struct {
	// Unit is the step's unit (dialectic's exchange) and Key its key.
	Unit int
	Key  string
	// Early marks a step foreseen while an earlier one is under way,
	// whose calls are about to be asked ahead of its turn: an error then
	// only keeps them from being asked early, and the step's plan is
	// shown again when its turn comes.
	Early bool
	// Calls are the calls the step makes, in its order.
	Calls []PlannedCall
	// Spent is the usage of every call this run has made so far.
	Spent []Usage
	// InFlight are the calls of other steps this run has asked and that
	// have not answered yet, so not in Spent: those of the step under
	// way, when the calls of a later step are asked early (see
	// Options.Sequential).
	InFlight []PlannedCall
}

// PlannedCall is one call of a StepPlan.
type PlannedCall struct {
	ID   string
	Role string
	// Model is the model that will be asked, the settings in force
	// applied.
	Model string
	// PromptBytes is the length of the messages sent (of the texts, for
	// embeddings), before any repair.
	PromptBytes int
	// MaxTokens is the cap on the answer's length, 0 for none.
	MaxTokens int
	// Embed marks a request for embeddings, which has no answer text.
	Embed bool
	// Kept marks a call answered by what an interrupted run kept, or
	// asked already, ahead of its step, by this run (and counted when it
	// was): it will ask no model and cost nothing more.
	Kept bool
	// Person marks a call a person answers (--human): it asks no model
	// and costs nothing.
	Person bool
}

// Summary is what a run did.
type Summary struct {
	Steps int `json:"steps"`
	// Calls counts every model call of the run, Failed those of them
	// that got no answer (the same count as ReadUsage's).
	Calls            int           `json:"calls"`
	Failed           int           `json:"failed_calls"`
	PromptTokens     int           `json:"prompt_tokens"`
	CachedTokens     int           `json:"cached_tokens"`
	CacheWriteTokens int           `json:"cache_write_tokens,omitempty"`
	CompletionTokens int           `json:"completion_tokens"`
	Elapsed          time.Duration `json:"-"`
	Warnings         []string      `json:"warnings"`
	// Usage is the line of the usage log of every call of the run, in the
	// order they were logged.
	Usage []Usage `json:"-"`
}

// RoleError is a role that gave no acceptable answer: the model failed, or
// its answers broke the rules every time.
type RoleError struct {
	Role     string
	Exchange int
	// Unit is what the protocol's steps count, as Exchange numbers them;
	// empty means "exchange".
	Unit string
	// Model is set for a call on a model of its own, such as a panel's
	// judge, so that the error says which judge failed.
	Model    string
	Problems []string // the errors of the last answer, when it broke rules
	Saved    string   // where the raw answers were kept
	// Missable says the debate could have gone on without the call, had
	// the run been asked to (--keep-going).
	Missable bool
	Err      error // the model's failure, when it failed
}

func (e *RoleError) Error() string {
	unit := cmp.Or(e.Unit, "exchange")
	if e.Model != "" {
		if e.Err != nil {
			return fmt.Sprintf("%s %d: the %s on model %s failed: %v", unit, e.Exchange, e.Role, e.Model, e.Err)
		}
		return fmt.Sprintf("%s %d: the answer of the %s on model %s was refused after every repair:\n  %s", unit, e.Exchange, e.Role, e.Model, strings.Join(e.Problems, "\n  "))
	}
	if e.Err != nil {
		return fmt.Sprintf("%s %d: the %s's model failed: %v", unit, e.Exchange, e.Role, e.Err)
	}
	return fmt.Sprintf("%s %d: the %s's answer was refused after every repair:\n  %s", unit, e.Exchange, e.Role, strings.Join(e.Problems, "\n  "))
}

func (e *RoleError) Unwrap() error { return e.Err }

type runner struct {
	opts     Options
	d        *store.Dir
	mu       sync.Mutex
	settings Settings
	sum      Summary
	// spent is what the model calls of each exchange cost in this run.
	spent map[int]*Event
	// unit is what the debate's steps count.
	unit string
	// research is the research of a debate that researches; nil
	// otherwise (see research.go).
	research *researchState
	// script is the protocol's script for moot's built-in model; nil for
	// a protocol without one.
	script sm.Scripted
	// early holds the calls asked ahead of their step (see pipeline.go).
	early pipeline
}

// scriptFor is the built-in model's answer to call c (see
// model.Request.Script), nil when the protocol has no script. repair
// reports that the request sends an answer back.
func (r *runner) scriptFor(c sm.Call, repair bool) func([]model.Message) (string, error) {
	if r.script == nil {
		return nil
	}
	return func(msgs []model.Message) (string, error) {
		// The answers sent back and their repair messages, after the
		// call's own, are left out: Repair says that there are some.
		msgs = msgs[:min(len(msgs), len(c.Messages))]
		call := sm.ScriptCall{Role: c.Role, Kind: c.Kind, Repair: repair, Messages: make([]sm.Message, len(msgs))}
		for i, m := range msgs {
			call.Messages[i] = sm.Message{Role: m.Role, Content: m.Content}
		}
		return r.script.Script(call)
	}
}

// newRunner returns a runner of d with the defaults of opts filled in and
// every event and notice masked.
func newRunner(d *store.Dir, opts Options) *runner {
	r := &runner{opts: opts, d: d, spent: map[int]*Event{}}
	if r.opts.Now == nil {
		r.opts.Now = time.Now
	}
	if r.opts.Emit == nil {
		r.opts.Emit = func(Event) {}
	}
	if r.opts.Warn == nil {
		r.opts.Warn = func(string) {}
	}
	if r.opts.Mask == nil {
		if m, ok := opts.Client.(interface{ Mask(string) string }); ok {
			r.opts.Mask = m.Mask
		} else {
			r.opts.Mask = func(s string) string { return s }
		}
	}
	emit, warn := r.opts.Emit, r.opts.Warn
	r.opts.Emit = func(e Event) { emit(r.maskEvent(e)) }
	r.opts.Warn = func(s string) { warn(r.opts.Mask(s)) }
	return r
}

func (r *runner) finish(start time.Time) Summary {
	r.sum.Elapsed = time.Since(start)
	return r.sum
}

// maskedError hides secrets in the message of the error it wraps, which
// stays reachable by errors.Is and errors.As.
type maskedError struct {
	err  error
	mask func(string) string
}

func (e maskedError) Error() string { return e.mask(e.err.Error()) }
func (e maskedError) Unwrap() error { return e.err }

// maskEvent hides secrets in every text of e.
func (r *runner) maskEvent(e Event) Event {
	m := r.opts.Mask
	e.Role, e.Model, e.ID, e.Title, e.Message, e.Text = m(e.Role), m(e.Model), m(e.ID), m(e.Title), m(e.Message), m(e.Text)
	return e
}

type failedAttempt struct {
	Answer string   `json:"answer"`
	Errors []string `json:"errors"`
}

// saveFailed keeps the raw answers of a role that failed under
// .moot/failed/ and returns the file's path inside the debate.
func (r *runner) saveFailed(x int, role string, attempts []failedAttempt) string {
	if len(attempts) == 0 {
		return ""
	}
	name := fmt.Sprintf("failed/%s-%05d-%s.json", r.opts.Now().UTC().Format("20060102T150405.000000Z"), x, role)
	data, err := frontmatter.Marshal(map[string]any{"exchange": x, "role": role, "attempts": attempts})
	if err == nil {
		err = r.d.WritePrivate(name, []byte(r.opts.Mask(string(data))))
	}
	if err != nil {
		r.opts.Warn(fmt.Sprintf("cannot keep the failed answers: %v", err))
		return ""
	}
	return store.PrivateDir + "/" + name
}

// UsageFile is the private log of every model call.
const UsageFile = "usage.jsonl"

// Usage is one line of the usage log.
type Usage struct {
	Time         string `json:"time"`
	Exchange     int    `json:"exchange"`
	Role         string `json:"role"`
	Model        string `json:"model"`
	PromptTokens int    `json:"prompt_tokens"`
	// CachedTokens is the part of PromptTokens the server read from its
	// prompt cache, as it reported; left out when 0 or not reported, as
	// in the lines of moots that did not read it.
	CachedTokens int `json:"cached_tokens,omitempty"`
	// CacheWriteTokens is the part of PromptTokens the server wrote to
	// its prompt cache, as it reported (Anthropic and Gemini bill it
	// above the input price); left out when 0 or not reported.
	CacheWriteTokens int `json:"cache_write_tokens,omitempty"`
	CompletionTokens int `json:"completion_tokens"`
	// ReasoningTokens is the part of CompletionTokens the model spent
	// reasoning, as the server reported (OpenAI's reasoning models);
	// left out when 0 or not reported.
	ReasoningTokens int `json:"reasoning_tokens,omitempty"`
	// Seconds is the call's whole wall time, retries included, and
	// Attempts the requests it took.
	Seconds  float64 `json:"seconds"`
	Attempts int     `json:"attempts,omitempty"`
	OK       bool    `json:"ok"`
	// Asked is the model asked, when the server named the model that
	// answered (Model) otherwise, such as a dated version of it.
	Asked string `json:"asked,omitempty"`
	// Transcript names the file under .moot/ that keeps what the call
	// was sent and answered (see ReadTranscript); left out when none was
	// kept (Options.NoPrompts, or a moot that kept none).
	Transcript string `json:"transcript,omitempty"`
}

// logUsage logs a call that ended, with err when it got no answer, and
// keeps its transcript t (nil for none, or when transcripts are off; one
// that cannot be written is said, and costs the call nothing else). The
// transcript is in place before the usage line names it, so that a run
// killed in between leaves at most a file no line names.
func (r *runner) logUsage(x int, role string, modelName string, resp model.Response, err error, t *Transcript) {
	r.logUsageThen(x, role, modelName, resp, err, t, nil, "")
}

// usageOf is the line of the usage log of a call that ended, with err
// when it got no answer, before its transcript is kept.
func (r *runner) usageOf(x int, role string, modelName string, resp model.Response, err error) Usage {
	u := Usage{
		Time: r.opts.Now().UTC().Format(time.RFC3339), Exchange: x, Role: string(role), Model: modelName,
		PromptTokens: resp.PromptTokens, CachedTokens: resp.CachedTokens, CacheWriteTokens: resp.CacheWriteTokens, CompletionTokens: resp.CompletionTokens,
		ReasoningTokens: resp.ReasoningTokens, Seconds: resp.Latency.Seconds(), Attempts: resp.Attempts, OK: err == nil,
	}
	if resp.Model != "" && resp.Model != u.Model {
		u.Model, u.Asked = resp.Model, u.Model
	}
	return u
}

// logUsageThen is logUsage, which then makes the writes then (the
// answer kept, see call), and reports whether it made them: the
// transcript, the usage line and then are written in that order, their
// syncs overlapping (store.WritePrivates). Without then, or when that
// fails, the transcript and the line are written one after the other
// and then is left to the caller.
//
// accepted, when not "", is the flightKey of the call whose answer was
// recorded as accepted before it was logged (see accept): once logged,
// it is counted as spent from the log alone.
func (r *runner) logUsageThen(x int, role string, modelName string, resp model.Response, err error, t *Transcript, then []store.PrivateWrite, accepted string) bool {
	u := r.usageOf(x, role, modelName, resp, err)
	var tw []store.PrivateWrite
	if t != nil {
		t.Unit, t.Role, t.Model, t.Answer, t.Error = x, string(role), u.Model, resp.Text, errText(err)
		if name, data, ok := r.transcriptFile(t); ok {
			tw = []store.PrivateWrite{{Name: name, Data: data}}
			u.Transcript = name
		}
	}
	// done counts the writes of the transcript and the line made.
	done, kept := 0, false
	if len(then) > 0 {
		ws := append(append(tw, store.PrivateWrite{Name: UsageFile, Data: r.usageLine(u), Append: true}), then...)
		n, werr := r.d.WritePrivates(ws)
		done, kept = min(n, len(tw)+1), werr == nil
	}
	if len(tw) > 0 && done == 0 {
		if werr := r.d.WritePrivate(tw[0].Name, tw[0].Data); werr != nil {
			r.opts.Warn(fmt.Sprintf("cannot keep the call's prompt: %v", werr))
			u.Transcript = ""
		}
	}
	r.mu.Lock()
	r.sum.Calls++
	if err != nil {
		r.sum.Failed++
	}
	r.sum.PromptTokens += resp.PromptTokens
	r.sum.CachedTokens += resp.CachedTokens
	r.sum.CacheWriteTokens += resp.CacheWriteTokens
	r.sum.CompletionTokens += resp.CompletionTokens
	logged := u
	logged.Model, logged.Asked = r.opts.Mask(u.Model), r.opts.Mask(u.Asked)
	r.sum.Usage = append(r.sum.Usage, logged)
	if accepted != "" {
		r.early.logged(accepted)
	}
	sp := r.spent[x]
	if sp == nil {
		sp = &Event{}
		r.spent[x] = sp
	}
	sp.Calls++
	sp.Seconds += resp.Latency.Seconds()
	sp.Tokens += resp.PromptTokens + resp.CompletionTokens
	r.mu.Unlock()
	if done < len(tw)+1 {
		if werr := r.d.AppendPrivate(UsageFile, r.usageLine(u)); werr != nil {
			r.opts.Warn(fmt.Sprintf("cannot log usage: %v", werr))
		}
	}
	if err == nil {
		r.opts.Emit(Event{Time: r.opts.Now(), Kind: EventAnswer, Exchange: x, Role: string(role), Model: u.Model,
			Seconds: resp.Latency.Seconds(), Tokens: resp.PromptTokens + resp.CompletionTokens})
	}
	return kept
}

// usageLine is the line of the usage log of u, its secrets masked.
func (r *runner) usageLine(u Usage) []byte {
	line, _ := json.Marshal(u)
	return append([]byte(r.opts.Mask(string(line))), '\n')
}

// Totals sums the usage log of a debate, over all its runs: Calls counts
// every model call, Failed those that got no answer.
type Totals struct {
	Calls            int     `json:"calls"`
	Failed           int     `json:"failed_calls"`
	PromptTokens     int     `json:"prompt_tokens"`
	CachedTokens     int     `json:"cached_tokens"`
	CacheWriteTokens int     `json:"cache_write_tokens,omitempty"`
	CompletionTokens int     `json:"completion_tokens"`
	Seconds          float64 `json:"seconds"`
}

// ReadUsage sums the usage log of d; a debate never run has none.
func ReadUsage(d *store.Dir) (Totals, error) {
	lines, err := ReadUsageLines(d)
	return SumUsage(lines), err
}

// SumUsage sums lines of the usage log.
func SumUsage(lines []Usage) Totals {
	var t Totals
	for _, u := range lines {
		t.Calls++
		if !u.OK {
			t.Failed++
		}
		t.PromptTokens += u.PromptTokens
		t.CachedTokens += u.CachedTokens
		t.CacheWriteTokens += u.CacheWriteTokens
		t.CompletionTokens += u.CompletionTokens
		t.Seconds += u.Seconds
	}
	return t
}

// ReadUsageLines reads the usage log of d, a line per call in the order
// they were made; a debate never run has none. A line that does not
// parse (cut short by a crash) is skipped.
func ReadUsageLines(d *store.Dir) ([]Usage, error) {
	data, err := d.ReadPrivate(UsageFile)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []Usage
	for _, line := range bytes.Split(data, []byte("\n")) {
		var u Usage
		if len(bytes.TrimSpace(line)) == 0 || json.Unmarshal(line, &u) != nil {
			continue
		}
		out = append(out, u)
	}
	return out, nil
}
