// Package model is the client moot uses to talk to language models through
// any OpenAI-compatible Chat Completions endpoint: OpenAI itself, Azure
// OpenAI, OpenRouter, Ollama, vLLM or a llama.cpp server.
//
// It speaks through the openai-go SDK (see wire.go): the SDK builds each
// request, streams and decodes the answer and types the errors, while
// moot's middleware and options keep moot's rules on top. It retries rate
// limits (429, honouring Retry-After), server errors (5xx), attempts that
// hit Config.Timeout and answers cut short, counting each retry so that it
// can be announced (Request.OnRetry), while a refused connection gets one
// quick second try only. It reads at most MaxResponseSize of a response,
// falls back to weaker ways of asking for JSON when a server refuses one,
// and turns failures into errors that say what to fix without ever
// showing the API key. Clients that share a Budget keep together within an
// endpoint's requests and tokens a minute, and all wait when one of them
// is rate limited.
package model

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/responses"
)

// sharedClient is the HTTP client of every Client not given one:
// net/http's default transport, but keeping up to maxIdle idle connections
// a host instead of 2, so that the concurrent calls of a tournament's jobs
// to one endpoint reuse their connections from step to step instead of
// opening new ones (over HTTPS, a handshake each).
// It is made on first use, not at start-up: most commands call no model.
var sharedClient = sync.OnceValue(func() *http.Client { return &http.Client{Transport: keepAlive(http.DefaultTransport)} })

// maxIdle is as many calls as moot makes at once: 256 jobs (the most that
// tournament run takes), two debaters each.
const maxIdle = 512

// keepAlive returns rt keeping up to maxIdle idle connections a host, when
// it is an *http.Transport, or rt itself.
func keepAlive(rt http.RoundTripper) http.RoundTripper {
	t, ok := rt.(*http.Transport)
	if !ok {
		return rt
	}
	t = t.Clone()
	t.MaxIdleConns = max(t.MaxIdleConns, maxIdle)
	t.MaxIdleConnsPerHost = maxIdle
	return t
}

// DefaultBaseURL is the OpenAI API, used when neither Config.BaseURL nor
// OPENAI_BASE_URL is set.
const DefaultBaseURL = "https://api.openai.com/v1"

// DefaultTimeout is the per-attempt timeout used when Config.Timeout is 0.
const DefaultTimeout = 5 * time.Minute

// DefaultMaxRetries is the retry count the moot CLI is expected to pass in
// Config.MaxRetries. New itself does not apply it: 0 means no retries.
const DefaultMaxRetries = 4

// placeholderKey is sent to servers that need no key (Ollama, llama.cpp),
// because some OpenAI-compatible servers reject a request without any
// Authorization header.
const placeholderKey = "none"

// ErrNoAPIKey is returned by New when no API key is configured and the
// requests would go to the OpenAI API, which always needs one.
var ErrNoAPIKey = errors.New("no API key: set OPENAI_API_KEY, " +
	"or set OPENAI_BASE_URL to a server that needs none " +
	"(e.g. http://localhost:11434/v1 for Ollama)")

// Config says where and how to reach models.
type Config struct {
	// BaseURL is the API root, such as http://localhost:11434/v1. ""
	// means DefaultBaseURL.
	BaseURL string
	// APIKey is the bearer key. A server other than api.openai.com may go
	// without one.
	APIKey string
	// Organization and Project, when set, are sent to api.openai.com (and
	// to no other server) as the organization and project to bill.
	Organization, Project string
	// Timeout bounds each attempt (each retry gets a fresh one). 0 means
	// DefaultTimeout.
	Timeout time.Duration
	// MaxRetries is how many times a failed attempt is retried after rate
	// limits (429), server errors (5xx), timeouts and connection failures.
	// 0 means a single attempt; a negative value makes New fail.
	MaxRetries int
	// HTTPClient, when set, is used for every request (mainly for tests).
	HTTPClient *http.Client
	// AzureEndpoint, when set, makes the client talk to Azure OpenAI at
	// this endpoint (https://NAME.openai.azure.com) instead of BaseURL,
	// where a request's model names a deployment. AzureAPIVersion is the
	// API version it asks for, and APIKey the resource's key; without a
	// key, AzureADToken, a Microsoft Entra ID access token, signs in.
	AzureEndpoint, AzureAPIVersion, AzureADToken string
	// API is the API Complete speaks: APIChat (Chat Completions, "" too)
	// or APIResponses (OpenAI's Responses API, POST /responses).
	API API
	// Budget, when set, is waited for before every attempt of Complete
	// and Embed, retries and fallbacks included, and told what each
	// attempt cost and of every 429. Clients that share it share its
	// limits. The time waited counts in Response.Latency.
	Budget *Budget
}

// String describes the configuration without revealing the API key.
func (c Config) String() string {
	key := "unset"
	if c.APIKey != "" {
		key = "set"
	}
	return fmt.Sprintf("model.Config{BaseURL: %q, APIKey: %s, Timeout: %s, MaxRetries: %d}",
		redactURL(c.BaseURL), key, c.Timeout, c.MaxRetries)
}

// GoString is String, so that %#v does not reveal the API key either.
func (c Config) GoString() string { return c.String() }

// Client sends chat requests to one OpenAI-compatible endpoint. It is safe
// for concurrent use.
type Client struct {
	httpClient *http.Client
	baseURL    string   // as given, for messages; see redactURL
	api        *url.URL // baseURL parsed, to which the endpoints' paths are joined
	key        string   // the bearer key sent, placeholderKey when none is set
	apiKey     string   // the key to mask in text, "" when it is no secret (see MinSecretLength)
	openAI     bool     // the endpoint is api.openai.com
	timeout    time.Duration
	maxRetries int
	budget     *Budget // nil for none
	// backoff gives the wait before retry n (counting from 0) for the
	// failures this package retries itself.
	backoff func(n int) time.Duration
	// organization and project are sent only to api.openai.com.
	organization, project string
	// azure is set for an Azure OpenAI endpoint.
	azure *azureConfig
	// useResponses makes Complete speak the Responses API (Config.API).
	useResponses bool
	// chat, responses, embeddings and models are the SDK's services the
	// client calls.
	chat       openai.ChatCompletionService
	responses  responses.ResponseService
	embeddings openai.EmbeddingService
	models     openai.ModelService
}

// ConfigFromEnv returns the configuration that the environment getenv
// reads gives: OPENAI_BASE_URL, OPENAI_API_KEY, OPENAI_ORG_ID,
// OPENAI_PROJECT_ID and MOOT_API (APIEnv, checked by New); for Azure OpenAI, named as the SDKs name them,
// AZURE_OPENAI_ENDPOINT, OPENAI_API_VERSION and AZURE_OPENAI_API_KEY or
// AZURE_OPENAI_AD_TOKEN. New itself never reads the process's
// environment, so that a caller (and its tests) decide what it sees.
func ConfigFromEnv(getenv func(string) string) Config {
	cfg := Config{
		BaseURL:      strings.TrimSpace(getenv("OPENAI_BASE_URL")),
		APIKey:       strings.TrimSpace(getenv("OPENAI_API_KEY")),
		Organization: getenv("OPENAI_ORG_ID"),
		Project:      getenv("OPENAI_PROJECT_ID"),
		API:          API(strings.TrimSpace(getenv(APIEnv))),
	}
	if endpoint := strings.TrimSpace(getenv("AZURE_OPENAI_ENDPOINT")); endpoint != "" {
		cfg.AzureEndpoint = endpoint
		cfg.AzureAPIVersion = strings.TrimSpace(getenv("OPENAI_API_VERSION"))
		cfg.APIKey = strings.TrimSpace(getenv("AZURE_OPENAI_API_KEY"))
		cfg.AzureADToken = strings.TrimSpace(getenv("AZURE_OPENAI_AD_TOKEN"))
		cfg.Organization, cfg.Project = "", ""
	}
	return cfg
}

// New checks cfg, fills in its defaults and returns a client. It returns an error wrapping ErrNoAPIKey when no key is set and
// the endpoint is the OpenAI API.
func New(cfg Config) (*Client, error) {
	var az *azureConfig
	if strings.TrimSpace(cfg.AzureEndpoint) != "" {
		var err error
		if az, err = newAzure(cfg); err != nil {
			return nil, err
		}
		cfg.BaseURL = az.endpoint
	}
	base := strings.TrimSpace(cfg.BaseURL)
	if base == "" {
		base = DefaultBaseURL
	}
	u, err := url.Parse(base)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("invalid base URL %q: want an http or https URL such as %s",
			redactURL(base), DefaultBaseURL)
	}
	api, err := ParseAPI(string(cfg.API))
	if err != nil {
		return nil, err
	}
	if cfg.MaxRetries < 0 {
		return nil, fmt.Errorf("max retries is %d: it must not be negative", cfg.MaxRetries)
	}
	if cfg.Timeout < 0 {
		return nil, fmt.Errorf("timeout is %s: it must not be negative", cfg.Timeout)
	}

	openAI := strings.EqualFold(u.Hostname(), "api.openai.com")
	key := strings.TrimSpace(cfg.APIKey)
	if key == "" && az != nil && az.token != "" {
		// The token is as secret as a key: it is masked as one.
		key = az.token
	} else if key == "" {
		if openAI {
			return nil, ErrNoAPIKey
		}
		key = placeholderKey
	}
	timeout := cfg.Timeout
	if timeout == 0 {
		timeout = DefaultTimeout
	}

	c := &Client{
		httpClient: cfg.HTTPClient,
		baseURL:    base,
		api:        u,
		key:        key,
		openAI:     openAI,
		timeout:    timeout,
		maxRetries: cfg.MaxRetries,
		budget:     cfg.Budget,
		backoff:    defaultBackoff,
		azure:      az,

		useResponses: api == APIResponses,
	}
	if c.httpClient == nil {
		c.httpClient = sharedClient()
	}
	if openAI {
		c.organization, c.project = cfg.Organization, cfg.Project
	}
	if key != placeholderKey {
		c.apiKey = secretKey(key)
	}
	opts := c.sdkOptions()
	c.chat = openai.NewChatCompletionService(opts...)
	c.responses = responses.NewResponseService(opts...)
	c.embeddings = openai.NewEmbeddingService(opts...)
	c.models = openai.NewModelService(opts...)
	return c, nil
}

// String describes the client without revealing the API key.
func (c Client) String() string {
	return fmt.Sprintf("model.Client{BaseURL: %q, Timeout: %s, MaxRetries: %d}",
		redactURL(c.baseURL), c.timeout, c.maxRetries)
}

// GoString is String, so that %#v does not reveal the API key either.
func (c Client) GoString() string { return c.String() }

// BaseURL returns the endpoint the client talks to, with any password in
// it masked.
func (c *Client) BaseURL() string { return redactURL(c.baseURL) }

// defaultBackoff waits 0.5 s, 1 s, 2 s, ... up to 8 s, less up to a quarter
// of jitter.
func defaultBackoff(n int) time.Duration {
	d := 8 * time.Second
	if n < 4 {
		d = 500 * time.Millisecond << n
	}
	return d - rand.N(d/4)
}

// redactURL masks a password in a URL, if the string parses as one.
func redactURL(s string) string {
	u, err := url.Parse(s)
	if err != nil {
		return s
	}
	return u.Redacted()
}

// Mask replaces the API key the client sends wherever it appears in s,
// so that text a server sent back (an answer, a model name) can be written
// or shown without it. A key shorter than MinSecretLength is no secret and
// is left in s.
func (c *Client) Mask(s string) string { return c.mask(s) }
