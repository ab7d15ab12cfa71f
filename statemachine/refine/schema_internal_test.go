package refine

import (
	"encoding/json"
	"fmt"
	"testing"
)

// TestSkepticSchema: the skeptic rates each open point exactly once, by
// one of their ids, and in round 1, with none open, lists none.
func TestSkepticSchema(t *testing.T) {
	for _, tc := range []struct {
		name string
		open []openPoint
		want string
	}{
		{"round 1", nil, `{"items":{"additionalProperties":false,"properties":{"id":{"type":"string"},"note":{"type":"string"},"status":{"enum":["resolved","partly_resolved","unresolved"],"type":"string"}},"required":["id","status","note"],"type":"object"},"maxItems":0,"type":"array"}`},
		{"two open", []openPoint{{Point: Point{ID: "R1.1"}}, {Point: Point{ID: "R1.3"}}},
			`{"items":{"additionalProperties":false,"properties":{"id":{"enum":["R1.1","R1.3"],"type":"string"},"note":{"type":"string"},"status":{"enum":["resolved","partly_resolved","unresolved"],"type":"string"}},"required":["id","status","note"],"type":"object"},"maxItems":2,"minItems":2,"type":"array"}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := skepticSchema(tc.open)
			got, err := json.Marshal(s["properties"].(map[string]any)["previous"])
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tc.want {
				t.Errorf("previous:\n got %s\nwant %s", got, tc.want)
			}
			if score := fmt.Sprint(s["properties"].(map[string]any)["score"]); score != "map[maximum:10 minimum:1 type:integer]" {
				t.Errorf("score: %s", score)
			}
		})
	}
}
