package dialectic_test

import (
	"regexp"
	"strconv"
	"testing"

	"github.com/moot-dev/moot/statemachine/dialectic"
)

// idShape is the shape ParseID accepts before its canonical check, as a
// regexp, to compare the hand-written reading against.
var idShape = regexp.MustCompile(`^(prop|opp)_([0-9]{3,5})([a-c]?)$`)

// TestParseIDShape checks that ParseID accepts exactly the canonical ids
// of the shape side, underscore, three to five digits, optional letter.
func TestParseIDShape(t *testing.T) {
	for _, s := range []string{
		"prop_000a", "prop_000b", "prop_000c", "opp_000a", "prop_001", "opp_012", "prop_999",
		"opp_1000", "prop_10000", "prop_99999", "opp_100000", "prop_000", "prop_000d", "prop_001a",
		"prop_01", "prop_0001", "prop_00012", "Prop_001", "prop-001", "prop001", "props_001",
		"op_001", "opp_001 ", " opp_001", "opp_001\n", "opp_", "prop_", "", "prop_001aa",
		"prop_00a", "prop_0٣1", "prop_+01", "prop_-01", "opp_1234a", "opp_12345c", "prop_000a/",
	} {
		t.Run(s, func(t *testing.T) {
			id, err := dialectic.ParseID(s)
			if want := idShape.MatchString(s); err == nil && !want {
				t.Fatalf("ParseID(%q) = %+v, want an error", s, id)
			}
			if err == nil && id.String() != s {
				t.Fatalf("ParseID(%q) = %+v, which is written %q", s, id, id.String())
			}
			if m := idShape.FindStringSubmatch(s); m != nil && err != nil {
				// Of the right shape, it is refused only as not canonical.
				for _, e := range dialectic.ExchangeIDs(atoi(m[2])) {
					if e == s {
						t.Fatalf("ParseID(%q): %v", s, err)
					}
				}
			}
		})
	}
}

func atoi(s string) int {
	n, _ := strconv.Atoi(s)
	return n
}
