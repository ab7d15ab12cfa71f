// Package driver performs the steps of a debate: it loads the debate from
// the store, puts what a debater or judge handed in through the rules of
// the state machine, and commits the files the step changes as one commit,
// debate.md last. The command line and the model runner both go through it,
// so an answer typed by hand and an answer from a model meet the same rules.
//
// It also drives a debate with language models (run.go): it asks each
// role for the answer the debate waits for, sends refused answers back
// for repair, and keeps answers already paid for until they are
// committed. Everything it needs to resume is in the debate directory.
package driver

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	sm "github.com/moot-dev/moot/statemachine"

	"github.com/moot-dev/moot/internal/english"
	"github.com/moot-dev/moot/internal/evidence"
	"github.com/moot-dev/moot/internal/frontmatter"
	"github.com/moot-dev/moot/statemachine/dialectic"
	"github.com/moot-dev/moot/store"
)

// Result is what process-exchange and process-judge print: moot's own
// result object. Its lists are never null: on failure argument_id, score
// and rescored are empty lists, and errors and warnings hold one problem
// each. (moot debate-ops prints dialectic's object instead; see
// cli/debateops.go.)
type Result struct {
	Success bool
	// ArgumentID lists the arguments the step wrote (proposition first) or
	// scored (in the order the judge gave them).
	ArgumentID []string
	// Score is the score of each argument of ArgumentID (judgment only).
	Score []float64
	// Rescored lists the arguments a judgment rescored.
	Rescored []string
	Warnings []string
	Errors   []string
	// Judge marks the result of a judgment, which also has score and
	// rescored.
	Judge bool
	// Soft holds the warnings of Warnings that only say a text is over a
	// soft length limit. It is not printed.
	Soft []string
	// Sides holds, for an exchange, the ids each side's answer became. It
	// is not printed.
	Sides map[dialectic.Side][]string
}

// MarshalJSON writes the result with its keys in a fixed order; a
// judgment's result always has score and rescored, an exchange's never.
func (r Result) MarshalJSON() ([]byte, error) {
	type field struct {
		key string
		v   any
	}
	fields := []field{{"success", r.Success}, {"argument_id", nonNil(r.ArgumentID)}}
	if r.Judge {
		score := r.Score
		if score == nil {
			score = []float64{}
		}
		fields = append(fields, field{"score", score}, field{"rescored", nonNil(r.Rescored)})
	}
	fields = append(fields, field{"warnings", nonNil(r.Warnings)}, field{"errors", nonNil(r.Errors)})
	var o frontmatter.Object
	for _, f := range fields {
		if err := o.SetValue(f.key, f.v); err != nil {
			return nil, err
		}
	}
	return o.MarshalJSON()
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// Refused is the error of a step that broke a rule or came at the wrong
// time. Nothing was written.
type Refused = sm.Refused

// ReadRaw reads the files of a debate as one commit left them, even while
// another process writes it (see store.Dir.Snapshot).
func ReadRaw(d *store.Dir) (dialectic.Raw, error) {
	var raw dialectic.Raw
	err := d.Snapshot(func() error {
		var err error
		raw, err = readRaw(d)
		return err
	})
	return raw, err
}

// readRaw reads debate.md first: a commit replaces it last, which is what
// lets Snapshot see whether a commit went on during the reads.
func readRaw(d *store.Dir) (dialectic.Raw, error) {
	var raw dialectic.Raw
	var err error
	if raw.Header, err = d.ReadFile(sm.StateFile); err != nil {
		return raw, fmt.Errorf("read %s: %w", sm.StateFile, err)
	}
	if d.Exists(dialectic.ScoresFile) {
		if raw.Scores, err = d.ReadFile(dialectic.ScoresFile); err != nil {
			return raw, fmt.Errorf("read %s: %w", dialectic.ScoresFile, err)
		}
	}
	names, err := d.List(dialectic.ArgumentsDir, ".md")
	if err != nil {
		return raw, fmt.Errorf("read %s: %w", dialectic.ArgumentsDir, err)
	}
	raw.Arguments = make(map[string][]byte, len(names))
	for _, n := range names {
		file := dialectic.ArgumentsDir + "/" + n
		if raw.Arguments[n], err = d.ReadFile(file); err != nil {
			return raw, fmt.Errorf("read %s: %w", file, err)
		}
	}
	raw.Sources, err = evidence.ReadDir(debateFS{d})
	return raw, err
}

// Load reads and parses a debate. When d holds the write lock, that is
// for a writer about to build on the debate, the debate must also pass
// every invariant of debate.Check: a step never adds to a debate that is
// already broken (a judgment for an argument whose file is missing, say).
func Load(d *store.Dir) (*dialectic.Debate, error) {
	raw, err := ReadRaw(d)
	if err != nil {
		return nil, err
	}
	deb, err := dialectic.Load(raw)
	if err != nil {
		return nil, fmt.Errorf("read %w", err)
	}
	if raw.Scores == nil {
		return nil, fmt.Errorf("read %s: the file is missing", dialectic.ScoresFile)
	}
	if d.Locked() {
		if ps := deb.Check().Problems; len(ps) > 0 {
			return nil, &Broken{Problems: ps}
		}
	}
	return deb, nil
}

// Broken is the error of a writer that found the debate inconsistent:
// nothing was written.
type Broken struct {
	Problems []sm.Problem
}

func (b *Broken) Error() string {
	lines := make([]string, len(b.Problems))
	for i, p := range b.Problems {
		lines[i] = p.String()
	}
	return fmt.Sprintf("the debate has %s, so no step is taken until they are fixed:\n  %s", english.Count(len(lines), "problem"), strings.Join(lines, "\n  "))
}

// Create makes a new debate directory at dir for slug and motion and
// returns it locked for writing; Close releases the lock.
func Create(dir, slug string, m dialectic.Motion) (*store.Dir, error) {
	if strings.TrimSpace(m.Text) == "" {
		return nil, errors.New("the motion is empty")
	}
	if err := dialectic.CheckMotion(m); err != nil {
		return nil, err
	}
	h := dialectic.NewHeader(slug, m)
	header, err := h.Render()
	if err != nil {
		return nil, err
	}
	d, err := store.Create(dir, []string{dialectic.ArgumentsDir}, []store.File{
		{Name: dialectic.ScoresFile, Data: []byte("{}\n")},
		{Name: sm.StateFile, Data: header},
	})
	if err != nil {
		return nil, err
	}
	// The process that made the debate is its first writer.
	if err := d.Lock(context.Background(), "moot new "+slug, false); err != nil {
		d.Close()
		return nil, err
	}
	return d, nil
}

// MaxAnswerSize is the largest answer a debater or judge may hand in.
const MaxAnswerSize = dialectic.MaxAnswerSize

// CheckSize refuses an answer of role over MaxAnswerSize.
func CheckSize(role string, answer []byte) error { return dialectic.CheckSize(role, answer) }

// Commit writes what a step made, as one commit of the store.
func Commit(d *store.Dir, c *sm.Commit) error {
	files := make([]store.File, len(c.Files))
	for i, f := range c.Files {
		files[i] = store.File{Name: f.Name, Data: f.Data}
	}
	return d.Commit(files)
}

// ProcessExchange is the whole of process-exchange: check both answers and,
// if they pass, commit them. It is the step moot run takes, with answers
// handed in by hand.
func ProcessExchange(d *store.Dir, exchange int, prop, opp []byte) (Result, error) {
	res, c, err := applyStep(d, false, func(deb *dialectic.Debate) (*sm.Commit, error) {
		return dialectic.ApplyArguments(deb, exchange, map[dialectic.Side][]byte{dialectic.Prop: prop, dialectic.Opp: opp})
	})
	if err != nil {
		return res, err
	}
	res.Sides = map[dialectic.Side][]string{}
	for _, e := range c.Events {
		if e.Kind != "argued" {
			continue
		}
		side, _ := dialectic.ParseSide(e.Role)
		res.ArgumentID = append(res.ArgumentID, e.ID)
		res.Sides[side] = append(res.Sides[side], e.ID)
	}
	return res, nil
}

// ProcessJudge is the whole of process-judge: the step moot run takes for
// the judge, with the answer handed in by hand.
func ProcessJudge(d *store.Dir, answer []byte, now time.Time) (Result, error) {
	res, c, err := applyStep(d, true, func(deb *dialectic.Debate) (*sm.Commit, error) {
		return dialectic.ApplyJudgment(deb, answer, now)
	})
	if err != nil {
		return res, err
	}
	res.Rescored = []string{}
	for _, e := range c.Events {
		switch e.Kind {
		case "scored":
			res.ArgumentID = append(res.ArgumentID, e.ID)
			res.Score = append(res.Score, *e.Score)
		case "rescored":
			res.Rescored = append(res.Rescored, e.ID)
		}
	}
	return res, nil
}

// applyStep loads the debate in d, applies the step that apply makes of
// it and commits it, and returns the result so far (judge tells a
// judgment's) with the commit; the error is the failure's, res then
// recording it.
func applyStep(d *store.Dir, judge bool, apply func(*dialectic.Debate) (*sm.Commit, error)) (Result, *sm.Commit, error) {
	res := Result{Warnings: []string{}, Errors: []string{}, Judge: judge}
	deb, err := Load(d)
	if err != nil {
		res, err = fail(res, err)
		return res, nil, err
	}
	c, err := apply(deb)
	if c != nil {
		res.Warnings, res.Soft = append(res.Warnings, c.Warnings...), c.Soft
	}
	if err == nil {
		err = Commit(d, c)
	}
	if err != nil {
		res, err = fail(res, err)
		return res, nil, err
	}
	res.Success = true
	return res, c, nil
}

// Failure returns the result object of a step that failed with err before
// the engine could take it (an answer file that cannot be read, a debate
// another process is writing); judge tells a judgment's object.
func Failure(judge bool, err error) Result {
	res, _ := fail(Result{Warnings: []string{}, Errors: []string{}, Judge: judge}, err)
	return res
}

// fail records err in res as a list of single problems: a refusal's
// reasons, a broken debate's problems, or the one error.
func fail(res Result, err error) (Result, error) {
	res.Success = false
	res.ArgumentID, res.Score, res.Rescored = []string{}, nil, []string{}
	var r *Refused
	var b *Broken
	switch {
	case errors.As(err, &r):
		res.Errors = append(res.Errors, r.Reasons...)
	case errors.As(err, &b):
		for _, p := range b.Problems {
			res.Errors = append(res.Errors, p.String())
		}
	default:
		res.Errors = append(res.Errors, err.Error())
	}
	return res, err
}
