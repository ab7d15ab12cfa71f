package human

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	sm "github.com/moot-dev/moot/statemachine"
)

// Marker is the line that begins the answer form in a draft: what comes
// after its last occurrence is the form, what comes before is what the
// role may see.
const Marker = "<!-- moot:form -->"

// formHead opens every form.
const formHead = Marker + "\n# Your answer\n\n"

// Form returns the answer form of call c, in markdown: for a call that
// asks for JSON, a section per field of the answer's schema, headed
// "## FIELD", with a line saying what it takes; for a call that asks for
// text, a place for the text. The fields c.Rows names start filled in.
func Form(c sm.Call) (string, error) { return fill(c, nil) }

// Fill returns the answer form of call c filled in with answer, the JSON
// (or for a call that asks for text, the text) a model or a person gave:
// Parse reads it back into the same answer.
func Fill(c sm.Call, answer []byte) (string, error) {
	if answer == nil {
		answer = []byte{}
	}
	return fill(c, answer)
}

func fill(c sm.Call, answer []byte) (string, error) {
	var b strings.Builder
	b.WriteString(formHead)
	if c.Schema == nil {
		b.WriteString("<!-- Write your answer below this line, in markdown. Lines between these marks are left out. -->\n\n")
		if len(answer) > 0 {
			b.WriteString(strings.TrimSpace(string(answer)) + "\n")
		}
		return b.String(), nil
	}
	root, err := parseSchema(c.Schema, 0)
	if err != nil {
		return "", err
	}
	if root.kind != "object" {
		return "", fmt.Errorf("the answer's schema is not an object, which a form cannot hold: hand in the JSON")
	}
	var v map[string]any
	if answer != nil {
		dec := json.NewDecoder(bytes.NewReader(answer))
		dec.UseNumber()
		if err := dec.Decode(&v); err != nil {
			return "", fmt.Errorf("the answer is not a JSON object: %w", err)
		}
	}
	b.WriteString("<!-- Fill in each section under its heading and keep the headings as they are. " +
		"Lines between these marks are left out. -->\n\n")
	f := &former{b: &b, choices: c.Choices, rows: c.Rows}
	if answer != nil {
		f.rows = nil
	}
	f.object(root, 2, "", v)
	return strings.TrimRight(b.String(), "\n") + "\n", nil
}

type former struct {
	b       *strings.Builder
	choices map[string][]string
	rows    map[string][]string
}

func join(path, name string) string {
	if path == "" {
		return name
	}
	return path + "." + name
}

// object writes the fields of n, each under a heading of level, filled in
// with v's values when v is not nil.
func (f *former) object(n *node, level int, path string, v map[string]any) {
	for _, p := range n.props {
		f.b.WriteString(strings.Repeat("#", level) + " " + p.name)
		if p.n.nullable {
			f.b.WriteString(" (optional)")
		}
		f.b.WriteString("\n")
		if hint := f.hint(p.n, join(path, p.name)); hint != "" {
			f.b.WriteString("<!-- " + hint + " -->\n")
		}
		f.value(p.n, p.name, level, join(path, p.name), v[p.name])
		f.b.WriteString("\n")
	}
}

// value writes the field called name, at path, under a heading of level:
// blank when v is nil, else filled in with v.
func (f *former) value(n *node, name string, level int, path string, v any) {
	switch {
	case n.scalar():
		if s := text(v); s != "" {
			f.b.WriteString(s + "\n")
		} else {
			f.b.WriteString("\n")
		}
	case n.flat():
		obj, _ := v.(map[string]any)
		f.fields(n, obj, "")
	case n.kind == "object":
		obj, _ := v.(map[string]any)
		f.b.WriteString("\n")
		f.object(n, level+1, path, obj)
	case n.items.scalar():
		list, ok := v.([]any)
		if !ok {
			list = make([]any, blankItems(n))
		}
		for _, it := range list {
			f.b.WriteString(strings.TrimRight("- "+indent(text(it)), " ") + " \n")
		}
	case n.items.flat():
		list, ok := v.([]any)
		if !ok {
			key, rows := f.rowsOf(n, path)
			count := blankItems(n)
			if len(rows) > 0 {
				count = len(rows)
			}
			list = make([]any, count)
			for i := range list {
				if i < len(rows) {
					list[i] = map[string]any{key: rows[i]}
				}
			}
		}
		for _, it := range list {
			obj, _ := it.(map[string]any)
			f.fields(n.items, obj, "- ")
		}
	default:
		list, ok := v.([]any)
		if !ok {
			list = make([]any, blankItems(n))
		}
		f.b.WriteString("\n")
		for i, it := range list {
			obj, _ := it.(map[string]any)
			f.b.WriteString(strings.Repeat("#", level+1) + " " + name + " " + strconv.Itoa(i+1) + "\n\n")
			f.object(n.items, level+2, path, obj)
		}
	}
}

// fields writes the FIELD: VALUE lines of the flat object n, the first
// after lead ("- " for an item of a list).
func (f *former) fields(n *node, v map[string]any, lead string) {
	for j, p := range n.props {
		l := "  "
		if j == 0 {
			l = lead
		}
		if lead == "" {
			l = ""
		}
		f.b.WriteString(l + p.name + ": " + indent(text(v[p.name])) + "\n")
	}
}

// text writes a scalar of an answer as the form holds it.
func text(v any) string {
	switch x := v.(type) {
	case nil:
		return ""
	case string:
		return x
	case bool:
		if x {
			return "yes"
		}
		return "no"
	case json.Number:
		return x.String()
	case float64:
		return num(x)
	}
	return fmt.Sprint(v)
}

// indent puts the lines after the first of a value in a list under it.
func indent(s string) string {
	return strings.ReplaceAll(strings.TrimSpace(s), "\n", "\n  ")
}

// rowsOf returns the field of the items of the list at path that c.Rows
// fills in, and its values.
func (f *former) rowsOf(n *node, path string) (string, []string) {
	for _, p := range n.items.props {
		if rows, ok := f.rows[join(path, p.name)]; ok && p.n.scalar() {
			return p.name, rows
		}
	}
	return "", nil
}

// hint says what a field at path takes.
func (f *former) hint(n *node, path string) string {
	switch {
	case n.scalar():
		return f.scalarHint(n, path)
	case n.flat():
		return "a line per field, as FIELD: VALUE; " + f.fieldHints(n, path)
	case n.kind == "object":
		return ""
	}
	var s string
	switch {
	case n.items.scalar():
		s = "a list, an item per line beginning with \"- \"; each item is " + f.scalarHint(n.items, path)
	case n.items.flat():
		s = "a list: an item begins with \"- \", a line FIELD: VALUE per field (a value may go on over more lines); " +
			"an item left empty is left out. " + f.fieldHints(n.items, path)
	default:
		s = "a list: a section per item, headed as the first one is; copy it for another"
	}
	return s + "; " + countHint(n)
}

// blankItems is how many empty items a blank form's list n shows: those it
// must have, at least one, but none in a list that must stay empty.
func blankItems(n *node) int {
	if n.maxItems == 0 {
		return 0
	}
	return max(n.minItems, 1)
}

func countHint(n *node) string {
	switch {
	case n.maxItems == 0:
		return "none here: leave it empty"
	case n.maxItems > 0 && n.minItems == n.maxItems:
		return fmt.Sprintf("exactly %d", n.maxItems)
	case n.maxItems > 0:
		return fmt.Sprintf("%d to %d items", n.minItems, n.maxItems)
	case n.minItems > 0:
		return fmt.Sprintf("at least %d", n.minItems)
	}
	return "as many items as needed, or none"
}

func (f *former) fieldHints(n *node, path string) string {
	parts := make([]string, len(n.props))
	for i, p := range n.props {
		parts[i] = p.name + ": " + f.scalarHint(p.n, join(path, p.name))
	}
	return strings.Join(parts, "; ")
}

func (f *former) scalarHint(n *node, path string) string {
	var s string
	switch {
	case len(n.enum) > 0:
		s = "one of " + strings.Join(n.enum, ", ")
	case n.kind == "boolean":
		s = "yes or no"
	case n.kind == "integer" || n.kind == "number":
		s = "a number"
		if n.kind == "integer" {
			s = "a whole number"
		}
		if n.min != nil && n.max != nil {
			s += " from " + num(*n.min) + " to " + num(*n.max)
		} else if n.min != nil {
			s += " from " + num(*n.min)
		} else if n.max != nil {
			s += " up to " + num(*n.max)
		}
	default:
		s = "text"
	}
	// Choices are hints for a field its schema leaves open; a field of
	// an enum says its values already.
	if c := f.choices[path]; len(c) > 0 && len(n.enum) == 0 {
		s += " (one of " + strings.Join(c, ", ") + ")"
	}
	if n.nullable {
		s += ", or nothing"
	}
	return s
}

func num(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }
