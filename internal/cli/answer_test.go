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
	"github.com/moot-dev/moot/internal/faults"
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
		Protocols: personProtocols,
	})
	return code, out.String(), errb.String()
}

var (
	personStages   = map[string]*personStage{} // by protocol
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
	st, ok := personStages[c.protocol]
	if !ok {
		st = &personStage{}
		st.dir, st.err = os.MkdirTemp("", "moot-person-"+c.protocol+"-")
		if st.err == nil {
			if code, _, stderr := mootIn(t, st.dir, append([]string{"new", "d"}, c.new...)...); code != 0 {
				st.err = &stageError{"new", code, stderr}
			} else if code, _, stderr := mootIn(t, st.dir, "run", "d", "--all", "--model", "builtin", "--human", c.role); code != cli.ExitPerson {
				st.err = &stageError{"run --human", code, stderr}
			}
		}
		personStages[c.protocol] = st
	}
	personStagesMu.Unlock()
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

// builtinAnswer is an answer to c, a call of protocol, that its
// validation accepts, as the built-in model gives it (repaired if need
// be).
func builtinAnswer(t *testing.T, protocol string, c sm.Call) []byte {
	t.Helper()
	p, err := personProtocols.Lookup(protocol)
	if err != nil {
		t.Fatal(err)
	}
	msgs := make([]model.Message, len(c.Messages))
	for i, m := range c.Messages {
		msgs[i] = model.Message{Role: m.Role, Content: m.Content}
	}
	for try := 0; try < 3; try++ {
		script := func(msgs []model.Message) (string, error) {
			call := sm.ScriptCall{Role: c.Role, Kind: c.Kind, Repair: try > 0, Messages: c.Messages}
			return p.(sm.Scripted).Script(call)
		}
		resp, err := builtin.Client{}.Complete(context.Background(), model.Request{Model: builtin.Name, Messages: msgs, Schema: c.Schema, SchemaName: c.SchemaName, Script: script})
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
			if err := os.WriteFile(file, withBadUTF8(builtinAnswer(t, c.protocol, w.Call)), 0o644); err != nil {
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
					if err := os.WriteFile(kept+".json", k.make(builtinAnswer(t, c.protocol, w.Call)), 0o644); err != nil {
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

// handIn hands in, for each call of the step the debate waits for that
// the role answers and has no answer kept, an answer the built-in model
// gives, naming the call with --call when the step has several. It
// returns the last file handed in and its call's full name (KEY/ID).
func handIn(t *testing.T, root string, c personCase, skipLast bool) (file, call string) {
	t.Helper()
	ws := waiting(t, root, c.protocol, c.role)
	var open []driver.Waiting
	for _, w := range ws {
		if !w.Kept {
			open = append(open, w)
		}
	}
	if len(open) == 0 {
		t.Fatalf("the debate waits for no answer of the %s", c.role)
	}
	dir := t.TempDir()
	for i, w := range open {
		file = filepath.Join(dir, w.Call.ID+".answer")
		if err := os.WriteFile(file, builtinAnswer(t, c.protocol, w.Call), 0o644); err != nil {
			t.Fatal(err)
		}
		call = w.Step.Key + "/" + w.Call.ID
		if skipLast && i == len(open)-1 {
			break
		}
		args := []string{"answer", "d", c.role, file}
		if len(ws) > 1 {
			args = append(args, "--call", w.Call.ID)
		}
		if code, _, stderr := mootIn(t, root, args...); code != 0 {
			t.Fatalf("moot %s: exit %d\n%s", strings.Join(args, " "), code, stderr)
		}
	}
	return file, call
}

// commitStep commits the step the person has answered, asking the
// models for the rest, and stops at the person's next call if any.
func commitStep(t *testing.T, root string, c personCase) {
	t.Helper()
	if ws := waiting(t, root, c.protocol, c.role); len(ws) == 0 || !ws[0].Kept {
		return // committed by moot answer
	}
	if code, _, stderr := mootIn(t, root, "run", "d", "--all", "--model", "builtin", "--human", c.role); code != 0 && code != cli.ExitPerson {
		t.Fatalf("moot run: exit %d\n%s", code, stderr)
	}
}

// TestAnswerIsForOneCall: an answer is for one call. Handed in again
// once its call is taken, the same file is reported as already taken
// (exit 0) and never used for the next call, named or not; another
// answer for a call already taken is refused (exit 3); nothing changes.
// In every protocol.
func TestAnswerIsForOneCall(t *testing.T) {
	for _, c := range personCases {
		t.Run(c.protocol, func(t *testing.T) {
			root := stopForPerson(t, c)
			file, call := handIn(t, root, c, false)
			commitStep(t, root, c)
			before := debateFiles(t, root)
			unchanged := func(what string) {
				t.Helper()
				if diff := fixture.Diff(before, debateFiles(t, root)); len(diff) > 0 {
					t.Fatalf("%s changed the debate: %v", what, diff)
				}
			}

			code, _, stderr := mootIn(t, root, "answer", "d", c.role, file)
			if code != 0 || !strings.Contains(stderr, "already taken") || !strings.Contains(stderr, call) {
				t.Errorf("the same answer again: exit %d, want 0 and %q named as already taken\n%s", code, call, stderr)
			}
			unchanged("the same answer again")

			code, _, stderr = mootIn(t, root, "answer", "d", c.role, file, "--call", call)
			if code != 0 || !strings.Contains(stderr, "already taken") {
				t.Errorf("the same answer again with --call %s: exit %d, want 0 and already taken\n%s", call, code, stderr)
			}
			unchanged("the same answer again with --call")

			other := filepath.Join(t.TempDir(), "other")
			if err := os.WriteFile(other, []byte("Another answer altogether.\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			code, _, stderr = mootIn(t, root, "answer", "d", c.role, other, "--call", call)
			if code != cli.ExitRefused || !strings.Contains(stderr, "already taken") {
				t.Errorf("another answer with --call %s: exit %d, want %d and already taken\n%s", call, code, cli.ExitRefused, stderr)
			}
			unchanged("another answer for a call taken")
		})
	}
}

// committedFiles reads the debate d under root, .moot aside.
func committedFiles(t *testing.T, root string) map[string]string {
	t.Helper()
	return fixture.Without(debateFiles(t, root), func(p string) bool { return strings.HasPrefix(p, ".moot") })
}

// TestAnswerHandedInAgainAfterAFault: moot answer cut short at any of its
// writes (the N-th fails, which leaves the files as a kill there does),
// and the same file handed in again, ends as one uninterrupted hand-in:
// the call takes the answer once, the next call never takes it, and the
// second hand-in exits 0. In every protocol.
func TestAnswerHandedInAgainAfterAFault(t *testing.T) {
	defer faults.Arm(faults.Plan{})
	for _, c := range personCases {
		t.Run(c.protocol, func(t *testing.T) {
			// staged has every answer of the step handed in but the last,
			// which each hand-in below gives, on a copy.
			staged := stopForPerson(t, c)
			file, _ := handIn(t, staged, c, true)
			args := []string{"answer", "d", c.role, file}
			if len(waiting(t, staged, c.protocol, c.role)) > 1 {
				args = append(args, "--call", strings.TrimSuffix(filepath.Base(file), ".answer"))
			}
			copyOf := func() string {
				root := t.TempDir()
				if err := fixture.CopyTree(staged, root); err != nil {
					t.Fatal(err)
				}
				return root
			}
			ref := copyOf()
			faults.ResetCount()
			faults.Arm(faults.Plan{})
			if code, _, stderr := mootIn(t, ref, args...); code != 0 {
				t.Fatalf("moot answer: exit %d\n%s", code, stderr)
			}
			writes := faults.Count()
			want := committedFiles(t, ref)
			// Under the race detector with casesApartEnv set, the middle
			// write's fault and the last's, then the hand-in without a
			// fault: test.sh's pass without the detector fails every write
			// (go test -run '^TestAnswerHandedInAgainAfterAFault$').
			next := func(n int64) int64 { return n + 1 }
			if raceEnabled && os.Getenv(casesApartEnv) != "" && writes > 2 {
				next = func(n int64) int64 {
					if n < (writes+1)/2 {
						return (writes + 1) / 2
					}
					if n < writes {
						return writes
					}
					return n + 1
				}
				t.Logf("the faults of writes %d and %d of %d under the race detector: test.sh's pass without it fails every write, as %s is set", (writes+1)/2, writes, writes, casesApartEnv)
			}
			for n := next(0); ; n = next(n) {
				root := copyOf()
				faults.ResetCount()
				faults.Arm(faults.Plan{At: n})
				code, _, stderr := mootIn(t, root, args...)
				faults.Arm(faults.Plan{})
				if faults.Count() < n {
					if code != 0 {
						t.Fatalf("moot answer with no fault: exit %d\n%s", code, stderr)
					}
					break // every write has had its fault
				}
				code, _, stderr = mootIn(t, root, args...)
				if code != 0 {
					t.Errorf("write %d failed; handed in again: exit %d\n%s", n, code, stderr)
				}
				if diff := fixture.Diff(want, committedFiles(t, root)); len(diff) > 0 {
					t.Errorf("write %d failed; handed in again, the debate differs from one hand-in: %v", n, diff)
				}
				if code, stdout, stderr := mootIn(t, root, "check", "d"); code != 0 {
					t.Errorf("write %d failed: moot check: exit %d\n%s%s", n, code, stdout, stderr)
				}
			}
		})
	}
}

// TestAnswerReplacedBeforeItsCallIsTaken: an answer replaced by another
// before its call was taken is not the one the call took: handed in
// again, it is refused (exit 3), and never used for the next call.
func TestAnswerReplacedBeforeItsCallIsTaken(t *testing.T) {
	c := personCases[4] // panel: a step asks the persona three times
	root := stopForPerson(t, c)
	ws := waiting(t, root, c.protocol, c.role)
	if len(ws) < 2 {
		t.Fatalf("the step asks the %s %d times, want several", c.role, len(ws))
	}
	dir := t.TempDir()
	first := filepath.Join(dir, "first")
	valid := builtinAnswer(t, c.protocol, ws[0].Call)
	if err := os.WriteFile(first, append(append([]byte{}, valid...), []byte("\n\nA first thought.")...), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, stderr := mootIn(t, root, "answer", "d", c.role, first, "--call", ws[0].Call.ID); code != 0 {
		t.Fatalf("the first answer: exit %d\n%s", code, stderr)
	}
	second := filepath.Join(dir, "second")
	if err := os.WriteFile(second, valid, 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, stderr := mootIn(t, root, "answer", "d", c.role, second, "--call", ws[0].Call.ID); code != 0 {
		t.Fatalf("the second answer: exit %d\n%s", code, stderr)
	}
	handIn(t, root, c, false) // the other calls
	commitStep(t, root, c)
	before := debateFiles(t, root)
	code, _, stderr := mootIn(t, root, "answer", "d", c.role, first)
	if code != cli.ExitRefused || !strings.Contains(stderr, "already taken with another answer") {
		t.Errorf("the replaced answer again: exit %d, want %d\n%s", code, cli.ExitRefused, stderr)
	}
	if diff := fixture.Diff(before, debateFiles(t, root)); len(diff) > 0 {
		t.Errorf("the debate changed: %v", diff)
	}
}
