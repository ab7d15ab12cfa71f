package driver

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"
	"slices"
	"sort"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/moot-dev/moot/internal/english"
	"github.com/moot-dev/moot/internal/evidence"
	"github.com/moot-dev/moot/internal/frontmatter"
	"github.com/moot-dev/moot/internal/model"
	sm "github.com/moot-dev/moot/statemachine"
	"github.com/moot-dev/moot/store"
)

// ProtocolOf returns the protocol named by a state file's frontmatter: its
// "protocol" key, or the default (dialectic) when it has none.
func ProtocolOf(state []byte) (string, error) {
	front, _, err := frontmatter.Parse(state)
	if err != nil {
		return "", fmt.Errorf("read %s: %w", sm.StateFile, err)
	}
	raw, ok := front.Get(sm.ProtocolKey)
	if !ok {
		return sm.Default, nil
	}
	var name string
	if err := json.Unmarshal(raw, &name); err != nil || name == "" {
		return "", fmt.Errorf("read %s: field %q: want the name of a protocol, found %s", sm.StateFile, sm.ProtocolKey, raw)
	}
	return name, nil
}

// Protocol returns the protocol of the debate in d, out of known.
func Protocol(d *store.Dir, known sm.Protocols) (sm.Protocol, error) {
	data, err := d.ReadFile(sm.StateFile)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", sm.StateFile, err)
	}
	name, err := ProtocolOf(data)
	if err != nil {
		return nil, err
	}
	return known.Lookup(name)
}

// CreateDebate makes a new debate of protocol p at dir and returns it
// locked for writing, as Create does for dialectic.
func CreateDebate(dir string, p sm.Protocol, in sm.NewInput) (*store.Dir, error) {
	files, err := p.New(in)
	if err != nil {
		var ie *sm.InputError
		if !errors.As(err, &ie) {
			err = &sm.InputError{Err: err}
		}
		return nil, err
	}
	var out []store.File
	var state *store.File
	for _, f := range files {
		if f.Name == sm.StateFile {
			state = &store.File{Name: f.Name, Data: f.Data}
			continue
		}
		out = append(out, store.File{Name: f.Name, Data: f.Data})
	}
	if state == nil {
		return nil, fmt.Errorf("protocol %s made no %s", p.Name(), sm.StateFile)
	}
	var folders []string
	if fm, ok := p.(sm.FolderMaker); ok {
		folders = fm.Folders()
	}
	d, err := store.Create(dir, folders, append(out, *state))
	if err != nil {
		return nil, err
	}
	if err := d.Lock(context.Background(), "moot new "+in.Slug, false); err != nil {
		d.Close()
		return nil, err
	}
	return d, nil
}

// LoadDebate reads the debate in d with protocol p, as one commit left
// its files. A writer (d locked) is refused a debate with problems.
func LoadDebate(d *store.Dir, p sm.Protocol) (sm.Debate, error) {
	return loadDebate(d, p, debateFS{d})
}

// loadDebate is LoadDebate, reading the files through files, which shows
// those of d.
func loadDebate(d *store.Dir, p sm.Protocol, files fs.FS) (sm.Debate, error) {
	deb, err := readDebate(d, p, files)
	if err != nil {
		return nil, err
	}
	if d.Locked() {
		return checked(deb)
	}
	return deb, nil
}

// checked returns deb, or the problems its check finds.
func checked(deb sm.Debate) (sm.Debate, error) {
	if f := deb.Check(); len(f.Problems) > 0 {
		return nil, &Broken{Problems: f.Problems}
	}
	return deb, nil
}

// ReadDebate reads the debate in d with protocol p, as one commit left its
// files, whatever its check says: for readers that report problems.
//
// An error of Load that is not one of reading (a permission, the disk) is
// a file of the debate that cannot be accepted as it is: it comes as a
// *BadFilesError.
func ReadDebate(d *store.Dir, p sm.Protocol) (sm.Debate, error) {
	return readDebate(d, p, debateFS{d})
}

// readDebate is ReadDebate, reading the files through files, which shows
// those of d.
func readDebate(d *store.Dir, p sm.Protocol, files fs.FS) (sm.Debate, error) {
	var deb sm.Debate
	err := d.Snapshot(func() error {
		var err error
		deb, err = p.Load(files)
		return err
	})
	if err != nil && !readFailure(err) {
		return deb, &BadFilesError{Err: err}
	}
	return deb, err
}

// BadFilesError is the error of a debate whose files cannot be accepted as
// they are: a file that is not a plain file of the debate, or one whose
// content its protocol cannot read. Like a debate that fails its check,
// it is a fault of the files, not of moot or the machine.
type BadFilesError struct{ Err error }

func (e *BadFilesError) Error() string { return e.Err.Error() }
func (e *BadFilesError) Unwrap() error { return e.Err }

// IsBadFiles reports whether err says that a debate's file cannot be
// accepted as it is: a *BadFilesError, or a file the store refuses to
// read (a link, not a regular file, one with other hard links, one over
// its size limit).
func IsBadFiles(err error) bool {
	var bad *BadFilesError
	var notRegular *store.NotRegularError
	var linked *store.LinkedError
	var size *store.SizeError
	switch {
	case errors.As(err, &bad), errors.As(err, &notRegular), errors.As(err, &linked):
		return true
	case errors.As(err, &size):
		return !size.Input
	}
	return false
}

// readFailure reports whether err is a failure to read rather than a fault
// of the files read: a permission, an error of the system other than a
// missing path, a busy debate, a cancelled command.
func readFailure(err error) bool {
	var errno syscall.Errno
	var busy *store.BusyError
	switch {
	case errors.Is(err, fs.ErrPermission), errors.As(err, &busy),
		errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return true
	case errors.As(err, &errno):
		return errno != syscall.ENOENT && errno != syscall.ENOTDIR && errno != syscall.EISDIR && errno != syscall.ELOOP
	}
	return false
}

// debateFS shows a debate's files, as the store reads them (confined,
// size-limited, a pending commit seen as made), as an fs.FS. moot's own
// folder, .moot, is not part of it.
type debateFS struct{ d *store.Dir }

func (f debateFS) Open(name string) (fs.File, error) {
	if !fs.ValidPath(name) || hidden(name) {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrNotExist}
	}
	if name == "." {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrInvalid}
	}
	data, err := f.d.ReadFile(name)
	if err != nil {
		return nil, err
	}
	return &memFile{name: path.Base(name), r: bytes.NewReader(data), size: int64(len(data))}, nil
}

func (f debateFS) ReadFile(name string) ([]byte, error) {
	if !fs.ValidPath(name) || hidden(name) {
		return nil, &fs.PathError{Op: "read", Path: name, Err: fs.ErrNotExist}
	}
	return f.d.ReadFile(name)
}

// ReadDir lists the entries of dir, sorted, as store's List does: a
// folder among them shows as a file, which fails to read.
func (f debateFS) ReadDir(dir string) ([]fs.DirEntry, error) {
	if !fs.ValidPath(dir) || hidden(dir) {
		return nil, &fs.PathError{Op: "readdir", Path: dir, Err: fs.ErrNotExist}
	}
	names, err := f.d.List(dir, "")
	if err != nil {
		return nil, err
	}
	sort.Strings(names)
	out := make([]fs.DirEntry, len(names))
	for i, n := range names {
		out[i] = fileEntry(n)
	}
	return out, nil
}

// Folders lists the folders directly in dir, sorted.
func (f debateFS) Folders(dir string) ([]string, error) {
	if !fs.ValidPath(dir) || hidden(dir) {
		return nil, nil
	}
	return f.d.Folders(dir)
}

func hidden(name string) bool {
	return name == store.PrivateDir || strings.HasPrefix(name, store.PrivateDir+"/")
}

type memFile struct {
	name string
	r    *bytes.Reader
	size int64
}

func (m *memFile) Stat() (fs.FileInfo, error) { return fileInfo{m.name, m.size}, nil }
func (m *memFile) Read(p []byte) (int, error) { return m.r.Read(p) }
func (m *memFile) Close() error               { return nil }

type fileInfo struct {
	name string
	size int64
}

func (i fileInfo) Name() string       { return i.name }
func (i fileInfo) Size() int64        { return i.size }
func (i fileInfo) Mode() fs.FileMode  { return 0o444 }
func (i fileInfo) ModTime() time.Time { return time.Time{} }
func (i fileInfo) IsDir() bool        { return false }
func (i fileInfo) Sys() any           { return nil }

type fileEntry string

func (e fileEntry) Name() string               { return string(e) }
func (e fileEntry) IsDir() bool                { return false }
func (e fileEntry) Type() fs.FileMode          { return 0 }
func (e fileEntry) Info() (fs.FileInfo, error) { return fileInfo{string(e), -1}, nil }

// UnitGoal says when Advance stops: after Steps steps when Steps > 0,
// when the debate is complete when All is set, else when Done units are
// complete.
type UnitGoal struct {
	Done  int
	Steps int
	All   bool
}

func (g UnitGoal) reached(st sm.Status, steps int) bool {
	switch {
	case st.Complete:
		return true
	case g.Steps > 0:
		return steps >= g.Steps
	case g.All:
		return false
	}
	return st.Done >= g.Done
}

// Advance runs the steps of the debate in d, of protocol p, until goal:
// for each, it asks the step's calls in parallel (reusing answers a run
// that was interrupted already had accepted), sends an answer that breaks
// a rule back to its model with the errors, applies the accepted answers
// and commits the result through the journal. It stops at the first
// failure, leaving the debate at the last step committed.
func Advance(ctx context.Context, d *store.Dir, p sm.Protocol, goal UnitGoal, opts Options) (Summary, error) {
	p = withJudgeContext(p, &opts.Overrides)
	// What each load reads is noted, so that the debate a step's commit
	// leaves can be read in memory before it is written (see onward).
	rec := &recorder{base: debateFS{d}}
	load := func() (sm.Debate, error) {
		rec.start()
		return loadDebate(d, p, rec)
	}
	return advanceWith(ctx, d, p, goal, opts, load, rec)
}

// Rejudge runs the re-judging rj of the debate in d, of protocol p, to
// its end: the same as Advance, with the steps of the debate's
// sm.Rejudger, which write only under the judge's folder.
func Rejudge(ctx context.Context, d *store.Dir, p sm.Protocol, rj sm.Rejudging, opts Options) (Summary, error) {
	// A re-judging writes only under its folder: the context is its own,
	// not stored in debate.md.
	p = withJudgeContext(p, &opts.Overrides)
	opts.Overrides.JudgeContext = ""
	return advance(ctx, d, p, UnitGoal{All: true}, opts, rejudging(d, p, rj))
}

// rejudging returns the loader of the debate in d, of protocol p, as the
// re-judging rj sees it.
func rejudging(d *store.Dir, p sm.Protocol, rj sm.Rejudging) func() (sm.Debate, error) {
	return func() (sm.Debate, error) {
		deb, err := LoadDebate(d, p)
		if err != nil {
			return nil, err
		}
		r, ok := deb.(sm.Rejudger)
		if !ok {
			return nil, fmt.Errorf("a %s debate cannot be judged again: its protocol has no judge", p.Name())
		}
		return r.Rejudge(rj)
	}
}

// withJudgeContext gives a protocol whose judge reads a debate in more
// than one way (an sm.JudgeContexter) the judge context of o, so that the
// run's first prompt already uses it; the step's commit then stores it in
// debate.md's settings. It fills in o the name of the protocol's default
// context, which the settings store as an absent field.
func withJudgeContext(p sm.Protocol, o *Overrides) sm.Protocol {
	jc, ok := p.(sm.JudgeContexter)
	if !ok {
		return p
	}
	if o.JudgeContextDefault == "" {
		o.JudgeContextDefault, _ = jc.ParseJudgeContext("")
	}
	if o.JudgeContext == "" {
		return p
	}
	return jc.WithJudgeContext(o.JudgeContext)
}

func advance(ctx context.Context, d *store.Dir, p sm.Protocol, goal UnitGoal, opts Options, load func() (sm.Debate, error)) (Summary, error) {
	return advanceWith(ctx, d, p, goal, opts, load, nil)
}

// advanceWith is advance, whose load notes what it reads in rec, when
// set, so that the steps after the one being committed are planned from
// memory (see onward).
func advanceWith(ctx context.Context, d *store.Dir, p sm.Protocol, goal UnitGoal, opts Options, load func() (sm.Debate, error), rec *recorder) (Summary, error) {
	start := time.Now()
	r := newRunner(d, opts)
	r.early.spec = speculation{ctx: ctx, goal: goal}
	r.listKept()
	if rec != nil {
		// Not checked: the files are those the last load read, checked,
		// with those the protocol's own steps wrote over them; and what
		// is planned from them is planned again in its turn.
		r.early.spec.load = p.Load
	}
	err := r.advance(ctx, p, goal, func() (sm.Debate, error) {
		deb, err := load()
		if err == nil {
			r.loaded(rec)
		}
		return deb, err
	})
	// The calls asked early for a step the run does not reach (it
	// stopped) end; what they kept waits for the next run.
	r.land(ctx)
	return r.finish(start), err
}

// advance runs the steps of the debate load returns until goal, for
// advance.
func (r *runner) advance(ctx context.Context, p sm.Protocol, goal UnitGoal, load func() (sm.Debate, error)) error {
	d, opts := r.d, r.opts
	r.script, _ = p.(sm.Scripted)
	if c, ok := p.(sm.SetupChecker); ok {
		if err := c.CheckSetup(); err != nil {
			return err
		}
	}
	deb, err := load()
	if err != nil {
		return err
	}
	stored, err := readSettings(d)
	if err != nil {
		return err
	}
	var changes []string
	r.settings, changes = stored.Merge(opts.Overrides, opts.DefaultModel, RoleNames(p))
	if err := r.startResearch(); err != nil {
		return err
	}
	r.unit = deb.Status().Unit
	for _, c := range changes {
		r.opts.Warn(c + " (stored in debate.md)")
	}
	for !goal.reached(deb.Status(), r.sum.Steps) {
		if err := ctx.Err(); err != nil {
			return err
		}
		step, err := deb.Next()
		if err != nil {
			return err
		}
		if step == nil {
			break
		}
		// Only the models this step will ask must be reachable: a step
		// whose calls a person or kept answers take needs no key.
		if mc, ok := opts.Client.(ModelChecker); ok {
			if err := mc.CheckModels(r.stepModels(step)); err != nil {
				return err
			}
		}
		if r.opts.BeforeStep != nil {
			if err := r.beforeStep(r.plan(step)); err != nil {
				return err
			}
		}
		cur := deb
		if err := r.take(ctx, step, func() { r.foresee(ctx, cur, goal) }); err != nil {
			return err
		}
		r.sum.Steps++
		if deb, err = load(); err != nil {
			return err
		}
		if st := deb.Status(); st.Complete {
			r.opts.Emit(Event{Time: r.opts.Now(), Kind: EventComplete, Exchange: step.Unit, Message: "the debate is complete"})
		}
	}
	return nil
}

// readSettings reads the settings kept in the state file of d.
func readSettings(d *store.Dir) (Settings, error) {
	data, err := d.ReadFile(sm.StateFile)
	if err != nil {
		return Settings{}, fmt.Errorf("read %s: %w", sm.StateFile, err)
	}
	front, _, err := frontmatter.Parse(data)
	if err != nil {
		return Settings{}, fmt.Errorf("read %s: %w", sm.StateFile, err)
	}
	panel, err := sm.PanelOf(front)
	if err != nil {
		return Settings{}, fmt.Errorf("read %s: %w", sm.StateFile, err)
	}
	s, err := LoadSettings(front)
	s.panel = panel
	return s, err
}

// take asks the calls of step, applies their answers and commits. Once
// the step's model calls are out, it calls asked, which may ask the calls
// of later steps early (see foresee).
func (r *runner) take(ctx context.Context, step *sm.Step, asked func()) error {
	for _, e := range step.Begins {
		r.opts.Emit(Event{Time: r.opts.Now(), Kind: e.Kind, Exchange: step.Unit, Role: e.Role, ID: e.ID, Title: e.Title, Message: e.Message, Extra: e.Data, Begins: true})
	}
	answers := make(map[string]sm.Answer, len(step.Calls))
	errs := make([]error, len(step.Calls))
	var mu sync.Mutex
	var wg sync.WaitGroup
	for i, c := range step.Calls {
		if r.byPerson(c) {
			continue // asked after the models, below
		}
		out := r.flying(step, c)
		ask := func() {
			defer out()
			a, err := r.answer(ctx, step, c)
			mu.Lock()
			defer mu.Unlock()
			answers[c.ID], errs[i] = a, err
		}
		if r.opts.Serial {
			ask()
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			ask()
		}()
	}
	if asked != nil && !r.opts.Serial {
		asked()
	}
	wg.Wait()
	// A person is asked once the models have answered, one role at a
	// time, so that nothing else writes to the terminal meanwhile.
	for i, c := range step.Calls {
		if errors.Join(errs...) != nil || !r.byPerson(c) {
			continue
		}
		answers[c.ID], errs[i] = r.call(ctx, step, c)
	}
	if err := errors.Join(errs...); err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return err
	}
	var sources []store.File
	if r.research != nil {
		// Placed before Apply: each page read gets the copy its checks
		// name, a later version of a page a copy of its own.
		var err error
		if sources, err = r.sourceFiles(step, answers); err != nil {
			return err
		}
	}
	r.applying()
	commit, err := step.Apply(answers, r.opts.Now())
	if err != nil {
		var refused *sm.Refused
		if errors.As(err, &refused) {
			// The answers passed one by one but not together: ask anew
			// next time rather than refuse the same ones for ever.
			r.forget(step)
			if re := allMissing(step, answers, refused, r.unit); re != nil {
				return re
			}
		}
		return err
	}
	people := r.withPeople(step, answers)
	files, err := r.commitFiles(step, answers, commit)
	if err != nil {
		return err
	}
	// The pages read go first: the state file stays last.
	files = append(sources, files...)
	// What the commit leaves may be asked for already.
	r.committing(step, files)
	if err := r.d.Commit(files); err != nil {
		return err
	}
	if r.opts.committed != nil {
		if err := r.opts.committed(step); err != nil {
			return err
		}
	}
	r.mu.Lock()
	r.settings.People = people
	r.mu.Unlock()
	r.sum.Warnings = append(r.sum.Warnings, commit.Warnings...)
	for _, e := range commit.Events {
		ev := Event{Time: r.opts.Now(), Kind: e.Kind, Exchange: step.Unit, Role: e.Role, ID: e.ID, Title: e.Title, Score: e.Score, Message: e.Message, Extra: e.Data, Ends: e.Ends}
		if e.Ends {
			r.mu.Lock()
			if sp := r.spent[step.Unit]; sp != nil {
				ev.Calls, ev.Seconds, ev.Tokens = sp.Calls, sp.Seconds, sp.Tokens
			}
			delete(r.spent, step.Unit)
			r.mu.Unlock()
		}
		r.opts.Emit(ev)
	}
	r.forget(step)
	return nil
}

// commitFiles returns the files of commit, the commit of step with
// answers: its own, the state file with the run's settings in it.
func (r *runner) commitFiles(step *sm.Step, answers map[string]sm.Answer, commit *sm.Commit) ([]store.File, error) {
	people := r.withPeople(step, answers)
	files := make([]store.File, len(commit.Files))
	for i, f := range commit.Files {
		data := f.Data
		if f.Name == sm.StateFile {
			var err error
			if data, err = r.withSettings(data, people); err != nil {
				return nil, err
			}
		}
		files[i] = store.File{Name: f.Name, Data: data}
	}
	return files, nil
}

// allMissing is the error of a step whose every call was recorded as
// missing (--keep-going) and which refused to go on without them, such as
// the judgment of a dialectic exchange none of whose panel's judges
// answered: the role's failure, which --keep-going cannot skip. It is nil
// when some call was answered.
func allMissing(step *sm.Step, answers map[string]sm.Answer, refused *sm.Refused, unit string) *RoleError {
	var models []string
	for _, c := range step.Calls {
		a, ok := answers[c.ID]
		if !ok || a.Missing == nil {
			return nil
		}
		if c.Model != "" && !slices.Contains(models, c.Model) {
			models = append(models, c.Model)
		}
	}
	if len(step.Calls) == 0 {
		return nil
	}
	role := refused.Role
	if role == "" {
		role = step.Calls[0].Role
	}
	return &RoleError{Role: role, Model: strings.Join(models, ", "), Exchange: step.Unit, Unit: unit, Problems: refused.Reasons}
}

// forget removes what was kept for the calls of step.
func (r *runner) forget(step *sm.Step) {
	for _, c := range step.Calls {
		_ = r.d.RemovePrivate(keptName(step, c))
		_ = r.d.RemovePrivate(skippedName(step, c))
		_ = r.d.RemovePrivate(missingName(step, c))
		_ = r.d.RemovePrivate(repairsName(step, c))
		_ = r.d.RemovePrivate(metaName(step, c))
		if r.research != nil {
			_ = r.d.RemovePrivate(researchName(step, c))
		}
		_ = r.d.RemovePrivate(DraftName(step, c))
	}
}

// withSettings puts the settings in force into a state file about to be
// committed, under SettingsKey.
func (r *runner) withSettings(state []byte, people map[string][]int) ([]byte, error) {
	front, body, err := frontmatter.Parse(state)
	if err != nil {
		return nil, fmt.Errorf("render %s: %w", sm.StateFile, err)
	}
	r.mu.Lock()
	s := r.settings
	r.mu.Unlock()
	s.People = people
	if len(s.Temperature) == 0 {
		s.Temperature = nil
	}
	if len(s.MaxTokens) == 0 {
		s.MaxTokens = nil
	}
	raw, err := frontmatter.Marshal(s)
	if err != nil {
		return nil, err
	}
	front.Set(SettingsKey, raw)
	if _, ok := front.Get(sm.PanelKey); !ok && len(s.panel) > 0 {
		// The panel stays whether or not the protocol keeps keys it
		// does not know when it writes its state.
		if raw, err = frontmatter.Marshal(s.panel); err != nil {
			return nil, err
		}
		front.Set(sm.PanelKey, raw)
	}
	return frontmatter.Render(front, body)
}

// metaOf is what metaName holds for the answer resp to c, accepted
// after try repairs and elapsed seconds of its model's time.
func metaOf(c sm.Call, resp model.Response, try int, elapsed time.Duration) keptMeta {
	kept := keptMeta{Model: resp.Model, Attempts: try + 1, Elapsed: elapsed.Seconds(), Prompt: promptDigest(c)}
	if c.Schema != nil {
		kept.Mode = string(resp.Mode)
	}
	return kept
}

// keptName is where the accepted answer of call c waits for its step's
// commit, as the model gave it.
func keptName(step *sm.Step, c sm.Call) string {
	return "answers/" + step.Key + "-" + c.ID + ".json"
}

// metaName is where the model that gave a kept answer, and the requests
// it took, wait with it.
func metaName(step *sm.Step, c sm.Call) string {
	return "answers/" + step.Key + "-" + c.ID + ".meta"
}

// keptMeta is what metaName holds.
type keptMeta struct {
	Model    string  `json:"model"`
	Attempts int     `json:"attempts"`
	Elapsed  float64 `json:"seconds,omitempty"`
	// Mode is the structured output mode the answer came in, which the
	// run that asked for it would have stored with its step: the run
	// that commits the kept answer stores it instead.
	Mode string `json:"mode,omitempty"`
	// Prompt is the digest of the prompt answered (promptDigest): a call
	// asked ahead of its step may have been asked for another prompt
	// than its step has once it comes, and its answer is then dropped.
	Prompt string `json:"prompt,omitempty"`
}

// skippedName is where the reason a skippable call was skipped waits for
// its step's commit.
func skippedName(step *sm.Step, c sm.Call) string {
	return "answers/" + step.Key + "-" + c.ID + ".skipped"
}

// repairsName is where the answers of a call sent back for repair wait,
// with the errors they were sent back for, while the call goes on.
func repairsName(step *sm.Step, c sm.Call) string {
	return "answers/" + step.Key + "-" + c.ID + ".repairs"
}

// keptRepairs is what repairsName holds: the model asked and its refused
// answers so far.
type keptRepairs struct {
	Model    string          `json:"model"`
	Attempts []failedAttempt `json:"attempts"`
	// Prompt is the digest of the prompt asked, as in keptMeta.
	Prompt string `json:"prompt,omitempty"`
}

// keptRepairs returns the answers to c that an interrupted run had sent
// back for repair, when it asked model; none when it asked another.
func (r *runner) keptRepairs(step *sm.Step, c sm.Call, model string) []failedAttempt {
	raw, err := r.d.ReadPrivate(repairsName(step, c))
	if err != nil {
		return nil
	}
	var k keptRepairs
	if json.Unmarshal(raw, &k) != nil || k.Model != model || (k.Prompt != "" && k.Prompt != promptDigest(c)) {
		return nil
	}
	for _, at := range k.Attempts {
		if len(at.Errors) == 0 {
			return nil
		}
	}
	return k.Attempts
}

// missingName is where the record of a missable call that got no
// acceptable answer waits for its step's commit.
func missingName(step *sm.Step, c sm.Call) string {
	return "answers/" + step.Key + "-" + c.ID + ".missing"
}

// missing records that c got no acceptable answer from model in a run
// with KeepGoing, its refused answers being attempts, and returns the
// answer that says so. The record is kept, with the model and the
// requests it took, until the step is committed.
func (r *runner) missing(step *sm.Step, c sm.Call, model string, tries int, elapsed time.Duration, attempts []failedAttempt, why string) sm.Answer {
	m := &sm.Missing{Call: step.Key + "/" + c.ID, Role: c.Role, Model: model, Note: sm.MissingNote}
	for _, at := range attempts {
		m.Answers = append(m.Answers, sm.MissingAnswer{Answer: at.Answer, Problems: at.Errors})
	}
	if meta, err := json.Marshal(keptMeta{Model: model, Attempts: tries, Elapsed: elapsed.Seconds(), Prompt: promptDigest(c)}); err == nil {
		r.keep(metaName(step, c), c.Role, meta)
	}
	if data, err := json.Marshal(m); err == nil {
		r.keep(missingName(step, c), c.Role, data)
	}
	r.opts.Warn(fmt.Sprintf("%s %d: %s; recorded as missing (--keep-going), no value invented", cmp.Or(r.unit, "exchange"), step.Unit, why))
	return sm.Answer{Missing: m, Model: model, Attempts: tries, Elapsed: elapsed}
}

// keptMissing returns the record of c kept as missing by a run that was
// interrupted, with the model and requests kept with it.
func (r *runner) keptMissing(step *sm.Step, c sm.Call) (sm.Answer, bool) {
	raw, err := r.d.ReadPrivate(missingName(step, c))
	if err != nil {
		return sm.Answer{}, false
	}
	var m sm.Missing
	if json.Unmarshal(raw, &m) != nil || m.Call != step.Key+"/"+c.ID {
		return sm.Answer{}, false
	}
	a := sm.Answer{Missing: &m, Model: m.Model}
	var meta keptMeta
	if raw, err := r.d.ReadPrivate(metaName(step, c)); err == nil && json.Unmarshal(raw, &meta) == nil {
		a.Attempts = meta.Attempts
		a.Elapsed = time.Duration(meta.Elapsed * float64(time.Second))
	}
	return a, true
}

// call gets an acceptable answer to c: one kept from a run that was
// interrupted, or the model's, repaired in the same conversation up to
// Repairs times, or the call's own cap if it is lower.
func (r *runner) call(ctx context.Context, step *sm.Step, c sm.Call) (sm.Answer, error) {
	role := c.Role
	validate := validator(c)
	// Nothing is kept for a call the run has not asked and found nothing
	// kept for as it began: its kept files are not read.
	untouched := r.calling(step, c)
	if !r.opts.Fresh && !untouched && r.stale(step, c) {
		// Kept by a call asked ahead of its step for another prompt.
		r.forgetCall(step, c)
	}
	if !r.opts.Fresh && !untouched {
		if data, err := r.d.ReadPrivate(keptName(step, c)); err == nil {
			rep := validate(data)
			if !rep.OK() {
				r.opts.Warn(fmt.Sprintf("the kept answer %s/%s is refused (%s): the %s is asked anew",
					store.PrivateDir, keptName(step, c), strings.Join(rep.Errors, "; "), c.Role))
			}
			if rep.OK() {
				r.opts.Emit(Event{Time: r.opts.Now(), Kind: EventReused, Exchange: step.Unit, Role: c.Role, Message: "answer kept from an earlier run"})
				a := sm.Answer{Text: data, Attempts: 1}
				var meta keptMeta
				if raw, err := r.d.ReadPrivate(metaName(step, c)); err == nil && json.Unmarshal(raw, &meta) == nil {
					a.Model = meta.Model
					if meta.Attempts > 1 || len(c.Embed) > 0 || meta.Model == PersonModel {
						a.Attempts = meta.Attempts
					}
					a.Elapsed = time.Duration(meta.Elapsed * float64(time.Second))
					if m, err := model.ParseMode(meta.Mode); err == nil && m != "" && c.Schema != nil {
						r.mu.Lock()
						r.settings.ResponseFormat = string(m)
						r.mu.Unlock()
					}
				}
				return r.reuseResearch(step, c, a), nil
			}
		} else if !errors.Is(err, fs.ErrNotExist) {
			r.opts.Warn(fmt.Sprintf("cannot read a kept answer: %v", err))
		}
		if c.Missable && r.opts.KeepGoing {
			if a, ok := r.keptMissing(step, c); ok {
				r.opts.Emit(Event{Time: r.opts.Now(), Kind: EventReused, Exchange: step.Unit, Role: c.Role, Message: "recorded as missing in an earlier run"})
				return a, nil
			}
		}
		if c.Skippable {
			if why, err := r.d.ReadPrivate(skippedName(step, c)); err == nil && len(why) > 0 {
				r.opts.Emit(Event{Time: r.opts.Now(), Kind: EventReused, Exchange: step.Unit, Role: c.Role, Message: "skipped in an earlier run"})
				a := sm.Answer{Skipped: string(why)}
				// The model that failed, and the requests it took, are
				// kept with the reason, so that the step commits what an
				// uninterrupted run commits.
				var meta keptMeta
				if raw, err := r.d.ReadPrivate(metaName(step, c)); err == nil && json.Unmarshal(raw, &meta) == nil {
					a.Model, a.Attempts = meta.Model, meta.Attempts
				}
				return a, nil
			}
		}
	}
	if r.byPerson(c) {
		return r.askPerson(ctx, step, c, validate)
	}
	if len(c.Embed) > 0 {
		return r.embed(ctx, step, c)
	}
	rs := r.callSettings(c)
	r.mu.Lock()
	mode := model.Mode(r.settings.ResponseFormat)
	r.mu.Unlock()
	// who names the caller in the files of failed answers: the role, or
	// for a call on a model of its own (a panel's judge) the call, so
	// that two judges' failures never share a file.
	who := role
	if c.Model != "" {
		who = c.ID
	}
	if c.Schema == nil {
		// A call that asks for text is sent as text, whatever mode the
		// JSON calls of the debate have settled on.
		mode = ""
	}
	repairs := r.opts.Repairs
	if c.Repairs > 0 && c.Repairs < repairs {
		repairs = c.Repairs
	}
	msgs := make([]model.Message, 0, len(c.Messages)+2*repairs)
	for _, m := range c.Messages {
		msgs = append(msgs, model.Message{Role: m.Role, Content: m.Content})
	}
	sess, err := r.session(c, rs.Model)
	if err != nil {
		return sm.Answer{}, err
	}
	if sess != nil {
		msgs = withInstructions(msgs)
	}
	var marks []model.Breakpoint
	r.mu.Lock()
	cm, _ := ParseCacheMarks(r.settings.CacheMarks)
	r.mu.Unlock()
	if cm.For(rs.Model) {
		marks = breakpoints(c)
	}
	var transcript []model.Message
	var attempts []failedAttempt
	var elapsed time.Duration
	// streamed says whether the attempt under way has given chunks.
	streamed := false
	discard := func(why string) {
		if streamed {
			r.opts.Emit(Event{Time: r.opts.Now(), Kind: EventDiscard, Exchange: step.Unit, Role: c.Role, Message: why})
		}
		streamed = false
	}
	// repairMessage is the message that sends an answer refused for errs
	// back.
	repairMessage := func(errs []string) (sm.Message, error) {
		if c.Repair != nil {
			return c.Repair(errs)
		}
		return sm.Message{Role: "user", Content: "Your answer broke these rules:\n- " + strings.Join(errs, "\n- ") + "\nAnswer again in full, following every rule."}, nil
	}
	first := 0
	if sess == nil && !r.opts.Fresh && !untouched {
		// The answers an interrupted run had sent back for repair are
		// sent back again as they were, and the repairs go on from
		// there, so that none of them is asked for twice.
		if prior := r.keptRepairs(step, c, rs.Model); len(prior) > 0 && len(prior) <= repairs {
			for _, at := range prior {
				repair, err := repairMessage(at.Errors)
				if err != nil {
					return sm.Answer{}, err
				}
				msgs = append(msgs, model.Message{Role: "assistant", Content: at.Answer}, model.Message{Role: repair.Role, Content: repair.Content})
			}
			attempts, first = prior, len(prior)
		}
	}
	for try := first; try <= repairs; try++ {
		r.opts.Emit(Event{Time: r.opts.Now(), Kind: EventAsk, Exchange: step.Unit, Role: c.Role, Model: rs.Model})
		// The call is timed by the run's clock, so that a run on a fixed
		// clock (moot demo) records the same times every time.
		begin := r.opts.Now()
		// Chunks are emitted up to the last white space that has
		// arrived, the rest held back until more comes or the answer is
		// whole, so that a secret (which has no white space) is never
		// split across two events and is masked like any other.
		var onChunk func(string)
		var arrived strings.Builder
		sent := 0
		emitChunk := func(upTo int) {
			if upTo > sent {
				r.opts.Emit(Event{Time: r.opts.Now(), Kind: EventChunk, Exchange: step.Unit, Role: c.Role, Text: arrived.String()[sent:upTo]})
				sent = upTo
			}
		}
		if r.opts.Chunks {
			onChunk = func(text string) {
				streamed = true
				arrived.WriteString(text)
				emitChunk(strings.LastIndexAny(arrived.String(), " \t\r\n") + 1)
			}
		}
		// The text a model writes beside its tool calls is not its
		// answer: the live view drops it when the next round is asked.
		newRound := func() {
			discard("the model called tools; the text beside its calls is not its answer")
			arrived.Reset()
			sent = 0
		}
		resp, added, err := r.ask(ctx, step, c, sess, model.Request{
			Model: rs.Model, Messages: msgs, Temperature: rs.Temperature, MaxTokens: rs.MaxTokens,
			Mode: mode, SchemaName: c.SchemaName, Schema: c.Schema, Role: c.Role,
			Script: r.scriptFor(c, try > 0), Breakpoints: marks, OnChunk: onChunk,
			OnRetry: func(rt model.Retry) {
				discard("the attempt failed; its answer is asked for again")
				arrived.Reset()
				sent = 0
				r.opts.Emit(Event{Time: r.opts.Now(), Kind: EventRetry, Exchange: step.Unit, Role: c.Role, Model: rs.Model,
					Seconds: rt.Wait.Seconds(),
					Message: fmt.Sprintf("attempt %d of %d failed (%s); trying again in %.1f s", rt.Attempt, rt.Of, rt.Reason, rt.Wait.Seconds())})
			},
		}, newRound)
		if err == nil && r.opts.Chunks {
			emitChunk(arrived.Len())
		}
		resp.Latency = max(resp.Latency, r.opts.Now().Sub(begin))
		elapsed += resp.Latency
		if err == nil {
			if err = sm.CheckSize(c.Role, []byte(resp.Text)); err != nil {
				resp.Text = ""
			}
		}
		resp.Text, resp.Model = r.opts.Mask(resp.Text), r.opts.Mask(resp.Model)
		// What was sent: without the research instructions when the
		// endpoint takes no tools (ask took them out), then the rounds of
		// tool calls.
		asked := msgs[:len(msgs):len(msgs)]
		if sess != nil && !r.researches(c, rs.Model) {
			asked = withoutInstructions(msgs)
		}
		// An answer accepted at once is kept with the call's log, their
		// writes' syncs overlapping: the meta first, as below.
		var keepNow []store.PrivateWrite
		accepted := ""
		if err == nil && sess == nil && len(attempts) == 0 && validate([]byte(resp.Text)).OK() {
			if meta, merr := json.Marshal(metaOf(c, resp, try, elapsed)); merr == nil {
				keepNow = []store.PrivateWrite{{Name: metaName(step, c), Data: meta}, {Name: keptName(step, c), Data: []byte(resp.Text)}}
				// What reads it may be asked while it is kept, its
				// cost counted as spent (for --budget) meanwhile.
				if r.accept(step, c, sm.Answer{Text: []byte(resp.Text), Model: resp.Model, Attempts: try + 1, Elapsed: elapsed}, r.usageOf(step.Unit, role, rs.Model, resp, err)) {
					accepted = flightKey(step, c)
				}
			}
		}
		keptNow := r.logUsageThen(step.Unit, role, rs.Model, resp, err, &Transcript{Messages: entries(append(asked, added...))}, keepNow, accepted)
		if err != nil {
			discard("the attempt failed; nothing of it is kept")
			if ctx.Err() != nil {
				return sm.Answer{}, ctx.Err()
			}
			if c.Missable && r.opts.KeepGoing {
				// The model's failure, after its retries, is what was
				// wrong with the last answer.
				attempts = append(attempts, failedAttempt{Errors: []string{r.opts.Mask(err.Error())}})
				r.saveFailed(step.Unit, who, attempts)
				return r.missing(step, c, rs.Model, try+1, elapsed, attempts, fmt.Sprintf("the %s's model failed", c.Role)), nil
			}
			saved := r.saveFailed(step.Unit, who, attempts)
			return sm.Answer{}, &RoleError{Role: role, Model: c.Model, Exchange: step.Unit, Unit: r.unit, Err: maskedError{err, r.opts.Mask}, Saved: saved, Missable: c.Missable}
		}
		r.mu.Lock()
		if c.Schema != nil && resp.Mode != "" && string(resp.Mode) != r.settings.ResponseFormat {
			r.settings.ResponseFormat = string(resp.Mode)
			mode = resp.Mode
		}
		r.mu.Unlock()
		msgs = append(msgs, added...)
		transcript = append(transcript, added...)
		text := []byte(resp.Text)
		rep := validate(text)
		if resp.Truncated && !rep.OK() {
			rep.Errors = append(rep.Errors, "the answer was cut off at the token limit: answer more briefly")
		}
		if rep.OK() {
			// The answers sent back for repair are kept, as those of a
			// role that failed are, so that a person can see what the
			// model first said.
			r.saveFailed(step.Unit, who, attempts)
			// Written first: a kept answer found without it took one
			// request, of an unknown model.
			if meta, err := json.Marshal(metaOf(c, resp, try, elapsed)); err == nil && !keptNow {
				r.keep(metaName(step, c), c.Role, meta)
			}
			var sources []evidence.Source
			if sess != nil {
				sources = r.citeAndKeep(ctx, step, c, rs.Model, sess, transcript, text)
			}
			if !keptNow {
				r.keep(keptName(step, c), c.Role, text)
			}
			return sm.Answer{Text: text, Model: resp.Model, Attempts: try + 1, Elapsed: elapsed,
				Researched: sess != nil && r.researches(c, rs.Model), Sources: sources}, nil
		}
		discard("the answer broke the rules; it is not committed")
		attempts = append(attempts, failedAttempt{Answer: resp.Text, Errors: rep.Errors})
		if try == repairs {
			_ = r.d.RemovePrivate(repairsName(step, c))
			saved := r.saveFailed(step.Unit, who, attempts)
			if c.Skippable {
				why := "refused after every repair: " + strings.Join(rep.Errors, "; ")
				// Written first, as for an accepted answer.
				if meta, err := json.Marshal(keptMeta{Model: resp.Model, Attempts: try + 1, Elapsed: elapsed.Seconds(), Prompt: promptDigest(c)}); err == nil {
					r.keep(metaName(step, c), c.Role, meta)
				}
				r.keep(skippedName(step, c), c.Role, []byte(why))
				return sm.Answer{Skipped: why, Model: resp.Model, Attempts: try + 1}, nil
			}
			if c.Missable && r.opts.KeepGoing {
				return r.missing(step, c, resp.Model, try+1, elapsed, attempts, fmt.Sprintf("the %s's answer was refused after every repair", c.Role)), nil
			}
			return sm.Answer{}, &RoleError{Role: role, Model: c.Model, Exchange: step.Unit, Unit: r.unit, Problems: rep.Errors, Saved: saved, Missable: c.Missable}
		}
		r.opts.Emit(Event{Time: r.opts.Now(), Kind: EventRepair, Exchange: step.Unit, Role: c.Role,
			Message: fmt.Sprintf("%s: %s", english.Count(len(rep.Errors), "problem"), rep.Errors[0]), Problems: rep.Errors})
		repair, err := repairMessage(rep.Errors)
		if err != nil {
			return sm.Answer{}, err
		}
		if sess == nil {
			if data, err := json.Marshal(keptRepairs{Model: rs.Model, Attempts: attempts, Prompt: promptDigest(c)}); err == nil {
				r.keep(repairsName(step, c), c.Role, data)
			}
		}
		msgs = append(msgs, model.Message{Role: "assistant", Content: resp.Text}, model.Message{Role: repair.Role, Content: repair.Content})
	}
	return sm.Answer{}, fmt.Errorf("the %s was asked %d times without an answer", c.Role, repairs+1)
}

// validator returns the check of an answer to c, the one place every
// answer passes before it is kept or applied, whichever way it came (a
// model, a person, a kept answer): for a call for embeddings, that they
// are moot's JSON of them in valid UTF-8 (they are moot's own, and may be
// over an answer's limit); for a chat, sm.Call.Check.
func validator(c sm.Call) func([]byte) sm.Report {
	if len(c.Embed) > 0 {
		valid := validEmbeddings(len(c.Embed))
		return func(a []byte) sm.Report {
			if n := frontmatter.InvalidUTF8(a); n >= 0 {
				return sm.Report{Errors: []string{fmt.Sprintf("the answer is not valid UTF-8 (at byte %d)", n)}}
			}
			return valid(a)
		}
	}
	return c.Check
}

// callSettings returns the settings a chat call c is asked with: its
// role's, the model of its own when it names one, and its own answer
// length and temperature where the role sets none.
func (r *runner) callSettings(c sm.Call) RoleSettings {
	r.mu.Lock()
	rs := r.settings.Role(c.Role)
	r.mu.Unlock()
	if c.Model != "" {
		rs.Model = c.Model
	}
	if rs.MaxTokens == 0 {
		rs.MaxTokens = c.MaxTokens
	}
	if rs.Temperature == nil {
		rs.Temperature = c.Temperature
	}
	return rs
}

// plan describes what step is about to ask, for Options.BeforeStep.
func (r *runner) plan(step *sm.Step) StepPlan {
	p := StepPlan{Unit: step.Unit, Key: step.Key, Calls: make([]PlannedCall, len(step.Calls))}
	for i, c := range step.Calls {
		p.Calls[i] = r.plannedCall(step, c)
	}
	// Read together: a call is in flight until its answer is counted as
	// spent, and never both or neither.
	r.mu.Lock()
	r.early.mu.Lock()
	p.InFlight = r.inFlight(step)
	p.Spent = append(slices.Clone(r.sum.Usage), r.unlogged()...)
	r.early.mu.Unlock()
	r.mu.Unlock()
	return p
}

// plannedCall describes call c of step, for plan.
func (r *runner) plannedCall(step *sm.Step, c sm.Call) PlannedCall {
	pc := PlannedCall{ID: c.ID, Role: c.Role, Embed: len(c.Embed) > 0, Kept: r.hasKept(step, c) || r.asked(step, c), Person: r.byPerson(c)}
	if pc.Embed {
		r.mu.Lock()
		pc.Model = r.settings.Role(c.Role).Model
		r.mu.Unlock()
		for _, t := range c.Embed {
			pc.PromptBytes += len(t)
		}
	} else {
		rs := r.callSettings(c)
		pc.Model, pc.MaxTokens = rs.Model, rs.MaxTokens
		for _, m := range c.Messages {
			pc.PromptBytes += len(m.Content)
		}
	}
	return pc
}

// stepModels lists, each once, the models that step will ask: those of
// its calls that neither a kept answer nor a person answers.
func (r *runner) stepModels(step *sm.Step) []string {
	var out []string
	for _, pc := range r.plan(step).Calls {
		if pc.Kept || pc.Person || pc.Model == "" || slices.Contains(out, pc.Model) {
			continue
		}
		out = append(out, pc.Model)
	}
	return out
}

// hasKept reports whether call will take what an interrupted run kept
// for it, as call does, instead of asking a model.
func (r *runner) hasKept(step *sm.Step, c sm.Call) bool {
	if r.opts.Fresh || r.untouched(step, c) || r.stale(step, c) {
		return false
	}
	if data, err := r.d.ReadPrivate(keptName(step, c)); err == nil && validator(c)(data).OK() {
		return true
	}
	if c.Missable && r.opts.KeepGoing {
		if _, ok := r.keptMissing(step, c); ok {
			return true
		}
	}
	if c.Skippable {
		why, err := r.d.ReadPrivate(skippedName(step, c))
		return err == nil && len(why) > 0
	}
	return false
}

// keep files an accepted answer (or why a call was skipped) under name
// until its step is committed.
func (r *runner) keep(name, role string, data []byte) {
	if err := r.d.WritePrivate(name, data); err != nil {
		r.opts.Warn(fmt.Sprintf("cannot keep the %s's answer: %v", role, err))
	}
}

var _ io.Reader = (*memFile)(nil)

// SetPanel makes panel the judge panel of the debate in d, in its state
// file under sm.PanelKey, and reports whether that changed it. A debate
// whose protocol takes no panel is refused.
func SetPanel(d *store.Dir, p sm.Protocol, panel []sm.Judge) (bool, error) {
	if _, ok := p.(sm.Panelist); !ok {
		return false, fmt.Errorf("a %s debate has no judge to make a panel of", p.Name())
	}
	if err := sm.CheckPanel(panel); err != nil {
		return false, err
	}
	data, err := d.ReadFile(sm.StateFile)
	if err != nil {
		return false, fmt.Errorf("read %s: %w", sm.StateFile, err)
	}
	front, body, err := frontmatter.Parse(data)
	if err != nil {
		return false, fmt.Errorf("read %s: %w", sm.StateFile, err)
	}
	old, err := sm.PanelOf(front)
	if err != nil {
		return false, fmt.Errorf("read %s: %w", sm.StateFile, err)
	}
	if slices.Equal(old, panel) {
		return false, nil
	}
	raw, err := frontmatter.Marshal(panel)
	if err != nil {
		return false, err
	}
	front.Set(sm.PanelKey, raw)
	state, err := frontmatter.Render(front, body)
	if err != nil {
		return false, fmt.Errorf("render %s: %w", sm.StateFile, err)
	}
	return true, d.Commit([]store.File{{Name: sm.StateFile, Data: state}})
}

// JudgeRecords reads the record of every judge's folder of the debate in
// d (see sm.ReadJudgeRecords).
func JudgeRecords(d *store.Dir) ([]sm.JudgeRecord, error) {
	return sm.ReadJudgeRecords(debateFS{d})
}

// Panel returns the judge panel the state file of the debate in d names;
// nil when it has none.
func Panel(d *store.Dir) ([]sm.Judge, error) {
	data, err := d.ReadFile(sm.StateFile)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", sm.StateFile, err)
	}
	panel, err := sm.ReadPanel(data)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", sm.StateFile, err)
	}
	return panel, nil
}

// FillMissing asks again, in order, for every call that the debate in d,
// of protocol p, records as missing (sm.Filler), each as a step of its
// own committed through the journal, and returns how many it asked for.
// A call refused again stays missing in a run with KeepGoing and stops
// the run without it. A debate whose protocol records no gaps has none.
// The pass is recorded as it goes (see RetryGaps): run again after it
// was stopped, it asks only for what it had not asked yet.
func FillMissing(ctx context.Context, d *store.Dir, p sm.Protocol, opts Options) (Summary, int, error) {
	return fillMissing(ctx, d, p, opts, "", func() (sm.Debate, error) { return LoadDebate(d, p) })
}

// RejudgeMissing asks again, as FillMissing does, for every judgment that
// the re-judging rj of the debate in d records as missing, and returns
// how many it asked for; none for a protocol whose re-judging records no
// gaps.
func RejudgeMissing(ctx context.Context, d *store.Dir, p sm.Protocol, rj sm.Rejudging, opts Options) (Summary, int, error) {
	p = withJudgeContext(p, &opts.Overrides)
	opts.Overrides.JudgeContext = ""
	return fillMissing(ctx, d, p, opts, rj.Judge.Name, rejudging(d, p, rj))
}

// fillMissing asks again for the gaps of the debate load returns, those
// of the re-judging by the judge called judge when it is not "".
func fillMissing(ctx context.Context, d *store.Dir, p sm.Protocol, opts Options, judge string, load func() (sm.Debate, error)) (Summary, int, error) {
	deb, err := load()
	if err != nil {
		return Summary{}, 0, err
	}
	f, ok := deb.(sm.Filler)
	if !ok {
		return Summary{}, 0, nil
	}
	rec, err := readRetry(d, judge)
	if err != nil {
		return Summary{}, 0, err
	}
	gaps := rec.open(f.Gaps())
	if len(gaps) > 0 {
		next := 0
		// Each gap asked again is recorded once its step is committed,
		// before the answers kept for the step are removed: a run killed
		// in between takes the step's answers from what was kept.
		opts.committed = func(*sm.Step) error {
			rec.Asked = append(rec.Asked, gaps[next-1])
			return writeRetry(d, judge, rec)
		}
		sum, err := advance(ctx, d, p, UnitGoal{Steps: len(gaps)}, opts, func() (sm.Debate, error) {
			deb, err := load()
			if err != nil {
				return nil, err
			}
			f, ok := deb.(sm.Filler)
			if !ok {
				return nil, fmt.Errorf("a %s debate records no missing calls", p.Name())
			}
			return &filling{Debate: deb, f: f, gaps: gaps, next: &next}, nil
		})
		if err != nil {
			return sum, len(gaps), err
		}
		rec.Done = true
		return sum, len(gaps), writeRetry(d, judge, rec)
	}
	if rec.Done || len(rec.Asked) > 0 {
		rec.Done = true
		return Summary{}, 0, writeRetry(d, judge, rec)
	}
	return Summary{}, 0, nil
}

// filling is a debate whose next steps ask again for its missing calls,
// gaps, from the one numbered next.
type filling struct {
	sm.Debate
	f    sm.Filler
	gaps []string
	next *int
}

// Status is the debate's, never complete, so that the run stops when
// every gap was asked for again.
func (x *filling) Status() sm.Status {
	st := x.Debate.Status()
	st.Complete = false
	return st
}

func (x *filling) Next() (*sm.Step, error) {
	if *x.next >= len(x.gaps) {
		return nil, nil
	}
	gap := x.gaps[*x.next]
	*x.next++
	return x.f.Fill(gap)
}
