package messy

import (
	"encoding/json"
	"reflect"
	"slices"
	"testing"

	"github.com/moot-dev/moot/internal/lenient"
)

// samples are right answers of the kinds moot asks for.
var samples = []string{
	`{"winner": "Archie", "scores": {"Archie": 8, "Bea": 6}}`,
	`{"score": 7, "reasoning": "Clear, with one gap:\nthe costs."}`,
	`{"scores": [{"argument_id": "prop_002", "score": 0.25, "reasoning": "r"}, {"argument_id": "opp_002", "score": -0.25, "reasoning": "it's \"weak\""}], "rescores": []}`,
	`{"critique": "c", "previous": [{"id": "R1.1", "status": "resolved", "note": ""}], "points": [{"severity": "minor", "text": "t"}], "score": 9, "ready": true}`,
	`{"has_direct_opposition": true, "has_specific_claim": false, "topic_relevant": true, "personas": ["Mara Okafor", "Jean-Luc Roy"], "topic": "Is it?", "short_label": "x"}`,
	`{"logic": {"score": 8, "justification": "j"}, "evidence": {"score": 6, "justification": "k"}}`,
	`[{"title": "t", "claim": "c", "grounds": [], "warrant": null}]`,
	`{"attacks": [{"target_id": "opp_001", "attack_type": "claim_attack", "content": "x"}], "previous": [{"id": "R1.2", "status": "partly_resolved"}]}`,
}

var cast = []string{"Archie", "Bea", "Mara Okafor", "Jean-Luc Roy"}

// read reads a styled answer back with lenient's readings, as the
// protocols do: the JSON found, scores on a scale to 10 (to 1 for
// dialectic's fractional ones), ids undressed, names matched to the cast.
func read(t *testing.T, styled string) any {
	t.Helper()
	body, ok := lenient.JSON([]byte(styled))
	if !ok {
		t.Fatalf("lenient.JSON found no JSON in %q", styled)
	}
	body = lenient.Numbers(body, func(p lenient.Path) float64 {
		if scoreKeys[p.Last()] || len(p) >= 2 && scoreMaps[p[len(p)-2]] || len(p) == 2 && p[1] == "score" {
			return 10
		}
		return 0
	})
	body = lenient.Bools(body, "ready", "has_direct_opposition", "has_specific_claim", "topic_relevant")
	body = lenient.Enums(body, "severity", []string{"critical", "major", "minor"})
	body = lenient.Enums(body, "status", []string{"resolved", "partly_resolved", "unresolved"})
	body = lenient.Enums(body, "attack_type", []string{"claim_attack", "grounds_attack"})
	body = lenient.Strings(body, func(p lenient.Path, s string) (json.RawMessage, bool) {
		switch {
		case idKeys[p.Last()]:
			b, _ := json.Marshal(lenient.Clean(s))
			return b, true
		case nameKeys[p.Last()]:
			if i, ok := lenient.Match(s, cast); ok {
				b, _ := json.Marshal(cast[i])
				return b, true
			}
		}
		return nil, false
	})
	var v any
	if err := json.Unmarshal(body, &v); err != nil {
		t.Fatalf("read %s: %v", body, err)
	}
	return v
}

// TestCatalogue: there are at least 30 styles, with distinct names; each
// applies to at least one right answer; and every answer a JSON style
// writes reads back, through lenient, as the right answer it was.
func TestCatalogue(t *testing.T) {
	styles := Styles()
	if len(styles) < 30 {
		t.Errorf("%d styles, want at least 30", len(styles))
	}
	seen := map[string]bool{}
	for _, s := range styles {
		if seen[s.Name] {
			t.Errorf("style %q is named twice", s.Name)
		}
		seen[s.Name] = true
		if s.Kind != JSON {
			continue
		}
		applied := false
		for _, answer := range samples {
			styled, ok := s.Apply(answer)
			if !ok {
				continue
			}
			applied = true
			if styled == answer {
				t.Errorf("%s: %s left as it was", s.Name, answer)
			}
			t.Run(s.Name, func(t *testing.T) {
				var want any
				if err := json.Unmarshal([]byte(answer), &want); err != nil {
					t.Fatal(err)
				}
				if got := read(t, styled); !reflect.DeepEqual(got, want) {
					t.Errorf("%q reads as %v, want %v", styled, got, want)
				}
			})
		}
		if !applied {
			t.Errorf("style %q applies to none of the samples", s.Name)
		}
	}
}

// TestNameStyles: every name style names the one debater it was given.
func TestNameStyles(t *testing.T) {
	two := []string{"Archie", "Bea"}
	for _, s := range Styles() {
		if s.Kind != Name {
			continue
		}
		for i, n := range two {
			styled, ok := s.Apply(n)
			if !ok {
				t.Fatalf("%s does not apply to %q", s.Name, n)
			}
			if got := lenient.Named(styled, two); !slices.Equal(got, []int{i}) {
				t.Errorf("%s: %q names %v, want [%d]", s.Name, styled, got, i)
			}
		}
	}
}

// TestRotation: answers of each kind take the styles in turn, each
// style that applies once before any twice; prose is left alone.
func TestRotation(t *testing.T) {
	r := NewRotation()
	applies := 0
	for _, s := range Styles() {
		if _, ok := s.Apply(samples[0]); ok {
			applies++
		}
	}
	for range applies {
		if _, name := r.Apply(samples[0]); name == "" {
			t.Fatalf("a JSON answer took no style")
		}
	}
	used := r.Used()
	if len(used) != applies {
		t.Errorf("%d answers took %d styles, want each of the %d that apply once: %v", applies, len(used), applies, used)
	}
	for name, n := range used {
		if n != 1 {
			t.Errorf("%s used %d times, want once", name, n)
		}
	}
	if out, name := r.Apply("Archie"); name == "" || out == "Archie" {
		t.Errorf("a name alone took style %q: %q", name, out)
	}
	prose := "I argue that cities should keep cars.\n\nHere is why."
	if out, name := r.Apply(prose); name != "" || out != prose {
		t.Errorf("prose took style %q: %q", name, out)
	}
}
