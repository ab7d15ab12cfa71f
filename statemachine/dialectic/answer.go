package dialectic

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/moot-dev/moot/internal/frontmatter"
	"github.com/moot-dev/moot/internal/lenient"
	sm "github.com/moot-dev/moot/statemachine"
)

// Problems collects what is wrong with an answer: errors refuse the whole
// step, warnings are reported and the step goes on.
type Problems struct {
	Errors   []string
	Warnings []string
	// Soft holds the warnings that only say a text is over a soft limit of
	// length; each of them is also in Warnings. dialectic had no such
	// warnings, and moot debate-ops keeps them out of its result object.
	Soft []string
}

// OK reports whether there are no errors.
func (p *Problems) OK() bool { return len(p.Errors) == 0 }

func (p *Problems) errorf(format string, args ...any) {
	p.Errors = append(p.Errors, fmt.Sprintf(format, args...))
}

func (p *Problems) warnf(format string, args ...any) {
	p.Warnings = append(p.Warnings, fmt.Sprintf(format, args...))
}

// Add appends q's problems to p, each prefixed with prefix.
func (p *Problems) Add(prefix string, q Problems) {
	for _, e := range q.Errors {
		p.Errors = append(p.Errors, prefix+e)
	}
	for _, w := range q.Warnings {
		p.Warnings = append(p.Warnings, prefix+w)
	}
	for _, w := range q.Soft {
		p.Soft = append(p.Soft, prefix+w)
	}
}

// Arg is what the rules need to know of an argument already in the debate.
type Arg struct {
	Side     Side
	Exchange int
	// Targets are the ids the argument attacks or defends.
	Targets []string
}

// Known maps the id of every argument already in the debate to what the
// rules need to know of it.
type Known map[string]Arg

// ExtractJSON returns the JSON inside an answer: the whole text when it is
// JSON, or the content of its first ```json (or plain ```) fence.
func ExtractJSON(text []byte) ([]byte, error) {
	body, _, err := extractJSON(text)
	return body, err
}

// extractJSON is ExtractJSON that also returns where the JSON starts in
// text, so that errors can say where they are in the answer as written.
func extractJSON(text []byte) ([]byte, int, error) {
	body, err := extract(text)
	if err != nil {
		return nil, 0, err
	}
	// body is a part of text: its capacity tells where it starts.
	return body, cap(text) - cap(body), nil
}

func extract(text []byte) ([]byte, error) {
	// The rule every answer of every protocol passes (its size is checked
	// before, by CheckSize, with the role named).
	if p := sm.AnswerProblem(text); p != "" {
		return nil, errors.New(p)
	}
	t := bytes.TrimSpace(text)
	t = bytes.TrimPrefix(t, []byte("\ufeff"))
	if len(t) == 0 {
		return nil, errors.New("the answer is empty")
	}
	if t[0] == '{' || t[0] == '[' {
		return t, nil
	}
	start := bytes.Index(t, []byte("```"))
	// A string, a number, true, false or null alone is JSON too: it is
	// returned, so that the caller can say what it expected instead.
	if start < 0 && json.Valid(t) {
		return t, nil
	}
	if start < 0 {
		return nil, errors.New("the answer is not JSON: it must be a JSON value, alone or inside a ```json fence")
	}
	rest := t[start+3:]
	nl := bytes.IndexByte(rest, '\n')
	if nl < 0 {
		return nil, errors.New("the answer's ``` fence is never closed")
	}
	lang := string(bytes.TrimSpace(rest[:nl]))
	if lang != "" && !strings.EqualFold(lang, "json") {
		return nil, fmt.Errorf("the answer's fence is marked %q; want ```json", truncate(lang, 20))
	}
	rest = rest[nl+1:]
	end := bytes.Index(rest, []byte("```"))
	if end < 0 {
		return nil, errors.New("the answer's ``` fence is never closed")
	}
	return bytes.TrimSpace(rest[:end]), nil
}

// fields decodes one JSON object into its raw fields, keeping key order.
type fields struct {
	keys []string
	vals map[string]json.RawMessage
}

func decodeObject(raw json.RawMessage) (*fields, error) {
	t := bytes.TrimSpace(raw)
	if len(t) == 0 || t[0] != '{' {
		return nil, fmt.Errorf("must be a JSON object, found %s", kind(t))
	}
	dec := json.NewDecoder(bytes.NewReader(t))
	if _, err := dec.Token(); err != nil {
		return nil, err
	}
	f := &fields{vals: map[string]json.RawMessage{}}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		k, _ := tok.(string)
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, err
		}
		if _, dup := f.vals[k]; dup {
			return nil, fmt.Errorf("key %q appears twice", truncate(k, 40))
		}
		// A key twice inside a value (an attack's) is refused too.
		if err := frontmatter.CheckDuplicates(v); err != nil {
			return nil, fmt.Errorf("%s: %w", truncate(k, 40), err)
		}
		f.keys = append(f.keys, k)
		f.vals[k] = v
	}
	return f, nil
}

func kind(raw []byte) string {
	t := bytes.TrimSpace(raw)
	if len(t) == 0 {
		return "nothing"
	}
	switch t[0] {
	case '{':
		return "an object"
	case '[':
		return "an array"
	case '"':
		return "a string"
	case 't', 'f':
		return "a boolean"
	case 'n':
		return "null"
	}
	return "a number"
}

// present reports whether key is set to something other than null.
func (f *fields) present(key string) bool {
	v, ok := f.vals[key]
	return ok && !bytes.Equal(bytes.TrimSpace(v), []byte("null"))
}

// str reads a string field. required fields must be non-empty.
func (f *fields) str(p *Problems, path, key string, required bool) string {
	if !f.present(key) {
		if required {
			p.errorf("%s%s: is required", path, key)
		}
		return ""
	}
	var s string
	if err := json.Unmarshal(f.vals[key], &s); err != nil {
		p.errorf("%s%s: must be a string, found %s", path, key, kind(f.vals[key]))
		return ""
	}
	if !utf8.ValidString(s) {
		p.errorf("%s%s: is not valid UTF-8", path, key)
		return ""
	}
	if strings.TrimSpace(s) == "" {
		if required {
			p.errorf("%s%s: must not be empty", path, key)
		}
		return ""
	}
	return s
}

// num reads a finite number field.
func (f *fields) num(p *Problems, path, key string) (float64, bool) {
	if !f.present(key) {
		p.errorf("%s%s: is required", path, key)
		return 0, false
	}
	var n float64
	if err := json.Unmarshal(f.vals[key], &n); err != nil {
		if k := kind(f.vals[key]); k == "a number" {
			// A literal such as 1e999 is JSON but no float64 holds it.
			p.errorf("%s%s: must be a finite number, found %s", path, key, truncate(string(bytes.TrimSpace(f.vals[key])), 20))
		} else {
			p.errorf("%s%s: must be a number, found %s", path, key, k)
		}
		return 0, false
	}
	if math.IsNaN(n) || math.IsInf(n, 0) {
		p.errorf("%s%s: must be a finite number", path, key)
		return 0, false
	}
	return n, true
}

// list reads an array field. ok is false when the field is absent or is
// not an array (which is reported).
func (f *fields) list(p *Problems, path, key string) (items []json.RawMessage, ok bool) {
	if !f.present(key) {
		return nil, false
	}
	if err := json.Unmarshal(f.vals[key], &items); err != nil {
		p.errorf("%s%s: must be an array, found %s", path, key, kind(f.vals[key]))
		return nil, false
	}
	return items, true
}

// unknown warns about keys outside allowed.
func (f *fields) unknown(p *Problems, path string, allowed ...string) {
	var extra []string
	for _, k := range f.keys {
		ok := false
		for _, a := range allowed {
			if k == a {
				ok = true
				break
			}
		}
		if !ok {
			extra = append(extra, fmt.Sprintf("%q", truncate(k, 40)))
		}
	}
	if len(extra) > 0 {
		sort.Strings(extra)
		p.warnf("%signored unknown key %s", path, strings.Join(extra, ", "))
	}
}

// words counts the words of s.
func words(s string) int { return len(strings.Fields(s)) }

func softMax(p *Problems, path, key, s string, max int) {
	if n := words(s); n > max {
		p.warnf("%s%s: %d words, over the soft limit of %d", path, key, n, max)
		p.Soft = append(p.Soft, p.Warnings[len(p.Warnings)-1])
	}
}

// decodeJSON reads the one JSON value of data, the JSON found at offset
// start of answer. A syntax error says where it is in answer, by line and
// column.
func decodeJSON(answer, data []byte, start int) (json.RawMessage, error) {
	var raw json.RawMessage
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&raw); err != nil {
		var syn *json.SyntaxError
		switch {
		case errors.As(err, &syn):
			// Offset counts the bytes read, the offending one included.
			line, col := frontmatter.Position(answer, int64(start)+syn.Offset-1)
			return nil, fmt.Errorf("invalid JSON at line %d, column %d: %s", line, col, syn.Error())
		case errors.Is(err, io.ErrUnexpectedEOF):
			line, col := frontmatter.Position(answer, int64(start+len(data)))
			return nil, fmt.Errorf("invalid JSON at line %d, column %d: the JSON ends before it is complete", line, col)
		}
		return nil, fmt.Errorf("invalid JSON: %w", err)
	}
	if dec.More() {
		return nil, errors.New("invalid JSON: more than one value")
	}
	if _, err := dec.Token(); err == nil {
		return nil, errors.New("invalid JSON: more than one value")
	}
	return raw, nil
}

// answerJSON reads the one JSON value of an answer. The answer is read
// strictly first, as dialectic read it; only when that fails is it read
// as a person would (lenient.JSON: the JSON among sentences, in any
// fence, with a trailing comma or smart quotes), and the strict error is
// kept when that finds nothing either. Then, in both cases, a score
// written as a string ("0.5", "8/10") is read as the number it is on
// the scale from -1 to 1, an attack or defence type in another case or
// with spaces for underscores is that type, and the spaces, quotes and
// emphasis around an id are left out: an answer right the first time is
// read as before.
func answerJSON(data []byte) (json.RawMessage, error) {
	raw, err := strictJSON(data)
	if err != nil {
		body, ok := lenient.JSON(data)
		if !ok {
			return nil, err
		}
		raw = body
	}
	raw = lenient.Numbers(raw, func(p lenient.Path) float64 {
		switch p.Last() {
		case "score", "new_score", "old_score":
			return MaxScore
		}
		return 0
	})
	raw = lenient.Enums(raw, "attack_type", AttackTypes())
	raw = lenient.Enums(raw, "defense_type", DefenceTypes())
	return lenient.Strings(raw, func(p lenient.Path, s string) (json.RawMessage, bool) {
		switch p.Last() {
		case "argument_id", "target_id", "triggered_by":
			if c := lenient.Clean(s); c != s && c != "" {
				b, _ := json.Marshal(c)
				return b, true
			}
		}
		return nil, false
	}), nil
}

// strictJSON is extractJSON then decodeJSON, as dialectic read answers.
func strictJSON(data []byte) (json.RawMessage, error) {
	body, start, err := extractJSON(data)
	if err != nil {
		return nil, err
	}
	return decodeJSON(data, body, start)
}
