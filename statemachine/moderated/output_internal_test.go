package moderated

import (
	"reflect"
	"strings"
	"testing"
)

// TestRecordsRoundTrip: a message and a score written in each output
// format read back as they were, whatever the text holds.
func TestRecordsRoundTrip(t *testing.T) {
	texts := map[string]string{
		"plain":        "One line.",
		"blank lines":  "First paragraph.\n\nSecond: after a blank line.\n\n\nThird.",
		"colons":       "key: value\nnumber: 3\n---\n{}",
		"braces":       "{\"content\": \"not me\", \"number\": 9}\n[1, 2]",
		"unicode":      "Städte ohne Autos — 東京 🚲 \u2028 after a line separator",
		"header-like":  "number: 99\nparticipant: x\n\nbody after a blank",
		"frontmatter":  "---\n{\"a\": 1}\n---\ntext",
		"tabs and crs": "a\tb\r\nc",
	}
	for _, f := range outputFormats {
		for name, text := range texts {
			t.Run(f+"/"+name, func(t *testing.T) {
				m := Message{Number: 12, Participant: "0123abcd-0000", Name: "Advocate: \"A\" {1}", Role: "position_advocate", Kind: "rebuttal",
					Phase: "argument", Round: 1, Turn: 3, RespondsTo: 9, Model: "true", Time: "2026-01-02T03:04:05Z", Content: strings.TrimSpace(text)}
				data, err := renderMessage(f, m)
				if err != nil {
					t.Fatal(err)
				}
				d := &debate{st: state{OutputFormat: f}}
				var got Message
				_, body, err := decodeRecordInto(d.out(), data, contentKey, &got)
				if err != nil {
					t.Fatalf("%v\n%s", err, data)
				}
				got.Content = body
				want := m
				want.Content = strings.TrimSpace(strings.ReplaceAll(m.Content, "\r\n", "\n"))
				if f != outText {
					want.Content = strings.TrimSpace(m.Content)
				}
				if !reflect.DeepEqual(got, want) {
					t.Errorf("read back\n%#v\nwant\n%#v\nfile:\n%s", got, want, data)
				}

				sc := Score{Message: 12, Participant: "0123abcd", Names: []string{"zeta", "alpha"}, Total: 7.3, Reply: strings.TrimSpace(text),
					Marks: map[string]Mark{"zeta": {Raw: 8, Weight: 0.25, Weighted: 2, Justification: text}, "alpha": {Raw: 6.5, Weight: 1, Weighted: 6.5, Justification: "x: y"}}}
				data, err = renderScore(f, sc)
				if err != nil {
					t.Fatal(err)
				}
				back, err := parseScoreFile(f, data)
				if err != nil {
					t.Fatalf("%v\n%s", err, data)
				}
				if f == outText {
					sc.Reply = want.Content
				}
				if !reflect.DeepEqual(back, sc) {
					t.Errorf("score read back\n%#v\nwant\n%#v\nfile:\n%s", back, sc, data)
				}
			})
		}
	}
}

// TestTextHeaderRefusals: a text file whose header cannot be read is an
// error naming the line, not a message with missing fields.
func TestTextHeaderRefusals(t *testing.T) {
	for name, data := range map[string]string{
		"no colon":     "number 3\n\ntext",
		"twice":        "number: 3\nnumber: 4\n\ntext",
		"open quote":   "name: \"Advocate\n\ntext",
		"not object":   "a: 1\na.b: 2\n\ntext",
		"space in key": "the number: 3\n\ntext",
	} {
		t.Run(name, func(t *testing.T) {
			if _, _, err := decodeRecord(outText, []byte(data), contentKey); err == nil || !strings.Contains(err.Error(), "line ") {
				t.Errorf("err = %v, want one naming a line", err)
			}
		})
	}
}

// TestTextHeaderNesting: dotted keys build nested objects in the order
// their keys first come, a later line setting a key again in its place,
// and a key given as an inline object takes dotted keys after it.
func TestTextHeaderNesting(t *testing.T) {
	for _, c := range []struct{ name, head, want string }{
		{"flat", "a: 1\nb: x\nc: \"7\"", `{"a":1,"b":"x","c":"7"}`},
		{"nested", "a.b: 1\nc: 2\na.d.e: x\na.b2: [1, 2]", `{"a":{"b":1,"d":{"e":"x"},"b2":[1,2]},"c":2}`},
		{"inline then dotted", "f: {\"g\": {\"i\": 1},  \"k\": 2}\nf.h: 2\nf.g.j: 3", `{"f":{"g":{"i":1,"j":3},"k":2,"h":2}}`},
		{"dotted then whole", "a.b: 1\nz: 0\na: 5", `{"a":5,"z":0}`},
		{"whole then dotted replaces in place", "a: {\"b\": 1, \"c\": 2}\na.b: 9", `{"a":{"b":9,"c":2}}`},
		{"empty object", "a: {}\na.b: 1", `{"a":{"b":1}}`},
		{"spaced top value kept", "a: [1,  2]", `{"a":[1,  2]}`},
	} {
		t.Run(c.name, func(t *testing.T) {
			obj, body, err := readHeader(c.head + "\n\ntext")
			if err != nil {
				t.Fatal(err)
			}
			var b strings.Builder
			b.WriteByte('{')
			for i, f := range obj.Fields {
				if i > 0 {
					b.WriteByte(',')
				}
				b.WriteString(`"` + f.Key + `":` + string(f.Value))
			}
			b.WriteByte('}')
			if b.String() != c.want || body != "text" {
				t.Errorf("read %s and %q, want %s and \"text\"", b.String(), body, c.want)
			}
		})
	}
	for name, c := range map[string]struct{ head, want string }{
		"number then dotted": {"a: 1\na.b: 2", `line 2: key "a.b": a is not an object`},
		"deep not object":    {"a.b: 1\na.b.c: 2", `line 2: key "a.b.c": b is not an object`},
		"null then dotted":   {"a: null\na.b: 2", `line 2: key "a.b": a is not an object`},
		"empty part":         {"a..b: 1", `line 1: key "a..b": an empty key`},
		"empty last":         {"a.: 1", `line 1: key "a.": an empty key`},
		"empty after scalar": {"a: 1\na.: 2", `line 2: key "a.": a is not an object`},
	} {
		t.Run(name, func(t *testing.T) {
			_, _, err := readHeader(c.head + "\n\ntext")
			if err == nil || err.Error() != c.want {
				t.Errorf("err = %v, want %s", err, c.want)
			}
		})
	}
}
