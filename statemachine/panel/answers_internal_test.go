package panel

import "testing"

// TestResolveAsWritten: a persona named as models write names (spaces,
// quotes, emphasis, a title the cast does not give) is that persona, when
// exactly one of the panel is; a title that fits two stays unresolved.
func TestResolveAsWritten(t *testing.T) {
	ps := []Persona{{ID: "mara", Name: "Mara Okafor"}, {ID: "chen", Name: "Chen"}, {ID: "ivo", Name: "Ivo Lind"}}
	for _, tc := range []struct {
		name, want string
	}{
		{"Mara Okafor", "mara"},
		{"  “Mara Okafor” ", "mara"},
		{"**Chen**", "chen"},
		{"Prof. Chen", "chen"},
		{"Dr. Okafor", "mara"},
		{"Dr Ivo Lind.", "ivo"},
		{"Prof. Nobody", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			id, ok := resolve(tc.name, ps, "")
			if (tc.want == "") == ok || id != tc.want {
				t.Errorf("resolve(%q) = %q, %t; want %q", tc.name, id, ok, tc.want)
			}
		})
	}
	two := []Persona{{ID: "a", Name: "Ann Chen"}, {ID: "b", Name: "Bo Chen"}}
	if id, ok := resolve("Prof. Chen", two, ""); ok {
		t.Errorf("resolve(Prof. Chen) among two Chens = %q, want none", id)
	}
}

// TestDecodeAsWritten: a panel answer's JSON as models write it is read.
func TestDecodeAsWritten(t *testing.T) {
	for _, text := range []string{
		`{"crux_surfaced": true, "reason": "r"}`,
		"Here you go:\n```json\n{\"crux_surfaced\": true, \"reason\": \"r\"}\n```\nLet me know {if} anything else.",
		`{"crux_surfaced": true, "reason": "r",}`,
		`{“crux_surfaced”: true, “reason”: “r”}`,
		"\ufeff{'crux_surfaced': True, 'reason': 'r'}\r\n",
		`{"crux_surfaced": "true", "reason": "r"}`,
		`{"crux_surfaced": " Yes ", "reason": "r"}`,
	} {
		x, errs := parseExit([]byte(text))
		if len(errs) > 0 || !x.Surfaced || x.Reason != "r" {
			t.Errorf("parseExit(%q) = %+v, %v; want surfaced, reason r", text, x, errs)
		}
	}
}

// TestKindsAsWritten: a kind, type or position in capitals is the one it
// is; one that is none is still refused.
func TestKindsAsWritten(t *testing.T) {
	c, errs := parseConvergence([]byte(`{"core_disagreement": "d", "type": "Factual", "converged": "no"}`))
	if len(errs) > 0 || c.Kind != "factual" || c.Converged {
		t.Errorf("parseConvergence = %+v, %v; want factual, not converged", c, errs)
	}
	if _, errs := parseConvergence([]byte(`{"core_disagreement": "d", "type": "moral", "converged": false}`)); len(errs) == 0 {
		t.Errorf("type moral accepted, want refused")
	}
}
