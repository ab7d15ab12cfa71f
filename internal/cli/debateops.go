package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"math/big"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	ucli "github.com/urfave/cli/v3"

	driver "github.com/moot-dev/moot/internal/driver"
	sm "github.com/moot-dev/moot/statemachine"
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
	deb, err := loadDialectic(d)
	if err != nil {
		return a.opsFailed(err)
	}
	x, refused, err := opsCheckExchange(deb, exchange, prop, opp)
	if err != nil {
		return a.opsFailed(err)
	}
	if refused != nil {
		a.consume(propFile, oppFile)
		a.opsNotes(x.Warnings)
		fmt.Fprintln(a.io.Stderr, pyDumps(pyObject{
			{"success", false},
			{"side", refused.Role},
			{"errors", refused.RoleReasons},
			{"warnings", nil},
		}, false))
		return opsFailure
	}
	same := sameFile(propFile, oppFile)
	c, err := dialectic.CommitArguments(deb, x.Exchange)
	if err == nil {
		err = driver.Commit(d, c)
	}
	if err != nil {
		return a.opsFailed(err)
	}
	a.consume(propFile, oppFile)
	// moot's own warnings are notes on stderr; the object holds only the
	// warnings dialectic gave, in its words.
	a.opsNotes(x.Warnings)
	if same != "" {
		a.opsNotes([]string{same})
	}
	warnings := x.dialectic
	ids := pyObject{}
	for _, side := range dialectic.Sides() {
		var got []string
		for _, arg := range x.Arguments {
			if arg.Side == side {
				got = append(got, arg.ID)
			}
		}
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
	deb, err := loadDialectic(d)
	if err != nil {
		return a.opsFailed(err)
	}
	if err := deb.Header.State.AcceptJudgment(); err != nil {
		return a.opsError(err.Error())
	}
	if err := dialectic.CheckSize("judge", answer); err != nil {
		return a.opsFailed(err)
	}
	known, current := deb.Known(), deb.Scores.Current()
	j, skipped, p := dialectic.ParseDialecticJudgment(answer, deb.Header.State.Exchange, known, current)
	if !p.OK() {
		a.consume(file)
		a.opsNotes(p.Warnings)
		fmt.Fprintln(a.io.Stdout, pyDumps(pyObject{{"success", false}, {"argument_id", nil}, {"errors", p.Errors}}, true))
		return opsFailure
	}
	if err := opsCommitJudgment(d, deb, j, a.io.Now()); err != nil {
		return a.opsFailed(err)
	}
	a.consume(file)
	a.opsNotes(p.Warnings)
	out := pyObject{{"success", true}}
	// One argument gives one id and one score, several give lists; a
	// score of 0 alone is left out, as debate_ops left it out.
	var ids []string
	var values []float64
	for _, s := range j.Scores {
		ids, values = append(ids, s.ArgumentID), append(values, s.Score)
	}
	scores := pyScores(answer, values)
	if len(ids) == 1 {
		out = append(out, pyField{"argument_id", ids[0]})
		if values[0] != 0 {
			out = append(out, pyField{"score", scores[0]})
		}
	} else {
		out = append(out, pyField{"argument_id", ids}, pyField{"score", scores})
	}
	if len(j.Rescores) > 0 {
		var rescored []string
		for _, r := range j.Rescores {
			rescored = append(rescored, r.ArgumentID)
		}
		out = append(out, pyField{"rescored", rescored})
	}
	// dialectic's warnings: the rescores it skipped, in its words.
	var warnings []string
	for _, sk := range skipped {
		if sk.Incomplete {
			warnings = append(warnings, "Incomplete rescore entry: "+pyRepr(sk.Raw))
		} else {
			warnings = append(warnings, fmt.Sprintf("Rescore delta for %s is %.3f, outside valid range [-0.5, 0.5]", sk.ID, sk.Delta))
		}
	}
	if len(warnings) > 0 {
		out = append(out, pyField{"warnings", warnings})
	}
	fmt.Fprintln(a.io.Stdout, pyDumps(out, true))
	return ExitOK
}

// opsChecked is an exchange checked under dialectic's rules, with the
// warnings dialectic would have given, in its words.
type opsChecked struct {
	*dialectic.Exchange
	dialectic []string
}

// opsCheckExchange is dialectic.CheckExchange under dialectic's rules (see
// dialectic.ParseDialecticSubmissions). refused is set when an answer broke
// a rule; err when the step cannot be taken at all.
func opsCheckExchange(deb *dialectic.Debate, exchange int, prop, opp []byte) (x opsChecked, refused *driver.Refused, err error) {
	if err := deb.Header.State.AcceptArguments(exchange); err != nil {
		return x, nil, err
	}
	answers := map[dialectic.Side][]byte{dialectic.Prop: prop, dialectic.Opp: opp}
	for _, side := range dialectic.Sides() {
		if err := dialectic.CheckSize(side.Name(), answers[side]); err != nil {
			return x, nil, err
		}
	}
	known := deb.Known()
	x.Exchange = &dialectic.Exchange{}
	for _, side := range dialectic.Sides() {
		subs, p := dialectic.ParseDialecticSubmissions(answers[side], side, exchange, known)
		x.Warnings = append(x.Warnings, prefixed(side.Name()+": ", p.Warnings)...)
		if !p.OK() {
			// dialectic stopped at the first side that broke a rule.
			return x, &driver.Refused{Role: side.Name(), RoleReasons: p.Errors, Answer: true}, nil
		}
		ids := dialectic.ArgumentIDs(exchange, side)
		for i, s := range subs {
			x.Arguments = append(x.Arguments, dialectic.NewArgument(ids[i], side, exchange, s))
			if len(s.Unknown) > 0 {
				x.dialectic = append(x.dialectic, "Unrecognized keys (ignored): "+pySet(s.Unknown))
			}
		}
	}
	return x, nil, nil
}

func prefixed(prefix string, lines []string) []string {
	out := make([]string, len(lines))
	for i, l := range lines {
		out[i] = prefix + l
	}
	return out
}

// opsCommitJudgment is dialectic.ApplyJudgment as dialectic's debate_ops
// wrote a judgment: new arguments join scores.json in the judge's order,
// and the numbers of scores.json and of debate.md's totals are written as
// Python wrote them (0.0 for a score the judge wrote 0.0).
func opsCommitJudgment(d *store.Dir, deb *dialectic.Debate, j dialectic.Judgment, now time.Time) error {
	deb.Scores.ApplyAsGiven(j.Entries(deb.Known(), deb.Scores.Current()), now)
	scores, err := deb.Scores.RenderDialectic()
	if err != nil {
		return fmt.Errorf("render %s: %w", dialectic.ScoresFile, err)
	}
	deb.Header.Totals = dialectic.Cumulative(deb.Scores.Current())
	deb.Header.DialecticTotals = deb.Scores.DialecticTotals()
	deb.Header.State = deb.Header.State.Next()
	header, err := deb.Header.Render()
	if err != nil {
		return fmt.Errorf("render %s: %w", sm.StateFile, err)
	}
	// debate.md goes last, as every commit of moot writes it.
	return d.Commit([]store.File{
		{Name: dialectic.ScoresFile, Data: scores},
		{Name: dialectic.GraphFile, Data: []byte(dialectic.Graph(deb))},
		{Name: sm.StateFile, Data: header},
	})
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
	if _, err := os.Stat(filepath.Join(dir, sm.StateFile)); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("%s holds no %s: not a debate directory (debate-ops takes the debate's path, relative to the working directory)", dir, sm.StateFile)
		}
		return nil, err
	}
	d, err := store.Open(dir)
	if err != nil {
		return nil, err
	}
	return a.lock(ctx, d, strings.Join(append([]string{"moot", "debate-ops"}, args[:2]...), " "), 0)
}

// opsNotes prints moot's own warnings, which dialectic did not give, on
// stderr as "moot: note:" lines, so that the printed object stays
// dialectic's.
func (a *app) opsNotes(warnings []string) {
	for _, w := range warnings {
		fmt.Fprintf(a.io.Stderr, "moot: note: %s\n", w)
	}
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

// opsFailed prints the error object of a step the engine could not take:
// a broken debate's problems, a refusal's reasons, or the one error,
// joined into the one string of the object.
func (a *app) opsFailed(err error) int {
	return a.opsError(oneProblem(driver.Failure(false, err).Errors))
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

// pySet writes strings as Python's repr of a set of them: {'a', 'b'}. A
// set's order in Python depends on string hashing, which changes from run
// to run; the strings are written sorted, so that moot's is always the
// same.
func pySet(items []string) string {
	items = slices.Sorted(slices.Values(items))
	var b strings.Builder
	b.WriteString("{")
	for i, s := range items {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(pyStr(s))
	}
	b.WriteString("}")
	return b.String()
}

// pyRepr writes the JSON value raw as Python's repr of what its json
// module reads from it: {'argument_id': 'prop_000', 'new_score': 0.3,
// 'old': None}. Keys keep their order. raw must be valid JSON.
func pyRepr(raw json.RawMessage) string {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var b strings.Builder
	var walk func() error
	walk = func() error {
		tok, err := dec.Token()
		if err != nil {
			return err
		}
		switch v := tok.(type) {
		case json.Delim:
			closing := "]"
			if v == '{' {
				closing = "}"
			}
			b.WriteString(v.String())
			for i := 0; dec.More(); i++ {
				if i > 0 {
					b.WriteString(", ")
				}
				if v == '{' {
					k, err := dec.Token()
					if err != nil {
						return err
					}
					b.WriteString(pyStr(k.(string)) + ": ")
				}
				if err := walk(); err != nil {
					return err
				}
			}
			if _, err := dec.Token(); err != nil {
				return err
			}
			b.WriteString(closing)
		case string:
			b.WriteString(pyStr(v))
		case json.Number:
			b.WriteString(pyNumberRepr(v.String()))
		case bool:
			if v {
				b.WriteString("True")
			} else {
				b.WriteString("False")
			}
		case nil:
			b.WriteString("None")
		}
		return nil
	}
	if err := walk(); err != nil {
		return string(raw)
	}
	return b.String()
}

// pyNumberRepr writes a JSON number as Python's repr of what json reads
// from it: an int as its digits, a float as Python writes floats.
func pyNumberRepr(lit string) string {
	if !strings.ContainsAny(lit, ".eE") {
		if n, ok := new(big.Int).SetString(lit, 10); ok {
			return n.String()
		}
	}
	f, err := strconv.ParseFloat(lit, 64)
	switch {
	case math.IsInf(f, 1):
		return "inf"
	case math.IsInf(f, -1):
		return "-inf"
	case err != nil:
		return lit
	}
	return dialectic.PythonNumber(f, false)
}

// pyStr writes s as Python's repr of a str: in single quotes, or double
// quotes when s holds a single quote and no double one; backslash, the
// quote, \t, \n and \r escaped, other characters that are not printable
// as \xhh, \uhhhh or \Uhhhhhhhh, printable ones (é, —) as they are.
func pyStr(s string) string {
	quote := '\''
	if strings.ContainsRune(s, '\'') && !strings.ContainsRune(s, '"') {
		quote = '"'
	}
	var b strings.Builder
	b.WriteRune(quote)
	for _, r := range s {
		switch {
		case r == quote || r == '\\':
			b.WriteRune('\\')
			b.WriteRune(r)
		case r == '\t':
			b.WriteString(`\t`)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == ' ' || (r < 0x7f && r > 0x20):
			b.WriteRune(r)
		case r >= 0x7f && unicode.IsPrint(r):
			b.WriteRune(r)
		case r < 0x100:
			fmt.Fprintf(&b, `\x%02x`, r)
		case r < 0x10000:
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			fmt.Fprintf(&b, `\U%08x`, r)
		}
	}
	b.WriteRune(quote)
	return b.String()
}
