package panel

import sm "github.com/moot-dev/moot/statemachine"

// The schemas of the analysis calls and of a reaction, each built for its
// call from the debate as it stands: personas as the names or ids the
// prompt gives them, kinds and positions from their sets, and every list
// as long as the rules allow. The rules a schema cannot say (a label's
// words, a resolution when resolved is true) stay in the parsers.

var str = sm.SchemaString

// aspectsSchema is the schema of a decomposition into n aspects.
func aspectsSchema(n int) map[string]any {
	aspect := sm.SchemaObject(map[string]any{"label": str(), "description": str()}, "label", "description")
	return sm.SchemaObject(map[string]any{"aspects": sm.SchemaArray(aspect, n, n)}, "aspects")
}

// reactSchema is the schema of a reaction that replies to one of names.
func reactSchema(names []string) map[string]any {
	return sm.SchemaObject(map[string]any{"reply_to": sm.SchemaEnum(names), "text": str()}, "reply_to", "text")
}

// detectionSchema is the schema of a disagreement check among the
// personas called names: three gates, the two who disagree, the question
// and its label.
func detectionSchema(names []string) map[string]any {
	b := sm.SchemaBool()
	return sm.SchemaObject(map[string]any{
		"has_direct_opposition": b, "has_specific_claim": b, "topic_relevant": b,
		"personas": sm.SchemaArray(sm.SchemaEnum(names), 2, 2),
		"topic":    str(), "short_label": str(),
	}, "has_direct_opposition", "has_specific_claim", "topic_relevant", "personas", "topic", "short_label")
}

// exitSchema is the schema of a room's exit check.
func exitSchema() map[string]any {
	return sm.SchemaObject(map[string]any{"crux_surfaced": sm.SchemaBool(), "reason": str()}, "crux_surfaced", "reason")
}

// convergenceSchema is the schema of what a room converged on.
func convergenceSchema() map[string]any {
	return sm.SchemaObject(map[string]any{
		"core_disagreement": str(), "type": sm.SchemaEnum(convergenceKinds), "converged": sm.SchemaBool(),
	}, "core_disagreement", "type", "converged")
}

// cardSchema is the schema of the crux card of the room of the personas
// whose ids are pair: a stance of each, keyed by id.
func cardSchema(pair []string) map[string]any {
	stance := sm.SchemaObject(map[string]any{
		"position": sm.SchemaEnum(cardPositions), "reasoning": str(), "falsifier": str(),
	}, "position", "reasoning", "falsifier")
	stances := map[string]any{}
	for _, id := range pair {
		stances[id] = stance
	}
	return sm.SchemaObject(map[string]any{
		"question": str(), "kind": sm.SchemaEnum(cardKinds), "diagnosis": str(),
		"resolved": sm.SchemaBool(), "resolution": sm.SchemaNullable(),
		"personas": sm.SchemaObject(stances, pair...),
	}, "question", "kind", "diagnosis", "resolved", "resolution", "personas")
}

// shiftsSchema is the schema of the shifts of the personas whose ids are
// ids: one for each.
func shiftsSchema(ids []string) map[string]any {
	shift := sm.SchemaObject(map[string]any{"persona": sm.SchemaEnum(ids), "shifted": sm.SchemaBool(), "summary": str()}, "persona", "shifted", "summary")
	return sm.SchemaObject(map[string]any{"shifts": sm.SchemaArray(shift, len(ids), len(ids))}, "shifts")
}

// summarySchema is the schema of the debate's summary among the personas
// whose ids are ids.
func summarySchema(ids []string) map[string]any {
	persona := sm.SchemaEnum(ids)
	stance := sm.SchemaObject(map[string]any{"persona": persona, "position": sm.SchemaEnum(stancePositions), "reasoning": str()}, "persona", "position", "reasoning")
	claim := sm.SchemaObject(map[string]any{"claim": str(), "stances": sm.SchemaArray(stance, 0, -1)}, "claim", "stances")
	item := sm.SchemaObject(map[string]any{"claim": str(), "reason": str()}, "claim", "reason")
	ledger := sm.SchemaObject(map[string]any{
		"persona": persona, "accepted": sm.SchemaArray(item, 0, -1), "challenged": sm.SchemaArray(item, 0, -1),
	}, "persona", "accepted", "challenged")
	flip := sm.SchemaObject(map[string]any{"persona": persona, "conditions": sm.SchemaArray(str(), 0, -1)}, "persona", "conditions")
	return sm.SchemaObject(map[string]any{
		"claims":           sm.SchemaArray(claim, 1, -1),
		"agreements":       sm.SchemaArray(str(), 0, -1),
		"evidence_ledger":  sm.SchemaArray(ledger, 0, -1),
		"flip_conditions":  sm.SchemaArray(flip, 0, -1),
		"resolution_paths": sm.SchemaArray(str(), 1, -1),
	}, "claims", "agreements", "evidence_ledger", "flip_conditions", "resolution_paths")
}
