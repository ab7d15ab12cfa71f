package model

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"unicode/utf8"
)

// This file is the wire protocol moot speaks: two JSON endpoints of the
// OpenAI API, POST {base}/chat/completions and POST {base}/embeddings,
// with only the fields moot sends and reads. moot speaks it itself rather
// than through an SDK because it needs so little of one, and an SDK's
// package init and size cost every start of moot, not only the runs that
// call a model.

// chatMessage is one message of a chat request.
type chatMessage struct {
	Role string `json:"role"`
	// Content is the message's text, or its text in parts where a cache
	// breakpoint cuts it (see cacheParts).
	Content any `json:"content"`
	// ToolCalls are the tool calls of an assistant message; ToolCallID
	// names the call a "tool" message answers (see tools.go).
	ToolCalls  []wireToolCall `json:"tool_calls,omitempty"`
	ToolCallID string         `json:"tool_call_id,omitempty"`
}

// chatRequest is the body of POST {base}/chat/completions. Exactly one of
// MaxTokens and MaxCompletionTokens is sent, when a limit is set.
type chatRequest struct {
	Model               string          `json:"model"`
	Messages            []chatMessage   `json:"messages"`
	Temperature         *float64        `json:"temperature,omitempty"`
	MaxTokens           int             `json:"max_tokens,omitempty"`
	MaxCompletionTokens int             `json:"max_completion_tokens,omitempty"`
	ResponseFormat      *responseFormat `json:"response_format,omitempty"`
	Stream              bool            `json:"stream,omitempty"`
	StreamOptions       *streamOptions  `json:"stream_options,omitempty"`
	Tools               []wireTool      `json:"tools,omitempty"`
}

// responseFormat asks for JSON: Type is "json_schema" (with JSONSchema)
// or "json_object".
type responseFormat struct {
	Type       string      `json:"type"`
	JSONSchema *jsonSchema `json:"json_schema,omitempty"`
}

// jsonSchema is the schema of a json_schema response format.
type jsonSchema struct {
	Name   string         `json:"name"`
	Schema map[string]any `json:"schema"`
	Strict bool           `json:"strict,omitempty"`
}

// chatCompletion is the part of a chat completion moot reads. Numbers are
// read as float64 so that a server writing 12.0 for a count is not refused.
type chatCompletion struct {
	Model   string `json:"model"`
	Choices []struct {
		Message struct {
			Content   string         `json:"content"`
			Refusal   string         `json:"refusal"`
			ToolCalls []wireToolCall `json:"tool_calls"`
		} `json:"message"`
		FinishReason string `json:"finish_reason"`
	} `json:"choices"`
	Usage wireUsage `json:"usage"`
	// streamed is set when the answer came as a stream of events.
	streamed bool
}

// wireUsage is the usage a server reports with a completion, or in the
// last chunk of a stream. Cached prompt tokens come where each server puts
// them: prompt_tokens_details.cached_tokens on OpenAI, on OpenRouter, on
// vLLM started with --enable-prompt-tokens-details (null otherwise) and on
// Ollama from the release that reports them; prompt_cache_hit_tokens on
// DeepSeek. A server that reports neither leaves CachedTokens at 0.
type wireUsage struct {
	PromptTokens         float64      `json:"prompt_tokens"`
	CompletionTokens     float64      `json:"completion_tokens"`
	PromptTokensDetails  *wireDetails `json:"prompt_tokens_details"`
	PromptCacheHitTokens *float64     `json:"prompt_cache_hit_tokens"`
	// CacheReadInputTokens and CacheCreationInputTokens are Anthropic's
	// names of the tokens read from and written to its cache, which some
	// proxies pass through; read when the details name neither.
	CacheReadInputTokens     *float64 `json:"cache_read_input_tokens"`
	CacheCreationInputTokens *float64 `json:"cache_creation_input_tokens"`
}

// wireDetails is usage.prompt_tokens_details: cached_tokens read from the
// cache, and cache_write_tokens written to it, as OpenRouter reports for
// the providers that bill cache writes (Anthropic, Gemini).
type wireDetails struct {
	CachedTokens     *float64 `json:"cached_tokens"`
	CacheWriteTokens *float64 `json:"cache_write_tokens"`
}

// reported says whether the server reported any usage, and whether it
// reported cached prompt tokens, 0 included, in a field moot reads.
func (u wireUsage) reported() (usage, cached bool) {
	cached = u.PromptCacheHitTokens != nil || u.CacheReadInputTokens != nil || (u.PromptTokensDetails != nil && u.PromptTokensDetails.CachedTokens != nil)
	return u.PromptTokens > 0 || u.CompletionTokens > 0, cached
}

// cached returns the prompt tokens the server says it read from its
// cache, never more than the prompt tokens nor less than 0.
func (u wireUsage) cached() int {
	var n float64
	if u.PromptCacheHitTokens != nil {
		n = *u.PromptCacheHitTokens
	}
	if u.CacheReadInputTokens != nil && *u.CacheReadInputTokens > 0 {
		n = *u.CacheReadInputTokens
	}
	if u.PromptTokensDetails != nil && u.PromptTokensDetails.CachedTokens != nil && *u.PromptTokensDetails.CachedTokens > 0 {
		n = *u.PromptTokensDetails.CachedTokens
	}
	n = min(n, u.PromptTokens)
	if n <= 0 {
		return 0
	}
	return int(n)
}

// written returns the prompt tokens the server says it wrote to its cache
// (which Anthropic bills above the input price), never more than the
// prompt tokens nor less than 0.
func (u wireUsage) written() int {
	var n float64
	if u.CacheCreationInputTokens != nil {
		n = *u.CacheCreationInputTokens
	}
	if u.PromptTokensDetails != nil && u.PromptTokensDetails.CacheWriteTokens != nil && *u.PromptTokensDetails.CacheWriteTokens > 0 {
		n = *u.PromptTokensDetails.CacheWriteTokens
	}
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

// embedRequest is the body of POST {base}/embeddings.
type embedRequest struct {
	Model string   `json:"model"`
	Input []string `json:"input"`
}

// embedResponse is the part of an embeddings answer moot reads.
type embedResponse struct {
	Model string `json:"model"`
	Data  []struct {
		Index     float64   `json:"index"`
		Embedding []float64 `json:"embedding"`
	} `json:"data"`
	Usage struct {
		PromptTokens float64 `json:"prompt_tokens"`
	} `json:"usage"`
}

// errorBody is the error an OpenAI-compatible server answers with:
// {"error": {"message", "type", "code", "param"}}. Code and param are
// strings on OpenAI but numbers or null elsewhere, so each field is read
// as whatever JSON it is.
type errorBody struct {
	Error json.RawMessage `json:"error"`
}

// parseError reads the fields of an error body. ok is false when the body
// is not of that shape, or names no message.
func parseError(body []byte) (message, typ, code, param string, ok bool) {
	var eb errorBody
	if json.Unmarshal(body, &eb) != nil {
		return "", "", "", "", false
	}
	var fields map[string]json.RawMessage
	if json.Unmarshal(eb.Error, &fields) != nil {
		return "", "", "", "", false
	}
	message, typ = scalar(fields["message"]), scalar(fields["type"])
	code, param = scalar(fields["code"]), scalar(fields["param"])
	return message, typ, code, param, message != ""
}

// scalar returns a JSON string's value or a number's text, and "" for
// anything else.
func scalar(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var n json.Number
	if json.Unmarshal(raw, &n) == nil {
		return n.String()
	}
	return ""
}

// errNotSent marks a request that could not be built, so was never sent.
type errNotSent struct{ err error }

func (e *errNotSent) Error() string { return e.err.Error() }
func (e *errNotSent) Unwrap() error { return e.err }

// statusError is an answer with an HTTP status of 400 or more, with the
// start of its body.
type statusError struct {
	status int
	body   []byte
}

func (e *statusError) Error() string { return fmt.Sprintf("server answered %d", e.status) }

// post sends one attempt of payload to path under the base URL and decodes
// a successful JSON answer into out. The attempt gets its own timeout,
// which also bounds reading the answer. It returns the response (its body
// read and closed) whenever one came, so that the caller can read its
// status and headers; the error is a *statusError for an error status and
// wraps *errNotSent when nothing was sent. A chat answer that comes as a
// stream of events is read into out as it arrives, each piece of its text
// given to onChunk (when not nil).
func (c *Client) post(ctx context.Context, path string, payload []byte, out any, onChunk func(string)) (*http.Response, error) {
	if comp, ok := out.(*chatCompletion); ok {
		// Nothing of an earlier attempt, streamed in part, may stay.
		*comp = chatCompletion{}
	}
	ctx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.api.JoinPath(path).String(), bytes.NewReader(payload))
	if err != nil {
		return nil, &errNotSent{err}
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	c.setHeaders(req)
	res, err := c.httpClient.Do(req)
	if err != nil {
		return nil, err
	}
	defer res.Body.Close()
	if enc := res.Header.Get("Content-Encoding"); enc != "" && !strings.EqualFold(enc, "identity") {
		return res, &EncodingError{Encoding: enc}
	}
	if res.ContentLength > MaxResponseSize {
		return res, &TooLargeError{Limit: MaxResponseSize}
	}
	if comp, ok := out.(*chatCompletion); ok && res.StatusCode < 400 && isEventStream(res.Header.Get("Content-Type")) {
		if err := readStream(limitBody(res.Body, MaxResponseSize), comp, onChunk); err != nil {
			return res, fmt.Errorf("reading the stream: %w", err)
		}
		comp.streamed = true
		return res, nil
	}
	body, err := io.ReadAll(limitBody(res.Body, MaxResponseSize))
	if err != nil {
		return res, fmt.Errorf("reading the body: %w", err)
	}
	if res.StatusCode >= 400 {
		return res, &statusError{status: res.StatusCode, body: body}
	}
	if !isJSON(res.Header.Get("Content-Type")) {
		return res, fmt.Errorf("the answer is %q, not JSON", res.Header.Get("Content-Type"))
	}
	if err := json.Unmarshal(body, out); err != nil {
		return res, fmt.Errorf("parsing the JSON: %w", err)
	}
	return res, nil
}

// setHeaders sets the headers every request to the endpoint carries: who
// asks, the key, and no compression.
func (c *Client) setHeaders(req *http.Request) {
	req.Header.Set("User-Agent", "moot")
	req.Header.Set("Authorization", "Bearer "+c.key)
	// Asking for no compression keeps net/http from decoding gzip, so
	// that MaxResponseSize counts the bytes on the wire: a compressed
	// stream of empty blocks would otherwise be read without end while
	// inflating to nothing.
	req.Header.Set("Accept-Encoding", "identity")
	if c.organization != "" {
		req.Header.Set("OpenAI-Organization", c.organization)
	}
	if c.project != "" {
		req.Header.Set("OpenAI-Project", c.project)
	}
}
