package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	ucli "github.com/urfave/cli/v3"
	"golang.org/x/term"

	driver "github.com/moot-dev/moot/internal/driver"
	"github.com/moot-dev/moot/internal/english"
	"github.com/moot-dev/moot/internal/model"
	"github.com/moot-dev/moot/internal/prices"
	sm "github.com/moot-dev/moot/statemachine"
	"github.com/moot-dev/moot/store"
)

// DefaultModel is the model asked when neither a flag, MOOT_MODEL nor the
// debate's stored settings name one.
const DefaultModel = "gpt-4o-mini"

// defaultModel is $MOOT_MODEL, else DefaultModel.
func defaultModel(getenv func(string) string) string {
	if m := strings.TrimSpace(getenv("MOOT_MODEL")); m != "" {
		return m
	}
	return DefaultModel
}

func (a *app) modelFlags() []ucli.Flag {
	return append(append(a.roleFlags(),
		&ucli.StringFlag{Name: "judges", Usage: "a panel of judge `MODELS`, comma-separated, that judges every step with a judge together (stored in debate.md)"},
		budgetFlag(), pricesFlag(), judgeContextFlag(), cacheMarksFlag()),
		a.callFlags()...)
}

// judgeContextFlag is --judge-context, which says what a dialectic
// judge's prompt shows (see sm.JudgeContexter).
func judgeContextFlag() ucli.Flag {
	return &ucli.StringFlag{Name: "judge-context", Usage: "what a dialectic judge reads in full: `CONTEXT` focused (the new arguments and those they attack or defend, the rest as one line each; the default) or full (every argument; stored in debate.md)"}
}

// judgeContext reads --judge-context; "" when it is not given.
func judgeContext(cmd *ucli.Command, p sm.Protocol) (string, error) {
	if !cmd.IsSet("judge-context") {
		return "", nil
	}
	jc, ok := p.(sm.JudgeContexter)
	if !ok {
		return "", badUsage(fmt.Errorf("--judge-context: a %s debate has no dialectic judge", p.Name()), "the flag is for dialectic debates")
	}
	c, err := jc.ParseJudgeContext(cmd.String("judge-context"))
	if err != nil {
		return "", badUsage(fmt.Errorf("--judge-context: %w", err))
	}
	return c, nil
}

// cacheMarksFlag is --cache-marks, which says which calls carry cache
// breakpoints (see driver.CacheMarks).
func cacheMarksFlag() ucli.Flag {
	return &ucli.StringFlag{Name: "cache-marks", Usage: "mark the stable start of each prompt for the provider's cache: `WHEN` auto (for Anthropic and Gemini models through OpenRouter, by their ids; the default), on (every model: an endpoint that honours cache_control) or off (stored in debate.md)"}
}

// cacheMarks reads --cache-marks; "" when it is not given.
func cacheMarks(cmd *ucli.Command) (driver.CacheMarks, error) {
	if !cmd.IsSet("cache-marks") {
		return "", nil
	}
	c, err := driver.ParseCacheMarks(cmd.String("cache-marks"))
	if err != nil {
		return "", badUsage(fmt.Errorf("--cache-marks: %w", err))
	}
	return c, nil
}

// callFlags are the flags of every command that asks models, besides the
// models themselves.
func (a *app) callFlags() []ucli.Flag {
	return []ucli.Flag{
		&ucli.IntFlag{Name: "repairs", Value: 2, Usage: "send a refused answer back for correction up to `N` times"},
		&ucli.DurationFlag{Name: "timeout", Value: model.DefaultTimeout, Usage: "time limit of each request, a `DURATION` such as 90s or 5m"},
		&ucli.IntFlag{Name: "retries", Value: model.DefaultMaxRetries, Usage: "retry a request up to `N` times after a rate limit, server error or timeout"},
		&ucli.StringFlag{Name: "templates", Usage: "`DIR` of prompt templates that replace the built-in ones by name"},
		&ucli.BoolFlag{Name: "fresh", Usage: "ask again even where an answer from an interrupted run is kept"},
		keepGoingFlag(),
		sequentialFlag(),
		&ucli.BoolFlag{Name: "quiet", Aliases: []string{"q"}, Usage: "print only errors and the final summary"},
		&ucli.BoolFlag{Name: "json", Usage: "print one JSON event per line on stdout"},
		waitFlag(),
	}
}

func (a *app) runCommand() *ucli.Command {
	return &ucli.Command{
		Name:      "run",
		Usage:     "complete N exchanges with models (default 1), resuming from wherever the debate stands",
		ArgsUsage: "<debate> [N]",
		Flags: append([]ucli.Flag{
			&ucli.IntFlag{Name: "until", HideDefault: true, Usage: "run until `EXCHANGE` is reached (every exchange before it judged; for other protocols, until that many units are done)"},
			&ucli.BoolFlag{Name: "all", Usage: "run to the end, for a protocol that has one (dialectic has none)"},
			humanFlag(),
			dryRunFlag(),
			retryMissingFlag(),
		}, append(a.modelFlags(), researchFlags()...)...),
		OnUsageError: usageOnError,
		Action: func(ctx context.Context, cmd *ucli.Command) error {
			a.jsonEvents = cmd.Bool("json")
			if cmd.Args().Len() < 1 || cmd.Args().Len() > 2 {
				return usageError("run takes a debate and an optional number of units (exchanges for dialectic)")
			}
			n := 1
			if cmd.Args().Len() == 2 {
				v, err := strconv.Atoi(cmd.Args().Get(1))
				if err != nil || v < 1 || v > sm.MaxUnits {
					err := fmt.Errorf("%q is not a number of units to run: N is a whole number from 1 to %d (exchanges, turns, rounds or stages)", cmd.Args().Get(1), sm.MaxUnits)
					if _, nerr := strconv.Atoi(cmd.Args().Get(0)); nerr == nil {
						return badUsage(err, fmt.Sprintf("the debate comes first, then N: did you mean 'moot run %s %s'?", shellQuote(cmd.Args().Get(1)), cmd.Args().Get(0)))
					}
					return badUsage(err)
				}
				n = v
				if cmd.IsSet("until") {
					return usageError("run takes N exchanges or --until E, not both: give one of them")
				}
			}
			if u := cmd.Int("until"); cmd.IsSet("until") && (u < 0 || u > sm.MaxUnits) {
				return usageError("--until %d is not an exchange from 0 to %d", u, sm.MaxUnits)
			}
			req := runRequest{n: n, until: int(cmd.Int("until")), hasU: cmd.IsSet("until"), all: cmd.Bool("all")}
			if req.all && (cmd.Args().Len() == 2 || req.hasU) {
				return usageError("run takes N, --until E or --all, one of them")
			}
			if cmd.Bool("dry-run") {
				return a.dryRun(ctx, cmd, req)
			}
			return a.drive(ctx, cmd, req)
		},
	}
}

func (a *app) stepCommand() *ucli.Command {
	return &ucli.Command{
		Name:         "step",
		Usage:        "advance a debate by exactly one phase with models",
		ArgsUsage:    "<debate>",
		Flags:        append(append([]ucli.Flag{humanFlag()}, a.modelFlags()...), researchFlags()...),
		OnUsageError: usageOnError,
		Action: func(ctx context.Context, cmd *ucli.Command) error {
			a.jsonEvents = cmd.Bool("json")
			if cmd.Args().Len() != 1 {
				return usageError("step takes one debate")
			}
			return a.drive(ctx, cmd, runRequest{step: true})
		},
	}
}

// drive runs a debate with models until req is done. A debate of a
// Tallied protocol is run and told in its exchanges and scores.
func (a *app) drive(ctx context.Context, cmd *ucli.Command, req runRequest) (err error) {
	d, err := a.openForWrite(ctx, cmd)
	if err != nil {
		return err
	}
	defer d.Close()
	// A command that ends well ends the --retry-missing pass it made or
	// resumed: the next one asks every gap again.
	defer func() {
		if err == nil {
			err = driver.EndRetry(d, "")
		}
	}()
	proto, err := a.protocolOf(d)
	if err != nil {
		return err
	}
	o, err := a.overrides(cmd, proto)
	if err != nil {
		return err
	}
	if err := a.setPerson(cmd, d, proto); err != nil {
		return err
	}
	if cmd.IsSet("judges") {
		if err := a.setPanel(d, proto, cmd.String("judges")); err != nil {
			return err
		}
	}
	tp, ok := proto.(sm.Tallied)
	if !ok {
		return a.driveProtocol(ctx, cmd, d, proto, req, o)
	}
	deb, err := loadTally(d, proto)
	if err != nil {
		return err
	}
	st := deb.Status()
	unit, end := st.Unit, st.Total
	if u, ok := proto.(sm.Unending); ok && req.all && end == 0 {
		return noEnd(u)
	}
	start := tallyPoint{done: st.Done, argued: deb.Argued()}
	a.exchange = &start.done
	// --retry-missing first asks again for the judgments of a panel's
	// judges, or of a re-judging, that runs with --keep-going went on
	// without.
	var gaps []string
	if cmd.Bool("retry-missing") {
		if gaps, err = retryGaps(d, deb, proto.Name()); err != nil {
			return err
		}
		if len(gaps) == 0 {
			a.noGaps(d)
		}
	}
	if st.Complete && len(gaps) > 0 {
		return a.driveProtocol(ctx, cmd, d, proto, req, o)
	}
	if st.Complete {
		fmt.Fprintf(a.io.Stderr, "moot: %s is complete (its %d %ss are judged); nothing to run\n", d.Path(), end, unit)
		return nil
	}
	g := tallyGoal(req, st)
	if g.Steps == 0 && len(gaps) == 0 && (g.Done < start.done || (g.Done == start.done && !start.argued)) {
		fmt.Fprintf(a.io.Stderr, "moot: %s is already at %s %d; nothing to run\n", d.Path(), unit, start.done)
		return nil
	}
	tmpl, err := protocolTemplates(proto.Name(), d, cmd.String("templates"))
	if err != nil {
		return err
	}
	rb, err := a.bill(cmd, d, unit)
	if err != nil {
		return err
	}
	client, err := a.modelClient(cmd)
	if err != nil {
		return err
	}
	p := a.newProgress(cmd.Bool("quiet"), cmd.Bool("json"), proto, unit)
	defer p.stop()
	emit, endLive := a.liveEmit(d, cmd, unit, p.event, p.warn)
	defer endLive()
	opts := driver.Options{
		Client:       client,
		Templates:    tmpl,
		Overrides:    o,
		DefaultModel: defaultModel(a.io.Getenv),
		Repairs:      cmd.Int("repairs"),
		Fresh:        cmd.Bool("fresh"),
		KeepGoing:    cmd.Bool("keep-going"),
		Sequential:   cmd.Bool("sequential"),
		NoPrompts:    a.noTranscripts(),
		Now:          a.io.Now,
		Emit:         emit,
		Warn:         p.warn,
		Chunks:       cmd.Bool("json"),
		Person:       a.person,
	}
	a.withResearch(cmd, &opts)
	if rb.budget != nil {
		opts.BeforeStep = rb.budget.check
	}
	run := proto
	if t, ok := proto.(sm.Templated); ok {
		run = t.WithTemplates(tmpl)
	}
	var sum driver.Summary
	if len(gaps) > 0 {
		sum, _, err = driver.FillMissing(ctx, d, run, opts)
	}
	if err == nil {
		var more driver.Summary
		more, err = driver.Advance(ctx, d, run, g, opts)
		sum = addSummaries(sum, more)
	}
	p.stop()
	if err != nil {
		if now, lerr := loadTally(d, proto); lerr == nil {
			done := now.Status().Done
			a.exchange = &done
		}
	}
	if err != nil && errors.Is(err, context.Canceled) {
		return withCode(ExitInterrupted, err, "nothing of the interrupted step was written",
			"to finish what was asked, run: "+resumeCommand(cmd, d.Path(), g))
	}
	if err != nil {
		if failed := roleErrors(err); len(failed) > 0 {
			hints := modelHints(d, failed, resumeCommand(cmd, d.Path(), g))
			for _, re := range failed {
				var api *model.APIError
				if errors.As(re, &api) && api.Hint() != "" && !slices.Contains(hints, api.Hint()) {
					hints = append(hints, api.Hint())
				}
			}
			return withCode(ExitModel, err, hints...)
		}
		var stop *budgetStop
		if errors.As(err, &stop) {
			if !cmd.Bool("json") {
				if serr := a.summary(d, cmd, proto, tp, start, sum, rb, true); serr != nil {
					return serr
				}
			}
			return withCode(ExitBudget, err, budgetHints(stop)...)
		}
		return err
	}
	return a.summary(d, cmd, proto, tp, start, sum, rb, false)
}

// tallyPoint is where a debate of a Tallied protocol stands: at exchange
// done, argued or not.
type tallyPoint struct {
	done   int
	argued bool
}

// tallyGoal is the goal of req for a debate of a Tallied protocol that
// stands where st says: the exchanges to judge, or the steps to take. A
// debate with an end runs to it and no further.
func tallyGoal(req runRequest, st sm.Status) driver.UnitGoal {
	g := req.goal(st)
	if req.all {
		g = driver.UnitGoal{Done: st.Total}
	}
	if st.Total > 0 && g.Steps == 0 && g.Done > st.Total {
		g.Done = st.Total
	}
	return g
}

// loadTally reads the debate in d of the Tallied protocol p; a writer (d
// locked) is refused one with problems. A file that cannot be read fails
// the command with the plain error, and its exit status, as dialectic's
// always have.
func loadTally(d *store.Dir, p sm.Protocol) (sm.TallyDebate, error) {
	deb, err := driver.LoadDebate(d, p)
	if err != nil {
		return nil, plainBadFiles(err)
	}
	td, ok := deb.(sm.TallyDebate)
	if !ok {
		return nil, fmt.Errorf("a %s debate keeps no tally of its sides' scores", p.Name())
	}
	return td, nil
}

// runBill is what run and step need for the bill of a debate.
type runBill struct {
	table prices.Table
	// earlier is the usage log before the run; unread says it could not
	// be read, so that what earlier runs cost is unknown.
	earlier []driver.Usage
	unread  bool
	// budget is that of --budget, nil without it.
	budget *budget
	// from says where the prices of the last tallies came from.
	from string
}

// bill returns the bill of a run of d; unit is what its steps count. A
// usage log that cannot be read leaves what earlier runs cost unknown,
// with a warning, and is an error only under --budget, which needs it.
func (a *app) bill(cmd *ucli.Command, d *store.Dir, unit string) (*runBill, error) {
	table, err := a.priceTable(cmd)
	if err != nil {
		return nil, err
	}
	rb := &runBill{table: table}
	limit := budgetOf(cmd, d)
	if rb.earlier, err = driver.ReadUsageLines(d); err != nil {
		if limit != nil {
			return nil, fmt.Errorf("--budget needs what the debate has cost: read usage log: %w", err)
		}
		fmt.Fprintf(a.io.Stderr, "moot: warning: cannot read the usage log, so what earlier runs cost is unknown: %v\n", err)
		rb.unread = true
	}
	rb.budget, err = newBudget(limit, table, rb.earlier, unit)
	return rb, err
}

// budgetHints are the hints of a run that --budget stopped.
func budgetHints(stop *budgetStop) []string {
	hints := []string{"every step before it is committed; nothing of the next one was asked or written"}
	if len(stop.unknown) > 0 {
		return append(hints, `give their prices in a prices file, --prices FILE or MOOT_PRICES (JSON or YAML, USD per million tokens: {"MODEL": {"input": 1, "cached": 0.5, "output": 4}})`)
	}
	return append(hints, fmt.Sprintf("the debate's budget of %s is stored in its debate.md: to go on, run again with a higher --budget, which replaces it", prices.USD(stop.limit)))
}

// resumeCommand is the command line that completes what an interrupted
// run or step was asked to do: the goal as an exchange to reach, so that
// running it again does not overshoot, with the flags the user gave.
// --fresh is left out: answers kept by the interrupted run are its own, and
// asking for them again would pay twice.
func resumeCommand(cmd *ucli.Command, dir string, g driver.UnitGoal) string {
	args := []string{"moot", cmd.Name, shellQuote(dir)}
	if g.Steps == 0 {
		args = append(args, "--until", strconv.Itoa(g.Done))
	}
	for _, f := range cmd.Flags {
		name := f.Names()[0]
		if name == "until" || name == "fresh" || !cmd.IsSet(name) {
			continue
		}
		switch v := cmd.Value(name).(type) {
		case bool:
			if v {
				args = append(args, "--"+name)
			}
		case float64:
			args = append(args, "--"+name, strconv.FormatFloat(v, 'g', -1, 64))
		case string:
			args = append(args, "--"+name, shellQuote(v))
		case time.Duration:
			if name == "wait" {
				args = append(args, "--wait="+v.String())
			} else {
				args = append(args, "--"+name, v.String())
			}
		default:
			args = append(args, "--"+name, shellQuote(fmt.Sprint(v)))
		}
	}
	return strings.Join(args, " ")
}

// shellQuote quotes s for a POSIX shell when it needs it.
func shellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-./:=@%+,") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// summary says what a run of the debate in d, of proto, whose Tallied
// side is p, did from start: as one JSON event with --json, else in lines
// for people. A run that --budget stopped (budgetStopped) proposes no more
// exchanges, which the budget would stop again: its error's hints say how
// to go on.
func (a *app) summary(d *store.Dir, cmd *ucli.Command, proto sm.Protocol, p sm.Tallied, start tallyPoint, sum driver.Summary, rb *runBill, budgetStopped bool) error {
	deb, err := loadTally(d, proto)
	if err != nil {
		return err
	}
	st, tally := deb.Status(), deb.Tally()
	run, all := rb.tallies(sum)
	if cmd.Bool("json") {
		ev := map[string]any{
			"event": "summary", "debate": deb.ID(), "exchange": st.Done, "phase": st.Phase, "complete": st.Complete,
			"cumulative_scores": tally, "calls": sum.Calls, "failed_calls": sum.Failed, "prompt_tokens": sum.PromptTokens,
			"cached_tokens": sum.CachedTokens, "completion_tokens": sum.CompletionTokens, "seconds": sum.Elapsed.Seconds(),
			"warnings": append([]string{}, sum.Warnings...),
		}
		rb.addCostKeys(ev, run, all)
		return writeJSONLine(a.io.Stdout, ev)
	}
	w := a.io.Stderr
	what := stepsDone(st.Unit, start, tallyPoint{done: st.Done, argued: deb.Argued()}, sum.Steps)
	if st.Complete {
		fmt.Fprintf(w, "done: %s of %s; the debate ended after its %d %ss\n", what, deb.ID(), st.Total, st.Unit)
	} else {
		fmt.Fprintf(w, "done: %s of %s; now at %s %d, %s\n", what, deb.ID(), st.Unit, st.Done, strings.ReplaceAll(st.Phase, "_", " "))
	}
	prop, opp := p.SideRoles()
	fmt.Fprintf(w, "  %s %s (%d scored) · %s %s (%d scored)\n",
		prop, p.FormatScore(tally.Proposition.Total), tally.Proposition.Count,
		opp, p.FormatScore(tally.Opposition.Total), tally.Opposition.Count)
	fmt.Fprintf(w, "  %s in this run (%d failed) · %s · %.1f s\n",
		english.Count(sum.Calls, "model call"), sum.Failed, tokensText(run), sum.Elapsed.Seconds())
	if line := rb.cost(run, all); line != "" {
		fmt.Fprintf(w, "  %s\n", visible(line, false))
	}
	for _, warn := range sum.Warnings {
		fmt.Fprintf(w, "  warning: %s\n", warn)
	}
	more, rep := a.asInvoked("moot run "+d.Path()+" 3"), a.asInvoked("moot report "+d.Path())
	if st.Complete || budgetStopped {
		fmt.Fprintf(w, "next:\n  %s  the report, in %s\n", rep, filepath.Join(d.Path(), "README.md"))
		return nil
	}
	width := max(len(more), len(rep))
	fmt.Fprintf(w, "next:\n  %-*s  three more %ss\n  %-*s  the report, in %s\n",
		width, more, st.Unit, width, rep, filepath.Join(d.Path(), "README.md"))
	return nil
}

// stepsDone says what a run of steps took a debate told in exchanges
// (unit) through, from start to end: "argued exchange 2", "judged
// exchange 3", "3 exchanges", or else the number of steps.
func stepsDone(unit string, start, end tallyPoint, steps int) string {
	switch {
	case steps == 1 && start.argued:
		return fmt.Sprintf("judged %s %d", unit, start.done)
	case steps == 1:
		return fmt.Sprintf("argued %s %d", unit, start.done)
	case !start.argued && !end.argued && end.done > start.done:
		return english.Count(end.done-start.done, unit)
	}
	return english.Count(steps, "step")
}

// progress prints run events: a line per event on stderr (with a live
// status line when stderr is a terminal), or JSON lines on stdout.
type progress struct {
	a *app
	// tally is the debate's protocol when it is Tallied, whose events
	// are told in its exchanges and scores; roles are its roles in its
	// order, and unit is what its steps count.
	tally sm.Tallied
	roles []string
	unit  string
	// closing is the number of the debate's closing unit (forum's
	// verdict, refine's synthesis) when it is known, and closingName
	// what its lines are labelled ("verdict"), not one more turn.
	closing     int
	closingName string
	quiet       bool
	json        bool
	live        bool
	mu          sync.Mutex
	asking      map[string]string
	// last holds, by role, the answers not yet told of, oldest first: a
	// run that asks calls early (see driver's pipeline) can have a
	// role's next answer in before the line of the one before it.
	last    map[string][]driver.Event
	stopped bool
}

func (a *app) newProgress(quiet, asJSON bool, proto sm.Protocol, unit string) *progress {
	tally, _ := proto.(sm.Tallied)
	p := &progress{a: a, tally: tally, roles: driver.RoleNames(proto), unit: unit, quiet: quiet, json: asJSON, asking: map[string]string{}, last: map[string][]driver.Event{}}
	if f, ok := a.io.Stderr.(*os.File); ok && !quiet && !asJSON {
		if term.IsTerminal(int(f.Fd())) && a.io.Getenv("TERM") != "dumb" {
			p.live = true
		}
	}
	return p
}

// closingAt tells p which unit of the debate whose status is st is its
// closing one: the last (forum's verdict, refine's synthesis). Where a
// stop rule ends refine's rounds sooner than their most, the synthesis
// comes before that unit and is still told as a round.
func (p *progress) closingAt(st sm.Status) {
	if st.Closing != "" && st.Total > 0 {
		p.closing, p.closingName = st.Total, strings.TrimPrefix(st.Closing, "the ")
	}
}

func (p *progress) color(code, s string) string {
	if !p.live || p.a.io.Getenv("NO_COLOR") != "" {
		return s
	}
	return "\033[" + code + "m" + s + "\033[0m"
}

func (p *progress) clear() {
	if p.live {
		fmt.Fprint(p.a.io.Stderr, "\r\033[K")
	}
}

func (p *progress) status() {
	if !p.live || len(p.asking) == 0 {
		return
	}
	var roles []string
	for _, r := range p.roles {
		if m, ok := p.asking[r]; ok {
			roles = append(roles, fmt.Sprintf("%s (%s)", r, m))
		}
	}
	fmt.Fprintf(p.a.io.Stderr, "\r\033[K… waiting for %s", strings.Join(roles, ", "))
}

func (p *progress) event(e driver.Event) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.json {
		p.a.writeEvent(e)
		return
	}
	if e.Begins || e.Kind == driver.EventChunk || e.Kind == driver.EventDiscard || e.Kind == driver.EventComplete {
		// For scripts and interfaces: people see the status line.
		return
	}
	switch e.Kind {
	case driver.EventAsk:
		p.asking[e.Role] = e.Model
		p.status()
		return
	case driver.EventAnswer:
		delete(p.asking, e.Role)
		p.last[e.Role] = append(p.last[e.Role], e)
		p.clear()
		p.status()
		return
	}
	if p.quiet {
		return
	}
	p.clear()
	w := p.a.io.Stderr
	// cost says what the role's last answer cost, on the first line
	// of that answer only: an answer that makes several events (an
	// opening's three arguments) is not counted again on each.
	cost := func(role string) string {
		q := p.last[role]
		// An answer of an earlier unit that no line told of is not
		// told of later.
		for len(q) > 0 && q[0].Exchange < e.Exchange {
			q = q[1:]
		}
		if len(q) == 0 {
			delete(p.last, role)
			return ""
		}
		l := q[0]
		p.last[role] = q[1:]
		return fmt.Sprintf(" · %.1f s · %d tok", l.Seconds, l.Tokens)
	}
	unit := fmt.Sprintf("%s %d", p.unit, e.Exchange)
	if p.closing > 0 && e.Exchange == p.closing {
		unit = p.closingName
	}
	switch {
	case e.Kind == driver.EventRepair:
		// The answer sent back is not the one a later line tells of.
		if q := p.last[e.Role]; len(q) > 0 {
			p.last[e.Role] = q[:len(q)-1]
		}
		fmt.Fprintf(w, "%s · %s's answer sent back: %s\n", unit, e.Role, e.Message)
	case e.Kind == driver.EventReused:
		fmt.Fprintf(w, "%s · %s: %s\n", unit, e.Role, e.Message)
	case e.Kind == driver.EventRetry:
		fmt.Fprintf(w, "%s · %s (%s): %s\n", unit, e.Role, e.Model, e.Message)
	case p.tally == nil:
		// The events of a protocol not told in exchanges, in its words.
		fmt.Fprintf(w, "%s · %s\n", unit, describeEvent(e, cost(e.Role)))
	case e.Kind == driver.EventArgued:
		fmt.Fprintf(w, "exchange %d · %s argued %s %q%s\n", e.Exchange, p.side(e.Role), e.ID, e.Title, cost(e.Role))
	case e.Kind == driver.EventScored:
		fmt.Fprintf(w, "exchange %d · judge scored %s %s\n", e.Exchange, e.ID, p.score(*e.Score))
	case e.Kind == driver.EventRescored:
		fmt.Fprintf(w, "exchange %d · judge rescored %s to %s\n", e.Exchange, e.ID, p.score(*e.Score))
	case e.Kind == driver.EventExchange:
		fmt.Fprintf(w, "exchange %d · judged%s · %s\n", e.Exchange, cost("judge"), e.Message)
	}
	p.status()
}

// describeEvent says what an event of a protocol that is not Tallied
// did, in its words: its title ("Ada opens the debate"), or else its role,
// kind and id ("alpha spoke"); then its message, or else its score; then
// what its call cost.
func describeEvent(e driver.Event, cost string) string {
	var b strings.Builder
	if e.Title != "" {
		b.WriteString(e.Title)
	} else {
		// A role named for what it does (panel's card, shifts) is not
		// named twice.
		what := e.Role + " " + e.Kind
		if e.Kind == e.Role || e.Kind == "" {
			what = e.Role
		}
		b.WriteString(strings.TrimSpace(what))
		if e.ID != "" {
			b.WriteString(" " + e.ID)
		}
	}
	switch {
	case e.Message != "":
		b.WriteString(": " + e.Message)
	case e.Score != nil:
		b.WriteString(": " + strconv.FormatFloat(*e.Score, 'f', -1, 64))
	}
	return b.String() + cost
}

func (p *progress) side(role string) string {
	if prop, _ := p.tally.SideRoles(); role == prop {
		return p.color("32", role)
	}
	return p.color("31", role)
}

func (p *progress) score(s float64) string {
	f := p.tally.FormatScore(s)
	switch {
	case s > 0:
		return p.color("32", f)
	case s < 0:
		return p.color("31", f)
	}
	return f
}

func (p *progress) warn(msg string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.clear()
	fmt.Fprintf(p.a.io.Stderr, "moot: warning: %s\n", msg)
	p.status()
}

func (p *progress) stop() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.stopped {
		p.clear()
		p.stopped = true
		p.live = false
	}
}

func (a *app) templatesCommand() *ucli.Command {
	return &ucli.Command{
		Name:      "templates",
		Usage:     "list the prompt templates in force and where each comes from",
		ArgsUsage: "[<debate>]",
		Flags: []ucli.Flag{
			&ucli.StringFlag{Name: "templates", Usage: "`DIR` of templates that replace the built-in ones"},
			&ucli.StringFlag{Name: "print", Usage: "print the template `NAME` instead of the list"},
			&ucli.StringFlag{Name: "protocol", Usage: "the templates of `PROTOCOL` (default: every protocol's, or the debate's)"},
		},
		OnUsageError: usageOnError,
		Action:       func(ctx context.Context, cmd *ucli.Command) error { return a.listTemplates(cmd) },
	}
}
