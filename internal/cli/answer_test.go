package cli_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/moot-dev/moot/internal/builtin"
	"github.com/moot-dev/moot/internal/cli"
	"github.com/moot-dev/moot/internal/driver"
	"github.com/moot-dev/moot/internal/model"
	"github.com/moot-dev/moot/internal/testkit/fixture"
	sm "github.com/moot-dev/moot/statemachine"
	"github.com/moot-dev/moot/statemachine/dialectic"
	"github.com/moot-dev/moot/statemachine/forum"
	"github.com/moot-dev/moot/statemachine/moderated"
	"github.com/moot-dev/moot/statemachine/panel"
	"github.com/moot-dev/moot/statemachine/refine"
	"github.com/moot-dev/moot/store"
)

// personProtocols are the protocols the tests of a person's answers run.
var personProtocols = sm.Protocols{dialectic.Protocol{}, forum.Protocol{}, moderated.Protocol{}, refine.Protocol{}, panel.Protocol{}}

// personCase is a debate of one protocol in which a person plays role.
type personCase struct {
	protocol string
	new      []string // moot new's arguments after the debate's name
	role     string
}

var personCases = []personCase{
	{"dialectic", []string{"--motion", "This house would let tests talk to the network.", "--exchanges", "2"}, "proposition"},
	{"forum", []string{"--protocol", "forum", "--motion", "Whether tests should talk to the network"}, "for"},
	{"moderated", []string{"--protocol", "moderated", "--motion", "Should tests talk to the network?", "--position-a", "They should", "--position-b", "They should not"}, "advocate-a"},
	{"refine", []string{"--protocol", "refine", "--motion", "Should tests talk to the network?"}, "proposer"},
	{"panel", []string{"--protocol", "panel", "--motion", "Should tests talk to the network?"}, "persona"},
}

// mootIn runs moot in this process on the debates root, with the
// built-in model's protocols, no editor and a fixed clock.
func mootIn(t *testing.T, root string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	code = cli.Run(context.Background(), append([]string{"moot", "--dir", root}, args...), cli.IO{
		Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errb,
		Now:       func() time.Time { return time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC) },
		Getenv:    func(string) string { return "" },
		Protocols: personProtocols[1:],
	})
	return code, out.String(), errb.String()
}

var (
	personStages   sync.Map // protocol name → *personStage
	personStagesMu sync.Mutex
)

type personStage struct {
	dir string
	err error
}

// stopForPerson returns a new debates root holding debate "d" of c's
// protocol, run with the built-in model until it stopped for the
// person's first answer (exit 8). Each protocol's stage is made once and
// copied.
func stopForPerson(t *testing.T, c personCase) string {
	t.Helper()
	personStagesMu.Lock()
	v, ok := personStages.Load(c.protocol)
	if !ok {
		st := &personStage{}
		st.dir, st.err = os.MkdirTemp("", "moot-person-"+c.protocol+"-")
		if st.err == nil {
			if code, _, stderr := mootIn(t, st.dir, append([]string{"new", "d"}, c.new...)...); code != 0 {
				st.err = &stageError{"new", code, stderr}
			} else if code, _, stderr := mootIn(t, st.dir, "run", "d", "--all", "--model", "builtin", "--human", c.role); code != cli.ExitPerson {
				st.err = &stageError{"run --human", code, stderr}
			}
		}
		personStages.Store(c.protocol, st)
		v = st
	}
	personStagesMu.Unlock()
	st := v.(*personStage)
	if st.err != nil {
		t.Fatal(st.err)
	}
	root := t.TempDir()
	if err := fixture.CopyTree(st.dir, root); err != nil {
		t.Fatal(err)
	}
	return root
}

type stageError struct {
	what   string
	code   int
	stderr string
}

func (e *stageError) Error() string {
	return fmt.Sprintf("moot %s: exit %d: %s", e.what, e.code, e.stderr)
}

// waiting returns the calls of the step debate d under root waits for
// that role answers.
func waiting(t *testing.T, root, protocol, role string) []driver.Waiting {
	t.Helper()
	d, err := store.Open(filepath.Join(root, "d"))
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	p, err := personProtocols.Lookup(protocol)
	if err != nil {
		t.Fatal(err)
	}
	ws, err := driver.Waits(d, p, role)
	if err != nil {
		t.Fatal(err)
	}
	return ws
}

// builtinAnswer is an answer to c that its validation accepts, as the
// built-in model gives it (repaired if need be).
func builtinAnswer(t *testing.T, c sm.Call) []byte {
	t.Helper()
	msgs := make([]model.Message, len(c.Messages))
	for i, m := range c.Messages {
		msgs[i] = model.Message{Role: m.Role, Content: m.Content}
	}
	for try := 0; try < 3; try++ {
		resp, err := builtin.Client{}.Complete(context.Background(), model.Request{Model: builtin.Name, Messages: msgs, Schema: c.Schema, SchemaName: c.SchemaName})
		if err != nil {
			t.Fatal(err)
		}
		if c.Validate == nil {
			return []byte(resp.Text)
		}
		rep := c.Validate([]byte(resp.Text))
		if rep.OK() {
			return []byte(resp.Text)
		}
		msgs = append(msgs, model.Message{Role: "assistant", Content: resp.Text},
			model.Message{Role: "user", Content: "Your answer broke these rules:\n- " + strings.Join(rep.Errors, "\n- ") + "\nAnswer again in full, following every rule."})
	}
	t.Fatalf("the built-in model gave no valid answer to the %s's call %s", c.Role, c.ID)
	return nil
}

// withBadUTF8 returns answer with two bytes that are not UTF-8 put after
// its first letter.
func withBadUTF8(answer []byte) []byte {
	i := bytes.IndexFunc(answer, func(r rune) bool { return r >= 'a' && r <= 'z' })
	return append(append(append([]byte{}, answer[:i+1]...), 0xff, 0xfe), answer[i+1:]...)
}

// debateFiles reads the debate d under root: every file, .moot's
// included but its lock.
func debateFiles(t *testing.T, root string) map[string]string {
	t.Helper()
	tree, err := fixture.Tree(filepath.Join(root, "d"))
	if err != nil {
		t.Fatal(err)
	}
	return fixture.Without(tree, fixture.LockFile)
}

// TestAnswerNotUTF8IsRefused: an answer that is not valid UTF-8, handed
// in with moot answer, is refused with exit 3 in every protocol, naming
// the fault, and not a byte of the debate changes.
func TestAnswerNotUTF8IsRefused(t *testing.T) {
	for _, c := range personCases {
		t.Run(c.protocol, func(t *testing.T) {
			root := stopForPerson(t, c)
			ws := waiting(t, root, c.protocol, c.role)
			if len(ws) == 0 {
				t.Fatalf("the debate waits for no answer of the %s", c.role)
			}
			w := ws[0]
			file := filepath.Join(t.TempDir(), "answer")
			if err := os.WriteFile(file, withBadUTF8(builtinAnswer(t, w.Call)), 0o644); err != nil {
				t.Fatal(err)
			}
			before := debateFiles(t, root)
			code, _, stderr := mootIn(t, root, "answer", "d", c.role, file, "--call", w.Call.ID)
			if code != cli.ExitRefused {
				t.Errorf("exit %d, want %d\n%s", code, cli.ExitRefused, stderr)
			}
			if !strings.Contains(stderr, "UTF-8") {
				t.Errorf("the error does not say the answer is not UTF-8:\n%s", stderr)
			}
			if diff := fixture.Diff(before, debateFiles(t, root)); len(diff) > 0 {
				t.Errorf("the debate changed: %v", diff)
			}
		})
	}
}

// TestKeptAnswerThatBreaksTheLimitsIsNotCommitted: an answer kept in
// .moot/answers/ that is not valid UTF-8, or is over the 1 MiB limit of an
// answer, is never used: the run says so, asks for the answer anew, and
// commits a debate that passes moot check, in every protocol.
func TestKeptAnswerThatBreaksTheLimitsIsNotCommitted(t *testing.T) {
	kinds := []struct {
		name string
		make func(valid []byte) []byte
	}{
		{"not UTF-8", withBadUTF8},
		// Padded with white space, which every protocol's validation
		// passes over: only the limit refuses it.
		{"3 MiB", func(valid []byte) []byte {
			return append(append([]byte{}, valid...), bytes.Repeat([]byte(" \n"), 3<<19)...)
		}},
	}
	for _, c := range personCases {
		for _, k := range kinds {
			t.Run(c.protocol+"/"+k.name, func(t *testing.T) {
				root := stopForPerson(t, c)
				ws := waiting(t, root, c.protocol, c.role)
				if len(ws) == 0 {
					t.Fatalf("the debate waits for no answer of the %s", c.role)
				}
				for _, w := range ws {
					kept := filepath.Join(root, "d", ".moot", "answers", w.Step.Key+"-"+w.Call.ID)
					if err := os.MkdirAll(filepath.Dir(kept), 0o755); err != nil {
						t.Fatal(err)
					}
					if err := os.WriteFile(kept+".json", k.make(builtinAnswer(t, w.Call)), 0o644); err != nil {
						t.Fatal(err)
					}
					if err := os.WriteFile(kept+".meta", []byte(`{"model": "human", "attempts": 0}`), 0o644); err != nil {
						t.Fatal(err)
					}
				}
				code, _, stderr := mootIn(t, root, "step", "d", "--model", "builtin")
				if code != 0 {
					t.Fatalf("moot step: exit %d\n%s", code, stderr)
				}
				if strings.Contains(stderr, c.role+": answer kept from an earlier run") {
					t.Errorf("the kept answer was used:\n%s", stderr)
				}
				if !strings.Contains(stderr, "kept answer") || !strings.Contains(stderr, ws[0].Step.Key+"-"+ws[0].Call.ID+".json") {
					t.Errorf("no warning names the kept answer refused:\n%s", stderr)
				}
				if code, stdout, stderr := mootIn(t, root, "check", "d"); code != 0 {
					t.Errorf("moot check: exit %d\n%s%s", code, stdout, stderr)
				}
				for name, data := range debateFiles(t, root) {
					if strings.HasPrefix(name, ".moot/") {
						continue
					}
					if !utf8.ValidString(data) || len(data) > 1<<20 {
						t.Errorf("%s was committed with the kept answer (%d bytes)", name, len(data))
					}
				}
			})
		}
	}
}
