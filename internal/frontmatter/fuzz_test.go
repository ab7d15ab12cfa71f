package frontmatter

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// FuzzParse feeds arbitrary bytes to the frontmatter reader. It must never
// panic, and whatever it accepts must survive a round trip: Render of what
// Parse read parses again to the same object (same keys, same order, same
// values) and the same body (moot trims the body's trailing newlines).
func FuzzParse(f *testing.F) {
	f.Add([]byte("{\n  \"debate_id\": \"demo\"\n}\n\n# Motion\n\nx\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		obj, body, err := Parse(data)
		if err != nil {
			return
		}
		out, err := Render(obj, body)
		if err != nil {
			t.Fatalf("Render of an accepted file: %v", err)
		}
		obj2, body2, err := Parse(out)
		if err != nil {
			t.Fatalf("Render's output does not parse: %v\n%q", err, out)
		}
		if !sameObject(obj, obj2) {
			t.Fatalf("the object changed in a round trip:\n%s\n%s", mustJSON(obj), mustJSON(obj2))
		}
		if strings.TrimRight(body, "\n") != strings.TrimRight(body2, "\n") {
			t.Fatalf("the body changed in a round trip: %q became %q", body, body2)
		}
		// Rendering is stable: a second round gives the same bytes.
		out2, err := Render(obj2, body2)
		if err != nil || !bytes.Equal(out, out2) {
			t.Fatalf("Render is not stable (%v):\n%q\n%q", err, out, out2)
		}
	})
}

func sameObject(a, b Object) bool {
	if len(a.Fields) != len(b.Fields) {
		return false
	}
	for i := range a.Fields {
		if a.Fields[i].Key != b.Fields[i].Key {
			return false
		}
		var x, y bytes.Buffer
		if json.Compact(&x, a.Fields[i].Value) != nil || json.Compact(&y, b.Fields[i].Value) != nil {
			return false
		}
		if !bytes.Equal(x.Bytes(), y.Bytes()) {
			return false
		}
	}
	return true
}

func mustJSON(o Object) string {
	b, err := o.MarshalJSON()
	if err != nil {
		return err.Error()
	}
	return string(b)
}
