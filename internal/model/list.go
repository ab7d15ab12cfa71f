package model

import (
	"context"
	"errors"
	"fmt"
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
	var x exchange
	defer x.done()
	page, err := c.models.List(ctx, c.middleware(ctx, &x, &call{unmetered: true}, false))
	if err != nil {
		err = sdkFailure(err, &x)
		var status *statusError
		switch {
		case errors.As(err, &status):
			f := status.fields
			if !status.typed {
				f.message = c.bodyText(x.res.Header.Get("Content-Type"), status.body)
			}
			return nil, c.apiError(status.status, f, "")
		case errors.Is(err, syscall.ECONNREFUSED):
			return nil, &UnreachableError{BaseURL: c.BaseURL(), Err: err, Azure: c.azure != nil}
		}
		var encoding *EncodingError
		if errors.As(err, &encoding) {
			return nil, encoding
		}
		if x.res != nil {
			return nil, fmt.Errorf("list the models of %s: the answer is not a list of models: %w", c.BaseURL(), err)
		}
		return nil, fmt.Errorf("list the models of %s: %w", c.BaseURL(), err)
	}
	data := page.Data
	if len(data) > MaxModels {
		data = data[:MaxModels]
	}
	ids := make([]string, 0, len(data))
	for _, m := range data {
		if id := strings.TrimSpace(m.ID); id != "" {
			ids = append(ids, id)
		}
	}
	sort.Strings(ids)
	return ids, nil
}
