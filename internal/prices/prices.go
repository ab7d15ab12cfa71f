// Package prices is what moot knows of what models cost: a small built-in
// table of prices for common models, each row dated and naming the page
// that published it, which a user's file replaces or extends; and the
// bill of a debate's usage log at those prices.
//
// moot cannot check a price from where it runs. Each built-in row is the
// price as published on its date at its source, read from a stored copy
// of that page (or of a page quoting it, named beside the row), and
// providers change their prices: check them before relying on a figure.
// A model with no row has no price: its cost is unknown, never guessed.
//
// A model id finds its row by these rules, and no others:
//
//  1. The id itself, compared without regard to case and to the blank
//     space around it.
//  2. An id with a provider's prefix (openai/gpt-4o, as OpenRouter names
//     OpenAI's models) finds the row of the rest (gpt-4o) when that row is
//     of that provider. No other prefix is taken off: azure/gpt-4o has no
//     price unless a row has that name.
//
// A dated version of a model (gpt-4o-2024-05-13) is a model of its own:
// it matches only a row of its name. A usage line whose answering model
// has no row is priced as the model that was asked (see Bill).
package prices

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/moot-dev/moot/internal/frontmatter"
)

// Price is what a model costs, in US dollars per million tokens.
type Price struct {
	// Input is the price of a prompt token not read from a cache.
	Input float64
	// Cached is the price of a prompt token the server read from its
	// prompt cache. A row that gives none has Input here, the most such a
	// token can cost, and NoCachedPrice set.
	Cached        float64
	NoCachedPrice bool
	// CacheWrite is the price of a prompt token the server wrote to its
	// prompt cache, which Anthropic bills above the input price. A row
	// that gives none has Input here.
	CacheWrite float64
	// Output is the price of a completion token.
	Output float64
	// Provider is the provider whose prefix an id may carry and still
	// find this row (rule 2 of the package's): "openai" for gpt-4o.
	Provider string
	// Date is when the price was published at Source, as YYYY-MM-DD (or
	// YYYY-MM when the copy read gave only the month). A row of a user's
	// file has no date, and its file as Source.
	Date   string
	Source string
}

// Cost is what prompt tokens, cached of them, and completion tokens
// cost at p, in US dollars. Cached tokens beyond the prompt count as
// prompt tokens, and negative counts as none.
func (p Price) Cost(prompt, cached, completion int) float64 {
	return p.CostWritten(prompt, cached, 0, completion)
}

// CostWritten is Cost with written of the prompt tokens written to the
// server's cache, at the CacheWrite price. Written tokens beyond what the
// prompt has left after the cached ones count as prompt tokens.
func (p Price) CostWritten(prompt, cached, written, completion int) float64 {
	prompt, completion = max(prompt, 0), max(completion, 0)
	cached = min(max(cached, 0), prompt)
	written = min(max(written, 0), prompt-cached)
	return (float64(prompt-cached-written)*p.Input + float64(cached)*p.Cached + float64(written)*p.CacheWrite + float64(completion)*p.Output) / 1e6
}

// Table is a set of prices by model id.
type Table struct {
	rows map[string]Price
}

// key is how an id is compared: without case and surrounding blanks.
func key(id string) string { return strings.ToLower(strings.TrimSpace(id)) }

// Builtin returns moot's own table (see builtin.go).
func Builtin() Table {
	t := Table{rows: make(map[string]Price, len(builtin))}
	for _, r := range builtin {
		t.rows[key(r.Model)] = r.Price
	}
	return t
}

// With returns t with the rows of a user's file, which replace t's rows of
// the same names (keeping their provider, so that openai/gpt-4o follows a
// new price of gpt-4o) and add the others.
func (t Table) With(file map[string]Price) Table {
	out := Table{rows: make(map[string]Price, len(t.rows)+len(file))}
	for k, p := range t.rows {
		out.rows[k] = p
	}
	for id, p := range file {
		k := key(id)
		if old, ok := t.rows[k]; ok && p.Provider == "" {
			p.Provider = old.Provider
		}
		out.rows[k] = p
	}
	return out
}

// Lookup returns the price of the model id, by the rules of the package,
// and the name of the row it came from; ok is false when it has none.
func (t Table) Lookup(id string) (p Price, row string, ok bool) {
	k := key(id)
	if k == "" {
		return Price{}, "", false
	}
	if p, ok := t.rows[k]; ok {
		return p, k, true
	}
	if prefix, rest, found := strings.Cut(k, "/"); found && prefix != "" {
		if p, ok := t.rows[rest]; ok && p.Provider != "" && p.Provider == prefix {
			return p, rest, true
		}
	}
	return Price{}, "", false
}

// Row is a row of a table, with its name.
type Row struct {
	Model string
	Price
}

// Rows lists the rows of t, sorted by name.
func (t Table) Rows() []Row {
	out := make([]Row, 0, len(t.rows))
	for k, p := range t.rows {
		out = append(out, Row{Model: k, Price: p})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Model < out[j].Model })
	return out
}

// fileRow is a row of a user's prices file.
type fileRow struct {
	Input      *float64 `json:"input" yaml:"input"`
	Cached     *float64 `json:"cached" yaml:"cached"`
	CacheWrite *float64 `json:"cache_write" yaml:"cache_write"`
	Output     *float64 `json:"output" yaml:"output"`
}

// Parse reads a user's prices file: a JSON object, or YAML of the same
// shape, mapping each model id to its input, cached and output prices in
// US dollars per million tokens. input and output are required; a row
// without cached prices a cached token as an input one, and one without
// cache_write a token written to the cache (as Anthropic bills them).
// source names the
// file in the rows, as their Source, and in errors.
//
//	{"gpt-4o": {"input": 2.5, "cached": 1.25, "output": 10}}
//
//	my-model:
//	  input: 0.2
//	  output: 0.8
func Parse(data []byte, source string) (map[string]Price, error) {
	rows := map[string]fileRow{}
	if trimmed := bytes.TrimSpace(data); len(trimmed) > 0 && trimmed[0] == '{' {
		dec := json.NewDecoder(bytes.NewReader(trimmed))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&rows); err != nil {
			return nil, fmt.Errorf("%s: %w", source, err)
		}
		if dec.More() {
			return nil, fmt.Errorf("%s: more after the JSON object", source)
		}
		if err := frontmatter.CheckDuplicates(trimmed[:dec.InputOffset()]); err != nil {
			return nil, fmt.Errorf("%s: %w", source, err)
		}
	} else if len(trimmed) > 0 {
		dec := yaml.NewDecoder(bytes.NewReader(data))
		dec.KnownFields(true)
		if err := dec.Decode(&rows); err != nil {
			return nil, fmt.Errorf("%s: %w", source, err)
		}
	}
	if len(rows) == 0 {
		return nil, fmt.Errorf("%s: no prices: want an object of model ids, each with input and output prices per million tokens", source)
	}
	out := make(map[string]Price, len(rows))
	ids := make([]string, 0, len(rows))
	for id := range rows {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	for _, id := range ids {
		r := rows[id]
		if key(id) == "" {
			return nil, fmt.Errorf("%s: a row has no model id", source)
		}
		if _, dup := out[key(id)]; dup {
			return nil, fmt.Errorf("%s: model %q is given twice", source, id)
		}
		p := Price{Source: source}
		for _, f := range []struct {
			name string
			v    *float64
			to   *float64
		}{{"input", r.Input, &p.Input}, {"output", r.Output, &p.Output}, {"cached", r.Cached, &p.Cached}, {"cache_write", r.CacheWrite, &p.CacheWrite}} {
			if f.v == nil {
				if f.name == "cached" || f.name == "cache_write" {
					continue
				}
				return nil, fmt.Errorf("%s: model %q has no %s price", source, id, f.name)
			}
			if math.IsNaN(*f.v) || math.IsInf(*f.v, 0) || *f.v < 0 {
				return nil, fmt.Errorf("%s: model %q: the %s price %v is not a price of 0 or more", source, id, f.name, *f.v)
			}
			*f.to = *f.v
		}
		if r.Cached == nil {
			p.Cached, p.NoCachedPrice = p.Input, true
		}
		if r.CacheWrite == nil {
			p.CacheWrite = p.Input
		}
		out[key(id)] = p
	}
	return out, nil
}

// USD writes an amount of US dollars: to the cent from a dollar up, to a
// hundredth of a cent below.
func USD(x float64) string {
	if x >= 1 {
		return fmt.Sprintf("$%.2f", x)
	}
	return fmt.Sprintf("$%.4f", x)
}

// PerMillion writes a price per million tokens without trailing zeros
// beyond the cent: $2.50, $0.075.
func PerMillion(x float64) string {
	s := fmt.Sprintf("%.4f", x)
	s = strings.TrimRight(s, "0")
	if i := strings.IndexByte(s, '.'); len(s)-i < 3 {
		s += strings.Repeat("0", 3-(len(s)-i))
	}
	return "$" + s
}

// EstimateTokens is the token count moot assumes for n bytes of text when
// it estimates a call before asking it: one token for every four bytes,
// rounded up. Tokenizers differ; English text runs near four bytes a token.
func EstimateTokens(n int) int { return (max(n, 0) + 3) / 4 }

// TypicalAnswer is the answer length, in tokens, that an estimate assumes
// for a call that sets no cap on its answer and whose role has answered
// nothing yet in the debate.
const TypicalAnswer = 1000
