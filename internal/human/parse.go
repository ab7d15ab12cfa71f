package human

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync"

	sm "github.com/moot-dev/moot/statemachine"
)

// FormError is a form that cannot be read: its problems, a line each,
// naming the field at fault.
type FormError struct {
	Problems []string
}

func (e *FormError) Error() string {
	if len(e.Problems) == 1 {
		return "the form cannot be read: " + e.Problems[0]
	}
	return fmt.Sprintf("the form cannot be read: %d problems:\n  %s", len(e.Problems), strings.Join(e.Problems, "\n  "))
}

// Kind says what a person handed in.
type Kind string

const (
	KindForm Kind = "form" // an answer form, alone or in its draft
	KindJSON Kind = "json" // the JSON a model would give
)

// Read returns the answer to call c in what a person handed in: the JSON
// a model would give, or a filled form, alone or in the draft it came in
// (what follows the last Marker line). The answer is not validated: that
// is the call's Validate, as for a model's.
func Read(c sm.Call, data []byte) ([]byte, Kind, error) {
	trimmed := bytes.TrimSpace(data)
	if c.Schema != nil && len(trimmed) > 0 && trimmed[0] == '{' && json.Valid(trimmed) {
		return trimmed, KindJSON, nil
	}
	text := string(data)
	if i := lastMarker(text); i >= 0 {
		text = text[i+len(Marker):]
	}
	answer, err := Parse(c, text)
	return answer, KindForm, err
}

// lastMarker returns where the last Marker standing on a line of its own
// begins in text, or -1.
func lastMarker(text string) int {
	for end := len(text); end > 0; {
		i := strings.LastIndex(text[:end], Marker)
		if i < 0 {
			return -1
		}
		after := text[i+len(Marker):]
		if (i == 0 || text[i-1] == '\n') && (after == "" || after[0] == '\n' || strings.HasPrefix(after, "\r\n")) {
			return i
		}
		end = i
	}
	return -1
}

var comment = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?s)<!--.*?-->`) })

// Parse reads the answer form of call c, filled in, into the answer a
// model would give: the JSON of the call's schema, or for a call that
// asks for text, the text.
func Parse(c sm.Call, form string) ([]byte, error) {
	form = strings.ReplaceAll(form, "\r\n", "\n")
	form = comment().ReplaceAllString(form, "")
	lines := strings.Split(form, "\n")
	// The form's own title goes; anything else before the first section
	// is a mistake.
	for i, l := range lines {
		if strings.TrimSpace(l) == "" {
			continue
		}
		if strings.TrimSpace(l) == "# Your answer" {
			lines = lines[i+1:]
		}
		break
	}
	if c.Schema == nil {
		text := strings.TrimSpace(strings.Join(lines, "\n"))
		if text == "" {
			return nil, &FormError{Problems: []string{"the answer is empty: write it below the line \"# Your answer\""}}
		}
		return []byte(text), nil
	}
	root, err := parseSchema(c.Schema, 0)
	if err != nil {
		return nil, err
	}
	if root.kind != "object" {
		return nil, fmt.Errorf("the answer's schema is not an object, which a form cannot hold: hand in the JSON")
	}
	r := &reader{}
	v := r.object(root, lines, 2, "")
	if len(r.problems) > 0 {
		return nil, &FormError{Problems: r.problems}
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSpace(b.Bytes()), nil
}

type reader struct{ problems []string }

func (r *reader) add(where, format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	if where != "" {
		msg = where + ": " + msg
	}
	r.problems = append(r.problems, msg)
}

// section is the lines under one heading.
type section struct {
	name string
	line string // the heading as written
	body []string
}

// sections splits lines at the headings of level; what comes before the
// first is returned apart.
func sections(lines []string, level int) (before []string, out []section) {
	prefix := strings.Repeat("#", level) + " "
	for _, l := range lines {
		t := strings.TrimRight(l, " \t")
		if strings.HasPrefix(t, prefix) || t == strings.TrimSpace(prefix) {
			name := strings.TrimSpace(strings.TrimPrefix(t, strings.TrimSpace(prefix)))
			name = strings.TrimSpace(strings.TrimSuffix(name, "(optional)"))
			out = append(out, section{name: name, line: t})
			continue
		}
		if len(out) == 0 {
			before = append(before, l)
			continue
		}
		out[len(out)-1].body = append(out[len(out)-1].body, l)
	}
	return before, out
}

func blank(lines []string) bool {
	for _, l := range lines {
		if strings.TrimSpace(l) != "" {
			return false
		}
	}
	return true
}

// object reads the fields of n from lines, each under a heading of level.
func (r *reader) object(n *node, lines []string, level int, path string) *ordered {
	out := &ordered{}
	before, secs := sections(lines, level)
	if !blank(before) {
		r.add(path, "text before the first section (%q): put it under a heading %q", firstLine(before), strings.Repeat("#", level)+" "+n.props[0].name)
	}
	seen := map[string]bool{}
	for _, s := range secs {
		p := n.prop(s.name)
		if p == nil {
			r.add(path, "unknown section %q (the sections are %s)", s.line, strings.Join(n.names(), ", "))
			continue
		}
		if seen[s.name] {
			r.add(join(path, s.name), "the section is there twice")
			continue
		}
		seen[s.name] = true
		out.set(s.name, r.value(p, s.name, s.body, level, join(path, s.name)))
	}
	for _, p := range n.props {
		if !seen[p.name] {
			r.add(join(path, p.name), "the section %q is missing", strings.Repeat("#", level)+" "+p.name)
			out.set(p.name, nil)
		}
	}
	return out
}

func firstLine(lines []string) string {
	for _, l := range lines {
		if t := strings.TrimSpace(l); t != "" {
			return t
		}
	}
	return ""
}

// value reads the field name of kind n from the lines of its section.
func (r *reader) value(n *node, name string, lines []string, level int, path string) any {
	switch {
	case n.scalar():
		return r.scalar(n, strings.TrimSpace(strings.Join(lines, "\n")), path)
	case n.flat():
		items := r.items(n, lines, path, false)
		if len(items) == 0 {
			return r.record(n, map[string][]string{}, path)
		}
		return items[0]
	case n.kind == "object":
		return r.object(n, lines, level+1, path)
	case n.items.scalar():
		return r.list(n.items, lines, path)
	case n.items.flat():
		out := []any{}
		for _, it := range r.items(n.items, lines, path, true) {
			out = append(out, it)
		}
		return out
	}
	before, secs := sections(lines, level+1)
	if !blank(before) {
		r.add(path, "text before the first item (%q): put it under a heading %q", firstLine(before), strings.Repeat("#", level+1)+" "+name+" 1")
	}
	out := []any{}
	for i, s := range secs {
		out = append(out, r.object(n.items, s.body, level+2, fmt.Sprintf("%s item %d", path, i+1)))
	}
	return out
}

// list reads a list of scalars, an item per "- " line.
func (r *reader) list(n *node, lines []string, path string) []any {
	var texts [][]string
	for _, l := range lines {
		t := strings.TrimSpace(l)
		switch {
		case t == "-" || strings.HasPrefix(t, "- ") || strings.HasPrefix(t, "* "):
			texts = append(texts, []string{strings.TrimSpace(t[1:])})
		case t == "" && len(texts) == 0:
		case len(texts) == 0:
			r.add(path, "%q is not in a list item: begin each item with \"- \"", t)
		default:
			texts[len(texts)-1] = append(texts[len(texts)-1], t)
		}
	}
	out := []any{}
	for i, t := range texts {
		v := strings.TrimSpace(strings.Join(t, "\n"))
		if v == "" {
			continue
		}
		out = append(out, r.scalar(n, v, fmt.Sprintf("%s item %d", path, i+1)))
	}
	return out
}

// items reads a list of flat objects: each item begins with "- ", each
// field with "FIELD:", and a value goes on over the lines that begin with
// neither. Without list, the lines hold one object, with or without its
// "- ". Items left wholly empty are left out.
func (r *reader) items(n *node, lines []string, path string, list bool) []*ordered {
	var raw []map[string][]string
	var field string
	for _, l := range lines {
		t := strings.TrimSpace(l)
		dash := t == "-" || strings.HasPrefix(t, "- ")
		if dash {
			t = strings.TrimSpace(t[1:])
			if list || len(raw) == 0 {
				raw = append(raw, map[string][]string{})
				field = ""
			}
		}
		if key, rest, ok := fieldLine(n, t); ok {
			if len(raw) == 0 {
				raw = append(raw, map[string][]string{})
			}
			if _, dup := raw[len(raw)-1][key]; dup {
				if list {
					r.add(fmt.Sprintf("%s item %d", path, len(raw)), "%s is given twice: begin the next item with \"- \"", key)
				} else {
					r.add(path, "%s is given twice", key)
				}
			}
			field = key
			raw[len(raw)-1][key] = []string{rest}
			continue
		}
		if field == "" {
			if t != "" {
				r.add(path, "%q belongs to no field: begin a line with one of %s followed by \":\"", t, strings.Join(n.names(), ", "))
			}
			continue
		}
		cur := raw[len(raw)-1]
		cur[field] = append(cur[field], t)
	}
	var out []*ordered
	for i, fields := range raw {
		empty := true
		for _, v := range fields {
			if strings.TrimSpace(strings.Join(v, "\n")) != "" {
				empty = false
			}
		}
		if empty {
			continue
		}
		where := path
		if list {
			where = fmt.Sprintf("%s item %d", path, i+1)
		}
		out = append(out, r.record(n, fields, where))
	}
	return out
}

// fieldLine reports whether t begins with one of n's fields and a colon.
func fieldLine(n *node, t string) (key, rest string, ok bool) {
	for _, p := range n.props {
		if strings.HasPrefix(t, p.name+":") && (len(key) < len(p.name)) {
			key, rest, ok = p.name, strings.TrimSpace(t[len(p.name)+1:]), true
		}
	}
	return key, rest, ok
}

func (r *reader) record(n *node, fields map[string][]string, path string) *ordered {
	out := &ordered{}
	for _, p := range n.props {
		text := strings.TrimSpace(strings.Join(fields[p.name], "\n"))
		out.set(p.name, r.scalar(p.n, text, path+", "+p.name))
	}
	return out
}

// scalar reads one value of kind n from text.
func (r *reader) scalar(n *node, text, path string) any {
	if text == "" && n.nullable {
		return nil
	}
	switch n.kind {
	case "number", "integer":
		if text == "" {
			r.add(path, "a number is needed")
			return nil
		}
		t := strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(strings.TrimSuffix(text, "/10")), "."))
		f, err := strconv.ParseFloat(t, 64)
		if err != nil {
			r.add(path, "%q is not a number", text)
			return nil
		}
		if n.kind == "integer" && f != float64(int64(f)) {
			r.add(path, "%q is not a whole number", text)
			return nil
		}
		return json.Number(num(f))
	case "boolean":
		switch strings.ToLower(text) {
		case "yes", "y", "true":
			return true
		case "no", "n", "false":
			return false
		}
		r.add(path, "%q is not yes or no", text)
		return nil
	}
	if len(n.enum) > 0 && text != "" {
		for _, e := range n.enum {
			if strings.EqualFold(e, text) {
				return e
			}
		}
		r.add(path, "%q is not one of %s", text, strings.Join(n.enum, ", "))
	}
	return text
}

// ordered is a JSON object whose keys keep their order.
type ordered struct {
	keys []string
	vals []any
}

func (o *ordered) set(k string, v any) {
	for i, key := range o.keys {
		if key == k {
			o.vals[i] = v
			return
		}
	}
	o.keys = append(o.keys, k)
	o.vals = append(o.vals, v)
}

func (o *ordered) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, k := range o.keys {
		if i > 0 {
			b.WriteByte(',')
		}
		kj, err := json.Marshal(k)
		if err != nil {
			return nil, err
		}
		var vb bytes.Buffer
		enc := json.NewEncoder(&vb)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(o.vals[i]); err != nil {
			return nil, err
		}
		b.Write(kj)
		b.WriteByte(':')
		b.Write(bytes.TrimSpace(vb.Bytes()))
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}
