// Package human lets a person answer a call of a debate in place of a
// model: it builds a markdown answer form from the JSON schema of the
// call's answer, with what the role may see above it, and reads the filled
// form back into the JSON a model would have given, which then goes
// through the same validation. Building and reading forms are pure
// functions; the loop that opens an editor on a draft lives in editor.go.
package human

import (
	"fmt"
	"slices"
	"sort"
)

// node is the part of a JSON schema a form is built from.
type node struct {
	kind     string // string, number, integer, boolean, object or array
	nullable bool
	enum     []string
	props    []prop // an object's properties, in order
	items    *node  // an array's items
	minItems int
	maxItems int // -1 for no maximum; 0 for a list that must stay empty
	min, max *float64
}

type prop struct {
	name string
	n    *node
}

// scalar reports whether n is a single value: text, a number or yes/no.
func (n *node) scalar() bool { return n.kind != "object" && n.kind != "array" }

// flat reports whether n is an object of scalars, written as KEY: VALUE
// lines.
func (n *node) flat() bool {
	if n.kind != "object" {
		return false
	}
	for _, p := range n.props {
		if !p.n.scalar() {
			return false
		}
	}
	return true
}

func (n *node) prop(name string) *node {
	for _, p := range n.props {
		if p.name == name {
			return p.n
		}
	}
	return nil
}

func (n *node) names() []string {
	out := make([]string, len(n.props))
	for i, p := range n.props {
		out[i] = p.name
	}
	return out
}

// parseSchema reads the part of schema a form needs. What it does not
// know it takes for text.
func parseSchema(schema map[string]any, depth int) (*node, error) {
	if depth > 8 {
		return nil, fmt.Errorf("the answer's schema is nested too deep for a form")
	}
	n := &node{kind: "string", maxItems: -1}
	switch t := schema["type"].(type) {
	case string:
		n.kind = t
	case []any:
		for _, v := range t {
			if s, ok := v.(string); ok {
				if s == "null" {
					n.nullable = true
				} else {
					n.kind = s
				}
			}
		}
	case []string:
		for _, s := range t {
			if s == "null" {
				n.nullable = true
			} else {
				n.kind = s
			}
		}
	}
	switch e := schema["enum"].(type) {
	case []any:
		for _, v := range e {
			if s, ok := v.(string); ok {
				n.enum = append(n.enum, s)
			}
		}
	case []string:
		n.enum = slices.Clone(e)
	}
	n.min, n.max = number(schema["minimum"]), number(schema["maximum"])
	if v := number(schema["minItems"]); v != nil {
		n.minItems = int(*v)
	}
	if v := number(schema["maxItems"]); v != nil {
		n.maxItems = int(*v)
	}
	switch n.kind {
	case "string", "number", "integer", "boolean":
	case "object":
		props, _ := schema["properties"].(map[string]any)
		var order []string
		switch r := schema["required"].(type) {
		case []any:
			for _, v := range r {
				if s, ok := v.(string); ok && props[s] != nil && !slices.Contains(order, s) {
					order = append(order, s)
				}
			}
		case []string:
			for _, s := range r {
				if props[s] != nil && !slices.Contains(order, s) {
					order = append(order, s)
				}
			}
		}
		var rest []string
		for k := range props {
			if !slices.Contains(order, k) {
				rest = append(rest, k)
			}
		}
		sort.Strings(rest)
		for _, k := range append(order, rest...) {
			sub, _ := props[k].(map[string]any)
			c, err := parseSchema(sub, depth+1)
			if err != nil {
				return nil, err
			}
			n.props = append(n.props, prop{name: k, n: c})
		}
	case "array":
		sub, _ := schema["items"].(map[string]any)
		c, err := parseSchema(sub, depth+1)
		if err != nil {
			return nil, err
		}
		if c.kind == "array" {
			return nil, fmt.Errorf("the answer's schema has lists of lists, which a form cannot hold")
		}
		n.items = c
	default:
		n.kind = "string"
	}
	return n, nil
}

func number(v any) *float64 {
	var f float64
	switch x := v.(type) {
	case int:
		f = float64(x)
	case int64:
		f = float64(x)
	case float64:
		f = x
	default:
		return nil
	}
	return &f
}
