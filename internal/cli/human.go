package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"

	ucli "github.com/urfave/cli/v3"

	"github.com/moot-dev/moot/internal/driver"
	"github.com/moot-dev/moot/internal/english"
	"github.com/moot-dev/moot/internal/human"
	"github.com/moot-dev/moot/internal/model"
	sm "github.com/moot-dev/moot/statemachine"
	"github.com/moot-dev/moot/store"
)

// ExitPerson is the exit code of a run that stopped for a person's
// answer (--human): the debate waits for it in its state.
const ExitPerson = 8

// humanFlag is run's and step's --human.
func humanFlag() ucli.Flag {
	return &ucli.StringSliceFlag{Name: "human", Usage: "a person plays `ROLE` (or a group of roles), answering in an editor or with 'moot answer' (repeatable)"}
}

// humanRoles returns the roles the --human flags of cmd name in protocol
// p, refusing a name that is not one of its roles or groups.
func humanRoles(cmd *ucli.Command, p sm.Protocol) (map[string]bool, error) {
	targets := roleTargets(p)
	out := map[string]bool{}
	for _, name := range cmd.StringSlice("human") {
		t, ok := targets[name]
		if !ok {
			return nil, badUsage(fmt.Errorf("--human %s: a %s debate has no role %s (its roles: %s)", name, p.Name(), name, strings.Join(driver.RoleNames(p), ", ")),
				"'moot protocols' lists each protocol's roles")
		}
		for _, r := range t.roles {
			out[r] = true
		}
	}
	return out, nil
}

// setPerson makes a.person the person of run --human on d, or nil without
// the flag.
func (a *app) setPerson(cmd *ucli.Command, d *store.Dir, p sm.Protocol) error {
	a.person = nil
	roles, err := humanRoles(cmd, p)
	if err != nil || len(roles) == 0 {
		return err
	}
	command, why := human.EditorCommand(a.io.Getenv, a.io.Stdin)
	out := a.io.Stdout
	if cmd.Bool("json") {
		out = a.io.Stderr
	}
	a.person = &human.Editor{Roles: roles, Dir: d, Command: command, NoEditor: why,
		Stdin: a.io.Stdin, Stdout: out, Stderr: a.io.Stderr, Title: d.Path()}
	return nil
}

// personHints are the hints of a run stopped for a person's answer. They
// name the call in full, so that the answer handed in as hinted is taken
// for that call only, never for a later one.
func personHints(e *driver.AwaitingPerson) []string {
	deb := shellQuote(e.Debate)
	call := ""
	switch {
	case e.Name != "":
		call = " --call " + shellQuote(e.Name)
	case e.Call != "" && e.Call != e.Role:
		call = " --call " + shellQuote(e.Call)
	}
	return []string{
		"the debate waits in its state, for days if need be; answers other roles gave are kept",
		fmt.Sprintf("fill in the form in %s and hand it in: moot answer %s %s FILE%s", e.Draft, deb, e.Role, call),
		fmt.Sprintf("'moot form %s %s%s' prints the form; then 'moot run %s' carries on", deb, e.Role, call, deb),
	}
}

// personRole returns the role of p called name (or by an alias).
func personRole(p sm.Protocol, name string) (string, error) {
	for _, r := range p.Roles() {
		if r.Name == name || slices.Contains(r.Aliases, name) {
			return r.Name, nil
		}
	}
	return "", badUsage(fmt.Errorf("a %s debate has no role %s (its roles: %s)", p.Name(), name, strings.Join(driver.RoleNames(p), ", ")),
		"'moot protocols' lists each protocol's roles")
}

// personProtocol returns the protocol of d that builds its steps: for one
// whose prompts come from templates, with those a run would use.
func (a *app) personProtocol(cmd *ucli.Command, d *store.Dir) (sm.Protocol, error) {
	p, err := a.protocolOf(d)
	if err != nil {
		return p, err
	}
	return withTemplates(cmd, d, p)
}

// waitingCall returns the call of the step d waits for that role answers:
// the one --call names (by its id in the step or its full name), else the
// only one, else the only one without an answer kept.
func waitingCall(cmd *ucli.Command, d *store.Dir, p sm.Protocol, role string) (driver.Waiting, error) {
	ws, err := driver.Waits(d, p, role)
	if err != nil {
		return driver.Waiting{}, err
	}
	return pickCall(cmd, d, p, role, ws)
}

// pickCall is waitingCall with the calls ws the role is waited for.
func pickCall(cmd *ucli.Command, d *store.Dir, p sm.Protocol, role string, ws []driver.Waiting) (driver.Waiting, error) {
	if id := cmd.String("call"); strings.Contains(id, "/") {
		if w, ok := openCall(ws, id); ok {
			return w, nil
		}
		return driver.Waiting{}, notOpen(id, role, ws)
	}
	if len(ws) == 0 {
		msg := fmt.Sprintf("%s waits for no answer of the %s", d.Path(), role)
		hint := "'moot status' says what it waits for"
		if deb, err := driver.ReadDebate(d, p); err == nil {
			st := deb.Status()
			if st.Complete {
				msg = fmt.Sprintf("%s is complete: it waits for no answer", d.Path())
			} else if st.Next != "" {
				hint = "next: " + st.Next
			}
		}
		return driver.Waiting{}, withCode(ExitRefused, errors.New(msg), hint)
	}
	if id := cmd.String("call"); id != "" {
		var ids []string
		for _, w := range ws {
			if w.Call.ID == id {
				return w, nil
			}
			ids = append(ids, w.Call.ID)
		}
		return driver.Waiting{}, badUsage(fmt.Errorf("--call %s: the %s's calls of this step are %s", id, role, strings.Join(ids, ", ")))
	}
	if len(ws) == 1 {
		return ws[0], nil
	}
	var open []driver.Waiting
	var ids []string
	for _, w := range ws {
		ids = append(ids, w.Call.ID)
		if !w.Kept {
			open = append(open, w)
		}
	}
	if len(open) == 1 {
		return open[0], nil
	}
	return driver.Waiting{}, badUsage(fmt.Errorf("the step asks the %s %d times: name the call with --call (%s)", role, len(ws), strings.Join(ids, ", ")))
}

// openCall returns the call of ws whose full name is name.
func openCall(ws []driver.Waiting, name string) (driver.Waiting, bool) {
	for _, w := range ws {
		if driver.CallName(w.Step, w.Call) == name {
			return w, true
		}
	}
	return driver.Waiting{}, false
}

// notOpen is the error of a call named that the debate does not wait
// for: a call already taken, or one not asked yet.
func notOpen(name, role string, ws []driver.Waiting) error {
	return withCode(ExitRefused, fmt.Errorf("call %s is not open: it is already taken, or not asked yet", name), nowOpen(role, ws))
}

// nowOpen says which calls of role are open, for a hint.
func nowOpen(role string, ws []driver.Waiting) string {
	if len(ws) == 0 {
		return fmt.Sprintf("nothing changed; the debate waits for no answer of the %s now", role)
	}
	names := make([]string, len(ws))
	for i, w := range ws {
		names[i] = driver.CallName(w.Step, w.Call)
	}
	verb := "call is"
	if len(names) > 1 {
		verb = "calls are"
	}
	return fmt.Sprintf("nothing changed; the %s's open %s %s ('moot form' prints the form)", role, verb, english.List(names, "and"))
}

// answerCall returns the call of the step d waits for that the file data,
// handed in for role, answers, or done when the file is the answer a
// call already took (said on stderr: nothing is to be done). A call the
// file names, by --call or in its form, is that call, or refused when it
// is not open; a file that names none and that the person gave before is
// for the call it was given to; any other file is for the call
// waitingCall finds.
func (a *app) answerCall(cmd *ucli.Command, d *store.Dir, p sm.Protocol, role, file string, data []byte) (w driver.Waiting, done bool, err error) {
	given, err := driver.GivenBy(d, role)
	if err != nil {
		return w, false, err
	}
	ws, err := driver.Waits(d, p, role)
	if err != nil {
		return w, false, err
	}
	flag, form := cmd.String("call"), human.CallOf(data)
	name := form
	switch {
	case form != "" && flag != "" && flag != form && !strings.HasSuffix(form, "/"+flag):
		return w, false, withCode(ExitRefused, fmt.Errorf("%s: the form is for call %s, not --call %s", file, form, flag), "nothing changed")
	case form == "" && strings.Contains(flag, "/"):
		name = flag
	}
	taken := func(g driver.Given) (driver.Waiting, bool, error) {
		fmt.Fprintf(a.io.Stderr, "moot: %s: the %s's answer was already taken by call %s; nothing changed\n", file, role, g.Call)
		if len(ws) > 0 {
			fmt.Fprintf(a.io.Stderr, "moot: hint: %s\n", nowOpen(role, ws))
		}
		return driver.Waiting{}, true, nil
	}
	if name != "" {
		if w, ok := openCall(ws, name); ok {
			return w, false, nil
		}
		g, ok := driver.GivenFor(given, name)
		if ok && g.Holds(data) {
			return taken(g)
		}
		if ok {
			return w, false, withCode(ExitRefused, fmt.Errorf("%s: call %s is already taken: the answer it took stands", file, name), nowOpen(role, ws))
		}
		for _, r := range p.Roles() {
			if other, err := driver.Waits(d, p, r.Name); err == nil && r.Name != role {
				if _, ok := openCall(other, name); ok {
					return w, false, withCode(ExitRefused, fmt.Errorf("%s: call %s is the %s's, not the %s's", file, name, r.Name, role), nowOpen(role, ws))
				}
			}
		}
		return w, false, withCode(ExitRefused, fmt.Errorf("%s: call %s is not open: it is already taken, or not asked yet", file, name), nowOpen(role, ws))
	}
	if g, ok := driver.GivenAs(given, data); ok && (flag == "" || strings.HasSuffix(g.Call, "/"+flag)) {
		if w, ok := openCall(ws, g.Call); ok {
			return w, false, nil
		}
		if last, _ := driver.GivenFor(given, g.Call); !last.Holds(data) {
			// Given to the call, then replaced by another answer before
			// the call was taken: the call took that one.
			return w, false, withCode(ExitRefused, fmt.Errorf("%s: the %s gave this answer to call %s, which is already taken with another answer", file, role, g.Call), nowOpen(role, ws))
		}
		return taken(g)
	}
	w, err = pickCall(cmd, d, p, role, ws)
	return w, false, err
}

// personCall finds, for form and answer, d's protocol, the role the command names (its
// second argument) in d's protocol and the call of the step d waits for
// that the person answers.
func (a *app) personCall(cmd *ucli.Command, d *store.Dir) (sm.Protocol, string, driver.Waiting, error) {
	p, err := a.personProtocol(cmd, d)
	if err != nil {
		return nil, "", driver.Waiting{}, err
	}
	role, err := personRole(p, cmd.Args().Get(1))
	if err != nil {
		return nil, "", driver.Waiting{}, err
	}
	w, err := waitingCall(cmd, d, p, role)
	return p, role, w, err
}

func personFlags() []ucli.Flag {
	return []ucli.Flag{
		&ucli.StringFlag{Name: "call", Usage: "the call `ID` the answer is for: its full name KEY/ID, as the form and the hints give it, or its id in the step the debate waits for (needed when the step asks the role more than once, as panel's personas)"},
		&ucli.StringFlag{Name: "templates", Usage: "prompt templates from `DIR`, as given to run"},
	}
}

func (a *app) formCommand() *ucli.Command {
	return &ucli.Command{
		Name:         "form",
		Usage:        "print the answer form a person fills in for ROLE, with what the role sees, for the step the debate waits for",
		ArgsUsage:    "<debate> ROLE",
		Flags:        personFlags(),
		OnUsageError: usageOnError,
		Action: func(ctx context.Context, cmd *ucli.Command) error {
			if cmd.Args().Len() != 2 {
				return usageError("form takes a debate and a role")
			}
			d, err := openDebate(cmd)
			if err != nil {
				return err
			}
			defer d.Close()
			_, role, w, err := a.personCall(cmd, d)
			if err != nil {
				return err
			}
			form, err := human.Form(w.Call)
			if err != nil {
				return err
			}
			name := driver.CallName(w.Step, w.Call)
			if kept, ok := driver.Kept(d, w.Step, w.Call); ok {
				// The form shows the answer kept, to be changed and
				// handed in again, or left as it is.
				if filled, err := human.Fill(w.Call, kept); err == nil {
					form = filled
				}
				fmt.Fprintf(a.io.Stderr, "moot: note: the %s's answer is kept already (filled in below); 'moot answer' replaces it, 'moot run' commits it\n", role)
			}
			title := fmt.Sprintf("the %s's answer in %s, call %s", role, d.Path(), name)
			_, err = fmt.Fprint(a.io.Stdout, human.Draft(title, w.Call, nil, human.Named(form, name)))
			return err
		},
	}
}

func (a *app) answerCommand() *ucli.Command {
	return &ucli.Command{
		Name:  "answer",
		Usage: "hand in ROLE's answer for the step the debate waits for: a filled form (moot form) or the JSON a model would give",
		Description: "The answer goes through the validation a model's does; refused, nothing changes. Accepted, it is kept as the role's\n" +
			"answer, marked as a person's, and the step is committed at once when every call of it has an answer; otherwise\n" +
			"'moot run' commits it with the other roles' answers. An answer is for one call (the form names it; --call KEY/ID\n" +
			"names it for any file): handed in again once the call is taken, it is reported as taken (exit 0) and never used\n" +
			"for a later call; another answer for a call taken is refused (exit 3).",
		ArgsUsage:    "<debate> ROLE FILE",
		Flags:        append(personFlags(), waitFlag()),
		OnUsageError: usageOnError,
		Action: func(ctx context.Context, cmd *ucli.Command) error {
			if cmd.Args().Len() != 3 {
				return usageError("answer takes a debate, a role and a file")
			}
			file := cmd.Args().Get(2)
			data, err := readPersonFile(file)
			if err != nil {
				return err
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
			role, err := personRole(p, cmd.Args().Get(1))
			if err != nil {
				return err
			}
			w, done, err := a.answerCall(cmd, d, p, role, file, data)
			if err != nil || done {
				return err
			}
			answer, kind, err := human.Read(w.Call, data)
			if err != nil {
				var fe *human.FormError
				if errors.As(err, &fe) {
					return withCode(ExitRefused, fmt.Errorf("%s: %w", file, err), "nothing changed; 'moot form' prints a blank form")
				}
				return fmt.Errorf("%s: %w", file, err)
			}
			rep, err := driver.HandIn(d, w.Step, w.Call, answer, data)
			if err != nil {
				return err
			}
			if !rep.OK() {
				what := "answer"
				if kind == human.KindForm {
					what = "answer in the form"
				}
				return withCode(ExitRefused, fmt.Errorf("%s: the %s's %s breaks the rules:\n  %s", file, role, what, strings.Join(rep.Errors, "\n  ")),
					"nothing changed; put the answer right and hand it in again")
			}
			for _, warn := range rep.Warnings {
				fmt.Fprintf(a.io.Stderr, "moot: warning: %s\n", warn)
			}
			if !driver.Answered(d, w.Step) {
				fmt.Fprintf(a.io.Stderr, "moot: the %s's answer is accepted and kept for call %s; 'moot run %s' asks the other roles and commits the step\n",
					role, driver.CallName(w.Step, w.Call), shellQuote(d.Path()))
				return nil
			}
			return a.commitAnswered(ctx, cmd, d, p)
		},
	}
}

// readPersonFile reads the file a person hands in, up to four times the
// size of an answer (a form may hold the prompt too). What is not a
// regular file (a named pipe, a folder, a device) is an error in the
// command line, refused before it is opened.
func readPersonFile(path string) ([]byte, error) {
	data, err := store.ReadInput(path, 4*MaxAnswerSize)
	if err != nil {
		var se *store.SizeError
		if errors.As(err, &se) {
			return nil, withCode(ExitRefused, fmt.Errorf("read %s: %w", path, err))
		}
		if errors.Is(err, store.ErrNotRegular) {
			return nil, badUsage(fmt.Errorf("read %s: %w", path, err), "hand in the answer as a regular file")
		}
		if errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("read %s: no such file", path)
		}
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	return data, nil
}

// commitAnswered commits the step d waits for, every call of which has an
// answer kept: it asks no model.
func (a *app) commitAnswered(ctx context.Context, cmd *ucli.Command, d *store.Dir, p sm.Protocol) error {
	deb, err := driver.LoadDebate(d, p)
	if err != nil {
		return err
	}
	unit := deb.Status().Unit
	prog := a.newProgress(false, false, p, unit)
	opts := driver.Options{
		Client:       noModel{},
		DefaultModel: defaultModel(a.io.Getenv),
		Now:          a.io.Now,
		Emit:         prog.event,
		Warn:         prog.warn,
	}
	_, err = driver.Advance(ctx, d, p, driver.UnitGoal{Steps: 1}, opts)
	prog.stop()
	if err != nil {
		return err
	}
	deb, err = driver.LoadDebate(d, p)
	if err != nil {
		return err
	}
	st := deb.Status()
	if st.Complete {
		fmt.Fprintf(a.io.Stderr, "moot: the step is committed; %s is complete\n", d.Path())
	} else {
		fmt.Fprintf(a.io.Stderr, "moot: the step is committed; next: %s\n", st.Next)
	}
	return nil
}

// noModel is the client of a commit that needs no model: every call has
// an answer kept.
type noModel struct{}

func (noModel) Complete(context.Context, model.Request) (model.Response, error) {
	return model.Response{}, errors.New("moot answer asks no model")
}

// peopleLine says which roles of the debate at dir a person played, for
// status: "" when none did, or the debate cannot say.
func peopleLine(dir string, unit string) string {
	d, err := store.Open(dir)
	if err != nil {
		return ""
	}
	defer d.Close()
	people, err := driver.People(d)
	if err != nil || len(people) == 0 {
		return ""
	}
	roles := make([]string, 0, len(people))
	for r := range people {
		roles = append(roles, r)
	}
	slices.Sort(roles)
	parts := make([]string, len(roles))
	for i, r := range roles {
		units := make([]string, len(people[r]))
		for j, u := range people[r] {
			units[j] = fmt.Sprint(u)
		}
		word := unit
		if len(units) > 1 {
			word += "s"
		}
		parts[i] = fmt.Sprintf("%s played by a person (%s %s)", visible(r, false), word, strings.Join(units, ", "))
	}
	return "people    " + strings.Join(parts, "; ") + "\n"
}

// peopleSection is the report's section on the roles a person played in
// the debate in d, in markdown; "" when none did.
func peopleSection(d *store.Dir, unit string) string {
	people, err := driver.People(d)
	if err != nil || len(people) == 0 {
		return ""
	}
	roles := make([]string, 0, len(people))
	for r := range people {
		roles = append(roles, r)
	}
	slices.Sort(roles)
	var b strings.Builder
	b.WriteString("## Played by a person\n\n")
	for _, r := range roles {
		units := make([]string, len(people[r]))
		for j, u := range people[r] {
			units[j] = fmt.Sprint(u)
		}
		word := unit
		if len(units) > 1 {
			word += "s"
		}
		fmt.Fprintf(&b, "- The %s was played by a person in %s %s; its answers there are marked with the model `%s`.\n", r, word, strings.Join(units, ", "), driver.PersonModel)
	}
	return b.String()
}
