package schemafake_test

import (
	"context"
	"encoding/json"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/moot-dev/moot/internal/model"
	"github.com/moot-dev/moot/internal/testkit/modeltest"
	"github.com/moot-dev/moot/internal/testkit/schemafake"
)

func parse(t *testing.T, s string) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(s), &m); err != nil {
		t.Fatal(err)
	}
	return m
}

const sample = `{"type": "object", "additionalProperties": false, "required": ["ids", "score", "whole", "note", "flag", "pair"],
 "properties": {
  "ids": {"type": "array", "minItems": 3, "maxItems": 3, "items": {"type": "object", "additionalProperties": false,
    "required": ["id", "status"], "properties": {"id": {"type": "string", "enum": ["a", "b", "c"]}, "status": {"type": "string", "enum": ["x", "y"]}}}},
  "score": {"type": "number", "minimum": -1, "maximum": 1},
  "whole": {"type": "integer", "minimum": 1, "maximum": 3},
  "note": {"type": ["string", "null"]},
  "flag": {"type": "boolean"},
  "pair": {"type": "array", "minItems": 2, "maxItems": 2, "items": {"type": "string", "enum": ["p", "q", "r"]}},
  "extra": {"type": "string"}
 }}`

// TestInstance: every instance keeps to the schema, over many seeds: the
// required keys and no others, the enums, the bounds, the lengths, and
// within one array no enum value twice while others are left.
func TestInstance(t *testing.T) {
	schema := parse(t, sample)
	sawExtra, sawNull := false, false
	for seed := range uint64(300) {
		v, err := schemafake.Instance(schema, rand.New(rand.NewPCG(seed, 0)))
		if err != nil {
			t.Fatal(err)
		}
		raw, _ := json.Marshal(v)
		var got struct {
			IDs []struct {
				ID, Status string
			}
			Score float64
			Whole float64
			Note  *string
			Flag  *bool
			Pair  []string
			Extra *string
		}
		if err := json.Unmarshal(raw, &got); err != nil {
			t.Fatal(err)
		}
		obj := v.(map[string]any)
		for k := range obj {
			if !strings.Contains(sample, `"`+k+`"`) {
				t.Fatalf("seed %d: key %q is no property: %s", seed, k, raw)
			}
		}
		for _, k := range []string{"ids", "score", "whole", "note", "flag", "pair"} {
			if _, ok := obj[k]; !ok {
				t.Fatalf("seed %d: required %q is missing: %s", seed, k, raw)
			}
		}
		sawExtra = sawExtra || got.Extra != nil
		sawNull = sawNull || got.Note == nil
		if len(got.IDs) != 3 || len(got.Pair) != 2 {
			t.Fatalf("seed %d: lengths: %s", seed, raw)
		}
		ids := map[string]bool{}
		for _, x := range got.IDs {
			if !strings.Contains("abc", x.ID) || len(x.ID) != 1 || (x.Status != "x" && x.Status != "y") {
				t.Fatalf("seed %d: enum broken: %s", seed, raw)
			}
			ids[x.ID] = true
		}
		if len(ids) != 3 || got.Pair[0] == got.Pair[1] {
			t.Fatalf("seed %d: an enum value given twice while others were left: %s", seed, raw)
		}
		if got.Score < -1 || got.Score > 1 || got.Whole < 1 || got.Whole > 3 || got.Whole != float64(int(got.Whole)) {
			t.Fatalf("seed %d: bounds broken: %s", seed, raw)
		}
	}
	if !sawExtra || !sawNull {
		t.Errorf("in 300 seeds an optional key was never given (%t) or a nullable one never null (%t)", sawExtra, sawNull)
	}
}

// TestKeywords: a schema that uses a keyword outside the portable subset,
// or an object that allows other keys, is refused with the keyword named.
func TestKeywords(t *testing.T) {
	for _, tc := range []struct{ schema, want string }{
		{`{"type": "string", "minLength": 1}`, `"minLength"`},
		{`{"type": "object", "additionalProperties": false, "required": ["a"], "properties": {"a": {"type": "string", "pattern": "^x$"}}}`, `a: keyword "pattern"`},
		{`{"type": "object", "additionalProperties": false, "required": ["a"], "properties": {"a": {"type": "array", "uniqueItems": true, "items": {"type": "string"}}}}`, `"uniqueItems"`},
		{`{"type": "object", "additionalProperties": false, "required": [], "properties": {"a": {"anyOf": [{"type": "string"}]}}}`, `"anyOf"`},
		{`{"type": "object", "required": [], "properties": {}}`, `additionalProperties: false`},
		{`{"type": "object", "additionalProperties": false, "required": ["b"], "properties": {}}`, `required "b" is no property`},
	} {
		_, err := schemafake.Instance(parse(t, tc.schema), rand.New(rand.NewPCG(1, 2)))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: got %v, want an error naming %s", tc.schema, err, tc.want)
		}
	}
}

// TestHandler: through the server and moot's client, a request with a
// schema gets an instance of it, the same request the same answer, a
// different one (a repair) another, and a request without a schema prose.
func TestHandler(t *testing.T) {
	srv := modeltest.NewServer(t, schemafake.Handler(schemafake.Options{Seed: 7}))
	client, err := model.New(model.Config{BaseURL: srv.URL, APIKey: "k"})
	if err != nil {
		t.Fatal(err)
	}
	ask := func(schema map[string]any, msgs ...string) string {
		t.Helper()
		req := model.Request{Model: "m", Schema: schema, SchemaName: "sample"}
		for _, m := range msgs {
			req.Messages = append(req.Messages, model.Message{Role: "user", Content: m})
		}
		resp, err := client.Complete(context.Background(), req)
		if err != nil {
			t.Fatal(err)
		}
		return resp.Text
	}
	schema := parse(t, sample)
	a, b, c := ask(schema, "Score it."), ask(schema, "Score it."), ask(schema, "Score it.", "Your answer broke a rule.")
	if a != b {
		t.Errorf("the same request got two answers:\n%s\n%s", a, b)
	}
	if a == c {
		t.Errorf("a different request got the same answer: %s", a)
	}
	var v map[string]any
	if err := json.Unmarshal([]byte(a), &v); err != nil || len(v["ids"].([]any)) != 3 {
		t.Errorf("answer %s (%v) is no instance", a, err)
	}
	if reqs := srv.Requests(); reqs[0].ResponseFormat != "json_schema" {
		t.Errorf("the schema was sent as %q", reqs[0].ResponseFormat)
	}
	text := ask(nil, "Speak.")
	if n := len(strings.Fields(text)); n < 16 || json.Valid([]byte(text)) || !strings.HasSuffix(text, ".") {
		t.Errorf("prose of %d words: %q", n, text)
	}
}
