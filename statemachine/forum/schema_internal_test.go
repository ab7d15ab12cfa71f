package forum

import (
	"encoding/json"
	"testing"
)

// TestVerdictSchema: the verdict's winner is one of the two debaters, or
// the one the judge confirmed once it confirmed one; each is scored 0 to
// 10 by name.
func TestVerdictSchema(t *testing.T) {
	scores := `"scores":{"additionalProperties":false,"properties":{"Ada":{"maximum":10,"minimum":0,"type":"integer"},"Brook":{"maximum":10,"minimum":0,"type":"integer"}},"required":["Ada","Brook"],"type":"object"}`
	for _, tc := range []struct{ confirmed, winner string }{
		{"", `"winner":{"enum":["Ada","Brook"],"type":"string"}`},
		{"Brook", `"winner":{"enum":["Brook"],"type":"string"}`},
	} {
		got, err := json.Marshal(verdictSchema("Ada", "Brook", tc.confirmed))
		if err != nil {
			t.Fatal(err)
		}
		want := `{"additionalProperties":false,"properties":{` + scores + `,` + tc.winner + `},"required":["winner","scores"],"type":"object"}`
		if string(got) != want {
			t.Errorf("confirmed %q:\n got %s\nwant %s", tc.confirmed, got, want)
		}
	}
}
