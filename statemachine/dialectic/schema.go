package dialectic

// The schemas follow the rules of strict structured output: every property
// is required and no other is allowed, and an optional field is one that
// may be null.

func str() map[string]any      { return map[string]any{"type": "string"} }
func nullable() map[string]any { return map[string]any{"type": []any{"string", "null"}} }
func enum(values []string) map[string]any {
	vs := make([]any, len(values))
	for i, v := range values {
		vs[i] = v
	}
	return map[string]any{"type": "string", "enum": vs}
}

func object(props map[string]any, order ...string) map[string]any {
	req := make([]any, len(order))
	for i, k := range order {
		req[i] = k
	}
	return map[string]any{"type": "object", "properties": props, "required": req, "additionalProperties": false}
}

func array(items map[string]any, min, max int) map[string]any {
	return map[string]any{"type": "array", "items": items, "minItems": min, "maxItems": max}
}

func argumentSchema() map[string]any {
	ground := object(map[string]any{"source": str(), "content": str(), "relevance": str()}, "source", "content", "relevance")
	attack := object(map[string]any{"target_id": str(), "attack_type": enum(AttackTypes()), "content": str()}, "target_id", "attack_type", "content")
	defend := object(map[string]any{"target_id": str(), "defense_type": enum(DefenceTypes()), "content": str()}, "target_id", "defense_type", "content")
	return object(map[string]any{
		"title":     str(),
		"claim":     str(),
		"grounds":   array(ground, 1, MaxGrounds),
		"warrant":   str(),
		"backing":   nullable(),
		"qualifier": nullable(),
		"attacks":   array(attack, 0, MaxAttacks),
		"defends":   array(defend, 0, MaxDefends),
	}, "title", "claim", "grounds", "warrant", "backing", "qualifier", "attacks", "defends")
}

// OpeningSchema is the schema of an opening answer: an object whose
// "arguments" holds the three arguments (structured output wants an object
// at the top).
func OpeningSchema() map[string]any {
	return object(map[string]any{"arguments": array(argumentSchema(), 3, 3)}, "arguments")
}

// RebuttalSchema is the schema of a rebuttal: one argument.
func RebuttalSchema() map[string]any { return argumentSchema() }

// JudgmentSchema is the schema of a judgment.
func JudgmentSchema() map[string]any {
	score := object(map[string]any{"argument_id": str(), "score": map[string]any{"type": "number"}, "reasoning": str()}, "argument_id", "score", "reasoning")
	rescore := object(map[string]any{
		"argument_id": str(), "old_score": map[string]any{"type": "number"},
		"new_score": map[string]any{"type": "number"}, "reasoning": str(),
	}, "argument_id", "old_score", "new_score", "reasoning")
	return object(map[string]any{
		"scores":   map[string]any{"type": "array", "items": score},
		"rescores": map[string]any{"type": "array", "items": rescore},
	}, "scores", "rescores")
}
