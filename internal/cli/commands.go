package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	ucli "github.com/urfave/cli/v3"

	driver "github.com/moot-dev/moot/internal/driver"
	"github.com/moot-dev/moot/internal/english"
	"github.com/moot-dev/moot/internal/frontmatter"
	"github.com/moot-dev/moot/internal/prices"
	"github.com/moot-dev/moot/internal/termwidth"
	sm "github.com/moot-dev/moot/statemachine"
	"github.com/moot-dev/moot/store"
)

func (a *app) newCommand() *ucli.Command {
	return &ucli.Command{
		Name:      "new",
		Usage:     "create a debate",
		ArgsUsage: "<slug>",
		Flags: append([]ucli.Flag{
			&ucli.StringFlag{Name: "motion", Usage: "the motion `TEXT` (required)"},
			&ucli.StringFlag{Name: "protocol", Value: sm.Default, Usage: "the debate's `PROTOCOL` ('moot protocols' lists them)"},
		}, a.protocolFlags()...),
		DisableSliceFlagSeparator: true,
		OnUsageError:              usageOnError,
		Action: func(ctx context.Context, cmd *ucli.Command) error {
			if cmd.Args().Len() != 1 {
				return usageError("new takes one slug, got %d arguments", cmd.Args().Len())
			}
			slug := cmd.Args().First()
			if !store.ValidSlug(slug) {
				return badUsage(fmt.Errorf("%q is not a valid slug", slug),
					"a slug is lowercase letters, digits and hyphens, starting with a letter or digit, at most 64 characters: climate-policy")
			}
			p, err := a.io.Protocols.Lookup(cmd.String("protocol"))
			if err != nil {
				return badUsage(fmt.Errorf("no protocol %q", cmd.String("protocol")), "'moot protocols' lists the protocols")
			}
			return a.newWithProtocol(cmd, slug, p)
		},
	}
}

// withNextCommand adds to err, when it is a step refused because the
// debate in d, of protocol h, waits for another step (one that is not the
// judgment when judgment is set, else the sides' answers for unit x), a
// hint naming the command that takes the step it waits for.
func withNextCommand(d *store.Dir, p sm.Protocol, h sm.HandSteps, err error, judgment bool, x int) error {
	var refused *driver.Refused
	if !errors.As(err, &refused) {
		return err
	}
	deb, lerr := driver.LoadDebate(d, p)
	if lerr != nil {
		return err
	}
	next, takes := h.ByHand(deb, d.Path(), judgment, x)
	if takes || next == "" {
		return err
	}
	return withCode(ExitRefused, err, "the debate accepts now: "+next)
}

// handSteps returns the protocol of the debate in d, locked, which must
// take steps by hand (an sm.HandSteps) for command.
func (a *app) handSteps(d *store.Dir, command string) (sm.Protocol, sm.HandSteps, error) {
	p, err := a.checkedProtocol(d)
	if err != nil {
		return nil, nil, err
	}
	h, ok := p.(sm.HandSteps)
	if !ok {
		return nil, nil, withCode(ExitUsage, fmt.Errorf("%s: a %s debate takes no step by hand, as %s hands one in", d.Path(), p.Name(), command),
			fmt.Sprintf("'moot run %s' runs its steps with models; 'moot run %s --human ROLE' asks a person for a role's answers", d.Path(), d.Path()))
	}
	return p, h, nil
}

func (a *app) statusCommand() *ucli.Command {
	return &ucli.Command{
		Name:         "status",
		Usage:        "show where a debate stands and what it waits for (all debates without an argument)",
		ArgsUsage:    "[<debate>]",
		Flags:        append(jsonFlags(), pricesFlag()),
		OnUsageError: usageOnError,
		Action: func(ctx context.Context, cmd *ucli.Command) error {
			if cmd.Args().Len() > 1 {
				return usageError("status takes at most one debate")
			}
			if cmd.Args().Len() == 0 {
				return a.listDebates(cmd, cmd.Bool("json"))
			}
			dir, err := debateDir(cmd, cmd.Args().First())
			if err != nil {
				return err
			}
			table, err := a.priceTable(cmd)
			if err != nil {
				return err
			}
			return a.status(dir, cmd.Bool("json"), table)
		},
	}
}

// status is `moot status` of the debate at dir: laid out by its debate
// when it is an sm.StatusLayout, else by moot from its sm.Status. A
// protocol that checks its files itself (an sm.FilesChecker) refuses a
// debate that fails its check in its check's words (see loadChecked).
func (a *app) status(dir string, asJSON bool, table prices.Table) error {
	d, err := store.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	p, deb, err := a.checkedDebate(d, "status")
	if err != nil {
		return err
	}
	if l, ok := deb.(sm.StatusLayout); ok {
		return a.statusLayout(d, p, deb, l, asJSON, table)
	}
	return a.statusProtocol(d, p, asJSON, table)
}

// checkedDebate returns the protocol of the debate d and, when that
// protocol checks its files itself (an sm.FilesChecker), the debate read
// and checked for command (see loadChecked); else a nil debate.
func (a *app) checkedDebate(d *store.Dir, command string) (sm.Protocol, sm.Debate, error) {
	p, err := a.checkedProtocol(d)
	if err != nil {
		return nil, nil, err
	}
	if _, ok := p.(sm.FilesChecker); !ok {
		return p, nil, nil
	}
	deb, err := loadChecked(d, p, command)
	if err != nil {
		return nil, nil, err
	}
	return p, deb, nil
}

// statusLayout prints the status of a debate that lays it out itself, with
// what moot knows of it from outside its files.
func (a *app) statusLayout(d *store.Dir, p sm.Protocol, deb sm.Debate, sl sm.StatusLayout, asJSON bool, table prices.Table) error {
	lines, err := driver.ReadUsageLines(d)
	if err != nil {
		return fmt.Errorf("read usage log: %w", err)
	}
	usage := driver.SumUsage(lines)
	note, err := scriptedNote(d)
	if err != nil {
		return err
	}
	bill := table.Bill(usageCalls(lines), driver.RoleNames(p))
	facts := sm.StatusFacts{Pending: d.Pending(), Usage: usage, Cost: costJSON(bill), Scripted: note}
	writer := d.Writer()
	if writer != nil {
		facts.Writer = writer
	}
	l := sl.StatusLayout(d.Path(), facts)
	if asJSON {
		return writeJSON(a.io.Stdout, l.JSON)
	}
	w := a.io.Stdout
	st := deb.Status()
	writeStatusLines(w, l.Head)
	a.printScripted(note)
	writeStatusLines(w, []sm.StatusLine{l.Where})
	fmt.Fprintf(w, "next      %s\n", st.Next)
	if !st.Complete {
		byModel := a.asInvoked("moot run " + visible(d.Path(), false))
		if l.ByHand == "" {
			fmt.Fprintf(w, "          %s\n", byModel)
		} else {
			byHand := a.asInvoked(visible(l.ByHand, false))
			width := max(len(byModel), len(byHand))
			fmt.Fprintf(w, "          %-*s  with models\n", width, byModel)
			fmt.Fprintf(w, "          %-*s  by hand\n", width, byHand)
		}
	}
	writeStatusLines(w, l.Lines)
	fmt.Fprint(w, peopleLine(d.Path(), st.Unit))
	if usage.Calls > 0 {
		fmt.Fprintf(w, "models    %s in all runs (%d failed) · %s · %.1f s of model time\n",
			english.Count(usage.Calls, "model call"), usage.Failed, tokensText(bill.Total), usage.Seconds)
		writeCost(w, bill)
	}
	if writer != nil {
		fmt.Fprintf(w, "writer    %s\n", describeHolder(writer))
	}
	if facts.Pending {
		fmt.Fprintf(w, "note      an interrupted step is recorded and will be completed by the next command that writes\n")
	}
	return nil
}

// writeStatusLines writes the lines of a status, each under its label,
// those that ask for it wrapped to 90 columns.
func writeStatusLines(w io.Writer, lines []sm.StatusLine) {
	for _, l := range lines {
		text := visible(l.Text, false)
		if !l.Wrap {
			fmt.Fprintf(w, "%-9s %s\n", l.Label, text)
			continue
		}
		label := l.Label
		for _, line := range wrapLines(text, 90) {
			fmt.Fprintf(w, "%-9s %s\n", label, line)
			label = ""
		}
	}
}

// printScripted prints the status line that says who wrote the text
// moot's built-in model wrote, if note says so.
func (a *app) printScripted(note string) {
	if note == "" {
		return
	}
	label := "scripted"
	for _, line := range wrapLines(note, 90) {
		fmt.Fprintf(a.io.Stdout, "%-9s %s\n", label, line)
		label = ""
	}
}

func (a *app) listCommand() *ucli.Command {
	return &ucli.Command{
		Name:         "list",
		Usage:        "list every debate under the debates root, those of its tournaments too, with its protocol, state, leader and cost",
		Flags:        append(jsonFlags(), pricesFlag()),
		OnUsageError: usageOnError,
		Action: func(ctx context.Context, cmd *ucli.Command) error {
			if cmd.Args().Len() > 0 {
				return usageError("list takes no arguments")
			}
			return a.listDebates(cmd, cmd.Bool("json"))
		},
	}
}

// listDebates prints a line for every debate under the root, those of
// its tournaments included, each read by its own protocol's code: its
// protocol, where it stands, who leads or how it came out, its cost and
// its motion. A debate that cannot be read is listed with why.
func (a *app) listDebates(cmd *ucli.Command, asJSON bool) error {
	table, err := a.priceTable(cmd)
	if err != nil {
		return err
	}
	debates, _, err := rootDebates(root(cmd))
	if err != nil {
		return err
	}
	all := make([]debateSummary, len(debates))
	for i, rd := range debates {
		all[i] = a.summarize(rd, table)
	}
	if asJSON {
		return writeJSON(a.io.Stdout, all)
	}
	if len(debates) == 0 {
		fmt.Fprintln(a.io.Stderr, a.asInvoked(fmt.Sprintf("moot: no debates under %s; create one with: moot new <slug> --motion \"...\"", root(cmd))))
		return nil
	}
	rows := make([][]string, 0, len(all))
	for _, s := range all {
		if s.Error != "" {
			rows = append(rows, []string{visible(s.Debate, false), "unreadable: " + oneLine(visible(s.Error, false), 80)})
			continue
		}
		rows = append(rows, []string{visible(s.Debate, false), s.Protocol, s.Where, visible(s.Leader, false), visible(s.Cost, false), oneLine(visible(s.Motion, false), 60)})
	}
	writeColumns(a.io.Stdout, rows)
	return nil
}

// writeColumns writes rows as columns two spaces apart, each as wide as
// its widest cell; the last cell of a row is not padded.
func writeColumns(w io.Writer, rows [][]string) {
	var widths []int
	for _, r := range rows {
		for i, c := range r[:len(r)-1] {
			if i >= len(widths) {
				widths = append(widths, 0)
			}
			widths[i] = max(widths[i], termwidth.Width(c))
		}
	}
	for _, r := range rows {
		var b strings.Builder
		for i, c := range r {
			b.WriteString(c)
			if i < len(r)-1 {
				b.WriteString(termwidth.Pad("", widths[i]-termwidth.Width(c)+2))
			}
		}
		fmt.Fprintln(w, strings.TrimRight(b.String(), " "))
	}
}

func (a *app) showCommand() *ucli.Command {
	return &ucli.Command{
		Name:         "show",
		Usage:        "list a debate's arguments (or other parts), or show one with its scores",
		ArgsUsage:    "<debate> [<id>]",
		Flags:        jsonFlags(),
		OnUsageError: usageOnError,
		Action: func(ctx context.Context, cmd *ucli.Command) error {
			if cmd.Args().Len() < 1 || cmd.Args().Len() > 2 {
				return usageError("show takes a debate and, to show one argument, its id")
			}
			return a.show(cmd, cmd.Args().Get(1), cmd.Args().Len() == 2, cmd.Bool("json"))
		},
	}
}

// show is `moot show` of the debate cmd names: its parts, or the one
// called id when one is set, laid out by the debate when it is an
// sm.ShowLayout, else listed from its sm.Shower. A protocol that checks
// its files itself (an sm.FilesChecker) refuses a debate that fails its
// check in its check's words (see loadChecked).
func (a *app) show(cmd *ucli.Command, id string, one, asJSON bool) error {
	d, err := openDebate(cmd)
	if err != nil {
		// A debate that cannot be read cannot say what its ids look
		// like; the default protocol's say whether id can be one.
		if p, perr := a.io.Protocols.Lookup(""); perr == nil && one {
			if ids, ok := p.(sm.PartIDs); ok {
				if idErr := ids.CheckPartID(id); idErr != nil {
					return badUsage(idErr)
				}
			}
		}
		return err
	}
	defer d.Close()
	p, deb, err := a.checkedDebate(d, "show")
	if err != nil {
		return err
	}
	if sl, ok := deb.(sm.ShowLayout); ok {
		return a.showLayout(d, p, deb, sl, id, one, asJSON)
	}
	return a.showProtocol(d, p, id, one, asJSON)
}

// showLayout is `moot show` of a debate that lays it out itself.
func (a *app) showLayout(d *store.Dir, p sm.Protocol, deb sm.Debate, sl sm.ShowLayout, id string, one, asJSON bool) error {
	if !one {
		l := sl.PartList()
		if asJSON {
			return writeJSON(a.io.Stdout, l.JSON)
		}
		if l.Text == "" {
			fmt.Fprintf(a.io.Stderr, "moot: %s\n", l.None)
			return nil
		}
		_, err := io.WriteString(a.io.Stdout, l.Text)
		return err
	}
	hints := func() []string { return partHints(d.Path(), p, deb, sl.PartNoun(), id) }
	if ids, ok := p.(sm.PartIDs); ok {
		if err := ids.CheckPartID(id); err != nil {
			return badUsage(err, hints()...)
		}
	}
	text, out, ok := sl.ShowPart(id)
	if !ok {
		return withCode(ExitError, fmt.Errorf("%s has no %s %s", d.Path(), sl.PartNoun(), id), hints()...)
	}
	if asJSON {
		return writeJSON(a.io.Stdout, out)
	}
	_, err := io.WriteString(a.io.Stdout, text)
	return err
}

// partHints are the hints for an id that deb, of protocol p, does not
// hold: the part meant, if one is near (prop_001 for prop_1), and how to
// list them all; noun names a part.
func partHints(dir string, p sm.Protocol, deb sm.Debate, noun, id string) []string {
	var ids []string
	if sh, ok := deb.(sm.Shower); ok {
		for _, pt := range sh.Parts() {
			ids = append(ids, pt.ID)
		}
	}
	var meant []string
	if pi, ok := p.(sm.PartIDs); ok {
		meant = pi.PartIDsMeant(id)
	}
	var hints []string
	if near, ok := nearestID(id, meant, ids); ok {
		hints = append(hints, fmt.Sprintf("did you mean %s?", near))
	}
	return append(hints, fmt.Sprintf("'moot show %s' lists its %ss", dir, noun))
}

// nearestID returns the id among ids that id most likely means: the first
// of meant, the ids its protocol reads it as, that ids holds, else the
// nearest by spelling.
func nearestID(id string, meant, ids []string) (string, bool) {
	for _, m := range meant {
		if slices.Contains(ids, m) {
			return m, true
		}
	}
	return nearest(id, ids)
}

func (a *app) checkCommand() *ucli.Command {
	return &ucli.Command{
		Name:      "check",
		Usage:     "verify every invariant of a debate, or with --all of every debate and tournament under the root (read-only)",
		ArgsUsage: "<debate> | --all",
		Flags: append(jsonFlags(),
			&ucli.BoolFlag{Name: "all", Usage: "check every debate and tournament under the debates root, a line each"}),
		OnUsageError: usageOnError,
		Action: func(ctx context.Context, cmd *ucli.Command) error {
			if cmd.Bool("all") {
				if cmd.Args().Len() > 0 {
					return usageError("check --all takes no debate: it checks every debate under the debates root (--dir)")
				}
				return a.checkAll(cmd)
			}
			if cmd.Args().Len() != 1 {
				return usageError("check takes one debate, or --all")
			}
			d, err := openDebate(cmd)
			if err != nil {
				return journalFailsCheck(err)
			}
			defer d.Close()
			return journalFailsCheck(a.check(d, cmd.Bool("json")))
		},
	}
}

// check is `moot check` of the debate in d, for every protocol.
func (a *app) check(d *store.Dir, asJSON bool) error {
	p, err := a.checkedProtocol(d)
	if err != nil {
		return err
	}
	f, read, err := checkFiles(d, p)
	if err != nil {
		return err
	}
	problems, warnings := f.Problems, f.Warnings
	if asJSON {
		if problems == nil {
			problems = []sm.Problem{}
		}
		if warnings == nil {
			warnings = []sm.Problem{}
		}
		if err := writeJSON(a.io.Stdout, map[string]any{"ok": len(problems) == 0, "problems": problems, "warnings": warnings, "interrupted_step_pending": d.Pending()}); err != nil {
			return err
		}
	} else {
		for _, p := range problems {
			fmt.Fprintf(a.io.Stdout, "%s: %s\n", visible(filepath.Join(d.Path(), p.File), false), visible(p.Message, false))
		}
		for _, w := range warnings {
			fmt.Fprintf(a.io.Stdout, "%s: warning: %s\n", visible(filepath.Join(d.Path(), w.File), false), visible(w.Message, false))
		}
	}
	if d.Pending() && !asJSON {
		fmt.Fprintf(a.io.Stderr, "moot: note: an interrupted step is recorded in %s; it was checked as completed, and the next command that writes completes it\n", filepath.Join(d.Path(), ".moot", "journal.json"))
	}
	if len(problems) > 0 {
		return withCode(ExitCheckFailed, fmt.Errorf("%s: %s found", d.Path(), english.Count(len(problems), "problem")))
	}
	if !asJSON {
		if len(warnings) > 0 {
			read += ", " + english.Count(len(warnings), "warning")
		}
		fmt.Fprintf(a.io.Stdout, "ok: %s is consistent (%s)\n", d.Path(), read)
	}
	return nil
}

// checkedProtocol returns the protocol whose check reads the debate in d:
// the one its state file names, or, when the state file names none or
// cannot be read, the default protocol, whose check says what is wrong
// with it.
func (a *app) checkedProtocol(d *store.Dir) (sm.Protocol, error) {
	p, err := a.protocolOf(d)
	if err != nil {
		if err := unknownOnly(d, err); err != nil {
			return nil, err
		}
		return a.io.Protocols.Lookup("")
	}
	return p, nil
}

// checkFiles checks the debate in d with p's own check of its files (an
// sm.FilesChecker), or else as p reads it, as one commit left it. read
// says what was read, in a few words.
func checkFiles(d *store.Dir, p sm.Protocol) (f sm.Findings, read string, err error) {
	if fc, ok := p.(sm.FilesChecker); ok {
		err = driver.ReadFiles(d, func(files fs.FS) error {
			var err error
			f, read, err = fc.CheckFiles(files)
			return err
		})
	} else {
		var deb sm.Debate
		if deb, err = driver.ReadDebate(d, p); err == nil {
			f = deb.Check()
		}
	}
	if read == "" {
		read = p.Name()
	}
	return f, read, err
}

// journalFailsCheck gives a journal that can never be completed the exit
// status of a check that found a problem: the debate is not sound, since
// no writer can go on.
func journalFailsCheck(err error) error {
	var je *store.JournalError
	if errors.As(err, &je) {
		return withCode(ExitCheckFailed, err)
	}
	return err
}

func (a *app) processExchangeCommand() *ucli.Command {
	return &ucli.Command{
		Name:      "process-exchange",
		Usage:     "take both sides' arguments for an exchange (JSON files, which are kept); prints moot's result object",
		ArgsUsage: "<debate> <exchange>",
		Flags: []ucli.Flag{
			&ucli.StringFlag{Name: "prop-file", Usage: "the proposition's answer (JSON `FILE`)"},
			&ucli.StringFlag{Name: "opp-file", Usage: "the opposition's answer (JSON `FILE`)"},
			waitFlag(),
		},
		OnUsageError: usageOnError,
		Action: func(ctx context.Context, cmd *ucli.Command) error {
			if cmd.Args().Len() < 2 {
				return usageError("process-exchange takes a debate and an exchange number")
			}
			// The exchange is checked first: a negative one ends the flags
			// and would otherwise be reported as too many arguments.
			exchange, err := strconv.Atoi(cmd.Args().Get(1))
			if last := a.maxHandUnit(); err != nil || exchange < 0 || exchange > last {
				return usageError("exchange %q is not a whole number from 0 to %d", cmd.Args().Get(1), last)
			}
			if cmd.Args().Len() > 2 {
				return usageError("process-exchange takes a debate and an exchange number, got also %q", cmd.Args().Slice()[2:])
			}
			propFile, oppFile := cmd.String("prop-file"), cmd.String("opp-file")
			for _, f := range []struct{ name, path string }{{"prop-file", propFile}, {"opp-file", oppFile}} {
				if f.path == "" {
					return usageError("--%s is required", f.name)
				}
			}
			res, err := a.processExchange(ctx, cmd, exchange, propFile, oppFile)
			if err != nil && res.Errors == nil {
				res = driver.Failure(false, err)
			}
			if werr := writeJSON(a.io.Stdout, res); werr != nil && err == nil {
				err = werr
			}
			return err
		},
	}
}

// processExchange reads both answers and hands them to the engine. A
// result without Errors means the step failed before the engine had it.
func (a *app) processExchange(ctx context.Context, cmd *ucli.Command, exchange int, propFile, oppFile string) (driver.Result, error) {
	prop, err := readAnswer(propFile, "prop-file")
	if err != nil {
		return driver.Result{}, err
	}
	opp, err := readAnswer(oppFile, "opp-file")
	if err != nil {
		return driver.Result{}, err
	}
	d, err := a.openForWrite(ctx, cmd)
	if err != nil {
		return driver.Result{}, err
	}
	defer d.Close()
	p, h, err := a.handSteps(d, "process-exchange")
	if err != nil {
		return driver.Result{}, err
	}
	res, err := driver.HandStep(d, p, false, h.HandSides(exchange, prop, opp))
	err = plainBadFiles(err)
	if w := sameFile(propFile, oppFile); w != "" {
		res.Warnings = append(res.Warnings, w)
		fmt.Fprintf(a.io.Stderr, "moot: warning: %s\n", w)
	}
	return res, withNextCommand(d, p, h, err, false, exchange)
}

// maxHandUnit is the last unit process-exchange takes: the highest
// MaxUnit of the protocols that take steps by hand.
func (a *app) maxHandUnit() int {
	last := 0
	for _, p := range a.io.Protocols {
		if h, ok := p.(sm.HandSteps); ok {
			last = max(last, h.MaxUnit())
		}
	}
	return last
}

// sameFile returns a warning when both sides' answers are the same file:
// one side's answer was most likely handed in for both.
func sameFile(propFile, oppFile string) string {
	p, err1 := os.Stat(propFile)
	o, err2 := os.Stat(oppFile)
	if err1 != nil || err2 != nil || !os.SameFile(p, o) {
		return ""
	}
	return fmt.Sprintf("--prop-file and --opp-file are the same file (%s): both sides handed in the same answer", oppFile)
}

func (a *app) processJudgeCommand() *ucli.Command {
	return &ucli.Command{
		Name:      "process-judge",
		Usage:     "take the judge's scores for the current exchange (a JSON file, which is kept); prints moot's result object",
		ArgsUsage: "<debate>",
		Flags: []ucli.Flag{
			&ucli.StringFlag{Name: "json-file", Usage: "the judge's answer (JSON `FILE`)"},
			waitFlag(),
		},
		OnUsageError: usageOnError,
		Action: func(ctx context.Context, cmd *ucli.Command) error {
			if cmd.Args().Len() != 1 {
				return usageError("process-judge takes one debate")
			}
			if cmd.String("json-file") == "" {
				return usageError("--json-file is required")
			}
			res, err := a.processJudge(ctx, cmd)
			if err != nil && res.Errors == nil {
				res = driver.Failure(true, err)
			}
			if werr := writeJSON(a.io.Stdout, res); werr != nil && err == nil {
				err = werr
			}
			return err
		},
	}
}

func (a *app) processJudge(ctx context.Context, cmd *ucli.Command) (driver.Result, error) {
	answer, err := readAnswer(cmd.String("json-file"), "json-file")
	if err != nil {
		return driver.Result{}, err
	}
	d, err := a.openForWrite(ctx, cmd)
	if err != nil {
		return driver.Result{}, err
	}
	defer d.Close()
	p, h, err := a.handSteps(d, "process-judge")
	if err != nil {
		return driver.Result{}, err
	}
	res, err := driver.HandStep(d, p, true, h.HandJudgment(answer, a.io.Now()))
	err = plainBadFiles(err)
	return res, withNextCommand(d, p, h, err, true, 0)
}

// writeJSONLine writes v as one line of JSON, for streams of events.
func writeJSONLine(w io.Writer, v any) error {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return err
	}
	_, err := w.Write(b.Bytes())
	return err
}

func writeJSON(w io.Writer, v any) error {
	b, err := frontmatter.Marshal(v)
	if err != nil {
		return err
	}
	_, err = w.Write(b)
	return err
}

// oneLine folds s onto one line of at most n columns of a terminal (a
// wide character takes two).
func oneLine(s string, n int) string {
	return termwidth.Fit(strings.Join(strings.Fields(s), " "), n)
}

// jsonFlags are the flags of a read-only command whose only option is
// --json. Each command gets its own flag, as a flag keeps what it parsed.
func jsonFlags() []ucli.Flag {
	return []ucli.Flag{&ucli.BoolFlag{Name: "json", Usage: "print JSON for scripts"}}
}
