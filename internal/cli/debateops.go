package cli

import (
	"bytes"
	"context"
	"encoding/json"
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
	"github.com/moot-dev/moot/statemachine/dialectic"
	"github.com/moot-dev/moot/store"
)

// debateOpsCommand is moot standing in for dialectic's Python package
// debate_ops, so that dialectic's plugin can call moot instead: the same
// command lines, the debate found the same way (a path relative to the
// working directory), the input files removed as debate_ops removed them,
// the same printed objects on the same streams, and exit status 1 for
// every failure. The rules are moot's, as are the files it writes, and a
// step is all or nothing.
func (a *app) debateOpsCommand() *ucli.Command {
	return &ucli.Command{
		Name:  "debate-ops",
		Usage: "stand in for dialectic's debate_ops (its plugin's step tool): same arguments, printed objects and exit statuses; removes its input files",
		ArgsUsage: "process-exchange <debate> <exchange> --prop-file <path> --opp-file <path>\n" +
			"   moot debate-ops process-judge <debate> --json-file <path>",
		Description:     opsHelp,
		SkipFlagParsing: true,
		Action: func(ctx context.Context, cmd *ucli.Command) error {
			if code := a.debateOps(ctx, cmd.Args().Slice()); code != ExitOK {
				return &quietExit{code}
			}
			return nil
		},
	}
}

// opsFailure is debate_ops' exit status for every failure.
const opsFailure = 1

// Usage lines of moot debate-ops, printed in its error objects.
const (
	opsUsage         = "usage: moot debate-ops <command> <args...>"
	opsExchangeUsage = "usage: moot debate-ops process-exchange <debate> <exchange> --prop-file <path> --opp-file <path>"
	opsJudgeUsage    = "usage: moot debate-ops process-judge <debate> --json-file <path>"
)

// opsHelp is what moot debate-ops --help says besides the usage lines.
const opsHelp = `moot debate-ops stands in for dialectic's debate_ops, the step tool its plugin
runs as "python3 <skill>/debate_ops ...": the same arguments, the same printed
objects on the same streams, exit status 1 for every failure. <debate> is the
debate's directory relative to the working directory. The answer files are
removed once they have been judged, accepted or refused, as debate_ops did;
they are kept when the step could not be taken at all.`

// debateOps runs one debate-ops command and returns its exit status.
func (a *app) debateOps(ctx context.Context, args []string) int {
	if len(args) == 0 {
		return a.opsError(opsUsage)
	}
	switch args[0] {
	case "-h", "--help", "help":
		fmt.Fprintf(a.io.Stdout, "%s\n%s\n\n%s\n", opsExchangeUsage, opsJudgeUsage, opsHelp)
		return ExitOK
	case "process-exchange":
		return a.opsExchange(ctx, args)
	case "process-judge":
		return a.opsJudge(ctx, args)
	}
	return a.opsError(fmt.Sprintf("unknown command %q: debate-ops has process-exchange and process-judge", args[0]))
}

// opsError prints the object of a failure that concerns no answer (a
// wrong command line, a file that cannot be read, a debate that cannot
// take the step) on stderr, on one line. The input files are kept.
func (a *app) opsError(msg string) int {
	fmt.Fprintln(a.io.Stderr, pyDumps(pyObject{{"success", false}, {"error", msg}}, false))
	return opsFailure
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

func (a *app) opsExchange(ctx context.Context, args []string) int {
	if len(args) != 7 {
		return a.opsError(opsExchangeUsage)
	}
	dir := args[1]
	exchange, err := strconv.Atoi(strings.TrimSpace(args[2]))
	if err != nil || exchange < 0 || exchange > dialectic.MaxExchange {
		return a.opsError(fmt.Sprintf("exchange %q is not a whole number from 0 to %d", args[2], dialectic.MaxExchange))
	}
	propFile, ok1 := flagValue(args, "--prop-file")
	oppFile, ok2 := flagValue(args, "--opp-file")
	if !ok1 || !ok2 {
		return a.opsError("both --prop-file and --opp-file are required")
	}
	prop, err := readAnswer(propFile, "prop-file")
	if err != nil {
		return a.opsError(err.Error())
	}
	opp, err := readAnswer(oppFile, "opp-file")
	if err != nil {
		return a.opsError(err.Error())
	}
	d, err := a.opsOpen(ctx, dir, args)
	if err != nil {
		return a.opsError(err.Error())
	}
	defer d.Close()
	res, err := driver.ProcessExchange(d, exchange, prop, opp)
	same := sameFile(propFile, oppFile)
	var refused *driver.Refused
	switch {
	case errors.As(err, &refused) && refused.Answer:
		a.consume(propFile, oppFile)
		fmt.Fprintln(a.io.Stderr, pyDumps(pyObject{
			{"success", false},
			{"side", refused.Role},
			{"errors", refused.RoleReasons},
			{"warnings", nil},
		}, false))
		return opsFailure
	case err != nil:
		return a.opsError(oneProblem(res.Errors))
	}
	a.consume(propFile, oppFile)
	warnings := a.opsWarnings(res)
	if same != "" {
		warnings = append(warnings, same)
		fmt.Fprintf(a.io.Stderr, "moot: warning: %s\n", same)
	}
	ids := pyObject{}
	for _, side := range dialectic.Sides {
		got := res.Sides[side]
		var v any = got
		if len(got) == 1 {
			v = got[0]
		}
		ids = append(ids, pyField{side.Name(), v})
	}
	var w any
	if len(warnings) > 0 {
		w = warnings
	}
	fmt.Fprintln(a.io.Stdout, pyDumps(pyObject{{"success", true}, {"argument_id", ids}, {"warnings", w}}, true))
	return ExitOK
}

func (a *app) opsJudge(ctx context.Context, args []string) int {
	if len(args) != 4 {
		return a.opsError(opsJudgeUsage)
	}
	dir := args[1]
	file, ok := flagValue(args, "--json-file")
	if !ok {
		return a.opsError("--json-file is required")
	}
	answer, err := readAnswer(file, "json-file")
	if err != nil {
		return a.opsError(err.Error())
	}
	d, err := a.opsOpen(ctx, dir, args)
	if err != nil {
		return a.opsError(err.Error())
	}
	defer d.Close()
	res, err := driver.ProcessJudge(d, answer, a.io.Now())
	var refused *driver.Refused
	if err != nil && !(errors.As(err, &refused) && refused.Answer) {
		return a.opsError(oneProblem(res.Errors))
	}
	a.consume(file)
	out := pyObject{{"success", err == nil}}
	warnings := a.opsWarnings(res)
	if err != nil {
		out = append(out, pyField{"argument_id", nil}, pyField{"errors", res.Errors})
	} else {
		// One argument gives one id and one score, several give lists; a
		// score of 0 alone is left out, as debate_ops left it out.
		scores := pyScores(answer, res.Score)
		if len(res.ArgumentID) == 1 {
			out = append(out, pyField{"argument_id", res.ArgumentID[0]})
			if res.Score[0] != 0 {
				out = append(out, pyField{"score", scores[0]})
			}
		} else {
			out = append(out, pyField{"argument_id", res.ArgumentID}, pyField{"score", scores})
		}
		if len(res.Rescored) > 0 {
			out = append(out, pyField{"rescored", res.Rescored})
		}
	}
	if len(warnings) > 0 {
		out = append(out, pyField{"warnings", warnings})
	}
	fmt.Fprintln(a.io.Stdout, pyDumps(out, true))
	if err != nil {
		return opsFailure
	}
	return ExitOK
}

// pyScores returns the scores of an accepted judgment as debate_ops printed
// them: a score the judge wrote as a whole number (1, 0) stays one, as
// Python's json module reads it; any other is a float. scores are the
// values moot read, in the judge's order.
func pyScores(answer []byte, scores []float64) []any {
	out := make([]any, len(scores))
	for i, s := range scores {
		out[i] = s
	}
	body, err := dialectic.ExtractJSON(answer)
	if err != nil {
		return out
	}
	type score struct {
		Score json.Number `json:"score"`
	}
	var j struct {
		Scores []score `json:"scores"`
		score
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	if err := dec.Decode(&j); err != nil {
		return out
	}
	given := j.Scores
	if given == nil {
		given = []score{j.score}
	}
	if len(given) != len(scores) {
		return out
	}
	for i, g := range given {
		if strings.ContainsAny(g.Score.String(), ".eE") {
			continue
		}
		if n, err := strconv.ParseInt(g.Score.String(), 10, 64); err == nil {
			out[i] = pyInt(n)
		}
	}
	return out
}

// pyInt is a whole number that Python holds as an int.
type pyInt int64

// opsOpen opens the debate at dir, a path relative to the working
// directory as debate_ops took it, and takes its write lock without
// waiting.
func (a *app) opsOpen(ctx context.Context, dir string, args []string) (*store.Dir, error) {
	if _, err := os.Stat(filepath.Join(dir, dialectic.HeaderFile)); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("%s holds no %s: not a debate directory (debate-ops takes the debate's path, relative to the working directory)", dir, dialectic.HeaderFile)
		}
		return nil, err
	}
	d, err := store.Open(dir)
	if err != nil {
		return nil, err
	}
	return a.lock(ctx, d, strings.Join(append([]string{"moot", "debate-ops"}, args[:2]...), " "), 0)
}

// opsWarnings returns the warnings of res that debate-ops prints in its
// object: all but those about soft length limits, which dialectic did not
// give; those go to stderr.
func (a *app) opsWarnings(res driver.Result) []string {
	soft := slices.Clone(res.Soft)
	var out []string
	for _, w := range res.Warnings {
		if i := slices.Index(soft, w); i >= 0 {
			soft = slices.Delete(soft, i, i+1)
			fmt.Fprintf(a.io.Stderr, "moot: note: %s\n", w)
			continue
		}
		out = append(out, w)
	}
	return out
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
