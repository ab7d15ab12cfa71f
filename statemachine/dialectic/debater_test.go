package dialectic_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/moot-dev/moot/statemachine/dialectic"
)

// words returns n filler words.
func words(n int) string {
	w := make([]string, n)
	for i := range w {
		w[i] = "word"
	}
	return strings.Join(w, " ")
}

// sub is a valid submission as a debater writes it; tests change a copy.
func sub() map[string]any {
	return map[string]any{
		"title":   "Pausing Frontier Work Buys Safety Time",
		"claim":   "A pause gives safety research the time it lacks.",
		"grounds": []any{ground()},
		"warrant": "Research that is behind needs time to catch up.",
	}
}

func ground() map[string]any {
	return map[string]any{
		"source":    "Survey of researchers, 2024",
		"content":   "Most respondents said alignment lags capability.",
		"relevance": "Shows the gap a pause would close.",
	}
}

func attack(target, typ string) map[string]any {
	return map[string]any{"target_id": target, "attack_type": typ, "content": "This is wrong because of the evidence."}
}

func defend(target, typ string) map[string]any {
	return map[string]any{"target_id": target, "defense_type": typ, "content": "This still stands because of the evidence."}
}

// with returns a copy of m with key set to v, or removed when v is del.
func with(m map[string]any, kv ...any) map[string]any {
	out := map[string]any{}
	for k, v := range m {
		out[k] = v
	}
	for i := 0; i < len(kv); i += 2 {
		if kv[i+1] == del {
			delete(out, kv[i].(string))
			continue
		}
		out[kv[i].(string)] = kv[i+1]
	}
	return out
}

type deleted struct{}

var del = deleted{}

func js(t testing.TB, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// debateKnown is a debate at exchange 2: the opening and exchange 1.
func debateKnown() dialectic.Known {
	k := dialectic.Known{}
	for _, side := range dialectic.Sides() {
		for _, id := range dialectic.ArgumentIDs(0, side) {
			k[id] = dialectic.Arg{Side: side, Exchange: 0}
		}
	}
	k["prop_001"] = dialectic.Arg{Side: dialectic.Prop, Exchange: 1, Targets: []string{"opp_000a"}}
	k["opp_001"] = dialectic.Arg{Side: dialectic.Opp, Exchange: 1, Targets: []string{"prop_000b"}}
	return k
}

// missingFrom returns the wanted substrings that no item of got contains.
func missingFrom(got []string, want []string) []string {
	var miss []string
	for _, w := range want {
		found := false
		for _, g := range got {
			if strings.Contains(g, w) {
				found = true
				break
			}
		}
		if !found {
			miss = append(miss, w)
		}
	}
	return miss
}

func TestParseSubmissions(t *testing.T) {
	opening := func(items ...any) string {
		if len(items) == 0 {
			items = []any{sub(), sub(), sub()}
		}
		return js(t, items)
	}
	tests := []struct {
		name     string
		side     dialectic.Side
		exchange int
		answer   string
		errs     []string // substrings each expected in some error; nil means accepted
		warns    []string // substrings each expected in some warning
		noWarn   bool     // the answer must give no warning at all
	}{
		// Shape: the opening is an array of exactly three.
		{name: "opening array of three", exchange: 0, answer: opening(), noWarn: true},
		{name: "opening array of two", exchange: 0, answer: opening(sub(), sub()), errs: []string{"exactly 3 arguments, found 2"}},
		{name: "opening array of four", exchange: 0, answer: opening(sub(), sub(), sub(), sub()), errs: []string{"exactly 3 arguments, found 4"}},
		{name: "opening as one object", exchange: 0, answer: js(t, sub()), errs: []string{"exactly 3 arguments, found 1"}},
		{name: "opening empty array", exchange: 0, answer: "[]", errs: []string{"found 0"}},
		// moot's opening template asks for {"arguments": [three]}.
		{name: "opening as arguments object", exchange: 0, answer: js(t, map[string]any{"arguments": []any{sub(), sub(), sub()}}), noWarn: true},
		{name: "opening as arguments object in a fence", exchange: 0, answer: "```json\n" + js(t, map[string]any{"arguments": []any{sub(), sub(), sub()}}) + "\n```", noWarn: true},
		{name: "opening as arguments object of two", exchange: 0, answer: js(t, map[string]any{"arguments": []any{sub(), sub()}}), errs: []string{"exactly 3 arguments, found 2"}},
		{name: "opening as arguments object with more keys", exchange: 0, answer: js(t, map[string]any{"arguments": []any{sub(), sub(), sub()}, "note": "x"}), errs: []string{"exactly 3 arguments, found 1"}},
		{name: "opening arguments element not an object", exchange: 0, answer: js(t, map[string]any{"arguments": []any{sub(), 7, sub()}}), errs: []string{"argument 2: must be a JSON object"}},
		// Models send a rebuttal in the opening's shape: its one argument is taken.
		{name: "rebuttal as arguments object", exchange: 2, answer: js(t, map[string]any{"arguments": []any{sub()}}), warns: []string{`took the one argument out of "arguments"`}},
		{name: "rebuttal as arguments object of two", exchange: 2, answer: js(t, map[string]any{"arguments": []any{sub(), sub()}}), errs: []string{`exchange 2 is a rebuttal: hand in one argument as a JSON object, not "arguments" holding 2`}},
		{name: "rebuttal as arguments object of none", exchange: 2, answer: js(t, map[string]any{"arguments": []any{}}), errs: []string{`not "arguments" holding 0`}},
		// Shape: a rebuttal is one object; an array of one is taken with a warning.
		{name: "rebuttal object", exchange: 2, answer: js(t, sub()), noWarn: true},
		{name: "rebuttal array of one", exchange: 2, answer: js(t, []any{sub()}), warns: []string{"expected a JSON object"}},
		{name: "rebuttal array of two", exchange: 2, answer: js(t, []any{sub(), sub()}), errs: []string{"one argument as a JSON object, not an array of 2"}},
		{name: "rebuttal empty array", exchange: 2, answer: "[]", errs: []string{"not an array of 0"}},
		// A string or null is JSON: the message says what was expected.
		{name: "a bare string", exchange: 2, answer: `"hello"`, errs: []string{"the answer must be a JSON object (or an array of three for the opening), found a string"}},
		{name: "a bare null", exchange: 2, answer: "null", errs: []string{"the answer must be a JSON object (or an array of three for the opening), found null"}},
		{name: "a bare number in the opening", exchange: 0, answer: " 42\n", errs: []string{"found a number"}},
		{name: "a string in a fence", exchange: 2, answer: "```json\n\"hello\"\n```", errs: []string{"must be a JSON object (or an array of three for the opening), found a string"}},
		{name: "a number in a fence", exchange: 2, answer: "```json\n42\n```", errs: []string{"found a number"}},
		{name: "null in a fence", exchange: 2, answer: "```json\nnull\n```", errs: []string{"found null"}},
		{name: "empty answer", exchange: 2, answer: "  \n", errs: []string{"the answer is empty"}},
		{name: "invalid JSON", exchange: 2, answer: `{"title": }`, errs: []string{"invalid JSON at line 1, column 11: invalid character '}'"}},
		{name: "invalid JSON on a later line", exchange: 2, answer: "{\n  \"title\": \"x\",\n  \"claim\": \"é\" \"y\"\n}", errs: []string{"invalid JSON at line 3, column 16: invalid character '\"' after object key:value pair"}},
		{name: "invalid JSON in a fence", exchange: 2, answer: "Here it is:\n\n```json\n{\n  \"title\": x\n}\n```\n", errs: []string{"invalid JSON at line 5, column 12: invalid character 'x'"}},
		{name: "truncated JSON", exchange: 2, answer: "{\"title\": \"x\"\n", errs: []string{"invalid JSON at line 1, column 14: the JSON ends before it is complete"}},
		{name: "two values", exchange: 2, answer: js(t, sub()) + js(t, sub()), errs: []string{"more than one value"}},
		{name: "duplicate key", exchange: 2, answer: `{"title": "a", "title": "b"}`, errs: []string{`key "title" appears twice`}},
		{name: "byte order mark", exchange: 2, answer: "\ufeff" + js(t, sub())},
		{name: "opening element not an object", exchange: 0, answer: opening(sub(), "x", sub()), errs: []string{"argument 2: must be a JSON object, found a string"}},

		// Fences.
		{name: "json fence with prose around", exchange: 2, answer: "Here it is:\n```json\n" + js(t, sub()) + "\n```\nThanks.", noWarn: true},
		{name: "plain fence", exchange: 2, answer: "```\n" + js(t, sub()) + "\n```"},
		{name: "JSON fence in capitals", exchange: 2, answer: "```JSON\n" + js(t, sub()) + "\n```"},
		// A person reads the JSON of these as the answer (see
		// internal/lenient): a fence of another language, one never
		// closed, sentences around the JSON.
		{name: "fence of another language", exchange: 2, answer: "```python\n" + js(t, sub()) + "\n```"},
		{name: "fence never closed", exchange: 2, answer: "```json\n" + js(t, sub())},
		{name: "sentences around the JSON", exchange: 2, answer: "Here is my rebuttal:\n" + js(t, sub()) + "\nI hope it helps."},
		{name: "a trailing comma", exchange: 2, answer: strings.TrimSuffix(js(t, sub()), "}") + ",}"},
		{name: "an attack type in capitals with a space", exchange: 2, answer: js(t, with(sub(), "attacks", []any{attack(" “opp_001” ", "Claim attack")}))},
		{name: "a fence of another language holding no JSON", exchange: 2, answer: "```python\nprint(1)\n```", errs: []string{`marked "python"`}},
		{name: "a fence never closed holding half a value", exchange: 2, answer: "```json\n{\"title\": ", errs: []string{"never closed"}},
		{name: "prose without JSON", exchange: 2, answer: "I refuse to argue.", errs: []string{"the answer is not JSON"}},

		// Required fields.
		{name: "title missing", exchange: 2, answer: js(t, with(sub(), "title", del)), errs: []string{"title: is required"}},
		{name: "claim missing", exchange: 2, answer: js(t, with(sub(), "claim", del)), errs: []string{"claim: is required"}},
		{name: "warrant missing", exchange: 2, answer: js(t, with(sub(), "warrant", del)), errs: []string{"warrant: is required"}},
		{name: "grounds missing", exchange: 2, answer: js(t, with(sub(), "grounds", del)), errs: []string{"grounds: is required"}},
		{name: "title null", exchange: 2, answer: js(t, with(sub(), "title", nil)), errs: []string{"title: is required"}},
		{name: "claim blank", exchange: 2, answer: js(t, with(sub(), "claim", "   ")), errs: []string{"claim: must not be empty"}},
		{name: "all required missing at once", exchange: 2, answer: `{}`, errs: []string{"title: is required", "claim: is required", "warrant: is required", "grounds: is required"}},
		{name: "opening names the argument", exchange: 0, answer: opening(sub(), with(sub(), "warrant", del), sub()), errs: []string{"argument 2: warrant: is required"}},

		// Grounds: 1 to 3, each with source, content and relevance.
		{name: "no grounds", exchange: 2, answer: js(t, with(sub(), "grounds", []any{})), errs: []string{"grounds: must hold 1 to 3 grounds, found 0"}},
		{name: "three grounds", exchange: 2, answer: js(t, with(sub(), "grounds", []any{ground(), ground(), ground()})), noWarn: true},
		{name: "four grounds", exchange: 2, answer: js(t, with(sub(), "grounds", []any{ground(), ground(), ground(), ground()})), errs: []string{"found 4"}},
		{name: "ground without source", exchange: 2, answer: js(t, with(sub(), "grounds", []any{ground(), with(ground(), "source", del)})), errs: []string{"grounds[1].source: is required"}},
		{name: "ground without content", exchange: 2, answer: js(t, with(sub(), "grounds", []any{with(ground(), "content", del)})), errs: []string{"grounds[0].content: is required"}},
		{name: "ground without relevance", exchange: 2, answer: js(t, with(sub(), "grounds", []any{with(ground(), "relevance", "")})), errs: []string{"grounds[0].relevance: must not be empty"}},
		{name: "ground not an object", exchange: 2, answer: js(t, with(sub(), "grounds", []any{"a book"})), errs: []string{"grounds[0]: must be a JSON object, found a string"}},

		// Optional fields.
		{name: "backing and qualifier", exchange: 2, answer: js(t, with(sub(), "backing", "Decades of engineering practice.", "qualifier", "In most cases")), noWarn: true},
		{name: "backing null", exchange: 2, answer: js(t, with(sub(), "backing", nil)), noWarn: true},

		// Wrong JSON types name the field path.
		{name: "title a number", exchange: 2, answer: js(t, with(sub(), "title", 5)), errs: []string{"title: must be a string, found a number"}},
		{name: "claim an array", exchange: 2, answer: js(t, with(sub(), "claim", []any{"x"})), errs: []string{"claim: must be a string, found an array"}},
		{name: "grounds an object", exchange: 2, answer: js(t, with(sub(), "grounds", ground())), errs: []string{"grounds: must be an array, found an object"}},
		{name: "ground content a boolean", exchange: 2, answer: js(t, with(sub(), "grounds", []any{ground(), with(ground(), "content", true)})), errs: []string{"grounds[1].content: must be a string, found a boolean"}},
		{name: "backing a number", exchange: 2, answer: js(t, with(sub(), "backing", 3)), errs: []string{"backing: must be a string, found a number"}},
		{name: "qualifier an object", exchange: 2, answer: js(t, with(sub(), "qualifier", map[string]any{})), errs: []string{"qualifier: must be a string, found an object"}},
		{name: "attacks a string", exchange: 2, answer: js(t, with(sub(), "attacks", "opp_001")), errs: []string{"attacks: must be an array, found a string"}},
		{name: "attack target a number", exchange: 2, answer: js(t, with(sub(), "attacks", []any{with(attack("opp_001", "claim_attack"), "target_id", 1)})), errs: []string{"attacks[0].target_id: must be a string, found a number"}},
		{name: "defence not an object", exchange: 2, answer: js(t, with(sub(), "defends", []any{"prop_001"})), errs: []string{"defends[0]: must be a JSON object, found a string"}},
		{name: "opening wrong type names argument and path", exchange: 0, answer: opening(sub(), sub(), with(sub(), "grounds", []any{with(ground(), "source", 7)})), errs: []string{"argument 3: grounds[0].source: must be a string, found a number"}},

		// Attacks 0-3, defends 0-2.
		{name: "three attacks", exchange: 2, answer: js(t, with(sub(), "attacks", []any{attack("opp_001", "claim_attack"), attack("opp_000a", "grounds_attack"), attack("opp_000b", "warrant_attack")})), noWarn: true},
		{name: "four attacks", exchange: 2, answer: js(t, with(sub(), "attacks", []any{attack("opp_001", "claim_attack"), attack("opp_000a", "grounds_attack"), attack("opp_000b", "warrant_attack"), attack("opp_000c", "backing_attack")})), errs: []string{"attacks: at most 3 allowed, found 4"}},
		{name: "two defences", exchange: 2, answer: js(t, with(sub(), "defends", []any{defend("prop_001", "reinforce"), defend("prop_000a", "clarify")})), noWarn: true},
		{name: "three defences", exchange: 2, answer: js(t, with(sub(), "defends", []any{defend("prop_001", "reinforce"), defend("prop_000a", "clarify"), defend("prop_000b", "concede_and_pivot")})), errs: []string{"defends: at most 2 allowed, found 3"}},
		{name: "empty attacks and defends", exchange: 2, answer: js(t, with(sub(), "attacks", []any{}, "defends", []any{})), noWarn: true},

		// Types.
		{name: "unknown attack type", exchange: 2, answer: js(t, with(sub(), "attacks", []any{attack("opp_001", "ad_hominem")})), errs: []string{`attacks[0].attack_type: "ad_hominem" is not one of`}},
		{name: "defence type given as attack type", exchange: 2, answer: js(t, with(sub(), "attacks", []any{attack("opp_001", "reinforce")})), errs: []string{"attacks[0].attack_type"}},
		{name: "unknown defence type", exchange: 2, answer: js(t, with(sub(), "defends", []any{defend("prop_001", "claim_attack")})), errs: []string{`defends[0].defense_type: "claim_attack" is not one of`}},
		{name: "attack without type", exchange: 2, answer: js(t, with(sub(), "attacks", []any{with(attack("opp_001", "claim_attack"), "attack_type", del)})), errs: []string{"attacks[0].attack_type: is required"}},
		{name: "attack with type under the defence key", exchange: 2, answer: js(t, with(sub(), "attacks", []any{map[string]any{"target_id": "opp_001", "type": "claim_attack", "content": "x"}})), errs: []string{"attacks[0].attack_type: is required"}, warns: []string{`attacks[0]: ignored unknown key "type"`}},
		{name: "attack without content", exchange: 2, answer: js(t, with(sub(), "attacks", []any{with(attack("opp_001", "claim_attack"), "content", del)})), errs: []string{"attacks[0].content: is required"}},
		{name: "defence without target", exchange: 2, answer: js(t, with(sub(), "defends", []any{with(defend("prop_001", "clarify"), "target_id", del)})), errs: []string{"defends[0].target_id: is required"}},

		// Targets.
		{name: "attack own side", exchange: 2, answer: js(t, with(sub(), "attacks", []any{attack("prop_001", "claim_attack")})), errs: []string{"attacks[0].target_id: prop_001 is a proposition argument; you can only attack an opponent's arguments"}},
		{name: "opposition attacks own side", side: dialectic.Opp, exchange: 2, answer: js(t, with(sub(), "attacks", []any{attack("opp_000c", "claim_attack")})), errs: []string{"opp_000c is an opposition argument"}},
		{name: "opposition attacks proposition", side: dialectic.Opp, exchange: 2, answer: js(t, with(sub(), "attacks", []any{attack("prop_000c", "claim_attack")}))},
		{name: "defend opponent", exchange: 2, answer: js(t, with(sub(), "defends", []any{defend("opp_001", "reinforce")})), errs: []string{"defends[0].target_id: opp_001 is an opposition argument; you can only defend your own side's arguments"}},
		{name: "attack unknown argument", exchange: 2, answer: js(t, with(sub(), "attacks", []any{attack("opp_000d", "claim_attack")})), errs: []string{"attacks[0].target_id:", "not an argument id"}},
		{name: "attack argument that does not exist", exchange: 3, answer: js(t, with(sub(), "attacks", []any{attack("opp_002", "claim_attack")})), errs: []string{"opp_002 does not exist"}},
		{name: "attack a path", exchange: 2, answer: js(t, with(sub(), "attacks", []any{attack("../debate", "claim_attack")})), errs: []string{"not an argument id"}},
		{name: "attack a later exchange's id", exchange: 2, answer: js(t, with(sub(), "attacks", []any{attack("opp_009", "claim_attack")})), errs: []string{"attacks[0].target_id: opp_009 does not exist in this debate"}},
		{name: "attack same exchange", exchange: 2, answer: js(t, with(sub(), "attacks", []any{attack("opp_002", "claim_attack")})), errs: []string{"opp_002 is not from an earlier exchange"}},
		{name: "attack later exchange", exchange: 1, answer: js(t, with(sub(), "attacks", []any{attack("opp_001", "claim_attack")})), errs: []string{"opp_001 is not from an earlier exchange; you can only attack arguments from exchanges 0 to 0"}},
		{name: "defend same exchange", exchange: 2, answer: js(t, with(sub(), "defends", []any{defend("prop_002", "clarify")})), errs: []string{"prop_002 is not from an earlier exchange"}},
		{name: "opening attacks", exchange: 0, answer: opening(sub(), with(sub(), "attacks", []any{attack("opp_000a", "claim_attack")}), sub()), errs: []string{"argument 2: attacks[0].target_id: the opening attacks and defends nothing"}},
		{name: "opening defends", exchange: 0, answer: opening(with(sub(), "defends", []any{defend("prop_000b", "reinforce")}), sub(), sub()), errs: []string{"argument 1: defends[0].target_id: the opening attacks and defends nothing"}},
		{name: "same attack twice", exchange: 2, answer: js(t, with(sub(), "attacks", []any{attack("opp_001", "claim_attack"), attack("opp_001", "claim_attack")})), warns: []string{"attacks opp_001 twice with claim_attack"}},

		// Soft limits warn and accept.
		{name: "title too short", exchange: 2, answer: js(t, with(sub(), "title", "Pause now")), warns: []string{"title: 2 words, outside the soft limit of 5-7"}},
		{name: "title of one word", exchange: 2, answer: js(t, with(sub(), "title", "Pause")), warns: []string{"title: 1 word, outside the soft limit of 5-7"}},
		{name: "title too long", exchange: 2, answer: js(t, with(sub(), "title", words(8))), warns: []string{"title: 8 words"}},
		{name: "title of five and seven words", exchange: 2, answer: js(t, []any{with(sub(), "title", words(5))}), warns: []string{"expected a JSON object"}},
		{name: "claim at its limit", exchange: 2, answer: js(t, with(sub(), "title", words(7), "claim", words(25))), noWarn: true},
		{name: "claim over its limit", exchange: 2, answer: js(t, with(sub(), "claim", words(26))), warns: []string{"claim: 26 words, over the soft limit of 25"}},
		{name: "ground content over its limit", exchange: 2, answer: js(t, with(sub(), "grounds", []any{with(ground(), "content", words(101))})), warns: []string{"grounds[0].content: 101 words, over the soft limit of 100"}},
		{name: "ground content at its limit", exchange: 2, answer: js(t, with(sub(), "grounds", []any{with(ground(), "content", words(100), "relevance", words(30))})), noWarn: true},
		{name: "ground relevance over its limit", exchange: 2, answer: js(t, with(sub(), "grounds", []any{with(ground(), "relevance", words(31))})), warns: []string{"grounds[0].relevance: 31 words"}},
		{name: "warrant over its limit", exchange: 2, answer: js(t, with(sub(), "warrant", words(51))), warns: []string{"warrant: 51 words, over the soft limit of 50"}},
		{name: "backing over its limit", exchange: 2, answer: js(t, with(sub(), "backing", words(51))), warns: []string{"backing: 51 words"}},
		{name: "qualifier over its limit", exchange: 2, answer: js(t, with(sub(), "qualifier", words(11))), warns: []string{"qualifier: 11 words, over the soft limit of 10"}},
		{name: "attack content over its limit", exchange: 2, answer: js(t, with(sub(), "attacks", []any{with(attack("opp_001", "claim_attack"), "content", words(76))})), warns: []string{"attacks[0].content: 76 words, over the soft limit of 75"}},
		{name: "defence content over its limit", exchange: 2, answer: js(t, with(sub(), "defends", []any{with(defend("prop_001", "clarify"), "content", words(76))})), warns: []string{"defends[0].content: 76 words"}},

		// Unknown keys warn and accept.
		{name: "unknown top-level key", exchange: 2, answer: js(t, with(sub(), "confidence", 0.9)), warns: []string{`ignored unknown key "confidence"`}},
		{name: "unknown key in a ground", exchange: 2, answer: js(t, with(sub(), "grounds", []any{with(ground(), "url", "https://example.org")})), warns: []string{`grounds[0]: ignored unknown key "url"`}},
		{name: "unknown key in an attack", exchange: 2, answer: js(t, with(sub(), "attacks", []any{with(attack("opp_001", "claim_attack"), "strength", 3)})), warns: []string{`attacks[0]: ignored unknown key "strength"`}},
		{name: "unknown key in an opening argument", exchange: 0, answer: opening(sub(), sub(), with(sub(), "id", "prop_000c")), warns: []string{`argument 3: ignored unknown key "id"`}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			side := tc.side
			if side == "" {
				side = dialectic.Prop
			}
			subs, p := dialectic.ParseSubmissions([]byte(tc.answer), side, tc.exchange, debateKnown())
			if tc.errs == nil {
				if !p.OK() {
					t.Fatalf("refused, want accepted: %q", p.Errors)
				}
				if len(subs) != dialectic.ArgumentsPerSide(tc.exchange) {
					t.Fatalf("got %d submissions, want %d", len(subs), dialectic.ArgumentsPerSide(tc.exchange))
				}
			} else {
				if p.OK() {
					t.Fatalf("accepted, want errors %q", tc.errs)
				}
				if subs != nil {
					t.Errorf("refused answer still returned %d submissions", len(subs))
				}
				if miss := missingFrom(p.Errors, tc.errs); len(miss) > 0 {
					t.Errorf("errors %q\nlack %q", p.Errors, miss)
				}
			}
			if miss := missingFrom(p.Warnings, tc.warns); len(miss) > 0 {
				t.Errorf("warnings %q\nlack %q", p.Warnings, miss)
			}
			if tc.noWarn && len(p.Warnings) > 0 {
				t.Errorf("unexpected warnings %q", p.Warnings)
			}
		})
	}
}

func TestParseSubmissionsEveryType(t *testing.T) {
	for _, typ := range dialectic.AttackTypes() {
		t.Run(typ, func(t *testing.T) {
			answer := js(t, with(sub(), "attacks", []any{attack("opp_001", typ)}))
			subs, p := dialectic.ParseSubmissions([]byte(answer), dialectic.Prop, 2, debateKnown())
			if !p.OK() {
				t.Fatalf("refused: %q", p.Errors)
			}
			if got := subs[0].Attacks[0].Type; got != typ {
				t.Errorf("type %q, want %q", got, typ)
			}
		})
	}
	for _, typ := range dialectic.DefenceTypes() {
		t.Run(typ, func(t *testing.T) {
			answer := js(t, with(sub(), "defends", []any{defend("prop_000c", typ)}))
			subs, p := dialectic.ParseSubmissions([]byte(answer), dialectic.Prop, 2, debateKnown())
			if !p.OK() {
				t.Fatalf("refused: %q", p.Errors)
			}
			if got := subs[0].Defends[0].Type; got != typ {
				t.Errorf("type %q, want %q", got, typ)
			}
		})
	}
	if len(dialectic.AttackTypes()) != 4 || len(dialectic.DefenceTypes()) != 3 {
		t.Errorf("types %v and %v differ from FORMAT.md", dialectic.AttackTypes(), dialectic.DefenceTypes())
	}
}

// TestParseSubmissionsContent checks that what the debater wrote is what
// the submission holds, field by field.
func TestParseSubmissionsContent(t *testing.T) {
	in := with(sub(),
		"backing", "Engineering practice.",
		"qualifier", "Usually",
		"grounds", []any{ground(), with(ground(), "source", "Second source", "content", "Line one.\nLine two.")},
		"attacks", []any{attack("opp_001", "warrant_attack")},
		"defends", []any{defend("prop_000a", "concede_and_pivot")},
		"extra", "dropped",
	)
	subs, p := dialectic.ParseSubmissions([]byte(js(t, in)), dialectic.Prop, 2, debateKnown())
	if !p.OK() {
		t.Fatalf("refused: %q", p.Errors)
	}
	s := subs[0]
	if s.Title != in["title"] || s.Claim != in["claim"] || s.Warrant != in["warrant"] || s.Backing != "Engineering practice." || s.Qualifier != "Usually" {
		t.Errorf("text fields: %+v", s)
	}
	if len(s.Grounds) != 2 || s.Grounds[1].Source != "Second source" || s.Grounds[1].Content != "Line one.\nLine two." || s.Grounds[0].Relevance != ground()["relevance"] {
		t.Errorf("grounds: %+v", s.Grounds)
	}
	want := dialectic.Link{TargetID: "opp_001", Type: "warrant_attack", Content: "This is wrong because of the evidence."}
	if len(s.Attacks) != 1 || s.Attacks[0] != want {
		t.Errorf("attacks: %+v", s.Attacks)
	}
	if len(s.Defends) != 1 || s.Defends[0].TargetID != "prop_000a" || s.Defends[0].Type != "concede_and_pivot" {
		t.Errorf("defends: %+v", s.Defends)
	}

	// The opening keeps the order the debater gave.
	three := js(t, []any{with(sub(), "title", "First"), with(sub(), "title", "Second"), with(sub(), "title", "Third")})
	subs, p = dialectic.ParseSubmissions([]byte(three), dialectic.Opp, 0, dialectic.Known{})
	if !p.OK() {
		t.Fatalf("refused: %q", p.Errors)
	}
	for i, want := range []string{"First", "Second", "Third"} {
		if subs[i].Title != want {
			t.Errorf("argument %d title %q, want %q", i+1, subs[i].Title, want)
		}
	}
}

func TestExtractJSON(t *testing.T) {
	tests := []struct {
		in, want string
		err      bool
	}{
		{in: `{"a":1}`, want: `{"a":1}`},
		{in: "  [1]\n", want: `[1]`},
		{in: "Sure.\n```json\n{\"a\": 1}\n```\n", want: `{"a": 1}`},
		{in: "```\n[2]\n```", want: `[2]`},
		{in: "```json\n{}\n```\n```json\n[]\n```", want: `{}`},
		{in: "```yaml\na: 1\n```", err: true},
		{in: "```json", err: true},
		{in: "```json\n{}", err: true},
		{in: "", err: true},
		{in: "nothing here", err: true},
	}
	for _, tc := range tests {
		t.Run(tc.in, func(t *testing.T) {
			got, err := dialectic.ExtractJSON([]byte(tc.in))
			if tc.err {
				if err == nil {
					t.Fatalf("got %q, want an error", got)
				}
				return
			}
			if err != nil || string(got) != tc.want {
				t.Fatalf("got %q, %v; want %q", got, err, tc.want)
			}
		})
	}
}

// TestSoftWarnings checks that warnings about soft length limits are told
// apart from the others: moot debate-ops leaves them out of the result
// object it prints as dialectic did.
func TestSoftWarnings(t *testing.T) {
	long := strings.Repeat("word ", 30)
	answer := js(t, with(with(sub(), "claim", long), "extra", 1))
	_, p := dialectic.ParseSubmissions([]byte(answer), dialectic.Prop, 2, debateKnown())
	if !p.OK() {
		t.Fatalf("refused: %q", p.Errors)
	}
	if len(p.Soft) != 1 || !strings.Contains(p.Soft[0], "claim: 30 words") {
		t.Errorf("soft warnings %q, want the claim's length only", p.Soft)
	}
	if len(p.Warnings) != 2 {
		t.Errorf("warnings %q, want the unknown key and the claim's length", p.Warnings)
	}
	var q dialectic.Problems
	q.Add("proposition: ", p)
	if len(q.Soft) != 1 || !strings.HasPrefix(q.Soft[0], "proposition: claim") {
		t.Errorf("Add gives soft warnings %q", q.Soft)
	}
}
