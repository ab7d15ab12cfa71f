package moderated

import (
	"encoding/json"
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
				front, body, err := decodeRecord(d.out(), data, contentKey)
				if err != nil {
					t.Fatalf("%v\n%s", err, data)
				}
				var got Message
				if err := front.Decode("number", &got.Number); err != nil {
					t.Fatal(err)
				}
				raw, _ := front.MarshalJSON()
				if err := jsonUnmarshal(raw, &got); err != nil {
					t.Fatal(err)
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

func jsonUnmarshal(data []byte, v any) error { return json.Unmarshal(data, v) }
