package model

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
)

// azureFake is an Azure OpenAI endpoint: it answers only on Azure's
// paths, with the api-version asked, and records what each request
// carried.
type azureFake struct {
	mu   sync.Mutex
	seen []azureSeen
}

type azureSeen struct {
	method, path, version, apiKey, auth, body string
}

func (f *azureFake) handler(t *testing.T) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		f.mu.Lock()
		f.seen = append(f.seen, azureSeen{r.Method, r.URL.Path, r.URL.Query().Get("api-version"),
			r.Header.Get("Api-Key"), r.Header.Get("Authorization"), string(body)})
		f.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		if r.URL.Query().Get("api-version") == "" {
			w.WriteHeader(http.StatusNotFound)
			fmt.Fprint(w, `{"error":{"code":"404","message":"Resource not found"}}`)
			return
		}
		if r.Header.Get("Api-Key") == "wrong-key-0123456789" {
			w.WriteHeader(http.StatusUnauthorized)
			fmt.Fprint(w, `{"error":{"code":"401","message":"Access denied due to invalid subscription key wrong-key-0123456789."}}`)
			return
		}
		switch r.URL.Path {
		case "/openai/deployments/gpt-4o-prod/chat/completions":
			fmt.Fprint(w, `{"id":"c1","object":"chat.completion","model":"gpt-4o-2024-08-06","choices":[{"index":0,"finish_reason":"stop","message":{"role":"assistant","content":"azure says hi"}}],"usage":{"prompt_tokens":5,"completion_tokens":3}}`)
		case "/openai/deployments/embed-prod/embeddings":
			fmt.Fprint(w, `{"object":"list","model":"text-embedding-3-small","data":[{"object":"embedding","index":0,"embedding":[0.5,0.25]}],"usage":{"prompt_tokens":2,"total_tokens":2}}`)
		default:
			w.WriteHeader(http.StatusNotFound)
			fmt.Fprint(w, `{"error":{"code":"DeploymentNotFound","message":"The API deployment for this resource does not exist."}}`)
		}
	})
}

func (f *azureFake) requests() []azureSeen {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]azureSeen(nil), f.seen...)
}

// TestAzureOpenAI checks that a client configured for Azure OpenAI asks
// the deployment its model names, on Azure's paths, with the API version,
// signed in with the key in api-key or an Entra ID token as a bearer.
func TestAzureOpenAI(t *testing.T) {
	tests := []struct {
		name     string
		env      map[string]string
		wantKey  string
		wantAuth string
	}{
		{name: "api key", env: map[string]string{"AZURE_OPENAI_API_KEY": testKey}, wantKey: testKey},
		{name: "entra id token", env: map[string]string{"AZURE_OPENAI_AD_TOKEN": "eyJ0eXAi.entra.token"}, wantAuth: "Bearer eyJ0eXAi.entra.token"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fake := &azureFake{}
			srv := httptest.NewServer(fake.handler(t))
			defer srv.Close()
			env := map[string]string{
				"AZURE_OPENAI_ENDPOINT": srv.URL,
				"OPENAI_API_VERSION":    "2024-10-21",
				// Ignored for Azure: the OpenAI key is not sent there.
				"OPENAI_API_KEY": "sk-openai-not-for-azure-0123",
			}
			for k, v := range tt.env {
				env[k] = v
			}
			c, err := New(ConfigFromEnv(envOf(env)))
			if err != nil {
				t.Fatalf("New: %v", err)
			}
			req := chat("gpt-4o-prod")
			req.MaxTokens = 50
			resp, err := c.Complete(context.Background(), req)
			if err != nil || resp.Text != "azure says hi" || resp.PromptTokens != 5 || resp.Model != "gpt-4o-2024-08-06" {
				t.Fatalf("Complete = %+v, %v; want Azure's answer", resp, err)
			}
			emb, err := c.Embed(context.Background(), EmbedRequest{Model: "embed-prod", Input: []string{"x"}})
			if err != nil || len(emb.Vectors) != 1 || emb.Vectors[0][1] != 0.25 {
				t.Fatalf("Embed = %+v, %v; want Azure's vector", emb, err)
			}
			seen := fake.requests()
			if len(seen) != 2 {
				t.Fatalf("requests %+v, want a chat and an embeddings request", seen)
			}
			for _, s := range seen {
				if s.method != "POST" || s.version != "2024-10-21" || s.apiKey != tt.wantKey || s.auth != tt.wantAuth {
					t.Errorf("request %s %s api-version %q api-key %q Authorization %q, want api-version 2024-10-21, api-key %q, Authorization %q",
						s.method, s.path, s.version, s.apiKey, s.auth, tt.wantKey, tt.wantAuth)
				}
			}
			if !strings.Contains(seen[0].body, `"max_completion_tokens":50`) {
				t.Errorf("chat body %s, want max_completion_tokens as OpenAI's models take it", seen[0].body)
			}
		})
	}
}

// TestAzureErrors checks that Azure's refusals keep moot's wording, with
// the key masked, and that a configuration missing a part says which.
func TestAzureErrors(t *testing.T) {
	fake := &azureFake{}
	srv := httptest.NewServer(fake.handler(t))
	defer srv.Close()
	const wrong = "wrong-key-0123456789"
	c, err := New(Config{AzureEndpoint: srv.URL, AzureAPIVersion: "2024-10-21", APIKey: wrong})
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.Complete(context.Background(), chat("gpt-4o-prod"))
	var apiErr *APIError
	if !errors.As(err, &apiErr) || apiErr.Status != http.StatusUnauthorized || strings.Contains(err.Error(), wrong) ||
		!strings.Contains(err.Error(), "answered 401 Unauthorized: Access denied") {
		t.Errorf("err = %v, want moot's 401 with the key masked", err)
	}
	c, err = New(Config{AzureEndpoint: srv.URL, AzureAPIVersion: "2024-10-21", APIKey: testKey})
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.Complete(context.Background(), chat("no-such-deployment"))
	if !errors.As(err, &apiErr) || apiErr.Status != http.StatusNotFound || apiErr.Code != "DeploymentNotFound" {
		t.Errorf("err = %v, want a 404 naming DeploymentNotFound", err)
	}

	for _, tt := range []struct {
		name string
		cfg  Config
		want string
	}{
		{"no version", Config{AzureEndpoint: "https://r.openai.azure.com", APIKey: testKey}, "OPENAI_API_VERSION"},
		{"no key", Config{AzureEndpoint: "https://r.openai.azure.com", AzureAPIVersion: "2024-10-21"}, "AZURE_OPENAI_API_KEY"},
		{"not a URL", Config{AzureEndpoint: "r.openai.azure.com", AzureAPIVersion: "2024-10-21", APIKey: testKey}, "invalid Azure OpenAI endpoint"},
		{"key over http", Config{AzureEndpoint: "http://r.openai.azure.com", AzureAPIVersion: "2024-10-21", APIKey: testKey}, "only over https"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := New(tt.cfg); err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("New = %v, want an error naming %q", err, tt.want)
			}
		})
	}
}

// TestAzureHints checks that the advice given with an Azure OpenAI
// failure names Azure's variables and deployments, not OpenAI's.
func TestAzureHints(t *testing.T) {
	fake := &azureFake{}
	srv := httptest.NewServer(fake.handler(t))
	defer srv.Close()
	ask := func(t *testing.T, endpoint, key, deployment string) error {
		t.Helper()
		c, err := New(Config{AzureEndpoint: endpoint, AzureAPIVersion: "2024-10-21", APIKey: key})
		if err != nil {
			t.Fatal(err)
		}
		_, err = c.Complete(context.Background(), chat(deployment))
		return err
	}
	t.Run("wrong key", func(t *testing.T) {
		err := ask(t, srv.URL, "wrong-key-0123456789", "gpt-4o-prod")
		var apiErr *APIError
		if !errors.As(err, &apiErr) || !strings.Contains(apiErr.Hint(), "AZURE_OPENAI_API_KEY") || strings.Contains(apiErr.Hint(), "OPENAI_BASE_URL") {
			t.Errorf("err = %v, want a hint naming AZURE_OPENAI_API_KEY", err)
		}
	})
	t.Run("no such deployment", func(t *testing.T) {
		err := ask(t, srv.URL, testKey, "gpt-4o-typo")
		var apiErr *APIError
		if !errors.As(err, &apiErr) || !strings.Contains(apiErr.Hint(), `"gpt-4o-typo" is deployed`) {
			t.Errorf("err = %v, want a hint naming the deployment", err)
		}
	})
	t.Run("nothing listens", func(t *testing.T) {
		closed := httptest.NewServer(http.NotFoundHandler())
		closed.Close()
		err := ask(t, closed.URL, testKey, "gpt-4o-prod")
		var un *UnreachableError
		if !errors.As(err, &un) || !strings.Contains(err.Error(), "AZURE_OPENAI_ENDPOINT says where") {
			t.Errorf("err = %v, want an *UnreachableError naming AZURE_OPENAI_ENDPOINT", err)
		}
	})
}
