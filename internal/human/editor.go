package human

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"strings"

	"golang.org/x/term"

	"github.com/moot-dev/moot/internal/driver"
	"github.com/moot-dev/moot/store"
)

// Editor is the person of moot run --human: it answers the calls of its
// roles by opening an editor on a draft under the debate's .moot/, and
// reads the form back until the answer passes the call's validation.
type Editor struct {
	// Roles are the roles the person plays.
	Roles map[string]bool
	Dir   *store.Dir
	// Command is the editor, run by the shell with the draft's path as
	// its argument; "" when there is none, and the run then stops for the
	// answer to be handed in with moot answer.
	Command string
	// NoEditor says why there is no editor, for the error.
	NoEditor string
	// Stdin, Stdout and Stderr are the editor's; Stderr also shows the
	// errors of an answer refused.
	Stdin          io.Reader
	Stdout, Stderr io.Writer
	// Title names the debate in the draft.
	Title string
}

// Plays reports whether the person plays role.
func (e *Editor) Plays(role string) bool { return e.Roles[role] }

// Answer writes the draft of q, opens the editor on it, and reads it back
// until the answer is valid; an editor that fails, or a form saved
// without a change, stops with an *driver.AwaitingPerson, the draft
// kept.
func (e *Editor) Answer(ctx context.Context, q driver.Question) ([]byte, error) {
	path, err := e.Dir.PrivatePath(q.Draft)
	if err != nil {
		return nil, err
	}
	wait := func(reason string) error {
		return &driver.AwaitingPerson{Role: q.Call.Role, Reason: reason, Call: q.Call.ID, Name: driver.CallName(q.Step, q.Call), Debate: e.Dir.Path(), Draft: path}
	}
	title := fmt.Sprintf("the %s's answer in %s, call %s", q.Call.Role, e.Title, driver.CallName(q.Step, q.Call))
	form, err := Form(q.Call)
	if err != nil {
		return nil, err
	}
	// A draft an earlier run left keeps what the person had written.
	if old, err := e.Dir.ReadPrivate(q.Draft); err == nil && lastMarker(string(old)) >= 0 {
		form = FormOf(string(old))
	} else if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("read the draft: %w", err)
	}
	form = Named(form, driver.CallName(q.Step, q.Call))
	var errs []string
	for {
		draft := Draft(title, q.Call, errs, form)
		if err := e.Dir.WritePrivate(q.Draft, []byte(draft)); err != nil {
			return nil, fmt.Errorf("write the draft: %w", err)
		}
		if e.Command == "" {
			return nil, wait(e.NoEditor)
		}
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		fmt.Fprintf(e.Stderr, "moot: the %s's answer is asked of you: opening %s\n", q.Call.Role, path)
		cmd := exec.CommandContext(ctx, "/bin/sh", "-c", e.Command+` "$1"`, "sh", path)
		cmd.Stdin, cmd.Stdout, cmd.Stderr = e.Stdin, e.Stdout, e.Stderr
		if err := cmd.Run(); err != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			return nil, wait(fmt.Sprintf("the editor failed (%v)", err))
		}
		edited, err := e.Dir.ReadPrivate(q.Draft)
		if err != nil {
			return nil, wait(fmt.Sprintf("the draft cannot be read (%v)", err))
		}
		if string(edited) == draft {
			return nil, wait("the form was closed without a change")
		}
		form = Named(FormOf(string(edited)), driver.CallName(q.Step, q.Call))
		answer, _, err := Read(q.Call, edited)
		var fe *FormError
		switch {
		case errors.As(err, &fe):
			errs = fe.Problems
		case err != nil:
			errs = []string{err.Error()}
		default:
			rep := q.Validate(answer)
			if rep.OK() {
				return answer, nil
			}
			errs = rep.Errors
		}
		fmt.Fprintf(e.Stderr, "moot: the %s's answer was refused: %s; the editor opens again\n", q.Call.Role, strings.Join(errs, "; "))
	}
}

// EditorCommand returns the editor a person's answers are asked in, from
// the environment: $MOOT_EDITOR always (an editor that needs no
// terminal, or a script), else $VISUAL or $EDITOR when stdin is a
// terminal; "" and why there is none otherwise.
func EditorCommand(getenv func(string) string, stdin io.Reader) (string, string) {
	if c := strings.TrimSpace(getenv("MOOT_EDITOR")); c != "" {
		return c, ""
	}
	if !terminal(stdin) {
		return "", "there is no terminal to open an editor in, and $MOOT_EDITOR names no editor that needs none"
	}
	for _, k := range []string{"VISUAL", "EDITOR"} {
		if c := strings.TrimSpace(getenv(k)); c != "" {
			return c, ""
		}
	}
	return "", "neither $VISUAL nor $EDITOR names an editor"
}

// terminal reports whether r is a terminal. A character device is not
// enough: /dev/null is one, and an editor opened on it hangs or fails.
func terminal(r io.Reader) bool {
	f, ok := r.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}
