package frontmatter

import (
	"errors"
	"strings"
	"testing"
)

// TestCheckDuplicates: a key written twice in any object, at any depth and
// in any spelling, is named with where it is; distinct keys pass.
func TestCheckDuplicates(t *testing.T) {
	many := make([]string, 40)
	for i := range many {
		many[i] = `"k` + strings.Repeat("x", i) + `": 1`
	}
	tests := []struct {
		name, json string
		want       string // the error, or "" for none
	}{
		{"distinct keys", `{"a": 1, "b": {"a": 2}, "c": [{"a": 1}, {"a": 2}]}`, ""},
		{"empty", `{}`, ""},
		{"not an object", `[1, "a", {"b": [], "c": {}}]`, ""},
		{"same value in two objects", `{"x": {"score": 1}, "y": {"score": 1}}`, ""},
		{"top level", `{"score": 6, "reasoning": "r", "score": 9}`, `field "score" appears twice`},
		{"nested", `{"criteria": {"depth": {"score": 1, "score": 2}}}`, `field "score" appears twice in criteria.depth`},
		{"in a list", `{"personas": [{"a": 1}, {"position": "NO", "position": "YES"}]}`, `field "position" appears twice in personas[1]`},
		{"a list at the top", `[{"a": 1, "a": 2}]`, `field "a" appears twice in [0]`},
		{"spelt with an escape", `{"total": 1, "tot\u0061l": 10}`, `field "total" appears twice`},
		{"a key that holds quotes", `{"a\"b": 1, "a\"b": 2}`, `field "a\"b" appears twice`},
		{"many keys", "{" + strings.Join(many, ", ") + `, "kxxx": 2}`, `field "kxxx" appears twice`},
		{"many distinct keys", "{" + strings.Join(many, ", ") + "}", ""},
		{"a string that looks like keys", `{"a": "\"a\": 1, \"a\": 2"}`, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := CheckDuplicates([]byte(tt.json))
			var dup *DuplicateKeyError
			switch {
			case tt.want == "" && err != nil:
				t.Errorf("error %v, want none", err)
			case tt.want != "" && (err == nil || err.Error() != tt.want):
				t.Errorf("error %v, want %q", err, tt.want)
			case tt.want != "" && !errors.As(err, &dup):
				t.Errorf("error %T, want a *DuplicateKeyError", err)
			}
		})
	}
}

// TestDuplicatesRefusedWhereverJSONIsRead: the frontmatter of every file,
// an ordered object and Unmarshal refuse a key written twice.
func TestDuplicatesRefusedWhereverJSONIsRead(t *testing.T) {
	if _, _, err := Parse([]byte("{\n  \"score\": 6,\n  \"score\": 9\n}\n\nbody\n")); err == nil || !strings.Contains(err.Error(), `field "score" appears twice`) {
		t.Errorf("Parse: error %v, want the second score named", err)
	}
	if _, _, err := Parse([]byte("{\n  \"verdict\": {\"scores\": {\"a\": 1, \"a\": 9}}\n}\n")); err == nil || !strings.Contains(err.Error(), "verdict.scores") {
		t.Errorf("Parse: error %v, want verdict.scores named", err)
	}
	var o Object
	if err := o.UnmarshalJSON([]byte(`{"total": 1, "total": 10}`)); err == nil {
		t.Errorf("Object: a second total is accepted: %v", o)
	}
	var v map[string]any
	if err := Unmarshal([]byte(`{"score": 6, "score": 10}`), &v); err == nil {
		t.Errorf("Unmarshal: a second score is accepted: %v", v)
	}
	if err := Unmarshal([]byte(`{"score": 6}`), &v); err != nil || v["score"] != 6.0 {
		t.Errorf("Unmarshal: %v, %v", v, err)
	}
}

// TestCheckDuplicatesAllocatesNothing: a file of distinct plain keys is
// checked without allocating, so that reading every file is no slower in
// a way that shows.
func TestCheckDuplicatesAllocatesNothing(t *testing.T) {
	data := []byte(`{"id": "opp_003b", "exchange": 3, "attacks": [{"target_id": "prop_002a", "type": "undermine"}], "x": {"y": [1, 2]}}`)
	if n := testing.AllocsPerRun(100, func() {
		if err := CheckDuplicates(data); err != nil {
			t.Fatal(err)
		}
	}); n != 0 {
		t.Errorf("%v allocations a check, want 0", n)
	}
}
