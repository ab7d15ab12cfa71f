package cli

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	ucli "github.com/urfave/cli/v3"

	"github.com/moot-dev/moot/internal/builtin"
	"github.com/moot-dev/moot/internal/driver"
	sm "github.com/moot-dev/moot/statemachine"
	"github.com/moot-dev/moot/store"
)

// DemoClock is the time of every time stamp the demo writes, so that the
// same demo on the same moot writes the same files.
var DemoClock = time.Date(2025, 1, 1, 12, 0, 0, 0, time.UTC)

// demoMotion is the motion of the demo of a protocol without a demo of
// its own (statemachine.Demoed).
const demoMotion = "Cities should ban private cars from their centres."

// demoOf is the demo debate of protocol p: its own, or one of its
// defaults on demoMotion.
func demoOf(p sm.Protocol) sm.Demo {
	if d, ok := p.(sm.Demoed); ok {
		return d.Demo()
	}
	return sm.Demo{Args: []string{"--motion", demoMotion}}
}

func (a *app) demoCommand() *ucli.Command {
	return &ucli.Command{
		Name:  "demo",
		Usage: "run a whole debate with moot's scripted built-in model (no key, no network) and say what to look at",
		Description: "demo makes a debate under the debates root (demo, demo-2, ...; demo-forum for forum), runs it to its end with " +
			"moot's scripted built-in model (--model " + builtin.Name + "), which plays every role from the prompts alone, writes its " +
			"report (README.md and report.html), and prints where it is, what to look at and what to run next with a real model. " +
			"Its time stamps are fixed and the model takes no time, so the same demo on the same moot writes the same files.",
		Flags: []ucli.Flag{
			&ucli.StringFlag{Name: "protocol", Value: sm.Default, Usage: "the debate's `PROTOCOL` ('moot protocols' lists them)"},
		},
		OnUsageError: usageOnError,
		Action: func(ctx context.Context, cmd *ucli.Command) error {
			if cmd.Args().Len() > 0 {
				return usageError("demo takes no arguments: its debate is named for you")
			}
			p, err := a.io.Protocols.Lookup(cmd.String("protocol"))
			if err != nil {
				return badUsage(fmt.Errorf("no protocol %q", cmd.String("protocol")), "'moot protocols' lists the protocols")
			}
			return a.demo(ctx, root(cmd), p)
		},
	}
}

// demo makes, runs and reports the demo debate of protocol p under root.
func (a *app) demo(ctx context.Context, root string, p sm.Protocol) error {
	spec := demoOf(p)
	base := "demo"
	if !isDefault(p) {
		base += "-" + p.Name()
	}
	slug, err := freeSlug(root, base)
	if err != nil {
		return err
	}
	// The demo's own commands run on its fixed clock; what they print
	// is replaced by the summary below.
	var out bytes.Buffer
	sub := &app{io: a.io, prog: a.prog}
	sub.io.Now = func() time.Time { return DemoClock }
	sub.io.Stdout, sub.io.Stderr = &out, &out
	runSub := func(args ...string) error {
		out.Reset()
		args = append([]string{"moot", "--dir", root}, args...)
		if err := sub.command(args).Run(ctx, args); err != nil {
			io.Copy(a.io.Stderr, &out)
			return err
		}
		return nil
	}
	fmt.Fprintf(a.io.Stderr, "moot demo: a %s debate, every role played by moot's scripted built-in model (no key, no network)\n", p.Name())
	if err := runSub(append([]string{"new", slug, "--protocol", p.Name()}, spec.Args...)...); err != nil {
		return err
	}
	dir := filepath.Join(root, slug)
	if err := sub.demoRun(ctx, dir, p, a.io.Stderr); err != nil {
		return err
	}
	if err := runSub("report", slug, "--html"); err != nil {
		return err
	}
	return a.demoSummary(root, slug, p, spec)
}

// asInvoked returns s with each command line in it that starts with
// "moot " calling moot as it was called (./moot when the user ran
// ./moot), so that a hint can be pasted as it is.
func (a *app) asInvoked(s string) string {
	prog := a.progName()
	if prog == "moot" {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		j := strings.Index(s[i:], "moot ")
		if j < 0 {
			b.WriteString(s[i:])
			break
		}
		j += i
		b.WriteString(s[i:j])
		if (j == 0 || strings.ContainsRune(" '\"(`", rune(s[j-1]))) && j+5 < len(s) && s[j+5] >= 'a' && s[j+5] <= 'z' {
			b.WriteString(prog + " ")
		} else {
			b.WriteString("moot ")
		}
		i = j + 5
	}
	return b.String()
}

// progName is how the summary's commands call moot: as it was called,
// when that was by a path (./moot), else moot.
func (a *app) progName() string {
	if a.prog == "" || !strings.Contains(a.prog, "/") || strings.Contains(a.prog, "go-build") {
		return "moot"
	}
	return shellQuote(a.prog)
}

// freeSlug returns base, or else base-2, base-3, ..., the first that
// names nothing under root.
func freeSlug(root, base string) (string, error) {
	for n := 1; n < 1000; n++ {
		slug := base
		if n > 1 {
			slug = base + "-" + strconv.Itoa(n)
		}
		_, err := os.Lstat(filepath.Join(root, slug))
		if errors.Is(err, fs.ErrNotExist) {
			return slug, nil
		}
		if err != nil {
			return "", fmt.Errorf("demo: %w", err)
		}
	}
	return "", fmt.Errorf("demo: %s already holds %s to %s-999: remove some of them", root, base, base)
}

// demoRun runs the debate in dir to its end with the built-in model in
// every role, printing its events on w as run does.
func (a *app) demoRun(ctx context.Context, dir string, p sm.Protocol, w io.Writer) error {
	d, err := store.Open(dir)
	if err != nil {
		return err
	}
	if d, err = a.lock(ctx, d, "moot demo", 0); err != nil {
		return err
	}
	defer d.Close()
	roles := driver.RoleNames(p)
	o := driver.Overrides{Models: map[string]string{}}
	for _, r := range roles {
		o.Models[r] = builtin.Name
	}
	shown := &app{io: a.io}
	shown.io.Stderr = w
	deb, err := driver.LoadDebate(d, p)
	if err != nil {
		return err
	}
	prog := shown.newProgress(false, false, p, deb.Status().Unit)
	prog.closingAt(deb.Status())
	defer prog.stop()
	warn := func(msg string) {
		// That the roles' models are set to the built-in model goes
		// without saying here.
		if !strings.HasSuffix(msg, "(stored in debate.md)") {
			prog.warn(msg)
		}
	}
	opts := driver.Options{
		Client:       &modelRouter{noRemote: errors.New("the demo asks only moot's built-in model")},
		Overrides:    o,
		DefaultModel: builtin.Name,
		Repairs:      2,
		Now:          a.io.Now,
		Emit:         prog.event,
		Warn:         warn,
		Serial:       true,
	}
	if t, ok := p.(sm.Templated); ok {
		set, err := protocolTemplates(p.Name(), d, "")
		if err != nil {
			return err
		}
		p = t.WithTemplates(set)
	}
	_, err = driver.Advance(ctx, d, p, driver.UnitGoal{All: true}, opts)
	return demoFailed(err)
}

// demoFailed gives err, the failure of the demo's run, the exit code of a
// run's: 6 when a role gave no acceptable answer.
func demoFailed(err error) error {
	if len(roleErrors(err)) > 0 {
		return withCode(ExitModel, err, "the built-in model answers moot's own prompts: a debate's own templates can change them past what it recognises")
	}
	return err
}

// demoSummary says where the demo debate is, what to look at and what to
// run next with a real model.
func (a *app) demoSummary(root, slug string, p sm.Protocol, spec sm.Demo) error {
	dir := filepath.Join(root, slug)
	// moot is the command line of moot with the demo's root.
	moot := a.progName()
	if root != "debates" {
		moot += " --dir " + shellQuote(root)
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	var files []string
	for _, e := range entries {
		if n := e.Name(); !strings.HasPrefix(n, ".") {
			if e.IsDir() {
				n += "/"
			}
			files = append(files, n)
		}
	}
	w := a.io.Stdout
	fmt.Fprintf(w, "\nThe demo debate is in %s: a %s debate run to its end. Every word of it was written by moot's scripted\n", dir, p.Name())
	fmt.Fprintf(w, "built-in model, not by a language model, and the demo writes the same files every time.\n\n")
	table := func(rows [][2]string) {
		width := 0
		for _, r := range rows {
			width = max(width, len(r[0]))
		}
		for _, r := range rows {
			fmt.Fprintf(w, "  %-*s  %s\n", width, r[0], r[1])
		}
	}
	look := [][2]string{
		{filepath.Join(dir, "README.md"), "the report; " + filepath.Join(dir, "report.html") + " is the same as one web page"},
		{filepath.Join(dir, sm.StateFile), "the motion, where the debate stands and the models of its roles"},
	}
	if spec.Parts != "" && slices.Contains(files, spec.Parts) {
		look = append(look, [2]string{filepath.Join(dir, spec.Parts) + "/", spec.PartsAre})
	}
	look = append(look,
		[2]string{filepath.Join(dir, ".moot", "usage.jsonl"), "every model call, with its tokens (estimates: the built-in model has no tokenizer)"},
		[2]string{filepath.Join(dir, ".moot", "failed") + "/", "an answer that broke a rule, as it was sent back for repair"})
	fmt.Fprintf(w, "Look at:\n")
	table(look)
	fmt.Fprintf(w, "  and all its files: %s\n", strings.Join(files, " "))
	fmt.Fprintf(w, "Ask moot:\n")
	table([][2]string{
		{moot + " show " + slug, "every part of the debate, a line each"},
		{moot + " status " + slug, "where it stands, and who wrote its text"},
	})
	fmt.Fprintln(w)

	steps := "steps"
	if s, err := freeSlug(root, "steps"); err == nil {
		steps = s
	}
	sd := shellQuote(filepath.Join(root, steps))
	newArgs := ""
	if !isDefault(p) {
		newArgs = " --protocol " + p.Name()
	}
	fmt.Fprintf(w, "A debate is a plain folder of text files, and every step of moot rewrites some of them. To see one step\n")
	fmt.Fprintf(w, "as a git diff, put a debate under git and take a step:\n")
	fmt.Fprintf(w, "  %s new %s%s --motion 'Tea is better than coffee.'\n", moot, steps, newArgs)
	fmt.Fprintf(w, "  git -C %s init -q && git -C %s add -A\n", sd, sd)
	fmt.Fprintf(w, "  %s step %s --model %s\n", moot, steps, builtin.Name)
	fmt.Fprintf(w, "  git -C %s add -N . && git -C %s diff\n\n", sd, sd)

	fmt.Fprintf(w, "Next, with a real model (OpenAI here; OpenRouter, Ollama, vLLM and llama.cpp work too: see the README):\n")
	fmt.Fprintf(w, "  export OPENAI_API_KEY=sk-...\n")
	end := ""
	if len(spec.End) > 0 {
		end = " " + strings.Join(spec.End, " ")
	}
	fmt.Fprintf(w, "  %s new my-debate%s --motion 'This house would ...'%s\n", moot, newArgs, end)
	fmt.Fprintf(w, "  %s run my-debate --all --model gpt-4o-mini\n", moot)
	fmt.Fprintf(w, "  %s report my-debate --html\n", moot)
	return nil
}
