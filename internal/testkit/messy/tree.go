package messy

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"strings"
	"unicode/utf8"
)

// node is a JSON value with its keys in order.
type node struct {
	kind byte // 'o'bject, 'a'rray, 's'tring, 'n'umber, 'b'oolean, 'z' null
	keys []string
	vals []*node
	str  string // a string's text, a number's digits
	b    bool
}

// parse reads the one JSON value of text, keeping key order.
func parse(text string) (*node, error) {
	dec := json.NewDecoder(strings.NewReader(text))
	dec.UseNumber()
	n, err := parseValue(dec)
	if err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("more than one value")
	}
	return n, nil
}

func parseValue(dec *json.Decoder) (*node, error) {
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch t := tok.(type) {
	case json.Delim:
		n := &node{kind: 'o'}
		if t == '[' {
			n.kind = 'a'
		}
		for dec.More() {
			if n.kind == 'o' {
				k, err := dec.Token()
				if err != nil {
					return nil, err
				}
				n.keys = append(n.keys, k.(string))
			}
			v, err := parseValue(dec)
			if err != nil {
				return nil, err
			}
			n.vals = append(n.vals, v)
		}
		if _, err := dec.Token(); err != nil {
			return nil, err
		}
		return n, nil
	case string:
		return &node{kind: 's', str: t}, nil
	case json.Number:
		return &node{kind: 'n', str: t.String()}, nil
	case bool:
		return &node{kind: 'b', b: t}, nil
	}
	return &node{kind: 'z'}, nil
}

// quoting is how a printer writes strings (or keys).
type quoting int

const (
	double quoting = iota
	single         // 'text', where the text holds no '
	smart          // “text”, where the text holds no quote of any kind
	bare           // keys only: score, where the key is a word
)

// printer writes a node as models write JSON, right or nearly.
type printer struct {
	indent        string // "" writes it on one line
	nl            string // the line end: "\n" by default
	keys, strs    quoting
	trailingComma bool // a comma after the last member of every object and array
	python        bool // True, False and None
	comment       bool // a // comment before the first member of the outer object
	rawNewlines   bool // a line end inside a string written as it is
}

func (p printer) print(n *node) string {
	var b bytes.Buffer
	if p.nl == "" {
		p.nl = "\n"
	}
	p.value(&b, n, 0)
	return b.String()
}

func (p printer) line(b *bytes.Buffer, depth int) {
	if p.indent == "" {
		return
	}
	b.WriteString(p.nl)
	b.WriteString(strings.Repeat(p.indent, depth))
}

func (p printer) value(b *bytes.Buffer, n *node, depth int) {
	switch n.kind {
	case 'o', 'a':
		open, close := "{", "}"
		if n.kind == 'a' {
			open, close = "[", "]"
		}
		b.WriteString(open)
		if p.comment && depth == 0 && n.kind == 'o' {
			p.line(b, depth+1)
			b.WriteString("// my answer, as asked")
			if p.indent == "" {
				b.WriteString("\n")
			}
		}
		for i, v := range n.vals {
			if i > 0 {
				b.WriteString(",")
				if p.indent == "" {
					b.WriteString(" ")
				}
			}
			p.line(b, depth+1)
			if n.kind == 'o' {
				p.key(b, n.keys[i])
				b.WriteString(": ")
			}
			p.value(b, v, depth+1)
		}
		if p.trailingComma && len(n.vals) > 0 {
			b.WriteString(",")
		}
		if len(n.vals) > 0 {
			p.line(b, depth)
		}
		b.WriteString(close)
	case 's':
		p.str(b, n.str, p.strs)
	case 'n':
		b.WriteString(n.str)
	case 'b':
		switch {
		case p.python && n.b:
			b.WriteString("True")
		case p.python:
			b.WriteString("False")
		case n.b:
			b.WriteString("true")
		default:
			b.WriteString("false")
		}
	default:
		if p.python {
			b.WriteString("None")
		} else {
			b.WriteString("null")
		}
	}
}

func (p printer) key(b *bytes.Buffer, k string) {
	if p.keys == bare && isWord(k) {
		b.WriteString(k)
		return
	}
	q := p.keys
	if q == bare {
		q = double
	}
	p.str(b, k, q)
}

func isWord(s string) bool {
	if s == "" || s == "true" || s == "false" || s == "null" {
		return false
	}
	for i, r := range s {
		if !(r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || i > 0 && r >= '0' && r <= '9') {
			return false
		}
	}
	return true
}

// str writes s in quotes q, or in double quotes when s holds what q
// could not tell from its end.
func (p printer) str(b *bytes.Buffer, s string, q quoting) {
	open, close := `"`, `"`
	switch {
	case q == single && !strings.ContainsAny(s, `'’‘`):
		open, close = `'`, `'`
	case q == smart && !strings.ContainsAny(s, `"'“”‘’`):
		open, close = `“`, `”`
	}
	b.WriteString(open)
	for _, r := range s {
		switch {
		case r == '"' && open == `"`:
			b.WriteString(`\"`)
		case r == '\\':
			b.WriteString(`\\`)
		case r == '\n' && p.rawNewlines:
			b.WriteByte('\n')
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		case r < 0x20:
			b.WriteString(`\u00`)
			b.WriteByte("0123456789abcdef"[r>>4])
			b.WriteByte("0123456789abcdef"[r&15])
		default:
			var buf [4]byte
			b.Write(buf[:utf8.EncodeRune(buf[:], r)])
		}
	}
	b.WriteString(close)
}
