package model

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/packages/respjson"
)

// This file is where moot meets the openai-go SDK, through which every
// request goes: the SDK builds the request, sends it with the client's
// HTTP client and decodes the answer; moot's middleware, run on every
// request, keeps the rules the SDK does not have (the response cap, no
// compression, the shared budget, the per-attempt timeout), and Client.do
// in complete.go retries (see its comment for why it retries and not the
// SDK).

// sdkOptions are the options of every SDK request a client makes: where
// and how to reach the endpoint, and no retries of the SDK's own.
func (c *Client) sdkOptions() []option.RequestOption {
	opts := []option.RequestOption{
		option.WithHTTPClient(c.httpClient),
		option.WithMaxRetries(0),
		option.WithHeader("User-Agent", "moot"),
		// Asking for no compression keeps net/http from decoding gzip, so
		// that MaxResponseSize counts the bytes on the wire: a compressed
		// stream of empty blocks would otherwise be read without end while
		// inflating to nothing.
		option.WithHeader("Accept-Encoding", "identity"),
		option.WithHeader("Accept", "application/json, text/event-stream"),
	}
	// The SDK tells every server the machine's system, architecture and Go
	// version; moot sends no more of the machine than it did before it.
	for _, h := range sdkTelemetry {
		opts = append(opts, option.WithHeaderDel(h))
	}
	if c.azure != nil {
		return append(opts, c.azure.options(c.key)...)
	}
	opts = append(opts, option.WithBaseURL(c.api.String()), option.WithAPIKey(c.key))
	if c.organization != "" {
		opts = append(opts, option.WithOrganization(c.organization))
	}
	if c.project != "" {
		opts = append(opts, option.WithProject(c.project))
	}
	return opts
}

// sdkTelemetry are the headers the SDK adds to every request that moot
// does not send.
var sdkTelemetry = []string{"X-Stainless-Lang", "X-Stainless-Package-Version", "X-Stainless-OS", "X-Stainless-Arch",
	"X-Stainless-Runtime", "X-Stainless-Runtime-Version", "X-Stainless-Retry-Count", "X-Stainless-Timeout"}

// exchange is what moot's middleware saw of one attempt: the answer's
// status and headers, the budget's ticket, and the JSON of an answer that
// came whole to a request for a stream.
type exchange struct {
	res    *http.Response
	ticket *ticket
	whole  []byte
	// budgetErr is the context's error that ended the wait for the
	// budget.
	budgetErr error
	// sent is set once the SDK built the request and handed it on.
	sent bool
	// streaming is set when the answer is a stream of events.
	streaming bool
	// cancel ends the attempt's timeout, once its answer is read.
	cancel context.CancelFunc
}

// done ends the attempt's timeout.
func (x *exchange) done() {
	if x.cancel != nil {
		x.cancel()
	}
}

// middleware returns the option that runs moot's rules around one
// attempt: it waits for the budget (with ctx, the caller's context, so
// that the wait does not eat the attempt's time), gives the attempt its
// own timeout, refuses a compressed or oversized answer, caps what is
// read of any other, and keeps a JSON answer to a request for a stream
// aside, for the SDK's stream reader would find no events in it.
func (c *Client) middleware(ctx context.Context, x *exchange, cl *call, stream bool) option.RequestOption {
	return option.WithMiddleware(func(req *http.Request, next option.MiddlewareNext) (*http.Response, error) {
		x.sent = true
		var tk *ticket
		var err error
		size := max(int(req.ContentLength), 0)
		switch {
		case cl.unmetered:
		case cl.embed:
			tk, err = c.budget.take(ctx, estimateTokens(size, 0))
		default:
			tk, err = c.budget.takeAnswer(ctx, size, cl.maxTokens, cl.role)
		}
		if err != nil {
			x.budgetErr = err
			return nil, err
		}
		x.ticket = tk
		actx, cancel := context.WithTimeout(req.Context(), c.timeout)
		x.cancel = cancel
		res, err := next(req.WithContext(actx))
		x.res = res
		if err != nil {
			return res, err
		}
		if enc := res.Header.Get("Content-Encoding"); enc != "" && !strings.EqualFold(enc, "identity") {
			res.Body.Close()
			return nil, &EncodingError{Encoding: enc}
		}
		if res.ContentLength > MaxResponseSize {
			res.Body.Close()
			return nil, &TooLargeError{Limit: MaxResponseSize}
		}
		res.Body = limitBody(res.Body, MaxResponseSize)
		if stream && res.StatusCode < 400 {
			ct := res.Header.Get("Content-Type")
			switch {
			case isEventStream(ct):
				x.streaming = true
				res.Body = endEvent(res.Body)
			case isJSON(ct):
				// A server that does not stream answers whole.
				body, err := io.ReadAll(res.Body)
				res.Body.Close()
				if err != nil {
					return nil, fmt.Errorf("reading the body: %w", err)
				}
				x.whole = body
				res.Body = http.NoBody
			default:
				res.Body.Close()
				return nil, fmt.Errorf("the answer is %q, not JSON", ct)
			}
		}
		return res, nil
	})
}

// chatCompletion is what moot reads of a chat completion, streamed or
// not.
type chatCompletion struct {
	model            string
	choice           bool // the answer had a choice
	content, refusal string
	finishReason     string
	toolCalls        []ToolCall
	usage            tokenUsage
	streamed         bool
}

// fromSDK reads the first choice of a completion the SDK decoded, and its
// usage (see readUsage).
func (comp *chatCompletion) fromSDK(c *openai.ChatCompletion) {
	comp.model = c.Model
	if len(c.Choices) > 0 {
		ch := c.Choices[0]
		comp.choice = true
		comp.content, comp.refusal, comp.finishReason = ch.Message.Content, ch.Message.Refusal, ch.FinishReason
		for i, tc := range ch.Message.ToolCalls {
			call := readCall(i, tc.ID, tc.Function.Name, tc.Function.Arguments)
			call.Extra = callExtra(tc.RawJSON())
			comp.toolCalls = append(comp.toolCalls, call)
		}
	}
	comp.usage = readUsage(c.Usage)
}

// tokenUsage is what moot reads of the usage a server reports with a
// completion, or in the last chunk of a stream: the SDK's typed usage
// (openai.CompletionUsage), and the fields of other servers that it does
// not type, read from its raw JSON (see readUsage).
type tokenUsage struct {
	PromptTokens, CompletionTokens int64
	// cachedTokens and writtenTokens are the prompt tokens the server
	// says it read from its cache and wrote to it, as reported;
	// cachedReported says it reported cached tokens, 0 included, in a
	// field moot reads.
	cachedTokens, writtenTokens int64
	cachedReported              bool
	// reasoningTokens are the completion tokens the model spent
	// reasoning, as reported.
	reasoningTokens int64
}

// readUsage reads a completion's usage from the SDK's typed fields, and
// from its raw JSON the fields the SDK does not type. Cached prompt tokens
// come where each server puts them: prompt_tokens_details.cached_tokens
// (typed) on OpenAI, on OpenRouter, on vLLM started with
// --enable-prompt-tokens-details (null otherwise) and on Ollama from the
// release that reports them; prompt_cache_hit_tokens on DeepSeek; and
// cache_read_input_tokens, Anthropic's name, which some proxies pass
// through. Tokens written to the cache (which Anthropic bills above the
// input price) come as prompt_tokens_details.cache_write_tokens (typed)
// from OpenRouter, or as Anthropic's cache_creation_input_tokens. The
// details win over the other names when they count any. A count written
// 12.0 is read as 12, as the SDK reads it. Reasoning tokens come as
// completion_tokens_details.reasoning_tokens, from OpenAI's reasoning
// models.
func readUsage(u openai.CompletionUsage) tokenUsage {
	d := u.PromptTokensDetails
	hit, hasHit := extraCount(u.JSON.ExtraFields["prompt_cache_hit_tokens"])
	read, hasRead := extraCount(u.JSON.ExtraFields["cache_read_input_tokens"])
	created, _ := extraCount(u.JSON.ExtraFields["cache_creation_input_tokens"])
	t := tokenUsage{
		PromptTokens:     u.PromptTokens,
		CompletionTokens: u.CompletionTokens,
		cachedReported:   hasHit || hasRead || d.JSON.CachedTokens.Valid(),
		cachedTokens:     hit,
		writtenTokens:    created,
		reasoningTokens:  u.CompletionTokensDetails.ReasoningTokens,
	}
	if read > 0 {
		t.cachedTokens = read
	}
	if d.JSON.CachedTokens.Valid() && d.CachedTokens > 0 {
		t.cachedTokens = d.CachedTokens
	}
	if d.JSON.CacheWriteTokens.Valid() && d.CacheWriteTokens > 0 {
		t.writtenTokens = d.CacheWriteTokens
	}
	return t
}

// extraCount reads a number from a usage field the SDK does not type,
// cut to a whole count; ok is false when the field is missing, null or not
// a number.
func extraCount(f respjson.Field) (n int64, ok bool) {
	v, err := strconv.ParseFloat(f.Raw(), 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
		return 0, false
	}
	return int64(max(min(v, 1<<53), -1<<53)), true
}

// reported says whether the server reported any usage, and whether it
// reported cached prompt tokens, 0 included, in a field moot reads.
func (u tokenUsage) reported() (usage, cached bool) {
	return u.PromptTokens > 0 || u.CompletionTokens > 0, u.cachedReported
}

// cached returns the prompt tokens the server says it read from its
// cache, never more than the prompt tokens nor less than 0.
func (u tokenUsage) cached() int { return u.ofPrompt(u.cachedTokens) }

// written returns the prompt tokens the server says it wrote to its cache,
// never more than the prompt tokens nor less than 0.
func (u tokenUsage) written() int { return u.ofPrompt(u.writtenTokens) }

// reasoning returns the completion tokens the server says the model
// spent reasoning, never more than the completion tokens nor less than 0.
func (u tokenUsage) reasoning() int {
	n := min(u.reasoningTokens, u.CompletionTokens)
	if n <= 0 {
		return 0
	}
	return int(n)
}

// ofPrompt returns n cut to the range from 0 to the prompt tokens.
func (u tokenUsage) ofPrompt(n int64) int {
	n = min(n, u.PromptTokens)
	if n <= 0 {
		return 0
	}
	return int(n)
}

// textPart is one part of a message's content sent in parts; CacheControl
// marks the part that ends a prefix the server is asked to cache.
type textPart struct {
	Type         string        `json:"type"`
	Text         string        `json:"text"`
	CacheControl *cacheControl `json:"cache_control,omitempty"`
}

type cacheControl struct {
	Type string `json:"type"`
}

// partsMessage is a message whose content is sent in parts, as moot
// writes it: the SDK's content parts have no cache_control.
type partsMessage struct {
	Role      string                                           `json:"role"`
	Content   []textPart                                       `json:"content"`
	ToolCalls []openai.ChatCompletionMessageToolCallUnionParam `json:"tool_calls,omitempty"`
}

// content is text as a message's content: the string itself, or, when
// cuts mark where cached prefixes end in it, the text in parts, each part
// that ends at a cut carrying cache_control {"type": "ephemeral"} (as
// Anthropic and Gemini through OpenRouter read it). A cut outside the
// text, at its start or inside a character is left out.
func content(text string, cuts []int) any {
	var parts []textPart
	from := 0
	for _, c := range slices.Sorted(slices.Values(cuts)) {
		if c <= from || c > len(text) || (c < len(text) && !utf8.RuneStart(text[c])) {
			continue
		}
		parts = append(parts, textPart{Type: "text", Text: text[from:c], CacheControl: &cacheControl{Type: "ephemeral"}})
		from = c
	}
	if len(parts) == 0 {
		return text
	}
	if from < len(text) {
		parts = append(parts, textPart{Type: "text", Text: text[from:]})
	}
	return parts
}

// apiFields are the fields of a server's error body, {"error": {"message",
// "type", "code", "param"}}.
type apiFields struct {
	message, typ, code, param string
}

// errorFields returns the fields of the SDK's typed error that it could
// read: a field that is null or not a string or number (code and param
// are strings on OpenAI but numbers or null elsewhere; the SDK gives a
// number's text) is "". ok is false when the error names no message.
func errorFields(e *openai.Error) (f apiFields, ok bool) {
	field := func(v string, j respjson.Field) string {
		if !j.Valid() {
			return ""
		}
		return v
	}
	f = apiFields{
		message: field(e.Message, e.JSON.Message),
		typ:     field(e.Type, e.JSON.Type),
		code:    field(e.Code, e.JSON.Code),
		param:   field(e.Param, e.JSON.Param),
	}
	return f, f.message != ""
}

// statusError is an answer with an HTTP status of 400 or more: the start
// of its body and, when it was OpenAI's error JSON naming a message, its
// fields as the SDK typed them (typed is then set).
type statusError struct {
	status int
	body   []byte
	fields apiFields
	typed  bool
}

func (e *statusError) Error() string { return fmt.Sprintf("server answered %d", e.status) }

// sdkFailure turns the SDK's error for an attempt into the one moot's
// retry loop reads: an answer with an error status, which the SDK gives
// as its typed *openai.Error, or as the error of decoding a body that is
// not OpenAI's error JSON (a proxy's page, a plain "404 page not found"),
// becomes a *statusError with the typed fields, when there are, and the
// body as it came, which moot shows when there are not.
func sdkFailure(err error, x *exchange) error {
	var tooLarge *TooLargeError
	if errors.As(err, &tooLarge) || x.res == nil || x.res.StatusCode < 400 {
		return err
	}
	var apiErr *openai.Error
	res := x.res
	if errors.As(err, &apiErr) && apiErr.Response != nil {
		res = apiErr.Response
	}
	body, rerr := io.ReadAll(res.Body)
	if rerr != nil {
		return fmt.Errorf("reading the body: %w", rerr)
	}
	se := &statusError{status: res.StatusCode, body: body}
	if apiErr != nil {
		se.fields, se.typed = errorFields(apiErr)
	}
	return se
}

// endEvent returns body made readable by the SDK's stream reader: with a
// blank line after its end, so that the last event of a stream that ends
// without one (as some servers' do) is read rather than dropped (the
// SDK's reader, as the SSE standard says, drops an event its stream ends
// in); and with a chunk's `"error": null`, which some servers send on
// every chunk, taken out, since the SDK takes any "error" key for an
// error.
func endEvent(body io.ReadCloser) io.ReadCloser {
	return &eventBody{r: bufio.NewReader(body), c: body}
}

// eventBody is the stream body endEvent returns.
type eventBody struct {
	r    *bufio.Reader
	c    io.Closer
	buf  []byte
	done bool
}

func (e *eventBody) Read(p []byte) (int, error) {
	for len(e.buf) == 0 {
		if e.done {
			return 0, io.EOF
		}
		line, err := e.r.ReadBytes('\n')
		if err == io.EOF {
			e.done = true
			line = append(line, "\n\n"...)
		} else if err != nil {
			return 0, err
		}
		e.buf = withoutNullError(line)
	}
	n := copy(p, e.buf)
	e.buf = e.buf[n:]
	return n, nil
}

func (e *eventBody) Close() error { return e.c.Close() }

// withoutNullError returns an event's data line without a top-level
// "error" whose value is null; any other line as it is.
func withoutNullError(line []byte) []byte {
	data, ok := bytes.CutPrefix(line, []byte("data:"))
	if !ok || !bytes.Contains(data, []byte(`"error"`)) {
		return line
	}
	var fields map[string]json.RawMessage
	if json.Unmarshal(data, &fields) != nil || string(fields["error"]) != "null" {
		return line
	}
	delete(fields, "error")
	out, err := json.Marshal(fields)
	if err != nil {
		return line
	}
	end := line[len(bytes.TrimRight(line, "\r\n")):]
	return append(append([]byte("data: "), out...), end...)
}
