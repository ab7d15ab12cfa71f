package cli

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	ucli "github.com/urfave/cli/v3"

	"github.com/moot-dev/moot/internal/english"
	"github.com/moot-dev/moot/internal/tournament"
	sm "github.com/moot-dev/moot/statemachine"
	"github.com/moot-dev/moot/store"
)

// checked is what check --all found of one debate or tournament.
type checked struct {
	Name       string `json:"name"`
	Path       string `json:"path"`
	Kind       string `json:"kind"` // "debate" or "tournament"
	Protocol   string `json:"protocol,omitempty"`
	Tournament string `json:"tournament,omitempty"`
	// Debates is how many debates a tournament's plan holds.
	Debates  int          `json:"debates,omitempty"`
	OK       bool         `json:"ok"`
	Problems []sm.Problem `json:"problems"`
	Warnings []sm.Problem `json:"warnings"`
	// Error is set when the folder could not be read at all.
	Error string `json:"error,omitempty"`
}

// checkAll is `moot check --all`: every debate under the root, those of
// its tournaments too, checked by its own protocol's code, and every
// tournament's plan against its folders, a line each. It exits 4 when any
// of them is broken.
func (a *app) checkAll(cmd *ucli.Command) error {
	debates, ts, err := rootDebates(root(cmd))
	if err != nil {
		return err
	}
	var all []checked
	for _, rd := range debates {
		all = append(all, a.checkDebateAt(rd))
	}
	for _, t := range ts {
		all = append(all, a.checkTournamentAt(t))
	}
	broken := 0
	for _, c := range all {
		if !c.OK {
			broken++
		}
	}
	if cmd.Bool("json") {
		if all == nil {
			all = []checked{}
		}
		if err := writeJSON(a.io.Stdout, all); err != nil {
			return err
		}
	} else {
		if len(all) == 0 {
			fmt.Fprintln(a.io.Stderr, a.asInvoked(fmt.Sprintf("moot: no debates under %s; create one with: moot new <slug> --motion \"...\"", root(cmd))))
			return nil
		}
		rows := make([][]string, len(all))
		for i, c := range all {
			rows[i] = []string{"ok", visible(c.Name, false), c.describe()}
			if !c.OK {
				rows[i][0] = "broken"
			}
		}
		writeColumns(a.io.Stdout, rows)
	}
	if broken > 0 {
		return withCode(ExitCheckFailed, fmt.Errorf("%s: %d of its %d debates and tournaments fail check", root(cmd), broken, len(all)),
			"'moot check DEBATE' lists a debate's problems; 'moot tournament status NAME' a tournament's")
	}
	return nil
}

// describe is the rest of c's line: what it is, and its first problem.
func (c checked) describe() string {
	what := c.Protocol
	if c.Kind == "tournament" {
		what = "tournament"
		if c.Protocol != "" {
			what += " of " + c.Protocol
		}
		if c.Debates > 0 {
			what += ", " + english.Count(c.Debates, "debate")
		}
	} else if c.Tournament != "" {
		what += ", of tournament " + c.Tournament
	}
	switch {
	case c.Error != "":
		return what + ": " + oneLine(visible(c.Error, false), 100)
	case !c.OK:
		first := oneLine(visible(c.Problems[0].String(), false), 100)
		if len(c.Problems) == 1 {
			return what + ": 1 problem: " + first
		}
		return fmt.Sprintf("%s: %d problems, first: %s", what, len(c.Problems), first)
	case len(c.Warnings) > 0:
		return what + ", " + english.Count(len(c.Warnings), "warning")
	}
	return what
}

// checkDebateAt checks the debate rd as `moot check` does.
func (a *app) checkDebateAt(rd rootDebate) checked {
	c := checked{Name: rd.Name, Path: rd.Path, Kind: "debate", Tournament: rd.Tournament, Problems: []sm.Problem{}, Warnings: []sm.Problem{}}
	fail := func(err error) checked {
		c.Error, c.OK = err.Error(), false
		return c
	}
	d, err := store.Open(rd.Path)
	if err != nil {
		return fail(err)
	}
	defer d.Close()
	p, err := a.checkedProtocol(d)
	if err != nil {
		return fail(err)
	}
	c.Protocol = p.Name()
	f, _, err := checkFiles(d, p)
	if err != nil {
		return fail(err)
	}
	c.OK = f.OK()
	c.Problems = append(c.Problems, f.Problems...)
	c.Warnings = append(c.Warnings, f.Warnings...)
	return c
}

// checkTournamentAt checks the tournament t: its plan reads, names a
// protocol moot knows, and each of its debates has its folder.
func (a *app) checkTournamentAt(t rootTournament) checked {
	c := checked{Name: tournament.Dir + "/" + t.Name, Path: t.Path, Kind: "tournament", Problems: []sm.Problem{}, Warnings: []sm.Problem{}}
	problem := func(file, msg string) checked {
		c.Problems = append(c.Problems, sm.Problem{File: file, Message: msg})
		return c
	}
	plan, _, err := a.readTournament(t.Path)
	if err != nil {
		return problem(tournament.FileName, err.Error())
	}
	c.Protocol = plan.Protocol
	for _, deb := range plan.Debates {
		if _, err := os.Lstat(filepath.Join(t.Path, deb.Slug, sm.StateFile)); errors.Is(err, fs.ErrNotExist) {
			problem(deb.Slug, fmt.Sprintf("the plan's debate has no %s", sm.StateFile))
		} else if err != nil {
			problem(deb.Slug, err.Error())
		}
	}
	c.OK, c.Debates = len(c.Problems) == 0, len(plan.Debates)
	return c
}
