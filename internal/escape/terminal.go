package escape

import (
	"strings"
	"unicode/utf8"
)

// Terminal makes text from a debate safe to print for a person: control
// characters that a terminal would act on are shown instead. C0 controls
// and DEL become caret notation (ESC is "^[", DEL "^?"); C1 controls,
// bidirectional overrides and isolates, and bytes that are not UTF-8
// become U+FFFD. Newlines are kept when keepNewlines is set, and tabs
// always; JSON output needs none of this, as JSON escapes controls.
func Terminal(s string, keepNewlines bool) string {
	clean := true
	for _, r := range s {
		if r == utf8.RuneError || unsafeRune(r, keepNewlines) {
			clean = false
			break
		}
	}
	if clean {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		i += size
		switch {
		case r == utf8.RuneError && size <= 1:
			b.WriteRune(utf8.RuneError)
		case r < 0x20 && unsafeRune(r, keepNewlines):
			b.WriteByte('^')
			b.WriteByte(byte(r) + 0x40)
		case r == 0x7f:
			b.WriteString("^?")
		case unsafeRune(r, keepNewlines):
			b.WriteRune(utf8.RuneError)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// unsafeRune reports whether r is a control character that printing raw
// could let text steer a terminal or reorder what is shown.
func unsafeRune(r rune, keepNewlines bool) bool {
	switch {
	case r == '\t':
		return false
	case r == '\n':
		return !keepNewlines
	case r < 0x20, r == 0x7f:
		return true
	case r >= 0x80 && r <= 0x9f: // C1 controls, CSI (U+009B) among them
		return true
	case r == 0x061c, r == 0x200e, r == 0x200f: // bidi marks
		return true
	case r >= 0x202a && r <= 0x202e: // bidi embeddings and overrides
		return true
	case r >= 0x2066 && r <= 0x2069: // bidi isolates
		return true
	}
	return false
}
