package cli_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"regexp"
	"slices"
	"testing"

	"github.com/moot-dev/moot/internal/testkit/modeltest"
)

// azureDeployment is an Azure OpenAI path of a deployment's calls.
var azureDeployment = regexp.MustCompile(`^/openai/deployments/([^/]+)/(chat/completions|embeddings)$`)

// azureFront stands for an Azure OpenAI resource with the deployments
// named, each served by s: it answers only on Azure's paths
// (/openai/deployments/NAME/chat/completions), only with an api-version,
// only to the key in the api-key header or the token as a bearer, and
// hands each call on to s on its OpenAI path.
func azureFront(t *testing.T, s *modeltest.Server, key, token string, deployments ...string) *httptest.Server {
	t.Helper()
	target, err := url.Parse(s.URL)
	if err != nil {
		t.Fatal(err)
	}
	proxy := &httputil.ReverseProxy{Rewrite: func(r *httputil.ProxyRequest) {
		r.SetURL(target)
		m := azureDeployment.FindStringSubmatch(r.In.URL.Path)
		r.Out.URL.Path = target.Path + "/" + m[2]
		r.Out.URL.RawQuery = ""
		r.Out.Header.Del("Api-Key")
		r.Out.Header.Del("Authorization")
	}}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		refuse := func(status int, code, message string) {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(status)
			fmt.Fprintf(w, `{"error":{"code":%q,"message":%q}}`, code, message)
		}
		m := azureDeployment.FindStringSubmatch(r.URL.Path)
		switch {
		case r.URL.Query().Get("api-version") == "":
			refuse(http.StatusNotFound, "404", "Resource not found")
		case r.Header.Get("Api-Key") != key && r.Header.Get("Authorization") != "Bearer "+token:
			refuse(http.StatusUnauthorized, "401", "Access denied due to invalid subscription key or wrong API endpoint.")
		case m == nil || !slices.Contains(deployments, m[1]):
			refuse(http.StatusNotFound, "DeploymentNotFound", "The API deployment for this resource does not exist.")
		default:
			proxy.ServeHTTP(w, r)
		}
	}))
	t.Cleanup(srv.Close)
	return srv
}
