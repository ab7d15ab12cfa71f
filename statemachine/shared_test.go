package statemachine_test

import (
	"reflect"
	"strings"
	"testing"

	"github.com/moot-dev/moot/internal/evidence"
	sm "github.com/moot-dev/moot/statemachine"
)

func TestJSONObject(t *testing.T) {
	for _, tt := range []struct {
		name, text, want string
		ok               bool
	}{
		{"bare", `{"a": 1}`, `{"a": 1}`, true},
		{"fenced", "Here:\n```json\n{\"a\": 1}\n```\nDone.", `{"a": 1}`, true},
		{"nested", `x {"a": {"b": 2}} y`, `{"a": {"b": 2}}`, true},
		{"none", "no object here", "", false},
		{"braces backwards", "} then {", "", false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := sm.JSONObject([]byte(tt.text))
			if ok != tt.ok || string(got) != tt.want {
				t.Errorf("JSONObject(%q) = %q, %v; want %q, %v", tt.text, got, ok, tt.want, tt.ok)
			}
		})
	}
	// Two objects among sentences: the span from the first "{" to the
	// last "}" is no JSON, so the object a person would read is taken.
	got, ok := sm.JSONObject([]byte(`I think {"a": 1,} is it, not {"b"`))
	if !ok || !strings.Contains(string(got), `"a"`) {
		t.Errorf("lenient fallback: %q, %v", got, ok)
	}
}

func TestFindingsProblemf(t *testing.T) {
	var f sm.Findings
	f.Problemf("a.md", "score %d is past %s", 11, "10")
	if want := []sm.Problem{{File: "a.md", Message: "score 11 is past 10"}}; !reflect.DeepEqual(f.Problems, want) || f.OK() {
		t.Errorf("Problems = %v, want %v", f.Problems, want)
	}
}

func TestRenderFileAndParseState(t *testing.T) {
	type st struct {
		Protocol string `json:"protocol"`
		Round    int    `json:"round"`
		Phase    string `json:"phase"`
	}
	data, err := sm.RenderFile(st{"duo", 2, "done"}, "# Motion\n\nIt rains.\n\n")
	if err != nil {
		t.Fatal(err)
	}
	want := "{\n  \"protocol\": \"duo\",\n  \"round\": 2,\n  \"phase\": \"done\"\n}\n\n# Motion\n\nIt rains.\n"
	if string(data) != want {
		t.Fatalf("RenderFile wrote\n%s\nwant\n%s", data, want)
	}
	var got st
	front, body, err := sm.ParseState(data, &got, "duo", "round", "phase")
	if err != nil || got != (st{"duo", 2, "done"}) || body != "# Motion\n\nIt rains.\n" || len(front.Fields) != 3 {
		t.Errorf("ParseState = %+v, %q, %v", got, body, err)
	}
	if _, _, err := sm.ParseState(data, &got, "duo", "round", "totals"); err == nil || !strings.Contains(err.Error(), `"totals"`) {
		t.Errorf("a missing key: %v", err)
	}
	// A field of the wrong type in another protocol's file: the missing
	// keys are said first, as they say why.
	other := []byte("{\n  \"round\": \"two\"\n}\n")
	if _, _, err := sm.ParseState(other, &got, "duo", "round", "phase"); err == nil || !strings.Contains(err.Error(), `"phase"`) {
		t.Errorf("another protocol's file: %v", err)
	}
	if _, _, err := sm.ParseState([]byte("{\n  \"round\": \"two\",\n  \"phase\": \"x\"\n}\n"), &got, "duo", "round", "phase"); err == nil || !strings.Contains(err.Error(), sm.StateFile) {
		t.Errorf("a bad field: %v, want an error naming %s", err, sm.StateFile)
	}
	if _, err := sm.FrontOf(func() {}); err == nil {
		t.Error("FrontOf took a value JSON cannot encode")
	}
}

func TestBlockquote(t *testing.T) {
	for _, tt := range []struct{ name, text, want string }{
		{"one paragraph", "It *rains*.", `> It \*rains\*.`},
		{"paragraphs", "One.\r\n\r\n  Two.  \n\n\n", "> One.\n>\n> Two."},
		{"empty", " \n\n ", "> (empty)"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := sm.Blockquote(tt.text); got != tt.want {
				t.Errorf("Blockquote(%q) = %q, want %q", tt.text, got, tt.want)
			}
		})
	}
}

func TestResearches(t *testing.T) {
	var c sm.Call
	c.Researches()
	if !c.Research || c.Cites == nil {
		t.Fatalf("call %+v does not research", c)
	}
	if got := c.Cites([]byte("As https://example.org/a says, and [b](https://example.org/b).")); len(got) != 2 {
		t.Errorf("Cites = %v, want the two pages cited", got)
	}
	if got := sm.Citations(sm.Answer{Text: []byte("x")}, "x", map[string]*evidence.Source{}); got != nil {
		t.Errorf("an answer that did not research was checked: %v", got)
	}
}
