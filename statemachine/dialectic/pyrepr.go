package dialectic

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"math/big"
	"slices"
	"strconv"
	"strings"
	"unicode"
)

// pySet writes strings as Python's repr of a set of them: {'a', 'b'}. A
// set's order in Python depends on string hashing, which changes from run
// to run; the strings are written sorted, so that moot's is always the
// same.
func pySet(items []string) string {
	items = slices.Sorted(slices.Values(items))
	var b strings.Builder
	b.WriteString("{")
	for i, s := range items {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(pyStr(s))
	}
	b.WriteString("}")
	return b.String()
}

// pyRepr writes the JSON value raw as Python's repr of what its json
// module reads from it: {'argument_id': 'prop_000', 'new_score': 0.3,
// 'old': None}. Keys keep their order. raw must be valid JSON.
func pyRepr(raw json.RawMessage) string {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var b strings.Builder
	var walk func() error
	walk = func() error {
		tok, err := dec.Token()
		if err != nil {
			return err
		}
		switch v := tok.(type) {
		case json.Delim:
			closing := "]"
			if v == '{' {
				closing = "}"
			}
			b.WriteString(v.String())
			for i := 0; dec.More(); i++ {
				if i > 0 {
					b.WriteString(", ")
				}
				if v == '{' {
					k, err := dec.Token()
					if err != nil {
						return err
					}
					b.WriteString(pyStr(k.(string)) + ": ")
				}
				if err := walk(); err != nil {
					return err
				}
			}
			if _, err := dec.Token(); err != nil {
				return err
			}
			b.WriteString(closing)
		case string:
			b.WriteString(pyStr(v))
		case json.Number:
			b.WriteString(pyNumberRepr(v.String()))
		case bool:
			if v {
				b.WriteString("True")
			} else {
				b.WriteString("False")
			}
		case nil:
			b.WriteString("None")
		}
		return nil
	}
	if err := walk(); err != nil {
		return string(raw)
	}
	return b.String()
}

// pyNumberRepr writes a JSON number as Python's repr of what json reads
// from it: an int as its digits, a float as Python writes floats.
func pyNumberRepr(lit string) string {
	if !strings.ContainsAny(lit, ".eE") {
		if n, ok := new(big.Int).SetString(lit, 10); ok {
			return n.String()
		}
	}
	f, err := strconv.ParseFloat(lit, 64)
	switch {
	case math.IsInf(f, 1):
		return "inf"
	case math.IsInf(f, -1):
		return "-inf"
	case err != nil:
		return lit
	}
	return PythonNumber(f, false)
}

// pyStr writes s as Python's repr of a str: in single quotes, or double
// quotes when s holds a single quote and no double one; backslash, the
// quote, \t, \n and \r escaped, other characters that are not printable
// as \xhh, \uhhhh or \Uhhhhhhhh, printable ones (é, —) as they are.
func pyStr(s string) string {
	quote := '\''
	if strings.ContainsRune(s, '\'') && !strings.ContainsRune(s, '"') {
		quote = '"'
	}
	var b strings.Builder
	b.WriteRune(quote)
	for _, r := range s {
		switch {
		case r == quote || r == '\\':
			b.WriteRune('\\')
			b.WriteRune(r)
		case r == '\t':
			b.WriteString(`\t`)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == ' ' || (r < 0x7f && r > 0x20):
			b.WriteRune(r)
		case r >= 0x7f && unicode.IsPrint(r):
			b.WriteRune(r)
		case r < 0x100:
			fmt.Fprintf(&b, `\x%02x`, r)
		case r < 0x10000:
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			fmt.Fprintf(&b, `\U%08x`, r)
		}
	}
	b.WriteRune(quote)
	return b.String()
}
