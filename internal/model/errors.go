package model

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
)

// ErrEmptyCompletion is wrapped by the error Complete returns when the
// server answered without any text: no choices, or an empty message.
var ErrEmptyCompletion = errors.New("empty completion")

// ErrRefusal is wrapped by the error Complete returns when the model
// declined to answer (the message's refusal field was set instead of its
// content).
var ErrRefusal = errors.New("model refused to answer")

// APIError is a failure the server reported with an HTTP status of 400 or
// more, after retries and fallbacks were exhausted. Find it with errors.As.
//
// It holds nothing of the request, whose Authorization header carries the
// API key.
type APIError struct {
	// Status is the HTTP status code.
	Status int
	// Message, Type, Code and Param are the fields of the server's error
	// body, where it had them. The API key is masked in Message.
	Message string
	Type    string
	Code    string
	Param   string
	// Model is the model the request asked for, and BaseURL the endpoint
	// it went to, for hints.
	Model   string
	BaseURL string
	// Azure is set when the endpoint is Azure OpenAI, where the model
	// names a deployment and the hints name Azure's variables.
	Azure bool
	// Responses is set when the request went to the Responses API
	// (Config.API), which not every endpoint serves.
	Responses bool
}

// Error says what the server answered and, where one is known, how to fix
// it.
func (e *APIError) Error() string {
	var b strings.Builder
	who := e.BaseURL
	if who == "" {
		who = "model server"
	}
	fmt.Fprintf(&b, "%s answered %d", who, e.Status)
	if text := http.StatusText(e.Status); text != "" {
		b.WriteString(" " + text)
	}
	if e.Message != "" {
		b.WriteString(": " + e.Message)
	}
	if h := e.Hint(); h != "" {
		b.WriteString(" (" + h + ")")
	}
	return b.String()
}

// Hint returns advice on fixing the failure, or "" when there is none.
func (e *APIError) Hint() string {
	switch {
	case e.Azure && e.Status == http.StatusUnauthorized:
		return "Azure OpenAI rejected the key or token: check AZURE_OPENAI_API_KEY, or AZURE_OPENAI_AD_TOKEN " +
			"(an Entra ID token runs out after about an hour), and AZURE_OPENAI_ENDPOINT"
	case e.Responses && (e.Status == http.StatusNotFound || e.Status == http.StatusMethodNotAllowed) && e.Code != "model_not_found":
		return fmt.Sprintf("the endpoint may not serve the Responses API (POST /responses), or have no model %q: "+
			"--api chat (or %s=chat) speaks Chat Completions, which every OpenAI-compatible endpoint serves", e.Model, APIEnv)
	case e.Azure && e.Status == http.StatusNotFound:
		return fmt.Sprintf("on Azure OpenAI the model names a deployment: check that %q is deployed on the resource "+
			"at AZURE_OPENAI_ENDPOINT, and that OPENAI_API_VERSION is a version it serves", e.Model)
	case e.Status == http.StatusUnauthorized:
		return "the server rejected the API key: check OPENAI_API_KEY, " +
			"or OPENAI_BASE_URL if the request went to the wrong server"
	case e.Status == http.StatusForbidden:
		return "the API key is not allowed to do this: check its permissions and that it may use model " +
			fmt.Sprintf("%q", e.Model)
	case e.Status == http.StatusNotFound:
		return fmt.Sprintf("check the model name %q and that the base URL is the API root, usually ending in /v1", e.Model)
	case e.Code == "context_length_exceeded" || e.Status == http.StatusRequestEntityTooLarge:
		return fmt.Sprintf("the conversation is too long for model %q", e.Model)
	case e.Code == "insufficient_quota":
		return "the account is out of credit: check billing"
	case e.Status == http.StatusTooManyRequests:
		return "rate limited: wait and try again, or allow more retries"
	case e.Status >= 500:
		return "the server failed: try again later"
	}
	return ""
}

// redactedError masks a secret in the message of the error it wraps while
// keeping it reachable by errors.Is and errors.As.
type redactedError struct {
	err    error
	secret string
}

func (e *redactedError) Error() string {
	return strings.ReplaceAll(e.err.Error(), e.secret, "[redacted]")
}

func (e *redactedError) Unwrap() error { return e.err }

// MinSecretLength is the length from which an API key is treated as a
// secret and masked. Real provider keys are long (OpenAI's and
// OpenRouter's run to dozens of characters), while the "key" handed to a
// local server is often a short word such as "ollama", "EMPTY" or "x":
// that is no secret, and masking it would replace every occurrence of the
// word, or letter, in answers and messages, corrupting the debate. Every
// place moot masks the key (errors, warnings, events, usage.jsonl, failed
// answers, narratives) goes through Client.mask and so follows this rule.
const MinSecretLength = 12

// secretKey returns key when it is long enough to be a secret worth
// masking, else "".
func secretKey(key string) string {
	if len(key) < MinSecretLength {
		return ""
	}
	return key
}

// scrub makes sure the API key cannot show in err's message.
func (c *Client) scrub(err error) error {
	if err == nil || c.apiKey == "" || !strings.Contains(err.Error(), c.apiKey) {
		return err
	}
	return &redactedError{err: err, secret: c.apiKey}
}

// mask replaces the API key in s.
func (c *Client) mask(s string) string {
	if c.apiKey == "" {
		return s
	}
	return strings.ReplaceAll(s, c.apiKey, "[redacted]")
}

// MaxResponseSize is the largest response body Complete reads, counted in
// bytes on the wire (Complete asks for no compression): 4 MiB, room for the largest answer moot
// accepts (1 MiB) even with every character escaped in JSON.
const MaxResponseSize = 4 << 20

// TooLargeError is a response body over its limit. Complete stops reading
// at the limit, so a huge or endless answer never fills memory.
type TooLargeError struct {
	Limit int64
}

func (e *TooLargeError) Error() string {
	return fmt.Sprintf("the answer is over the %d MiB limit of a response", e.Limit>>20)
}

// limitBody returns body reading at most limit bytes; reading more gives a
// *TooLargeError instead of quietly cutting the answer short.
func limitBody(body io.ReadCloser, limit int64) io.ReadCloser {
	return &limitedBody{body: body, left: limit, limit: limit}
}

type limitedBody struct {
	body  io.ReadCloser
	left  int64
	limit int64
}

func (l *limitedBody) Read(p []byte) (int, error) {
	if l.left < 0 {
		return 0, &TooLargeError{Limit: l.limit}
	}
	if int64(len(p)) > l.left+1 {
		p = p[:l.left+1]
	}
	n, err := l.body.Read(p)
	l.left -= int64(n)
	if l.left < 0 {
		return 0, &TooLargeError{Limit: l.limit}
	}
	return n, err
}

func (l *limitedBody) Close() error { return l.body.Close() }

// EncodingError is a response compressed though Complete asked for none
// (Accept-Encoding: identity). It is not decoded: its size could not be
// bounded by the bytes read.
type EncodingError struct {
	Encoding string // the response's Content-Encoding
}

func (e *EncodingError) Error() string {
	return fmt.Sprintf("the answer came with Content-Encoding %q though moot asked for none: "+
		"make the server (or a proxy in front of it) answer uncompressed", e.Encoding)
}

// UnreachableError is a server that cannot be reached and will not be
// by asking again: nothing listens at the base URL, no address is known
// for its host, or its TLS certificate is refused.
type UnreachableError struct {
	BaseURL string
	Err     error
	// Why says what is wrong; "" means the connection was refused.
	Why string
	// Azure is set when the endpoint is Azure OpenAI's, which
	// AZURE_OPENAI_ENDPOINT names.
	Azure bool
}

func (e *UnreachableError) Error() string {
	if e.Why != "" {
		return fmt.Sprintf("cannot reach %s: %s", e.BaseURL, e.Why)
	}
	return fmt.Sprintf("cannot reach %s: connection refused (is the server running? %s says where moot sends requests)",
		e.BaseURL, endpointVar(e.Azure))
}

// endpointVar is the environment variable that names the endpoint: Azure
// OpenAI's when azure is set.
func endpointVar(azure bool) string {
	if azure {
		return "AZURE_OPENAI_ENDPOINT"
	}
	return "OPENAI_BASE_URL"
}

func (e *UnreachableError) Unwrap() error { return e.Err }
