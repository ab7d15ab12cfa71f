package frontmatter_test

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	yamlfront "github.com/adrg/frontmatter"

	"github.com/moot-dev/moot/internal/frontmatter"
)

// TestAdrgMisreadsJSONFrontmatter keeps the files that moot's JSON reader
// reads and adrg/frontmatter, which reads every YAML frontmatter of moot
// (panel's personas, refine's reasoning templates), would misread: it
// finds the end of a JSON frontmatter by its lines, not by JSON. These are
// why moot's exact reader stays for JSON. The file moot writes itself
// (Render's layout) both read alike; the test fails, and says so, if
// adrg/frontmatter ever reads one of the others as moot does.
func TestAdrgMisreadsJSONFrontmatter(t *testing.T) {
	type front struct {
		A any `json:"a"`
		B any `json:"b"`
	}
	for _, tc := range []struct {
		name, text string
		want       front
		body       string
		// same is true where both read alike.
		same bool
	}{
		{"moot's own layout", "{\n  \"a\": {\n    \"x\": 1\n  },\n  \"b\": 2\n}\n\nbody\n",
			front{A: map[string]any{"x": 1.0}, B: 2.0}, "body\n", true},
		{"an object on one line", "{\"a\": 1, \"b\": 2}\n\nbody\n", front{A: 1.0, B: 2.0}, "body\n", false},
		{"no blank line before the body", "{\n  \"a\": 1\n}\nbody\n", front{A: 1.0}, "body\n", false},
		{"a blank line after a nested object", "{\n  \"a\": {\n    \"x\": 1\n  }\n\n, \"b\": 2\n}\n\nbody\n",
			front{A: map[string]any{"x": 1.0}, B: 2.0}, "body\n", false},
		{"blank lines before the body", "{\n  \"a\": 1\n}\n\n\n\nbody\n", front{A: 1.0}, "body\n", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got front
			_, body, err := frontmatter.ParseInto([]byte(tc.text), &got)
			if err != nil || !reflect.DeepEqual(got, tc.want) || body != tc.body {
				t.Fatalf("moot's reader: %+v, body %q, %v; want %+v, body %q", got, body, err, tc.want, tc.body)
			}
			var other front
			rest, err := yamlfront.Parse(strings.NewReader(tc.text), &other)
			alike := err == nil && reflect.DeepEqual(other, tc.want) && string(rest) == tc.body
			switch {
			case tc.same && !alike:
				t.Errorf("adrg/frontmatter reads moot's own layout as %+v, body %q, %v", other, rest, err)
			case !tc.same && alike:
				t.Errorf("adrg/frontmatter now reads this as moot does: it could read moot's JSON frontmatter")
			}
		})
	}
	// A key twice is refused by moot, so that a hand edit cannot change
	// what the file says unseen; adrg/frontmatter keeps the last value.
	text := "{\n  \"a\": 1,\n  \"a\": 2\n}\n\nbody\n"
	if _, _, err := frontmatter.Parse([]byte(text)); err == nil {
		t.Errorf("moot's reader took a key twice")
	}
	var v map[string]json.RawMessage
	if _, err := yamlfront.Parse(strings.NewReader(text), &v); err != nil || string(v["a"]) != "2" {
		t.Errorf("adrg/frontmatter now treats a key twice otherwise (%v, %s): see whether it can read moot's JSON", err, v["a"])
	}
}
