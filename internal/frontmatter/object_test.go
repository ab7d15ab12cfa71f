package frontmatter

import (
	"bytes"
	"encoding/json"
	"testing"
)

// objectInputs are JSON objects whose reading must not depend on the way
// UnmarshalJSON takes.
var objectInputs = []string{
	`{}`, ` { } `, `{"a":1}`, "{\n  \"a\" : [1, {\"b\": \"}]\\\"\"}],\n\t\"c\": null }\n",
	`{"a":1,"a":2,"b":3}`, `{"k\u00e9y":"v","k\\\"q":true,"":false}`, `{"x":-1.5e+3,"y":"\u2028"}`,
	`{"n":{"deep":{"deeper":[[],[{}],"]"]}}}`, "{\"bad\xffkey\":1}", `{"a":"\\"}`,
}

// TestObjectSplitIsDecode checks that the one-pass reading of valid JSON
// gives the fields encoding/json's decoder gives.
func TestObjectSplitIsDecode(t *testing.T) {
	for _, in := range objectInputs {
		t.Run(in, func(t *testing.T) { splitIsDecode(t, []byte(in)) })
	}
}

func FuzzObjectSplit(f *testing.F) {
	for _, in := range objectInputs {
		f.Add([]byte(in))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if json.Valid(data) {
			splitIsDecode(t, data)
		}
	})
}

func splitIsDecode(t *testing.T, data []byte) {
	t.Helper()
	var split, decoded Object
	errSplit, errDecode := split.split(data), decoded.decode(data)
	if (errSplit == nil) != (errDecode == nil) {
		t.Fatalf("%q: split error %v, decode error %v", data, errSplit, errDecode)
	}
	if errSplit != nil {
		return
	}
	if len(split.Fields) != len(decoded.Fields) {
		t.Fatalf("%q: split %d fields, decode %d", data, len(split.Fields), len(decoded.Fields))
	}
	for i := range split.Fields {
		s, d := split.Fields[i], decoded.Fields[i]
		if s.Key != d.Key || !bytes.Equal(s.Value, d.Value) {
			t.Errorf("%q: field %d is %q=%s by split, %q=%s by decode", data, i, s.Key, s.Value, d.Key, d.Value)
		}
	}
}

// TestMarshalKeys checks that MarshalJSON writes every key as Marshal
// encodes a string, the plain keys it writes itself included: a rewritten
// file must keep its bytes.
func TestMarshalKeys(t *testing.T) {
	keys := []string{"a", "debate_id", "", "with space", "<&>", "q\"uote", `back\slash`, "tab\t", "nl\n", "\x01", "\x7f",
		"caf\u00e9", "\u2028", "\u2029", "bad\xffkey", "emoji \U0001F600"}
	for _, k := range keys {
		t.Run(k, func(t *testing.T) {
			got, err := Object{Fields: []Field{{Key: k, Value: json.RawMessage("1")}}}.MarshalJSON()
			if err != nil {
				t.Fatal(err)
			}
			enc, err := Marshal(k)
			if err != nil {
				t.Fatal(err)
			}
			want := "{" + string(bytes.TrimSuffix(enc, []byte("\n"))) + ":1}"
			if string(got) != want {
				t.Errorf("MarshalJSON writes key %q as %s, Marshal as %s", k, got, want)
			}
		})
	}
}
