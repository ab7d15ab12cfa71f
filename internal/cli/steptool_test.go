package cli_test

import (
	"bytes"
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/moot-dev/moot/internal/cli"
	"github.com/moot-dev/moot/internal/testkit/trio"
	sm "github.com/moot-dev/moot/statemachine"
)

// toolTrio is trio with a step tool of its own, trio-ops, whose one
// command keeps a note in the debate: moot knows the tool only through
// sm.StepTool.
type toolTrio struct{ trio.Protocol }

func (toolTrio) StepTool() sm.Tool {
	return sm.Tool{
		Name:  "trio-ops",
		Usage: "stand in for trio's own step tool",
		Help:  "trio-ops keeps notes.",
		Commands: []sm.ToolCommand{{
			Name: "note", ArgsUsage: "<debate> <mark> --text-file <path>", Args: 5, Files: []string{"--text-file"},
			Check: func(args []string) error {
				if args[2] != "+" && args[2] != "-" {
					return errors.New("the mark is + or -")
				}
				return nil
			},
			Take: func(deb sm.Debate, args []string, inputs [][]byte, _ time.Time) (sm.ToolResult, error) {
				if deb.Status().Unit != "round" {
					return sm.ToolResult{}, errors.New("not a trio debate")
				}
				text := strings.TrimSpace(string(inputs[0]))
				if text == "" {
					return sm.ToolResult{Failed: true, Stderr: true, Notes: []string{"an empty note"},
						Object: sm.ToolObject{{Key: "success", Value: false}, {Key: "errors", Value: []string{"the note is empty"}}}}, nil
				}
				return sm.ToolResult{
					Files:  []sm.File{{Name: "notes.md", Data: []byte(args[2] + " " + text + "\n")}},
					Object: sm.ToolObject{{Key: "success", Value: true}, {Key: "length", Value: sm.ToolInt(len(text))}, {Key: "ratio", Value: 1.0}, {Key: "mark", Value: args[2]}},
				}, nil
			},
		}},
	}
}

// TestStepTool runs a protocol's step tool as moot mounts it: the command
// of its name, the files read and removed, the debate locked and
// committed, the objects printed as Python's json module printed them.
func TestStepTool(t *testing.T) {
	root := t.TempDir()
	t.Chdir(root)
	run := func(args ...string) (int, string, string) {
		t.Helper()
		var out, errb bytes.Buffer
		io := cli.IO{Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errb, Now: time.Now,
			Getenv: func(string) string { return "" }, Protocols: sm.Protocols{toolTrio{}}}
		code := cli.Run(context.Background(), append([]string{"moot"}, args...), io)
		return code, out.String(), errb.String()
	}
	if code, _, errb := run("--dir", ".", "new", "--protocol", "trio", "--motion", "Tea is better than coffee.", "--rounds", "1", "tea"); code != 0 {
		t.Fatalf("new: exit %d: %s", code, errb)
	}
	write := func(name, data string) {
		t.Helper()
		if err := os.WriteFile(name, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	exists := func(name string) bool {
		_, err := os.Stat(name)
		return !errors.Is(err, fs.ErrNotExist)
	}
	for _, tc := range []struct {
		name           string
		args           []string
		file           string // the text file's content; "" for none
		code           int
		stdout, stderr string
		kept           bool   // the text file is still there
		note           string // notes.md after the command; "" for none
	}{
		{name: "no command", code: 1, stderr: `{"success": false, "error": "usage: moot trio-ops <command> <args...>"}` + "\n"},
		{name: "help", args: []string{"--help"}, stdout: "usage: moot trio-ops note <debate> <mark> --text-file <path>\n\ntrio-ops keeps notes.\n"},
		{name: "unknown command", args: []string{"nope"}, code: 1, stderr: `{"success": false, "error": "unknown command \"nope\": trio-ops has note"}` + "\n"},
		{name: "wrong count", args: []string{"note", "tea", "+"}, code: 1,
			stderr: `{"success": false, "error": "usage: moot trio-ops note <debate> <mark> --text-file <path>"}` + "\n"},
		{name: "check before the files", args: []string{"note", "tea", "x", "--text-file", "n.txt"}, file: "hi", code: 1, kept: true,
			stderr: `{"success": false, "error": "the mark is + or -"}` + "\n"},
		{name: "flag missing", args: []string{"note", "tea", "+", "--text", "n.txt"}, file: "hi", code: 1, kept: true,
			stderr: `{"success": false, "error": "--text-file is required"}` + "\n"},
		{name: "no debate", args: []string{"note", "coffee", "+", "--text-file", "n.txt"}, file: "hi", code: 1, kept: true,
			stderr: `{"success": false, "error": "coffee holds no debate.md: not a debate directory (trio-ops takes the debate's path, relative to the working directory)"}` + "\n"},
		{name: "refused", args: []string{"note", "tea", "+", "--text-file", "n.txt"}, file: " \n", code: 1,
			stderr: "moot: note: an empty note\n" + `{"success": false, "errors": ["the note is empty"]}` + "\n"},
		{name: "taken", args: []string{"note", "tea", "-", "--text-file", "n.txt"}, file: "caf\u00e9", note: "- caf\u00e9\n",
			stdout: "{\n  \"success\": true,\n  \"length\": 5,\n  \"ratio\": 1.0,\n  \"mark\": \"-\"\n}\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			os.Remove("n.txt")
			os.Remove(filepath.Join("tea", "notes.md"))
			if tc.file != "" {
				write("n.txt", tc.file)
			}
			code, out, errb := run(append([]string{"trio-ops"}, tc.args...)...)
			if code != tc.code || out != tc.stdout || errb != tc.stderr {
				t.Errorf("exit %d, stdout %q, stderr %q; want exit %d, stdout %q, stderr %q", code, out, errb, tc.code, tc.stdout, tc.stderr)
			}
			if tc.file != "" && exists("n.txt") != tc.kept {
				t.Errorf("n.txt kept: %v, want %v", exists("n.txt"), tc.kept)
			}
			got, err := os.ReadFile(filepath.Join("tea", "notes.md"))
			if tc.note == "" && err == nil {
				t.Errorf("notes.md written: %q", got)
			}
			if tc.note != "" && string(got) != tc.note {
				t.Errorf("notes.md = %q (%v), want %q", got, err, tc.note)
			}
		})
	}
	// The tool is listed among moot's commands, and dialectic's, whose
	// protocol this moot does not know, is not.
	if _, out, _ := run("help"); !strings.Contains(out, "trio-ops") || strings.Contains(out, "debate-ops") {
		t.Errorf("moot help should list trio-ops and not debate-ops:\n%s", out)
	}
	if code, _, _ := run("debate-ops", "process-judge", "tea", "--json-file", "n.txt"); code != cli.ExitUsage {
		t.Errorf("moot debate-ops without dialectic: exit %d, want %d (no such command)", code, cli.ExitUsage)
	}
}
