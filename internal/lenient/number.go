package lenient

import (
	"bytes"
	"encoding/json"
	"math"
	"strconv"
	"strings"
)

// Number reads a number as a model may write it where a number on a scale
// from 0 (or below) to max is asked: "7", "7.0", " 7 ", "7/10", "7 / 10",
// "7 out of 10", "**7**". A fraction n/d with 0 <= n <= d is read on the
// asked scale, as n×max/d: "8/10" is 8 on a scale to 10 and 0.8 on a scale
// to 1, "4/5" is 8 on a scale to 10. ok is false for anything else, a
// fraction above one or a denominator of zero among them.
func Number(s string, max float64) (float64, bool) {
	s = strings.TrimSpace(strings.Trim(strings.TrimSpace(s), "*_`'\"“”‘’"))
	if x, ok := plain(s); ok {
		return x, true
	}
	n, d, ok := strings.Cut(s, "/")
	if !ok {
		n, d, ok = cutFold(s, " out of ")
	}
	if !ok {
		return 0, false
	}
	num, ok1 := plain(strings.TrimSpace(n))
	den, ok2 := plain(strings.TrimSpace(d))
	if !ok1 || !ok2 || den <= 0 || num < 0 || num > den {
		return 0, false
	}
	if den == max {
		return num, true
	}
	return num * max / den, true
}

// plain reads a decimal number, finite, with an optional sign.
func plain(s string) (float64, bool) {
	if s == "" || strings.ContainsAny(s, "xXpP_") || strings.EqualFold(s, "inf") {
		return 0, false
	}
	x, err := strconv.ParseFloat(strings.TrimPrefix(s, "+"), 64)
	if err != nil || math.IsNaN(x) || math.IsInf(x, 0) {
		return 0, false
	}
	return x, true
}

// cutFold is strings.Cut with sep matched in any case.
func cutFold(s, sep string) (before, after string, found bool) {
	if i := strings.Index(strings.ToLower(s), sep); i >= 0 {
		return s[:i], s[i+len(sep):], true
	}
	return s, "", false
}

// Path is where a value is in a JSON document: the keys of the objects
// around it, outermost first (array indices are left out).
type Path []string

// Last returns the innermost key of p, or "".
func (p Path) Last() string {
	if len(p) == 0 {
		return ""
	}
	return p[len(p)-1]
}

// Numbers returns the JSON document doc with every string value at a path
// where scale gives a positive maximum, and that Number reads on that
// scale, written as the number it is. Everything else is kept byte for
// byte, so that a document with no such string comes back unchanged; doc
// that is not valid JSON comes back as it is.
func Numbers(doc []byte, scale func(p Path) float64) []byte {
	return Strings(doc, func(p Path, s string) (json.RawMessage, bool) {
		max := scale(p)
		if max <= 0 {
			return nil, false
		}
		x, ok := Number(s, max)
		if !ok {
			return nil, false
		}
		return json.RawMessage(strconv.FormatFloat(x, 'f', -1, 64)), true
	})
}

// Strings returns the JSON document doc with the string values that fix
// replaces replaced by its JSON, everything else kept byte for byte. doc
// that is not valid JSON comes back as it is.
func Strings(doc []byte, fix func(p Path, s string) (json.RawMessage, bool)) []byte {
	if !json.Valid(doc) {
		return doc
	}
	type edit struct {
		start, end int
		with       []byte
	}
	var edits []edit
	walk(doc, skipWS(doc, 0), nil, func(p Path, start, end int) {
		var s string
		if json.Unmarshal(doc[start:end], &s) != nil {
			return
		}
		if v, ok := fix(p, s); ok {
			edits = append(edits, edit{start, end, v})
		}
	})
	if len(edits) == 0 {
		return doc
	}
	var b bytes.Buffer
	at := 0
	for _, e := range edits {
		b.Write(doc[at:e.start])
		b.Write(e.with)
		at = e.end
	}
	b.Write(doc[at:])
	return b.Bytes()
}

func skipWS(t []byte, i int) int {
	for i < len(t) && (t[i] == ' ' || t[i] == '\t' || t[i] == '\r' || t[i] == '\n') {
		i++
	}
	return i
}

// stringEnd returns the index after the JSON string starting at t[i].
func stringEnd(t []byte, i int) int {
	for j := i + 1; j < len(t); j++ {
		switch t[j] {
		case '\\':
			j++
		case '"':
			return j + 1
		}
	}
	return len(t)
}

// walk visits the string values of the valid JSON value at t[i], in
// order, and returns the index after it.
func walk(t []byte, i int, p Path, visit func(p Path, start, end int)) int {
	switch t[i] {
	case '"':
		end := stringEnd(t, i)
		visit(p, i, end)
		return end
	case '{':
		i = skipWS(t, i+1)
		for t[i] != '}' {
			kend := stringEnd(t, i)
			var key string
			_ = json.Unmarshal(t[i:kend], &key)
			i = skipWS(t, kend)
			i = skipWS(t, i+1) // the colon
			i = skipWS(t, walk(t, i, append(p[:len(p):len(p)], key), visit))
			if t[i] == ',' {
				i = skipWS(t, i+1)
			}
		}
		return i + 1
	case '[':
		i = skipWS(t, i+1)
		for t[i] != ']' {
			i = skipWS(t, walk(t, i, p, visit))
			if t[i] == ',' {
				i = skipWS(t, i+1)
			}
		}
		return i + 1
	}
	// A number or a literal.
	for i < len(t) && bytes.IndexByte([]byte(",}] \t\r\n"), t[i]) < 0 {
		i++
	}
	return i
}
