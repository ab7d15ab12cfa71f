// Package run drives a debate with language models: it asks the debaters
// and the judge for the answer the debate waits for, puts each answer
// through the same rules and commit path as process-exchange and
// process-judge, sends refused answers back for repair, and keeps answers
// already paid for until they are committed. Everything it needs to resume
// is in the debate directory.
package driver

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"strings"
	"sync"
	"time"

	"github.com/moot-dev/moot/internal/english"
	"github.com/moot-dev/moot/internal/frontmatter"
	"github.com/moot-dev/moot/internal/model"
	"github.com/moot-dev/moot/statemachine/dialectic"
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
	// IDs and Scores are the arguments a judgment scored and their scores,
	// in the same order; Rescored the earlier arguments it rescored.
	IDs      []string          `json:"ids,omitempty"`
	Scores   []float64         `json:"scores,omitempty"`
	Rescored []string          `json:"rescored,omitempty"`
	Totals   *dialectic.Totals `json:"cumulative_scores,omitempty"`
	// Calls, Seconds and Tokens are the model calls of an answer, or of an
	// exchange in this run, their model time and their tokens.
	Calls   int     `json:"calls,omitempty"`
	Seconds float64 `json:"seconds,omitempty"`
	Tokens  int     `json:"tokens,omitempty"`
	Message string  `json:"message,omitempty"`
	// Problems are the errors of a refused answer, one per item.
	Problems []string `json:"problems,omitempty"`
}

// MarshalJSON writes the event; an exchange event always has its calls,
// seconds and tokens, even when they are zero (answers kept from an
// earlier run cost nothing).
func (e Event) MarshalJSON() ([]byte, error) {
	type plain Event
	if e.Kind != EventExchange {
		return json.Marshal(plain(e))
	}
	return json.Marshal(struct {
		plain
		Calls   int     `json:"calls"`
		Seconds float64 `json:"seconds"`
		Tokens  int     `json:"tokens"`
	}{plain(e), e.Calls, e.Seconds, e.Tokens})
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
	Now   func() time.Time
	// Emit receives progress events; Warn receives notices for people.
	Emit func(Event)
	Warn func(string)
	// Mask hides secrets (the API key) in text before anything is written
	// or shown. nil means the client's Mask method when it has one.
	Mask func(string) string
}

// Summary is what a run did.
type Summary struct {
	Steps int `json:"steps"`
	// Calls counts every model call of the run, Failed those of them
	// that got no answer (the same count as ReadUsage's).
	Calls            int           `json:"calls"`
	Failed           int           `json:"failed_calls"`
	PromptTokens     int           `json:"prompt_tokens"`
	CompletionTokens int           `json:"completion_tokens"`
	Elapsed          time.Duration `json:"-"`
	Warnings         []string      `json:"warnings"`
}

// RoleError is a role that gave no acceptable answer: the model failed, or
// its answers broke the rules every time.
type RoleError struct {
	Role     dialectic.Role
	Exchange int
	Problems []string // the errors of the last answer, when it broke rules
	Saved    string   // where the raw answers were kept
	Err      error    // the model's failure, when it failed
}

func (e *RoleError) Error() string {
	if e.Err != nil {
		return fmt.Sprintf("exchange %d: the %s's model failed: %v", e.Exchange, e.Role, e.Err)
	}
	return fmt.Sprintf("exchange %d: the %s's answer was refused after every repair:\n  %s", e.Exchange, e.Role, strings.Join(e.Problems, "\n  "))
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
}

// Goal says when a run stops: after Steps phases when Steps > 0, else
// when the debate reaches exchange Exchange in the arguments phase, that is
// when every exchange before it is judged.
type Goal struct {
	Exchange int
	Steps    int
}

func (g Goal) reached(st dialectic.State, steps int) bool {
	if g.Steps > 0 {
		return steps >= g.Steps
	}
	return st.Exchange >= g.Exchange && st.Phase == dialectic.AwaitingArguments
}

// Run advances the debate in d until goal is reached. It stops at the first
// failure, leaving the debate at the last completed step.
func Run(ctx context.Context, d *store.Dir, goal Goal, opts Options) (Summary, error) {
	start := time.Now()
	r := newRunner(d, opts)
	if err := dialectic.Validate(r.opts.Templates); err != nil {
		return r.sum, err
	}
	deb, err := Load(d)
	if err != nil {
		return r.sum, err
	}
	stored, err := LoadSettings(deb.Header)
	if err != nil {
		return r.sum, err
	}
	var changes []string
	r.settings, changes = stored.Merge(opts.Overrides, opts.DefaultModel)
	for _, c := range changes {
		r.opts.Warn(c + " (stored in debate.md)")
	}
	for !goal.reached(deb.Header.State, r.sum.Steps) {
		if err := ctx.Err(); err != nil {
			return r.finish(start), err
		}
		if err := r.step(ctx, deb); err != nil {
			return r.finish(start), err
		}
		r.sum.Steps++
		if deb, err = Load(d); err != nil {
			return r.finish(start), err
		}
	}
	return r.finish(start), nil
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

func (r *runner) step(ctx context.Context, deb *dialectic.Debate) error {
	if deb.Header.State.Phase == dialectic.AwaitingJudgment {
		return r.judge(ctx, deb)
	}
	return r.argue(ctx, deb)
}

// storeSettings puts the settings in force into debate.md before a commit.
func (r *runner) storeSettings(deb *dialectic.Debate) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	s := r.settings
	if len(s.Temperature) == 0 {
		s.Temperature = nil
	}
	if len(s.MaxTokens) == 0 {
		s.MaxTokens = nil
	}
	return deb.Header.SetSetting(SettingsKey, s)
}

func (r *runner) argue(ctx context.Context, deb *dialectic.Debate) error {
	x := deb.Header.State.Exchange
	known := deb.Known()
	// Both prompts are built before either side is asked, so that a
	// template failing for one side costs no call for the other.
	prompts := map[dialectic.Side]dialectic.Prompt{}
	for _, side := range dialectic.Sides {
		p, err := dialectic.Debater(r.opts.Templates, deb, side)
		if err != nil {
			return err
		}
		prompts[side] = p
	}
	answers := map[dialectic.Side][]byte{}
	errs := map[dialectic.Side]error{}
	var wg sync.WaitGroup
	var mu sync.Mutex
	for _, side := range dialectic.Sides {
		wg.Go(func() {
			text, err := r.ask(ctx, prompts[side], x, func(text []byte) dialectic.Problems {
				_, probs := dialectic.ParseSubmissions(Unwrap(text), side, x, known)
				return probs
			})
			mu.Lock()
			defer mu.Unlock()
			answers[side], errs[side] = Unwrap(text), err
		})
	}
	// A side that fails does not stop the other: its answer is being paid
	// for, and is kept for the next run. Either way no call outlives the
	// step: the step waits for both (an interruption cancels both).
	wg.Wait()
	var failed []error
	for _, side := range dialectic.Sides {
		if errs[side] != nil {
			failed = append(failed, errs[side])
		}
	}
	if err := ctx.Err(); err != nil && len(failed) > 0 {
		return err
	}
	if len(failed) > 0 {
		return errors.Join(failed...)
	}
	ex, err := CheckExchange(deb, x, answers)
	if err != nil {
		return err
	}
	r.sum.Warnings = append(r.sum.Warnings, ex.Warnings...)
	if err := r.storeSettings(deb); err != nil {
		return err
	}
	if err := CommitExchange(r.d, deb, ex); err != nil {
		return err
	}
	for _, a := range ex.Arguments {
		r.opts.Emit(Event{Time: r.opts.Now(), Kind: EventArgued, Exchange: x, Role: string(dialectic.RoleOf(a.Side)), ID: a.ID, Title: a.Title})
	}
	r.forget(x, dialectic.Proposition, dialectic.Opposition)
	return nil
}

func (r *runner) judge(ctx context.Context, deb *dialectic.Debate) error {
	x := deb.Header.State.Exchange
	p, err := dialectic.JudgePrompt(r.opts.Templates, deb)
	if err != nil {
		return err
	}
	text, err := r.ask(ctx, p, x, func(text []byte) dialectic.Problems {
		_, probs, _ := CheckJudgment(deb, text)
		return probs
	})
	if err != nil {
		return err
	}
	j, probs, err := CheckJudgment(deb, text)
	if err != nil {
		return err
	}
	r.sum.Warnings = append(r.sum.Warnings, probs.Warnings...)
	if err := r.storeSettings(deb); err != nil {
		return err
	}
	if err := CommitJudgment(r.d, deb, j, r.opts.Now()); err != nil {
		return err
	}
	for _, s := range j.Scores {
		score := s.Score
		title := ""
		if a, ok := deb.Argument(s.ArgumentID); ok {
			title = a.Title
		}
		r.opts.Emit(Event{Time: r.opts.Now(), Kind: EventScored, Exchange: x, Role: string(dialectic.Judge), ID: s.ArgumentID, Title: title, Score: &score})
	}
	for _, rs := range j.Rescores {
		score := rs.NewScore
		r.opts.Emit(Event{Time: r.opts.Now(), Kind: EventRescored, Exchange: x, Role: string(dialectic.Judge), ID: rs.ArgumentID, Score: &score})
	}
	done := Event{Time: r.opts.Now(), Kind: EventExchange, Exchange: x, IDs: []string{}, Scores: []float64{},
		Message: fmt.Sprintf("proposition %s · opposition %s", dialectic.FormatScore(deb.Header.Totals.Proposition.Total), dialectic.FormatScore(deb.Header.Totals.Opposition.Total))}
	for _, s := range j.Scores {
		done.IDs, done.Scores = append(done.IDs, s.ArgumentID), append(done.Scores, s.Score)
	}
	for _, rs := range j.Rescores {
		done.Rescored = append(done.Rescored, rs.ArgumentID)
	}
	totals := deb.Header.Totals
	done.Totals = &totals
	r.mu.Lock()
	if sp := r.spent[x]; sp != nil {
		done.Calls, done.Seconds, done.Tokens = sp.Calls, sp.Seconds, sp.Tokens
	}
	delete(r.spent, x)
	r.mu.Unlock()
	r.opts.Emit(done)
	r.forget(x, dialectic.Judge)
	return nil
}

// Unwrap takes an opening's arguments out of the {"arguments": [...]}
// object that structured output asks for; any other answer is returned as
// it is.
func Unwrap(text []byte) []byte {
	body, err := dialectic.ExtractJSON(text)
	if err != nil || len(body) == 0 || body[0] != '{' {
		return text
	}
	var obj frontmatter.Object
	if err := json.Unmarshal(body, &obj); err != nil || len(obj.Fields) != 1 || obj.Fields[0].Key != "arguments" {
		return text
	}
	return bytes.TrimSpace(obj.Fields[0].Value)
}

// paidName is where an accepted answer waits for its commit.
func paidName(x int, role dialectic.Role) string {
	return fmt.Sprintf("answers/%05d-%s.json", x, role)
}

func (r *runner) forget(x int, roles ...dialectic.Role) {
	for _, role := range roles {
		_ = r.d.RemovePrivate(paidName(x, role))
	}
}

// ask gets an acceptable answer from role: one already paid for, or the
// model's, repaired in the same conversation up to Repairs times.
func (r *runner) ask(ctx context.Context, p dialectic.Prompt, x int, check func([]byte) dialectic.Problems) ([]byte, error) {
	if !r.opts.Fresh {
		if data, err := r.d.ReadPrivate(paidName(x, p.Role)); err == nil {
			if probs := check(data); probs.OK() {
				r.opts.Emit(Event{Time: r.opts.Now(), Kind: EventReused, Exchange: x, Role: string(p.Role), Message: "answer kept from an earlier run"})
				return data, nil
			}
		} else if !errors.Is(err, fs.ErrNotExist) {
			r.opts.Warn(fmt.Sprintf("cannot read a kept answer: %v", err))
		}
	}
	r.mu.Lock()
	rs := r.settings.Role(p.Role)
	mode := model.Mode(r.settings.ResponseFormat)
	r.mu.Unlock()
	msgs := make([]model.Message, 0, len(p.Messages)+2*r.opts.Repairs)
	for _, m := range p.Messages {
		msgs = append(msgs, model.Message{Role: m.Role, Content: m.Content})
	}
	var attempts []failedAttempt
	for try := 0; try <= r.opts.Repairs; try++ {
		r.opts.Emit(Event{Time: r.opts.Now(), Kind: EventAsk, Exchange: x, Role: string(p.Role), Model: rs.Model})
		start := time.Now()
		resp, err := r.opts.Client.Complete(ctx, model.Request{
			Model: rs.Model, Messages: msgs, Temperature: rs.Temperature, MaxTokens: rs.MaxTokens,
			Mode: mode, SchemaName: p.SchemaName, Schema: p.Schema,
			OnRetry: func(rt model.Retry) {
				r.opts.Emit(Event{Time: r.opts.Now(), Kind: EventRetry, Exchange: x, Role: string(p.Role), Model: rs.Model,
					Seconds: rt.Wait.Seconds(),
					Message: fmt.Sprintf("attempt %d of %d failed (%s); trying again in %.1f s", rt.Attempt, rt.Of, rt.Reason, rt.Wait.Seconds())})
			},
		})
		// The call's whole time, retries included, whatever the client
		// reports.
		resp.Latency = max(resp.Latency, time.Since(start))
		if err == nil {
			err = CheckSize(string(p.Role), []byte(resp.Text))
			if err != nil {
				resp.Text = ""
			}
		}
		resp.Text, resp.Model = r.opts.Mask(resp.Text), r.opts.Mask(resp.Model)
		r.logUsage(x, p.Role, rs.Model, resp, err)
		if err != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			saved := r.saveFailed(x, p.Role, attempts)
			return nil, &RoleError{Role: p.Role, Exchange: x, Err: maskedError{err, r.opts.Mask}, Saved: saved}
		}
		r.mu.Lock()
		if resp.Mode != "" && string(resp.Mode) != r.settings.ResponseFormat {
			r.settings.ResponseFormat = string(resp.Mode)
			mode = resp.Mode
		}
		r.mu.Unlock()
		text := []byte(resp.Text)
		probs := check(text)
		if resp.Truncated && !probs.OK() {
			probs.Errors = append(probs.Errors, "the answer was cut off at the token limit: answer more briefly")
		}
		if probs.OK() {
			if err := r.d.WritePrivate(paidName(x, p.Role), text); err != nil {
				r.opts.Warn(fmt.Sprintf("cannot keep the %s's answer: %v", p.Role, err))
			}
			return text, nil
		}
		attempts = append(attempts, failedAttempt{Answer: resp.Text, Errors: probs.Errors})
		if try == r.opts.Repairs {
			saved := r.saveFailed(x, p.Role, attempts)
			return nil, &RoleError{Role: p.Role, Exchange: x, Problems: probs.Errors, Saved: saved}
		}
		r.opts.Emit(Event{Time: r.opts.Now(), Kind: EventRepair, Exchange: x, Role: string(p.Role),
			Message: fmt.Sprintf("%s: %s", english.Count(len(probs.Errors), "problem"), probs.Errors[0]), Problems: probs.Errors})
		repair, err := dialectic.Repair(r.opts.Templates, probs.Errors)
		if err != nil {
			return nil, err
		}
		msgs = append(msgs, model.Message{Role: "assistant", Content: resp.Text}, model.Message{Role: repair.Role, Content: repair.Content})
	}
	return nil, errors.New("unreachable")
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
	e.Role, e.Model, e.ID, e.Title, e.Message = m(e.Role), m(e.Model), m(e.ID), m(e.Title), m(e.Message)
	return e
}

type failedAttempt struct {
	Answer string   `json:"answer"`
	Errors []string `json:"errors"`
}

// saveFailed keeps the raw answers of a role that failed under
// .moot/failed/ and returns the file's path inside the debate.
func (r *runner) saveFailed(x int, role dialectic.Role, attempts []failedAttempt) string {
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
	Time             string `json:"time"`
	Exchange         int    `json:"exchange"`
	Role             string `json:"role"`
	Model            string `json:"model"`
	PromptTokens     int    `json:"prompt_tokens"`
	CompletionTokens int    `json:"completion_tokens"`
	// Seconds is the call's whole wall time, retries included, and
	// Attempts the requests it took.
	Seconds  float64 `json:"seconds"`
	Attempts int     `json:"attempts,omitempty"`
	OK       bool    `json:"ok"`
}

func (r *runner) logUsage(x int, role dialectic.Role, modelName string, resp model.Response, err error) {
	u := Usage{
		Time: r.opts.Now().UTC().Format(time.RFC3339), Exchange: x, Role: string(role), Model: modelName,
		PromptTokens: resp.PromptTokens, CompletionTokens: resp.CompletionTokens,
		Seconds: resp.Latency.Seconds(), Attempts: resp.Attempts, OK: err == nil,
	}
	if resp.Model != "" {
		u.Model = resp.Model
	}
	r.mu.Lock()
	r.sum.Calls++
	if err != nil {
		r.sum.Failed++
	}
	r.sum.PromptTokens += resp.PromptTokens
	r.sum.CompletionTokens += resp.CompletionTokens
	sp := r.spent[x]
	if sp == nil {
		sp = &Event{}
		r.spent[x] = sp
	}
	sp.Calls++
	sp.Seconds += resp.Latency.Seconds()
	sp.Tokens += resp.PromptTokens + resp.CompletionTokens
	r.mu.Unlock()
	line, _ := json.Marshal(u)
	line = []byte(r.opts.Mask(string(line)))
	if werr := r.d.AppendPrivate(UsageFile, append(line, '\n')); werr != nil {
		r.opts.Warn(fmt.Sprintf("cannot log usage: %v", werr))
	}
	if err == nil {
		r.opts.Emit(Event{Time: r.opts.Now(), Kind: EventAnswer, Exchange: x, Role: string(role), Model: u.Model,
			Seconds: resp.Latency.Seconds(), Tokens: resp.PromptTokens + resp.CompletionTokens})
	}
}

// Totals sums the usage log of a debate, over all its runs: Calls counts
// every model call, Failed those that got no answer.
type Totals struct {
	Calls            int     `json:"calls"`
	Failed           int     `json:"failed_calls"`
	PromptTokens     int     `json:"prompt_tokens"`
	CompletionTokens int     `json:"completion_tokens"`
	Seconds          float64 `json:"seconds"`
}

// ReadUsage sums the usage log of d; a debate never run has none.
func ReadUsage(d *store.Dir) (Totals, error) {
	var t Totals
	data, err := d.ReadPrivate(UsageFile)
	if errors.Is(err, fs.ErrNotExist) {
		return t, nil
	}
	if err != nil {
		return t, err
	}
	for _, line := range bytes.Split(data, []byte("\n")) {
		var u Usage
		if len(bytes.TrimSpace(line)) == 0 || json.Unmarshal(line, &u) != nil {
			continue
		}
		t.Calls++
		if !u.OK {
			t.Failed++
		}
		t.PromptTokens += u.PromptTokens
		t.CompletionTokens += u.CompletionTokens
		t.Seconds += u.Seconds
	}
	return t, nil
}
