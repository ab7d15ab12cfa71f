package cli

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	ucli "github.com/urfave/cli/v3"

	"github.com/moot-dev/moot/internal/builtin"
	"github.com/moot-dev/moot/internal/driver"
	"github.com/moot-dev/moot/internal/english"
	"github.com/moot-dev/moot/internal/judging"
	"github.com/moot-dev/moot/internal/model"
	"github.com/moot-dev/moot/internal/page"
	"github.com/moot-dev/moot/internal/prices"
	sm "github.com/moot-dev/moot/statemachine"
	"github.com/moot-dev/moot/store"
)

// NarrativeWriter is a model that writes the analysis of `moot report
// --narrative`: it answers the debate's prompt with plain text.
type NarrativeWriter interface {
	Narrative(ctx context.Context, prompt string) (string, error)
}

// newNarrator returns the model that writes --narrative analyses and the
// model's name: the model the debate names for it (its judge's), else
// $MOOT_MODEL, else DefaultModel, on the endpoint OPENAI_BASE_URL and
// OPENAI_API_KEY give, or moot's built-in model when that is the model. It
// returns no writer when no endpoint is configured. It is the narrator of
// an IO whose Narrator is nil.
func newNarrator(getenv func(string) string, debateModel string) (NarrativeWriter, string, error) {
	name := debateModel
	if name == "" {
		name = defaultModel(getenv)
	}
	if builtin.Is(name) {
		return narrator{builtin.Client{}, name, func(s string) string { return s }}, name, nil
	}
	cfg := model.ConfigFromEnv(getenv)
	cfg.MaxRetries = model.DefaultMaxRetries
	c, err := model.New(cfg)
	if errors.Is(err, model.ErrNoAPIKey) {
		return nil, "", nil
	}
	if err != nil {
		return nil, "", err
	}
	return narrator{c, name, c.Mask}, name, nil
}

// narrator asks a model for the narrative as plain text.
type narrator struct {
	c     driver.Completer
	model string
	// mask hides the endpoint's key in the answer.
	mask func(string) string
}

// Narrative sends prompt as one user message and returns the answer.
func (n narrator) Narrative(ctx context.Context, prompt string) (string, error) {
	resp, err := n.c.Complete(ctx, model.Request{Model: n.model, Mode: model.ModeText, Role: builtin.NarratorRole,
		Messages: []model.Message{{Role: "user", Content: prompt}}})
	if err != nil {
		return "", err
	}
	return n.mask(resp.Text), nil
}

// errNoModel is what --narrative says when no model is configured.
var errNoModel = errors.New("--narrative needs a model: set OPENAI_API_KEY or OPENAI_BASE_URL")

func (a *app) reportCommand() *ucli.Command {
	return &ucli.Command{
		Name:      "report",
		Usage:     "write the debate's report: README.md and argument-graph.mmd (and report.html with --html)",
		ArgsUsage: "<debate>",
		Flags: []ucli.Flag{
			&ucli.BoolFlag{Name: "stdout", Usage: "print the report (the HTML with --html) instead of writing files"},
			&ucli.BoolFlag{Name: "html", Usage: "also write report.html: the same report as one self-contained page"},
			&ucli.BoolFlag{Name: "narrative", Usage: "ask the judge model for a written analysis and store it in narrative.md (later reports keep it)"},
			pricesFlag(),
			waitFlag(),
		},
		OnUsageError: usageOnError,
		Action: func(ctx context.Context, cmd *ucli.Command) error {
			if cmd.Args().Len() != 1 {
				return usageError("report takes one debate")
			}
			// A report to stdout writes nothing, unless it pays for a new
			// narrative: it reads as status does, without the lock, and
			// never waits for a writer.
			open := a.openForWrite
			if cmd.Bool("stdout") && !cmd.Bool("narrative") {
				open = func(context.Context, *ucli.Command) (*store.Dir, error) { return openDebate(cmd) }
			}
			table, err := a.priceTable(cmd)
			if err != nil {
				return err
			}
			d, err := open(ctx, cmd)
			if err != nil {
				return err
			}
			defer d.Close()
			p, err := a.readingProtocol(d, "report")
			if err != nil {
				return err
			}
			return a.reportProtocol(ctx, cmd, d, p, table)
		},
	}
}

// readingProtocol is the protocol whose debate the read command command
// reads in d (see stepProtocol), once the debate has been checked in its
// protocol's words when stepProtocol leaves it to readChecked.
func (a *app) readingProtocol(d *store.Dir, command string) (sm.Protocol, error) {
	p, err := a.stepProtocol(d)
	if err != nil || p != nil {
		return p, err
	}
	p, _, err = a.readChecked(d, command)
	return p, err
}

// reportProtocol is `moot report` for the debate in d of protocol p: the
// files its debate's Report returns, with report.html when asked (--html),
// and what moot adds to them (see addenda), written as one commit, or
// printed (--stdout): README.md, or the HTML page with --html. With
// --narrative, a model first writes the analysis of a Narrated debate.
func (a *app) reportProtocol(ctx context.Context, cmd *ucli.Command, d *store.Dir, p sm.Protocol, table prices.Table) error {
	toStdout, html := cmd.Bool("stdout"), cmd.Bool("html")
	deb, err := driver.ReadDebate(d, p)
	if err != nil {
		return err
	}
	if f := deb.Check(); len(f.Problems) > 0 {
		return brokenProtocolDebate(d, "report", f.Problems)
	}
	if _, ok := deb.(sm.Reporter); !ok {
		return fmt.Errorf("protocol %s writes no report", p.Name())
	}
	if html {
		if _, ok := deb.(sm.HTMLReporter); !ok {
			return usageError("--html: protocol %s writes no HTML report", p.Name())
		}
	}
	nd, narrated := deb.(sm.Narrated)
	if cmd.Bool("narrative") && !narrated {
		return usageError("--narrative: protocol %s writes no narrative; its report is its own", p.Name())
	}
	var files []store.File
	var add sm.Addenda
	// narrativeErr is a model that failed to write the narrative: the
	// report is written all the same, and the command then fails.
	var narrativeErr error
	switch {
	case cmd.Bool("narrative"):
		// A new narrative replaces the stored one, readable or not.
		data, err := a.writeNarrative(ctx, nd)
		var ee *exitError
		switch {
		case err == nil:
			add.Narrative = data
			files = append(files, store.File{Name: nd.NarrativeFile(), Data: data})
		case errors.As(err, &ee) && ee.code == ExitModel:
			add.Narrative, _ = readNarrative(d, nd) // an unreadable one is left out
			narrativeErr = narrativeFailed(d.Path(), nd.NarrativeFile(), add.Narrative != nil, err)
		default:
			return err
		}
	case narrated:
		if add.Narrative, err = readNarrative(d, nd); err != nil {
			return err
		}
	}
	// A debate judged by more than one judge gets a section comparing
	// them, each judge's side bias beside its bias over the root.
	if jd, ok := deb.(sm.Judged); ok {
		add.Sections = appendSection(add.Sections, judgesSection(a.compareInRoot(cmd, filepath.Base(d.Path()), jd.Judgments())))
	}
	// So does its cost, when models were asked, and who took part.
	bill, err := debateBill(d, table, driver.RoleNames(p))
	if err != nil {
		return err
	}
	add.Sections = appendSection(add.Sections, costSection(bill))
	add.Sections = appendSection(add.Sections, peopleSection(d, deb.Status().Unit))
	// A debate whose text moot's built-in model wrote says so under its
	// title.
	if add.Note, err = scriptedNote(d); err != nil {
		return err
	}
	var doc []byte
	if html {
		if doc, err = reportHTML(deb, add); err != nil {
			return err
		}
	}
	out, err := reportFiles(deb, add)
	if err != nil {
		return err
	}
	if toStdout {
		// A narrative just paid for is kept even so.
		if len(files) > 0 {
			if err := d.Commit(files); err != nil {
				return fmt.Errorf("write %s: %w", nd.NarrativeFile(), err)
			}
		}
		if doc == nil {
			i := slices.IndexFunc(out, func(f sm.File) bool { return f.Name == page.Readme })
			if i < 0 {
				return fmt.Errorf("protocol %s writes no %s", p.Name(), page.Readme)
			}
			doc = out[i].Data
		}
		if _, err := a.io.Stdout.Write(doc); err != nil {
			return err
		}
		return narrativeErr
	}
	if doc != nil {
		out = append(out, sm.File{Name: page.File, Data: doc})
	}
	for _, f := range out {
		if f.Name == sm.StateFile {
			return fmt.Errorf("protocol %s's report would replace %s", p.Name(), sm.StateFile)
		}
		files = append(files, store.File{Name: f.Name, Data: f.Data})
	}
	if err := d.Commit(files); err != nil {
		return err
	}
	for _, f := range files {
		fmt.Fprintf(a.io.Stdout, "wrote %s\n", filepath.Join(d.Path(), f.Name))
	}
	return narrativeErr
}

// appendSection appends section to sections unless it is empty.
func appendSection(sections []string, section string) []string {
	if section == "" {
		return sections
	}
	return append(sections, section)
}

// judgesSection is the section of a report comparing a debate's judges:
// when there are two or more, or when the debate's arguments form a graph
// whose judge-free strengths it gives; "" otherwise.
func judgesSection(jr judging.Report) string {
	if !jr.Worth() && jr.Strength == nil {
		return ""
	}
	return jr.Markdown(2)
}

// reportFiles returns the files of deb's report with moot's addenda add:
// placed by the debate itself when it is an AddendaReporter; else the note
// under the first line of README.md and the sections at its end.
func reportFiles(deb sm.Debate, add sm.Addenda) ([]sm.File, error) {
	if ar, ok := deb.(sm.AddendaReporter); ok {
		return ar.ReportWith(add)
	}
	files, err := deb.(sm.Reporter).Report()
	if err != nil {
		return nil, err
	}
	for i, f := range files {
		if f.Name != page.Readme {
			continue
		}
		if len(add.Sections) > 0 {
			files[i].Data = append(append(append([]byte(nil), f.Data...), '\n'), strings.Join(add.Sections, "\n")...)
		}
		files[i].Data = page.InsertNote(files[i].Data, add.Note)
	}
	return files, nil
}

// reportHTML returns report.html of deb, an HTMLReporter, with moot's
// addenda add, placed as reportFiles places them.
func reportHTML(deb sm.Debate, add sm.Addenda) ([]byte, error) {
	if ar, ok := deb.(sm.AddendaReporter); ok {
		return ar.ReportHTMLWith(add)
	}
	doc, err := deb.(sm.HTMLReporter).ReportHTML()
	if err != nil {
		return nil, err
	}
	doc = page.InsertNoteHTML(doc, add.Note)
	if len(add.Sections) == 0 {
		return doc, nil
	}
	return page.AppendSection(doc, strings.Join(add.Sections, "\n"))
}

// narrativeFailed is the error of a --narrative whose model failed, once
// the report is written: without a narrative, or with the one stored
// before in file (kept) when there is one.
func narrativeFailed(dir, file string, kept bool, err error) error {
	what := "without a narrative"
	if kept {
		what = "with the narrative written before (" + file + " is unchanged)"
	}
	return withCode(ExitModel, fmt.Errorf("the report was written %s: %w", what, err),
		fmt.Sprintf("run 'moot report %s --narrative' again to retry the narrative", dir))
}

// readNarrative reads the narrative stored in d for nd, if there is one.
func readNarrative(d *store.Dir, nd sm.Narrated) ([]byte, error) {
	file := nd.NarrativeFile()
	if !d.Exists(file) {
		return nil, nil
	}
	data, err := d.ReadFile(file)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", file, err)
	}
	if err := nd.CheckNarrative(data); err != nil {
		return nil, withCode(ExitError, fmt.Errorf("read %s: %w", filepath.Join(d.Path(), file), err),
			"delete the file, or run 'moot report --narrative' to write it again")
	}
	return data, nil
}

// writeNarrative asks the model for the narrative of nd and returns the
// file that keeps it.
func (a *app) writeNarrative(ctx context.Context, nd sm.Narrated) ([]byte, error) {
	prompt, err := nd.NarrativePrompt()
	if err != nil {
		return nil, withCode(ExitUsage, fmt.Errorf("--narrative: %w", err))
	}
	narrator := a.io.Narrator
	if narrator == nil {
		narrator = newNarrator
	}
	w, model, err := narrator(a.io.Getenv, nd.NarratorModel())
	if err != nil {
		return nil, withCode(ExitModel, err)
	}
	if w == nil {
		return nil, withCode(ExitUsage, errNoModel)
	}
	answer, err := w.Narrative(ctx, prompt)
	var data []byte
	var warning string
	if err == nil {
		data, warning, err = nd.Narrative(answer, model)
	}
	if err != nil {
		if errors.Is(err, context.Canceled) {
			return nil, err
		}
		return nil, withCode(ExitModel, fmt.Errorf("the narrative failed: %w", err))
	}
	if warning != "" {
		fmt.Fprintf(a.io.Stderr, "moot: warning: %s\n", warning)
	}
	return data, nil
}

func (a *app) exportCommand() *ucli.Command {
	return &ucli.Command{
		Name:      "export",
		Usage:     "print one row per argument as JSON or CSV, for analysis (pandas, R, a spreadsheet)",
		ArgsUsage: "<debate>",
		Flags: []ucli.Flag{
			&ucli.StringFlag{Name: "format", Value: "json", Usage: "the `FORMAT`: json (an array of objects), csv (RFC 4180, with a header) or judges (a row per item, a column per judge, for every protocol with a judge)" + a.protocolFormats()},
			&ucli.StringFlag{Name: "output", Aliases: []string{"o"}, Usage: "write to `FILE` instead of standard output"},
		},
		OnUsageError: usageOnError,
		Action: func(ctx context.Context, cmd *ucli.Command) error {
			if cmd.Args().Len() != 1 {
				return usageError("export takes one debate")
			}
			if handled, err := a.withDebateProtocol(cmd, func(d *store.Dir, p sm.Protocol) error {
				return a.exportProtocol(cmd, d, p)
			}); handled {
				return err
			}
			d, err := openDebate(cmd)
			if err != nil {
				return err
			}
			defer d.Close()
			p, sd, err := a.readChecked(d, "export")
			if err != nil {
				return err
			}
			// The formats of a debate read through its own check: its
			// Exporter's, then judges, when it has judges.
			var names []string
			x, exports := sd.(sm.Exporter)
			if exports {
				for _, f := range x.Formats() {
					names = append(names, f.Name)
				}
			}
			jd, judged := sd.(sm.Judged)
			if judged {
				names = append(names, judgesFormat.Name)
			}
			format := strings.ToLower(cmd.String("format"))
			if len(names) == 0 {
				return usageError("protocol %s has no export formats", p.Name())
			}
			if !slices.Contains(names, format) {
				return usageError("--format %q is not %s", cmd.String("format"), english.List(names, "or"))
			}
			var out []byte
			if format == judgesFormat.Name {
				out, err = judging.CSV(jd.Judgments())
			} else {
				out, err = x.Export(format)
			}
			if err != nil {
				return err
			}
			if path := cmd.String("output"); path != "" {
				if err := writeOutput(path, out); err != nil {
					return fmt.Errorf("write -o %s: %w", path, err)
				}
				n := 0
				if sh, ok := sd.(sm.Shower); ok {
					n = len(sh.Parts())
				}
				fmt.Fprintf(a.io.Stderr, "moot: wrote %s to %s\n", english.Count(n, "argument"), path)
				return nil
			}
			_, err = a.io.Stdout.Write(out)
			return err
		},
	}
}

// writeOutput replaces the file at path with data: written to a temporary
// file beside it, then renamed, so that a reader never sees half a file.
func writeOutput(path string, data []byte) error {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		// The temporary file's name means nothing to the user, and the
		// caller names the file they asked for: give only why.
		var pe *fs.PathError
		if errors.As(err, &pe) {
			return pe.Err
		}
		return err
	}
	tmp := f.Name()
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(tmp, 0o644)
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		os.Remove(tmp)
	}
	return err
}
