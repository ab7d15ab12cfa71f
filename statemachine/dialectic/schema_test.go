package dialectic_test

import (
	"encoding/json"
	"fmt"
	"slices"
	"testing"

	driver "github.com/moot-dev/moot/internal/driver"
	"github.com/moot-dev/moot/statemachine/dialectic"
	"github.com/moot-dev/moot/templates"
)

// at returns the part of schema at path: property names, and "[]" for an
// array's items.
func at(t *testing.T, schema map[string]any, path ...string) map[string]any {
	t.Helper()
	raw, err := json.Marshal(schema)
	if err != nil {
		t.Fatal(err)
	}
	var s map[string]any
	if err := json.Unmarshal(raw, &s); err != nil {
		t.Fatal(err)
	}
	for _, p := range path {
		var next any
		if p == "[]" {
			next = s["items"]
		} else {
			props, _ := s["properties"].(map[string]any)
			next = props[p]
		}
		var ok bool
		if s, ok = next.(map[string]any); !ok {
			t.Fatalf("the schema has nothing at %v", path)
		}
	}
	return s
}

func enumOf(s map[string]any) []string {
	var out []string
	for _, v := range s["enum"].([]any) {
		out = append(out, v.(string))
	}
	return out
}

func counts(s map[string]any) string { return fmt.Sprint(s["minItems"], s["maxItems"]) }

// TestCallSchemas: each call's schema names what the debate has at that
// moment: a rebuttal attacks only the opponent's earlier arguments and
// defends only its own side's, an opening neither, and a judgment scores
// exactly the exchange's arguments and rescores only earlier ones.
func TestCallSchemas(t *testing.T) {
	d := example(t)
	deb := load(t, d)
	p, err := dialectic.Debater(templates.Default(), deb, dialectic.Prop)
	if err != nil {
		t.Fatal(err)
	}
	attack, defend := at(t, p.Schema, "attacks"), at(t, p.Schema, "defends")
	if got := enumOf(at(t, attack, "[]", "target_id")); !slices.Equal(got, []string{"opp_000a", "opp_000b", "opp_000c", "opp_001"}) {
		t.Errorf("attack targets %q", got)
	}
	if got := enumOf(at(t, defend, "[]", "target_id")); !slices.Equal(got, []string{"prop_000a", "prop_000b", "prop_000c", "prop_001"}) {
		t.Errorf("defence targets %q", got)
	}
	if counts(attack) != "<nil> 3" || counts(defend) != "<nil> 2" {
		t.Errorf("attacks %s, defends %s", counts(attack), counts(defend))
	}

	opening := dialectic.OpeningSchema()
	if c := counts(at(t, opening, "arguments")); c != "3 3" {
		t.Errorf("an opening holds %s arguments", c)
	}
	for _, k := range []string{"attacks", "defends"} {
		if c := counts(at(t, opening, "arguments", "[]", k)); c != "<nil> 0" {
			t.Errorf("an opening's %s: %s", k, c)
		}
	}

	arg := `{"title": "A Rebuttal Of Five Words", "claim": "c", "grounds": [{"source": "s", "content": "g", "relevance": "r"}], "warrant": "w"}`
	if _, err := driver.HandStep(d, dialectic.Protocol{}, false, dialectic.HandArguments(2, []byte(arg), []byte(arg))); err != nil {
		t.Fatal(err)
	}
	j, err := dialectic.JudgePrompt(templates.Default(), load(t, d))
	if err != nil {
		t.Fatal(err)
	}
	scores, rescores := at(t, j.Schema, "scores"), at(t, j.Schema, "rescores")
	if got := enumOf(at(t, scores, "[]", "argument_id")); !slices.Equal(got, []string{"prop_002", "opp_002"}) || counts(scores) != "2 2" {
		t.Errorf("scores of %q, %s", got, counts(scores))
	}
	if s := at(t, scores, "[]", "score"); s["minimum"] != -1.0 || s["maximum"] != 1.0 {
		t.Errorf("a score's bounds: %v", s)
	}
	got := enumOf(at(t, rescores, "[]", "argument_id"))
	dialectic.SortIDs(got)
	if want := []string{"prop_000a", "prop_000b", "prop_000c", "opp_000a", "opp_000b", "opp_000c", "prop_001", "opp_001"}; !slices.Equal(got, want) || counts(rescores) != "<nil> 8" {
		t.Errorf("rescores of %q, %s; want %q", got, counts(rescores), want)
	}
}
