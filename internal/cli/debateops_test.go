package cli

import (
	"errors"
	"io/fs"
	"math"
	"os"
	"path/filepath"
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
		removed, kept  []string
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
			name:  "a rebuttal prints one id a side; the same file for both sides is a warning",
			args:  []string{"process-exchange", "tea", "1", "--prop-file", "p.json", "--opp-file", "p.json"},
			files: map[string]string{"p.json": `{"title": "Both sides say the same", "claim": "It holds.", "grounds": [{"source": "S", "content": "C", "relevance": "R"}], "warrant": "W"}`},
			stdout: `{
  "success": true,
  "argument_id": {
    "proposition": "prop_001",
    "opposition": "opp_001"
  },
  "warnings": [
    "--prop-file and --opp-file are the same file (p.json): both sides handed in the same answer"
  ]
}
`,
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
