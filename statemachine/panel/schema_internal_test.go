package panel

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestSchemas: each analysis schema carries the debate's own names, counts
// and sets.
func TestSchemas(t *testing.T) {
	for _, tc := range []struct {
		name   string
		schema map[string]any
		want   []string
	}{
		{"aspects", aspectsSchema(3), []string{`"maxItems":3,"minItems":3`}},
		{"reaction", reactSchema([]string{"Mara Quinn", "Theo Park"}), []string{`"reply_to":{"enum":["Mara Quinn","Theo Park"]`}},
		{"detection", detectionSchema([]string{"Mara Quinn", "Theo Park", "Ines Ruiz"}),
			[]string{`"personas":{"items":{"enum":["Mara Quinn","Theo Park","Ines Ruiz"],"type":"string"},"maxItems":2,"minItems":2`}},
		{"card", cardSchema([]string{"mara", "theo"}), []string{
			`"required":["mara","theo"]`, `"position":{"enum":["YES","NO","NUANCED"]`,
			`"kind":{"enum":["horizon","evidence","values","definition","claim","premise"]`, `"resolution":{"type":["string","null"]}`}},
		{"convergence", convergenceSchema(), []string{`"type":{"enum":["factual","values","definitional"]`}},
		{"shifts", shiftsSchema([]string{"mara", "ines"}), []string{`"persona":{"enum":["mara","ines"]`, `"maxItems":2,"minItems":2`}},
		{"summary", summarySchema([]string{"mara", "theo", "ines"}), []string{
			`"claims":{"items"`, `"minItems":1`, `"position":{"enum":["for","against","mixed"]`, `"persona":{"enum":["mara","theo","ines"]`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			raw, err := json.Marshal(tc.schema)
			if err != nil {
				t.Fatal(err)
			}
			for _, w := range tc.want {
				if !strings.Contains(string(raw), w) {
					t.Errorf("the schema lacks %s:\n%s", w, raw)
				}
			}
			if strings.Count(string(raw), `"type":"object"`) != strings.Count(string(raw), `"additionalProperties":false`) {
				t.Errorf("an object allows other keys:\n%s", raw)
			}
		})
	}
}
