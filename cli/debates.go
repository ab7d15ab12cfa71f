package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	ucli "github.com/urfave/cli/v3"

	"github.com/moot-dev/moot/debate"
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
		if ValidSlug(arg) {
			if _, err := os.Stat(filepath.Join(dir, debate.HeaderFile)); err == nil {
				return dir, nil
			}
		}
		// A directory of that name here holding a debate is meant too.
		if _, err := os.Stat(filepath.Join(arg, debate.HeaderFile)); err == nil {
			return arg, nil
		}
		if !ValidSlug(arg) {
			return "", withCode(ExitUsage, fmt.Errorf("%q is not a debate slug (lowercase letters, digits and hyphens) nor a debate directory", arg))
		}
		return "", withCode(ExitError, fmt.Errorf("no debate %q under %s", arg, root(cmd)),
			"'moot list' shows the debates there; '--dir DIR' or MOOT_DIR points elsewhere")
	}
	if _, err := os.Stat(filepath.Join(arg, debate.HeaderFile)); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return "", withCode(ExitError, fmt.Errorf("%s holds no %s: not a debate directory", arg, debate.HeaderFile))
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

// waitFlag returns the --wait flag of every command that writes a debate
// (a new one each time: a flag keeps its parsed value).
func waitFlag() *ucli.BoolFlag {
	return &ucli.BoolFlag{Name: "wait", Usage: "if another moot process is writing the debate, wait for it to finish instead of failing"}
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
	return a.lock(ctx, d, a.holder(cmd), cmd.Bool("wait"))
}

// lock takes the write lock of the open debate d as openForWrite does, and
// closes d if it cannot.
func (a *app) lock(ctx context.Context, d *store.Dir, holder string, wait bool) (*store.Dir, error) {
	if _, err := d.Lock(ctx, holder, wait); err != nil {
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

// holder is how this process names itself in a debate's lock file: the
// command and its arguments, without flags, whose values are nobody's
// business.
func (a *app) holder(cmd *ucli.Command) string {
	s := strings.Join(append([]string{"moot", cmd.Name}, cmd.Args().Slice()...), " ")
	if r := []rune(s); len(r) > 200 {
		s = string(r[:199]) + "…"
	}
	return s
}

// listDebates returns the directories under the root that hold debate.md.
func listDebates(rootDir string) ([]string, error) {
	entries, err := os.ReadDir(rootDir)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, nil
		}
		return nil, fmt.Errorf("read %s: %w", rootDir, err)
	}
	var out []string
	for _, e := range entries {
		if !e.IsDir() || strings.HasPrefix(e.Name(), ".") {
			continue
		}
		if _, err := os.Stat(filepath.Join(rootDir, e.Name(), debate.HeaderFile)); err == nil {
			out = append(out, e.Name())
		}
	}
	sort.Strings(out)
	return out, nil
}

// readAnswer reads a file handed to process-exchange or process-judge.
func readAnswer(path, flag string) ([]byte, error) {
	if path == "" {
		return nil, usageError("--%s is required", flag)
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

// MaxAnswerSize is the largest answer moot reads: 1 MiB.
const MaxAnswerSize = 1 << 20
