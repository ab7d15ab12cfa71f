package lenient

import (
	"encoding/json"
	"strings"
)

// Enum returns the one of values that s is, as a model may write it: in
// another case, with spaces, quotes or emphasis around it, with spaces or
// dashes for underscores ("Partly resolved" for partly_resolved, "Claim
// attack" for claim_attack). ok is false when s is none of them.
func Enum(s string, values []string) (string, bool) {
	k := enumKey(s)
	if k == "" {
		return "", false
	}
	for _, v := range values {
		if enumKey(v) == k {
			return v, true
		}
	}
	return "", false
}

func enumKey(s string) string {
	return strings.NewReplacer(" ", "_", "-", "_").Replace(Fold(Clean(s)))
}

// Bool reads a yes-or-no answer written as a string: "true", "false",
// "yes", "no", in any case, with spaces, quotes or emphasis around it.
func Bool(s string) (bool, bool) {
	switch Fold(Clean(s)) {
	case "true", "yes":
		return true, true
	case "false", "no":
		return false, true
	}
	return false, false
}

// Bools returns the JSON document doc with every string value under a
// key of keys that Bool reads written as the boolean it is; everything
// else is kept byte for byte (see Strings).
func Bools(doc []byte, keys ...string) []byte {
	return Strings(doc, func(p Path, s string) (json.RawMessage, bool) {
		for _, k := range keys {
			if p.Last() == k {
				if b, ok := Bool(s); ok {
					return json.RawMessage(map[bool]string{true: "true", false: "false"}[b]), true
				}
			}
		}
		return nil, false
	})
}

// Enums returns the JSON document doc with every string value under key
// that is not one of values but that Enum reads as one written as that
// one; everything else is kept byte for byte (see Strings).
func Enums(doc []byte, key string, values []string) []byte {
	return Strings(doc, func(p Path, s string) (json.RawMessage, bool) {
		if p.Last() != key {
			return nil, false
		}
		for _, v := range values {
			if s == v {
				return nil, false
			}
		}
		if v, ok := Enum(s, values); ok {
			b, _ := json.Marshal(v)
			return b, true
		}
		return nil, false
	})
}
