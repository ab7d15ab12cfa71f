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
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	sm "github.com/moot-dev/moot/statemachine"

	ucli "github.com/urfave/cli/v3"

	driver "github.com/moot-dev/moot/internal/driver"
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
	ExitBudget      = 7   // --budget stopped the run before a step; every step before it is committed
	ExitInterrupted = 130 // interrupted (Ctrl-C, SIGINT); the step in progress was not applied
	ExitTerminated  = 143 // stopped by SIGTERM; the step in progress was not applied
)

// Version is moot's version, set at build time with -ldflags. When it is
// not set, the version comes from the build information Go records (see
// versionOf).
var Version = ""

// exitError carries an exit code and optional hints with an error. usage
// marks an error in the command line itself, which alone earns a pointer
// to the help of cmd, the command it was given to.
type exitError struct {
	code  int
	err   error
	hints []string
	usage bool
	cmd   string
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

// usageError is an error in the command line: exit 2, with a pointer to
// the command's help when it has no hint of its own.
func usageError(format string, args ...any) error {
	return badUsage(fmt.Errorf(format, args...))
}

// badUsage makes err an error in the command line, with hints.
func badUsage(err error, hints ...string) error {
	return &exitError{code: ExitUsage, err: err, hints: hints, usage: true}
}

// forCommand records that err, if it is a usage error, was made by the
// command name, so that its hint points at that command's help.
func forCommand(err error, name string) error {
	var ee *exitError
	if errors.As(err, &ee) && ee.usage && ee.cmd == "" {
		ee.cmd = name
	}
	return err
}

// IO is where a command reads and writes, and how it learns the time and
// the environment: the real ones in Main, fakes in tests.
type IO struct {
	Stdin  io.Reader
	Stdout io.Writer
	Stderr io.Writer
	Now    func() time.Time
	Getenv func(string) string
	// Protocols are the protocols moot knows, each registered by its
	// line in cmd/moot; a test registers those it runs. A debate whose
	// state file names no protocol is of the default one (sm.Default).
	Protocols sm.Protocols
	// Narrator, when set, returns the model that writes report
	// --narrative analyses and its name, from the environment and the
	// model the debate names for it; nil means the model the environment
	// configures.
	Narrator func(getenv func(string) string, debateModel string) (NarrativeWriter, string, error)
}

// Main runs moot with os.Args and returns the exit code. The first SIGINT
// or SIGTERM cancels the command, which stops at once without applying the
// step in progress; a second one exits there and then. protocols are the
// protocols moot knows, each registered by its line in cmd/moot.
func Main(args []string, protocols ...sm.Protocol) int {
	ctx, cancel := context.WithCancelCause(context.Background())
	defer cancel(nil)
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	defer signal.Stop(sigs)
	go watchSignals(sigs, cancel, os.Stderr, os.Exit)
	return Run(ctx, args, IO{Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr, Now: time.Now, Getenv: os.Getenv, Protocols: protocols})
}

// signalError is the cause of a command cancelled by a signal.
type signalError struct {
	sig os.Signal
}

func (e *signalError) Error() string { return "stopped by " + e.sig.String() }

// signalCode is the exit code of a command stopped by sig: 128 plus the
// signal's number, as shells report it (130 for SIGINT, 143 for SIGTERM).
func signalCode(sig os.Signal) int {
	if sig == syscall.SIGTERM {
		return ExitTerminated
	}
	return ExitInterrupted
}

// watchSignals cancels the command at the first signal from sigs, and
// calls exit at the second without waiting for the command to wind down:
// that is safe at any instant, since a step cut short is either not
// recorded at all or recorded in the journal, which the next command that
// writes completes, and the kernel releases the lock with the process.
func watchSignals(sigs <-chan os.Signal, cancel context.CancelCauseFunc, stderr io.Writer, exit func(int)) {
	first, ok := <-sigs
	if !ok {
		return
	}
	cancel(&signalError{first})
	second, ok := <-sigs
	if !ok {
		return
	}
	fmt.Fprintf(stderr, "moot: error: stopped again (%s); quitting at once\n", second)
	fmt.Fprintf(stderr, "moot: hint: a step cut short is either not written or completed by the next command that writes; 'moot check' tells\n")
	exit(signalCode(second))
}

// Run runs moot with args (args[0] is the program name) and returns the
// exit code. Errors are printed once, here, in the form
// "moot: error: ..." followed by "moot: hint: ..." lines.
func Run(ctx context.Context, args []string, io IO) int {
	app := &app{io: io, env: io.Getenv}
	// moot.yaml stands in for the environment variables it sets when the
	// environment leaves them unset.
	app.io.Getenv = func(name string) string {
		if v, ok := app.apiFor(name); ok {
			return v
		}
		if v := app.env(name); strings.TrimSpace(v) != "" {
			return v
		}
		return app.configEnv(name)
	}
	if len(args) > 0 {
		app.prog, app.args = args[0], args[1:]
	}
	args = joinWait(args)
	root := app.command(args)
	err := root.Run(ctx, args)
	if err == nil {
		err = app.eventErr
	}
	if err == nil {
		return ExitOK
	}
	return app.report(ctx, err)
}

func (a *app) report(ctx context.Context, err error) int {
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
	var refused *driver.Refused
	if errors.As(err, &refused) && code == ExitError {
		code = ExitRefused
	}
	var awaiting *driver.AwaitingPerson
	if errors.As(err, &awaiting) && code == ExitError {
		code = ExitPerson
		hints = append(hints, personHints(awaiting)...)
	}
	// A file of the debate that cannot be accepted is a fault of the
	// files, as check's problems are.
	if code == ExitError && driver.IsBadFiles(err) {
		code = ExitCheckFailed
	}
	var busy *store.BusyError
	if errors.As(err, &busy) && code == ExitError {
		code = ExitBusy
		hints = append(hints, "wait for it to finish, or add --wait to wait for it; status, check and show can read the debate meanwhile")
	}
	var journal *store.JournalError
	if errors.As(err, &journal) {
		hints = append(hints, fmt.Sprintf("the interrupted step recorded in %s cannot be completed; look at it, then remove it to drop that step and run 'moot check' again", journal.Path))
	}
	msg := strings.TrimSpace(err.Error())
	if errors.Is(err, context.Canceled) {
		code, msg = ExitInterrupted, "interrupted"
		var sig *signalError
		if errors.As(context.Cause(ctx), &sig) && signalCode(sig.sig) == ExitTerminated {
			code, msg = ExitTerminated, "terminated"
		}
		if len(hints) == 0 {
			hints = append(hints, "nothing of the interrupted step was written; run the same command again to carry on")
		}
	}
	if a.jsonEvents {
		a.errorEvent(err, code, msg, hints)
		if a.eventErr != nil && !errors.Is(err, a.eventErr) {
			hints = append(hints, "some JSON events were not written: "+a.eventErr.Error())
		}
	}
	if ee != nil && ee.usage && len(hints) == 0 {
		if ee.cmd != "" {
			hints = append(hints, fmt.Sprintf("'moot help %s' shows its arguments, flags and examples", ee.cmd))
		} else {
			hints = append(hints, "'moot help' lists the commands, 'moot help COMMAND' the arguments and flags of one")
		}
	}
	fmt.Fprintf(a.io.Stderr, "moot: error: %s\n", visible(msg, true))
	for _, h := range hints {
		fmt.Fprintf(a.io.Stderr, "moot: hint: %s\n", visible(a.asInvoked(h), false))
	}
	return code
}

type app struct {
	io IO
	// prog is the program's name as it was called (args[0]), and args
	// the arguments after it, as they were given.
	prog string
	args []string
	// jsonEvents is set by run and step --json: an error then also ends
	// the stream of events on stdout.
	jsonEvents bool
	// exchange is the debate's current exchange once a run or step has
	// read the debate, for the error event.
	exchange *int
	// eventErr is the first failure to write a JSON event to stdout: the
	// command then fails, even when all else went well.
	eventErr error
	// person answers the calls of the roles run --human names; nil
	// without it.
	person driver.Person
	// env is the environment as it is, io.Getenv with moot.yaml under it.
	env func(string) string
	// api is --api's value, which stands in for MOOT_API; "" when not
	// given.
	api string
	// rootCmd is the command line's root, whose --dir says where
	// moot.yaml is; cfg is moot.yaml once read (cfgRead), cfgErr why it
	// could not be.
	rootCmd *ucli.Command
	cfgMu   sync.Mutex
	cfgRead bool
	cfg     *config
	cfgErr  error
}

// writeEvent writes v to stdout as one line of JSON, and keeps the first
// failure to do so for the command's result.
func (a *app) writeEvent(v any) {
	if err := writeJSONLine(a.io.Stdout, v); err != nil && a.eventErr == nil {
		a.eventErr = fmt.Errorf("write stdout: %w", err)
	}
}

// errorEvent writes the last event of a failed run --json: the exit code,
// the message, the problems one per item, and the hints. Every role that
// failed is named in roles; role is set when only one did.
func (a *app) errorEvent(err error, code int, msg string, hints []string) {
	problems := problemsOf(err)
	failed := roleErrors(err)
	if len(failed) > 1 {
		msg = bothFailed(failed)
	} else if len(problems) > 0 {
		// The message then lists them on the lines after its first.
		first, _, _ := strings.Cut(msg, "\n")
		msg = strings.TrimSuffix(strings.TrimSpace(first), ":")
	}
	ev := map[string]any{"time": a.io.Now(), "event": "error", "code": code, "message": msg,
		"problems": append([]string{}, problems...), "hints": append([]string{}, hints...)}
	if a.exchange != nil {
		ev["exchange"] = *a.exchange
	}
	if len(failed) > 0 {
		roles := make([]string, len(failed))
		for i, re := range failed {
			roles[i] = string(re.Role)
		}
		ev["exchange"], ev["roles"] = failed[0].Exchange, roles
		if len(failed) == 1 {
			ev["role"] = roles[0]
		}
	}
	a.writeEvent(ev)
}

// roleErrors returns every role failure err carries, in the order the
// roles were asked: both debaters can fail in the same step.
func roleErrors(err error) []*driver.RoleError {
	if re, ok := err.(*driver.RoleError); ok {
		return []*driver.RoleError{re}
	}
	switch u := err.(type) {
	case interface{ Unwrap() []error }:
		var out []*driver.RoleError
		for _, e := range u.Unwrap() {
			out = append(out, roleErrors(e)...)
		}
		return out
	case interface{ Unwrap() error }:
		return roleErrors(u.Unwrap())
	}
	return nil
}

// bothFailed is the one-line message of a step whose debaters both failed,
// or, for another protocol, several of whose roles did.
func bothFailed(failed []*driver.RoleError) string {
	how := make([]string, len(failed))
	for i, re := range failed {
		if re.Err != nil {
			how[i] = fmt.Sprintf("the %s's model failed", re.Role)
		} else {
			how[i] = fmt.Sprintf("the %s's answer was refused after every repair", re.Role)
		}
	}
	if u := failed[0].Unit; u != "" && u != "exchange" {
		roles := make([]string, len(failed))
		for i, re := range failed {
			roles[i] = string(re.Role)
		}
		return fmt.Sprintf("%s %d: %s failed: %s", u, failed[0].Exchange, strings.Join(roles, " and "), strings.Join(how, "; "))
	}
	return fmt.Sprintf("exchange %d: both debaters failed: %s", failed[0].Exchange, strings.Join(how, "; "))
}

// problemsOf lists the problems an error carries: the errors of an answer
// refused after every repair, the reasons of a refused step, or the
// problems of a debate that fails check. When several roles failed, each
// problem, or each model's failure, is given as "role: problem".
func problemsOf(err error) []string {
	var re *driver.RoleError
	var refused *driver.Refused
	var broken *driver.Broken
	var bad *brokenDebate
	if failed := roleErrors(err); len(failed) > 1 {
		var out []string
		for _, re := range failed {
			if re.Err != nil {
				out = append(out, fmt.Sprintf("%s: %s", re.Role, strings.Join(strings.Fields(re.Err.Error()), " ")))
			}
			for _, p := range re.Problems {
				out = append(out, fmt.Sprintf("%s: %s", re.Role, p))
			}
		}
		return out
	}
	switch {
	case errors.As(err, &re):
		return re.Problems
	case errors.As(err, &refused):
		return refused.Reasons
	case errors.As(err, &broken):
		return problemStrings(broken.Problems)
	case errors.As(err, &bad):
		return problemStrings(bad.problems)
	}
	return nil
}

func (a *app) command(args []string) *ucli.Command {
	dirFlag := &ucli.StringFlag{
		Name:    "dir",
		Usage:   "the debates root `DIR`",
		Value:   "debates",
		Sources: ucli.EnvVars("MOOT_DIR"),
	}
	root := &ucli.Command{
		Name:                  "moot",
		Usage:                 "structured debates between language models, kept as plain files",
		Writer:                a.io.Stdout,
		ErrWriter:             a.io.Stderr,
		Reader:                a.io.Stdin,
		HideHelpCommand:       true,
		EnableShellCompletion: true,
		// The completion command is urfave/cli's, made moot's own.
		ConfigureShellCompletionCommand: configureCompletion,
		Flags:                           []ucli.Flag{dirFlag, a.apiFlag()},
		ExitErrHandler:                  func(context.Context, *ucli.Command, error) {},
		OnUsageError: func(_ context.Context, cmd *ucli.Command, err error, _ bool) error {
			// A mistyped command before a flag of the command meant
			// (moot judge --all): the command is what is wrong, and
			// its nearest name what helps, not the root's flags.
			if name := invokedName(args); name != "" && cmd.Command(name) == nil {
				return unknownCommand(cmd, name)
			}
			return flagError(cmd, err)
		},
		CommandNotFound: nil,
		Action: func(ctx context.Context, cmd *ucli.Command) error {
			if cmd.Args().Len() > 0 {
				return unknownCommand(cmd, cmd.Args().First())
			}
			return ucli.ShowRootCommandHelp(cmd)
		},
	}
	builtins := a.builtins()
	name := invokedName(args)
	if i := slices.IndexFunc(builtins, func(b mootCommand) bool { return b.name == name }); i >= 0 && name != "help" {
		// Only the invoked command is built: the others, their flags
		// and help pages are of no use to it, and building them all was
		// a good part of what a short command such as status cost.
		root.Commands = []*ucli.Command{builtins[i].build()}
	} else {
		// No command, help, a root flag, a protocol's command or one
		// moot does not have: the whole tree, which help pages list and
		// near names are looked for in. The protocols' own commands come
		// before help, which ends the list.
		root.Version = version()
		for _, b := range builtins[:len(builtins)-1] {
			root.Commands = append(root.Commands, b.build())
		}
		root.Commands = append(root.Commands, a.protocolCommands(root.Commands)...)
		root.Commands = append(root.Commands, builtins[len(builtins)-1].build())
	}
	addHelp(root)
	addCompletions(root, true)
	a.addConfigSources(root)
	a.rootCmd = root
	root.Before = func(ctx context.Context, _ *ucli.Command) (context.Context, error) {
		// Every command reads moot.yaml, and fails on one that is wrong,
		// but help and completion, which must work to say how to fix it.
		if name == "" || name == "help" || name == "completion" || slices.Contains(args, "--generate-shell-completion") {
			return ctx, nil
		}
		if _, err := a.config(); err != nil {
			return ctx, err
		}
		return ctx, a.checkAPI()
	}
	return root
}

// mootCommand is one of moot's own commands: its name, and what builds it.
type mootCommand struct {
	name  string
	build func() *ucli.Command
}

// builtins lists moot's own commands in the order help shows them, help
// last.
func (a *app) builtins() []mootCommand {
	return a.withStepTools([]mootCommand{
		{"new", a.newCommand},
		{"demo", a.demoCommand},
		{"protocols", a.protocolsCommand},
		{"status", a.statusCommand},
		{"list", a.listCommand},
		{"show", a.showCommand},
		{"check", a.checkCommand},
		{"process-exchange", a.processExchangeCommand},
		{"process-judge", a.processJudgeCommand},
		{"run", a.runCommand},
		{"step", a.stepCommand},
		{"form", a.formCommand},
		{"answer", a.answerCommand},
		{"rejudge", a.rejudgeCommand},
		{"judges", a.judgesCommand},
		{"tournament", a.tournamentCommand},
		{"templates", a.templatesCommand},
		{"report", a.reportCommand},
		{"export", a.exportCommand},
		{"research", a.researchCommand},
		{"watch", a.watchCommand},
		{"serve", a.serveCommand},
		{"config", a.configCommand},
		{"doctor", a.doctorCommand},
		{"help", a.helpCommand},
	})
}

// usageOnError makes flag errors of a subcommand usage errors.
func usageOnError(_ context.Context, cmd *ucli.Command, err error, _ bool) error {
	return flagError(cmd, err)
}
