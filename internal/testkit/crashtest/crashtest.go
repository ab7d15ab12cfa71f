// Package crashtest drives the moot binary through a scripted debate while
// killing it, and checks what moot promises about crashes: after every
// kill the debate passes `moot check`, no entry of the debate's records is
// written twice, the next writing command completes the interrupted step,
// and the finished debate equals, file by file, one run without
// interruption (what differs between any two runs, times, aside). It knows
// no protocol: a test says what a protocol's records are and what of its
// files differs between runs (Harness.Records, Harness.Normalise).
//
// A script is data: a list of Steps, each a moot command line and the
// state the debate is in once it is done. Commands that advance the debate
// by many steps (moot run) fit the same way: the step is retried until the
// debate reaches its state.
//
// For the protocols of the step model, KillAtEveryCall kills `moot run
// --all` while each model call of a debate is in flight, against a fake
// model server, and checks that the resumed debate equals an uninterrupted
// one and that only the calls in flight are asked twice.
package crashtest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/moot-dev/moot/internal/testkit/fixture"
	sm "github.com/moot-dev/moot/statemachine"
	"github.com/moot-dev/moot/store"
)

// State is where a debate stands, as `moot status --json` prints it.
type State struct {
	Exchange int    `json:"exchange"`
	Phase    string `json:"phase"`
}

func (s State) String() string { return fmt.Sprintf("exchange %d, %s", s.Exchange, s.Phase) }

// Step is one command of a script and the state the debate is in once the
// command has done its work.
type Step struct {
	// Args are moot's arguments after "--dir <root>".
	Args []string
	// Env is added to the environment of this step's process (a fake
	// model server's address, for instance).
	Env []string
	// Until is the state the step leaves.
	Until State
	// Redone are the exit codes with which the command may refuse when it
	// is run again after its work was done (or recorded in the journal)
	// by a killed run: 3 (refused: wrong phase) when nil.
	Redone []int
}

func (s Step) redone(code int) bool {
	if s.Redone == nil {
		return code == 3
	}
	for _, c := range s.Redone {
		if c == code {
			return true
		}
	}
	return false
}

func (s Step) String() string { return strings.Join(s.Args, " ") }

// Harness runs one debate with the moot binary Bin under the debates root
// Root.
type Harness struct {
	Bin  string
	Root string
	Slug string
	// Env is added to the environment of every process.
	Env []string
	// Records, when set, reads the debate's records: the entries its
	// steps add, by key, which a step run again after a crash must never
	// add twice (dialectic's are each argument's score history in
	// scores.json). Without it only the debate's state, `moot check` and
	// its files are checked.
	Records Records
	// Normalise, when set, returns a file's content with what differs
	// between two runs of the same debate (times) blanked, for Files.
	Normalise func(name, data string) string
}

// Records reads a debate's records through read, which returns a file
// of the debate by its slash path: for each key, its entries in the order
// they were added, each a string equal to the same entry of another run
// of the same debate (times left out).
type Records func(read func(name string) ([]byte, error)) (map[string][]string, error)

// Dir is the debate's directory.
func (h *Harness) Dir() string { return filepath.Join(h.Root, h.Slug) }

// Outcome is how one moot process ended.
type Outcome struct {
	// Code is the exit status; -1 when the process was killed by a signal.
	Code           int
	Killed         bool
	Stdout, Stderr string
	Elapsed        time.Duration
}

func (o Outcome) String() string {
	if o.Killed {
		return fmt.Sprintf("killed after %v", o.Elapsed)
	}
	return fmt.Sprintf("exit %d after %v; stderr: %s", o.Code, o.Elapsed, strings.TrimSpace(o.Stderr))
}

// execGuard bounds one moot process: only a guard, for a process that
// hangs, as a whole debate run by a process that is not the race
// detector's can take more than a minute on a loaded machine.
const execGuard = 10 * time.Minute

// Exec runs moot with args and env. When kill > 0 the process is sent
// SIGKILL after kill, if it is still running by then. A process still
// running after execGuard is killed, and Exec says so in its error.
func (h *Harness) Exec(args, env []string, kill time.Duration) (Outcome, error) {
	ctx, cancel := context.WithTimeout(context.Background(), execGuard)
	defer cancel()
	cmd := exec.CommandContext(ctx, h.Bin, append([]string{"--dir", h.Root}, args...)...)
	cmd.Env = append(append(os.Environ(), h.Env...), env...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return Outcome{}, err
	}
	if kill > 0 {
		t := time.AfterFunc(kill, func() { cmd.Process.Signal(syscall.SIGKILL) })
		defer t.Stop()
	}
	err := cmd.Wait()
	o := Outcome{Stdout: stdout.String(), Stderr: stderr.String(), Elapsed: time.Since(start)}
	if ctx.Err() != nil {
		return o, fmt.Errorf("moot %s still ran after %v, the guard of one process: killed", strings.Join(args, " "), execGuard)
	}
	var exit *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &exit):
		o.Code = exit.ExitCode()
		if ws, ok := exit.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			o.Killed, o.Code = true, -1
		}
	default:
		return o, err
	}
	return o, nil
}

// State returns the debate's state; ok is false when there is no debate.
func (h *Harness) State() (st State, ok bool, err error) {
	if _, err := os.Stat(filepath.Join(h.Dir(), sm.StateFile)); errors.Is(err, fs.ErrNotExist) {
		return st, false, nil
	}
	o, err := h.Exec([]string{"status", "--json", h.Slug}, nil, 0)
	if err != nil {
		return st, false, err
	}
	if o.Code != 0 {
		return st, false, fmt.Errorf("moot status: %s", o)
	}
	if err := json.Unmarshal([]byte(o.Stdout), &st); err != nil {
		return st, false, fmt.Errorf("moot status --json: %w", err)
	}
	return st, true, nil
}

// Check runs moot check and fails unless it passes.
func (h *Harness) Check() (Outcome, error) {
	o, err := h.Exec([]string{"check", h.Slug}, nil, 0)
	if err != nil {
		return o, err
	}
	if o.Code != 0 {
		return o, fmt.Errorf("moot check failed: %s\n%s", o, o.Stdout)
	}
	return o, nil
}

// Entries counts the entries of the debate's records as a reader sees the
// debate (an interrupted commit counts as done); 0 without Records.
func (h *Harness) Entries() (int, error) {
	recs, err := h.records()
	n := 0
	for _, entries := range recs {
		n += len(entries)
	}
	return n, err
}

// records reads the debate's records as a reader sees it.
func (h *Harness) records() (map[string][]string, error) {
	if h.Records == nil {
		return nil, nil
	}
	d, err := store.Open(h.Dir())
	if err != nil {
		return nil, err
	}
	defer d.Close()
	return h.Records(d.ReadFile)
}

// Files reads every file of the debate directory, .moot included, keyed by
// slash path, as fixture.Tree does, each through Normalise. The hash of
// the last journal in .moot/commit is blanked, so that two runs compare
// equal.
func (h *Harness) Files() (map[string]string, error) {
	out, err := fixture.Tree(h.Dir())
	if err != nil {
		return nil, err
	}
	if h.Normalise != nil {
		for name, data := range out {
			out[name] = h.Normalise(name, data)
		}
	}
	// The hash of the last journal changes with the times in it.
	if _, ok := out[store.CommitFile]; ok {
		out[store.CommitFile] = "*"
	}
	return out, nil
}

// Diff lists the files that differ between two Files results.
var Diff = fixture.Diff

// Reference is an uninterrupted run of a script: the files after each
// step, how many entries its records hold after each step, and how long
// each step took.
type Reference struct {
	Files   []map[string]string
	Entries []int
	Took    []time.Duration
}

// RunReference runs every step once, without interruption.
func (h *Harness) RunReference(steps []Step) (*Reference, error) {
	ref := &Reference{}
	for _, s := range steps {
		o, err := h.Exec(s.Args, s.Env, 0)
		if err != nil {
			return nil, err
		}
		if o.Code != 0 {
			return nil, fmt.Errorf("%s: %s", s, o)
		}
		files, err := h.Files()
		if err != nil {
			return nil, err
		}
		n, err := h.Entries()
		if err != nil {
			return nil, err
		}
		ref.Files = append(ref.Files, files)
		ref.Entries = append(ref.Entries, n)
		ref.Took = append(ref.Took, o.Elapsed)
	}
	return ref, nil
}

// AfterCrash checks what must hold after a process was killed (or exited
// part way) during step i: if the debate exists, moot check passes and
// its records hold the entries of before the step or of after it, never
// more; if it does not, the killed step was the one that creates it.
func (h *Harness) AfterCrash(ref *Reference, i int) error {
	st, ok, err := h.State()
	if err != nil {
		return err
	}
	if !ok {
		if i != 0 {
			return fmt.Errorf("the debate is gone after a crash in step %d", i)
		}
		if _, err := os.Lstat(h.Dir()); err == nil {
			return fmt.Errorf("a crash in new left %s without %s", h.Dir(), sm.StateFile)
		}
		return nil
	}
	if _, err := h.Check(); err != nil {
		return err
	}
	n, err := h.Entries()
	if err != nil {
		return err
	}
	before := 0
	if i > 0 {
		before = ref.Entries[i-1]
	}
	if n != before && n != ref.Entries[i] {
		return fmt.Errorf("after a crash at %s the debate's records hold %d entries, want %d (before the step) or %d (after it)", st, n, before, ref.Entries[i])
	}
	return h.recordsArePrefixes(ref)
}

// recordsArePrefixes checks that every key's entries in the debate's
// records, as a reader sees it now, are the beginning of its entries at
// the end of the reference run: an entry added twice, or one that the
// reference never had, shows up even when a single command (moot run)
// spans many steps.
func (h *Harness) recordsArePrefixes(ref *Reference) error {
	if h.Records == nil {
		return nil
	}
	last := ref.Files[len(ref.Files)-1]
	final, err := h.Records(func(name string) ([]byte, error) {
		data, ok := last[name]
		if !ok {
			return nil, fmt.Errorf("%s: %w", name, fs.ErrNotExist)
		}
		return []byte(data), nil
	})
	if err != nil {
		return fmt.Errorf("the reference's records: %w", err)
	}
	now, err := h.records()
	if err != nil {
		return err
	}
	for _, key := range slices.Sorted(maps.Keys(now)) {
		got := now[key]
		want, ok := final[key]
		if !ok || len(got) > len(want) {
			return fmt.Errorf("%s has %d entries; the finished reference run has %d", key, len(got), len(want))
		}
		for k, e := range got {
			if e != want[k] {
				return fmt.Errorf("%s's entry %d is %s; the reference run has %s there", key, k, e, want[k])
			}
		}
	}
	return nil
}

// Finish runs step i again without killing it, as a user would after a
// crash: it must exit 0, or, if the killed run had already done or
// recorded the step, refuse with one of the step's Redone codes (having
// completed the recorded step). The debate must then be at the step's
// state with exactly the reference's entries in its records: a retried
// step is never applied twice.
func (h *Harness) Finish(ref *Reference, steps []Step, i int) error {
	s := steps[i]
	wasDone, err := h.Done(s)
	if err != nil {
		return err
	}
	o, err := h.Exec(s.Args, s.Env, 0)
	if err != nil {
		return err
	}
	st, ok, err := h.State()
	if err != nil {
		return err
	}
	if !ok || st != s.Until {
		return fmt.Errorf("%s: %s; the debate is at %v, want %v", s, o, st, s.Until)
	}
	if o.Code != 0 && !(wasDone && s.redone(o.Code)) {
		return fmt.Errorf("%s (done before: %v): %s", s, wasDone, o)
	}
	if _, err := os.Stat(filepath.Join(h.Dir(), store.JournalFile)); err == nil {
		return fmt.Errorf("%s: the journal is still there after a writer ran", s)
	}
	n, err := h.Entries()
	if err != nil {
		return err
	}
	if n != ref.Entries[i] {
		return fmt.Errorf("after %s the debate's records hold %d entries, want %d", s, n, ref.Entries[i])
	}
	return nil
}

// Done reports whether the debate has reached step i's state.
func (h *Harness) Done(s Step) (bool, error) {
	st, ok, err := h.State()
	return ok && st == s.Until, err
}
