package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	ucli "github.com/urfave/cli/v3"

	driver "github.com/moot-dev/moot/internal/driver"
	"github.com/moot-dev/moot/internal/english"
	"github.com/moot-dev/moot/internal/judging"
	"github.com/moot-dev/moot/internal/tournament"
	sm "github.com/moot-dev/moot/statemachine"
	"github.com/moot-dev/moot/store"
)

// setPanel makes the comma-separated models of --judges the panel of the
// debate in d, stored in its state file, and says so when that changes it.
func (a *app) setPanel(d *store.Dir, p sm.Protocol, models string) error {
	if _, ok := p.(sm.Panelist); !ok {
		return usageError("--judges: a %s debate has no judge to make a panel of", p.Name())
	}
	var list []string
	for _, m := range strings.Split(models, ",") {
		list = append(list, strings.TrimSpace(m))
	}
	panel, err := sm.NewPanel(list)
	if err != nil {
		return badUsage(fmt.Errorf("--judges: %w", err), "give two models or more, comma-separated: --judges gpt-4o,claude-sonnet-4,llama3")
	}
	changed, err := driver.SetPanel(d, p, panel)
	if err != nil {
		return err
	}
	if changed {
		var names []string
		for _, j := range panel {
			names = append(names, j.Name+" ("+j.Model+")")
		}
		fmt.Fprintf(a.io.Stderr, "moot: the judge panel is %s (stored in debate.md)\n", strings.Join(names, ", "))
	}
	return nil
}

func (a *app) rejudgeCommand() *ucli.Command {
	return &ucli.Command{
		Name:      "rejudge",
		Usage:     "judge a saved debate again with another model, into judgments/NAME/, leaving its own judgment as it is",
		ArgsUsage: "<debate>",
		Flags: append([]ucli.Flag{
			&ucli.StringFlag{Name: "judge-model", Usage: "the `MODEL` that judges again (needed for a new judgment)"},
			&ucli.StringFlag{Name: "name", Usage: "the judgment's `NAME`, its folder under judgments/ (default: from the model); a name already there resumes it"},
			&ucli.IntFlag{Name: "from", HideDefault: true, Usage: "judge again from `UNIT` on (an exchange, for dialectic)"},
			&ucli.IntFlag{Name: "to", HideDefault: true, Usage: "judge again up to `UNIT`"},
			judgeContextFlag(),
			&ucli.BoolFlag{Name: "retry-missing", Usage: "first ask again for every judgment of this re-judging recorded as missing by a run with --keep-going"},
		}, a.callFlags()...),
		OnUsageError: usageOnError,
		Action: func(ctx context.Context, cmd *ucli.Command) (err error) {
			a.jsonEvents = cmd.Bool("json")
			if cmd.Args().Len() != 1 {
				return usageError("rejudge takes one debate")
			}
			from, to := int(cmd.Int("from")), -1
			if cmd.IsSet("to") {
				to = int(cmd.Int("to"))
			}
			if from < 0 || (cmd.IsSet("to") && (to < 0 || from > to)) {
				return usageError("--from %d --to %d is not a range of units: both 0 or more, --from at most --to", from, to)
			}
			d, err := a.openForWrite(ctx, cmd)
			if err != nil {
				return err
			}
			defer d.Close()
			p, err := a.personProtocol(cmd, d)
			if err != nil {
				return err
			}
			jc, err := judgeContext(cmd, p)
			if err != nil {
				return err
			}
			rj, resumed, err := a.chooseRejudging(d, p, cmd.String("name"), strings.TrimSpace(cmd.String("judge-model")), from, to)
			if err != nil {
				return err
			}
			client, err := a.modelClient(cmd)
			if err != nil {
				return err
			}
			if err := client.CheckModels([]string{rj.Judge.Model}); err != nil {
				return err
			}
			where := d.Path() + "/" + sm.JudgeFolder(rj.Judge.Name)
			before, err := rejudgeStatus(d, p, rj)
			if err != nil {
				return err
			}
			gaps := 0
			if cmd.Bool("retry-missing") {
				if gaps, err = rejudgeGaps(d, p, rj); err != nil {
					return err
				}
				if gaps == 0 {
					fmt.Fprintf(a.io.Stderr, "moot: %s has no call recorded as missing left to ask again (--retry-missing)\n", where)
				}
			}
			// A command that ends well ends the --retry-missing pass it
			// made or resumed: the next one asks every gap again.
			defer func() {
				if err == nil {
					err = driver.EndRetry(d, rj.Judge.Name)
				}
			}()
			if before.Complete && gaps == 0 {
				fmt.Fprintf(a.io.Stderr, "moot: %s is complete (%d of %d %ss judged again); nothing to do\n", where, before.Done, before.Total, before.Unit)
				for _, l := range before.Lines {
					if l.Label == "missing" {
						fmt.Fprintf(a.io.Stderr, "moot: missing: %s\n", l.Text)
					}
				}
				return nil
			}
			if resumed {
				fmt.Fprintf(a.io.Stderr, "moot: resuming the judgment in %s (model %s)\n", where, rj.Judge.Model)
			}
			prog := a.newProgress(cmd.Bool("quiet"), cmd.Bool("json"), p, before.Unit)
			defer prog.stop()
			emit, endLive := a.liveEmit(d, cmd, before.Unit, prog.event, prog.warn)
			defer endLive()
			opts := driver.Options{
				Client:       client,
				DefaultModel: defaultModel(a.io.Getenv),
				Repairs:      cmd.Int("repairs"),
				Fresh:        cmd.Bool("fresh"),
				KeepGoing:    cmd.Bool("keep-going"),
				Sequential:   cmd.Bool("sequential"),
				NoPrompts:    a.noTranscripts(),
				Now:          a.io.Now,
				Emit:         emit,
				Warn:         prog.warn,
				Chunks:       cmd.Bool("json"),
				Overrides:    driver.Overrides{JudgeContext: jc},
			}
			// With --retry-missing, the judgments a run with --keep-going
			// went on without are asked for again first.
			var sum driver.Summary
			if gaps > 0 {
				sum, _, err = driver.RejudgeMissing(ctx, d, p, rj, opts)
			}
			if err == nil {
				var more driver.Summary
				more, err = driver.Rejudge(ctx, d, p, rj, opts)
				sum = addSummaries(sum, more)
			}
			endLive()
			prog.stop()
			resume := fmt.Sprintf("moot rejudge %s --name %s", shellQuote(d.Path()), rj.Judge.Name)
			if err != nil && errors.Is(err, context.Canceled) {
				return withCode(ExitInterrupted, err, "nothing of the interrupted step was written", "to finish the judgment, run: "+resume)
			}
			if err != nil {
				if failed := roleErrors(err); len(failed) > 0 {
					hints := append([]string{"nothing of the failed step was written; to go on, run: " + resume}, modelHints(d, failed, resume)[1:]...)
					return withCode(ExitModel, err, hints...)
				}
				return err
			}
			st, err := rejudgeStatus(d, p, rj)
			if err != nil {
				return err
			}
			fmt.Fprintf(a.io.Stderr, "done: %d of %d %ss judged again by %s into %s\n", st.Done, st.Total, st.Unit, rj.Judge.Model, where)
			for _, l := range st.Lines {
				if l.Label == "missing" {
					fmt.Fprintf(a.io.Stderr, "  missing: %s\n", l.Text)
				}
			}
			fmt.Fprintf(a.io.Stderr, "  %s in this run (%d failed) · %d tokens\n", english.Count(sum.Calls, "model call"), sum.Failed, sum.PromptTokens+sum.CompletionTokens)
			for _, w := range sum.Warnings {
				fmt.Fprintf(a.io.Stderr, "  warning: %s\n", w)
			}
			fmt.Fprintf(a.io.Stderr, "  compare the judges: moot judges %s\n", shellQuote(d.Path()))
			return nil
		},
	}
}

// rejudgeStatus is the status of the re-judging rj of the debate in d.
func rejudgeStatus(d *store.Dir, p sm.Protocol, rj sm.Rejudging) (sm.Status, error) {
	deb, err := driver.LoadDebate(d, p)
	if err != nil {
		return sm.Status{}, err
	}
	r, ok := deb.(sm.Rejudger)
	if !ok {
		return sm.Status{}, usageError("a %s debate cannot be judged again: its protocol has no judge", p.Name())
	}
	view, err := r.Rejudge(rj)
	if err != nil {
		return sm.Status{}, err
	}
	return view.Status(), nil
}

// rejudgeGaps is how many judgments the re-judging rj of the debate in d
// records as missing.
func rejudgeGaps(d *store.Dir, p sm.Protocol, rj sm.Rejudging) (int, error) {
	deb, err := driver.LoadDebate(d, p)
	if err != nil {
		return 0, err
	}
	r, ok := deb.(sm.Rejudger)
	if !ok {
		return 0, nil
	}
	view, err := r.Rejudge(rj)
	if err != nil {
		return 0, err
	}
	f, ok := view.(sm.Filler)
	if !ok {
		return 0, badUsage(fmt.Errorf("--retry-missing: a re-judging of a %s debate records no call as missing to ask again", p.Name()),
			"run the command again without --retry-missing")
	}
	gaps, err := driver.RetryGaps(d, f, rj.Judge.Name)
	return len(gaps), err
}

// chooseRejudging decides which judgment a rejudge makes or resumes. A
// name given that is already there resumes that judgment, with its own
// model and range. Without a name, the judgment is named after the model:
// an unfinished one of the same model is resumed, and a finished one
// leaves the name to the next free one ("-2"), so that judging again with
// the same model measures its consistency.
func (a *app) chooseRejudging(d *store.Dir, p sm.Protocol, name, model string, from, to int) (sm.Rejudging, bool, error) {
	records, err := driver.JudgeRecords(d)
	if err != nil {
		return sm.Rejudging{}, false, err
	}
	byName := map[string]sm.JudgeRecord{}
	for _, r := range records {
		byName[r.Name] = r
	}
	panel, err := driver.Panel(d)
	if err != nil {
		return sm.Rejudging{}, false, err
	}
	if name != "" {
		if err := sm.CheckJudgeName(name); err != nil {
			return sm.Rejudging{}, false, badUsage(fmt.Errorf("--name: %w", err))
		}
		rec, ok := byName[name]
		if !ok {
			if isPanel(panel, name) {
				return sm.Rejudging{}, false, usageError("--name %s is a judge of the debate's panel: give another name", name)
			}
			if model == "" {
				return sm.Rejudging{}, false, usageError("rejudge needs --judge-model MODEL for a new judgment (judgments/%s does not exist)", name)
			}
			return sm.Rejudging{Judge: sm.Judge{Name: name, Model: model}, From: from, To: to}, false, nil
		}
		switch {
		case rec.Kind != sm.KindRejudge:
			return sm.Rejudging{}, false, usageError("judgments/%s is the %s judge of the debate's panel, not a judgment made again: give another --name", name, rec.Model)
		case model != "" && model != rec.Model:
			return sm.Rejudging{}, false, badUsage(fmt.Errorf("judgments/%s was judged by %s, not %s", name, rec.Model, model), "leave --judge-model out to resume it, or give another --name")
		case (from != 0 && from != rec.From) || (to >= 0 && to != recTo(rec)):
			return sm.Rejudging{}, false, usageError("judgments/%s judges units %s: resume it without --from and --to, or give another --name", name, unitRange(rec.From, recTo(rec)))
		}
		return sm.Rejudging{Judge: sm.Judge{Name: name, Model: rec.Model}, From: rec.From, To: recTo(rec)}, true, nil
	}
	if model == "" {
		return sm.Rejudging{}, false, usageError("rejudge needs --judge-model MODEL (or --name NAME of a judgment to resume)")
	}
	for n := 1; ; n++ {
		cand := sm.JudgeName(model, nil)
		if n > 1 {
			cand = fmt.Sprintf("%s-%d", cand, n)
		}
		rec, ok := byName[cand]
		if !ok {
			if isPanel(panel, cand) {
				continue
			}
			return sm.Rejudging{Judge: sm.Judge{Name: cand, Model: model}, From: from, To: to}, false, nil
		}
		// A range not given (--from 0, no --to) resumes the judgment with
		// its own, as its protocol recorded it: moderated, for one,
		// records the first unit it judges again, not the 0 asked.
		if rec.Kind != sm.KindRejudge || rec.Model != model || (from != 0 && rec.From != from) || (to >= 0 && recTo(rec) != to) {
			continue
		}
		rj := sm.Rejudging{Judge: sm.Judge{Name: cand, Model: model}, From: rec.From, To: recTo(rec)}
		st, err := rejudgeStatus(d, p, rj)
		if err != nil {
			return sm.Rejudging{}, false, err
		}
		if !st.Complete {
			return rj, true, nil
		}
	}
}

func isPanel(panel []sm.Judge, name string) bool {
	for _, j := range panel {
		if j.Name == name {
			return true
		}
	}
	return false
}

// recTo is the last unit of a re-judging; -1 when it runs to the last.
func recTo(r sm.JudgeRecord) int {
	if r.To == nil {
		return -1
	}
	return *r.To
}

func unitRange(from, to int) string {
	if to < 0 {
		return fmt.Sprintf("%d to the last", from)
	}
	return fmt.Sprintf("%d to %d", from, to)
}

func (a *app) judgesCommand() *ucli.Command {
	return &ucli.Command{
		Name:      "judges",
		Usage:     "compare a debate's judges: agreement, side, speaker and length bias, and the arguments' strength from the graph alone",
		ArgsUsage: "<debate> | --all",
		Flags: append(jsonFlags(),
			&ucli.BoolFlag{Name: "all", Usage: "compare the judge models over every debate under the debates root, those of its tournaments too"}),
		OnUsageError: usageOnError,
		Action: func(ctx context.Context, cmd *ucli.Command) error {
			if cmd.Bool("all") {
				if cmd.Args().Len() > 0 {
					return usageError("judges --all takes no debate: it reads every debate under the debates root (--dir)")
				}
				return a.judgesAll(cmd)
			}
			if cmd.Args().Len() != 1 {
				return usageError("judges takes one debate, or --all")
			}
			d, err := openDebate(cmd)
			if err != nil {
				return err
			}
			defer d.Close()
			p, err := a.protocolOf(d)
			if err != nil {
				return err
			}
			j, err := judgmentsOf(d, p)
			if err != nil {
				return err
			}
			r := a.compareInRoot(cmd, filepath.Base(d.Path()), j)
			if cmd.Bool("json") {
				return writeJSON(a.io.Stdout, r)
			}
			_, err = io.WriteString(a.io.Stdout, r.Markdown(1))
			return err
		},
	}
}

// judgmentsOf reads what the judges of the debate in d made of it.
func judgmentsOf(d *store.Dir, p sm.Protocol) (sm.Judgments, error) {
	deb, err := driver.ReadDebate(d, p)
	if err != nil {
		return sm.Judgments{}, err
	}
	jd, ok := deb.(sm.Judged)
	if !ok {
		return sm.Judgments{}, usageError("a %s debate has no judge to compare", p.Name())
	}
	return jd.Judgments(), nil
}

// judgesAll compares the judge models of every debate under the root.
// A debate that cannot be read, or whose protocol has no judge, is left
// out with a note on stderr.
func (a *app) judgesAll(cmd *ucli.Command) error {
	debates, err := a.rootJudgments(cmd, true)
	if err != nil {
		return err
	}
	r := judging.CompareAll(debates)
	if cmd.Bool("json") {
		return writeJSON(a.io.Stdout, r)
	}
	if _, err = io.WriteString(a.io.Stdout, r.Markdown()); err != nil {
		return err
	}
	if line := tournamentShare(debates); line != "" {
		_, err = fmt.Fprintf(a.io.Stdout, "\n%s\n", line)
	}
	return err
}

// tournamentShare says how many of the debates compared belong to each
// tournament, "" when none does: "Of the 6 debates, 2 are of tournament
// cup."
func tournamentShare(debates []judging.Debate) string {
	var names []string
	count := map[string]int{}
	for _, d := range debates {
		rest, ok := strings.CutPrefix(d.Name, tournament.Dir+"/")
		if !ok {
			continue
		}
		t, _, _ := strings.Cut(rest, "/")
		if count[t] == 0 {
			names = append(names, t)
		}
		count[t]++
	}
	if len(names) == 0 {
		return ""
	}
	parts := make([]string, len(names))
	for i, t := range names {
		parts[i] = fmt.Sprintf("%d of tournament %s", count[t], visible(t, false))
	}
	return fmt.Sprintf("Of the %s, %s.", english.Count(len(debates), "debate"), english.List(parts, "and"))
}

// rootJudgments reads the judgments of every debate under the root, those
// of its tournaments included (named by their path from the root, which
// names the tournament), whose protocol has a judge; with notes, a debate that cannot be read is named
// on stderr.
func (a *app) rootJudgments(cmd *ucli.Command, notes bool) ([]judging.Debate, error) {
	all, _, err := rootDebates(root(cmd))
	if err != nil {
		return nil, err
	}
	var debates []judging.Debate
	for _, rd := range all {
		n := rd.Name
		j, err := func() (sm.Judgments, error) {
			d, err := store.Open(rd.Path)
			if err != nil {
				return sm.Judgments{}, err
			}
			defer d.Close()
			p, err := a.protocolOf(d)
			if err != nil {
				return sm.Judgments{}, err
			}
			return judgmentsOf(d, p)
		}()
		if err != nil {
			var ee *exitError
			if notes && (!errors.As(err, &ee) || ee.code != ExitUsage) {
				fmt.Fprintf(a.io.Stderr, "moot: left out %s: %s\n", visible(n, false), oneLine(visible(err.Error(), false), 120))
			}
			continue
		}
		debates = append(debates, judging.Debate{Name: n, Judgments: j})
	}
	return debates, nil
}

// compareInRoot compares the judges of one debate, each judge's side bias
// over the debates of the root beside its bias in this one.
func (a *app) compareInRoot(cmd *ucli.Command, name string, j sm.Judgments) judging.Report {
	r := judging.Compare(name, j)
	if all, err := a.rootJudgments(cmd, false); err == nil {
		r.WithRoot(judging.CompareAll(all))
	}
	return r
}
