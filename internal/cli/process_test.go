package cli

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/moot-dev/moot/internal/testkit/storetest"
)

// openingJSON is a valid opening for side: three arguments.
func openingJSON(side string) string {
	var args []string
	for _, n := range []string{"first", "second", "third"} {
		args = append(args, fmt.Sprintf(`{"title": "The %s %s argument stands firm", "claim": "It holds.", "grounds": [{"source": "S", "content": "C", "relevance": "R"}], "warrant": "W"}`, side, n))
	}
	return "[" + strings.Join(args, ", ") + "]"
}

// newTestDebate creates the debate "tea" under a new root and writes the
// given files next to it; it returns the root.
func newTestDebate(t *testing.T, files map[string]string) string {
	t.Helper()
	root := t.TempDir()
	if res := moot(t, "--dir", root, "new", "tea", "--motion", "This house prefers tea."); res.code != ExitOK {
		t.Fatalf("new: exit %d: %s", res.code, res.stderr)
	}
	for name, data := range files {
		if err := os.WriteFile(filepath.Join(root, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

// resultObject decodes moot's result object from stdout.
func resultObject(t *testing.T, stdout string) map[string]any {
	t.Helper()
	var obj map[string]any
	if err := json.Unmarshal([]byte(stdout), &obj); err != nil {
		t.Fatalf("stdout is not one JSON object: %v\n%s", err, stdout)
	}
	return obj
}

// TestProcessSameFile checks that one file given for both sides is taken
// with a warning, in the result object and on stderr.
func TestProcessSameFile(t *testing.T) {
	root := newTestDebate(t, map[string]string{"open.json": openingJSON("tea")})
	open := filepath.Join(root, "open.json")
	res := moot(t, "--dir", root, "process-exchange", "tea", "0", "--prop-file", open, "--opp-file", open)
	if res.code != ExitOK {
		t.Fatalf("exit %d: %s", res.code, res.stderr)
	}
	obj := resultObject(t, res.stdout)
	ws, _ := obj["warnings"].([]any)
	found := false
	for _, w := range ws {
		if s, _ := w.(string); strings.Contains(s, "same file") {
			found = true
		}
	}
	if !found {
		t.Errorf("warnings %v lack the same-file warning", obj["warnings"])
	}
	if !strings.Contains(res.stderr, "moot: warning: --prop-file and --opp-file are the same file") {
		t.Errorf("stderr %q lacks the warning", res.stderr)
	}
	if _, err := os.Stat(open); err != nil {
		t.Errorf("process-exchange removed the answer file: %v", err)
	}
}

// TestProcessFailureObject checks that every failure after a valid command
// line prints moot's result object with the same keys as a success: lists
// empty, errors one problem per entry.
func TestProcessFailureObject(t *testing.T) {
	root := newTestDebate(t, map[string]string{"open.json": openingJSON("tea"), "judge.json": `{"scores": []}`})
	open := filepath.Join(root, "open.json")
	missing := filepath.Join(root, "missing.json")
	exchangeKeys := "success argument_id warnings errors"
	judgeKeys := "success argument_id score rescored warnings errors"
	tests := []struct {
		name  string
		args  []string
		lock  bool
		code  int
		keys  string
		error string
	}{
		{"unreadable prop file", []string{"process-exchange", "tea", "0", "--prop-file", missing, "--opp-file", open}, false, ExitError, exchangeKeys, "read --prop-file"},
		{"unreadable judgment", []string{"process-judge", "tea", "--json-file", missing}, false, ExitError, judgeKeys, "read --json-file"},
		{"busy exchange", []string{"process-exchange", "tea", "0", "--prop-file", open, "--opp-file", open}, true, ExitBusy, exchangeKeys, "being written by another moot process"},
		{"busy judgment", []string{"process-judge", "tea", "--json-file", filepath.Join(root, "judge.json")}, true, ExitBusy, judgeKeys, "being written by another moot process"},
		{"wrong phase", []string{"process-judge", "tea", "--json-file", filepath.Join(root, "judge.json")}, false, ExitRefused, judgeKeys, "the debate is at exchange 0"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if tc.lock {
				d, err := storetest.OpenForWrite(filepath.Join(root, "tea"), "moot run tea")
				if err != nil {
					t.Fatal(err)
				}
				defer d.Close()
			}
			res := moot(t, append([]string{"--dir", root}, tc.args...)...)
			if res.code != tc.code {
				t.Fatalf("exit %d, want %d: %s", res.code, tc.code, res.stderr)
			}
			m := resultObject(t, res.stdout)
			var keys []string
			dec := json.NewDecoder(strings.NewReader(res.stdout))
			dec.Token()
			for dec.More() {
				k, _ := dec.Token()
				keys = append(keys, k.(string))
				var v json.RawMessage
				dec.Decode(&v)
			}
			if got := strings.Join(keys, " "); got != tc.keys {
				t.Errorf("keys %q, want %q", got, tc.keys)
			}
			if m["success"] != false {
				t.Errorf("success %v", m["success"])
			}
			for _, k := range []string{"argument_id", "score", "rescored", "warnings"} {
				if v, ok := m[k]; ok {
					if l, isList := v.([]any); !isList || (k != "warnings" && len(l) != 0) {
						t.Errorf("%s is %v, want an empty list", k, v)
					}
				}
			}
			errs, _ := m["errors"].([]any)
			if len(errs) != 1 {
				t.Fatalf("errors %v, want one", m["errors"])
			}
			if s, _ := errs[0].(string); !strings.Contains(s, tc.error) || strings.Contains(s, "\n") {
				t.Errorf("error %q, want one line with %q", s, tc.error)
			}
		})
	}
}
