// Package lenient reads model answers as a person would: the JSON a chat
// model wraps in a fence or a sentence, a score written "8/10", a name
// written with a title, smart quotes or spaces around it. Every protocol's
// parsing uses it: JSON is looked for with it only after the protocol's
// strict reading has failed, and its readings of values (Numbers, Bools,
// Enums, Strings) leave a value that was right as it is, so that an
// answer that was right the first time is read exactly as before.
//
// Its functions are pure: they take text and return text or values, and
// never guess where a person would hesitate. What they do not read stays
// an error for the protocol to send back for repair.
package lenient

import (
	"bytes"
	"encoding/json"
	"unicode"
	"unicode/utf8"
)

// maxStarts bounds how many places of an answer JSON is looked for at, so
// that a long answer full of braces costs a bounded number of decodes.
const maxStarts = 64

// JSON returns the JSON value an answer holds, as a person would find
// it: the whole answer when it is JSON (a byte order mark and spaces
// around it aside); else the largest object or array inside a ``` fence
// (whatever its language tag) or among sentences before and after it,
// read as JSON at once or after the repairs Relax makes. ok is false
// when no JSON value is found, when two objects are found side by side
// (which one is meant is then a guess) and when text is not UTF-8.
func JSON(text []byte) (body []byte, ok bool) {
	t := trim(text)
	if len(t) == 0 || !utf8.Valid(t) {
		return nil, false
	}
	if json.Valid(t) {
		return t, true
	}
	for _, c := range append(fences(t), t) {
		v, n := largest(c)
		if n > 1 {
			return nil, false
		}
		if n == 1 {
			return v, true
		}
	}
	return nil, false
}

// trim removes spaces and a byte order mark around text.
func trim(text []byte) []byte {
	t := bytes.TrimSpace(text)
	for bytes.HasPrefix(t, []byte("\ufeff")) {
		t = bytes.TrimSpace(t[3:])
	}
	return t
}

// fences returns the bodies of the ``` fences of t, in order.
func fences(t []byte) [][]byte {
	var out [][]byte
	rest := t
	for len(out) < maxStarts {
		i := bytes.Index(rest, []byte("```"))
		if i < 0 {
			break
		}
		rest = rest[i+3:]
		// The language tag, if any, ends the opening line.
		nl := bytes.IndexByte(rest, '\n')
		if nl < 0 {
			break
		}
		body := rest[nl+1:]
		end := bytes.Index(body, []byte("```"))
		if end < 0 {
			out = append(out, bytes.TrimSpace(body))
			break
		}
		out = append(out, bytes.TrimSpace(body[:end]))
		rest = body[end+3:]
	}
	return out
}

// largest returns the longest JSON object or array that starts at a { or
// [ of t, read as it is or else after Relax's repairs, and how many
// objects (or, when there is no object, arrays) were found one after the
// other. The outermost value that reads is taken, never one inside it.
func largest(t []byte) ([]byte, int) {
	var obj, arr []byte
	objects, arrays := 0, 0
	tries := 0
	for i := 0; i < len(t) && tries < maxStarts; i++ {
		if t[i] != '{' && t[i] != '[' {
			continue
		}
		tries++
		v, n := strict(t[i:])
		if v == nil {
			v, n = relaxed(t[i:])
		}
		if v == nil {
			continue
		}
		if v[0] == '{' {
			objects++
			obj = v
		} else if arrays++; len(v) > len(arr) {
			arr = v
		}
		// A value found is not searched again from inside.
		i += n - 1
	}
	if objects > 0 {
		return obj, objects
	}
	return arr, min(arrays, 1)
}

// strict decodes the one JSON value at the start of t and returns it and
// the bytes it takes.
func strict(t []byte) ([]byte, int) {
	dec := json.NewDecoder(bytes.NewReader(t))
	var raw json.RawMessage
	if err := dec.Decode(&raw); err != nil {
		return nil, 0
	}
	n := int(dec.InputOffset())
	return bytes.TrimSpace(t[:n]), n
}

// relaxed reads the value at the start of t with Relax's repairs and
// returns it, when valid JSON, and the bytes it takes.
func relaxed(t []byte) ([]byte, int) {
	out, n, ok := scan(t)
	if !ok || !json.Valid(out) {
		return nil, 0
	}
	return out, n
}

// Relax returns text, an object or array as models write it when they
// mean JSON, as JSON: it drops a comma before } or ], and // and /* */
// comments; it reads strings in single quotes or in smart quotes (“ ”, ‘ ’)
// as strings, and the raw line ends and tabs inside a string as escapes;
// it quotes a bare key ({score: 7}) and a bare fraction (8/10); and it
// reads Python's True, False and None as true, false and null. ok is
// false when text does not start with { or [ or never closes it.
func Relax(text []byte) (out []byte, ok bool) {
	out, _, ok = scan(text)
	return out, ok
}

// scan is Relax that also returns how many bytes of t the value takes.
func scan(t []byte) ([]byte, int, bool) {
	if len(t) == 0 || (t[0] != '{' && t[0] != '[') {
		return nil, 0, false
	}
	var out bytes.Buffer
	depth := 0
	i := 0
	for i < len(t) {
		c := t[i]
		r, size := utf8.DecodeRune(t[i:])
		switch {
		case c == '"' || c == '\'' || r == '“' || r == '‘' || r == '”' || r == '’':
			n, ok := quoted(&out, t[i:])
			if !ok {
				return nil, 0, false
			}
			i += n
			continue
		case c == '/' && i+1 < len(t) && (t[i+1] == '/' || t[i+1] == '*'):
			i += comment(t[i:])
			continue
		case c == ',':
			j := skipSpace(t, i+1)
			if j < len(t) && (t[j] == '}' || t[j] == ']') {
				i = j
				continue
			}
			out.WriteByte(c)
		case c == '{' || c == '[':
			depth++
			out.WriteByte(c)
		case c == '}' || c == ']':
			depth--
			out.WriteByte(c)
			if depth == 0 {
				return out.Bytes(), i + 1, true
			}
		case c == '-' || c == '+' || (c >= '0' && c <= '9'):
			n := number(&out, t[i:])
			i += n
			continue
		case c == '_' || unicode.IsLetter(r):
			n, ok := word(&out, t[i:])
			if !ok {
				return nil, 0, false
			}
			i += n
			continue
		default:
			out.Write(t[i : i+size])
		}
		i += size
	}
	return nil, 0, false
}

func skipSpace(t []byte, i int) int {
	for i < len(t) {
		switch t[i] {
		case ' ', '\t', '\r', '\n':
			i++
		case '/':
			if i+1 < len(t) && (t[i+1] == '/' || t[i+1] == '*') {
				i += comment(t[i:])
				continue
			}
			return i
		default:
			return i
		}
	}
	return i
}

// comment returns the length of the // or /* */ comment at the start of
// t.
func comment(t []byte) int {
	if t[1] == '/' {
		if j := bytes.IndexByte(t, '\n'); j >= 0 {
			return j
		}
		return len(t)
	}
	if j := bytes.Index(t[2:], []byte("*/")); j >= 0 {
		return j + 4
	}
	return len(t)
}

// closes reports whether a quote at t[i:] ends its string: what follows,
// spaces aside, ends a value (, : } ] or the text).
func closes(t []byte, i int) bool {
	j := skipSpace(t, i)
	return j >= len(t) || bytes.IndexByte([]byte(",:}]"), t[j]) >= 0
}

// quoted writes the string at the start of t as a JSON string and returns
// the bytes it takes. A string in double quotes is kept as written, its
// raw control characters escaped; one in single or smart quotes ends at
// the first matching quote that closes a value.
func quoted(out *bytes.Buffer, t []byte) (int, bool) {
	open, size := utf8.DecodeRune(t)
	var end func(r rune) bool
	switch open {
	case '"':
		end = func(r rune) bool { return r == '"' }
	case '\'':
		end = func(r rune) bool { return r == '\'' }
	case '“', '”':
		end = func(r rune) bool { return r == '”' || r == '“' || r == '"' }
	default: // ‘ ’
		end = func(r rune) bool { return r == '’' || r == '‘' || r == '\'' }
	}
	out.WriteByte('"')
	i := size
	for i < len(t) {
		r, n := utf8.DecodeRune(t[i:])
		switch {
		case r == '\\' && i+1 < len(t):
			if open != '"' && t[i+1] == '\'' {
				out.WriteByte('\'')
			} else {
				out.Write(t[i : i+2])
			}
			i += 2
			continue
		case end(r) && (open == '"' || closes(t, i+n)):
			out.WriteByte('"')
			return i + n, true
		case r == '"':
			out.WriteString(`\"`)
		case r == '\n':
			out.WriteString(`\n`)
		case r == '\r':
			out.WriteString(`\r`)
		case r == '\t':
			out.WriteString(`\t`)
		case r < 0x20:
			out.WriteString(`\u00`)
			out.WriteByte("0123456789abcdef"[r>>4])
			out.WriteByte("0123456789abcdef"[r&15])
		default:
			out.Write(t[i : i+n])
		}
		i += n
	}
	return 0, false
}

// number writes the number at the start of t, or the fraction (8/10) as
// a string, and returns the bytes it takes.
func number(out *bytes.Buffer, t []byte) int {
	i := numberLen(t)
	if i == 0 {
		out.WriteByte(t[0])
		return 1
	}
	j := skipBlank(t, i)
	if j < len(t) && t[j] == '/' {
		k := skipBlank(t, j+1)
		if m := numberLen(t[k:]); m > 0 {
			out.WriteByte('"')
			out.Write(t[:i])
			out.WriteByte('/')
			out.Write(t[k : k+m])
			out.WriteByte('"')
			return k + m
		}
	}
	num := t[:i]
	if num[0] == '+' {
		num = num[1:]
	}
	out.Write(num)
	return i
}

func skipBlank(t []byte, i int) int {
	for i < len(t) && (t[i] == ' ' || t[i] == '\t') {
		i++
	}
	return i
}

// numberLen is the length of the number at the start of t: a sign, digits,
// a point and an exponent.
func numberLen(t []byte) int {
	i := 0
	if i < len(t) && (t[i] == '-' || t[i] == '+') {
		i++
	}
	digits := 0
	for i < len(t) && (t[i] >= '0' && t[i] <= '9' || t[i] == '.') {
		i++
		digits++
	}
	if digits == 0 {
		return 0
	}
	if i < len(t) && (t[i] == 'e' || t[i] == 'E') {
		j := i + 1
		if j < len(t) && (t[j] == '-' || t[j] == '+') {
			j++
		}
		k := j
		for k < len(t) && t[k] >= '0' && t[k] <= '9' {
			k++
		}
		if k > j {
			i = k
		}
	}
	return i
}

// word writes a bare word: Python's True, False and None as JSON's, JSON's
// own literals as they are, and a key (a word before :) quoted.
func word(out *bytes.Buffer, t []byte) (int, bool) {
	i := 0
	for i < len(t) {
		r, n := utf8.DecodeRune(t[i:])
		if r != '_' && r != '-' && !unicode.IsLetter(r) && !unicode.IsDigit(r) {
			break
		}
		i += n
	}
	w := string(t[:i])
	switch w {
	case "true", "false", "null":
		out.WriteString(w)
		return i, true
	case "True":
		out.WriteString("true")
		return i, true
	case "False":
		out.WriteString("false")
		return i, true
	case "None":
		out.WriteString("null")
		return i, true
	}
	if j := skipSpace(t, i); j < len(t) && t[j] == ':' {
		b, _ := json.Marshal(w)
		out.Write(b)
		return i, true
	}
	return 0, false
}
