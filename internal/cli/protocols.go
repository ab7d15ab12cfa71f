package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	ucli "github.com/urfave/cli/v3"

	"github.com/moot-dev/moot/internal/driver"
	"github.com/moot-dev/moot/internal/english"
	"github.com/moot-dev/moot/internal/judging"
	"github.com/moot-dev/moot/internal/prices"
	"github.com/moot-dev/moot/internal/research"
	"github.com/moot-dev/moot/internal/termwidth"
	sm "github.com/moot-dev/moot/statemachine"
	"github.com/moot-dev/moot/store"
)

func (a *app) protocolsCommand() *ucli.Command {
	return &ucli.Command{
		Name:         "protocols",
		Usage:        "list the debate protocols moot runs, with the flags each adds to 'moot new'",
		OnUsageError: usageOnError,
		Action: func(ctx context.Context, cmd *ucli.Command) error {
			if cmd.Args().Len() > 0 {
				return usageError("protocols takes no arguments")
			}
			w := a.io.Stdout
			for _, p := range a.io.Protocols {
				fmt.Fprintf(w, "%-10s %s\n", p.Name(), p.Summary())
				line := "new: --motion TEXT"
				for _, f := range p.Flags() {
					if f.Bool {
						line += fmt.Sprintf(" [--%s]", f.Name)
					} else {
						line += fmt.Sprintf(" [--%s %s]", f.Name, f.Placeholder)
					}
					if f.Repeated {
						line += "..."
					}
				}
				fmt.Fprintf(w, "%-10s %s\n", "", line)
				roles := make([]string, 0, len(p.Roles()))
				var groups []string
				for _, r := range p.Roles() {
					roles = append(roles, r.Name)
					if r.Group != "" && !slices.Contains(groups, r.Group) {
						groups = append(groups, r.Group)
					}
				}
				line = "roles: " + strings.Join(roles, ", ")
				if len(groups) > 0 {
					line += " (groups: " + strings.Join(groups, ", ") + ")"
				}
				fmt.Fprintf(w, "%-10s %s\n", "", line)
				if l, ok := p.(sm.FormatLister); ok {
					names := make([]string, 0, len(l.Formats()))
					for _, f := range l.Formats() {
						names = append(names, f.Name)
					}
					fmt.Fprintf(w, "%-10s export: --format %s\n", "", strings.Join(names, ", "))
				}
				if c, ok := p.(sm.Commander); ok {
					names := make([]string, 0, len(c.Commands()))
					for _, pc := range c.Commands() {
						names = append(names, pc.Name)
					}
					fmt.Fprintf(w, "%-10s commands: %s\n", "", strings.Join(names, ", "))
				}
			}
			return nil
		},
	}
}

// protocolFlags are the flags of `moot new` that the protocols add, each
// once.
func (a *app) protocolFlags() []ucli.Flag {
	var out []ucli.Flag
	seen := map[string]bool{"motion": true, "protocol": true}
	for _, p := range a.io.Protocols {
		for _, f := range p.Flags() {
			if seen[f.Name] {
				continue
			}
			seen[f.Name] = true
			usage := f.Usage
			if !isDefault(p) {
				usage = fmt.Sprintf("%s (%s)", f.Usage, p.Name())
			}
			if f.Bool {
				out = append(out, &ucli.BoolFlag{Name: f.Name, Usage: usage})
			} else if f.Repeated {
				out = append(out, &ucli.StringSliceFlag{Name: f.Name, Usage: usage})
			} else {
				out = append(out, &ucli.StringFlag{Name: f.Name, Usage: usage})
			}
		}
	}
	return out
}

// newWithProtocol is `moot new` for a protocol of the step model.
func (a *app) newWithProtocol(cmd *ucli.Command, slug string, p sm.Protocol) error {
	in, err := a.newInput(cmd, p, slug, cmd.String("motion"))
	if err != nil {
		return err
	}
	dir := filepath.Join(root(cmd), slug)
	d, err := driver.CreateDebate(dir, p, in)
	var input *sm.InputError
	if errors.As(err, &input) {
		var hints []string
		if input.Hint != "" {
			hints = append(hints, input.Hint)
		}
		return withCode(ExitUsage, input, hints...)
	}
	if errors.Is(err, fs.ErrExist) {
		return withCode(ExitUsage, fmt.Errorf("create %s: %w", dir, err),
			fmt.Sprintf("a debate of that name is there: '%s' carries it on, or choose another name", a.asInvoked("moot run "+shellQuote(slug))))
	}
	if err != nil {
		return withCode(ExitError, fmt.Errorf("create %s: %w", dir, err))
	}
	defer d.Close()
	deb, err := driver.LoadDebate(d, p)
	if err != nil {
		return err
	}
	fmt.Fprintf(a.io.Stdout, "created %s (%s)\n", dir, p.Name())
	if l, err := driver.StoredResearch(d); err != nil {
		return err
	} else if l != nil {
		fmt.Fprintf(a.io.Stdout, "research on, as the cast asks: the debaters search with %s's provider, at most %d searches and %d pages an answer\n",
			research.SearchEnv, l.Searches, l.Pages)
	}
	fmt.Fprintf(a.io.Stdout, "next: %s\n", deb.Status().Next)
	return nil
}

// newInput collects what `moot new` (or `moot tournament new`) was given
// for a debate of protocol p: its flags, the files and folders they name,
// read, and the motion. A flag of another protocol is refused, naming the
// protocols that take it.
func (a *app) newInput(cmd *ucli.Command, p sm.Protocol, slug, motion string) (sm.NewInput, error) {
	own := map[string]bool{}
	in := sm.NewInput{Slug: slug, Motion: strings.TrimSpace(motion), Values: map[string][]string{}, Now: a.io.Now()}
	if _, err := research.NewProvider(a.io.Getenv(research.SearchEnv), a.io.Getenv, nil); err == nil {
		in.SearchConfigured = true
	}
	for _, f := range p.Flags() {
		own[f.Name] = true
		if !cmd.IsSet(f.Name) {
			continue
		}
		if f.Bool {
			in.Values[f.Name] = []string{fmt.Sprint(cmd.Bool(f.Name))}
		} else if f.Repeated {
			in.Values[f.Name] = cmd.StringSlice(f.Name)
		} else {
			in.Values[f.Name] = []string{cmd.String(f.Name)}
		}
		if f.File {
			data, err := readFlagFile(f.Name, in.Value(f))
			if err != nil {
				return in, err
			}
			if in.Files == nil {
				in.Files = map[string][]byte{}
			}
			in.Files[f.Name] = data
		}
		if f.Dir {
			files, err := readFlagDir(f, in.Value(f))
			if err != nil {
				return in, err
			}
			if in.Dirs == nil {
				in.Dirs = map[string]map[string][]byte{}
			}
			in.Dirs[f.Name] = files
		}
	}
	owners := map[string][]string{} // a flag given that p does not take, by the protocols that do
	var foreign []string
	for _, other := range a.io.Protocols {
		for _, f := range other.Flags() {
			if !own[f.Name] && cmd.IsSet(f.Name) {
				if owners[f.Name] == nil {
					foreign = append(foreign, f.Name)
				}
				owners[f.Name] = append(owners[f.Name], other.Name())
			}
		}
	}
	if len(foreign) > 0 {
		f := foreign[0]
		return in, usageError("--%s is a flag of %s, not of %s", f, english.List(owners[f], "and"), p.Name())
	}
	if mg, ok := p.(sm.MotionGiver); ok && in.Motion == "" {
		m, err := mg.MotionOf(in)
		if err != nil {
			return in, withCode(ExitUsage, err)
		}
		in.Motion = strings.TrimSpace(m)
	}
	if in.Motion == "" {
		return in, badUsage(errNoMotion, `give it with --motion "..."`)
	}
	return in, nil
}

// errNoMotion is newInput's error when neither --motion nor the
// protocol's own flags give a motion.
var errNoMotion = errors.New("the motion is empty")

// MaxFlagFileSize is the largest file a protocol's file flag of `moot
// new` (such as --cast FILE) may name.
const MaxFlagFileSize = 4 << 20

// readFlagFile reads the file at path that the file flag called flag
// names.
func readFlagFile(flag, path string) ([]byte, error) {
	data, err := store.ReadInput(path, MaxFlagFileSize)
	var size *store.SizeError
	var pe *fs.PathError
	switch {
	case err == nil:
		return data, nil
	case errors.As(err, &size):
		return nil, withCode(ExitError, fmt.Errorf("read --%s %s: the file is larger than %d MiB, the limit for a file given to 'moot new'", flag, path, MaxFlagFileSize>>20))
	case errors.As(err, &pe):
		err = pe.Err
	}
	return nil, withCode(ExitError, fmt.Errorf("read --%s %s: %w", flag, path, err))
}

// readFlagDir reads the files of the folder at path that the folder flag f
// names: those directly in it whose names end in f.Suffix, all of them
// together at most MaxFlagFileSize.
func readFlagDir(f sm.Flag, path string) (map[string][]byte, error) {
	files, err := store.ReadInputFolder(path, f.Suffix, MaxFlagFileSize)
	var size *store.SizeError
	var pe *fs.PathError
	switch {
	case err == nil:
		return files, nil
	case errors.As(err, &size):
		return nil, withCode(ExitError, fmt.Errorf("read --%s %s: its files take more than %d MiB, the limit for files given to 'moot new'", f.Name, path, MaxFlagFileSize>>20))
	case errors.As(err, &pe):
		err = pe.Err
	}
	return nil, withCode(ExitError, fmt.Errorf("read --%s %s: %w", f.Name, path, err))
}

// protocolOf returns the protocol of the open debate d: the one its state
// file names, the default when it names none.
func (a *app) protocolOf(d *store.Dir) (sm.Protocol, error) {
	data, err := d.ReadFile(sm.StateFile)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", sm.StateFile, err)
	}
	name, err := driver.ProtocolOf(data)
	if err != nil {
		return nil, err
	}
	p, err := a.io.Protocols.Lookup(name)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", sm.StateFile, err)
	}
	return p, nil
}

// isDefault reports whether p is the protocol `moot new` makes when
// --protocol is absent (--protocol's default value, sm.Default): a command
// line moot suggests for it leaves --protocol out, and its flags are shown
// as moot's own. What a protocol can do is never decided by its name but
// by the step model's optional interfaces; this is the one comparison of
// a protocol's name in moot's commands.
func isDefault(p sm.Protocol) bool { return p.Name() == sm.Default }

// runRequest is what run or step was asked to do.
type runRequest struct {
	n     int  // units, when until and all are unset
	until int  // a unit count to reach, when set
	hasU  bool // until was given
	all   bool // to the end
	step  bool // one step
}

func (r runRequest) goal(st sm.Status) driver.UnitGoal {
	switch {
	case r.step:
		return driver.UnitGoal{Steps: 1}
	case r.all:
		return driver.UnitGoal{All: true}
	case r.hasU:
		return driver.UnitGoal{Done: r.until}
	}
	return driver.UnitGoal{Done: st.Done + r.n}
}

// driveProtocol runs a debate of a step-model protocol with models.
func (a *app) driveProtocol(ctx context.Context, cmd *ucli.Command, d *store.Dir, p sm.Protocol, req runRequest, o driver.Overrides) error {
	p, err := withTemplates(cmd, d, p)
	if err != nil {
		return err
	}
	deb, err := driver.LoadDebate(d, p)
	if err != nil {
		return err
	}
	start := deb.Status()
	// --retry-missing first asks again for what runs with --keep-going
	// went on without, complete debate or not.
	var gaps []string
	if cmd.Bool("retry-missing") {
		if gaps, err = retryGaps(d, deb, p.Name()); err != nil {
			return err
		}
		if len(gaps) == 0 {
			a.noGaps(d)
		}
	}
	if start.Complete && len(gaps) == 0 {
		fmt.Fprintf(a.io.Stderr, "moot: %s is complete (%s); nothing to run\n", d.Path(), start.Progress())
		return nil
	}
	goal := req.goal(start)
	if !req.step && !req.all && goal.Done <= start.Done && len(gaps) == 0 {
		fmt.Fprintf(a.io.Stderr, "moot: %s has %d %ss done already; nothing to run\n", d.Path(), start.Done, start.Unit)
		return nil
	}
	rb, err := a.bill(cmd, d, start.Unit)
	if err != nil {
		return err
	}
	client, err := a.modelClient(cmd)
	if err != nil {
		return err
	}
	p2 := a.newProgress(cmd.Bool("quiet"), cmd.Bool("json"), p, start.Unit)
	p2.closingAt(start)
	defer p2.stop()
	emit, endLive := a.liveEmit(d, cmd, start.Unit, p2.event, p2.warn)
	defer endLive()
	opts := driver.Options{
		Client:       client,
		Overrides:    o,
		DefaultModel: defaultModel(a.io.Getenv),
		Repairs:      cmd.Int("repairs"),
		Fresh:        cmd.Bool("fresh"),
		KeepGoing:    cmd.Bool("keep-going"),
		Sequential:   cmd.Bool("sequential"),
		NoPrompts:    a.noTranscripts(),
		Now:          a.io.Now,
		Emit:         emit,
		Warn:         p2.warn,
		Chunks:       cmd.Bool("json"),
		Person:       a.person,
	}
	a.withResearch(cmd, &opts)
	if rb.budget != nil {
		opts.BeforeStep = rb.budget.check
	}
	var sum driver.Summary
	if len(gaps) > 0 {
		sum, _, err = driver.FillMissing(ctx, d, p, opts)
	}
	if err == nil && !start.Complete && (req.step || req.all || goal.Done > start.Done) {
		var more driver.Summary
		more, err = driver.Advance(ctx, d, p, goal, opts)
		sum = addSummaries(sum, more)
	}
	p2.stop()
	if err != nil && errors.Is(err, context.Canceled) {
		return withCode(ExitInterrupted, err, "nothing of the interrupted step was written; answers already accepted are kept",
			fmt.Sprintf("to finish what was asked, run: moot run %s --until %d", d.Path(), goal.Done))
	}
	var stop *budgetStop
	if err != nil {
		if failed := roleErrors(err); len(failed) > 0 {
			return withCode(ExitModel, err, modelHints(d, failed, req.again(cmd.Name, d.Path()))...)
		}
		if !errors.As(err, &stop) {
			return err
		}
		// What the run did is said first, as after a run that ends well.
		err = withCode(ExitBudget, err, budgetHints(stop)...)
	}
	deb, lerr := driver.LoadDebate(d, p)
	if lerr != nil {
		return lerr
	}
	st := deb.Status()
	w := a.io.Stderr
	units, closing := st.Parts()
	fmt.Fprintf(w, "done: %s of %s%s", units, d.Path(), closing)
	if st.Complete {
		fmt.Fprintf(w, "; the debate is complete\n")
	} else {
		fmt.Fprintf(w, "; next: %s\n", st.Next)
	}
	run, all := rb.tallies(sum)
	fmt.Fprintf(w, "  %s in this run (%d failed) · %s\n", english.Count(sum.Calls, "model call"), sum.Failed, tokensText(run))
	if line := rb.cost(run, all); line != "" {
		fmt.Fprintf(w, "  %s\n", visible(line, false))
	}
	for _, warn := range sum.Warnings {
		fmt.Fprintf(w, "  warning: %s\n", warn)
	}
	return err
}

// statusProtocol prints the status of a debate of a step-model protocol.
func (a *app) statusProtocol(d *store.Dir, p sm.Protocol, asJSON bool, table prices.Table) error {
	deb, err := driver.ReadDebate(d, p)
	if err != nil {
		return err
	}
	st := deb.Status()
	if f := deb.Check(); len(f.Problems) > 0 {
		return brokenProtocolDebate(d, "status", f.Problems)
	}
	lines, err := driver.ReadUsageLines(d)
	if err != nil {
		return fmt.Errorf("read usage log: %w", err)
	}
	usage := driver.SumUsage(lines)
	bill := table.Bill(usageCalls(lines), driver.RoleNames(p))
	note, err := scriptedNote(d)
	if err != nil {
		return err
	}
	if asJSON {
		out := map[string]any{}
		for k, v := range st.Data {
			out[k] = v
		}
		// moot's own keys win over the protocol's of the same name.
		for k, v := range map[string]any{
			"debate": d.Path(), "protocol": p.Name(), "unit": st.Unit, "done": st.Done, "total": st.Total,
			"complete": st.Complete, "phase": st.Phase, "next": st.Next,
			"usage": usage, "cost": costJSON(bill),
		} {
			out[k] = v
		}
		if note != "" {
			out["scripted"] = note
		}
		if people, err := driver.People(d); err == nil && len(people) > 0 {
			out["people"] = people
		}
		return writeJSON(a.io.Stdout, out)
	}
	w := a.io.Stdout
	fmt.Fprintf(w, "debate    %s\n", visible(d.Path(), false))
	fmt.Fprintf(w, "protocol  %s\n", p.Name())
	a.printScripted(note)
	if st.Closing != "" {
		fmt.Fprintf(w, "%-9s %s\n", st.Unit+"s", st.Count())
	} else {
		fmt.Fprintf(w, "%-9s %s done\n", st.Unit+"s", st.Count())
	}
	if st.Complete {
		fmt.Fprintf(w, "next      nothing: the debate is complete\n")
	} else {
		fmt.Fprintf(w, "next      %s\n", visible(st.Next, false))
		fmt.Fprintf(w, "          %s\n", a.asInvoked("moot run "+visible(d.Path(), false)))
	}
	for _, l := range st.Lines {
		fmt.Fprintf(w, "%-9s %s\n", l.Label, visible(l.Text, false))
	}
	fmt.Fprint(w, peopleLine(d.Path(), st.Unit))
	if usage.Calls > 0 {
		fmt.Fprintf(w, "models    %s in all runs (%d failed) · %s · %.1f s of model time\n",
			english.Count(usage.Calls, "model call"), usage.Failed, tokensText(bill.Total), usage.Seconds)
		writeCost(w, bill)
	}
	if h := d.Writer(); h != nil {
		fmt.Fprintf(w, "writer    %s\n", describeHolder(h))
	}
	return nil
}

// brokenProtocolDebate refuses a debate that fails its check, as the
// dialectic commands do.
func brokenProtocolDebate(d *store.Dir, command string, ps []sm.Problem) error {
	lines := make([]string, len(ps))
	for i, p := range ps {
		lines[i] = p.String()
	}
	slices.Sort(lines)
	return withCode(ExitCheckFailed, fmt.Errorf("%s refused: %s fails check:\n  %s", command, d.Path(), strings.Join(lines, "\n  ")),
		fmt.Sprintf("fix the files (or restore them, with git for instance), then 'moot check %s' to see that it passes", d.Path()))
}

// stepProtocol is the one place where a read command (report, export)
// learns how to read the debate in d: with its protocol, returned, whose
// debate's Check refuses it when broken (brokenProtocolDebate), or, when
// it returns nil, through readChecked, which refuses a broken debate in
// the words of its protocol's own check of its files (an sm.FilesChecker,
// such as dialectic) as `moot check` does. A debate whose state file
// cannot say is left to readChecked too, whose default protocol reports
// what is wrong with it; one that names a protocol this moot does not
// know is an error.
func (a *app) stepProtocol(d *store.Dir) (sm.Protocol, error) {
	p, err := a.protocolOf(d)
	if err != nil {
		return nil, unknownOnly(d, err)
	}
	if _, ok := p.(sm.FilesChecker); ok {
		return nil, nil
	}
	return p, nil
}

// unknownOnly returns, of an error of protocolOf for the debate in d, the
// one a command stops at, that its state file names a protocol this moot
// does not know; nil when the state file cannot say which, which the
// default protocol's check then reports in its words.
func unknownOnly(d *store.Dir, err error) error {
	var unknown *sm.UnknownProtocolError
	if errors.As(err, &unknown) {
		return withCode(ExitError, fmt.Errorf("%s: %w", d.Path(), err), "'moot protocols' lists the protocols this moot knows")
	}
	return nil
}

// withProtocol opens the debate at dir and, when it is of a step-model
// protocol (see stepProtocol), calls f with it and reports handled.
func (a *app) withProtocol(dir string, f func(d *store.Dir, p sm.Protocol) error) (handled bool, err error) {
	d, err := store.Open(dir)
	if err != nil {
		return false, nil
	}
	defer d.Close()
	p, err := a.stepProtocol(d)
	if err != nil {
		return true, err
	}
	if p == nil {
		return false, nil
	}
	return true, f(d, p)
}

// withDebateProtocol is withProtocol for the debate named by the first
// argument of cmd. A debate that cannot be found is left to dialectic's
// code, which says so in its words.
func (a *app) withDebateProtocol(cmd *ucli.Command, f func(d *store.Dir, p sm.Protocol) error) (handled bool, err error) {
	dir, err := debateDir(cmd, cmd.Args().First())
	if err != nil {
		return false, nil
	}
	return a.withProtocol(dir, f)
}

// protocolFormats lists, for the help of --format, the formats of export
// that the other protocols offer.
func (a *app) protocolFormats() string {
	var parts []string
	for _, p := range a.io.Protocols {
		l, ok := p.(sm.FormatLister)
		if !ok {
			continue
		}
		parts = append(parts, p.Name()+": "+describeFormats(l.Formats()))
	}
	if len(parts) == 0 {
		return ""
	}
	return "; a debate of another protocol takes its own, the first by default (" + strings.Join(parts, "; ") + ")"
}

// describeFormats lists formats with what each holds.
func describeFormats(fs []sm.Format) string {
	out := make([]string, len(fs))
	for i, f := range fs {
		out[i] = f.Name
		if f.Usage != "" {
			out[i] += " (" + f.Usage + ")"
		}
	}
	return strings.Join(out, ", ")
}

// exportProtocol is `moot export` for a step-model protocol: the debate in
// one of the formats its protocol offers, the first by default.
func (a *app) exportProtocol(cmd *ucli.Command, d *store.Dir, p sm.Protocol) error {
	deb, err := driver.ReadDebate(d, p)
	if err != nil {
		return err
	}
	if f := deb.Check(); len(f.Problems) > 0 {
		return brokenProtocolDebate(d, "export", f.Problems)
	}
	if jd, ok := deb.(sm.Judged); ok && strings.EqualFold(cmd.String("format"), judgesFormat.Name) {
		out, err := judging.CSV(jd.Judgments())
		if err != nil {
			return err
		}
		return a.writeExport(cmd, d, judgesFormat.Name, out)
	}
	x, ok := deb.(sm.Exporter)
	if !ok || len(x.Formats()) == 0 {
		return usageError("protocol %s has no export formats", p.Name())
	}
	formats := x.Formats()
	format := formats[0]
	if cmd.IsSet("format") {
		i := slices.IndexFunc(formats, func(f sm.Format) bool { return f.Name == strings.ToLower(cmd.String("format")) })
		if i < 0 {
			names := make([]string, len(formats))
			for j, f := range formats {
				names[j] = f.Name
			}
			return badUsage(fmt.Errorf("--format %q: a %s debate exports %s", cmd.String("format"), p.Name(), strings.Join(names, ", ")),
				"formats: "+describeFormats(formats))
		}
		format = formats[i]
	}
	out, err := x.Export(format.Name)
	if err != nil {
		return fmt.Errorf("export %s as %s: %w", d.Path(), format.Name, err)
	}
	return a.writeExport(cmd, d, format.Name, out)
}

// judgesFormat is the export format every debate with judges has: a row
// per item, a column per judge.
var judgesFormat = sm.Format{Name: "judges", Usage: "CSV, a row per scored item, a column per judge (judge_NAME) beside the official score", Ext: "csv"}

// writeExport writes an export to -o FILE, or to stdout.
func (a *app) writeExport(cmd *ucli.Command, d *store.Dir, format string, out []byte) error {
	if path := cmd.String("output"); path != "" {
		if err := writeOutput(path, out); err != nil {
			return fmt.Errorf("write -o %s: %w", path, err)
		}
		fmt.Fprintf(a.io.Stderr, "moot: wrote %s as %s to %s\n", d.Path(), format, path)
		return nil
	}
	_, err := a.io.Stdout.Write(out)
	return err
}

// protocolCommands are the commands the protocols add to moot, each
// under its own name unless moot or another protocol has it already.
func (a *app) protocolCommands(builtin []*ucli.Command) []*ucli.Command {
	seen := map[string]bool{}
	for _, c := range builtin {
		seen[c.Name] = true
	}
	var out []*ucli.Command
	for _, p := range a.io.Protocols {
		c, ok := p.(sm.Commander)
		if !ok {
			continue
		}
		for _, pc := range c.Commands() {
			if seen[pc.Name] || pc.Run == nil {
				continue
			}
			seen[pc.Name] = true
			run := pc.Run
			out = append(out, &ucli.Command{
				Name:         pc.Name,
				Usage:        fmt.Sprintf("%s (%s)", pc.Usage, p.Name()),
				ArgsUsage:    pc.ArgsUsage,
				OnUsageError: usageOnError,
				Action: func(ctx context.Context, cmd *ucli.Command) error {
					return run(cmd.Args().Slice(), a.io.Stdout)
				},
			})
		}
	}
	return out
}

// showProtocol is `moot show` for a step-model protocol: the parts its
// debate lists, a line each, or the one called id.
func (a *app) showProtocol(d *store.Dir, p sm.Protocol, id string, one, asJSON bool) error {
	deb, err := driver.ReadDebate(d, p)
	if err != nil {
		return err
	}
	if f := deb.Check(); len(f.Problems) > 0 {
		return brokenProtocolDebate(d, "show", f.Problems)
	}
	sh, ok := deb.(sm.Shower)
	if !ok {
		return badUsage(fmt.Errorf("a %s debate has no parts to show", p.Name()),
			fmt.Sprintf("'moot status %s' says where it stands; 'moot report %s --stdout' prints it", d.Path(), d.Path()))
	}
	parts := sh.Parts()
	if !one {
		if asJSON {
			if parts == nil {
				parts = []sm.Part{}
			}
			return writeJSON(a.io.Stdout, parts)
		}
		w := a.io.Stdout
		width := 0
		for _, pt := range parts {
			width = max(width, termwidth.Width(visible(pt.ID, false)))
		}
		for _, pt := range parts {
			score := ""
			if pt.Score != nil {
				score = " · " + strconv.FormatFloat(*pt.Score, 'f', -1, 64)
			}
			private := ""
			if pt.Private != "" {
				private = " · private to " + pt.Private
			}
			fmt.Fprintf(w, "%s  %s %-3d %s %s%s%s\n", termwidth.Pad(visible(pt.ID, false), width), deb.Status().Unit, pt.Unit, termwidth.Pad(visible(pt.Role, false), 12), visible(pt.Title, false), score, private)
		}
		if len(parts) == 0 {
			fmt.Fprintf(w, "%s has no parts yet\n", d.Path())
		}
		return nil
	}
	text, ok := sh.Show(id)
	if !ok {
		ids := make([]string, len(parts))
		for i, pt := range parts {
			ids[i] = pt.ID
		}
		hint := fmt.Sprintf("'moot show %s' lists them", d.Path())
		if len(ids) > 0 {
			hint = fmt.Sprintf("its parts are %s to %s; %s", ids[0], ids[len(ids)-1], hint)
		}
		return withCode(ExitError, fmt.Errorf("%s has no part %q", d.Path(), id), hint)
	}
	if asJSON {
		out := map[string]any{"id": id, "text": text}
		if pt, ok := partByID(parts, id); ok {
			out = map[string]any{"part": pt, "text": text}
		}
		return writeJSON(a.io.Stdout, out)
	}
	_, err = io.WriteString(a.io.Stdout, visible(text, true))
	return err
}

// partByID finds the part called id, written as listed ("008") or as a
// plain number ("8").
func partByID(parts []sm.Part, id string) (sm.Part, bool) {
	n, err := strconv.Atoi(id)
	for _, pt := range parts {
		if pt.ID == id {
			return pt, true
		}
		if m, e := strconv.Atoi(pt.ID); err == nil && e == nil && m == n {
			return pt, true
		}
	}
	return sm.Part{}, false
}
