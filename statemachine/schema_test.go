package statemachine

import (
	"encoding/json"
	"testing"
)

// TestSchemaBuilders pins the shapes the protocols' schemas are made of:
// an object with every property required and no other, an enum with each
// value once (any text when there is none), bounded numbers and lists.
func TestSchemaBuilders(t *testing.T) {
	for _, tc := range []struct {
		name   string
		schema map[string]any
		want   string
	}{
		{"object", SchemaObject(map[string]any{"a": SchemaString(), "b": SchemaBool()}, "a", "b"),
			`{"additionalProperties":false,"properties":{"a":{"type":"string"},"b":{"type":"boolean"}},"required":["a","b"],"type":"object"}`},
		{"enum", SchemaEnum([]string{"x", "y", "x"}), `{"enum":["x","y"],"type":"string"}`},
		{"empty enum", SchemaEnum(nil), `{"type":"string"}`},
		{"nullable", SchemaNullable(), `{"type":["string","null"]}`},
		{"integer", SchemaInteger(0, 10), `{"maximum":10,"minimum":0,"type":"integer"}`},
		{"number", SchemaNumber(-1, 1), `{"maximum":1,"minimum":-1,"type":"number"}`},
		{"exactly", SchemaArray(SchemaString(), 2, 2), `{"items":{"type":"string"},"maxItems":2,"minItems":2,"type":"array"}`},
		{"none", SchemaArray(SchemaString(), 0, 0), `{"items":{"type":"string"},"maxItems":0,"type":"array"}`},
		{"open", SchemaArray(SchemaString(), 1, -1), `{"items":{"type":"string"},"minItems":1,"type":"array"}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := json.Marshal(tc.schema)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tc.want {
				t.Errorf("got  %s\nwant %s", got, tc.want)
			}
		})
	}
}
