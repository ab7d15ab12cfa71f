package refine

import (
	"strings"
	"testing"
)

// TestParseTemplateByteOrderMark: a template saved by a Windows editor
// starts with a byte-order mark; it reads as the same template without
// one, frontmatter included, and its kept copy carries no mark.
func TestParseTemplateByteOrderMark(t *testing.T) {
	front := "---\nname: Pros and cons\ndescription: Weigh both sides.\n---\n\n## Steps\n\n1. List them.\n"
	sections := "# Pros and cons\n\n## When to use\n\nWeigh both sides.\n\n## Steps\n\n1. List them.\n"
	tests := []struct{ name, text, plain string }{
		{"frontmatter", "\ufeff" + front, front},
		{"frontmatter with CRLF", "\ufeff" + strings.ReplaceAll(front, "\n", "\r\n"), front},
		{"sections only", "\ufeff" + sections, sections},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := parseTemplate("pros-cons", []byte(tc.text))
			if err != nil {
				t.Fatalf("refused: %v", err)
			}
			want, err := parseTemplate("pros-cons", []byte(tc.plain))
			if err != nil {
				t.Fatal(err)
			}
			if got != want {
				t.Errorf("got %+v, want %+v as without the mark", got, want)
			}
			if got.Name != "Pros and cons" || got.When != "Weigh both sides." || strings.Contains(got.Body, "\ufeff") {
				t.Errorf("got %+v", got)
			}
		})
	}
}
