// Package frontmatter holds the document format every moot file shares: a JSON
// object as frontmatter followed by a markdown body, and the JSON encoding
// rules moot writes with (two-space indent, keys in a stable order, UTF-8
// written as UTF-8, no HTML escaping, a trailing newline).
//
// It is pure: bytes in, bytes out, no file access.
package frontmatter

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strings"
	"unicode/utf8"
)

// Field is one key of an Object with its value as raw JSON.
type Field struct {
	Key   string
	Value json.RawMessage
}

// Object is a JSON object that remembers the order of its keys, so that a
// file moot rewrites keeps the keys it does not know, in place.
type Object struct {
	Fields []Field
}

// UnmarshalJSON reads a JSON object, keeping its keys in order. A key that
// appears twice at its top level is refused with a *DuplicateKeyError (the
// values, kept raw, are checked when they are decoded).
//
// Valid JSON, which is all that json.Unmarshal passes on, is split in one
// pass over the bytes; anything else goes through encoding/json's decoder,
// for its error.
func (o *Object) UnmarshalJSON(data []byte) error {
	if json.Valid(data) {
		return o.split(data)
	}
	return o.decode(data)
}

// split reads the valid JSON data into o. Values keep their bytes, in a
// copy of data (which json.Unmarshal's caller may reuse).
func (o *Object) split(data []byte) error {
	return o.splitShared(bytes.Clone(data))
}

// SplitValidObject reads data as json.Unmarshal into an Object reads it,
// errors included, without checking again that data is valid JSON: the
// caller must have done so (a value inside a document that json.Valid
// accepted is valid too), for data that is not valid JSON may panic.
// The values alias data. It spares a document read in layers, an object
// of objects, one validation per layer.
func SplitValidObject(data []byte) (Object, error) {
	var o Object
	err := o.splitShared(data)
	return o, err
}

// SplitValidArray returns the elements of data, a JSON array, and true;
// or false when data is valid JSON but not an array. As for
// SplitValidObject, the caller must know data to be valid JSON, and the
// elements alias it.
func SplitValidArray(data []byte) ([]json.RawMessage, bool) {
	i := skipSpace(data, 0)
	if i == len(data) || data[i] != '[' {
		return nil, false
	}
	var elems []json.RawMessage
	i = skipSpace(data, i+1)
	if data[i] == ']' {
		return elems, true
	}
	for {
		end := endOfValue(data, i)
		elems = append(elems, json.RawMessage(data[i:end:end]))
		i = skipSpace(data, end)
		if data[i] == ']' {
			return elems, true
		}
		i = skipSpace(data, i+1) // past the comma
	}
}

// splitShared is split without the copy: the values alias data.
func (o *Object) splitShared(data []byte) error {
	i := skipSpace(data, 0)
	if data[i] != '{' {
		return errors.New("not a JSON object")
	}
	o.Fields = o.Fields[:0]
	i = skipSpace(data, i+1)
	if data[i] == '}' {
		return nil
	}
	for {
		end := endOfValue(data, i)
		key, err := unquote(data[i:end])
		if err != nil {
			return err
		}
		i = skipSpace(data, skipSpace(data, end)+1) // past the colon
		end = endOfValue(data, i)
		if _, dup := o.Get(key); dup {
			return &DuplicateKeyError{Key: key}
		}
		o.Fields = append(o.Fields, Field{Key: key, Value: json.RawMessage(data[i:end:end])})
		i = skipSpace(data, end)
		if data[i] == '}' {
			return nil
		}
		i = skipSpace(data, i+1) // past the comma
	}
}

// unquote returns the string that the JSON string q holds.
func unquote(q []byte) (string, error) {
	inner := q[1 : len(q)-1]
	if bytes.IndexByte(inner, '\\') < 0 && utf8.Valid(inner) {
		return string(inner), nil
	}
	var s string
	err := json.Unmarshal(q, &s)
	return s, err
}

// skipSpace returns the index of the first byte of data from i on that is
// not JSON white space.
func skipSpace(data []byte, i int) int {
	for i < len(data) && (data[i] == ' ' || data[i] == '\n' || data[i] == '\t' || data[i] == '\r') {
		i++
	}
	return i
}

// endOfValue returns the index just past the valid JSON value that starts
// at data[i].
func endOfValue(data []byte, i int) int {
	switch data[i] {
	case '"':
		for i++; ; i++ {
			switch data[i] {
			case '\\':
				i++
			case '"':
				return i + 1
			}
		}
	case '{', '[':
		depth := 0
		for ; ; i++ {
			switch data[i] {
			case '"':
				i = endOfValue(data, i) - 1
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return i + 1
				}
			}
		}
	}
	for i < len(data) && !strings.ContainsRune(",}] \t\r\n", rune(data[i])) {
		i++
	}
	return i
}

// decode is UnmarshalJSON through encoding/json's decoder.
func (o *Object) decode(data []byte) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	tok, err := dec.Token()
	if err != nil {
		return err
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return errors.New("not a JSON object")
	}
	o.Fields = o.Fields[:0]
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return err
		}
		key, ok := tok.(string)
		if !ok {
			return errors.New("object key is not a string")
		}
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return err
		}
		if _, dup := o.Get(key); dup {
			return &DuplicateKeyError{Key: key}
		}
		o.Fields = append(o.Fields, Field{Key: key, Value: raw})
	}
	if _, err := dec.Token(); err != nil {
		return err
	}
	return nil
}

// MarshalJSON writes the object compactly with its keys in order.
func (o Object) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, f := range o.Fields {
		if i > 0 {
			b.WriteByte(',')
		}
		if err := writeKey(&b, f.Key); err != nil {
			return nil, err
		}
		b.WriteByte(':')
		v := f.Value
		if len(v) == 0 {
			v = json.RawMessage("null")
		}
		if err := json.Compact(&b, v); err != nil {
			return nil, fmt.Errorf("key %q: %w", f.Key, err)
		}
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// writeKey writes key as a JSON string, as Marshal encodes it. A key of
// printable ASCII with no quote or backslash, which is every key moot
// writes, is its own encoding between quotes; any other goes through
// Marshal.
func writeKey(b *bytes.Buffer, key string) error {
	plain := true
	for i := 0; i < len(key); i++ {
		if c := key[i]; c < 0x20 || c > 0x7e || c == '"' || c == '\\' {
			plain = false
			break
		}
	}
	if plain {
		b.WriteByte('"')
		b.WriteString(key)
		b.WriteByte('"')
		return nil
	}
	k, err := Marshal(key)
	if err != nil {
		return err
	}
	b.Write(bytes.TrimSuffix(k, []byte("\n")))
	return nil
}

// Get returns the raw value of key and whether it is present.
func (o *Object) Get(key string) (json.RawMessage, bool) {
	for _, f := range o.Fields {
		if f.Key == key {
			return f.Value, true
		}
	}
	return nil, false
}

// Set replaces the value of key in place, or appends the key at the end.
func (o *Object) Set(key string, value json.RawMessage) {
	for i := range o.Fields {
		if o.Fields[i].Key == key {
			o.Fields[i].Value = value
			return
		}
	}
	o.Fields = append(o.Fields, Field{Key: key, Value: value})
}

// SetValue encodes v and sets it as the value of key.
func (o *Object) SetValue(key string, v any) error {
	raw, err := Marshal(v)
	if err != nil {
		return fmt.Errorf("encode %s: %w", key, err)
	}
	o.Set(key, bytes.TrimSuffix(raw, []byte("\n")))
	return nil
}

// Decode decodes the value of key into v. A missing key is an error that
// names it.
func (o *Object) Decode(key string, v any) error {
	raw, ok := o.Get(key)
	if !ok {
		return fmt.Errorf("field %q is missing", key)
	}
	if err := json.Unmarshal(raw, v); err != nil {
		return fmt.Errorf("field %q: %w", key, jsonMessage(err))
	}
	return nil
}

// Merge returns a copy of front in which each of keys has the value it has
// in v encoded as a JSON object: a key front has keeps its place, a new one
// is added at the end, and the keys front has besides them stay as they
// are, in place. A key v does not encode is set to null. front itself is
// not changed.
func Merge(front Object, v any, keys []string) (Object, error) {
	raw, err := json.Marshal(v)
	if err != nil {
		return Object{}, err
	}
	var fresh Object
	if err := json.Unmarshal(raw, &fresh); err != nil {
		return Object{}, err
	}
	out := Object{Fields: append([]Field(nil), front.Fields...)}
	for _, k := range keys {
		val, _ := fresh.Get(k)
		out.Set(k, val)
	}
	return out, nil
}

// Marshal encodes v as moot writes JSON: two-space indent, no HTML
// escaping, UTF-8 as UTF-8, and a trailing newline.
func Marshal(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// Parse splits a file into its JSON frontmatter and its markdown body.
//
// The frontmatter is the JSON object the file starts with, read by a JSON
// decoder: where it ends is decided by JSON, so any valid object is read,
// whatever its layout (a nested "}" alone on a line included). The closing
// "}" must end its line. The body is what follows that line, without the
// one blank line that separates it from the frontmatter and without any
// further leading line breaks.
//
// A file that is not valid UTF-8 is refused: decoding would replace the
// bad bytes, and rewriting the file would then change it silently.
func Parse(data []byte) (Object, string, error) {
	obj, _, body, err := ParseRaw(data)
	return obj, body, err
}

// ParseRaw is Parse, returning also the frontmatter's JSON as the file
// holds it (valid, with no key twice): the object the Object's fields make,
// to decode into a Go value without encoding the Object again.
func ParseRaw(data []byte) (Object, json.RawMessage, string, error) {
	var obj Object
	if err := CheckUTF8(data); err != nil {
		return obj, nil, "", err
	}
	if !bytes.HasPrefix(bytes.TrimLeft(data, " \t\r\n"), []byte("{")) {
		return obj, nil, "", errors.New("no JSON frontmatter: the file must start with a line holding only \"{\"")
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	var raw json.RawMessage
	if err := dec.Decode(&raw); err != nil {
		if errors.Is(err, io.ErrUnexpectedEOF) {
			return obj, nil, "", errors.New("frontmatter: the JSON object is never closed")
		}
		return obj, nil, "", fmt.Errorf("frontmatter: %w", positioned(data, err))
	}
	// The decoder has checked raw, a copy of an object (data starts with
	// "{"): it is split as json.Unmarshal would, without checking it twice
	// again (json.Unmarshal's scan, then UnmarshalJSON's).
	obj, err := SplitValidObject(raw)
	if err == nil {
		// A key twice, at any depth, would let a hand edit change what
		// the file says unseen.
		err = CheckDuplicates(raw)
	}
	if err != nil {
		return obj, nil, "", fmt.Errorf("frontmatter: %w", jsonMessage(err))
	}
	rest := data[dec.InputOffset():]
	// The rest of the closing line must be blank.
	line, after, found := bytes.Cut(rest, []byte("\n"))
	if len(bytes.TrimSpace(line)) != 0 {
		return obj, nil, "", errors.New("frontmatter: the closing \"}\" must be alone on its line, with the markdown body below it")
	}
	if !found {
		return obj, raw, "", nil
	}
	// Skip the blank line that separates frontmatter and body.
	if line, next, found := bytes.Cut(after, []byte("\n")); found && len(bytes.TrimSpace(line)) == 0 {
		after = next
	} else if !found && len(bytes.TrimSpace(line)) == 0 {
		after = nil
	}
	return obj, raw, strings.TrimLeft(string(after), "\r\n"), nil
}

// ParseInto parses data as Parse does and decodes its whole frontmatter
// into v, as encoding/json would. It returns the frontmatter too, so that
// a rewrite keeps the keys v does not know. A decoding error says what is
// wrong as JSONError does.
//
// The frontmatter is decoded as the file holds it: the object its fields
// make, with no key twice, is the same JSON.
func ParseInto(data []byte, v any) (Object, string, error) {
	front, raw, body, err := ParseRaw(data)
	if err != nil {
		return front, "", err
	}
	if err := json.Unmarshal(raw, v); err != nil {
		return front, "", JSONError(err)
	}
	return front, body, nil
}

// Render writes obj as two-space indented frontmatter, a blank line and the
// body, ending with exactly one newline.
func Render(obj Object, body string) ([]byte, error) {
	compact, err := obj.MarshalJSON()
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	if len(obj.Fields) == 0 {
		// json.Indent writes "{}", which is no frontmatter.
		b.WriteString("{\n}")
	} else if err := json.Indent(&b, compact, "", "  "); err != nil {
		return nil, err
	}
	b.WriteString("\n")
	if body = strings.TrimRight(body, "\n"); body != "" {
		b.WriteString("\n")
		b.WriteString(body)
		b.WriteString("\n")
	}
	return b.Bytes(), nil
}

// InvalidUTF8 returns the offset of the first byte of b that is not part
// of valid UTF-8, or -1.
func InvalidUTF8(b []byte) int {
	if utf8.Valid(b) {
		return -1
	}
	for i := 0; i < len(b); {
		r, size := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && size == 1 {
			return i
		}
		i += size
	}
	return -1
}

// CheckUTF8 returns an error naming the first byte of b that is not part
// of valid UTF-8, or nil.
func CheckUTF8(b []byte) error {
	if n := InvalidUTF8(b); n >= 0 {
		return fmt.Errorf("not valid UTF-8 (at byte %d)", n)
	}
	return nil
}

// jsonMessage turns encoding/json's errors into short messages that say
// where the problem is.
func jsonMessage(err error) error {
	var syn *json.SyntaxError
	if errors.As(err, &syn) {
		return fmt.Errorf("invalid JSON at byte %d: %s", syn.Offset, syn.Error())
	}
	var typ *json.UnmarshalTypeError
	if errors.As(err, &typ) {
		where := typ.Field
		if where == "" {
			where = "value"
		}
		return fmt.Errorf("%s: expected %s, found JSON %s", where, jsonKind(typ.Type), typ.Value)
	}
	return err
}

// jsonKind names, in JSON's terms rather than Go's, the kind of value t
// is decoded from.
func jsonKind(t reflect.Type) string {
	if t == nil {
		return "another value"
	}
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.Slice, reflect.Array:
		return "a list"
	case reflect.Struct, reflect.Map:
		return "an object"
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "true or false"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "a whole number"
	case reflect.Float32, reflect.Float64:
		return "a number"
	}
	return "another value"
}

// positioned is jsonMessage for an error of decoding data itself: a syntax
// error is given by line and column.
func positioned(data []byte, err error) error {
	var syn *json.SyntaxError
	if errors.As(err, &syn) {
		// Offset counts the bytes read, the offending one included.
		line, col := Position(data, syn.Offset-1)
		return fmt.Errorf("invalid JSON at line %d, column %d: %s", line, col, syn.Error())
	}
	return jsonMessage(err)
}

// Position turns a byte offset into data, as encoding/json reports them,
// into a line and a column, both counted from 1. The column counts
// characters, not bytes. An offset past the end gives the end.
func Position(data []byte, offset int64) (line, col int) {
	if offset > int64(len(data)) {
		offset = int64(len(data))
	}
	if offset < 0 {
		offset = 0
	}
	before := data[:offset]
	line = bytes.Count(before, []byte("\n")) + 1
	start := bytes.LastIndexByte(before, '\n') + 1
	return line, utf8.RuneCount(before[start:]) + 1
}

// JSONError is jsonMessage for other packages: it makes a JSON decoding
// error short and precise.
func JSONError(err error) error { return jsonMessage(err) }
