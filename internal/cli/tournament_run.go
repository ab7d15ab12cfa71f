package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	ucli "github.com/urfave/cli/v3"

	driver "github.com/moot-dev/moot/internal/driver"
	"github.com/moot-dev/moot/internal/english"
	"github.com/moot-dev/moot/internal/model"
	"github.com/moot-dev/moot/internal/prices"
	"github.com/moot-dev/moot/internal/tournament"
	sm "github.com/moot-dev/moot/statemachine"
	"github.com/moot-dev/moot/store"
)

func (a *app) tournamentRunCommand() *ucli.Command {
	return &ucli.Command{
		Name:      "run",
		Usage:     "run the tournament's debates concurrently, within the endpoint's budgets; run again to resume",
		ArgsUsage: "<name>",
		Flags: append([]ucli.Flag{
			&ucli.IntFlag{Name: "jobs", Value: 8, Usage: "how many debates run at once (`N`)"},
			&ucli.IntFlag{Name: "rpm", HideDefault: true, Usage: "at most `N` requests a minute to the endpoint, over every job (default: no limit)"},
			&ucli.IntFlag{Name: "tpm", HideDefault: true, Usage: "at most `N` tokens a minute to the endpoint, over every job (default: no limit)"},
			&ucli.BoolFlag{Name: "retry-failed", Usage: "run again the debates that failed (else they are left as they are)"},
			pricesFlag(),
		}, a.tournamentCallFlags()...),
		OnUsageError: usageOnError,
		Action: func(ctx context.Context, cmd *ucli.Command) error {
			dir, t, p, err := a.openTournament(cmd)
			if err != nil {
				return err
			}
			jobs := int(cmd.Int("jobs"))
			if jobs < 1 || jobs > 256 {
				return usageError("--jobs %d is not from 1 to 256", jobs)
			}
			if cmd.Int("rpm") < 0 || cmd.Int("tpm") < 0 {
				return usageError("--rpm and --tpm take a number of 0 (no limit) or more")
			}
			return a.runTournament(ctx, cmd, dir, t, p, jobs)
		},
	}
}

// tournamentCallFlags are the flags of callFlags a tournament's run takes:
// those that make sense for many debates at once.
func (a *app) tournamentCallFlags() []ucli.Flag {
	var out []ucli.Flag
	for _, f := range a.callFlags() {
		switch f.Names()[0] {
		case "repairs", "timeout", "retries", "quiet", "keep-going", "sequential":
			out = append(out, f)
		}
	}
	return out
}

// runTournament runs the debates of t still to run, jobs at a time.
func (a *app) runTournament(ctx context.Context, cmd *ucli.Command, dir string, t *tournament.Tournament, p sm.Protocol, jobs int) error {
	start := time.Now()
	results := a.results(dir, t, p)
	var todo []debateResult
	skipped := 0
	for _, r := range results {
		switch {
		case r.State == "done":
		case r.State == "failed" && !cmd.Bool("retry-failed"):
			skipped++
		default:
			todo = append(todo, r)
		}
	}
	quiet := cmd.Bool("quiet")
	w := a.io.Stderr
	// A debate whose last step a killed runner recorded but did not write
	// out reads as done; its files on disk lag behind until a writer
	// completes the step, so complete it now.
	completed := 0
	for _, r := range results {
		if r.State != "done" || !r.Pending {
			continue
		}
		ok, err := completeStep(ctx, filepath.Join(dir, r.Slug))
		if err != nil {
			return fmt.Errorf("complete the interrupted step of %s: %w", r.Slug, err)
		}
		if ok {
			completed++
		}
	}
	if completed > 0 && !quiet {
		fmt.Fprintf(w, "moot: note: completed the interrupted last step of %s\n", english.Count(completed, "finished debate"))
	}
	if len(todo) == 0 {
		fmt.Fprintf(w, "moot: nothing to run in %s: %d done, %d failed", dir, counts(results)["done"], skipped)
		if skipped > 0 {
			fmt.Fprintf(w, " (--retry-failed runs them again)")
		}
		fmt.Fprintln(w)
		return nil
	}
	table, err := a.priceTable(cmd)
	if err != nil {
		return err
	}
	budget := model.NewBudget(int(cmd.Int("rpm")), int(cmd.Int("tpm")))
	client, err := a.budgetClient(cmd, budget)
	if err != nil {
		return err
	}
	// A tournament among built-in models needs no endpoint; one with
	// another model stops here without one, before any debate runs.
	models := append(append([]string{}, t.Models...), t.Judges...)
	if t.JudgeModel != "" {
		models = append(models, t.JudgeModel)
	} else {
		models = append(models, defaultModel(a.io.Getenv))
	}
	if err := client.CheckModels(models); err != nil {
		return err
	}
	var (
		mu                   sync.Mutex
		done, failed, busy   int
		running              atomic.Int64
		tokens               atomic.Int64
		finishedSteps        int
		totalSteps, doneUnit int
		costUSD              float64
		unpriced             = map[string]bool{}
	)
	for _, r := range todo {
		totalSteps += max(r.Total-r.Done, 1)
		doneUnit += r.Done
	}
	report := func(line string) {
		if quiet {
			return
		}
		mu.Lock()
		defer mu.Unlock()
		fmt.Fprintln(w, line)
	}
	overall := func() string {
		left := "?"
		if finishedSteps > 0 {
			per := time.Since(start) / time.Duration(finishedSteps)
			left = (per * time.Duration(max(totalSteps-finishedSteps, 0))).Round(time.Second).String()
		}
		st := budget.Stats()
		cost := "≈ " + prices.USD(costUSD)
		if len(unpriced) > 0 {
			cost += fmt.Sprintf(" and %d models without a price", len(unpriced))
		}
		return fmt.Sprintf("[%d/%d] done %d · running %d · failed %d · %d tokens · %s · %s left · %d requests in the last minute",
			done+failed+busy, len(todo), done, running.Load(), failed, tokens.Load(), cost, left, st.Requests)
	}
	next := make(chan debateResult)
	var wg sync.WaitGroup
	for range jobs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for r := range next {
				running.Add(1)
				outcome, sum, err := a.runOne(ctx, dir, r, p, client, cmd)
				running.Add(-1)
				used := sum.PromptTokens + sum.CompletionTokens
				tokens.Add(int64(used))
				mu.Lock()
				finishedSteps += sum.Steps
				bill := billByModel(table, sum.Usage).Total
				costUSD += bill.USD
				for _, m := range bill.Unknown {
					unpriced[m] = true
				}
				var line string
				switch {
				case errors.Is(err, errBusy):
					busy++
					line = fmt.Sprintf("%s: being run by another process; left to it", r.Slug)
				case err != nil && ctx.Err() != nil:
					line = fmt.Sprintf("%s: interrupted; run again to resume it", r.Slug)
				case err != nil:
					failed++
					line = fmt.Sprintf("%s: failed: %s", r.Slug, oneLine(err.Error(), 160))
					if ferr := recordFailure(ctx, dir, r.Slug, err, a.io.Now()); ferr != nil {
						line += fmt.Sprintf(" (and its failure could not be kept: %v)", ferr)
					}
				default:
					done++
					line = fmt.Sprintf("%s: %s · %s against %s · %d tokens", r.Slug, describeOutcome(outcome, r.Debate), r.Proposition, r.Opposition, used)
				}
				progress := overall()
				mu.Unlock()
				report(line)
				report("  " + progress)
			}
		}()
	}
feed:
	for _, r := range todo {
		select {
		case next <- r:
		case <-ctx.Done():
			break feed
		}
	}
	close(next)
	wg.Wait()
	fmt.Fprintf(w, "done: %d debates run in %s, %d failed, %d left to other processes · %d tokens · cost ≈ %s",
		done, time.Since(start).Round(time.Second), failed, busy, tokens.Load(), prices.USD(costUSD))
	if len(unpriced) > 0 {
		fmt.Fprintf(w, " for the models with a price (%d without)", len(unpriced))
	}
	fmt.Fprintln(w)
	if err := ctx.Err(); err != nil {
		return withCode(ExitInterrupted, err, "every debate stands where it was; run 'moot tournament run "+t.Name+"' again to resume")
	}
	fmt.Fprintln(w, a.asInvoked("  see the standings: moot tournament status "+t.Name))
	if failed > 0 {
		return withCode(ExitModel, fmt.Errorf("%d of the tournament's debates failed", failed),
			"their failures are in "+filepath.Join(dir, tournament.FailuresDir)+"; 'moot tournament run "+t.Name+" --retry-failed' runs them again",
			"each debate keeps its refused answers in its .moot/failed/; --keep-going goes on without a call a debate can do without (recorded as missing, no value invented), and --ROLE-model switches a role's model")
	}
	return nil
}

// completeStep completes the interrupted commit of the debate at dir, if
// no other process writes it; ok is false when one does.
func completeStep(ctx context.Context, dir string) (ok bool, err error) {
	d, err := store.Open(dir)
	if err != nil {
		return false, err
	}
	defer d.Close()
	if err := d.Lock(ctx, "moot tournament run", false); err != nil {
		var busy *store.BusyError
		if errors.As(err, &busy) {
			return false, nil
		}
		return false, err
	}
	return true, d.Recover()
}

// errBusy is a debate that another process is writing.
var errBusy = errors.New("the debate is being written by another process")

// runOne runs one debate of a tournament to its end and returns its
// outcome and what this run of it did (its steps, calls and usage).
func (a *app) runOne(ctx context.Context, dir string, r debateResult, p sm.Protocol, client *modelRouter, cmd *ucli.Command) (sm.Outcome, driver.Summary, error) {
	d, err := store.Open(filepath.Join(dir, r.Slug))
	if err != nil {
		return sm.Outcome{}, driver.Summary{}, err
	}
	defer d.Close()
	if err := d.Lock(ctx, "moot tournament run", false); err != nil {
		var busy *store.BusyError
		if errors.As(err, &busy) {
			return sm.Outcome{}, driver.Summary{}, errBusy
		}
		return sm.Outcome{}, driver.Summary{}, err
	}
	// The debate's live file says which of its calls are under way, for
	// moot watch and moot serve.
	unit := "step"
	if deb, err := driver.LoadDebate(d, p); err == nil && deb.Status().Unit != "" {
		unit = deb.Status().Unit
	}
	emit, endLive := a.liveEmit(d, cmd, unit, func(driver.Event) {}, func(string) {})
	sum, err := driver.Advance(ctx, d, p, driver.UnitGoal{All: true}, driver.Options{
		Client:       client,
		DefaultModel: defaultModel(a.io.Getenv),
		Repairs:      cmd.Int("repairs"),
		KeepGoing:    cmd.Bool("keep-going"),
		Sequential:   cmd.Bool("sequential"),
		NoPrompts:    a.noTranscripts(),
		Now:          a.io.Now,
		Emit:         emit,
		Warn:         func(string) {},
	})
	endLive()
	if err != nil {
		return sm.Outcome{}, sum, err
	}
	deb, err := driver.ReadDebate(d, p)
	if err != nil {
		return sm.Outcome{}, sum, err
	}
	var out sm.Outcome
	if o, ok := deb.(sm.Outcomer); ok {
		out = o.Outcome()
	}
	return out, sum, nil
}

// describeOutcome says who won a debate, by model.
func describeOutcome(o sm.Outcome, d tournament.Debate) string {
	switch o.Winner {
	case sm.WinProposition:
		return d.Proposition + " wins (proposition)"
	case sm.WinOpposition:
		return d.Opposition + " wins (opposition)"
	case sm.Draw:
		return "a draw"
	}
	return "no result"
}

// recordFailure keeps why the debate slug failed, in the failures/
// folder of the tournament at dir, under the tournament's lock for the
// moment of the write (runners of one tournament on several machines
// share it). A debate that later completes is done, whatever its failure
// file says.
func recordFailure(ctx context.Context, dir, slug string, err error, now time.Time) error {
	data, merr := json.MarshalIndent(failure{Debate: slug, Error: err.Error(), Time: now.UTC().Format(time.RFC3339)}, "", "  ")
	if merr != nil {
		return merr
	}
	t, oerr := store.Open(dir)
	if oerr != nil {
		return oerr
	}
	defer t.Close()
	lockCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Minute)
	defer cancel()
	if err := t.Lock(lockCtx, "moot tournament run", true); err != nil {
		return err
	}
	return t.Commit([]store.File{{Name: tournament.FailuresDir + "/" + slug + ".json", Data: append(data, '\n')}})
}

// budgetClient is modelClient with every request to the endpoint within
// budget.
func (a *app) budgetClient(cmd *ucli.Command, budget *model.Budget) (*modelRouter, error) {
	if cmd.Int("repairs") < 0 || cmd.Int("retries") < 0 || cmd.Duration("timeout") <= 0 {
		return nil, usageError("--repairs and --retries take a number of 0 or more, --timeout a positive duration")
	}
	cfg := model.ConfigFromEnv(a.io.Getenv)
	cfg.Timeout, cfg.MaxRetries, cfg.Budget = cmd.Duration("timeout"), cmd.Int("retries"), budget
	client, err := model.New(cfg)
	switch {
	case errors.Is(err, model.ErrNoAPIKey):
		return &modelRouter{noRemote: withCode(ExitModel, errors.New("no API key for the OpenAI API"),
			"set OPENAI_API_KEY, or point OPENAI_BASE_URL at a local server that needs no key")}, nil
	case err != nil:
		return nil, withCode(ExitModel, err)
	}
	return &modelRouter{remote: client}, nil
}
