package frontmatter

import (
	"strings"
	"testing"
)

// argumentFile is shaped like a dialectic argument file: a frontmatter
// of a few keys, one a list of objects, and a body of a few hundred
// words.
var argumentFile = []byte(`{
  "id": "opp_003b",
  "side": "opp",
  "exchange": 3,
  "title": "The costs fall on those who did not choose them",
  "claim": "A policy whose costs land on people outside the decision cannot be justified by the gains of those inside it.",
  "attacks": [
    {
      "target_id": "prop_002a",
      "type": "undermine"
    },
    {
      "target_id": "prop_003a",
      "type": "rebut"
    }
  ]
}

` + strings.Repeat("The argument goes on, with reasons and an example or two. ", 40) + "\n")

// BenchmarkParse reads one argument file.
func BenchmarkParse(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if _, _, err := Parse(argumentFile); err != nil {
			b.Fatal(err)
		}
	}
}
