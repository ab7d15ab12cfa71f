package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strconv"
	"strings"

	ucli "github.com/urfave/cli/v3"

	"github.com/moot-dev/moot/debate"
	"github.com/moot-dev/moot/doc"
	"github.com/moot-dev/moot/engine"
	"github.com/moot-dev/moot/run"
	sm "github.com/moot-dev/moot/statemachine"
	"github.com/moot-dev/moot/store"
)

func (a *app) newCommand() *ucli.Command {
	return &ucli.Command{
		Name:      "new",
		Usage:     "create a debate",
		ArgsUsage: "<slug>",
		Flags: []ucli.Flag{
			&ucli.StringFlag{Name: "motion", Usage: "the motion `TEXT` (required)"},
			&ucli.StringSliceFlag{Name: "definition", Usage: "a defined term, as `\"term: meaning\"` (repeatable)"},
			&ucli.StringFlag{Name: "scope", Usage: "what the debate covers and leaves out"},
		},
		DisableSliceFlagSeparator: true,
		OnUsageError:              usageOnError,
		Action: func(ctx context.Context, cmd *ucli.Command) error {
			if cmd.Args().Len() != 1 {
				return usageError("new takes one slug, got %d arguments", cmd.Args().Len())
			}
			slug := cmd.Args().First()
			if !ValidSlug(slug) {
				return withCode(ExitUsage, fmt.Errorf("%q is not a valid slug", slug),
					"a slug is lowercase letters, digits and hyphens, starting with a letter or digit, at most 64 characters: climate-policy")
			}
			m := debate.Motion{Text: strings.TrimSpace(cmd.String("motion")), Scope: strings.TrimSpace(cmd.String("scope"))}
			if m.Text == "" {
				return withCode(ExitUsage, fmt.Errorf("the motion is empty"), `give it with --motion "This house would ..."`)
			}
			for _, def := range cmd.StringSlice("definition") {
				term, meaning, ok := strings.Cut(def, ":")
				if !ok || strings.TrimSpace(term) == "" || strings.TrimSpace(meaning) == "" {
					return withCode(ExitUsage, fmt.Errorf("--definition %q is not \"term: meaning\"", def))
				}
				m.Definitions = append(m.Definitions, debate.Definition{Term: strings.TrimSpace(term), Meaning: strings.TrimSpace(meaning)})
			}
			if err := debate.CheckMotion(m); err != nil {
				flag, hint := "--motion", "close the fence or comment, or leave it out"
				var me *debate.MotionError
				if errors.As(err, &me) && me.Field != "motion" {
					flag = "--" + me.Field
					if me.Field == "definition" {
						hint = "write the term without \"**\" and without a final \":\""
					}
				}
				return withCode(ExitUsage, fmt.Errorf("%s: %w", flag, err), hint)
			}
			dir := filepath.Join(root(cmd), slug)
			d, err := engine.Create(dir, slug, m)
			if err != nil {
				return withCode(ExitError, fmt.Errorf("create %s: %w", dir, err))
			}
			d.Close()
			fmt.Fprintf(a.io.Stdout, "created %s\n", dir)
			fmt.Fprintf(a.io.Stdout, "next: both sides' opening arguments (three each)\n")
			return nil
		},
	}
}

// statusJSON is what status --json prints for one debate.
type statusJSON struct {
	Debate    string     `json:"debate"`
	Path      string     `json:"path"`
	Motion    string     `json:"motion"`
	Exchange  int        `json:"exchange"`
	Phase     sm.Phase   `json:"phase"`
	Next      string     `json:"next"`
	Command   string     `json:"command"`
	Totals    sm.Totals  `json:"cumulative_scores"`
	Leader    string     `json:"leader"`
	Margin    float64    `json:"margin"`
	Arguments int        `json:"arguments"`
	Pending   bool       `json:"interrupted_step_pending"`
	Usage     run.Totals `json:"usage"`
}

func (a *app) statusOf(dir string) (*statusJSON, error) {
	d, err := store.Open(dir)
	if err != nil {
		return nil, err
	}
	defer d.Close()
	deb, err := engine.Load(d)
	if err != nil {
		return nil, err
	}
	h := deb.Header
	s := &statusJSON{
		Debate: h.ID, Path: dir, Motion: h.Motion.Text,
		Exchange: h.State.Exchange, Phase: h.State.Phase,
		Next: h.State.Action(), Totals: h.Totals, Arguments: len(deb.Arguments),
		Pending: d.Pending(),
	}
	s.Command = nextCommand(dir, h.State)
	if s.Usage, err = run.ReadUsage(d); err != nil {
		return nil, fmt.Errorf("read usage log: %w", err)
	}
	side, margin := h.Totals.Leader()
	s.Leader, s.Margin = side.Name(), margin
	if side == "" {
		s.Leader = "even"
	}
	return s, nil
}

func nextCommand(dir string, st sm.State) string {
	if st.Phase == sm.AwaitingJudgment {
		return fmt.Sprintf("moot process-judge %s --json-file JUDGMENT.json", dir)
	}
	return fmt.Sprintf("moot process-exchange %s %d --prop-file PROP.json --opp-file OPP.json", dir, st.Exchange)
}

func (a *app) statusCommand() *ucli.Command {
	return &ucli.Command{
		Name:         "status",
		Usage:        "show where a debate stands and what it waits for (all debates without an argument)",
		ArgsUsage:    "[<debate>]",
		Flags:        []ucli.Flag{&ucli.BoolFlag{Name: "json", Usage: "print JSON for scripts"}},
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
			s, err := a.statusOf(dir)
			if err != nil {
				return err
			}
			if cmd.Bool("json") {
				return writeJSON(a.io.Stdout, s)
			}
			w := a.io.Stdout
			fmt.Fprintf(w, "debate    %s\n", s.Debate)
			fmt.Fprintf(w, "motion    %s\n", oneLine(s.Motion, 100))
			fmt.Fprintf(w, "exchange  %d, %s\n", s.Exchange, strings.ReplaceAll(string(s.Phase), "_", " "))
			fmt.Fprintf(w, "next      %s\n", s.Next)
			fmt.Fprintf(w, "          moot run %s       with models\n", s.Path)
			fmt.Fprintf(w, "          %s   by hand\n", s.Command)
			fmt.Fprintf(w, "scores    proposition %s (%d scored) · opposition %s (%d scored)\n",
				sm.FormatScore(s.Totals.Proposition.Total), s.Totals.Proposition.Count,
				sm.FormatScore(s.Totals.Opposition.Total), s.Totals.Opposition.Count)
			if s.Leader == "even" {
				fmt.Fprintf(w, "leader    none: the sides are even\n")
			} else {
				fmt.Fprintf(w, "leader    %s by %s\n", s.Leader, strconv.FormatFloat(s.Margin, 'f', 2, 64))
			}
			fmt.Fprintf(w, "arguments %d\n", s.Arguments)
			if u := s.Usage; u.Calls > 0 {
				fmt.Fprintf(w, "models    %d calls · %d tokens (%d prompt, %d completion) · %.1f s of model time\n",
					u.Calls, u.PromptTokens+u.CompletionTokens, u.PromptTokens, u.CompletionTokens, u.Seconds)
			}
			if s.Pending {
				fmt.Fprintf(w, "note      an interrupted step is recorded and will be completed by the next command that writes\n")
			}
			return nil
		},
	}
}

func (a *app) listCommand() *ucli.Command {
	return &ucli.Command{
		Name:         "list",
		Usage:        "list the debates under the debates root",
		Flags:        []ucli.Flag{&ucli.BoolFlag{Name: "json", Usage: "print JSON for scripts"}},
		OnUsageError: usageOnError,
		Action: func(ctx context.Context, cmd *ucli.Command) error {
			if cmd.Args().Len() > 0 {
				return usageError("list takes no arguments")
			}
			return a.listDebates(cmd, cmd.Bool("json"))
		},
	}
}

func (a *app) listDebates(cmd *ucli.Command, asJSON bool) error {
	names, err := listDebates(root(cmd))
	if err != nil {
		return err
	}
	var all []any
	for _, n := range names {
		dir := filepath.Join(root(cmd), n)
		s, err := a.statusOf(dir)
		if err != nil {
			if asJSON {
				all = append(all, map[string]string{"debate": n, "path": dir, "error": err.Error()})
			} else {
				fmt.Fprintf(a.io.Stdout, "%-28s unreadable: %s\n", n, oneLine(err.Error(), 80))
			}
			continue
		}
		if asJSON {
			all = append(all, s)
			continue
		}
		fmt.Fprintf(a.io.Stdout, "%-28s exchange %-3d %-19s prop %-7s opp %-7s %s\n", n, s.Exchange, s.Phase,
			sm.FormatScore(s.Totals.Proposition.Total), sm.FormatScore(s.Totals.Opposition.Total), oneLine(s.Motion, 60))
	}
	if asJSON {
		if all == nil {
			all = []any{}
		}
		return writeJSON(a.io.Stdout, all)
	}
	if len(names) == 0 {
		fmt.Fprintf(a.io.Stderr, "moot: no debates under %s; create one with: moot new <slug> --motion \"...\"\n", root(cmd))
	}
	return nil
}

func (a *app) showCommand() *ucli.Command {
	return &ucli.Command{
		Name:         "show",
		Usage:        "show an argument with its scores and their history",
		ArgsUsage:    "<debate> <argument-id>",
		Flags:        []ucli.Flag{&ucli.BoolFlag{Name: "json", Usage: "print JSON for scripts"}},
		OnUsageError: usageOnError,
		Action: func(ctx context.Context, cmd *ucli.Command) error {
			if cmd.Args().Len() != 2 {
				return usageError("show takes a debate and an argument id")
			}
			id := cmd.Args().Get(1)
			if _, err := sm.ParseID(id); err != nil {
				return withCode(ExitUsage, err)
			}
			d, err := openDebate(cmd)
			if err != nil {
				return err
			}
			defer d.Close()
			deb, err := engine.Load(d)
			if err != nil {
				return err
			}
			arg, ok := deb.Argument(id)
			if !ok {
				return withCode(ExitError, fmt.Errorf("%s has no argument %s", d.Path(), id), "'moot status' shows how far the debate has got")
			}
			rec, scored := deb.Scores.Get(id)
			if cmd.Bool("json") {
				out := map[string]any{
					"id": arg.ID, "side": arg.Side, "exchange": arg.Exchange, "title": arg.Title, "claim": arg.Claim,
					"attacks": nonNilTargets(arg.Attacks), "defends": nonNilTargets(arg.Defends), "body": arg.Body,
					"current_score": nil, "history": []any{},
				}
				if scored {
					out["current_score"] = rec.CurrentScore
					var hist []map[string]any
					for _, e := range rec.History {
						h := map[string]any{"score": e.Score, "reasoning": e.Reasoning, "scored_at": e.ScoredAt}
						if e.TriggeredBy != "" {
							h["triggered_by"] = e.TriggeredBy
						}
						if e.PreviousScore != nil {
							h["previous_score"] = *e.PreviousScore
						}
						if e.Diff != nil {
							h["diff"] = *e.Diff
						}
						hist = append(hist, h)
					}
					out["history"] = hist
				}
				return writeJSON(a.io.Stdout, out)
			}
			w := a.io.Stdout
			fmt.Fprintf(w, "%s · %s · exchange %d\n", arg.ID, arg.Side.Name(), arg.Exchange)
			fmt.Fprintf(w, "%s\n\n", arg.Title)
			if !scored {
				fmt.Fprintf(w, "score: not scored yet\n")
			} else {
				fmt.Fprintf(w, "score: %s\n", sm.FormatScore(rec.CurrentScore))
				for _, e := range rec.History {
					if e.PreviousScore != nil {
						fmt.Fprintf(w, "  %s  rescored %s → %s", e.ScoredAt, sm.FormatScore(*e.PreviousScore), sm.FormatScore(e.Score))
						if e.TriggeredBy != "" {
							fmt.Fprintf(w, " after %s", e.TriggeredBy)
						}
						fmt.Fprintln(w)
					} else {
						fmt.Fprintf(w, "  %s  scored %s\n", e.ScoredAt, sm.FormatScore(e.Score))
					}
					fmt.Fprintf(w, "      %s\n", e.Reasoning)
				}
			}
			fmt.Fprintf(w, "\n%s\n", strings.TrimRight(arg.Body, "\n"))
			return nil
		},
	}
}

func nonNilTargets(t []debate.Target) []debate.Target {
	if t == nil {
		return []debate.Target{}
	}
	return t
}

func (a *app) checkCommand() *ucli.Command {
	return &ucli.Command{
		Name:         "check",
		Usage:        "verify every invariant of a debate (read-only)",
		ArgsUsage:    "<debate>",
		Flags:        []ucli.Flag{&ucli.BoolFlag{Name: "json", Usage: "print JSON for scripts"}},
		OnUsageError: usageOnError,
		Action: func(ctx context.Context, cmd *ucli.Command) error {
			if cmd.Args().Len() != 1 {
				return usageError("check takes one debate")
			}
			d, err := openDebate(cmd)
			if err != nil {
				return err
			}
			defer d.Close()
			raw, err := engine.ReadRaw(d)
			if err != nil {
				return err
			}
			found := debate.Check(raw)
			problems, warnings := found.Problems, found.Warnings
			if cmd.Bool("json") {
				if problems == nil {
					problems = []debate.Problem{}
				}
				if warnings == nil {
					warnings = []debate.Problem{}
				}
				if err := writeJSON(a.io.Stdout, map[string]any{"ok": len(problems) == 0, "problems": problems, "warnings": warnings, "interrupted_step_pending": d.Pending()}); err != nil {
					return err
				}
			} else {
				for _, p := range problems {
					fmt.Fprintf(a.io.Stdout, "%s: %s\n", filepath.Join(d.Path(), p.File), p.Message)
				}
				for _, w := range warnings {
					fmt.Fprintf(a.io.Stdout, "%s: warning: %s\n", filepath.Join(d.Path(), w.File), w.Message)
				}
			}
			if d.Pending() && !cmd.Bool("json") {
				fmt.Fprintf(a.io.Stderr, "moot: note: an interrupted step is recorded in %s; it was checked as completed, and the next command that writes completes it\n", filepath.Join(d.Path(), ".moot", "journal.json"))
			}
			if len(problems) > 0 {
				return withCode(ExitCheckFailed, fmt.Errorf("%s: %d problem(s) found", d.Path(), len(problems)))
			}
			if !cmd.Bool("json") {
				if len(warnings) > 0 {
					fmt.Fprintf(a.io.Stdout, "ok: %s is consistent (%d argument files, %d warning(s))\n", d.Path(), len(raw.Arguments), len(warnings))
				} else {
					fmt.Fprintf(a.io.Stdout, "ok: %s is consistent (%d argument files)\n", d.Path(), len(raw.Arguments))
				}
			}
			return nil
		},
	}
}

func (a *app) processExchangeCommand() *ucli.Command {
	return &ucli.Command{
		Name:      "process-exchange",
		Usage:     "take both sides' arguments for an exchange (JSON), as dialectic's debate_ops does",
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
			if err != nil || exchange < 0 || exchange > sm.MaxExchange {
				return usageError("exchange %q is not a whole number from 0 to %d", cmd.Args().Get(1), sm.MaxExchange)
			}
			if cmd.Args().Len() > 2 {
				return usageError("process-exchange takes a debate and an exchange number, got also %q", cmd.Args().Slice()[2:])
			}
			prop, err := readAnswer(cmd.String("prop-file"), "prop-file")
			if err != nil {
				return err
			}
			opp, err := readAnswer(cmd.String("opp-file"), "opp-file")
			if err != nil {
				return err
			}
			d, err := a.openForWrite(ctx, cmd)
			if err != nil {
				return err
			}
			defer d.Close()
			res, err := engine.ProcessExchange(d, exchange, prop, opp)
			if werr := writeJSON(a.io.Stdout, res); werr != nil && err == nil {
				err = werr
			}
			return err
		},
	}
}

func (a *app) processJudgeCommand() *ucli.Command {
	return &ucli.Command{
		Name:      "process-judge",
		Usage:     "take the judge's scores for the current exchange (JSON), as dialectic's debate_ops does",
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
			answer, err := readAnswer(cmd.String("json-file"), "json-file")
			if err != nil {
				return err
			}
			d, err := a.openForWrite(ctx, cmd)
			if err != nil {
				return err
			}
			defer d.Close()
			res, err := engine.ProcessJudge(d, answer, a.io.Now())
			if werr := writeJSON(a.io.Stdout, res); werr != nil && err == nil {
				err = werr
			}
			return err
		},
	}
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
	b, err := doc.Marshal(v)
	if err != nil {
		return err
	}
	_, err = w.Write(b)
	return err
}

// oneLine folds s onto one line of at most n characters.
func oneLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	r := []rune(s)
	if len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}
