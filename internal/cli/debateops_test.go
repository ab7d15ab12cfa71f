package cli

import (
	"errors"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestPyDumps checks the encoder that writes debate-ops' objects as
// Python's json.dumps wrote debate_ops' objects.
func TestPyDumps(t *testing.T) {
	tests := []struct {
		name   string
		v      any
		indent bool
		want   string
	}{
		{"compact object", pyObject{{"success", false}, {"side", "proposition"}, {"errors", []string{"a", "b"}}, {"warnings", nil}}, false,
			`{"success": false, "side": "proposition", "errors": ["a", "b"], "warnings": null}`},
		{"indented nesting", pyObject{{"a", pyObject{{"b", []string{"x"}}, {"c", "y"}}}, {"d", []string{}}}, true,
			"{\n  \"a\": {\n    \"b\": [\n      \"x\"\n    ],\n    \"c\": \"y\"\n  },\n  \"d\": []\n}"},
		{"non-ASCII and control characters escaped", "é—\"\\\n\t\x01\x7f😀", false, `"\u00e9\u2014\"\\\n\t\u0001\u007f\ud83d\ude00"`},
		{"floats as Python writes them", []float64{0.3, 1, -0.35, 0, 1e-05, 0.0001, 2.05, 1e16}, false, `[0.3, 1.0, -0.35, 0.0, 1e-05, 0.0001, 2.05, 1e+16]`},
		{"special floats", []float64{math.NaN(), math.Inf(1), math.Inf(-1)}, false, `[NaN, Infinity, -Infinity]`},
		{"empty object", pyObject{}, true, `{}`},
		{"ints beside floats", []any{pyInt(1), 0.0, pyInt(0), -0.5}, true, "[\n  1,\n  0.0,\n  0,\n  -0.5\n]"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := pyDumps(tc.v, tc.indent); got != tc.want {
				t.Errorf("got  %s\nwant %s", got, tc.want)
			}
		})
	}
}

// rebuttalJSON is a valid rebuttal for side at exchange 1.
func rebuttalJSON(side, target string) string {
	return `{"title": "The ` + side + ` rebuttal stands firm today", "claim": "It holds.", "grounds": [{"source": "S", "content": "C", "relevance": "R"}], "warrant": "W", "attacks": [{"target_id": "` + target + `", "attack_type": "claim_attack", "content": "No."}]}`
}

// TestDebateOps runs a debate through moot debate-ops and checks what
// dialectic's plugin relies on: the debate found relative to the working
// directory, the printed objects byte for byte, their streams, the exit
// statuses, and which answer files are removed. Plain process-* prints
// moot's own object for the same steps and keeps the files.
func TestDebateOps(t *testing.T) {
	root := newTestDebate(t, nil)
	t.Chdir(root)
	write := func(name, data string) string {
		t.Helper()
		if err := os.WriteFile(name, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
		return name
	}
	gone := func(name string) bool {
		_, err := os.Stat(name)
		return errors.Is(err, fs.ErrNotExist)
	}
	judge0 := `{"scores": [` +
		`{"argument_id": "opp_000a", "score": 0.1, "reasoning": "r"}, {"argument_id": "opp_000b", "score": -0.2, "reasoning": "r"}, {"argument_id": "opp_000c", "score": -0.7, "reasoning": "r"},` +
		`{"argument_id": "prop_000a", "score": 1, "reasoning": "r"}, {"argument_id": "prop_000b", "score": 0.0, "reasoning": "r"}, {"argument_id": "prop_000c", "score": -0.2, "reasoning": "r"}]}`
	steps := []struct {
		name           string
		args           []string
		files          map[string]string
		code           int
		stdout, stderr string
		// notes are lines moot prints on stderr besides the object.
		notes         []string
		removed, kept []string
	}{
		{
			name:  "a wrong command line keeps the files",
			args:  []string{"process-exchange", "tea", "0", "--prop-file", "p.json"},
			files: map[string]string{"p.json": openingJSON("tea")},
			code:  1, stderr: `{"success": false, "error": "usage: moot debate-ops process-exchange <debate> <exchange> --prop-file <path> --opp-file <path>"}` + "\n",
			kept: []string{"p.json"},
		},
		{
			name:  "a refused answer is removed, both files",
			args:  []string{"process-exchange", "tea", "0", "--prop-file", "p.json", "--opp-file", "o.json"},
			files: map[string]string{"p.json": "{\"title\": ", "o.json": openingJSON("coffee")},
			code:  1, stderr: `{"success": false, "side": "proposition", "errors": ["invalid JSON at line 1, column 10: the JSON ends before it is complete"], "warnings": null}` + "\n",
			removed: []string{"p.json", "o.json"},
		},
		{
			name:  "an opening prints lists by side",
			args:  []string{"process-exchange", "tea", "0", "--prop-file", "p.json", "--opp-file", "o.json"},
			files: map[string]string{"p.json": `{"arguments": ` + openingJSON("tea") + `}`, "o.json": openingJSON("coffee")},
			stdout: `{
  "success": true,
  "argument_id": {
    "proposition": [
      "prop_000a",
      "prop_000b",
      "prop_000c"
    ],
    "opposition": [
      "opp_000a",
      "opp_000b",
      "opp_000c"
    ]
  },
  "warnings": null
}
`,
			removed: []string{"p.json", "o.json"},
		},
		{
			name:  "a refused judgment prints on stdout and is removed",
			args:  []string{"process-judge", "tea", "--json-file", "j.json"},
			files: map[string]string{"j.json": `{"scores": [{"argument_id": "prop_000a", "score": 0.3, "reasoning": "r"}]}`},
			code:  1,
			stdout: `{
  "success": false,
  "argument_id": null,
  "errors": [
    "missing scores for prop_000b, prop_000c, opp_000a, opp_000b, opp_000c: every argument of exchange 0 is scored exactly once"
  ]
}
`,
			removed: []string{"j.json"},
		},
		{
			// Whole numbers stay whole, as Python's json read them.
			name:  "a judgment prints ids and scores in the judge's order",
			args:  []string{"process-judge", "tea", "--json-file", "j.json"},
			files: map[string]string{"j.json": judge0},
			stdout: `{
  "success": true,
  "argument_id": [
    "opp_000a",
    "opp_000b",
    "opp_000c",
    "prop_000a",
    "prop_000b",
    "prop_000c"
  ],
  "score": [
    0.1,
    -0.2,
    -0.7,
    1,
    0.0,
    -0.2
  ]
}
`,
			removed: []string{"j.json"},
		},
		{
			name:    "the first side that broke a rule is named",
			args:    []string{"process-exchange", "tea", "1", "--prop-file", "p.json", "--opp-file", "o.json"},
			files:   map[string]string{"p.json": rebuttalJSON("tea", "opp_000a"), "o.json": rebuttalJSON("coffee", "opp_000a")},
			code:    1,
			stderr:  `{"success": false, "side": "opposition", "errors": ["attacks[0].target_id: opp_000a is an opposition argument; you can only attack an opponent's arguments"], "warnings": null}` + "\n",
			removed: []string{"p.json", "o.json"},
		},
		{
			// dialectic printed "warnings": null here; moot's notice that
			// both sides handed in the same file goes to stderr.
			name:  "a rebuttal prints one id a side; the same file for both sides is a note on stderr",
			args:  []string{"process-exchange", "tea", "1", "--prop-file", "p.json", "--opp-file", "p.json"},
			files: map[string]string{"p.json": `{"title": "Both sides say the same", "claim": "It holds.", "grounds": [{"source": "S", "content": "C", "relevance": "R"}], "warrant": "W"}`},
			stdout: `{
  "success": true,
  "argument_id": {
    "proposition": "prop_001",
    "opposition": "opp_001"
  },
  "warnings": null
}
`,
			notes:   []string{"moot: note: --prop-file and --opp-file are the same file (p.json): both sides handed in the same answer"},
			removed: []string{"p.json"},
		},
	}
	for _, st := range steps {
		t.Run(st.name, func(t *testing.T) {
			for name, data := range st.files {
				write(name, data)
			}
			res := moot(t, append([]string{"debate-ops"}, st.args...)...)
			if res.code != st.code {
				t.Errorf("exit %d, want %d", res.code, st.code)
			}
			if res.stdout != st.stdout {
				t.Errorf("stdout\n%s\nwant\n%s", res.stdout, st.stdout)
			}
			if stderr := withoutMootLines(res.stderr); stderr != st.stderr {
				t.Errorf("stderr\n%s\nwant\n%s", stderr, st.stderr)
			}
			for _, n := range st.notes {
				if !strings.Contains(res.stderr, n+"\n") {
					t.Errorf("stderr lacks %q:\n%s", n, res.stderr)
				}
			}
			for _, f := range st.removed {
				if !gone(f) {
					t.Errorf("%s was not removed", f)
					os.Remove(f)
				}
			}
			for _, f := range st.kept {
				if gone(f) {
					t.Errorf("%s was removed", f)
				}
				os.Remove(f)
			}
		})
	}

	// Plain process-judge prints moot's object for the same kind of step
	// and keeps its file.
	write("j.json", `{"scores": [{"argument_id": "prop_001", "score": 0, "reasoning": "r"}, {"argument_id": "opp_001", "score": 0, "reasoning": "r"}]}`)
	res := moot(t, "--dir", root, "process-judge", "tea", "--json-file", "j.json")
	want := `{
  "success": true,
  "argument_id": [
    "prop_001",
    "opp_001"
  ],
  "score": [
    0,
    0
  ],
  "rescored": [],
  "warnings": [],
  "errors": []
}
`
	if res.code != ExitOK || res.stdout != want {
		t.Errorf("process-judge: exit %d\n%s\nwant\n%s", res.code, res.stdout, want)
	}
	if gone("j.json") {
		t.Error("process-judge removed its input file")
	}
	if _, err := os.Stat(filepath.Join(root, "tea", "arguments", "opp_001.md")); err != nil {
		t.Error(err)
	}
}

// TestDebateOpsDialecticRules checks inputs on which dialectic's debate_ops
// was more lenient than moot's rules, or wrote other files: moot
// debate-ops behaves as debate_ops did (the objects below are what
// debate_ops printed for the same steps), the debate passes moot check,
// and moot's own commands then carry on under moot's rules.
func TestDebateOpsDialecticRules(t *testing.T) {
	root := newTestDebate(t, nil)
	t.Chdir(root)
	arg := func(title, extra string) string {
		return `{"title": "` + title + ` argument stands firm today", "claim": "C", "grounds": [{"source": "S", "content": "G", "relevance": "R"}], "warrant": "W"` + extra + `}`
	}
	steps := []struct {
		name   string
		args   []string
		files  map[string]string
		code   int
		stdout string
		// notes are moot's own lines on stderr, the only thing there.
		notes []string
	}{
		{
			name: "an unknown key is dialectic's warning in the object, moot's note on stderr",
			args: []string{"process-exchange", "tea", "0", "--prop-file", "p.json", "--opp-file", "o.json"},
			files: map[string]string{
				"p.json": "[" + arg("One", "") + ", " + arg("Two", "") + ", " + arg("Three", "") + "]",
				"o.json": "[" + arg("Four", "") + ", " + arg("Five", `, "zeta": 1`) + ", " + arg("Six", "") + "]",
			},
			stdout: `{
  "success": true,
  "argument_id": {
    "proposition": [
      "prop_000a",
      "prop_000b",
      "prop_000c"
    ],
    "opposition": [
      "opp_000a",
      "opp_000b",
      "opp_000c"
    ]
  },
  "warnings": [
    "Unrecognized keys (ignored): {'zeta'}"
  ]
}
`,
			notes: []string{`moot: note: opposition: argument 2: ignored unknown key "zeta"`},
		},
		{
			name:  "a judgment listing the opposition first",
			args:  []string{"process-judge", "tea", "--json-file", "j.json"},
			files: map[string]string{"j.json": `{"scores": [{"argument_id": "opp_000a", "score": 0.0, "reasoning": "r"}, {"argument_id": "opp_000b", "score": 0.25, "reasoning": "r"}, {"argument_id": "opp_000c", "score": -0.5, "reasoning": "r"}, {"argument_id": "prop_000a", "score": 1, "reasoning": "r"}, {"argument_id": "prop_000b", "score": -0.6875, "reasoning": "r"}, {"argument_id": "prop_000c", "score": -0.0625, "reasoning": "r"}]}`},
			stdout: `{
  "success": true,
  "argument_id": [
    "opp_000a",
    "opp_000b",
    "opp_000c",
    "prop_000a",
    "prop_000b",
    "prop_000c"
  ],
  "score": [
    0.0,
    0.25,
    -0.5,
    1,
    -0.6875,
    -0.0625
  ]
}
`,
		},
		{
			name: "attacks and defences with an empty target are accepted; the same file is a note",
			args: []string{"process-exchange", "tea", "1", "--prop-file", "p.json", "--opp-file", "p.json"},
			files: map[string]string{"p.json": arg("Both", `, "attacks": [{"target_id": "", "attack_type": "claim_attack", "content": "vague"}]`+
				`, "defends": [{"target_id": null, "defense_type": "reinforce", "content": "x"}]`)},
			stdout: `{
  "success": true,
  "argument_id": {
    "proposition": "prop_001",
    "opposition": "opp_001"
  },
  "warnings": null
}
`,
			notes: []string{"moot: note: --prop-file and --opp-file are the same file (p.json): both sides handed in the same answer"},
		},
		{
			name: "rescores: too far from old_score or incomplete are skipped with dialectic's warnings",
			args: []string{"process-judge", "tea", "--json-file", "j.json"},
			files: map[string]string{"j.json": `{"scores": [{"argument_id": "opp_001", "score": -0.3, "reasoning": "r"}, {"argument_id": "prop_001", "score": 0.3, "reasoning": "r"}],
 "rescores": [{"argument_id": "prop_000c", "old_score": -0.0625, "new_score": 0.5, "reasoning": "big"},
   {"argument_id": "opp_000a", "new_score": 0.2, "reasoning": "no old", "triggered_by": "prop_001"},
   {"argument_id": "prop_000b", "old_score": -0.6, "new_score": -0.5, "reasoning": "wrong old"},
   {"argument_id": "opp_000b", "old_score": 0.25, "reasoning": "no new", "note": "l'été\u00a0\"x\""},
   {"argument_id": "", "old_score": 0.25, "new_score": 0.3},
   {"argument_id": "opp_000c", "old_score": -0.5, "new_score": 0, "reasoning": "to zero"}]}`},
			stdout: `{
  "success": true,
  "argument_id": [
    "opp_001",
    "prop_001"
  ],
  "score": [
    -0.3,
    0.3
  ],
  "rescored": [
    "opp_000a",
    "prop_000b",
    "opp_000c"
  ],
  "warnings": [
    "Rescore delta for prop_000c is 0.562, outside valid range [-0.5, 0.5]",
    "Incomplete rescore entry: {'argument_id': 'opp_000b', 'old_score': 0.25, 'reasoning': 'no new', 'note': 'l\\'\u00e9t\u00e9\\xa0\"x\"'}",
    "Incomplete rescore entry: {'argument_id': '', 'old_score': 0.25, 'new_score': 0.3}"
  ]
}
`,
			notes: []string{"moot: note: rescores[2]: old_score -0.6 of prop_000b differs from its current score -0.6875; previous_score records old_score, as dialectic did"},
		},
	}
	for _, st := range steps {
		t.Run(st.name, func(t *testing.T) {
			for name, data := range st.files {
				if err := os.WriteFile(name, []byte(data), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			res := moot(t, append([]string{"debate-ops"}, st.args...)...)
			if res.code != st.code {
				t.Errorf("exit %d, want %d", res.code, st.code)
			}
			if res.stdout != st.stdout {
				t.Errorf("stdout\n%s\nwant\n%s", res.stdout, st.stdout)
			}
			want := ""
			for _, n := range st.notes {
				want += n + "\n"
			}
			if res.stderr != want {
				t.Errorf("stderr\n%s\nwant\n%s", res.stderr, want)
			}
		})
	}

	// The files are dialectic's: new arguments in the judge's order, the
	// judge's 0.0 and 1 kept, a rescore's previous_score the judge's
	// old_score and its diff taken from it, every rescore credited to the
	// first argument the judgment scored.
	read := func(name string) string {
		t.Helper()
		data, err := os.ReadFile(filepath.Join(root, "tea", name))
		if err != nil {
			t.Fatal(err)
		}
		return string(data)
	}
	scores := regexp.MustCompile(`"scored_at": "[^"]*"`).ReplaceAllString(read("scores.json"), `"scored_at": "T"`)
	var ids []string
	for _, m := range regexp.MustCompile(`(?m)^  "(\w+)": \{`).FindAllStringSubmatch(scores, -1) {
		ids = append(ids, m[1])
	}
	if got, want := strings.Join(ids, " "), "opp_000a opp_000b opp_000c prop_000a prop_000b prop_000c opp_001 prop_001"; got != want {
		t.Errorf("scores.json lists %s, want %s (dialectic's order)", got, want)
	}
	for _, want := range []string{
		`"opp_000a": {
    "current_score": 0.2,
    "history": [
      {
        "score": 0.0,
        "reasoning": "r",
        "scored_at": "T"
      },
      {
        "score": 0.2,
        "reasoning": "no old",
        "scored_at": "T",
        "triggered_by": "opp_001"
      }
    ]
  }`,
		`"prop_000b": {
    "current_score": -0.5,
    "history": [
      {
        "score": -0.6875,
        "reasoning": "r",
        "scored_at": "T"
      },
      {
        "score": -0.5,
        "reasoning": "wrong old",
        "scored_at": "T",
        "triggered_by": "opp_001",
        "previous_score": -0.6,
        "diff": 0.1
      }
    ]
  }`,
		`"opp_000c": {
    "current_score": 0,
    "history": [
      {
        "score": -0.5,
        "reasoning": "r",
        "scored_at": "T"
      },
      {
        "score": 0,
        "reasoning": "to zero",
        "scored_at": "T",
        "triggered_by": "opp_001",
        "previous_score": -0.5,
        "diff": 0.5
      }
    ]
  }`,
		`"prop_000a": {
    "current_score": 1,`,
		`"prop_000c": {
    "current_score": -0.0625,
    "history": [
      {
        "score": -0.0625,
        "reasoning": "r",
        "scored_at": "T"
      }
    ]
  }`,
	} {
		if !strings.Contains(scores, want) {
			t.Errorf("scores.json lacks\n%s\nin\n%s", want, scores)
		}
	}
	if header := read("debate.md"); !strings.Contains(header, `"total": 0.738,`) || !strings.Contains(header, `"total": 0.15,`) {
		t.Errorf("debate.md totals:\n%s", header)
	}
	// The empty targets link nothing and are kept in the body, as
	// dialectic kept them.
	prop := read("arguments/prop_001.md")
	for _, want := range []string{`"attacks": []`, `"defends": []`, "### Attacking \n\n**Type:** claim_attack\n\nvague", "### Defending None\n\n**Type:** reinforce\n\nx"} {
		if !strings.Contains(prop, want) {
			t.Errorf("prop_001.md lacks %q:\n%s", want, prop)
		}
	}

	// moot check takes the debate: dialectic's history is warned about.
	if res := moot(t, "--dir", root, "check", "tea"); res.code != ExitOK {
		t.Fatalf("check: exit %d\n%s%s", res.code, res.stdout, res.stderr)
	}

	// moot's own commands carry on, under moot's rules: a rescore more
	// than 0.5 from the current score is refused, a wrong old_score is a
	// warning that shows the current score exactly.
	for name, data := range map[string]string{
		"p.json": arg("Onward", ""), "o.json": arg("Backward", ""),
		"far.json":  `{"scores": [{"argument_id": "prop_002", "score": 0.1, "reasoning": "r"}, {"argument_id": "opp_002", "score": -0.1, "reasoning": "r"}], "rescores": [{"argument_id": "prop_000c", "new_score": 0.5, "reasoning": "far"}]}`,
		"near.json": `{"scores": [{"argument_id": "prop_002", "score": 0.1, "reasoning": "r"}, {"argument_id": "opp_002", "score": -0.1, "reasoning": "r"}], "rescores": [{"argument_id": "prop_000c", "old_score": -0.05, "new_score": 0.0375, "reasoning": "near"}]}`,
	} {
		if err := os.WriteFile(name, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if res := moot(t, "--dir", root, "process-exchange", "tea", "2", "--prop-file", "p.json", "--opp-file", "o.json"); res.code != ExitOK {
		t.Fatalf("process-exchange: exit %d\n%s%s", res.code, res.stdout, res.stderr)
	}
	if res := moot(t, "--dir", root, "process-judge", "tea", "--json-file", "far.json"); res.code == ExitOK || !strings.Contains(res.stdout, "a rescore moves at most 0.5") {
		t.Errorf("process-judge of a rescore too far: exit %d\n%s", res.code, res.stdout)
	}
	res := moot(t, "--dir", root, "process-judge", "tea", "--json-file", "near.json")
	if res.code != ExitOK {
		t.Fatalf("process-judge: exit %d\n%s%s", res.code, res.stdout, res.stderr)
	}
	if want := "rescores[0]: old_score -0.05 of prop_000c differs from its current score -0.0625; the current score was used"; !strings.Contains(res.stdout, want) {
		t.Errorf("process-judge warnings lack %q:\n%s", want, res.stdout)
	}
	if res := moot(t, "--dir", root, "check", "tea"); res.code != ExitOK {
		t.Errorf("check after moot's steps: exit %d\n%s%s", res.code, res.stdout, res.stderr)
	}
}
