package model

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"mime"
	"net"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"
	"unicode/utf8"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/packages/param"
	"github.com/openai/openai-go/v3/shared"
)

// Mode is how structured output is asked of the server.
type Mode string

// The modes, from strongest to weakest. When a server refuses a mode,
// Complete falls back to the next one.
const (
	// ModeSchema sends response_format json_schema with Request.Schema,
	// strict when the schema allows it.
	ModeSchema Mode = "json_schema"
	// ModeObject sends response_format json_object. OpenAI requires the
	// word "JSON" to appear in the messages in this mode.
	ModeObject Mode = "json_object"
	// ModeText sends no response_format: the caller describes the expected
	// JSON in the prompt.
	ModeText Mode = "text"
)

// ParseMode turns a mode name as written in configuration into a Mode. ""
// gives "", which Complete treats as described at Request.Mode.
func ParseMode(s string) (Mode, error) {
	switch m := Mode(strings.TrimSpace(s)); m {
	case "", ModeSchema, ModeObject, ModeText:
		return m, nil
	}
	return "", fmt.Errorf("unknown mode %q: want %s, %s or %s", s, ModeSchema, ModeObject, ModeText)
}

// weaker returns the mode to fall back to after m was refused.
func (m Mode) weaker() (Mode, bool) {
	switch m {
	case ModeSchema:
		return ModeObject, true
	case ModeObject:
		return ModeText, true
	}
	return "", false
}

// Message is one chat message. Role is "system", "user" or "assistant"
// ("developer" is passed through for OpenAI reasoning models).
type Message struct {
	Role    string
	Content string
	// ToolCalls are the tools an assistant message asked to run.
	ToolCalls []ToolCall
	// ToolCallID names the tool call a message of role "tool" answers.
	ToolCallID string
}

// Request is one chat completion to ask for.
type Request struct {
	// Model is the model name as the server knows it.
	Model    string
	Messages []Message
	// Temperature is sent when set. If the server says the model does not
	// support it (as OpenAI's reasoning models do), the request is sent
	// again without it.
	Temperature *float64
	// MaxTokens caps the completion's length; 0 leaves it to the server.
	// It is sent as max_completion_tokens to api.openai.com (and Azure
	// OpenAI), whose newer
	// models refuse max_tokens, and as max_tokens everywhere else, which is
	// what Ollama, llama.cpp, vLLM and OpenRouter all understand. If the
	// server rejects the one sent, the request is sent again with the other.
	MaxTokens int
	// Mode is the mode to try first. "" means ModeSchema when Schema is
	// set and ModeText otherwise.
	Mode Mode
	// SchemaName names the schema for the server; "" means "answer".
	// Characters a server would reject are replaced with '_'.
	SchemaName string
	// Schema is the JSON schema of the expected answer, used in ModeSchema.
	Schema map[string]any
	// OnRetry, when set, is called before each retry of a failed attempt,
	// so that a caller can say why it waits.
	OnRetry func(Retry)
	// OnChunk, when set, asks for the answer as a stream and is called
	// with each piece of its text as it arrives. The Response is the same
	// as without it. The pieces of an attempt that failed have been given
	// already: OnRetry then announces the next attempt, which streams the
	// answer again from its start. A server that does not stream answers
	// whole, and OnChunk is then not called.
	OnChunk func(string)
	// Tools, when not empty, offers the model these tools: its answer may
	// then be Response.ToolCalls instead of text, streamed like text when
	// OnChunk is set (the calls' pieces put together). A server that refuses tools fails with an error
	// wrapping ErrNoTools.
	Tools []Tool
	// Breakpoints, when not empty, mark where prefixes of the prompt
	// that the server should cache end: the content of each message with
	// one is sent as text parts, the part that ends at a breakpoint
	// carrying cache_control (see content in wire.go). At most
	// MaxBreakpoints are sent, the last ones; without any, every content
	// is sent as a plain string.
	Breakpoints []Breakpoint
	// Role names what the request asks for (a debate's role), never
	// sent: a Budget estimates an answer without MaxTokens from the mean
	// of the answers to earlier requests of the same Role.
	Role string
	// Script, when set, is the answer of moot's built-in model to the
	// request, never sent: the script the debate's protocol ships for the
	// call (statemachine.Scripted), given the messages as sent. Every
	// other model ignores it.
	Script func(messages []Message) (string, error)
}

// Breakpoint is the end of a prefix of a prompt to cache: the first
// Offset bytes of the content of message Message, and every message
// before it.
type Breakpoint struct {
	Message, Offset int
}

// MaxBreakpoints is how many cache breakpoints a request may carry, as
// Anthropic allows.
const MaxBreakpoints = 4

// Retry describes a failed attempt that is about to be tried again.
type Retry struct {
	// Attempt is the number of the attempt that failed, from 1, and Of the
	// most attempts there will be.
	Attempt, Of int
	// Wait is the pause before the next attempt.
	Wait time.Duration
	// Reason says what went wrong, without the API key.
	Reason string
}

// Response is a completed chat answer.
type Response struct {
	// Text is the assistant's message.
	Text string
	// Mode is the mode that finally worked; callers may start with it next
	// time to skip refused ones.
	Mode Mode
	// PromptTokens and CompletionTokens are the usage the server reported.
	PromptTokens     int
	CompletionTokens int
	// CachedTokens is the part of PromptTokens the server says it read
	// from its prompt cache (see wireUsage for where each server reports
	// it); 0 when it reported none.
	CachedTokens int
	// CacheWriteTokens is the part of PromptTokens the server says it
	// wrote to its prompt cache (OpenRouter's cache_write_tokens,
	// Anthropic's cache_creation_input_tokens); 0 when it reported none.
	CacheWriteTokens int
	// ReasoningTokens is the part of CompletionTokens the server says
	// the model spent reasoning (OpenAI's reasoning models report it); 0
	// when it reported none.
	ReasoningTokens int
	// UsageReported says the server reported the usage (in the last chunk
	// of a stream, when it streamed), CachedReported that it reported the
	// cached prompt tokens, 0 included, in a field moot reads.
	UsageReported, CachedReported bool
	// Streamed says the answer came as a stream of events.
	Streamed bool
	// Latency is the wall time from the call of Complete to the answer,
	// including retries and fallbacks.
	Latency time.Duration
	// Attempts is the number of requests sent, retries and fallbacks
	// included.
	Attempts int
	// Model is the model name the server reported (the requested one when
	// it reported none).
	Model string
	// Truncated is set when the answer stopped at the token limit
	// (finish_reason "length"), so Text is likely incomplete.
	Truncated bool
	// ToolCalls are the tools the model asked to run, in its order, when
	// the request offered tools; Text may then be empty.
	ToolCalls []ToolCall
}

// variant is what may change between the requests sent for one Complete
// call when the server refuses something.
type variant struct {
	mode            Mode
	tokenField      string // "max_tokens" or "max_completion_tokens"
	sendTemperature bool
	// stream asks for a stream of events; streamUsage asks it to end
	// with the usage (stream_options), which not every server accepts.
	stream, streamUsage bool
}

const (
	fieldMaxTokens           = "max_tokens"
	fieldMaxCompletionTokens = "max_completion_tokens"
)

// Complete sends req and returns the model's answer.
//
// Rate limits, server errors, connection failures, timeouts of an attempt
// and answers cut short are retried up to Config.MaxRetries times in all.
// A server that refuses the response format with a 400 or 422 is asked
// again in the next weaker mode (json_schema, then json_object, then
// text); Response.Mode says which one worked. Other client errors are not
// retried.
//
// The error is an *APIError when the server answered with an error status,
// wraps ErrEmptyCompletion or ErrRefusal when it answered without text, and
// wraps ctx's error (such as context.Canceled) when ctx ended first. The
// API key never appears in it. With an error, the Response still has
// Latency and Attempts, so that a failed call can be accounted for.
//
// Complete asks for an uncompressed answer. An answer larger than
// MaxResponseSize is refused with an error wrapping a *TooLargeError
// before it is read further; a compressed one, sent though not asked for,
// is refused unread with an error wrapping an *EncodingError.
func (c *Client) Complete(ctx context.Context, req Request) (Response, error) {
	start := time.Now()
	cl := &call{model: req.Model, maxTokens: req.MaxTokens, role: req.Role, onRetry: req.OnRetry, onChunk: req.OnChunk}
	resp, err := c.complete(ctx, req, cl, start)
	if err != nil {
		resp = Response{}
	}
	resp.Latency = time.Since(start)
	resp.Attempts = cl.attempts
	return resp, c.scrub(err)
}

func (c *Client) complete(ctx context.Context, req Request, cl *call, start time.Time) (Response, error) {
	// send sends the request in a variant, through the API the client
	// speaks; the fallbacks below are the same for both.
	var send func(v variant) (*chatCompletion, error)
	if c.useResponses {
		input, err := req.responseInput()
		if err != nil {
			return Response{}, err
		}
		send = func(v variant) (*chatCompletion, error) {
			return c.sendResponse(ctx, c.responseParams(req, input, v), v.stream, cl)
		}
	} else {
		msgs, err := req.messages()
		if err != nil {
			return Response{}, err
		}
		send = func(v variant) (*chatCompletion, error) {
			return c.send(ctx, c.params(req, msgs, v), v.stream, cl)
		}
	}
	mode, err := req.firstMode()
	if err != nil {
		return Response{}, err
	}
	if req.MaxTokens < 0 {
		return Response{}, fmt.Errorf("max tokens is %d: it must not be negative", req.MaxTokens)
	}
	v := variant{mode: mode, tokenField: fieldMaxTokens, sendTemperature: req.Temperature != nil,
		stream: req.OnChunk != nil, streamUsage: req.OnChunk != nil}
	if c.openAI || c.azure != nil {
		// Azure OpenAI serves OpenAI's models, which want the same.
		v.tokenField = fieldMaxCompletionTokens
	}
	// The Responses API has one field for the cap (max_output_tokens),
	// and a stream always ends with the usage.
	switchedTokenField := c.useResponses
	if c.useResponses {
		v.streamUsage = false
	}
	for {
		comp, err := send(v)
		if err == nil {
			return c.response(req, v.mode, comp, start)
		}
		var apiErr *APIError
		if !errors.As(err, &apiErr) {
			return Response{}, err
		}
		switch {
		case req.MaxTokens > 0 && !switchedTokenField && rejectsParam(apiErr, v.tokenField):
			switchedTokenField = true
			if v.tokenField == fieldMaxTokens {
				v.tokenField = fieldMaxCompletionTokens
			} else {
				v.tokenField = fieldMaxTokens
			}
			continue
		case v.streamUsage && rejectsParam(apiErr, "stream_options"):
			v.streamUsage = false
			continue
		case v.stream && rejectsParam(apiErr, "stream"):
			v.stream, v.streamUsage = false, false
			continue
		case len(req.Tools) > 0 && refusesTools(apiErr):
			return Response{}, fmt.Errorf("model %q via %s: %w: %s", req.Model, c.BaseURL(), ErrNoTools, apiErr.Message)
		case v.sendTemperature && rejectsParam(apiErr, "temperature"):
			v.sendTemperature = false
			continue
		case refusesFormat(apiErr, v.mode):
			if next, ok := v.mode.weaker(); ok {
				v.mode = next
				continue
			}
		}
		return Response{}, err
	}
}

func (r Request) messages() ([]openai.ChatCompletionMessageParamUnion, error) {
	if strings.TrimSpace(r.Model) == "" {
		return nil, errors.New("request names no model")
	}
	if len(r.Messages) == 0 {
		return nil, errors.New("request has no messages")
	}
	out := make([]openai.ChatCompletionMessageParamUnion, 0, len(r.Messages))
	cuts := map[int][]int{}
	for _, b := range r.Breakpoints[max(0, len(r.Breakpoints)-MaxBreakpoints):] {
		cuts[b.Message] = append(cuts[b.Message], b.Offset)
	}
	for i, m := range r.Messages {
		if parts, ok := content(m.Content, cuts[i]).([]textPart); ok && m.Role != "tool" {
			// cache_control is no field of the SDK's content parts: the
			// message is sent as moot writes it, through the SDK's
			// override.
			out = append(out, param.Override[openai.ChatCompletionMessageParamUnion](partsMessage{
				Role: m.Role, Content: parts, ToolCalls: toolCallParams(m.ToolCalls)}))
			continue
		}
		switch m.Role {
		case "system":
			out = append(out, openai.SystemMessage(m.Content))
		case "developer":
			out = append(out, openai.DeveloperMessage(m.Content))
		case "user":
			out = append(out, openai.UserMessage(m.Content))
		case "assistant":
			a := openai.ChatCompletionAssistantMessageParam{ToolCalls: toolCallParams(m.ToolCalls)}
			a.Content.OfString = openai.String(m.Content)
			out = append(out, openai.ChatCompletionMessageParamUnion{OfAssistant: &a})
		case "tool":
			if m.ToolCallID == "" {
				return nil, fmt.Errorf("message %d has role \"tool\" but names no tool call", i)
			}
			out = append(out, openai.ToolMessage(m.Content, m.ToolCallID))
		default:
			return nil, fmt.Errorf("message %d has role %q: want system, user, assistant or tool", i, m.Role)
		}
	}
	return out, nil
}

func (r Request) firstMode() (Mode, error) {
	switch r.Mode {
	case "":
		if r.Schema != nil {
			return ModeSchema, nil
		}
		return ModeText, nil
	case ModeSchema:
		if r.Schema == nil {
			return "", errors.New("mode json_schema needs a schema")
		}
		return ModeSchema, nil
	case ModeObject, ModeText:
		return r.Mode, nil
	}
	return "", fmt.Errorf("unknown mode %q: want %s, %s or %s", r.Mode, ModeSchema, ModeObject, ModeText)
}

func (c *Client) params(req Request, msgs []openai.ChatCompletionMessageParamUnion, v variant) openai.ChatCompletionNewParams {
	p := openai.ChatCompletionNewParams{
		Model:    req.Model,
		Messages: msgs,
	}
	if v.sendTemperature {
		p.Temperature = openai.Float(*req.Temperature)
	}
	if req.MaxTokens > 0 {
		if v.tokenField == fieldMaxCompletionTokens {
			p.MaxCompletionTokens = openai.Int(int64(req.MaxTokens))
		} else {
			p.MaxTokens = openai.Int(int64(req.MaxTokens))
		}
	}
	for _, t := range req.Tools {
		p.Tools = append(p.Tools, toolParam(t))
	}
	if v.stream && v.streamUsage {
		p.StreamOptions = openai.ChatCompletionStreamOptionsParam{IncludeUsage: openai.Bool(true)}
	}
	switch v.mode {
	case ModeSchema:
		js := shared.ResponseFormatJSONSchemaJSONSchemaParam{Name: schemaName(req.SchemaName), Schema: req.Schema}
		if strictCompatible(req.Schema) {
			js.Strict = openai.Bool(true)
		}
		p.ResponseFormat.OfJSONSchema = &shared.ResponseFormatJSONSchemaParam{JSONSchema: js}
	case ModeObject:
		p.ResponseFormat.OfJSONObject = &shared.ResponseFormatJSONObjectParam{}
	}
	return p
}

// call is the state of one Complete call, shared by the requests it sends.
type call struct {
	model     string
	maxTokens int // the request's, for the budget's estimate
	// role is the request's Role, whose answers the budget's estimate
	// learns from; embed marks a request for embeddings, which has no
	// answer to foresee.
	role  string
	embed bool
	// unmetered marks a request the budget does not count (a list of
	// the models).
	unmetered bool
	attempts  int // requests sent so far
	onRetry   func(Retry)
	onChunk   func(string)
}

// send makes one chat request, with retries, and turns its failure into
// an error for the caller.
func (c *Client) send(ctx context.Context, params openai.ChatCompletionNewParams, stream bool, cl *call) (*chatCompletion, error) {
	var comp chatCompletion
	err := c.do(ctx, cl, &comp, func(x *exchange) error {
		return c.chatAttempt(ctx, params, stream, cl, x, &comp)
	})
	if err != nil {
		return nil, err
	}
	return &comp, nil
}

// do makes attempts, each one SDK request whose answer it decodes into
// out, until one succeeds or retrying would not help, and turns the
// failure into an error for the caller. Every retry is made here, not by
// the SDK (which is given no retries of its own): the SDK's retry loop
// ends when an answer's headers come, so an answer cut short while it is
// read, a stream above all, would never be asked again; and it has no
// hook to announce a retry and its wait (Request.OnRetry), nor to make
// every request sharing a Budget wait out a 429. The rules are the SDK's
// (408, 409, 429 and 5xx, X-Should-Retry, Retry-After-Ms and Retry-After,
// a doubling backoff from 0.5 s to 8 s less a quarter of jitter), with
// moot's additions: a refused connection is tried once more only, a host
// with no address, a refused certificate and a 429 out of credit not
// again.
func (c *Client) do(ctx context.Context, cl *call, out any, attempt func(x *exchange) error) error {
	left := c.maxRetries + 1 // attempts left
	refused := 0
	for retry := 0; ; retry++ {
		var x exchange
		err := attempt(&x)
		if x.budgetErr != nil {
			return fmt.Errorf("request to model %q stopped while waiting for the rate limit: %w", cl.model, x.budgetErr)
		}
		if err != nil && !x.sent && ctx.Err() == nil {
			// The SDK could not build the request: trying again would
			// not change that.
			return fmt.Errorf("building the request for model %q: %w", cl.model, err)
		}
		res := x.res
		estimate := 0
		if x.ticket != nil {
			estimate = x.ticket.tokens
		}
		x.ticket.settleAnswer(spentTokens(out, res, err, estimate), completionTokens(out, err))
		cl.attempts++
		left--
		if err == nil {
			return nil
		}
		if ctx.Err() != nil {
			return fmt.Errorf("request to model %q stopped: %w", cl.model, ctx.Err())
		}
		var tooLarge *TooLargeError
		if errors.As(err, &tooLarge) {
			return fmt.Errorf("model %q via %s: %w", cl.model, c.BaseURL(), tooLarge)
		}
		var encoding *EncodingError
		if errors.As(err, &encoding) {
			return fmt.Errorf("model %q via %s: %w", cl.model, c.BaseURL(), encoding)
		}
		var failure error
		var retryable bool
		var wait time.Duration
		var status *statusError
		if errors.As(err, &status) {
			f := status.fields
			if !status.typed {
				// Not OpenAI's error JSON: a proxy's page or a plain
				// "404 page not found". Show its start instead.
				f.message = c.bodyText(res.Header.Get("Content-Type"), status.body)
			}
			failure = c.apiError(status.status, f, cl.model)
			retryable = retryableStatus(res, status.body)
		} else if errors.Is(err, syscall.ECONNREFUSED) {
			// Nothing listens there: one quick second try covers a server
			// that is just starting, and more would only make people wait.
			refused++
			failure = &UnreachableError{BaseURL: c.BaseURL(), Err: err, Azure: c.azure != nil}
			retryable, wait = refused == 1, refusedRetryWait
		} else {
			failure, retryable = c.transportFailure(err, res, cl.model)
		}
		if wait == 0 {
			var ok bool
			if wait, ok = retryAfter(res); !ok {
				wait = c.backoff(retry)
			}
		}
		if retryable && res != nil && res.StatusCode == http.StatusTooManyRequests {
			// The limit is the endpoint's, not this request's: every
			// request sharing the budget waits as this one will.
			c.budget.pause(wait)
		}
		if !retryable || left <= 0 {
			return failure
		}
		if cl.onRetry != nil {
			cl.onRetry(Retry{Attempt: cl.attempts, Of: cl.attempts + left, Wait: wait, Reason: c.mask(failure.Error())})
		}
		if err := sleep(ctx, wait); err != nil {
			return fmt.Errorf("request to model %q stopped: %w", cl.model, err)
		}
	}
}

// certificateTrouble says why the server's TLS certificate was refused,
// or "" when err is not about its certificate.
func certificateTrouble(err error, envVar string) string {
	var (
		verify    *tls.CertificateVerificationError
		unknown   x509.UnknownAuthorityError
		hostname  x509.HostnameError
		invalid   x509.CertificateInvalidError
		insecure  x509.InsecureAlgorithmError
		malformed tls.RecordHeaderError
	)
	cause := ""
	switch {
	case errors.As(err, &unknown):
		cause = "it is signed by an authority this machine does not trust"
	case errors.As(err, &hostname):
		cause = "it is not for this host name: " + hostname.Error()
	case errors.As(err, &invalid):
		cause = invalid.Error()
	case errors.As(err, &insecure):
		cause = insecure.Error()
	case errors.As(err, &verify):
		cause = verify.Err.Error()
	case errors.As(err, &malformed) || errors.Is(err, http.ErrSchemeMismatch):
		// net/http tells an answer in plain HTTP apart from other
		// bytes that are not TLS, and then gives ErrSchemeMismatch.
		return "the server did not answer in TLS (does " + envVar + " say https for a server that speaks http?)"
	default:
		return ""
	}
	return "its TLS certificate is refused: " + cause + " (for a server of your own, add its authority to the system's, or SSL_CERT_FILE)"
}

// refusedRetryWait is the wait before the one retry of a refused connection.
const refusedRetryWait = 200 * time.Millisecond

// retryableStatus reports whether an error answer may go better if asked
// again: a timeout, conflict, rate limit or server error, unless the server
// says otherwise with X-Should-Retry, or body, the start of the answer,
// says that a 429 is the account being out of credit (code
// insufficient_quota), for which waiting would not help.
func retryableStatus(res *http.Response, body []byte) bool {
	if res == nil {
		return false
	}
	switch res.Header.Get("X-Should-Retry") {
	case "true":
		return true
	case "false":
		return false
	}
	s := res.StatusCode
	if s == http.StatusTooManyRequests && bytes.Contains(body, []byte("insufficient_quota")) {
		return false
	}
	return s == http.StatusRequestTimeout || s == http.StatusConflict || s == http.StatusTooManyRequests || s >= 500
}

// maxRetryAfter is the longest wait a server may ask for and be obeyed;
// beyond it the usual backoff applies.
const maxRetryAfter = time.Minute

// retryAfter reads the wait a server asks for in Retry-After-Ms or
// Retry-After (seconds or an HTTP date).
func retryAfter(res *http.Response) (time.Duration, bool) {
	if res == nil {
		return 0, false
	}
	var d time.Duration
	ok := false
	if ms, err := strconv.ParseFloat(res.Header.Get("Retry-After-Ms"), 64); err == nil {
		d, ok = time.Duration(ms*float64(time.Millisecond)), true
	} else if v := res.Header.Get("Retry-After"); v != "" {
		if secs, err := strconv.ParseFloat(v, 64); err == nil {
			d, ok = time.Duration(secs*float64(time.Second)), true
		} else if t, err := http.ParseTime(v); err == nil {
			d, ok = time.Until(t), true
		}
	}
	if !ok || d < 0 || d > maxRetryAfter {
		return 0, false
	}
	return d, true
}

// transportFailure describes a failure other than an error status: no
// answer, or one that could not be read, and says whether another attempt
// may help.
func (c *Client) transportFailure(err error, res *http.Response, model string) (error, bool) {
	if res != nil && res.StatusCode >= 400 {
		// An error status whose body could not be read.
		return c.apiError(res.StatusCode, apiFields{}, model), retryableStatus(res, nil)
	}
	if res != nil && !isJSON(res.Header.Get("Content-Type")) && !isEventStream(res.Header.Get("Content-Type")) {
		return fmt.Errorf("%s answered with %q instead of JSON: check that the base URL is the API root, usually ending in /v1",
			c.BaseURL(), res.Header.Get("Content-Type")), false
	}
	// A name that no server has, and a certificate that is not trusted,
	// stay so when asked again: they fail at once, with their cause.
	var dnsErr *net.DNSError
	if errors.As(err, &dnsErr) && !dnsErr.IsTimeout && (dnsErr.IsNotFound || !dnsErr.IsTemporary) {
		return &UnreachableError{BaseURL: c.BaseURL(), Err: err, Azure: c.azure != nil,
			Why: fmt.Sprintf("no address is known for the host %s (%s; is the host name in %s right?)",
				dnsErr.Name, dnsErr.Err, endpointVar(c.azure != nil))}, false
	}
	if why := certificateTrouble(err, endpointVar(c.azure != nil)); why != "" {
		return &UnreachableError{BaseURL: c.BaseURL(), Err: err, Why: why, Azure: c.azure != nil}, false
	}
	var netErr net.Error
	if errors.Is(err, context.DeadlineExceeded) || (errors.As(err, &netErr) && netErr.Timeout()) {
		return fmt.Errorf("no answer from %s within %s: %w", c.BaseURL(), c.timeout, err), true
	}
	if res != nil {
		return fmt.Errorf("reading the answer from %s: %w", c.BaseURL(), err), true
	}
	return fmt.Errorf("cannot reach %s: %w", c.BaseURL(), err), true
}

// apiError is the *APIError of an answer with an error status, its
// message masked.
func (c *Client) apiError(status int, f apiFields, model string) *APIError {
	return &APIError{
		Status:  status,
		Message: c.mask(f.message),
		Type:    f.typ,
		Code:    f.code,
		Param:   f.param,
		Model:   model,
		BaseURL: c.BaseURL(),
		Azure:   c.azure != nil,

		Responses: c.useResponses,
	}
}

// bodyText returns the start of a textual error body as one line, or ""
// for bodies that are not plain text or JSON.
func (c *Client) bodyText(contentType string, body []byte) string {
	mt, _, _ := mime.ParseMediaType(contentType)
	if mt != "text/plain" && !isJSON(mt) {
		return ""
	}
	if len(body) > 4096 {
		body = body[:4096]
	}
	// The key is masked before the cut, so that no part of it survives
	// at the edge.
	s := c.mask(strings.Join(strings.Fields(string(body)), " "))
	const limit = 300
	if len(s) > limit {
		cut := limit
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		s = s[:cut] + "…"
	}
	return s
}

func isJSON(contentType string) bool {
	mt, _, _ := mime.ParseMediaType(contentType)
	return mt == "application/json" || strings.HasSuffix(mt, "+json")
}

func (c *Client) response(req Request, mode Mode, comp *chatCompletion, start time.Time) (Response, error) {
	if !comp.choice {
		return Response{}, fmt.Errorf("model %q answered with no choices: %w", req.Model, ErrEmptyCompletion)
	}
	calls := comp.toolCalls
	if len(req.Tools) == 0 {
		calls = nil
	}
	if strings.TrimSpace(comp.content) == "" && len(calls) == 0 {
		switch {
		case comp.refusal != "":
			return Response{}, fmt.Errorf("model %q: %w: %s", req.Model, ErrRefusal, c.mask(comp.refusal))
		case comp.finishReason == "length":
			return Response{}, fmt.Errorf("model %q reached its token limit before writing anything (raise max tokens): %w",
				req.Model, ErrEmptyCompletion)
		}
		return Response{}, fmt.Errorf("model %q answered with an empty message (finish reason %q): %w",
			req.Model, comp.finishReason, ErrEmptyCompletion)
	}
	reported := comp.model
	if reported == "" {
		reported = req.Model
	}
	usage, cached := comp.usage.reported()
	return Response{
		UsageReported:    usage,
		CachedReported:   cached,
		Streamed:         comp.streamed,
		Text:             comp.content,
		Mode:             mode,
		PromptTokens:     int(comp.usage.PromptTokens),
		CompletionTokens: int(comp.usage.CompletionTokens),
		CachedTokens:     comp.usage.cached(),
		CacheWriteTokens: comp.usage.written(),
		ReasoningTokens:  comp.usage.reasoning(),
		Latency:          time.Since(start),
		Model:            reported,
		Truncated:        comp.finishReason == "length",
		ToolCalls:        calls,
	}, nil
}

// refusesFormat reports whether e is a server saying it cannot do the
// response format that was asked for.
func refusesFormat(e *APIError, mode Mode) bool {
	if mode == ModeText || (e.Status != http.StatusBadRequest && e.Status != http.StatusUnprocessableEntity) {
		return false
	}
	if e.Param == "response_format" || e.Param == "text" || strings.HasPrefix(e.Param, "text.format") {
		return true
	}
	msg := strings.ToLower(e.Message)
	for _, s := range []string{"response_format", "response format", "text.format", "json_schema", "json schema", "json_object", "json mode", "structured output"} {
		if strings.Contains(msg, s) {
			return true
		}
	}
	return mentionsUnsupported(msg) && (strings.Contains(msg, "schema") || strings.Contains(msg, "format"))
}

// rejectsParam reports whether e is a server saying it does not accept the
// request field name.
func rejectsParam(e *APIError, name string) bool {
	if e.Status != http.StatusBadRequest && e.Status != http.StatusUnprocessableEntity {
		return false
	}
	msg := strings.ToLower(e.Message)
	if e.Param != name && !strings.Contains(msg, name) {
		return false
	}
	return mentionsUnsupported(msg)
}

func mentionsUnsupported(msg string) bool {
	for _, s := range []string{"unsupported", "not supported", "does not support", "unrecognized", "unknown", "not permitted", "not allowed"} {
		if strings.Contains(msg, s) {
			return true
		}
	}
	return false
}

// schemaName makes name acceptable as a response_format schema name:
// letters, digits, '_' and '-', at most 64 of them.
func schemaName(name string) string {
	if name == "" {
		return "answer"
	}
	b := []byte(name)
	for i, ch := range b {
		ok := ch >= 'a' && ch <= 'z' || ch >= 'A' && ch <= 'Z' || ch >= '0' && ch <= '9' || ch == '_' || ch == '-'
		if !ok {
			b[i] = '_'
		}
	}
	if len(b) > 64 {
		b = b[:64]
	}
	return string(b)
}

// strictCompatible reports whether schema meets what OpenAI's strict mode
// demands of every object in it: additionalProperties false and every
// property required. Sending strict with any other schema is an error on
// OpenAI, so such schemas are sent without it.
func strictCompatible(schema map[string]any) bool {
	if schema == nil {
		return false
	}
	return strictNode(schema)
}

func strictNode(node map[string]any) bool {
	props, hasProps := node["properties"].(map[string]any)
	if hasProps || node["type"] == "object" {
		if ap, ok := node["additionalProperties"].(bool); !ok || ap {
			return false
		}
		required := stringList(node["required"])
		for name := range props {
			if !slices.Contains(required, name) {
				return false
			}
		}
	}
	var children []any
	for _, key := range []string{"properties", "$defs", "definitions"} {
		if m, ok := node[key].(map[string]any); ok {
			for _, child := range m {
				children = append(children, child)
			}
		}
	}
	for _, key := range []string{"anyOf", "oneOf", "allOf", "prefixItems"} {
		if l, ok := node[key].([]any); ok {
			children = append(children, l...)
		}
	}
	children = append(children, node["items"])
	for _, child := range children {
		if m, ok := child.(map[string]any); ok && !strictNode(m) {
			return false
		}
	}
	return true
}

// stringList reads a JSON array of strings given as []string or []any.
func stringList(v any) []string {
	switch l := v.(type) {
	case []string:
		return l
	case []any:
		out := make([]string, 0, len(l))
		for _, x := range l {
			if s, ok := x.(string); ok {
				out = append(out, s)
			}
		}
		return out
	}
	return nil
}

// sleep waits for d or until ctx ends, whichever comes first.
func sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
