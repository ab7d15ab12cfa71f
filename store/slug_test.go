package store

import (
	"strings"
	"testing"
)

// TestValidSlug checks the names FORMAT.md allows for a debate at their
// edges: FuzzValidSlug checks that nothing else is accepted, this that
// each allowed shape is.
func TestValidSlug(t *testing.T) {
	tests := []struct {
		slug string
		want bool
	}{
		{"climate-policy", true},
		{"a", true},
		{"0", true},
		{"9-lives", true},
		{"trailing-", true},
		{"a--b", true},
		{strings.Repeat("a", 64), true},
		{strings.Repeat("a", 65), false},
		{"", false},
		{"-lead", false},
		{"Upper", false},
		{"under_score", false},
		{"dot.md", false},
		{"space here", false},
		{"new\n", false},
		{"\nnew", false},
		{"café", false},
		{"a/b", false},
		{"..", false},
	}
	for _, tt := range tests {
		t.Run(tt.slug, func(t *testing.T) {
			if got := ValidSlug(tt.slug); got != tt.want {
				t.Errorf("ValidSlug(%q) = %v, want %v", tt.slug, got, tt.want)
			}
		})
	}
}
