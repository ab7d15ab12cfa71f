package tournament

import (
	"strings"
	"testing"
)

// TestParseMotionsRefusesAKeyTwice: a motion object that names its motion
// twice is refused, naming the key, rather than read as the last one.
func TestParseMotionsRefusesAKeyTwice(t *testing.T) {
	_, err := ParseMotions([]byte(`[{"motion": "This house would tax sugar.", "motion": "This house would not."}]`))
	if err == nil || !strings.Contains(err.Error(), `field "motion" appears twice in [0]`) {
		t.Errorf("error %v, want the second motion named", err)
	}
	got, err := ParseMotions([]byte(`[{"motion": "This house would tax sugar."}]`))
	if err != nil || len(got) != 1 || got[0].Text != "This house would tax sugar." {
		t.Errorf("ParseMotions = %v, %v", got, err)
	}
}
