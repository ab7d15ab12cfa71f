// Package crashtest drives the moot binary through a scripted debate while
// killing it, and checks what moot promises about crashes: after every
// kill the debate passes `moot check`, no judgment's history entries are
// written twice, the next writing command completes the interrupted step,
// and the finished debate equals, file by file, one run without
// interruption (the times in scores.json aside).
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
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"time"

	"github.com/moot-dev/moot/internal/testkit/fixture"
	sm "github.com/moot-dev/moot/statemachine"
	"github.com/moot-dev/moot/statemachine/dialectic"
	"github.com/moot-dev/moot/statemachine/dialectic/dialectictest"
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

// Script writes the scripted answers of a debate of the given number of
// exchanges into dir and returns its steps: new, then for each exchange
// process-exchange and process-judge.
func Script(dir, slug string, exchanges int) ([]Step, error) {
	steps := []Step{{
		Args:   []string{"new", slug, "--motion", "This house would keep every debate on disk."},
		Until:  State{0, string(dialectic.AwaitingArguments)},
		Redone: []int{2}, // "already exists": a command line naming a debate that is there
	}}
	for e := 0; e < exchanges; e++ {
		files := map[string][]byte{
			fmt.Sprintf("prop-%d.json", e):  dialectictest.Answer(dialectic.Prop, e),
			fmt.Sprintf("opp-%d.json", e):   dialectictest.Answer(dialectic.Opp, e),
			fmt.Sprintf("judge-%d.json", e): dialectictest.Judgment(e),
		}
		for name, data := range files {
			if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
				return nil, err
			}
		}
		steps = append(steps,
			Step{
				Args: []string{"process-exchange", slug, fmt.Sprint(e),
					"--prop-file", filepath.Join(dir, fmt.Sprintf("prop-%d.json", e)),
					"--opp-file", filepath.Join(dir, fmt.Sprintf("opp-%d.json", e))},
				Until: State{e, string(dialectic.AwaitingJudgment)},
			},
			Step{
				Args:  []string{"process-judge", slug, "--json-file", filepath.Join(dir, fmt.Sprintf("judge-%d.json", e))},
				Until: State{e + 1, string(dialectic.AwaitingArguments)},
			})
	}
	return steps, nil
}

// Harness runs one debate with the moot binary Bin under the debates root
// Root.
type Harness struct {
	Bin  string
	Root string
	Slug string
	// Env is added to the environment of every process.
	Env []string
}

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

// Exec runs moot with args and env. When kill > 0 the process is sent
// SIGKILL after kill, if it is still running by then.
func (h *Harness) Exec(args, env []string, kill time.Duration) (Outcome, error) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
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

// Entries counts the history entries of scores.json as a reader sees the
// debate (an interrupted commit counts as done).
func (h *Harness) Entries() (int, error) {
	d, err := store.Open(h.Dir())
	if err != nil {
		return 0, err
	}
	defer d.Close()
	data, err := d.ReadFile(dialectic.ScoresFile)
	if err != nil {
		return 0, err
	}
	s, err := dialectic.ParseScores(data)
	if err != nil {
		return 0, err
	}
	n := 0
	for _, id := range s.IDs() {
		r, _ := s.Get(id)
		n += len(r.History)
	}
	return n, nil
}

var scoredAt = regexp.MustCompile(`"scored_at": "[^"]*"`)

// Files reads every file of the debate directory, .moot included, keyed by
// slash path, as fixture.Tree does. The times in scores.json, and the hash
// of the last journal in .moot/commit, are blanked, so that two runs
// compare equal.
func (h *Harness) Files() (map[string]string, error) {
	out, err := fixture.Tree(h.Dir())
	if err != nil {
		return nil, err
	}
	if b, ok := out[dialectic.ScoresFile]; ok {
		out[dialectic.ScoresFile] = scoredAt.ReplaceAllString(b, `"scored_at": "*"`)
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
// step, the history entries after each step, and how long each step took.
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
// the history entries are those before the step or those after it, never
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
		return fmt.Errorf("after a crash at %s scores.json holds %d history entries, want %d (before the step) or %d (after it)", st, n, before, ref.Entries[i])
	}
	return h.historiesArePrefixes(ref)
}

// historiesArePrefixes checks that every argument's score history, as a
// reader sees it now, is the beginning of its history at the end of the
// reference run: an entry appended twice, or one that the reference never
// had, shows up even when a single command (moot run) spans many steps.
func (h *Harness) historiesArePrefixes(ref *Reference) error {
	final, err := dialectic.ParseScores([]byte(ref.Files[len(ref.Files)-1][dialectic.ScoresFile]))
	if err != nil {
		return fmt.Errorf("the reference's scores.json: %w", err)
	}
	d, err := store.Open(h.Dir())
	if err != nil {
		return err
	}
	defer d.Close()
	data, err := d.ReadFile(dialectic.ScoresFile)
	if err != nil {
		return err
	}
	now, err := dialectic.ParseScores(data)
	if err != nil {
		return err
	}
	for _, id := range now.IDs() {
		got, _ := now.Get(id)
		want, ok := final.Get(id)
		if !ok || len(got.History) > len(want.History) {
			return fmt.Errorf("%s has %d history entries; the finished reference run has %d", id, len(got.History), len(want.History))
		}
		for k, e := range got.History {
			if !sameEntry(e, want.History[k]) {
				return fmt.Errorf("%s.history[%d] is %+v; the reference run has %+v there", id, k, e, want.History[k])
			}
		}
	}
	return nil
}

func sameEntry(a, b dialectic.HistoryEntry) bool {
	eq := func(x, y *float64) bool { return (x == nil) == (y == nil) && (x == nil || *x == *y) }
	return a.Score == b.Score && a.Reasoning == b.Reasoning && a.TriggeredBy == b.TriggeredBy &&
		eq(a.PreviousScore, b.PreviousScore) && eq(a.Diff, b.Diff)
}

// Finish runs step i again without killing it, as a user would after a
// crash: it must exit 0, or, if the killed run had already done or
// recorded the step, refuse with one of the step's Redone codes (having
// completed the recorded step). The debate must then be at the step's
// state with exactly the reference's history entries: a retried judgment
// is never applied twice.
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
		return fmt.Errorf("after %s scores.json holds %d history entries, want %d", s, n, ref.Entries[i])
	}
	return nil
}

// Done reports whether the debate has reached step i's state.
func (h *Harness) Done(s Step) (bool, error) {
	st, ok, err := h.State()
	return ok && st == s.Until, err
}
