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
	"errors"
	"fmt"
	"io/fs"
	"strings"

	sm "github.com/moot-dev/moot/statemachine"

	"github.com/moot-dev/moot/internal/english"
	"github.com/moot-dev/moot/internal/frontmatter"
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

// ReadFiles calls read with the files of the debate in d as one commit
// left them, even while another process writes it (see
// store.Dir.Snapshot): for a protocol's own readers of its files.
func ReadFiles(d *store.Dir, read func(files fs.FS) error) error {
	return d.Snapshot(func() error { return read(debateFS{d}) })
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

// MaxAnswerSize is the largest answer a role may hand in: the step
// model's.
const MaxAnswerSize = sm.MaxAnswerSize

// Commit writes what a step made, as one commit of the store.
func Commit(d *store.Dir, c *sm.Commit) error {
	files := make([]store.File, len(c.Files))
	for i, f := range c.Files {
		files[i] = store.File{Name: f.Name, Data: f.Data}
	}
	return d.Commit(files)
}

// HandStep loads the debate in d with protocol p, applies the step that
// apply makes of it, a step handed in by hand outside the run (moot
// process-exchange, process-judge), and commits it. The result lists what
// the commit's events name: for a judgment (judge), the parts it scored,
// with their scores, and those it rescored; else the parts its roles
// argued. On failure the result records the error, which is returned too.
func HandStep(d *store.Dir, p sm.Protocol, judge bool, apply func(sm.Debate) (*sm.Commit, error)) (Result, error) {
	res := Result{Warnings: []string{}, Errors: []string{}, Judge: judge}
	deb, err := LoadDebate(d, p)
	if err != nil {
		return fail(res, err)
	}
	c, err := apply(deb)
	if c != nil {
		res.Warnings, res.Soft = append(res.Warnings, c.Warnings...), c.Soft
	}
	if err == nil {
		err = Commit(d, c)
	}
	if err != nil {
		return fail(res, err)
	}
	res.Success = true
	if judge {
		res.Rescored = []string{}
	}
	for _, e := range c.Events {
		switch {
		case !judge && e.Kind == "argued":
			res.ArgumentID = append(res.ArgumentID, e.ID)
		case judge && e.Kind == "scored" && e.Score != nil:
			res.ArgumentID = append(res.ArgumentID, e.ID)
			res.Score = append(res.Score, *e.Score)
		case judge && e.Kind == "rescored":
			res.Rescored = append(res.Rescored, e.ID)
		}
	}
	return res, nil
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
