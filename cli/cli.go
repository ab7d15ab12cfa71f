// Package cli is moot's command line: it parses arguments with
// urfave/cli, calls the engine, and turns every error into one message on
// stderr and an exit code that means something.
package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"regexp"
	"strings"
	"syscall"
	"time"

	ucli "github.com/urfave/cli/v3"

	"github.com/moot-dev/moot/engine"
	"github.com/moot-dev/moot/store"
)

// Exit codes. They are documented in the README.
const (
	ExitOK          = 0   // success
	ExitError       = 1   // an error: a file that cannot be read or written, a broken debate
	ExitUsage       = 2   // the command line is wrong
	ExitRefused     = 3   // a step was refused: wrong phase or exchange, or an answer broke a rule; nothing changed
	ExitCheckFailed = 4   // moot check found problems
	ExitBusy        = 5   // another moot process is writing the debate
	ExitModel       = 6   // a model could not give a valid answer, or the endpoint failed
	ExitInterrupted = 130 // interrupted (Ctrl-C); the step in progress was not applied
)

// Version is moot's version, set at build time with -ldflags.
var Version = "dev"

// exitError carries an exit code and optional hints with an error.
type exitError struct {
	code  int
	err   error
	hints []string
}

func (e *exitError) Error() string { return e.err.Error() }
func (e *exitError) Unwrap() error { return e.err }

// quietExit ends a command with an exit code after the command has said
// all it had to say itself (moot debate-ops prints JSON, not "moot: error:").
type quietExit struct{ code int }

func (e *quietExit) Error() string { return fmt.Sprintf("exit status %d", e.code) }

func withCode(code int, err error, hints ...string) error {
	if err == nil {
		return nil
	}
	return &exitError{code: code, err: err, hints: hints}
}

func usageError(format string, args ...any) error {
	return withCode(ExitUsage, fmt.Errorf(format, args...))
}

// IO is where a command reads and writes, and how it learns the time and
// the environment: the real ones in Main, fakes in tests.
type IO struct {
	Stdin  io.Reader
	Stdout io.Writer
	Stderr io.Writer
	Now    func() time.Time
	Getenv func(string) string
}

// Main runs moot with os.Args and returns the exit code.
func Main(args []string) int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	return Run(ctx, args, IO{Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr, Now: time.Now, Getenv: os.Getenv})
}

// Run runs moot with args (args[0] is the program name) and returns the
// exit code. Errors are printed once, here, in the form
// "moot: error: ..." followed by "moot: hint: ..." lines.
func Run(ctx context.Context, args []string, io IO) int {
	app := &app{io: io}
	root := app.command()
	err := root.Run(ctx, args)
	if err == nil {
		return ExitOK
	}
	return app.report(err)
}

func (a *app) report(err error) int {
	var q *quietExit
	if errors.As(err, &q) {
		return q.code
	}
	code := ExitError
	var hints []string
	var ee *exitError
	if errors.As(err, &ee) {
		code = ee.code
		hints = ee.hints
	}
	var refused *engine.Refused
	if errors.As(err, &refused) && code == ExitError {
		code = ExitRefused
	}
	var busy *store.BusyError
	if errors.As(err, &busy) && code == ExitError {
		code = ExitBusy
		hints = append(hints, "wait for it to finish, or add --wait to wait for it; status, check and show can read the debate meanwhile")
	}
	msg := strings.TrimSpace(err.Error())
	if errors.Is(err, context.Canceled) {
		code = ExitInterrupted
		msg = "interrupted"
		hints = append(hints, "nothing of the interrupted step was written; run the same command again to carry on")
	}
	if code == ExitUsage && len(hints) == 0 {
		hints = append(hints, "'moot --help' lists the commands, 'moot COMMAND --help' the arguments and flags of one")
	}
	fmt.Fprintf(a.io.Stderr, "moot: error: %s\n", msg)
	for _, h := range hints {
		fmt.Fprintf(a.io.Stderr, "moot: hint: %s\n", h)
	}
	return code
}

type app struct {
	io IO
}

var slugPattern = regexp.MustCompile(`^[a-z0-9][a-z0-9-]{0,63}$`)

// ValidSlug reports whether s can name a debate: lowercase letters, digits
// and hyphens, starting with a letter or digit, at most 64 characters.
func ValidSlug(s string) bool { return slugPattern.MatchString(s) }

func (a *app) command() *ucli.Command {
	dirFlag := &ucli.StringFlag{
		Name:    "dir",
		Usage:   "the debates root `DIR`",
		Value:   "debates",
		Sources: ucli.EnvVars("MOOT_DIR"),
	}
	return &ucli.Command{
		Name:                  "moot",
		Usage:                 "structured debates between language models, kept as plain files",
		Version:               Version,
		Writer:                a.io.Stdout,
		ErrWriter:             a.io.Stderr,
		Reader:                a.io.Stdin,
		HideHelpCommand:       true,
		EnableShellCompletion: false,
		Flags:                 []ucli.Flag{dirFlag},
		ExitErrHandler:        func(context.Context, *ucli.Command, error) {},
		OnUsageError: func(_ context.Context, _ *ucli.Command, err error, _ bool) error {
			return withCode(ExitUsage, err, "run 'moot --help' for the commands and flags")
		},
		CommandNotFound: nil,
		Commands: []*ucli.Command{
			a.newCommand(),
			a.statusCommand(),
			a.listCommand(),
			a.showCommand(),
			a.checkCommand(),
			a.processExchangeCommand(),
			a.processJudgeCommand(),
			a.debateOpsCommand(),
			a.runCommand(),
			a.stepCommand(),
			a.templatesCommand(),
			a.reportCommand(),
			a.exportCommand(),
		},
		Action: func(ctx context.Context, cmd *ucli.Command) error {
			if cmd.Args().Len() > 0 {
				return withCode(ExitUsage, fmt.Errorf("unknown command %q", cmd.Args().First()), "run 'moot --help' for the commands")
			}
			return ucli.ShowRootCommandHelp(cmd)
		},
	}
}

// usageOnError makes flag errors of a subcommand usage errors.
func usageOnError(_ context.Context, cmd *ucli.Command, err error, _ bool) error {
	return withCode(ExitUsage, err, fmt.Sprintf("run 'moot %s --help' for its arguments and flags", cmd.Name))
}
