package cli

import (
	"fmt"
	"path/filepath"
	"strings"

	driver "github.com/moot-dev/moot/internal/driver"
	"github.com/moot-dev/moot/internal/evidence"
	sm "github.com/moot-dev/moot/statemachine"
	"github.com/moot-dev/moot/statemachine/dialectic"
	"github.com/moot-dev/moot/store"
)

// brokenDebate is the error of a read command (status, show, report,
// export) given a debate that fails moot check: what it would print could
// be wrong, so it prints nothing and names the problems. It exits 4, as
// check does.
type brokenDebate struct {
	dir      string
	command  string
	problems []dialectic.Problem
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
func problemStrings(ps []dialectic.Problem) []string {
	out := make([]string, len(ps))
	for i, p := range ps {
		out[i] = p.String()
	}
	return out
}

// stepProblems lists the problems of the dialectic debate in d that its
// files read as one debate do not show, and the step model does: those of
// the judges' folders (a panel judge's current_score that is not its last
// score) and of the sources. It is asked of a debate whose own files pass.
func stepProblems(d *store.Dir) []dialectic.Problem {
	if !d.Exists(sm.JudgmentsDir) && !d.Exists(evidence.Dir) {
		return nil // nothing more to read
	}
	deb, err := driver.ReadDebate(d, dialectic.Protocol{})
	if err != nil {
		return nil
	}
	return deb.Check().Problems
}

// loadChecked reads the debate in d for the read command command, as one
// commit left it, and refuses it with exit 4 when it fails moot check.
func loadChecked(d *store.Dir, command string) (*dialectic.Debate, error) {
	raw, err := readRaw(d)
	if err != nil {
		return nil, err
	}
	// Each file is parsed once: a debate that loads is checked as loaded,
	// and only one that does not (or that has no scores.json, which Load
	// takes as empty) is parsed again by debate.Check to list its problems.
	deb, loadErr := dialectic.Load(raw)
	var ps []dialectic.Problem
	if loadErr != nil || raw.Scores == nil {
		ps = dialectic.Check(raw).Problems
	} else {
		ps = deb.Check().Problems
	}
	if len(ps) == 0 {
		ps = stepProblems(d)
	}
	if len(ps) > 0 {
		return nil, withCode(ExitCheckFailed, &brokenDebate{dir: d.Path(), command: command, problems: ps},
			fmt.Sprintf("fix the files (or restore them, with git for instance), then 'moot check %s' to see that it passes", d.Path()))
	}
	if loadErr != nil {
		return nil, fmt.Errorf("read %w", loadErr)
	}
	return deb, nil
}
