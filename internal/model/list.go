package model

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sort"
	"strings"
	"syscall"
)

// MaxModels is the most model ids ListModels reads from an endpoint.
const MaxModels = 10000

// ListModels asks the endpoint which models it serves (GET {base}/models)
// and returns their ids, sorted. It tries once, within the client's
// timeout: a server that refuses the connection fails with an
// *UnreachableError, one that answers with an error status with an
// *APIError (404 for an endpoint that does not list its models). The key
// never appears in the error.
func (c *Client) ListModels(ctx context.Context) ([]string, error) {
	ids, err := c.listModels(ctx)
	return ids, c.scrub(err)
}

func (c *Client) listModels(ctx context.Context) ([]string, error) {
	ctx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, c.api.JoinPath("models").String(), nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", "application/json")
	c.setHeaders(req)
	res, err := c.httpClient.Do(req)
	if err != nil {
		if errors.Is(err, syscall.ECONNREFUSED) {
			return nil, &UnreachableError{BaseURL: c.BaseURL(), Err: err}
		}
		return nil, fmt.Errorf("list the models of %s: %w", c.BaseURL(), err)
	}
	defer res.Body.Close()
	if enc := res.Header.Get("Content-Encoding"); enc != "" && !strings.EqualFold(enc, "identity") {
		return nil, &EncodingError{Encoding: enc}
	}
	body, err := io.ReadAll(limitBody(res.Body, MaxResponseSize))
	if err != nil {
		return nil, fmt.Errorf("list the models of %s: reading the body: %w", c.BaseURL(), err)
	}
	if res.StatusCode >= 400 {
		msg, typ, code, param, ok := parseError(body)
		if !ok {
			msg = c.bodyText(res.Header.Get("Content-Type"), body)
		}
		return nil, c.apiError(res.StatusCode, msg, typ, code, param, "")
	}
	var list struct {
		Data []struct {
			ID string `json:"id"`
		} `json:"data"`
	}
	if err := json.Unmarshal(body, &list); err != nil {
		return nil, fmt.Errorf("list the models of %s: the answer is not a list of models: %w", c.BaseURL(), err)
	}
	if len(list.Data) > MaxModels {
		list.Data = list.Data[:MaxModels]
	}
	ids := make([]string, 0, len(list.Data))
	for _, m := range list.Data {
		if id := strings.TrimSpace(m.ID); id != "" {
			ids = append(ids, id)
		}
	}
	sort.Strings(ids)
	return ids, nil
}
