package dialectic

import sm "github.com/moot-dev/moot/statemachine"

// The schemas follow the rules of strict structured output: every property
// is required and no other is allowed, and an optional field is one that
// may be null. Each is built for its call from the debate as it stands, so
// that an answer that keeps to it names only arguments it may name.

func str() map[string]any      { return sm.SchemaString() }
func nullable() map[string]any { return sm.SchemaNullable() }
func enum(values []string) map[string]any {
	return sm.SchemaEnum(values)
}

func object(props map[string]any, order ...string) map[string]any {
	return sm.SchemaObject(props, order...)
}

func array(items map[string]any, min, max int) map[string]any {
	return sm.SchemaArray(items, min, max)
}

// links is the schema of an argument's attacks or defences: at most max
// of them, each naming one of targets, or none when there is no target.
func links(typeKey string, types, targets []string, max int) map[string]any {
	if len(targets) == 0 {
		max = 0
	}
	item := object(map[string]any{"target_id": enum(targets), typeKey: enum(types), "content": str()}, "target_id", typeKey, "content")
	return array(item, 0, max)
}

func argumentSchema(attackable, defensible []string) map[string]any {
	ground := object(map[string]any{"source": str(), "content": str(), "relevance": str()}, "source", "content", "relevance")
	return object(map[string]any{
		"title":     str(),
		"claim":     str(),
		"grounds":   array(ground, 1, MaxGrounds),
		"warrant":   str(),
		"backing":   nullable(),
		"qualifier": nullable(),
		"attacks":   links("attack_type", AttackTypes(), attackable, MaxAttacks),
		"defends":   links("defense_type", DefenceTypes(), defensible, MaxDefends),
	}, "title", "claim", "grounds", "warrant", "backing", "qualifier", "attacks", "defends")
}

// OpeningSchema is the schema of an opening answer: an object whose
// "arguments" holds the three arguments (structured output wants an object
// at the top), which attack and defend nothing.
func OpeningSchema() map[string]any {
	return object(map[string]any{"arguments": array(argumentSchema(nil, nil), 3, 3)}, "arguments")
}

// RebuttalSchema is the schema of a rebuttal: one argument, whose attacks
// name arguments of attackable and whose defences name arguments of
// defensible (the opponent's and the side's own arguments of earlier
// exchanges).
func RebuttalSchema(attackable, defensible []string) map[string]any {
	return argumentSchema(attackable, defensible)
}

// JudgmentSchema is the schema of the judgment of an exchange whose
// arguments are ids: each scored once from -1 to 1, and rescores only of
// rescorable, the earlier arguments that have a score, at most once each.
func JudgmentSchema(ids, rescorable []string) map[string]any {
	score := object(map[string]any{"argument_id": enum(ids), "score": sm.SchemaNumber(MinScore, MaxScore), "reasoning": str()}, "argument_id", "score", "reasoning")
	rescore := object(map[string]any{
		"argument_id": enum(rescorable), "old_score": sm.SchemaNumber(MinScore, MaxScore),
		"new_score": sm.SchemaNumber(MinScore, MaxScore), "reasoning": str(),
	}, "argument_id", "old_score", "new_score", "reasoning")
	return object(map[string]any{
		"scores":   array(score, len(ids), len(ids)),
		"rescores": array(rescore, 0, len(rescorable)),
	}, "scores", "rescores")
}
