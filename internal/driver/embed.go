package driver

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/moot-dev/moot/internal/model"
	sm "github.com/moot-dev/moot/statemachine"
)

// Embedder is what a run needs of a model client for the calls that ask
// for embeddings (sm.Call.Embed). A client without it has none: such a
// call is answered as unavailable.
type Embedder interface {
	Embed(ctx context.Context, req model.EmbedRequest) (model.EmbedResponse, error)
}

// EmbeddingsCache is the private file that keeps every vector a debate's
// calls were given, a JSON line each, by the hash of model and text, so
// that no text is embedded twice. It can be deleted at any time.
const EmbeddingsCache = "embeddings.jsonl"

type cachedVector struct {
	Key    string    `json:"key"`
	Vector []float64 `json:"vector"`
}

func vectorKey(modelName, text string) string {
	h := sha256.Sum256([]byte(modelName + "\x00" + text))
	return hex.EncodeToString(h[:])
}

// validEmbeddings checks the answer of an embedding call of n texts.
func validEmbeddings(n int) func([]byte) sm.Report {
	return func(a []byte) sm.Report {
		var e sm.Embeddings
		if err := json.Unmarshal(a, &e); err != nil {
			return sm.Report{Errors: []string{"not the JSON of embeddings: " + err.Error()}}
		}
		if e.Unavailable == "" && len(e.Vectors) != n {
			return sm.Report{Errors: []string{fmt.Sprintf("%d vectors for %d texts", len(e.Vectors), n)}}
		}
		return sm.Report{}
	}
}

// embed answers a call that asks for embeddings: the vectors of its texts
// from the cache, the rest in one request, or, when the endpoint has
// none, an answer that says so. Other failures fail the call as a chat's
// do.
func (r *runner) embed(ctx context.Context, step *sm.Step, c sm.Call) (sm.Answer, error) {
	role := c.Role
	r.mu.Lock()
	rs := r.settings.Role(c.Role)
	r.mu.Unlock()
	cache := map[string][]float64{}
	if data, err := r.d.ReadPrivate(EmbeddingsCache); err == nil {
		for _, line := range bytes.Split(data, []byte("\n")) {
			var cv cachedVector
			if json.Unmarshal(line, &cv) == nil && len(cv.Vector) > 0 {
				cache[cv.Key] = cv.Vector
			}
		}
	}
	out := sm.Embeddings{Model: rs.Model, Vectors: make([][]float64, len(c.Embed))}
	var missing []string
	var at []int
	for i, text := range c.Embed {
		if v, ok := cache[vectorKey(rs.Model, text)]; ok {
			out.Vectors[i] = v
			continue
		}
		missing = append(missing, text)
		at = append(at, i)
	}
	var elapsed time.Duration
	attempts := 0
	if len(missing) > 0 {
		em, ok := r.opts.Client.(Embedder)
		var resp model.EmbedResponse
		err := error(model.ErrNoEmbeddings)
		if ok {
			r.opts.Emit(Event{Time: r.opts.Now(), Kind: EventAsk, Exchange: step.Unit, Role: c.Role, Model: rs.Model})
			resp, err = em.Embed(ctx, model.EmbedRequest{Model: rs.Model, Input: missing, OnRetry: func(rt model.Retry) {
				r.opts.Emit(Event{Time: r.opts.Now(), Kind: EventRetry, Exchange: step.Unit, Role: c.Role, Model: rs.Model,
					Seconds: rt.Wait.Seconds(),
					Message: fmt.Sprintf("attempt %d of %d failed (%s); trying again in %.1f s", rt.Attempt, rt.Of, rt.Reason, rt.Wait.Seconds())})
			}})
			r.logUsage(step.Unit, role, rs.Model, model.Response{PromptTokens: resp.PromptTokens, Latency: resp.Latency, Attempts: resp.Attempts, Model: resp.Model}, err, &Transcript{Input: missing})
			elapsed, attempts = resp.Latency, 1
		}
		switch {
		case errors.Is(err, model.ErrNoEmbeddings):
			out = sm.Embeddings{Model: rs.Model, Unavailable: r.opts.Mask(err.Error())}
			r.opts.Warn(fmt.Sprintf("the %s's model %s gives no embeddings: %s", c.Role, rs.Model, out.Unavailable))
		case err != nil:
			if ctx.Err() != nil {
				return sm.Answer{}, ctx.Err()
			}
			return sm.Answer{}, &RoleError{Role: role, Exchange: step.Unit, Unit: r.unit, Err: maskedError{err, r.opts.Mask}}
		default:
			var lines bytes.Buffer
			for j, v := range resp.Vectors {
				out.Vectors[at[j]] = v
				line, _ := json.Marshal(cachedVector{Key: vectorKey(rs.Model, missing[j]), Vector: v})
				lines.Write(append(line, '\n'))
			}
			if err := r.d.AppendPrivate(EmbeddingsCache, lines.Bytes()); err != nil {
				r.opts.Warn(fmt.Sprintf("cannot cache the embeddings: %v", err))
			}
		}
	}
	text, err := json.Marshal(out)
	if err != nil {
		return sm.Answer{}, err
	}
	if meta, err := json.Marshal(keptMeta{Model: rs.Model, Attempts: attempts, Elapsed: elapsed.Seconds()}); err == nil {
		r.keep(metaName(step, c), c.Role, meta)
	}
	r.keep(keptName(step, c), c.Role, text)
	return sm.Answer{Text: text, Model: rs.Model, Attempts: attempts, Elapsed: elapsed}, nil
}
