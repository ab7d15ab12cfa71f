package frontmatter_test

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/moot-dev/moot/internal/frontmatter"
)

func keys(o frontmatter.Object) string {
	var ks []string
	for _, f := range o.Fields {
		ks = append(ks, f.Key)
	}
	return strings.Join(ks, ",")
}

func TestObjectKeepsOrderAndUnknownKeys(t *testing.T) {
	in := `{"zeta": 1, "alpha": {"y": [1, 2], "b": null}, "model": "x", "mid": true, "a": "é"}`
	var o frontmatter.Object
	if err := json.Unmarshal([]byte(in), &o); err != nil {
		t.Fatal(err)
	}
	if got := keys(o); got != "zeta,alpha,model,mid,a" {
		t.Errorf("keys %q", got)
	}
	out, err := json.Marshal(o)
	if err != nil {
		t.Fatal(err)
	}
	var want bytes.Buffer
	if err := json.Compact(&want, []byte(in)); err != nil {
		t.Fatal(err)
	}
	if string(out) != want.String() {
		t.Errorf("MarshalJSON = %s\nwant %s", out, want.String())
	}

	// Set replaces in place; a new key goes at the end.
	o.Set("alpha", json.RawMessage(`2`))
	if err := o.SetValue("new", []int{1}); err != nil {
		t.Fatal(err)
	}
	if got := keys(o); got != "zeta,alpha,model,mid,a,new" {
		t.Errorf("keys after Set %q", got)
	}
	if v, ok := o.Get("alpha"); !ok || string(v) != "2" {
		t.Errorf("Get(alpha) = %s, %v", v, ok)
	}
	if _, ok := o.Get("missing"); ok {
		t.Error("Get found a missing key")
	}
}

func TestObjectNumbersKeptVerbatim(t *testing.T) {
	// Numbers pass through untouched: no float round trip.
	in := `{"a":1.0,"b":12345678901234567890,"c":-0.0,"d":1e2}`
	var o frontmatter.Object
	if err := json.Unmarshal([]byte(in), &o); err != nil {
		t.Fatal(err)
	}
	out, _ := json.Marshal(o)
	if string(out) != in {
		t.Errorf("got %s, want %s", out, in)
	}
}

// TestObjectDuplicateKey: an object that holds a key twice is refused,
// naming the key, whichever way it is read.
func TestObjectDuplicateKey(t *testing.T) {
	var o frontmatter.Object
	err := json.Unmarshal([]byte(`{"a": 1, "b": 2, "a": 3}`), &o)
	if err == nil || !strings.Contains(err.Error(), `field "a" appears twice`) {
		t.Errorf("error %v, want the second a named (read as %+v)", err, o)
	}
}

func TestObjectRefusesNonObjects(t *testing.T) {
	for _, in := range []string{`[1]`, `"x"`, `1`, `null`, `{"a": }`, `{"a": 1`} {
		var o frontmatter.Object
		if err := json.Unmarshal([]byte(in), &o); err == nil {
			t.Errorf("%s: accepted as %+v", in, o)
		}
	}
}

func TestDecode(t *testing.T) {
	var o frontmatter.Object
	if err := json.Unmarshal([]byte(`{"n": 3, "s": "x"}`), &o); err != nil {
		t.Fatal(err)
	}
	var n int
	if err := o.Decode("n", &n); err != nil || n != 3 {
		t.Errorf("Decode(n) = %d, %v", n, err)
	}
	if err := o.Decode("missing", &n); err == nil || !strings.Contains(err.Error(), `"missing" is missing`) {
		t.Errorf("missing key: %v", err)
	}
	if err := o.Decode("s", &n); err == nil || !strings.Contains(err.Error(), `field "s"`) {
		t.Errorf("wrong type: %v", err)
	}
}

func TestMarshal(t *testing.T) {
	v := map[string]any{"text": `<script>alert("x") & more</script>`, "uni": "é 中文 🎉", "list": []int{1, 2}}
	b, err := frontmatter.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	want := "{\n  \"list\": [\n    1,\n    2\n  ],\n  \"text\": \"<script>alert(\\\"x\\\") & more</script>\",\n  \"uni\": \"é 中文 🎉\"\n}\n"
	if s != want {
		t.Errorf("Marshal =\n%s\nwant\n%s", s, want)
	}
}

func TestRenderParseRoundTrip(t *testing.T) {
	var obj frontmatter.Object
	obj.SetValue("id", "prop_001")
	obj.SetValue("claim", `Braces } and "quotes" and <tags> & ampersands, é, 🎉`)
	obj.SetValue("nested", map[string]any{"k": []any{1, "two", nil}})
	obj.SetValue("a_number", 0.35)
	obj.Set("z_unknown", json.RawMessage(`{"kept": true}`))
	bodies := []string{
		"# Motion\n\nText.\n",
		"## Claim\n\n}\n\n{\n\nA line with only a brace above.",
		"",
		"Body with trailing newlines\n\n\n",
		"Unicode: é 中文 🎉 <b>&amp;</b>",
	}
	for _, body := range bodies {
		t.Run(body, func(t *testing.T) {
			data, err := frontmatter.Render(obj, body)
			if err != nil {
				t.Fatal(err)
			}
			s := string(data)
			if !strings.HasPrefix(s, "{\n  \"id\": \"prop_001\",\n") {
				t.Errorf("frontmatter does not open with a lone { and two-space indent:\n%s", s)
			}
			if !strings.HasSuffix(s, "\n") || strings.HasSuffix(s, "\n\n") {
				t.Errorf("file does not end with exactly one newline: %q", s[max(0, len(s)-10):])
			}
			if strings.Contains(s, `\u003c`) || strings.Contains(s, `\u0026`) || strings.Contains(s, `\u003e`) {
				t.Errorf("HTML escaping in %s", s)
			}
			if !strings.Contains(s, "é, 🎉") {
				t.Errorf("UTF-8 not written as UTF-8: %s", s)
			}
			if trimmed := strings.TrimRight(body, "\n"); trimmed != "" && !strings.Contains(s, "\n}\n\n"+trimmed+"\n") {
				t.Errorf("frontmatter and body not separated by one blank line:\n%s", s)
			}

			back, gotBody, err := frontmatter.Parse(data)
			if err != nil {
				t.Fatalf("Parse(Render) failed: %v\n%s", err, s)
			}
			a, _ := json.Marshal(obj)
			b, _ := json.Marshal(back)
			if string(a) != string(b) {
				t.Errorf("frontmatter changed:\n%s\n%s", a, b)
			}
			if want := strings.TrimRight(body, "\n"); strings.TrimRight(gotBody, "\n") != want {
				t.Errorf("body %q, want %q", gotBody, want)
			}
			// Rendering again gives the same bytes.
			again, err := frontmatter.Render(back, gotBody)
			if err != nil || !bytes.Equal(again, data) {
				t.Errorf("render is not stable:\n%s\n%s", data, again)
			}
		})
	}
}

func TestParse(t *testing.T) {
	tests := []struct {
		name string
		in   string
		keys string
		body string
		err  string // substring of the error; empty means it parses
	}{
		{name: "frontmatter and body", in: "{\n  \"a\": 1,\n  \"b\": {\n    \"c\": 2\n  }\n}\n\n# Motion\n\nText\n", keys: "a,b", body: "# Motion\n\nText\n"},
		// FORMAT.md asks for a blank line after the frontmatter; without it the
		// closing brace is not taken as the end of the frontmatter.
		{name: "no blank line is read all the same", in: "{\n  \"a\": 1\n}\n# Motion\n", keys: "a", body: "# Motion\n"},
		{name: "body on the closing line", in: "{\n  \"a\": 1\n} # Motion\n", err: "must be alone on its line"},
		{name: "only frontmatter", in: "{\n  \"a\": 1\n}\n", keys: "a", body: ""},
		{name: "only frontmatter, no newline", in: "{\n  \"a\": 1\n}", keys: "a", body: ""},
		{name: "body with a lone brace", in: "{\n  \"a\": 1\n}\n\nx\n}\ny\n", keys: "a", body: "x\n}\ny\n"},
		{name: "CRLF line ends", in: "{\r\n  \"a\": 1\r\n}\r\n\r\nText\r\n", keys: "a", body: "Text\r\n"},
		{name: "no frontmatter", in: "# Motion\n\nText\n", err: "no JSON frontmatter"},
		{name: "empty file", in: "", err: "no JSON frontmatter"},
		{name: "array frontmatter", in: "[\n  1\n]\n\nText\n", err: "no JSON frontmatter"},
		{name: "string frontmatter", in: "\"{\"\n\nText\n", err: "no JSON frontmatter"},
		{name: "truncated frontmatter", in: "{\n  \"a\": 1,\n", err: "frontmatter"},
		{name: "truncated frontmatter before body", in: "{\n  \"a\": 1,\n\n# Motion\n\nText\n", err: "frontmatter"},
		{name: "invalid JSON inside", in: "{\n  a: 1\n}\n\nText\n", err: "invalid JSON"},
		// Where the object ends is decided by JSON, not by a line holding
		// "}": a nested "}" at column 0, even before a blank line, is inside.
		{name: "nested closing brace alone before a blank line", in: "{\n  \"a\": {\n    \"b\": 1\n}\n\n}\n\nText\n", keys: "a", body: "Text\n"},
		{name: "nested closing brace alone at column 0", in: "{\n\"a\": {\n\"b\": [\n1\n]\n}\n}\n\nText\n", keys: "a", body: "Text\n"},
		{name: "a brace after the object is body", in: "{\n  \"a\": {\n}\n  }\n}\n\nText\n", keys: "a", body: "}\n\nText\n"},
		{name: "spaces after the closing brace", in: "{\n  \"a\": 1\n}  \n# Motion\n", keys: "a", body: "# Motion\n"},
		{name: "syntax error names line and column", in: "{\n  \"a\": 1,\n  b: 2\n}\n\nText\n", err: "line 3, column 3"},
		{name: "frontmatter on one line is read all the same", in: "{\"a\": 1}\n\nText\n", keys: "a", body: "Text\n"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			obj, body, err := frontmatter.Parse([]byte(tc.in))
			if tc.err != "" {
				if err == nil {
					t.Fatalf("parsed as %s / %q, want an error", keys(obj), body)
				}
				if !strings.Contains(err.Error(), tc.err) {
					t.Errorf("error %q lacks %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if keys(obj) != tc.keys || body != tc.body {
				t.Errorf("got keys %q body %q; want %q %q", keys(obj), body, tc.keys, tc.body)
			}
		})
	}
}

func TestRenderEmptyBody(t *testing.T) {
	var obj frontmatter.Object
	obj.SetValue("a", 1)
	data, err := frontmatter.Render(obj, "\n\n")
	if err != nil {
		t.Fatal(err)
	}
	if string(data) != "{\n  \"a\": 1\n}\n" {
		t.Errorf("got %q", data)
	}
}

func TestRenderInvalidValue(t *testing.T) {
	var obj frontmatter.Object
	obj.Set("a", json.RawMessage(`{not json`))
	if _, err := frontmatter.Render(obj, "x"); err == nil || !strings.Contains(err.Error(), `"a"`) {
		t.Errorf("error %v, want one naming key a", err)
	}
}

// TestTypeErrorsSpeakJSON checks that a value of the wrong type is named
// in JSON's terms, never by a Go type a user of the files cannot know.
func TestTypeErrorsSpeakJSON(t *testing.T) {
	for _, tc := range []struct {
		name string
		into any
		data string
		want string
	}{
		{"list", &struct{ Grounds []struct{ Check string } }{}, `{"Grounds": "verified"}`, "Grounds: expected a list, found JSON string"},
		{"object", &struct{ Models map[string]string }{}, `{"Models": [1]}`, "Models: expected an object, found JSON array"},
		{"string", &struct{ Title string }{}, `{"Title": 3}`, "Title: expected a string, found JSON number"},
		{"whole number", &struct{ N int }{}, `{"N": "x"}`, "N: expected a whole number, found JSON string"},
		{"number", &struct{ Score float64 }{}, `{"Score": true}`, "Score: expected a number, found JSON bool"},
		{"bool", &struct{ On bool }{}, `{"On": {}}`, "On: expected true or false, found JSON object"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := frontmatter.JSONError(json.Unmarshal([]byte(tc.data), tc.into))
			if err == nil || err.Error() != tc.want {
				t.Errorf("got %v, want %q", err, tc.want)
			}
		})
	}
}
