package cli

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	ucli "github.com/urfave/cli/v3"

	"github.com/moot-dev/moot/internal/builtin"
	"github.com/moot-dev/moot/internal/driver"
	"github.com/moot-dev/moot/internal/english"
	"github.com/moot-dev/moot/internal/judging"
	"github.com/moot-dev/moot/internal/model"
	sm "github.com/moot-dev/moot/statemachine"
	"github.com/moot-dev/moot/statemachine/dialectic"
	"github.com/moot-dev/moot/store"
)

// newNarrator returns the model that writes --narrative analyses and the
// model's name: the debate's judge model, else $MOOT_MODEL, else
// DefaultModel, on the endpoint OPENAI_BASE_URL and OPENAI_API_KEY give,
// or moot's built-in model when that is the model. It returns no writer
// when no endpoint is configured. It is the narrator of an IO whose
// Narrator is nil.
func newNarrator(getenv func(string) string, settings dialectic.Models) (dialectic.Writer, string, error) {
	name := settings.Judge
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
			if p, err := a.stepProtocol(d); err != nil {
				return err
			} else if p != nil {
				if cmd.Bool("narrative") {
					return usageError("--narrative is for dialectic debates; %s writes its own report", p.Name())
				}
				return a.reportProtocol(d, p, cmd.Bool("stdout"), cmd.Bool("html"), table)
			}
			deb, err := loadChecked(d, "report")
			if err != nil {
				return err
			}
			var files []store.File
			var narrative *dialectic.Narrative
			// narrativeErr is a model that failed to write the narrative: the
			// report is written all the same, and the command then fails.
			var narrativeErr error
			if cmd.Bool("narrative") {
				// A new narrative replaces the stored one, readable or not.
				n, data, err := a.writeNarrative(ctx, deb)
				var ee *exitError
				switch {
				case err == nil:
					narrative = n
					files = append(files, store.File{Name: dialectic.NarrativeFile, Data: data})
				case errors.As(err, &ee) && ee.code == ExitModel:
					narrative, _ = readNarrative(d) // an unreadable one is left out
					narrativeErr = narrativeFailed(d.Path(), narrative != nil, err)
				default:
					return err
				}
			} else if narrative, err = readNarrative(d); err != nil {
				return err
			}
			j, err := dialecticJudgments(d)
			if err != nil {
				return err
			}
			jr := a.compareInRoot(cmd, filepath.Base(d.Path()), j)
			note, err := scriptedNote(d)
			if err != nil {
				return err
			}
			r := dialectic.BuildWithNote(deb, narrative, &jr, note)
			var roles []string
			if p, err := a.io.Protocols.Lookup(sm.Default); err == nil {
				roles = driver.RoleNames(p)
			}
			bill, err := debateBill(d, table, roles)
			if err != nil {
				return err
			}
			r.AddSection(costSection(bill))
			r.AddSection(peopleSection(d, "exchange"))
			var page []byte
			if cmd.Bool("html") {
				if page, err = r.HTML(); err != nil {
					return err
				}
			}
			if cmd.Bool("stdout") {
				// A narrative just paid for is kept even so.
				if len(files) > 0 {
					if err := d.Commit(files); err != nil {
						return fmt.Errorf("write %s: %w", dialectic.NarrativeFile, err)
					}
				}
				out := r.Markdown()
				if page != nil {
					out = page
				}
				if _, err := a.io.Stdout.Write(out); err != nil {
					return err
				}
				return narrativeErr
			}
			files = append(files,
				store.File{Name: dialectic.ReadmeFile, Data: r.Markdown()},
				store.File{Name: dialectic.GraphFile, Data: r.GraphFile()},
			)
			if page != nil {
				files = append(files, store.File{Name: dialectic.HTMLFile, Data: page})
			}
			if err := d.Commit(files); err != nil {
				return err
			}
			for _, f := range files {
				fmt.Fprintf(a.io.Stdout, "wrote %s\n", filepath.Join(d.Path(), f.Name))
			}
			return narrativeErr
		},
	}
}

// narrativeFailed is the error of a --narrative whose model failed, once
// the report is written: without a narrative, or with the one stored
// before (kept) when there is one.
func narrativeFailed(dir string, kept bool, err error) error {
	what := "without a narrative"
	if kept {
		what = "with the narrative written before (" + dialectic.NarrativeFile + " is unchanged)"
	}
	return withCode(ExitModel, fmt.Errorf("the report was written %s: %w", what, err),
		fmt.Sprintf("run 'moot report %s --narrative' again to retry the narrative", dir))
}

// readNarrative reads the stored narrative, if there is one.
func readNarrative(d *store.Dir) (*dialectic.Narrative, error) {
	if !d.Exists(dialectic.NarrativeFile) {
		return nil, nil
	}
	data, err := d.ReadFile(dialectic.NarrativeFile)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", dialectic.NarrativeFile, err)
	}
	n, err := dialectic.ParseNarrative(data)
	if err != nil {
		return nil, withCode(ExitError, fmt.Errorf("read %s: %w", filepath.Join(d.Path(), dialectic.NarrativeFile), err),
			"delete the file, or run 'moot report --narrative' to write it again")
	}
	return n, nil
}

// writeNarrative asks the model for the narrative and renders narrative.md.
func (a *app) writeNarrative(ctx context.Context, deb *dialectic.Debate) (*dialectic.Narrative, []byte, error) {
	if deb.Header.State.Exchange == 0 {
		return nil, nil, withCode(ExitUsage, errors.New("--narrative: no exchange has been judged yet, so there is nothing to analyse"))
	}
	narrator := a.io.Narrator
	if narrator == nil {
		narrator = newNarrator
	}
	w, model, err := narrator(a.io.Getenv, dialectic.Analyze(deb).Models)
	if err != nil {
		return nil, nil, withCode(ExitModel, err)
	}
	if w == nil {
		return nil, nil, withCode(ExitUsage, errNoModel)
	}
	n, warning, err := dialectic.WriteNarrative(ctx, deb, w, model)
	if err != nil {
		if errors.Is(err, context.Canceled) {
			return nil, nil, err
		}
		return nil, nil, withCode(ExitModel, fmt.Errorf("the narrative failed: %w", err))
	}
	if warning != "" {
		fmt.Fprintf(a.io.Stderr, "moot: warning: %s\n", warning)
	}
	data, err := n.Render()
	if err != nil {
		return nil, nil, fmt.Errorf("render %s: %w", dialectic.NarrativeFile, err)
	}
	return n, data, nil
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
			format := strings.ToLower(cmd.String("format"))
			if format != "json" && format != "csv" && format != judgesFormat.Name {
				return usageError("--format %q is not json, csv or judges", cmd.String("format"))
			}
			d, err := openDebate(cmd)
			if err != nil {
				return err
			}
			defer d.Close()
			deb, err := loadChecked(d, "export")
			if err != nil {
				return err
			}
			j, err := dialecticJudgments(d)
			if err != nil {
				return err
			}
			var out []byte
			switch format {
			case judgesFormat.Name:
				out, err = judging.CSV(j)
			case "csv":
				out, err = dialectic.ExportCSV(deb, j)
			default:
				out, err = dialectic.ExportJSON(deb, j)
			}
			if err != nil {
				return err
			}
			if path := cmd.String("output"); path != "" {
				if err := writeOutput(path, out); err != nil {
					return fmt.Errorf("write -o %s: %w", path, err)
				}
				fmt.Fprintf(a.io.Stderr, "moot: wrote %s to %s\n", english.Count(len(deb.Arguments), "argument"), path)
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
