package frontmatter

import (
	"strings"
	"testing"
)

// TestParseRefusesInvalidUTF8 checks that a file with bytes that are not
// UTF-8, in its frontmatter or its body, is refused with the offset of the
// first one: decoding would replace them and a rewrite would change the
// file silently.
func TestParseRefusesInvalidUTF8(t *testing.T) {
	for _, tc := range []struct {
		name, in string
		at       string
	}{
		{"frontmatter", "{\n  \"a\": \"\xff\"\n}\n\nbody\n", "at byte 10"},
		{"body", "{\n  \"a\": 1\n}\n\nbo\xc0dy\n", "at byte 16"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := Parse([]byte(tc.in))
			if err == nil || !strings.Contains(err.Error(), "not valid UTF-8 ("+tc.at+")") {
				t.Fatalf("Parse: %v", err)
			}
		})
	}
	if _, _, err := Parse([]byte("{\n  \"a\": \"déjà 🦀\"\n}\n\nnaïve\n")); err != nil {
		t.Fatalf("valid UTF-8 refused: %v", err)
	}
}
