package cli

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	driver "github.com/moot-dev/moot/internal/driver"
	sm "github.com/moot-dev/moot/statemachine"
	"github.com/moot-dev/moot/store"
)

// brokenDebate is the error of a read command (status, show, report,
// export) given a debate that fails moot check: what it would print could
// be wrong, so it prints nothing and names the problems. It exits 4, as
// check does.
type brokenDebate struct {
	dir      string
	command  string
	problems []sm.Problem
}

func (e *brokenDebate) Error() string {
	lines := make([]string, len(e.problems))
	for i, p := range e.problems {
		lines[i] = filepath.Join(e.dir, p.File) + ": " + p.Message
	}
	n := "1 problem"
	if len(lines) != 1 {
		n = fmt.Sprintf("%d problems", len(lines))
	}
	return fmt.Sprintf("%s fails check with %s, and %s reads only a debate that passes it:\n  %s",
		e.dir, n, e.command, strings.Join(lines, "\n  "))
}

// problemStrings writes each problem as "file: message".
func problemStrings(ps []sm.Problem) []string {
	out := make([]string, len(ps))
	for i, p := range ps {
		out[i] = p.String()
	}
	return out
}

// loadChecked reads the debate in d with p's code for the read command
// command, as one commit left it, and refuses it with exit 4 when it fails
// moot check, naming its problems. A protocol that checks its files itself
// (an sm.FilesChecker) names them in its check's words, a file its Load
// could not read among them, as `moot check` does; the files are read
// twice only when something is wrong with them.
func loadChecked(d *store.Dir, p sm.Protocol, command string) (sm.Debate, error) {
	deb, err := driver.ReadDebate(d, p)
	var f sm.Findings
	if err == nil {
		f = deb.Check()
	}
	if _, ok := p.(sm.FilesChecker); ok && (err != nil || !f.OK()) {
		if own, _, cerr := checkFiles(d, p); cerr == nil && !own.OK() {
			f = own
		}
	}
	if !f.OK() {
		return nil, withCode(ExitCheckFailed, &brokenDebate{dir: d.Path(), command: command, problems: f.Problems},
			fmt.Sprintf("fix the files (or restore them, with git for instance), then 'moot check %s' to see that it passes", d.Path()))
	}
	return deb, err
}

// plainBadFiles unwraps a *driver.BadFilesError: a debate's file that
// cannot be read fails a step handed in by hand (process-exchange,
// process-judge) with the plain error, and its exit status, as dialectic's
// always has (a check of it still says exit 4).
func plainBadFiles(err error) error {
	var bad *driver.BadFilesError
	if errors.As(err, &bad) {
		return bad.Err
	}
	return err
}
