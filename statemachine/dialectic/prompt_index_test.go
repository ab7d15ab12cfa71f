package dialectic

import (
	"strings"
	"testing"
)

// TestIndexClaim: an index line quotes a claim on one line, cut at
// maxIndexClaim characters, so that a long or many-line claim keeps the
// focused judge's prompt small and its index one line an argument.
func TestIndexClaim(t *testing.T) {
	long := strings.Repeat("é", maxIndexClaim+10)
	for _, tc := range []struct{ name, in, want string }{
		{"short", "Taxes cut sugar intake.", "Taxes cut sugar intake."},
		{"lines", "Taxes cut\n\nsugar   intake.", "Taxes cut sugar intake."},
		{"long", long, strings.Repeat("é", maxIndexClaim) + "…"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := indexClaim(tc.in); got != tc.want {
				t.Errorf("indexClaim(%.30q) = %.30q (%d runes), want %.30q", tc.in, got, len([]rune(got)), tc.want)
			}
		})
	}
}
