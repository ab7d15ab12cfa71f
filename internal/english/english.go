// Package english writes the small pieces of English that messages share:
// a count with its noun in the right number, and a noun with "a" or "an".
package english

import (
	"strconv"
	"strings"
)

// Count writes n and noun, the noun in the plural unless n is 1 or -1:
// "1 exchange", "3 exchanges", "0 model calls". A noun of several words
// is made plural on its last word ("argument file" → "argument files").
func Count(n int, noun string) string {
	if n == 1 || n == -1 {
		return strconv.Itoa(n) + " " + noun
	}
	return strconv.Itoa(n) + " " + Plural(noun)
}

// Plural returns the regular English plural of noun: "problem" →
// "problems", "match" → "matches", "reply" → "replies".
func Plural(noun string) string {
	switch {
	case noun == "":
		return noun
	case strings.HasSuffix(noun, "s"), strings.HasSuffix(noun, "x"), strings.HasSuffix(noun, "z"),
		strings.HasSuffix(noun, "ch"), strings.HasSuffix(noun, "sh"):
		return noun + "es"
	case strings.HasSuffix(noun, "y") && len(noun) > 1 && !strings.ContainsRune("aeiou", rune(noun[len(noun)-2])):
		return noun[:len(noun)-1] + "ies"
	}
	return noun + "s"
}

// A returns phrase after the indefinite article its first sound takes:
// "a proposition argument", "an opposition argument". It goes by the
// first letter, which is right for the words moot puts there.
func A(phrase string) string {
	if phrase != "" && strings.ContainsRune("aeiouAEIOU", rune(phrase[0])) {
		return "an " + phrase
	}
	return "a " + phrase
}

// List joins items as a sentence does: "a", "a and b", "a, b and c",
// with conj ("and", "or") before the last.
func List(items []string, conj string) string {
	switch len(items) {
	case 0:
		return ""
	case 1:
		return items[0]
	}
	return strings.Join(items[:len(items)-1], ", ") + " " + conj + " " + items[len(items)-1]
}
