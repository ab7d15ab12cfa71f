package cli_test

import (
	"bytes"
	"context"
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

// The tests of this file give trio, the protocol written for tests, a
// capability dialectic has, and check that moot's commands then treat it
// as they treat dialectic: what a protocol can do is said by the step
// model's optional interfaces, never by its name.

// checkingTrio is trio that checks its debates' files itself (an
// sm.FilesChecker), in words of its own.
type checkingTrio struct{ trio.Protocol }

// ownWords is what checkingTrio's check says of every debate.
const ownWords = "the protocol's own check refuses it"

func (checkingTrio) CheckFiles(files fs.FS) (sm.Findings, string, error) {
	return sm.Findings{Problems: []sm.Problem{{File: sm.StateFile, Message: ownWords}}}, "trio's files", nil
}

// scriptedTrio is trio with a script for the built-in model and a demo
// whose debates need an end to be given (end), as dialectic's do.
type scriptedTrio struct {
	trio.Protocol
	end []string
}

func (scriptedTrio) Script(call sm.ScriptCall) (string, error) {
	return trio.Fake(call.Messages[0].Content, call.Messages[1].Content), nil
}

func (p scriptedTrio) Demo() sm.Demo {
	return sm.Demo{Args: []string{"--motion", "Three is a crowd.", "--rounds", "1"}, End: p.end}
}

// runWith runs moot under root with the protocols ps and returns its exit
// code, stdout and stderr.
func runWith(t *testing.T, root string, ps sm.Protocols, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	io := cli.IO{Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errb, Now: time.Now,
		Getenv: func(string) string { return "" }, Protocols: ps}
	code := cli.Run(context.Background(), append([]string{"moot", "--dir", root}, args...), io)
	return code, out.String(), errb.String()
}

// TestOwnCheckIsACapability: a debate of a protocol that checks its files
// itself, broken, is refused by every command that reads it in that
// check's words (exit 4), and the read commands say it as they say it of
// a broken dialectic debate, whatever the protocol is called; trio
// without the capability is refused in the words of its debate's Check.
func TestOwnCheckIsACapability(t *testing.T) {
	for _, tc := range []struct {
		name  string
		p     sm.Protocol
		words string // what every refusal says of the broken state file
		read  string // how the read commands refuse it
	}{
		{"with its own check", checkingTrio{}, ownWords, "reads only a debate that passes it"},
		{"without", trio.Protocol{}, `phase "dance" is neither`, "refused: "},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := t.TempDir()
			ps := withDialectic(tc.p)
			if code, _, errb := runWith(t, root, ps, "new", "crowd", "--protocol", "trio", "--motion", "Three is a crowd.", "--rounds", "1"); code != 0 {
				t.Fatalf("new: exit %d: %s", code, errb)
			}
			state := filepath.Join(root, "crowd", sm.StateFile)
			data, err := os.ReadFile(state)
			if err != nil {
				t.Fatal(err)
			}
			broken := strings.Replace(string(data), `"phase": "speak"`, `"phase": "dance"`, 1)
			if broken == string(data) {
				t.Fatalf("the state file has no phase to break:\n%s", data)
			}
			if err := os.WriteFile(state, []byte(broken), 0o644); err != nil {
				t.Fatal(err)
			}
			if code, out, errb := runWith(t, root, ps, "check", "crowd"); code != cli.ExitCheckFailed || !strings.Contains(out, tc.words) {
				t.Errorf("check: exit %d, stdout %q, stderr %q; want exit %d and the problem saying %q", code, out, errb, cli.ExitCheckFailed, tc.words)
			}
			for _, command := range []string{"status", "report", "export"} {
				code, out, errb := runWith(t, root, ps, command, "crowd")
				if code != cli.ExitCheckFailed || out != "" || !strings.Contains(errb, tc.words) || !strings.Contains(errb, tc.read) {
					t.Errorf("%s: exit %d, stdout %q, stderr %q; want exit %d, nothing printed, and a refusal saying %q and %q",
						command, code, out, errb, cli.ExitCheckFailed, tc.read, tc.words)
				}
			}
			after, err := os.ReadFile(state)
			if err != nil || string(after) != broken {
				t.Errorf("the state file changed (%v)", err)
			}
		})
	}
}

// TestDemoEndIsACapability: the demo's closing lines give a new debate
// the end its protocol's demo names (sm.Demo.End), as dialectic's give
// --exchanges 3, and no end to a protocol whose debates end by
// themselves, whatever it is called.
func TestDemoEndIsACapability(t *testing.T) {
	const line = "new my-debate --protocol trio --motion 'This house would ...'"
	for _, tc := range []struct {
		name string
		end  []string
		want string
	}{
		{"with an end", []string{"--rounds", "2"}, line + " --rounds 2\n"},
		{"without", nil, line + "\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := t.TempDir()
			code, out, errb := runWith(t, root, withDialectic(scriptedTrio{end: tc.end}), "demo", "--protocol", "trio")
			if code != 0 {
				t.Fatalf("demo: exit %d: %s", code, errb)
			}
			if !strings.Contains(out, tc.want) {
				t.Errorf("the demo's summary lacks %q:\n%s", tc.want, out)
			}
			if _, err := os.Stat(filepath.Join(root, "demo-trio", "README.md")); err != nil {
				t.Errorf("the demo wrote no report: %v", err)
			}
		})
	}
}
