package cli

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	ucli "github.com/urfave/cli/v3"

	driver "github.com/moot-dev/moot/internal/driver"
	"github.com/moot-dev/moot/internal/english"
	sm "github.com/moot-dev/moot/statemachine"
	"github.com/moot-dev/moot/store"
)

// withStepTools returns moot's own commands with the protocols' step
// tools among them, before run.
func (a *app) withStepTools(cmds []mootCommand) []mootCommand {
	i := slices.IndexFunc(cmds, func(c mootCommand) bool { return c.name == "run" })
	if i < 0 {
		i = len(cmds)
	}
	return slices.Insert(cmds, i, a.stepToolCommands()...)
}

// stepToolCommands are the step tools the protocols offer
// (sm.StepTool), each a command of moot under the tool's name, such as
// debate-ops for dialectic's debate_ops: the same command lines, the
// debate found the same way (a path relative to the working directory),
// the input files removed as the tool removed them, the same printed
// objects on the same streams, and exit status 1 for every failure. The
// rules are moot's, as are the files it writes, and a step is all or
// nothing.
func (a *app) stepToolCommands() []mootCommand {
	var out []mootCommand
	for _, p := range a.io.Protocols {
		st, ok := p.(sm.StepTool)
		if !ok {
			continue
		}
		tool := st.StepTool()
		out = append(out, mootCommand{tool.Name, func() *ucli.Command { return a.stepToolCommand(p, tool) }})
	}
	return out
}

// stepToolCommand is the command that stands in for the step tool of p.
func (a *app) stepToolCommand(p sm.Protocol, tool sm.Tool) *ucli.Command {
	var args strings.Builder
	for i, c := range tool.Commands {
		if i > 0 {
			args.WriteString("\n   moot " + tool.Name + " ")
		}
		args.WriteString(c.Name + " " + c.ArgsUsage)
	}
	return &ucli.Command{
		Name:            tool.Name,
		Usage:           tool.Usage,
		ArgsUsage:       args.String(),
		Description:     tool.Help,
		SkipFlagParsing: true,
		Action: func(ctx context.Context, cmd *ucli.Command) error {
			if code := a.stepTool(ctx, p, tool, cmd.Args().Slice()); code != ExitOK {
				return &quietExit{code}
			}
			return nil
		},
	}
}

// toolFailure is a step tool's exit status for every failure.
const toolFailure = 1

// toolUsage is the usage line of tool's command c, printed in its error
// objects.
func toolUsage(tool sm.Tool, c sm.ToolCommand) string {
	return "usage: moot " + tool.Name + " " + c.Name + " " + c.ArgsUsage
}

// stepTool runs one command of the step tool of p and returns its exit
// status.
func (a *app) stepTool(ctx context.Context, p sm.Protocol, tool sm.Tool, args []string) int {
	if len(args) == 0 {
		return a.toolError("usage: moot " + tool.Name + " <command> <args...>")
	}
	var names, usages []string
	for _, c := range tool.Commands {
		names, usages = append(names, c.Name), append(usages, toolUsage(tool, c))
	}
	switch args[0] {
	case "-h", "--help", "help":
		fmt.Fprintf(a.io.Stdout, "%s\n\n%s\n", strings.Join(usages, "\n"), tool.Help)
		return ExitOK
	}
	i := slices.Index(names, args[0])
	if i < 0 {
		return a.toolError(fmt.Sprintf("unknown command %q: %s has %s", args[0], tool.Name, english.List(names, "and")))
	}
	c := tool.Commands[i]
	if len(args) != c.Args {
		return a.toolError(usages[i])
	}
	if c.Check != nil {
		if err := c.Check(args); err != nil {
			return a.toolError(err.Error())
		}
	}
	paths := make([]string, len(c.Files))
	for i, flag := range c.Files {
		var ok bool
		if paths[i], ok = flagValue(args, flag); !ok {
			return a.toolError(required(c.Files))
		}
	}
	inputs := make([][]byte, len(c.Files))
	for i, flag := range c.Files {
		var err error
		if inputs[i], err = readAnswer(paths[i], strings.TrimPrefix(flag, "--")); err != nil {
			return a.toolError(err.Error())
		}
	}
	d, err := a.toolOpen(ctx, tool, args)
	if err != nil {
		return a.toolError(err.Error())
	}
	defer d.Close()
	deb, err := driver.LoadDebate(d, p)
	if err != nil {
		return a.toolFailed(err)
	}
	res, err := c.Take(deb, args, inputs, a.io.Now())
	if err != nil {
		return a.toolFailed(err)
	}
	notes := res.Notes
	if res.Files != nil {
		notes = append(slices.Clip(notes), sameInputs(c.Files, paths)...)
		if err := driver.Commit(d, &sm.Commit{Files: res.Files}); err != nil {
			return a.toolFailed(err)
		}
	}
	a.consume(paths...)
	// moot's own warnings are notes on stderr; the printed object holds
	// only the tool's.
	for _, n := range notes {
		fmt.Fprintf(a.io.Stderr, "moot: note: %s\n", n)
	}
	if res.Stderr {
		fmt.Fprintln(a.io.Stderr, pyDumps(res.Object, false))
	} else {
		fmt.Fprintln(a.io.Stdout, pyDumps(res.Object, true))
	}
	if res.Failed {
		return toolFailure
	}
	return ExitOK
}

// required says that each of the flags is required.
func required(flags []string) string {
	if len(flags) == 1 {
		return flags[0] + " is required"
	}
	return "both " + english.List(flags, "and") + " are required"
}

// sameInputs returns a note for each two input files that are the same
// file: one side's answer was most likely handed in for both.
func sameInputs(flags, paths []string) []string {
	var out []string
	for i := range paths {
		a, err := os.Stat(paths[i])
		if err != nil {
			continue
		}
		for j := i + 1; j < len(paths); j++ {
			if b, err := os.Stat(paths[j]); err == nil && os.SameFile(a, b) {
				out = append(out, fmt.Sprintf("%s and %s are the same file (%s): both sides handed in the same answer", flags[i], flags[j], paths[j]))
			}
		}
	}
	return out
}

// toolError prints the object of a failure that concerns no answer (a
// wrong command line, a file that cannot be read, a debate that cannot
// take the step) on stderr, on one line. The input files are kept.
func (a *app) toolError(msg string) int {
	fmt.Fprintln(a.io.Stderr, pyDumps(pyObject{{"success", false}, {"error", msg}}, false))
	return toolFailure
}

// flagValue returns the argument after the first occurrence of flag in
// args, wherever it is, as debate_ops looked its flags up.
func flagValue(args []string, flag string) (string, bool) {
	i := slices.Index(args, flag)
	if i < 0 || i+1 >= len(args) {
		return "", false
	}
	return args[i+1], true
}

// pyInt is a whole number that Python holds as an int.
type pyInt int64

// toolOpen opens the debate at args[1], a path relative to the working
// directory as the tool took it, and takes its write lock without
// waiting.
func (a *app) toolOpen(ctx context.Context, tool sm.Tool, args []string) (*store.Dir, error) {
	dir := args[1]
	if _, err := os.Stat(filepath.Join(dir, sm.StateFile)); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("%s holds no %s: not a debate directory (%s takes the debate's path, relative to the working directory)", dir, sm.StateFile, tool.Name)
		}
		return nil, err
	}
	d, err := store.Open(dir)
	if err != nil {
		return nil, err
	}
	return a.lock(ctx, d, strings.Join(append([]string{"moot", tool.Name}, args[:2]...), " "), 0)
}

// consume removes the answer files once they have been judged, as
// debate_ops did; a file already gone is fine.
func (a *app) consume(files ...string) {
	for _, f := range files {
		if err := os.Remove(f); err != nil && !errors.Is(err, fs.ErrNotExist) {
			fmt.Fprintf(a.io.Stderr, "moot: warning: could not remove %s: %v\n", f, err)
		}
	}
}

// toolFailed prints the error object of a step the engine could not take:
// a broken debate's problems, a refusal's reasons, or the one error,
// joined into the one string of the object.
func (a *app) toolFailed(err error) int {
	return a.toolError(oneProblem(driver.Failure(false, err).Errors))
}

// oneProblem joins problems into the one string of an error object.
func oneProblem(problems []string) string {
	return strings.Join(problems, "; ")
}

// pyField is one key and value of a pyObject.
type pyField struct {
	key string
	val any
}

// pyObject is a JSON object whose keys keep their order.
type pyObject []pyField

// pyDumps encodes v as Python's json.dumps does with its defaults
// (non-ASCII escaped as \uXXXX, ", " and ": " between items), or with
// indent=2 when indent is set: one item a line, "," and ": ". Numbers are
// floats, written as Python writes them (0.3, 1.0, 1e-05).
func pyDumps(v any, indent bool) string {
	var b strings.Builder
	pyEncode(&b, v, indent, 0)
	return b.String()
}

func pyEncode(b *strings.Builder, v any, indent bool, depth int) {
	newline := func(d int) {
		if indent {
			b.WriteString("\n" + strings.Repeat("  ", d))
		}
	}
	sep := ", "
	if indent {
		sep = ","
	}
	list := func(n int, item func(i int)) {
		if n == 0 {
			b.WriteString("[]")
			return
		}
		b.WriteString("[")
		for i := 0; i < n; i++ {
			if i > 0 {
				b.WriteString(sep)
			}
			newline(depth + 1)
			item(i)
		}
		newline(depth)
		b.WriteString("]")
	}
	switch x := v.(type) {
	case nil:
		b.WriteString("null")
	case bool:
		b.WriteString(strconv.FormatBool(x))
	case string:
		pyString(b, x)
	case float64:
		b.WriteString(pyFloat(x))
	case pyInt:
		b.WriteString(strconv.FormatInt(int64(x), 10))
	case []any:
		list(len(x), func(i int) { pyEncode(b, x[i], indent, depth+1) })
	case []string:
		list(len(x), func(i int) { pyString(b, x[i]) })
	case []float64:
		list(len(x), func(i int) { b.WriteString(pyFloat(x[i])) })
	case sm.ToolInt:
		b.WriteString(strconv.FormatInt(int64(x), 10))
	case sm.ToolObject:
		o := make(pyObject, len(x))
		for i, f := range x {
			o[i] = pyField{f.Key, f.Value}
		}
		pyEncode(b, o, indent, depth)
	case pyObject:
		if len(x) == 0 {
			b.WriteString("{}")
			return
		}
		b.WriteString("{")
		for i, f := range x {
			if i > 0 {
				b.WriteString(sep)
			}
			newline(depth + 1)
			pyString(b, f.key)
			b.WriteString(": ")
			pyEncode(b, f.val, indent, depth+1)
		}
		newline(depth)
		b.WriteString("}")
	default:
		panic(fmt.Sprintf("pyDumps: unsupported type %T", v))
	}
}

// pyString writes s as a JSON string with every character outside
// printable ASCII escaped, as Python's json.dumps does by default.
func pyString(b *strings.Builder, s string) {
	b.WriteByte('"')
	for _, r := range s {
		switch r {
		case '"':
			b.WriteString(`\"`)
		case '\\':
			b.WriteString(`\\`)
		case '\n':
			b.WriteString(`\n`)
		case '\r':
			b.WriteString(`\r`)
		case '\t':
			b.WriteString(`\t`)
		case '\b':
			b.WriteString(`\b`)
		case '\f':
			b.WriteString(`\f`)
		default:
			switch {
			case r >= 0x20 && r < 0x7f:
				b.WriteRune(r)
			case r > 0xffff:
				r -= 0x10000
				fmt.Fprintf(b, `\u%04x\u%04x`, 0xd800+(r>>10), 0xdc00+(r&0x3ff))
			default:
				if r == utf8.RuneError {
					r = 0xfffd
				}
				fmt.Fprintf(b, `\u%04x`, r)
			}
		}
	}
	b.WriteByte('"')
}

// pyFloat writes x as Python's repr of a float: the shortest digits that
// read back to x, ".0" on whole numbers, an exponent below 1e-4 and from
// 1e16 on.
func pyFloat(x float64) string {
	switch {
	case math.IsNaN(x):
		return "NaN"
	case math.IsInf(x, 1):
		return "Infinity"
	case math.IsInf(x, -1):
		return "-Infinity"
	}
	if x != 0 && (math.Abs(x) < 1e-4 || math.Abs(x) >= 1e16) {
		s := strconv.FormatFloat(x, 'e', -1, 64)
		// Python writes 1e-05 and 1e+16, as Go does.
		return s
	}
	s := strconv.FormatFloat(x, 'f', -1, 64)
	if !strings.Contains(s, ".") {
		s += ".0"
	}
	return s
}
