package statemachine

// The builders below make the JSON schemas of calls' answers. They keep
// to the keywords that OpenAI's strict structured output accepts and that
// Ollama, llama.cpp and vLLM turn into a grammar: type, properties,
// required, additionalProperties false, items, enum, minItems, maxItems,
// minimum and maximum. An object built here has every property required
// and no other allowed, so that it fits the strict subset; a field that
// may be left out is one that may be null.

// SchemaObject is the schema of an object with props, every one of them
// required, in order (which is also the order a person's form lists
// them), and no other.
func SchemaObject(props map[string]any, order ...string) map[string]any {
	req := make([]any, len(order))
	for i, k := range order {
		req[i] = k
	}
	return map[string]any{"type": "object", "properties": props, "required": req, "additionalProperties": false}
}

// SchemaString is the schema of any text.
func SchemaString() map[string]any { return map[string]any{"type": "string"} }

// SchemaNullable is the schema of a text or null.
func SchemaNullable() map[string]any { return map[string]any{"type": []any{"string", "null"}} }

// SchemaBool is the schema of true or false.
func SchemaBool() map[string]any { return map[string]any{"type": "boolean"} }

// SchemaEnum is the schema of one of values, each listed once. With no
// values it is the schema of any text: a schema may not list no values,
// and a caller that has none to offer bounds the array the field is in to
// no items instead (see SchemaArray).
func SchemaEnum(values []string) map[string]any {
	if len(values) == 0 {
		return SchemaString()
	}
	vs := make([]any, 0, len(values))
	seen := make(map[string]bool, len(values))
	for _, v := range values {
		if !seen[v] {
			seen[v] = true
			vs = append(vs, v)
		}
	}
	return map[string]any{"type": "string", "enum": vs}
}

// SchemaInteger is the schema of a whole number from min to max.
func SchemaInteger(min, max int) map[string]any {
	return map[string]any{"type": "integer", "minimum": min, "maximum": max}
}

// SchemaNumber is the schema of a number from min to max.
func SchemaNumber(min, max float64) map[string]any {
	return map[string]any{"type": "number", "minimum": min, "maximum": max}
}

// SchemaArray is the schema of a list of min to max items; a negative
// max leaves the length open above min.
func SchemaArray(items map[string]any, min, max int) map[string]any {
	s := map[string]any{"type": "array", "items": items}
	if min > 0 {
		s["minItems"] = min
	}
	if max >= 0 {
		s["maxItems"] = max
	}
	return s
}
