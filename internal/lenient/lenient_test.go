package lenient

import (
	"encoding/json"
	"slices"
	"testing"
)

func TestJSON(t *testing.T) {
	const obj = `{"score": 7, "reasoning": "fine"}`
	for _, tc := range []struct {
		name, in, want string
	}{
		{"bare", obj, obj},
		{"spaces and a byte order mark", "\ufeff  \n" + obj + "\n\n", obj},
		{"crlf", "{\r\n  \"a\": 1\r\n}\r\n", "{\r\n  \"a\": 1\r\n}"},
		{"json fence", "```json\n" + obj + "\n```", obj},
		{"fence without a tag", "```\n" + obj + "\n```", obj},
		{"fence tagged JSON5", "```JSON5\n" + obj + "\n```", obj},
		{"fence never closed", "```json\n" + obj, obj},
		{"sentence before", "Here is my answer: " + obj, obj},
		{"sentence after", obj + "\nI hope this helps!", obj},
		{"sentences both sides", "Sure!\n" + obj + "\nLet me know.", obj},
		{"prose and a fence", "Here is the JSON you asked for:\n\n```json\n" + obj + "\n```\n\nThe score reflects the argument.", obj},
		{"citation bracket before", "As [1] says: " + obj, obj},
		{"long list before", "Scores [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15]: {\"a\": 1}", `{"a": 1}`},
		{"array", `Result: [{"a": 1}, {"a": 2}] done`, `[{"a": 1}, {"a": 2}]`},
		{"braces in prose after", obj + " (see {this})", obj},
		{"trailing comma", `{"a": 1, "b": [1, 2,],}`, `{"a": 1, "b": [1, 2]}`},
		{"single quotes", `{'a': 'it\'s', 'b': 'say "hi"'}`, `{"a": "it's", "b": "say \"hi\""}`},
		{"apostrophe inside single quotes", `{'a': 'it's fine'}`, `{"a": "it's fine"}`},
		{"smart quotes", `{“winner”: “Archie”}`, `{"winner": "Archie"}`},
		{"smart single quotes", `{‘winner’: ‘Archie’}`, `{"winner": "Archie"}`},
		{"bare key", `{score: 7}`, `{"score": 7}`},
		{"bare fraction", `{"score": 8/10}`, `{"score": "8/10"}`},
		{"python literals", `{"a": True, "b": False, "c": None}`, `{"a": true, "b": false, "c": null}`},
		{"comments", "{\n\"a\": 1, // the score\n/* why */ \"b\": 2}", "{\n\"a\": 1, \n \"b\": 2}"},
		{"raw line end in a string", "{\"a\": \"one\ntwo\"}", `{"a": "one\ntwo"}`},
		{"plus sign", `{"a": +3}`, `{"a": 3}`},
		{"a string alone", `"Archie"`, `"Archie"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := JSON([]byte(tc.in))
			if !ok {
				t.Fatalf("JSON(%q) found nothing, want %s", tc.in, tc.want)
			}
			if string(got) != tc.want {
				t.Errorf("JSON(%q) = %s, want %s", tc.in, got, tc.want)
			}
			if !json.Valid(got) {
				t.Errorf("JSON(%q) = %s, which is not valid JSON", tc.in, got)
			}
		})
	}
	for _, in := range []string{"", "   ", "no JSON here", "{never closed", "```json\nnot json\n```", `{"a": [1, 2}`, `{"a": nope}`, `{"a": 1} or {"a": 2}`, "```json\n{\"a\": 1}{\"a\": 2}\n```", "{\"a\": \"\xff\"}"} {
		if got, ok := JSON([]byte(in)); ok {
			t.Errorf("JSON(%q) = %s, want nothing found", in, got)
		}
	}
}

func TestNumber(t *testing.T) {
	for _, tc := range []struct {
		in   string
		max  float64
		want float64
		ok   bool
	}{
		{"7", 10, 7, true},
		{" 7 ", 10, 7, true},
		{"7.0", 10, 7, true},
		{"-0.5", 1, -0.5, true},
		{"+0.5", 1, 0.5, true},
		{"**7**", 10, 7, true},
		{"8/10", 10, 8, true},
		{"7 / 10", 10, 7, true},
		{"8 out of 10", 10, 8, true},
		{"8 Out Of 10", 10, 8, true},
		{"4/5", 10, 8, true},
		{"8/10", 1, 0.8, true},
		{"7/10", 10, 7, true},
		{"9.5/10", 10, 9.5, true},
		{"11/10", 10, 0, false},
		{"8/0", 10, 0, false},
		{"-1/10", 10, 0, false},
		{"seven", 10, 0, false},
		{"", 10, 0, false},
		{"NaN", 10, 0, false},
		{"Inf", 10, 0, false},
		{"0x10", 10, 0, false},
		{"1_0", 10, 0, false},
		{"8/10 because", 10, 0, false},
	} {
		t.Run(tc.in, func(t *testing.T) {
			got, ok := Number(tc.in, tc.max)
			if ok != tc.ok || got != tc.want {
				t.Errorf("Number(%q, %g) = %g, %t; want %g, %t", tc.in, tc.max, got, ok, tc.want, tc.ok)
			}
		})
	}
}

func TestNumbers(t *testing.T) {
	scale := func(p Path) float64 {
		switch {
		case p.Last() == "score":
			return 10
		case len(p) == 2 && p[0] == "unit":
			return 1
		}
		return 0
	}
	for _, tc := range []struct{ name, in, want string }{
		{"unchanged", `{"score": 7, "reasoning": "7/10"}`, `{"score": 7, "reasoning": "7/10"}`},
		{"string score", `{"score": "7", "reasoning": "x"}`, `{"score": 7, "reasoning": "x"}`},
		{"fraction", `{"scores": [{"score": "8/10"}, {"score":"6 out of 10"}]}`, `{"scores": [{"score": 8}, {"score":6}]}`},
		{"nested scale", `{"unit": {"a": "8/10"}}`, `{"unit": {"a": 0.8}}`},
		{"unreadable kept", `{"score": "high"}`, `{"score": "high"}`},
		{"escapes kept", `{"r": "a \"quote\"", "score": "9"}`, `{"r": "a \"quote\"", "score": 9}`},
		{"invalid kept", `{"score": "9"`, `{"score": "9"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := string(Numbers([]byte(tc.in), scale)); got != tc.want {
				t.Errorf("Numbers(%s) = %s, want %s", tc.in, got, tc.want)
			}
		})
	}
}

func TestClean(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"Archie", "Archie"},
		{"  Archie \n", "Archie"},
		{"**Archie**", "Archie"},
		{"“Archie”", "Archie"},
		{"'Archie'.", "Archie"},
		{"`P1.2`", "P1.2"},
		{"P1.2.", "P1.2"},
		{"[Archie]", "Archie"},
		{"_Archie_!", "Archie"},
		{"Jean-Luc Picard", "Jean-Luc Picard"},
	} {
		if got := Clean(tc.in); got != tc.want {
			t.Errorf("Clean(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestMatch(t *testing.T) {
	cast := []string{"Archie", "Chen", "Dr. Okafor", "Jean-Luc Picard"}
	for _, tc := range []struct {
		in    string
		names []string
		want  int
		ok    bool
	}{
		{"Archie", cast, 0, true},
		{"archie ", cast, 0, true},
		{"**ARCHIE**", cast, 0, true},
		{"“Archie”", cast, 0, true},
		{"Prof. Chen", cast, 1, true},
		{"Professor Chen", cast, 1, true},
		{"Okafor", cast, 2, true},
		{"Dr Okafor", cast, 2, true},
		{"Dr. Okafor", cast, 2, true},
		{"Jean–Luc Picard", cast, 3, true},
		{"Prof. Chen", []string{"Chen", "Dr. Chen"}, 0, false},
		{"Dr. Chen", []string{"Chen", "Dr. Chen"}, 1, true},
		{"Chen", []string{"Chen", "Dr. Chen"}, 0, true},
		{"Bea", cast, 0, false},
		{"", cast, 0, false},
		{"Archie Chen", cast, 0, false},
	} {
		t.Run(tc.in, func(t *testing.T) {
			got, ok := Match(tc.in, tc.names)
			if ok != tc.ok || (ok && got != tc.want) {
				t.Errorf("Match(%q, %q) = %d, %t; want %d, %t", tc.in, tc.names, got, ok, tc.want, tc.ok)
			}
		})
	}
}

func TestNamed(t *testing.T) {
	two := []string{"Archie", "Bea"}
	for _, tc := range []struct {
		in    string
		names []string
		want  []int
	}{
		{"Archie", two, []int{0}},
		{"The winner is Archie.", two, []int{0}},
		{"**Archie** wins", two, []int{0}},
		{"THE WINNER IS BEA  \n", two, []int{1}},
		{"Archie's case was stronger.", two, []int{0}},
		{"Archie beat Bea.", two, []int{0, 1}},
		{"Neither.", two, nil},
		{"Archibald", two, nil},
		{"Beatrice wins", two, nil},
		{"Prof. Chen wins", []string{"Chen", "Prof. Chen"}, []int{1}},
		{"Chen wins over Prof. Chen", []string{"Chen", "Prof. Chen"}, []int{0, 1}},
		{"Zoë wins", []string{"Zoë", "Ann"}, []int{0}},
		{"Zoëy wins", []string{"Zoë", "Ann"}, nil},
	} {
		t.Run(tc.in, func(t *testing.T) {
			if got := Named(tc.in, tc.names); !slices.Equal(got, tc.want) {
				t.Errorf("Named(%q, %q) = %v, want %v", tc.in, tc.names, got, tc.want)
			}
		})
	}
}

func TestUntitled(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"Prof. Chen", "chen"},
		{"  **Dr Maya  Okafor** ", "maya okafor"},
		{"Professor Sir Ian Blair", "ian blair"},
		{"Judge", "judge"},
		{"Chen", "chen"},
	} {
		if got := Untitled(tc.in); got != tc.want {
			t.Errorf("Untitled(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestStripTitles(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"Prof. Mara Okafor", "Mara Okafor"},
		{"Dr Sir Ian", "Ian"},
		{"Mara Okafor", "Mara Okafor"},
		{"Judge", "Judge"},
		{"Judge Okafor", "Okafor"},
	} {
		if got := StripTitles(tc.in); got != tc.want {
			t.Errorf("StripTitles(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// FuzzJSON: whatever the answer, JSON never panics, and what it finds is
// valid JSON that Numbers and Strings keep valid.
func FuzzJSON(f *testing.F) {
	for _, s := range []string{
		`{"a": 1}`, "Here: ```json\n{'a': 'b',}\n```", `{“a”: 8/10, b: True} // c`, "{\"a\": \"x\ny\"}", `[1, 2,]`, `{{{`, "```", `{'a': 'it's'}`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		body, ok := JSON([]byte(s))
		if !ok {
			return
		}
		if !json.Valid(body) {
			t.Fatalf("JSON(%q) = %q, not valid JSON", s, body)
		}
		n := Numbers(body, func(Path) float64 { return 10 })
		if !json.Valid(n) {
			t.Fatalf("Numbers(%q) = %q, not valid JSON", body, n)
		}
		c := Strings(n, func(_ Path, s string) (json.RawMessage, bool) {
			b, _ := json.Marshal(Clean(s))
			return b, true
		})
		if !json.Valid(c) {
			t.Fatalf("Strings(%q) = %q, not valid JSON", n, c)
		}
	})
}

func TestEnum(t *testing.T) {
	statuses := []string{"resolved", "partly_resolved", "unresolved"}
	for _, tc := range []struct{ in, want string }{
		{"resolved", "resolved"},
		{"Resolved", "resolved"},
		{" **RESOLVED** ", "resolved"},
		{"partly resolved", "partly_resolved"},
		{"Partly-Resolved", "partly_resolved"},
		{"partly", ""},
		{"", ""},
	} {
		got, ok := Enum(tc.in, statuses)
		if ok != (tc.want != "") || got != tc.want {
			t.Errorf("Enum(%q) = %q, %t; want %q", tc.in, got, ok, tc.want)
		}
	}
}

func TestBools(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{`{"ready": true, "x": "yes"}`, `{"ready": true, "x": "yes"}`},
		{`{"ready": "true", "x": "yes"}`, `{"ready": true, "x": "yes"}`},
		{`{"ready": " No ", "b": ["YES"]}`, `{"ready": false, "b": [true]}`},
		{`{"ready": "maybe"}`, `{"ready": "maybe"}`},
	} {
		if got := string(Bools([]byte(tc.in), "ready", "b")); got != tc.want {
			t.Errorf("Bools(%s) = %s, want %s", tc.in, got, tc.want)
		}
	}
}

func TestEnums(t *testing.T) {
	in := `{"points": [{"severity": "Critical"}, {"severity": "minor"}, {"severity": "huge"}], "other": "Critical"}`
	want := `{"points": [{"severity": "critical"}, {"severity": "minor"}, {"severity": "huge"}], "other": "Critical"}`
	if got := string(Enums([]byte(in), "severity", []string{"critical", "major", "minor"})); got != want {
		t.Errorf("Enums = %s, want %s", got, want)
	}
}
