// Package schemafake is a fake model for property tests: a handler for
// modeltest's server that answers every chat request that carries a JSON
// schema with a random instance of that schema, and every request without
// one with plausible random prose. It models a model whose server enforces
// the schema by constrained decoding, as Ollama, llama.cpp and vLLM do:
// whatever the schema says, the answer keeps to; whatever it does not say,
// the answer leaves to chance.
//
// Its answers depend on the seed and the request alone (its messages and
// its schema), so that a run is reproduced by its seed, a resumed run is
// answered as the uninterrupted one was, and an answer sent back for
// repair is answered anew (the repair is part of the messages).
//
// A schema that uses a keyword outside the portable subset (see Keywords)
// fails the test: a keyword a grammar engine ignores is a rule the model
// is not held to.
package schemafake

import (
	"encoding/json"
	"fmt"
	"hash/fnv"
	"math"
	"math/rand/v2"
	"slices"
	"sort"
	"strings"

	"github.com/moot-dev/moot/internal/testkit/modeltest"
)

// Keywords are the keywords a schema may use: those that OpenAI's strict
// structured output accepts and that Ollama, llama.cpp and vLLM turn into
// a grammar (llama.cpp bounds only integers, and ignores minimum and
// maximum on a number, which is harmless: the bound is then checked by the
// call's validation, as before). title and description are notes.
var Keywords = []string{
	"type", "properties", "required", "additionalProperties", "items",
	"enum", "minItems", "maxItems", "minimum", "maximum", "title", "description",
}

// Options change how the fake answers.
type Options struct {
	// Seed makes the answers of one run; two runs with the same seed get
	// the same answers to the same requests.
	Seed uint64
	// Fix, when set, may change the instance v of the schema called name
	// before it is sent, to keep a rule that no schema can say (a sum, a
	// relation between two fields): as a model that reads its prompt
	// keeps it. It is given the request, and a source of randomness of
	// the request's own.
	Fix func(req modeltest.Request, name string, v any, r *rand.Rand)
	// Text, when set, returns the answer to a request without a schema,
	// given the prose the fake made for it; nil sends the prose.
	Text func(req modeltest.Request, prose string, r *rand.Rand) string
}

// Handler returns the fake's handler.
func Handler(o Options) modeltest.Handler {
	return func(req modeltest.Request) modeltest.Reply {
		r := source(o.Seed, req)
		if len(req.Schema) == 0 || req.ResponseFormat != "json_schema" {
			text := Prose(r, 2+r.IntN(4))
			if o.Text != nil {
				text = o.Text(req, text, r)
			}
			return modeltest.Reply{Content: text}
		}
		var schema map[string]any
		if err := json.Unmarshal(req.Schema, &schema); err != nil {
			return modeltest.Failf("schemafake: the schema %q is not a JSON object: %v", req.SchemaName, err)
		}
		v, err := Instance(schema, r)
		if err != nil {
			return modeltest.Failf("schemafake: schema %q: %v", req.SchemaName, err)
		}
		if o.Fix != nil {
			o.Fix(req, req.SchemaName, v, r)
		}
		out, err := json.Marshal(v)
		if err != nil {
			return modeltest.Failf("schemafake: schema %q: %v", req.SchemaName, err)
		}
		return modeltest.Reply{Content: string(out)}
	}
}

// source is the randomness of one request: from the seed and a hash of
// the request's messages and schema.
func source(seed uint64, req modeltest.Request) *rand.Rand {
	h := fnv.New64a()
	for _, m := range req.Messages {
		fmt.Fprintf(h, "%s\x00%s\x00", m.Role, m.Content)
	}
	h.Write(req.Schema)
	return rand.New(rand.NewPCG(seed, h.Sum64()))
}

// CheckKeywords returns an error naming the first keyword of schema, at
// any depth, that is not one of Keywords.
func CheckKeywords(schema map[string]any) error {
	return checkKeywords(schema, "")
}

func checkKeywords(s map[string]any, at string) error {
	keys := make([]string, 0, len(s))
	for k := range s {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if !slices.Contains(Keywords, k) {
			return fmt.Errorf("%s: keyword %q is not in the portable subset (%s)", where(at), k, strings.Join(Keywords, ", "))
		}
	}
	if props, ok := s["properties"].(map[string]any); ok {
		for k, p := range props {
			sub, ok := p.(map[string]any)
			if !ok {
				return fmt.Errorf("%s: property %q is not a schema", where(at), k)
			}
			if err := checkKeywords(sub, at+"."+k); err != nil {
				return err
			}
		}
	}
	if items, ok := s["items"].(map[string]any); ok {
		return checkKeywords(items, at+"[]")
	}
	return nil
}

func where(at string) string {
	if at == "" {
		return "the schema"
	}
	return strings.TrimPrefix(at, ".")
}

// Instance returns a random value that the JSON schema keeps to: every
// required property, no other when additionalProperties is false, an
// array's length within its bounds, a number within its bounds, a value
// of an enum. Within one array, the values of an enum (the items', or
// those of a property of the items) are drawn without repeating while
// some are left, as a model naming several things names different ones.
// Strings are prose: a few words for a field whose name says it is short
// (a title, a label, a question), a sentence or two otherwise.
func Instance(schema map[string]any, r *rand.Rand) (any, error) {
	if err := CheckKeywords(schema); err != nil {
		return nil, err
	}
	return value(schema, "", r, nil)
}

// taken holds, for one array, the enum values its items have used, by the
// key they were used under ("" for the item itself).
type taken map[string]map[any]bool

func value(s map[string]any, key string, r *rand.Rand, used taken) (any, error) {
	if e, ok := s["enum"].([]any); ok {
		if len(e) == 0 {
			return nil, fmt.Errorf("%s: an enum with no values", where(key))
		}
		return pick(e, key, r, used), nil
	}
	types, err := typesOf(s)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", where(key), err)
	}
	t := types[r.IntN(len(types))]
	if len(types) > 1 && slices.Contains(types, "null") && r.IntN(3) > 0 {
		// A nullable field is given a value more often than not.
		for t == "null" {
			t = types[r.IntN(len(types))]
		}
	}
	switch t {
	case "null":
		return nil, nil
	case "boolean":
		return r.IntN(2) == 1, nil
	case "integer":
		lo, hi := bound(s, "minimum", 0), bound(s, "maximum", 10)
		lo, hi = math.Ceil(lo), math.Floor(hi)
		if hi < lo {
			return nil, fmt.Errorf("%s: no whole number from %g to %g", where(key), lo, hi)
		}
		return int64(lo) + r.Int64N(int64(hi-lo)+1), nil
	case "number":
		lo, hi := bound(s, "minimum", 0), bound(s, "maximum", 10)
		if hi < lo {
			return nil, fmt.Errorf("%s: no number from %g to %g", where(key), lo, hi)
		}
		// Two decimals, as a model writes a score, within the bounds.
		x := math.Round((lo+r.Float64()*(hi-lo))*100) / 100
		return math.Min(hi, math.Max(lo, x)), nil
	case "string":
		return text(key, r), nil
	case "array":
		items, ok := s["items"].(map[string]any)
		if !ok {
			return nil, fmt.Errorf("%s: an array without items", where(key))
		}
		lo := int(bound(s, "minItems", 0))
		hi := int(bound(s, "maxItems", float64(lo+3)))
		if hi < lo {
			return nil, fmt.Errorf("%s: no array of %d to %d items", where(key), lo, hi)
		}
		n := lo + r.IntN(hi-lo+1)
		out := make([]any, 0, n)
		mine := taken{}
		for range n {
			v, err := value(items, key+"[]", r, mine)
			if err != nil {
				return nil, err
			}
			out = append(out, v)
		}
		return out, nil
	case "object":
		props, _ := s["properties"].(map[string]any)
		required := names(s["required"])
		for _, k := range required {
			if _, ok := props[k]; !ok {
				return nil, fmt.Errorf("%s: required %q is no property", where(key), k)
			}
		}
		if ap, ok := s["additionalProperties"].(bool); !ok || ap {
			return nil, fmt.Errorf("%s: an object must say additionalProperties: false", where(key))
		}
		keys := make([]string, 0, len(props))
		for k := range props {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		// The values of an array's items' own properties are kept apart
		// within their array; deeper ones are not.
		if !strings.HasSuffix(key, "[]") {
			used = nil
		}
		out := map[string]any{}
		for _, k := range keys {
			if !slices.Contains(required, k) && r.IntN(2) == 0 {
				continue
			}
			sub, _ := props[k].(map[string]any)
			v, err := value(sub, k, r, used)
			if err != nil {
				return nil, err
			}
			out[k] = v
		}
		return out, nil
	}
	return nil, fmt.Errorf("%s: type %q is not one a grammar knows", where(key), t)
}

// pick draws one of values, one not yet used under key in the array
// when any is left.
func pick(values []any, key string, r *rand.Rand, used taken) any {
	if used == nil {
		return values[r.IntN(len(values))]
	}
	k := strings.TrimSuffix(key, "[]")
	if i := strings.LastIndexAny(k, ".[]"); i >= 0 {
		k = k[i+1:]
	}
	if used[k] == nil {
		used[k] = map[any]bool{}
	}
	var left []any
	for _, v := range values {
		if !used[k][v] {
			left = append(left, v)
		}
	}
	if len(left) == 0 {
		left = values
	}
	v := left[r.IntN(len(left))]
	used[k][v] = true
	return v
}

func typesOf(s map[string]any) ([]string, error) {
	switch t := s["type"].(type) {
	case string:
		return []string{t}, nil
	case []any:
		out := make([]string, 0, len(t))
		for _, x := range t {
			str, ok := x.(string)
			if !ok {
				return nil, fmt.Errorf("type %v is not a list of names", t)
			}
			out = append(out, str)
		}
		if len(out) > 0 {
			return out, nil
		}
	}
	return nil, fmt.Errorf("no type")
}

func bound(s map[string]any, key string, def float64) float64 {
	if f, ok := s[key].(float64); ok {
		return f
	}
	return def
}

func names(v any) []string {
	l, _ := v.([]any)
	out := make([]string, 0, len(l))
	for _, x := range l {
		if s, ok := x.(string); ok {
			out = append(out, s)
		}
	}
	return out
}

// short are the names of fields a model fills with a few words.
var short = []string{"title", "label", "short_label", "question", "topic", "name", "source"}

// text is a string for the field called key.
func text(key string, r *rand.Rand) string {
	k := strings.TrimSuffix(key, "[]")
	if slices.Contains(short, k) {
		return phrase(r, 5+r.IntN(3))
	}
	return Prose(r, 1+r.IntN(2))
}

// words are what the prose is made of: common words of an argument, none
// of them a filler a protocol refuses.
var words = strings.Fields(`evidence policy cost people city health market study
	risk benefit data effect price tax school water energy road town public
	private growth trust time money change plan rule law court vote claim reason
	cause result harm gain loss level rate share group family worker child
	budget service street food land field record report source measure test
	clear strong weak likely small large local national early late direct
	shows suggests reduces raises limits supports weakens explains predicts
	because although therefore however since unless while where when which`)

// phrase is n random words, the first capitalised.
func phrase(r *rand.Rand, n int) string {
	ws := make([]string, n)
	for i := range ws {
		ws[i] = words[r.IntN(len(words))]
	}
	ws[0] = strings.ToUpper(ws[0][:1]) + ws[0][1:]
	return strings.Join(ws, " ")
}

// Prose returns n sentences of eight to sixteen random words.
func Prose(r *rand.Rand, n int) string {
	s := make([]string, n)
	for i := range s {
		s[i] = phrase(r, 8+r.IntN(9)) + "."
	}
	return strings.Join(s, " ")
}
