package model

import (
	"context"
	"errors"
	"fmt"
	"math"
	"net/http"
	"strings"
	"time"

	"github.com/openai/openai-go/v3"
)

// embedResult is the answer of an embeddings request as the SDK decoded
// it.
type embedResult struct {
	answer       *openai.CreateEmbeddingResponse
	promptTokens int64
}

// EmbedRequest asks for the embeddings of texts.
type EmbedRequest struct {
	Model string
	Input []string
	// OnRetry, when set, is called before each retry of a failed attempt.
	OnRetry func(Retry)
}

// EmbedResponse is the vectors of an EmbedRequest's texts, in their order.
type EmbedResponse struct {
	Vectors      [][]float64
	Model        string
	PromptTokens int
	Latency      time.Duration
	Attempts     int
}

// ErrNoEmbeddings is wrapped by the error of Embed when the endpoint has
// no embeddings for the model: it answered 400, 404, 405, 422 or 501, so
// that asking again would not help and a caller may rank texts otherwise.
var ErrNoEmbeddings = errors.New("the endpoint gives no embeddings")

// Embed asks the endpoint's /embeddings for the vectors of req.Input in
// one request, with the retries of Complete. The answer must hold one
// finite vector per text, all of one length.
func (c *Client) Embed(ctx context.Context, req EmbedRequest) (EmbedResponse, error) {
	start := time.Now()
	if strings.TrimSpace(req.Model) == "" {
		return EmbedResponse{}, errors.New("request names no model")
	}
	if len(req.Input) == 0 {
		return EmbedResponse{}, errors.New("request has no input")
	}
	cl := &call{model: req.Model, onRetry: req.OnRetry, embed: true}
	var res embedResult
	params := openai.EmbeddingNewParams{
		Model: req.Model,
		Input: openai.EmbeddingNewParamsInputUnion{OfArrayOfStrings: req.Input},
	}
	err := c.do(ctx, cl, &res, func(x *exchange) error {
		res = embedResult{}
		defer x.done()
		got, err := c.embeddings.New(ctx, params, c.middleware(ctx, x, cl, false))
		if err != nil {
			return sdkFailure(err, x)
		}
		res.answer = got
		res.promptTokens = got.Usage.PromptTokens
		return nil
	})
	out := EmbedResponse{Latency: time.Since(start), Attempts: cl.attempts, Model: req.Model}
	if err != nil {
		var apiErr *APIError
		if errors.As(err, &apiErr) {
			switch apiErr.Status {
			case http.StatusBadRequest, http.StatusNotFound, http.StatusMethodNotAllowed, http.StatusUnprocessableEntity, http.StatusNotImplemented:
				err = fmt.Errorf("%w: %w", ErrNoEmbeddings, err)
			}
		}
		return out, c.scrub(err)
	}
	if res.answer.Model != "" {
		out.Model = res.answer.Model
	}
	out.PromptTokens = int(res.promptTokens)
	out.Vectors = make([][]float64, len(req.Input))
	for _, e := range res.answer.Data {
		i := int(e.Index)
		if int64(i) != e.Index || i < 0 || i >= len(req.Input) || out.Vectors[i] != nil {
			return out, fmt.Errorf("model %q via %s: embedding index %v is out of place", req.Model, c.BaseURL(), e.Index)
		}
		out.Vectors[i] = e.Embedding
	}
	for i, v := range out.Vectors {
		if len(v) == 0 || len(v) != len(out.Vectors[0]) {
			return out, fmt.Errorf("model %q via %s: embedding %d of %d is missing or of another length", req.Model, c.BaseURL(), i+1, len(req.Input))
		}
		for _, x := range v {
			if math.IsNaN(x) || math.IsInf(x, 0) {
				return out, fmt.Errorf("model %q via %s: embedding %d holds a number that is not finite", req.Model, c.BaseURL(), i+1)
			}
		}
	}
	return out, nil
}
