package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	ucli "github.com/urfave/cli/v3"

	"github.com/moot-dev/moot/internal/builtin"
	"github.com/moot-dev/moot/internal/driver"
	"github.com/moot-dev/moot/internal/english"
	"github.com/moot-dev/moot/internal/model"
	"github.com/moot-dev/moot/internal/prices"
	sm "github.com/moot-dev/moot/statemachine"
	"github.com/moot-dev/moot/store"
)

// dryRunFlag is --dry-run of run.
func dryRunFlag() ucli.Flag {
	return &ucli.BoolFlag{Name: "dry-run", Usage: "print the calls the run would make, their estimated tokens and cost by role, and write nothing"}
}

// dryCall is one call a dry run foresees, with its estimate.
type dryCall struct {
	unit       int
	call, role string
	model      string
	prompt     int // estimated prompt tokens
	answer     int // estimated answer tokens
	kept       bool
	person     bool // a person answers it (--human): free
	usd        float64
	priced     bool
}

// dryRun is run --dry-run: it foresees the calls the run would make
// without asking a model or writing a file. The debate is copied to a
// temporary folder, and the run is made on the copy with moot's built-in
// model answering every call in place of the models: each step's calls,
// with the models and settings in force, are those the real run would
// make; the first step's prompts are the real ones, a later step's hold
// the built-in model's placeholder answers where the models' answers
// would be. Each call is estimated as --budget estimates it.
func (a *app) dryRun(ctx context.Context, cmd *ucli.Command, req runRequest) error {
	if cmd.Bool("json") {
		return usageError("--dry-run prints a table for people; it has no --json")
	}
	d, err := openDebate(cmd)
	if err != nil {
		return err
	}
	defer d.Close()
	proto, err := a.protocolOf(d)
	if err != nil {
		return err
	}
	o, err := a.overrides(cmd, proto)
	if err != nil {
		return err
	}
	people, err := humanRoles(cmd, proto)
	if err != nil {
		return err
	}
	table, err := a.priceTable(cmd)
	if err != nil {
		return err
	}
	earlier, err := driver.ReadUsageLines(d)
	if err != nil {
		return fmt.Errorf("read usage log: %w", err)
	}
	tmp, err := os.MkdirTemp("", "moot-dry-run-")
	if err != nil {
		return fmt.Errorf("dry run: %w", err)
	}
	defer os.RemoveAll(tmp)
	copyDir := filepath.Join(tmp, filepath.Base(d.Path()))
	if err := os.CopyFS(copyDir, os.DirFS(d.Path())); err != nil {
		return fmt.Errorf("dry run: copy %s: %w", d.Path(), err)
	}
	cd, err := store.Open(copyDir)
	if err != nil {
		return fmt.Errorf("dry run: %w", err)
	}
	defer cd.Close()
	if err := cd.Lock(ctx, "moot run --dry-run", false); err != nil {
		return fmt.Errorf("dry run: %w", err)
	}
	if err := cd.Recover(); err != nil {
		return err
	}
	var stored []string
	if cmd.IsSet("judges") {
		// The panel is stored in the copy; what setPanel says of it is
		// said as what the run would store.
		var said strings.Builder
		quiet := &app{io: a.io}
		quiet.io.Stderr = &said
		if err := quiet.setPanel(cd, proto, cmd.String("judges")); err != nil {
			return err
		}
		for _, l := range strings.Split(strings.TrimSpace(said.String()), "\n") {
			if l, ok := strings.CutSuffix(strings.TrimPrefix(l, "moot: "), " (stored in debate.md)"); ok {
				stored = append(stored, l)
			}
		}
	}
	o.Research = researchOverride(cmd)
	// limit is --budget's (or moot.yaml's), 0 for none; spent is what the
	// debate has cost so far.
	limit := 0.0
	if cmd.IsSet("budget") {
		if limit = cmd.Float("budget"); !(limit > 0) {
			return usageError("--budget %v is not an amount of US dollars above 0", limit)
		}
	}
	spent := table.Bill(usageCalls(earlier), nil).Total
	deb, err := driver.LoadDebate(d, proto)
	if err != nil {
		return err
	}
	unitName := deb.Status().Unit
	var calls []dryCall
	steps := 0
	opts := driver.Options{
		Client:       dryClient{},
		Overrides:    o,
		DefaultModel: defaultModel(a.io.Getenv),
		Repairs:      2,
		Fresh:        cmd.Bool("fresh"),
		Now:          a.io.Now,
		Serial:       true,
		Person:       dryPerson(people),
		Warn: func(msg string) {
			if s, ok := strings.CutSuffix(msg, " (stored in debate.md)"); ok {
				stored = append(stored, s)
			}
		},
		BeforeStep: func(plan driver.StepPlan) error {
			var step []dryCall
			for _, c := range plan.Calls {
				dc := dryCall{unit: plan.Unit, call: c.ID, role: c.Role, model: c.Model, kept: c.Kept, person: c.Person}
				if !c.Kept && !c.Person {
					dc.prompt = prices.EstimateTokens(c.PromptBytes)
					if !c.Embed {
						dc.answer = c.MaxTokens
						if dc.answer == 0 {
							dc.answer = meanAnswer(earlier, c.Role)
						}
					}
					p, _, ok := table.Lookup(c.Model)
					dc.priced = ok
					if ok {
						dc.usd = p.Cost(dc.prompt, 0, dc.answer)
					}
				} else {
					dc.priced = true
				}
				step = append(step, dc)
			}
			if err := overBudget(limit, spent, calls, step, plan.Unit, unitName); err != nil {
				return err
			}
			steps++
			calls = append(calls, step...)
			return nil
		},
	}
	unit := unitName
	var stop error
	if deb, err = driver.LoadDebate(cd, proto); err != nil {
		return err
	}
	st := deb.Status()
	if u, ok := proto.(sm.Unending); ok && req.all && st.Total == 0 && !st.Complete {
		return noEnd(u)
	}
	if proto, err = withTemplates(cmd, cd, proto); err != nil {
		return err
	}
	if !st.Complete {
		_, stop = driver.Advance(ctx, cd, proto, req.goal(st), opts)
	}
	if errors.Is(stop, context.Canceled) {
		return stop
	}
	return a.printDryRun(a.io.Stdout, d.Path(), unit, calls, steps, stored, earlier, table, stop)
}

// noEnd is the usage error of --all given a debate without an end, in its
// protocol's words.
func noEnd(u sm.Unending) error {
	err := u.NoEnd()
	var input *sm.InputError
	if errors.As(err, &input) && input.Hint != "" {
		return badUsage(input.Err, input.Hint)
	}
	return badUsage(err)
}

// printDryRun prints what a dry run foresaw: each call, then the calls by
// role and in all, and why the run could not be foreseen further when
// stop says so.
func (a *app) printDryRun(w io.Writer, dir, unit string, calls []dryCall, steps int, stored []string, earlier []driver.Usage, table prices.Table, stop error) error {
	fmt.Fprintf(w, "dry run of %s: nothing is asked or written\n", dir)
	for _, s := range stored {
		fmt.Fprintf(w, "the run would store in debate.md: %s\n", visible(s, false))
	}
	if len(calls) == 0 && stop == nil {
		fmt.Fprintf(w, "no call: the run has nothing to do\n")
		return nil
	}
	cost := func(usd float64, priced bool) string {
		if !priced {
			return "cost unknown"
		}
		return "≈ " + prices.USD(usd)
	}
	// cw and mw are the widths of the call and model columns.
	cw, mw := len("call"), len("model")
	for _, c := range calls {
		cw, mw = max(cw, len(visible(c.call, false)), len(visible(c.role, false))), max(mw, len(visible(c.model, false)))
	}
	if len(calls) > 0 {
		fmt.Fprintf(w, "%-8s %-*s %-*s %14s %14s  %s\n", unit, cw, "call", mw, "model", "prompt tok ≈", "answer tok ≈", "cost")
	}
	type total struct {
		calls, prompt, answer int
		usd                   float64
		priced                bool
		models                []string
	}
	byRole := map[string]*total{}
	var roles []string
	all := &total{priced: true}
	var unknown []string
	for _, c := range calls {
		if c.kept || c.person {
			how := "kept from an interrupted run"
			if c.person {
				how = "a person answers (--human)"
			}
			fmt.Fprintf(w, "%-8d %-*s %-*s %14s %14s  %s: free\n", c.unit, cw, visible(c.call, false), mw, visible(c.model, false), "-", "-", how)
			continue
		}
		fmt.Fprintf(w, "%-8d %-*s %-*s %14d %14d  %s\n", c.unit, cw, visible(c.call, false), mw, visible(c.model, false), c.prompt, c.answer, cost(c.usd, c.priced))
		t := byRole[c.role]
		if t == nil {
			t = &total{priced: true}
			byRole[c.role] = t
			roles = append(roles, c.role)
		}
		for _, x := range []*total{t, all} {
			x.calls++
			x.prompt += c.prompt
			x.answer += c.answer
			x.usd += c.usd
			x.priced = x.priced && c.priced
			if !slices.Contains(x.models, c.model) {
				x.models = append(x.models, c.model)
			}
		}
		if !c.priced && !slices.Contains(unknown, c.model) {
			unknown = append(unknown, c.model)
		}
	}
	if len(roles) > 0 {
		fmt.Fprintf(w, "by role:\n")
		jw := mw
		for _, r := range roles {
			jw = max(jw, len(visible(strings.Join(byRole[r].models, ", "), false)))
		}
		for _, r := range roles {
			t := byRole[r]
			fmt.Fprintf(w, "  %-*s %-*s %s  %6d + %6d tok  %s\n", cw, r, jw, visible(strings.Join(t.models, ", "), false),
				fmt.Sprintf("%3d %-5s", t.calls, map[bool]string{true: "call", false: "calls"}[t.calls == 1]), t.prompt, t.answer, cost(t.usd, t.priced))
		}
	}
	spent := table.Bill(usageCalls(earlier), nil).Total
	line := fmt.Sprintf("in all: %s, ≈ %d prompt and %d answer tokens, %s", english.Count(all.calls, "call"), all.prompt, all.answer, cost(all.usd, all.priced))
	if !all.priced {
		line += fmt.Sprintf(" (no price is known for %s)", strings.Join(unknown, ", "))
	}
	if spent.Known() {
		line += fmt.Sprintf("; the debate has cost %s so far", prices.USD(spent.USD))
	}
	fmt.Fprintln(w, visible(line, false))
	if steps > 1 {
		fmt.Fprintf(w, "the first step's prompts are the real ones; a later step's hold moot's built-in placeholder answers where the models' answers will be, so its prompts, and its cost, will be higher\n")
	}
	fmt.Fprintf(w, "answers are estimated at the call's --max-tokens, else the role's mean answer so far, else %d tokens; repairs are not foreseen\n", prices.TypicalAnswer)
	var bs *budgetStop
	switch {
	case errors.As(stop, &bs):
		fmt.Fprintf(w, "the run would stop there (exit 7): %s\n", visible(bs.Error(), false))
	case stop != nil:
		fmt.Fprintf(w, "the run cannot be foreseen past this point: %s\n", visible(dryStopReason(stop), false))
	}
	return nil
}

// overBudget is the *budgetStop of a run that --budget limit (0 for none)
// would stop before step, the next step of the unit at, when the debate
// has cost spent and the calls before it are estimated as calls: as the
// budget of a real run, it stops before a step whose models have no
// price, or whose estimate would take the cost past the limit.
func overBudget(limit float64, spent prices.Tally, calls, step []dryCall, at int, unit string) error {
	if limit == 0 {
		return nil
	}
	stop := &budgetStop{limit: limit, unit: unit, at: at, spent: spent.USD}
	if !spent.Known() {
		stop.unknown = spent.Unknown
		return stop
	}
	for _, c := range calls {
		stop.spent += c.usd
	}
	for _, c := range step {
		if !c.priced && !slices.Contains(stop.unknown, c.model) {
			stop.unknown = append(stop.unknown, c.model)
		}
		stop.estimate += c.usd
	}
	if len(stop.unknown) > 0 || (stop.estimate > 0 && stop.spent+stop.estimate > limit) {
		return stop
	}
	return nil
}

// dryStopReason says why a dry run's run on its copy stopped before its
// goal: a person's answer comes next, or the built-in model could not
// stand in for a call (research, templates of the debate's own that
// leave out a fact its script reads).
func dryStopReason(err error) string {
	var ap *driver.AwaitingPerson
	if errors.As(err, &ap) {
		return fmt.Sprintf("the %s's answer comes from a person (--human)", ap.Role)
	}
	msg := strings.Join(strings.Fields(err.Error()), " ")
	return "moot's built-in model could not stand in for the models there (" + msg + ")"
}

// dryClient answers every request of a dry run with moot's built-in
// model, whatever model it names.
type dryClient struct{}

func (dryClient) Complete(ctx context.Context, req model.Request) (model.Response, error) {
	req.Model = builtin.Name
	return builtin.Client{}.Complete(ctx, req)
}

func (dryClient) Embed(ctx context.Context, req model.EmbedRequest) (model.EmbedResponse, error) {
	req.Model = builtin.Name
	return builtin.Client{}.Embed(ctx, req)
}

// dryPerson stands for the person who plays the roles of --human in a dry
// run: what they will answer cannot be foreseen, so the dry run stops
// at their first call.
type dryPerson map[string]bool

func (p dryPerson) Plays(role string) bool { return p[role] }

func (p dryPerson) Answer(_ context.Context, q driver.Question) ([]byte, error) {
	return nil, &driver.AwaitingPerson{Role: q.Call.Role}
}
