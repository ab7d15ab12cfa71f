package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"

	ucli "github.com/urfave/cli/v3"

	driver "github.com/moot-dev/moot/internal/driver"
	"github.com/moot-dev/moot/internal/english"
	"github.com/moot-dev/moot/internal/frontmatter"
	"github.com/moot-dev/moot/internal/judging"
	"github.com/moot-dev/moot/internal/termwidth"
	sm "github.com/moot-dev/moot/statemachine"
	"github.com/moot-dev/moot/statemachine/dialectic"
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

// statusJSON is what status --json prints for one debate.
type statusJSON struct {
	Debate    string           `json:"debate"`
	Path      string           `json:"path"`
	Motion    string           `json:"motion"`
	Exchange  int              `json:"exchange"`
	Phase     dialectic.Phase  `json:"phase"`
	Next      string           `json:"next"`
	Command   string           `json:"command"`
	Totals    dialectic.Totals `json:"cumulative_scores"`
	Leader    string           `json:"leader"`
	Margin    float64          `json:"margin"`
	Arguments int              `json:"arguments"`
	Pending   bool             `json:"interrupted_step_pending"`
	// End is how many exchanges a debate made with an end has (0: none),
	// and Complete reports that it has reached it.
	End      int           `json:"end,omitempty"`
	Complete bool          `json:"complete"`
	Usage    driver.Totals `json:"usage"`
	// Cost is the bill of the usage log (see costJSON): status of one
	// debate has it, the list of every debate not.
	Cost map[string]any `json:"cost,omitempty"`
	// Writer is the process writing the debate now, if any.
	Writer *store.Holder `json:"writer,omitempty"`
	// Judges is the debate's judge panel, when it has one; Judgments
	// names every judge with a folder under judgments/.
	Judges    []sm.Judge `json:"judges,omitempty"`
	Judgments []string   `json:"judgments,omitempty"`
	// Missing names the judgments recorded as missing (moot run
	// --keep-going), by call; MissingText says them in words.
	Missing     []string `json:"missing,omitempty"`
	MissingText string   `json:"-"`
	// Scripted says who wrote the text that moot's built-in model wrote
	// (builtin.Note), when it wrote any.
	Scripted string `json:"scripted,omitempty"`
	// Flags names the judgments whose rescores look like a judge that
	// obeyed instructions planted in an argument (RescoreFlags).
	Flags []string `json:"flags,omitempty"`
}

func (a *app) statusOf(dir string) (*statusJSON, error) {
	d, err := store.Open(dir)
	if err != nil {
		return nil, err
	}
	defer d.Close()
	deb, err := loadChecked(d, "status")
	if err != nil {
		return nil, err
	}
	h := deb.Header
	s := &statusJSON{
		Debate: h.ID, Path: dir, Motion: h.Motion.Text,
		Exchange: h.State.Exchange, Phase: h.State.Phase,
		Next: h.State.Action(), Totals: h.Totals, Arguments: len(deb.Arguments),
		Pending: d.Pending(), Writer: d.Writer(),
	}
	s.Command = nextCommand(dir, h.State)
	s.End = h.End
	if deb.Ended() {
		s.Complete, s.Command = true, ""
		s.Next = fmt.Sprintf("nothing: the debate ended after its %d exchanges", h.End)
	}
	if s.Usage, err = driver.ReadUsage(d); err != nil {
		return nil, fmt.Errorf("read usage log: %w", err)
	}
	if s.Judges, err = sm.PanelOf(h.Front); err != nil {
		return nil, fmt.Errorf("read %s: %w", sm.StateFile, err)
	}
	records, err := driver.JudgeRecords(d)
	if err != nil {
		return nil, err
	}
	for _, r := range records {
		s.Judgments = append(s.Judgments, r.Name)
	}
	if len(records) > 0 {
		sd, err := driver.LoadDebate(d, dialectic.Protocol{})
		if err != nil {
			return nil, err
		}
		if f, ok := sd.(sm.Filler); ok {
			s.Missing = f.Gaps()
		}
		for _, l := range sd.Status().Lines {
			if l.Label == "missing" {
				s.MissingText = l.Text
			}
		}
	}
	if s.Scripted, err = scriptedNote(d); err != nil {
		return nil, err
	}
	s.Flags = deb.RescoreFlags()
	side, margin := h.Totals.Leader()
	s.Leader, s.Margin = side.Name(), margin
	if side == "" {
		s.Leader = "even"
	}
	return s, nil
}

// nextCommand is the command line that takes, by hand, the step st waits
// for in the debate at dir.
func nextCommand(dir string, st dialectic.State) string {
	line := fmt.Sprintf("moot %s %s", st.Command(), dir)
	if st.Phase == dialectic.AwaitingJudgment {
		return line + " --json-file JUDGMENT.json"
	}
	return fmt.Sprintf("%s %d --prop-file PROP.json --opp-file OPP.json", line, st.Exchange)
}

// withNextCommand adds to err, when it is a step refused because the
// debate waits for another step (accepts says whether the state would
// take the one asked for), a hint naming the command accepted now.
func withNextCommand(d *store.Dir, err error, accepts func(dialectic.State) error) error {
	var refused *driver.Refused
	if !errors.As(err, &refused) {
		return err
	}
	deb, lerr := loadDialectic(d)
	if lerr != nil || accepts(deb.Header.State) == nil {
		return err
	}
	return withCode(ExitRefused, err, "the debate accepts now: "+nextCommand(d.Path(), deb.Header.State))
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
			if handled, err := a.withProtocol(dir, func(d *store.Dir, p sm.Protocol) error {
				return a.statusProtocol(d, p, cmd.Bool("json"), table)
			}); handled {
				return err
			}
			s, err := a.statusOf(dir)
			if err != nil {
				return err
			}
			bill, err := a.dialecticBill(dir, table)
			if err != nil {
				return err
			}
			s.Cost = costJSON(bill)
			if cmd.Bool("json") {
				return writeJSON(a.io.Stdout, s)
			}
			w := a.io.Stdout
			fmt.Fprintf(w, "debate    %s\n", visible(s.Debate, false))
			// The whole motion, each of its lines wrapped: status of one
			// debate never cuts it.
			label := "motion"
			for _, para := range strings.Split(strings.TrimSpace(s.Motion), "\n") {
				if strings.TrimSpace(para) == "" {
					continue
				}
				for _, line := range wrapLines(visible(para, false), 90) {
					fmt.Fprintf(w, "%-9s %s\n", label, line)
					label = ""
				}
			}
			a.printScripted(s.Scripted)
			fmt.Fprintf(w, "exchange  %d, %s\n", s.Exchange, strings.ReplaceAll(string(s.Phase), "_", " "))
			fmt.Fprintf(w, "next      %s\n", s.Next)
			if !s.Complete {
				byModel := "moot run " + visible(s.Path, false)
				byHand := visible(s.Command, false)
				width := max(len(byModel), len(byHand))
				fmt.Fprintf(w, "          %-*s  with models\n", width, byModel)
				fmt.Fprintf(w, "          %-*s  by hand\n", width, byHand)
			}
			fmt.Fprintf(w, "scores    proposition %s (%d scored) · opposition %s (%d scored)\n",
				dialectic.FormatScore(s.Totals.Proposition.Total), s.Totals.Proposition.Count,
				dialectic.FormatScore(s.Totals.Opposition.Total), s.Totals.Opposition.Count)
			if s.Leader == "even" {
				fmt.Fprintf(w, "leader    none: the sides are even\n")
			} else {
				fmt.Fprintf(w, "leader    %s by %s\n", s.Leader, strconv.FormatFloat(s.Margin, 'f', 2, 64))
			}
			fmt.Fprintf(w, "arguments %d\n", s.Arguments)
			for _, flag := range s.Flags {
				label := "warning"
				for _, line := range wrapLines(flag, 90) {
					fmt.Fprintf(w, "%-9s %s\n", label, line)
					label = ""
				}
			}
			if len(s.Judges) > 0 {
				names := make([]string, len(s.Judges))
				for i, j := range s.Judges {
					names[i] = visible(j.Name, false)
					if j.Model != j.Name {
						names[i] += " (" + visible(j.Model, false) + ")"
					}
				}
				fmt.Fprintf(w, "judges    a panel of %d: %s; the scores are their means\n", len(s.Judges), strings.Join(names, ", "))
			}
			if len(s.Judgments) > 0 {
				fmt.Fprintf(w, "judgments %s under judgments/: moot judges %s compares them\n", strings.Join(s.Judgments, ", "), visible(s.Path, false))
			}
			if s.MissingText != "" {
				fmt.Fprintf(w, "missing   %s\n", visible(s.MissingText, false))
			}
			fmt.Fprint(w, peopleLine(dir, "exchange"))
			if u := s.Usage; u.Calls > 0 {
				fmt.Fprintf(w, "models    %s in all runs (%d failed) · %s · %.1f s of model time\n",
					english.Count(u.Calls, "model call"), u.Failed, tokensText(bill.Total), u.Seconds)
				writeCost(w, bill)
			}
			if s.Writer != nil {
				fmt.Fprintf(w, "writer    %s\n", describeHolder(s.Writer))
			}
			if s.Pending {
				fmt.Fprintf(w, "note      an interrupted step is recorded and will be completed by the next command that writes\n")
			}
			return nil
		},
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
		fmt.Fprintf(a.io.Stderr, "moot: no debates under %s; create one with: moot new <slug> --motion \"...\"\n", root(cmd))
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
			if handled, err := a.withDebateProtocol(cmd, func(d *store.Dir, p sm.Protocol) error {
				return a.showProtocol(d, p, cmd.Args().Get(1), cmd.Args().Len() == 2, cmd.Bool("json"))
			}); handled {
				return err
			}
			id := cmd.Args().Get(1)
			_, idErr := dialectic.ParseID(id)
			d, err := openDebate(cmd)
			if err != nil {
				if idErr != nil && cmd.Args().Len() == 2 {
					return badUsage(idErr)
				}
				return err
			}
			defer d.Close()
			deb, err := loadChecked(d, "show")
			if err != nil {
				return err
			}
			if cmd.Args().Len() == 1 {
				return a.listArguments(deb, cmd.Bool("json"))
			}
			if idErr != nil {
				return badUsage(idErr, argumentHints(d.Path(), deb, id)...)
			}
			arg, ok := deb.Argument(id)
			if !ok {
				return withCode(ExitError, fmt.Errorf("%s has no argument %s", d.Path(), id), argumentHints(d.Path(), deb, id)...)
			}
			rec, scored := deb.Scores.Get(id)
			j, err := dialecticJudgments(d)
			if err != nil {
				return err
			}
			strength, hasStrength := judging.Strengths(j)[id]
			judges := map[string]float64{}
			var judgeNames []string
			for _, js := range j.Judges {
				if v, ok := js.Final[id]; ok && js.Kind != sm.KindOfficial {
					judges[js.Name] = v
					judgeNames = append(judgeNames, js.Name)
				}
			}
			if cmd.Bool("json") {
				out := map[string]any{
					"id": arg.ID, "side": arg.Side, "exchange": arg.Exchange, "title": arg.Title, "claim": arg.ClaimText(),
					"attacks": nonNilTargets(arg.Attacks), "defends": nonNilTargets(arg.Defends), "body": arg.Body,
					"current_score": nil, "history": []any{}, "graph_strength": nil, "judges": judges,
				}
				if hasStrength && scored {
					out["graph_strength"] = strength
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
			fmt.Fprintf(w, "%s\n\n", visible(arg.Title, false))
			if !scored {
				fmt.Fprintf(w, "score: not scored yet\n")
			} else {
				fmt.Fprintf(w, "score: %s\n", dialectic.FormatScore(rec.CurrentScore))
				for _, e := range rec.History {
					if e.PreviousScore != nil {
						fmt.Fprintf(w, "  %s  rescored %s → %s", visible(e.ScoredAt, false), dialectic.FormatScore(*e.PreviousScore), dialectic.FormatScore(e.Score))
						if e.TriggeredBy != "" {
							fmt.Fprintf(w, " after %s", visible(e.TriggeredBy, false))
						}
						fmt.Fprintln(w)
					} else {
						fmt.Fprintf(w, "  %s  scored %s\n", visible(e.ScoredAt, false), dialectic.FormatScore(e.Score))
					}
					fmt.Fprintf(w, "      %s\n", visible(e.Reasoning, false))
				}
				if hasStrength {
					fmt.Fprintf(w, "graph strength: %.3f (DF-QuAD, from the attacks and defences alone, with the first score as base)\n", strength)
				} else {
					fmt.Fprintf(w, "graph strength: not evaluated (on a cycle of attacks and defences, or depending on one)\n")
				}
			}
			if len(judgeNames) > 0 {
				parts := make([]string, len(judgeNames))
				for i, n := range judgeNames {
					parts[i] = n + " " + dialectic.FormatScore(judges[n])
				}
				fmt.Fprintf(w, "judges: %s\n", strings.Join(parts, ", "))
			}
			fmt.Fprintf(w, "\n%s\n", visible(strings.TrimRight(arg.Body, "\n"), true))
			return nil
		},
	}
}

// listArguments prints every argument of deb, a line each: id, side,
// exchange, current score and title.
func (a *app) listArguments(deb *dialectic.Debate, asJSON bool) error {
	if asJSON {
		out := []map[string]any{}
		for _, arg := range deb.Arguments {
			row := map[string]any{"id": arg.ID, "side": arg.Side, "exchange": arg.Exchange, "score": nil, "title": arg.Title}
			if rec, ok := deb.Scores.Get(arg.ID); ok {
				row["score"] = rec.CurrentScore
			}
			out = append(out, row)
		}
		return writeJSON(a.io.Stdout, out)
	}
	w := a.io.Stdout
	if len(deb.Arguments) == 0 {
		fmt.Fprintf(a.io.Stderr, "moot: %s has no arguments yet; 'moot status %s' says what it waits for\n", visible(deb.Header.ID, false), visible(deb.Header.ID, false))
		return nil
	}
	fmt.Fprintf(w, "%-10s %-12s %-9s %-6s %s\n", "id", "side", "exchange", "score", "title")
	for _, arg := range deb.Arguments {
		score := "-"
		if rec, ok := deb.Scores.Get(arg.ID); ok {
			score = dialectic.FormatScore(rec.CurrentScore)
		}
		fmt.Fprintf(w, "%-10s %-12s %-9d %-6s %s\n", arg.ID, arg.Side.Name(), arg.Exchange, score, visible(arg.Title, false))
	}
	return nil
}

// argumentHints are the hints for an id that deb does not hold: the
// argument meant, if one is near (prop_1 for prop_001), and how to list
// them all.
func argumentHints(dir string, deb *dialectic.Debate, id string) []string {
	var ids []string
	for _, arg := range deb.Arguments {
		ids = append(ids, arg.ID)
	}
	var hints []string
	if near, ok := nearestID(id, ids); ok {
		hints = append(hints, fmt.Sprintf("did you mean %s?", near))
	}
	return append(hints, fmt.Sprintf("'moot show %s' lists its arguments", dir))
}

// looseID reads ids as people type them: any case, any number of
// leading zeros, a dash for the underscore (Prop-1, opp_0a).
var looseID = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^(?i)(prop|opp)[_-]?0*([0-9]{1,5})([a-c]?)$`) })

// nearestID returns the id among ids that id most likely means.
func nearestID(id string, ids []string) (string, bool) {
	if m := looseID().FindStringSubmatch(strings.TrimSpace(id)); m != nil {
		n, _ := strconv.Atoi(m[2])
		want := fmt.Sprintf("%s_%03d%s", strings.ToLower(m[1]), n, strings.ToLower(m[3]))
		for _, c := range ids {
			if c == want {
				return c, true
			}
		}
		if n == 0 && m[3] == "" {
			if c := want + "a"; slices.Contains(ids, c) {
				return c, true
			}
		}
	}
	return nearest(id, ids)
}

func nonNilTargets(t []dialectic.Target) []dialectic.Target {
	if t == nil {
		return []dialectic.Target{}
	}
	return t
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
			if p, err := a.stepProtocol(d); err != nil {
				return err
			} else if p != nil {
				return journalFailsCheck(a.checkProtocol(d, p))
			}
			raw, err := readRaw(d)
			if err != nil {
				return journalFailsCheck(err)
			}
			found := dialectic.Check(raw)
			problems, warnings := found.Problems, found.Warnings
			if len(problems) == 0 {
				problems = stepProblems(d)
			}
			if cmd.Bool("json") {
				if problems == nil {
					problems = []dialectic.Problem{}
				}
				if warnings == nil {
					warnings = []dialectic.Problem{}
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
			if d.Pending() && !cmd.Bool("json") {
				fmt.Fprintf(a.io.Stderr, "moot: note: an interrupted step is recorded in %s; it was checked as completed, and the next command that writes completes it\n", filepath.Join(d.Path(), ".moot", "journal.json"))
			}
			if len(problems) > 0 {
				return withCode(ExitCheckFailed, fmt.Errorf("%s: %s found", d.Path(), english.Count(len(problems), "problem")))
			}
			if !cmd.Bool("json") {
				if len(warnings) > 0 {
					fmt.Fprintf(a.io.Stdout, "ok: %s is consistent (%s, %s)\n", d.Path(), english.Count(len(raw.Arguments), "argument file"), english.Count(len(warnings), "warning"))
				} else {
					fmt.Fprintf(a.io.Stdout, "ok: %s is consistent (%s)\n", d.Path(), english.Count(len(raw.Arguments), "argument file"))
				}
			}
			return nil
		},
	}
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
			if err != nil || exchange < 0 || exchange > dialectic.MaxExchange {
				return usageError("exchange %q is not a whole number from 0 to %d", cmd.Args().Get(1), dialectic.MaxExchange)
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
	res, err := driver.HandStep(d, dialectic.Protocol{}, false, dialectic.HandArguments(exchange, prop, opp))
	err = plainBadFiles(err)
	if w := sameFile(propFile, oppFile); w != "" {
		res.Warnings = append(res.Warnings, w)
		fmt.Fprintf(a.io.Stderr, "moot: warning: %s\n", w)
	}
	return res, withNextCommand(d, err, func(st dialectic.State) error { return st.AcceptArguments(exchange) })
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
	res, err := driver.HandStep(d, dialectic.Protocol{}, true, dialectic.HandJudgment(answer, a.io.Now()))
	err = plainBadFiles(err)
	return res, withNextCommand(d, err, dialectic.State.AcceptJudgment)
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
