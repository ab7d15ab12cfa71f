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

func TestInvalidUTF8(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want int
	}{
		{"", -1}, {"plain", -1}, {"déjà 🦀", -1}, {"\xff", 0}, {"ab\xc0", 2}, {"é\xe2\x82", 2}, {"🦀\xed\xa0\x80", 4},
	} {
		if got := InvalidUTF8([]byte(tc.in)); got != tc.want {
			t.Errorf("InvalidUTF8(%q) = %d, want %d", tc.in, got, tc.want)
		}
	}
}
