package human

import (
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
func Form(c sm.Call) (string, error) {
	var b strings.Builder
	b.WriteString(formHead)
	if c.Schema == nil {
		b.WriteString("<!-- Write your answer below this line, in markdown. Lines between these marks are left out. -->\n\n")
		return b.String(), nil
	}
	root, err := parseSchema(c.Schema, 0)
	if err != nil {
		return "", err
	}
	if root.kind != "object" {
		return "", fmt.Errorf("the answer's schema is not an object, which a form cannot hold: hand in the JSON")
	}
	b.WriteString("<!-- Fill in each section under its heading and keep the headings as they are. " +
		"Lines between these marks are left out. -->\n\n")
	f := &former{b: &b, choices: c.Choices, rows: c.Rows}
	f.object(root, 2, "")
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

func (f *former) object(n *node, level int, path string) {
	for _, p := range n.props {
		f.b.WriteString(strings.Repeat("#", level) + " " + p.name)
		if p.n.nullable {
			f.b.WriteString(" (optional)")
		}
		f.b.WriteString("\n")
		if hint := f.hint(p.n, join(path, p.name)); hint != "" {
			f.b.WriteString("<!-- " + hint + " -->\n")
		}
		f.value(p.n, p.name, level, join(path, p.name))
		f.b.WriteString("\n")
	}
}

// value writes the blank of a field called name, at path, under a heading
// of level.
func (f *former) value(n *node, name string, level int, path string) {
	switch {
	case n.scalar():
		f.b.WriteString("\n")
	case n.flat():
		for _, p := range n.props {
			f.b.WriteString(p.name + ": \n")
		}
	case n.kind == "object":
		f.b.WriteString("\n")
		f.object(n, level+1, path)
	case n.items.scalar():
		for range max(n.minItems, 1) {
			f.b.WriteString("- \n")
		}
	case n.items.flat():
		key, rows := f.rowsOf(n, path)
		count := max(n.minItems, 1)
		if len(rows) > 0 {
			count = len(rows)
		}
		for i := range count {
			for j, p := range n.items.props {
				lead := "  "
				if j == 0 {
					lead = "- "
				}
				v := ""
				if p.name == key && i < len(rows) {
					v = rows[i]
				}
				f.b.WriteString(lead + p.name + ": " + v + "\n")
			}
		}
	default:
		f.b.WriteString("\n")
		for i := range max(n.minItems, 1) {
			f.b.WriteString(strings.Repeat("#", level+1) + " " + name + " " + strconv.Itoa(i+1) + "\n\n")
			f.object(n.items, level+2, path)
		}
	}
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

func countHint(n *node) string {
	switch {
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
	if c := f.choices[path]; len(c) > 0 {
		s += " (one of " + strings.Join(c, ", ") + ")"
	}
	if n.nullable {
		s += ", or nothing"
	}
	return s
}

func num(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }
