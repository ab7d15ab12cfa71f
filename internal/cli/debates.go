package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	ucli "github.com/urfave/cli/v3"

	driver "github.com/moot-dev/moot/internal/driver"
	sm "github.com/moot-dev/moot/statemachine"
	"github.com/moot-dev/moot/store"
)

// root returns the debates root: --dir, else MOOT_DIR, else ./debates.
func root(cmd *ucli.Command) string {
	if r := cmd.String("dir"); r != "" {
		return r
	}
	return "debates" // an empty MOOT_DIR counts as unset
}

// debateDir resolves a debate argument: a path to a directory holding
// debate.md, or a slug under the debates root.
func debateDir(cmd *ucli.Command, arg string) (string, error) {
	if arg == "" {
		return "", usageError("missing the debate: give its slug or the path of its directory")
	}
	isPath := strings.ContainsAny(arg, `/\`) || arg == "." || arg == ".."
	if !isPath {
		dir := filepath.Join(root(cmd), arg)
		if store.ValidSlug(arg) {
			if _, err := os.Stat(filepath.Join(dir, sm.StateFile)); err == nil {
				return dir, nil
			}
		}
		// A directory of that name here holding a debate is meant too.
		if _, err := os.Stat(filepath.Join(arg, sm.StateFile)); err == nil {
			return arg, nil
		}
		var hints []string
		if names, err := listDebates(root(cmd)); err == nil {
			if near, ok := nearest(arg, names); ok {
				hints = append(hints, fmt.Sprintf("did you mean '%s'?", near))
			}
		}
		if !store.ValidSlug(arg) {
			return "", badUsage(fmt.Errorf("%q is not a debate slug (lowercase letters, digits and hyphens) nor a debate directory", arg), hints...)
		}
		hints = append(hints, "'moot list' shows the debates there; '--dir DIR' or MOOT_DIR points elsewhere")
		return "", withCode(ExitError, fmt.Errorf("no debate %q under %s", arg, root(cmd)), hints...)
	}
	if _, err := os.Stat(filepath.Join(arg, sm.StateFile)); err != nil {
		// A path from the debates root, as list names a tournament's
		// debates (tournaments/cup/m01-r1-a-vs-b), is meant too.
		if in := filepath.Join(root(cmd), arg); errors.Is(err, fs.ErrNotExist) && filepath.IsLocal(arg) {
			if _, err := os.Stat(filepath.Join(in, sm.StateFile)); err == nil {
				return in, nil
			}
		}
		if errors.Is(err, fs.ErrNotExist) {
			return "", withCode(ExitError, fmt.Errorf("%s holds no %s: not a debate directory", arg, sm.StateFile))
		}
		return "", err
	}
	return arg, nil
}

// openDebate resolves and opens the debate named by the first argument.
func openDebate(cmd *ucli.Command) (*store.Dir, error) {
	dir, err := debateDir(cmd, cmd.Args().First())
	if err != nil {
		return nil, err
	}
	return store.Open(dir)
}

// DefaultWait is how long a bare --wait waits for another writer.
const DefaultWait = 5 * time.Minute

// waitFlag returns the --wait flag of every command that writes a debate
// (a new one each time: a flag keeps its parsed value).
func waitFlag() ucli.Flag {
	return &ucli.GenericFlag{Name: "wait", Value: &waitValue{},
		Usage: "if another moot process is writing the debate, wait up to `DURATION` for it instead of failing (alone: 5m)"}
}

// waitValue is the value of --wait: how long to wait for the lock, 0 for
// not at all. The flag works alone (--wait, DefaultWait) or with a
// duration after "=" (--wait=10m); Run joins "--wait 10m" into that form.
type waitValue struct {
	d time.Duration
}

// Set takes "true" (the flag alone), "false", or a positive duration.
func (w *waitValue) Set(s string) error {
	switch s {
	case "true":
		w.d = DefaultWait
	case "false":
		w.d = 0
	default:
		d, err := time.ParseDuration(s)
		if err != nil || d <= 0 {
			return fmt.Errorf("--wait takes a duration such as 30s or 10m, not %q", s)
		}
		w.d = d
	}
	return nil
}

func (w *waitValue) String() string {
	if w.d == 0 {
		return ""
	}
	return w.d.String()
}

// Get returns the time to wait, a time.Duration.
func (w *waitValue) Get() any { return w.d }

// IsBoolFlag lets --wait stand alone, without a value.
func (w *waitValue) IsBoolFlag() bool { return true }

// joinWait rewrites "--wait D" as "--wait=D" when D is a duration with a
// unit (10m, 90s), so that --wait takes its bound either way. Anything
// else after --wait (a debate, a number of exchanges) is left as it is.
func joinWait(args []string) []string {
	out := make([]string, 0, len(args))
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			return append(out, args[i:]...)
		}
		if (a == "--wait" || a == "-wait") && i+1 < len(args) && isDuration(args[i+1]) {
			out = append(out, a+"="+args[i+1])
			i++
			continue
		}
		out = append(out, a)
	}
	return out
}

func isDuration(s string) bool {
	d, err := time.ParseDuration(s)
	return err == nil && d > 0 && strings.ContainsAny(s, "hmsuµn")
}

// waitFor is how long the command's --wait says to wait for the lock.
func waitFor(cmd *ucli.Command) time.Duration {
	d, _ := cmd.Value("wait").(time.Duration)
	return d
}

// openForWrite opens the debate named by the first argument for a command
// that writes it, in the order every writer follows: take the lock (or
// fail at once, or wait with --wait), complete an interrupted step if the
// journal holds one, and only then let the caller load, validate and
// commit. Close releases the lock.
func (a *app) openForWrite(ctx context.Context, cmd *ucli.Command) (*store.Dir, error) {
	d, err := openDebate(cmd)
	if err != nil {
		return nil, err
	}
	return a.lock(ctx, d, a.holder(cmd), waitFor(cmd))
}

// lock takes the write lock of the open debate d as openForWrite does,
// waiting up to wait for another writer (not at all when wait is 0), and
// closes d if it cannot.
func (a *app) lock(ctx context.Context, d *store.Dir, holder string, wait time.Duration) (*store.Dir, error) {
	d.OnWait(func(h *store.Holder) {
		fmt.Fprintf(a.io.Stderr, "moot: note: %s is %s; waiting for it to finish\n", d.Path(), describeHolder(h))
	})
	lockCtx, cancel := ctx, context.CancelFunc(func() {})
	if wait > 0 {
		lockCtx, cancel = context.WithTimeout(ctx, wait)
	}
	err := d.Lock(lockCtx, holder, wait > 0)
	cancel()
	if err != nil {
		if errors.Is(err, context.DeadlineExceeded) && ctx.Err() == nil {
			err = withCode(ExitBusy, &store.BusyError{Dir: d.Path(), Holder: d.Writer()},
				fmt.Sprintf("waited %s for it; --wait=DURATION waits longer", wait))
		}
		d.Close()
		return nil, err
	}
	pending := d.Pending()
	if err := d.Recover(); err != nil {
		d.Close()
		return nil, err
	}
	if pending {
		fmt.Fprintf(a.io.Stderr, "moot: note: completed the interrupted step recorded in %s\n", filepath.Join(d.Path(), store.JournalFile))
	}
	return d, nil
}

// describeHolder says who holds a debate's lock, for status and for a
// writer that waits: "being written by moot run demo (pid 12) since ...".
func describeHolder(h *store.Holder) string {
	if h == nil || h.PID == 0 {
		return "being written by another moot process"
	}
	s := fmt.Sprintf("being written by %s (pid %d)", h.Command, h.PID)
	if h.StartedAt != "" {
		s += " since " + h.StartedAt
	}
	return s
}

// holder is how this process names itself in a debate's lock file: the
// command and its arguments, without flags, whose values are nobody's
// business.
func (a *app) holder(cmd *ucli.Command) string {
	return clip(strings.Join(append([]string{"moot", cmd.Name}, cmd.Args().Slice()...), " "))
}

// invocation is the command line as it was given, flags included (moot
// run x --all), from the command's name on: global flags before it
// (--dir) are left out. The live file gives it, so that a watcher sees
// what the run was asked to do.
func (a *app) invocation(cmd *ucli.Command) string {
	lineage := cmd.Lineage()
	if len(a.args) == 0 || len(lineage) < 2 {
		return a.holder(cmd)
	}
	top := lineage[len(lineage)-2].Name
	i := slices.Index(a.args, top)
	if i < 0 {
		return a.holder(cmd)
	}
	words := []string{"moot"}
	for _, w := range a.args[i:] {
		words = append(words, shellQuote(w))
	}
	return clip(strings.Join(words, " "))
}

// clip cuts s to 200 characters.
func clip(s string) string {
	if r := []rune(s); len(r) > 200 {
		s = string(r[:199]) + "…"
	}
	return s
}

// listDebates returns the directories under the root that hold debate.md.
func listDebates(rootDir string) ([]string, error) {
	return store.Debates(rootDir, sm.StateFile)
}

// readAnswer reads a file handed to process-exchange or process-judge.
func readAnswer(path, flag string) ([]byte, error) {
	if path == "" {
		return nil, usageError("--%s is required", flag)
	}
	// What is not a regular file is refused before it is opened: a named
	// pipe would make moot wait for a writer.
	if info, err := os.Stat(path); err == nil && !info.Mode().IsRegular() {
		return nil, badUsage(fmt.Errorf("read --%s: %s is not a regular file", flag, path), "hand in the answer as a regular file")
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("read --%s: %w", flag, err)
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("read --%s: %w", flag, err)
	}
	if info.Size() > MaxAnswerSize {
		return nil, withCode(ExitRefused, fmt.Errorf("read --%s: %s is %d bytes, over the %d-byte limit for an answer", flag, path, info.Size(), MaxAnswerSize))
	}
	data, err := io.ReadAll(io.LimitReader(f, MaxAnswerSize+1))
	if err != nil {
		return nil, fmt.Errorf("read --%s: %w", flag, err)
	}
	if len(data) > MaxAnswerSize {
		return nil, withCode(ExitRefused, fmt.Errorf("read --%s: %s is over the %d-byte limit for an answer", flag, path, MaxAnswerSize))
	}
	return data, nil
}

// MaxAnswerSize is the largest answer moot reads: engine.MaxAnswerSize.
const MaxAnswerSize = driver.MaxAnswerSize
