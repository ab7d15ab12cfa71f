package driver

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"slices"

	sm "github.com/moot-dev/moot/statemachine"
	"github.com/moot-dev/moot/store"
)

// PersonModel is the model recorded for an answer a person gave (moot run
// --human, moot answer), in the debate's files as in its report.
const PersonModel = "human"

// Person answers the calls of the roles a person plays, in place of a
// model (Options.Person).
type Person interface {
	// Plays reports whether the person answers the calls of role.
	Plays(role string) bool
	// Answer returns the person's answer to q, one that q.Validate
	// accepts, or an error: an *AwaitingPerson when the answer cannot be
	// had now, and nothing is committed.
	Answer(ctx context.Context, q Question) ([]byte, error)
}

// Question is a call a person is asked to answer.
type Question struct {
	Step *sm.Step
	Call sm.Call
	// Validate is the check a model's answer to the call goes through.
	Validate func([]byte) sm.Report
	// Draft is the private file (under .moot/) the person's form is kept
	// in until the step is committed.
	Draft string
}

// AwaitingPerson is the error of a run that stopped for a person's
// answer: the debate waits for it in its state, other roles' answers
// kept.
type AwaitingPerson struct {
	Role   string
	Reason string
	// Call is the id of the call awaited within its step, and Name its
	// full name (CallName), for the hints' --call.
	Call string
	Name string
	// Debate is the debate's path and Draft the draft's path on disk,
	// for hints.
	Debate string
	Draft  string
}

func (e *AwaitingPerson) Error() string {
	return fmt.Sprintf("the %s's answer is needed from a person: %s", e.Role, e.Reason)
}

// DraftName is the private file where a person's form for call c of step
// is kept.
func DraftName(step *sm.Step, c sm.Call) string {
	return "human/" + step.Key + "-" + c.ID + ".md"
}

// CallName is the full name of call c of step, which names it within the
// whole debate: the step's key and the call's id, as "KEY/ID" (such as
// "003-think/for"). A person's form names its call so, and moot answer's
// --call takes it, so that an answer is never applied to another call.
func CallName(step *sm.Step, c sm.Call) string { return step.Key + "/" + c.ID }

// GivenFile is the private file that records every answer a person gave,
// one JSON object (a Given) a line, written before the answer is kept.
// It outlives the steps, so that an answer handed in again after its call
// was taken is known for what it is. It is never part of a commit.
const GivenFile = "human/given.jsonl"

// Given records one answer a person gave: for which call (CallName) of
// which role, and the SHA-256 of the answer as the call took it and, for
// one handed in with moot answer, of the file as it was handed in.
type Given struct {
	Call   string `json:"call"`
	Role   string `json:"role"`
	Answer string `json:"answer"`
	File   string `json:"file,omitempty"`
}

// digest is the SHA-256 of data, in hex.
func digest(data []byte) string {
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}

// GivenBy returns what the person gave for role in the debate in d, the
// oldest first. A line that cannot be read (one a crash cut short) is
// passed over: the record only guards against an answer given twice.
func GivenBy(d *store.Dir, role string) ([]Given, error) {
	data, err := d.ReadPrivate(GivenFile)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read %s/%s: %w", store.PrivateDir, GivenFile, err)
	}
	var out []Given
	for _, line := range bytes.Split(data, []byte("\n")) {
		var g Given
		if json.Unmarshal(line, &g) == nil && g.Call != "" && g.Role == role {
			out = append(out, g)
		}
	}
	return out, nil
}

// Holds reports whether g records the file data, as handed in, or an
// answer byte for byte the one it records.
func (g Given) Holds(data []byte) bool {
	return (g.File != "" && g.File == digest(data)) || g.Answer == digest(bytes.TrimSpace(data)) || g.Answer == digest(data)
}

// GivenFor returns the last answer of given recorded for the call called
// name.
func GivenFor(given []Given, name string) (Given, bool) {
	for i := len(given) - 1; i >= 0; i-- {
		if given[i].Call == name {
			return given[i], true
		}
	}
	return Given{}, false
}

// GivenAs returns the last answer of given that holds data: the call a
// file was given to before.
func GivenAs(given []Given, data []byte) (Given, bool) {
	for i := len(given) - 1; i >= 0; i-- {
		if given[i].Holds(data) {
			return given[i], true
		}
	}
	return Given{}, false
}

// byPerson reports whether a person answers c.
func (r *runner) byPerson(c sm.Call) bool {
	return r.opts.Person != nil && len(c.Embed) == 0 && r.opts.Person.Plays(c.Role)
}

// askPerson gets the answer of a person to c and keeps it as a model's
// accepted answer is kept, recorded as the person's.
func (r *runner) askPerson(ctx context.Context, step *sm.Step, c sm.Call, validate func([]byte) sm.Report) (sm.Answer, error) {
	// Said as a model's call is, so that the live file (moot watch, moot
	// serve) names the person being waited for.
	r.opts.Emit(Event{Time: r.opts.Now(), Kind: EventAsk, Exchange: step.Unit, Role: c.Role, Model: PersonModel})
	text, err := r.opts.Person.Answer(ctx, Question{Step: step, Call: c, Validate: validate, Draft: DraftName(step, c)})
	if err != nil {
		return sm.Answer{}, err
	}
	if rep := validate(text); !rep.OK() {
		return sm.Answer{}, fmt.Errorf("the %s's answer breaks the rules: %v", c.Role, rep.Errors)
	}
	if err := keepPerson(r.d, step, c, text, nil); err != nil {
		r.opts.Warn(fmt.Sprintf("cannot keep the %s's answer: %v", c.Role, err))
	}
	_ = r.d.RemovePrivate(DraftName(step, c))
	r.opts.Emit(Event{Time: r.opts.Now(), Kind: EventAnswer, Exchange: step.Unit, Role: c.Role, Model: PersonModel})
	return sm.Answer{Text: text, Model: PersonModel}, nil
}

// keepPerson keeps a person's answer to call c of step until the step is
// committed: first the record that the person gave it (raw is the file
// handed in, nil for an answer given in the editor), then the record of
// who gave it, as a model's, then the answer.
func keepPerson(d *store.Dir, step *sm.Step, c sm.Call, text, raw []byte) error {
	g := Given{Call: CallName(step, c), Role: c.Role, Answer: digest(text)}
	if raw != nil {
		g.File = digest(raw)
	}
	line, err := json.Marshal(g)
	if err != nil {
		return err
	}
	if err := d.AppendPrivate(GivenFile, append(line, '\n')); err != nil {
		return err
	}
	meta, err := json.Marshal(keptMeta{Model: PersonModel})
	if err != nil {
		return err
	}
	if err := d.WritePrivate(metaName(step, c), meta); err != nil {
		return err
	}
	return d.WritePrivate(keptName(step, c), text)
}

// Kept returns the answer kept for call c of step, if one is.
func Kept(d *store.Dir, step *sm.Step, c sm.Call) ([]byte, bool) {
	data, err := d.ReadPrivate(keptName(step, c))
	if err != nil || !validator(c)(data).OK() {
		return nil, false
	}
	return data, true
}

// Waiting is a call of the step a debate waits for, with whether an
// answer is kept for it.
type Waiting struct {
	Step *sm.Step
	Call sm.Call
	Kept bool
}

// Waits returns the calls of the step the debate in d, of protocol p,
// waits for that role plays; none when the debate is complete or its
// step asks nothing of the role.
func Waits(d *store.Dir, p sm.Protocol, role string) ([]Waiting, error) {
	deb, err := LoadDebate(d, p)
	if err != nil {
		return nil, err
	}
	step, err := deb.Next()
	if err != nil || step == nil {
		return nil, err
	}
	r := &runner{d: d}
	var out []Waiting
	for _, c := range step.Calls {
		if c.Role == role && len(c.Embed) == 0 {
			out = append(out, Waiting{Step: step, Call: c, Kept: r.hasKept(step, c)})
		}
	}
	return out, nil
}

// HandIn puts a person's answer to call c of step, read from the file
// raw, through the call's validation, as a model's, and keeps it for the
// step's commit. An answer that breaks a rule changes nothing: its errors
// are returned in the report.
func HandIn(d *store.Dir, step *sm.Step, c sm.Call, text, raw []byte) (sm.Report, error) {
	rep := validator(c)(text)
	if !rep.OK() {
		return rep, nil
	}
	if err := keepPerson(d, step, c, text, raw); err != nil {
		return rep, fmt.Errorf("keep the %s's answer: %w", c.Role, err)
	}
	_ = d.RemovePrivate(DraftName(step, c))
	return rep, nil
}

// Answered reports whether every call of step has an answer kept, so
// that committing it asks no model.
func Answered(d *store.Dir, step *sm.Step) bool {
	r := &runner{d: d}
	for _, c := range step.Calls {
		if !r.hasKept(step, c) {
			return false
		}
	}
	return true
}

// withPeople returns the settings' People with the roles a person
// answered for in step added, for the step's commit.
func (r *runner) withPeople(step *sm.Step, answers map[string]sm.Answer) map[string][]int {
	r.mu.Lock()
	out := clonePeople(r.settings.People)
	r.mu.Unlock()
	for _, c := range step.Calls {
		if answers[c.ID].Model != PersonModel {
			continue
		}
		if out == nil {
			out = map[string][]int{}
		}
		if !slices.Contains(out[c.Role], step.Unit) {
			out[c.Role] = append(out[c.Role], step.Unit)
		}
	}
	return out
}

func clonePeople(p map[string][]int) map[string][]int {
	if len(p) == 0 {
		return nil
	}
	out := make(map[string][]int, len(p))
	for k, v := range p {
		out[k] = slices.Clone(v)
	}
	return out
}

// People returns, for each role of the debate in d a person played, the
// units in which the person answered for it, as its state file keeps
// them.
func People(d *store.Dir) (map[string][]int, error) {
	s, err := readSettings(d)
	return s.People, err
}
