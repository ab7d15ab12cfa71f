// Package research gives debaters two tools, search(query) and read(url):
// a search provider chosen by configuration (SearXNG, Brave Search,
// Tavily) and a careful reader of web pages, with limits on what one
// answer may search and read. The pages it reads are kept by the caller
// as evidence.Source files.
package research

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"strings"
	"time"
)

// SearchEnv is the variable that chooses the search provider:
// "searxng:URL", "brave" or "tavily" (each optionally followed by
// ":URL" for another API root).
const SearchEnv = "MOOT_SEARCH"

// The variables that hold the providers' keys.
const (
	BraveKeyEnv  = "BRAVE_API_KEY"
	TavilyKeyEnv = "TAVILY_API_KEY"
)

// Result is one search result.
type Result struct {
	Title   string `json:"title"`
	URL     string `json:"url"`
	Snippet string `json:"snippet"`
}

// Provider searches the web.
type Provider interface {
	// Name names the provider in messages, such as "searxng at
	// http://localhost:8888".
	Name() string
	Search(ctx context.Context, query string, n int) ([]Result, error)
}

// ErrNoProvider is the error of a research run without MOOT_SEARCH.
var ErrNoProvider = errors.New(SearchEnv + " is not set: set it to searxng:URL, brave or tavily")

// NewProvider returns the provider spec names (MOOT_SEARCH's syntax),
// reading keys through getenv. Its errors never show a key.
func NewProvider(spec string, getenv func(string) string, hc *http.Client) (Provider, error) {
	if getenv == nil {
		getenv = os.Getenv
	}
	if hc == nil {
		hc = &http.Client{Timeout: 30 * time.Second}
	}
	spec = strings.TrimSpace(spec)
	if spec == "" {
		return nil, ErrNoProvider
	}
	kind, root, _ := strings.Cut(spec, ":")
	if root != "" {
		u, err := url.Parse(root)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return nil, fmt.Errorf("%s=%s: want an http(s) URL after %q", SearchEnv, spec, kind+":")
		}
		root = strings.TrimRight(root, "/")
	}
	switch strings.ToLower(kind) {
	case "searxng":
		if root == "" {
			return nil, fmt.Errorf("%s=%s: searxng needs the instance's URL, as in searxng:http://localhost:8888", SearchEnv, spec)
		}
		// An instance behind basic auth has its password in the URL: it
		// is a key like the others, never shown.
		sx := &searxng{root: root, hc: hc, name: root}
		if u, err := url.Parse(root); err == nil && u.User != nil {
			sx.name = u.Redacted()
			sx.key, _ = u.User.Password()
		}
		return sx, nil
	case "brave":
		key := strings.TrimSpace(getenv(BraveKeyEnv))
		if key == "" {
			return nil, fmt.Errorf("brave search needs a key: set %s", BraveKeyEnv)
		}
		if root == "" {
			root = "https://api.search.brave.com/res/v1"
		}
		return &brave{root: root, key: key, hc: hc}, nil
	case "tavily":
		key := strings.TrimSpace(getenv(TavilyKeyEnv))
		if key == "" {
			return nil, fmt.Errorf("tavily needs a key: set %s", TavilyKeyEnv)
		}
		if root == "" {
			root = "https://api.tavily.com"
		}
		return &tavily{root: root, key: key, hc: hc}, nil
	}
	return nil, fmt.Errorf("%s=%s: unknown provider %q: want searxng, brave or tavily", SearchEnv, spec, kind)
}

// Masker is a provider with a secret that it hides in text.
type Masker interface{ Mask(string) string }

// The providers with a key print as their name alone (Format), so that
// no %v of one ever shows the key.

// maxSearchBody caps the answer of a search API.
const maxSearchBody = 4 << 20

// getJSON sends req and decodes its JSON answer into out, naming the
// provider in its errors and never its key.
func getJSON(hc *http.Client, req *http.Request, name, key string, out any) error {
	req.Header.Set("Accept", "application/json")
	req.Header.Set("User-Agent", "moot")
	res, err := hc.Do(req)
	if err != nil {
		return fmt.Errorf("%s: %s", name, mask(err.Error(), key))
	}
	defer res.Body.Close()
	body, err := io.ReadAll(io.LimitReader(res.Body, maxSearchBody))
	if err != nil {
		return fmt.Errorf("%s: reading the answer: %s", name, mask(err.Error(), key))
	}
	if res.StatusCode >= 400 {
		snippet := strings.Join(strings.Fields(string(body)), " ")
		if len(snippet) > 200 {
			snippet = snippet[:200] + "…"
		}
		return fmt.Errorf("%s answered %d: %s", name, res.StatusCode, mask(snippet, key))
	}
	if err := json.Unmarshal(body, out); err != nil {
		return fmt.Errorf("%s: the answer is not the JSON expected: %v", name, err)
	}
	return nil
}

func mask(s, key string) string {
	if len(key) < 4 {
		return s
	}
	return strings.ReplaceAll(s, key, "***")
}

type searxng struct {
	root string
	// name is root without its password; key is the password.
	name, key string
	hc        *http.Client
}

func (s *searxng) Name() string               { return "searxng at " + s.name }
func (s *searxng) Mask(m string) string       { return mask(m, s.key) }
func (s *searxng) Format(f fmt.State, _ rune) { _, _ = io.WriteString(f, s.Name()) }

func (s *searxng) Search(ctx context.Context, query string, n int) ([]Result, error) {
	q := url.Values{"q": {query}, "format": {"json"}}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, s.root+"/search?"+q.Encode(), nil)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", s.Name(), err)
	}
	var out contentResults
	if err := getJSON(s.hc, req, s.Name(), s.key, &out); err != nil {
		return nil, err
	}
	return first(out.results(), n), nil
}

type brave struct {
	root, key string
	hc        *http.Client
}

func (b *brave) Name() string               { return "brave search" }
func (b *brave) Mask(s string) string       { return mask(s, b.key) }
func (b *brave) String() string             { return b.Name() }
func (b *brave) GoString() string           { return b.Name() }
func (b *brave) Format(f fmt.State, _ rune) { _, _ = io.WriteString(f, b.Name()) }

func (b *brave) Search(ctx context.Context, query string, n int) ([]Result, error) {
	q := url.Values{"q": {query}, "count": {fmt.Sprint(max(1, min(n, 20)))}}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, b.root+"/web/search?"+q.Encode(), nil)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", b.Name(), err)
	}
	req.Header.Set("X-Subscription-Token", b.key)
	var out struct {
		Web struct {
			Results []struct {
				Title       string `json:"title"`
				URL         string `json:"url"`
				Description string `json:"description"`
			} `json:"results"`
		} `json:"web"`
	}
	if err := getJSON(b.hc, req, b.Name(), b.key, &out); err != nil {
		return nil, err
	}
	var rs []Result
	for _, r := range out.Web.Results {
		rs = append(rs, Result{Title: r.Title, URL: r.URL, Snippet: r.Description})
	}
	return first(rs, n), nil
}

type tavily struct {
	root, key string
	hc        *http.Client
}

func (t *tavily) Name() string               { return "tavily" }
func (t *tavily) Mask(s string) string       { return mask(s, t.key) }
func (t *tavily) Format(f fmt.State, _ rune) { _, _ = io.WriteString(f, t.Name()) }

func (t *tavily) Search(ctx context.Context, query string, n int) ([]Result, error) {
	body, err := json.Marshal(map[string]any{"query": query, "max_results": max(1, min(n, 20))})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", t.Name(), err)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, t.root+"/search", bytes.NewReader(body))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", t.Name(), err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+t.key)
	var out contentResults
	if err := getJSON(t.hc, req, t.Name(), t.key, &out); err != nil {
		return nil, err
	}
	return first(out.results(), n), nil
}

// contentResults is the answer of SearXNG's and Tavily's search, which
// share a shape: a list of results, each with its page's title, address
// and a passage of its content.
type contentResults struct {
	Results []struct {
		Title   string `json:"title"`
		URL     string `json:"url"`
		Content string `json:"content"`
	} `json:"results"`
}

func (c contentResults) results() []Result {
	var rs []Result
	for _, r := range c.Results {
		rs = append(rs, Result{Title: r.Title, URL: r.URL, Snippet: r.Content})
	}
	return rs
}

func first(rs []Result, n int) []Result {
	if n > 0 && len(rs) > n {
		return rs[:n]
	}
	return rs
}
