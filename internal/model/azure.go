package model

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"
	"strings"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/openai/openai-go/v3/azure"
	"github.com/openai/openai-go/v3/option"
)

// This file reaches Azure OpenAI through the SDK's azure options: the
// model a request names is the deployment, which the SDK puts in the path
// (/openai/deployments/NAME/chat/completions?api-version=...), and the key
// goes in the api-key header, or a Microsoft Entra ID token as a bearer.

// azureConfig is an Azure OpenAI endpoint and how to sign in to it.
type azureConfig struct {
	endpoint   string
	apiVersion string
	// token is a Microsoft Entra ID access token, used (useToken) when no
	// key is set.
	token    string
	useToken bool
}

// ErrAzureNoAuth is returned by New for an Azure endpoint with neither an
// API key nor an Entra ID token.
var ErrAzureNoAuth = errors.New("no Azure OpenAI key: set AZURE_OPENAI_API_KEY, " +
	"or AZURE_OPENAI_AD_TOKEN to a Microsoft Entra ID access token " +
	"(az account get-access-token --resource https://cognitiveservices.azure.com)")

// newAzure checks an Azure endpoint's configuration.
func newAzure(cfg Config) (*azureConfig, error) {
	endpoint := strings.TrimSpace(cfg.AzureEndpoint)
	u, err := url.Parse(endpoint)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("invalid Azure OpenAI endpoint %q: want an https URL such as https://NAME.openai.azure.com",
			redactURL(endpoint))
	}
	if u.Scheme == "http" && !loopback(u.Hostname()) {
		return nil, fmt.Errorf("invalid Azure OpenAI endpoint %q: the key goes only over https", redactURL(endpoint))
	}
	version := strings.TrimSpace(cfg.AzureAPIVersion)
	if version == "" {
		return nil, errors.New("no Azure OpenAI API version: set OPENAI_API_VERSION (such as 2024-10-21)")
	}
	a := &azureConfig{endpoint: endpoint, apiVersion: version, token: strings.TrimSpace(cfg.AzureADToken)}
	a.useToken = strings.TrimSpace(cfg.APIKey) == ""
	if a.useToken && a.token == "" {
		return nil, ErrAzureNoAuth
	}
	return a, nil
}

// loopback says whether host is this machine.
func loopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// options are the SDK's options for the endpoint, signed in with key, or
// with the Entra ID token when no key was given.
func (a *azureConfig) options(key string) []option.RequestOption {
	opts := []option.RequestOption{azure.WithEndpoint(a.endpoint, a.apiVersion)}
	if u, err := url.Parse(a.endpoint); err == nil && u.Scheme == "http" {
		// A local stand-in (a test's fake, a proxy on this machine).
		opts = append(opts, azure.WithUnsafeAllowHTTP())
	}
	if a.useToken {
		return append(opts, azure.WithTokenCredential(staticToken(a.token)))
	}
	return append(opts, azure.WithAPIKey(key))
}

// staticToken is an Entra ID access token obtained beforehand, given to
// the SDK as a token credential (azidentity, which would fetch tokens
// itself, is left out: it pulls in the Microsoft Authentication Library).
type staticToken string

// GetToken returns the token; its expiry is unknown, so it is said to be
// an hour away and a server's 401 tells when it has run out.
func (t staticToken) GetToken(context.Context, policy.TokenRequestOptions) (azcore.AccessToken, error) {
	return azcore.AccessToken{Token: string(t), ExpiresOn: time.Now().Add(time.Hour)}, nil
}
