// Package engine performs the steps of a debate: it loads the debate from
// the store, puts what a debater or judge handed in through the rules of
// the state machine, and commits the files the step changes as one commit,
// debate.md last. The command line and the model runner both go through it,
// so an answer typed by hand and an answer from a model meet the same rules.
package driver

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/moot-dev/moot/internal/english"
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
	var o frontmatter.Object
	o.SetValue("success", r.Success)
	o.SetValue("argument_id", nonNil(r.ArgumentID))
	if r.Judge {
		score := r.Score
		if score == nil {
			score = []float64{}
		}
		o.SetValue("score", score)
		o.SetValue("rescored", nonNil(r.Rescored))
	}
	o.SetValue("warnings", nonNil(r.Warnings))
	o.SetValue("errors", nonNil(r.Errors))
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
type Refused struct {
	Reasons []string
	// Side is set when a side's answer broke a rule: the first such side,
	// proposition first. SideReasons are then that side's problems alone,
	// without the side's name in front.
	Side        dialectic.Side
	SideReasons []string
	// Answer is set when an answer broke a rule, as opposed to a step that
	// came at the wrong time.
	Answer bool
}

func (r *Refused) Error() string {
	if len(r.Reasons) == 1 {
		return "step refused: " + r.Reasons[0]
	}
	return fmt.Sprintf("step refused: %d problems:\n  %s", len(r.Reasons), strings.Join(r.Reasons, "\n  "))
}

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
	if raw.Header, err = d.ReadFile(dialectic.HeaderFile); err != nil {
		return raw, fmt.Errorf("read %s: %w", dialectic.HeaderFile, err)
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
	return raw, nil
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
	Problems []dialectic.Problem
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
		{Name: dialectic.HeaderFile, Data: header},
	})
	if err != nil {
		return nil, err
	}
	// The process that made the debate is its first writer.
	if _, err := d.Lock(context.Background(), "moot new "+slug, false); err != nil {
		d.Close()
		return nil, err
	}
	return d, nil
}

// MaxAnswerSize is the largest answer a debater or judge may hand in, by
// any path (a file given to process-exchange or process-judge, or a
// model's answer in moot run): 1 MiB.
const MaxAnswerSize = 1 << 20

// CheckSize refuses an answer of role (proposition, opposition or judge)
// over MaxAnswerSize, before any time is spent parsing it.
func CheckSize(role string, answer []byte) error {
	if len(answer) > MaxAnswerSize {
		return &Refused{Reasons: []string{fmt.Sprintf("the %s's answer is %d bytes, over the %d-byte (1 MiB) limit for an answer",
			role, len(answer), MaxAnswerSize)}}
	}
	return nil
}

// Exchange is an exchange's accepted arguments, ready to commit.
type Exchange struct {
	Arguments []*dialectic.Argument
	Warnings  []string
	// Soft holds the warnings of Warnings about soft length limits.
	Soft []string
}

// CheckExchange puts both sides' answers for exchange through the rules
// without writing anything. answers maps each side to what it handed in.
func CheckExchange(deb *dialectic.Debate, exchange int, answers map[dialectic.Side][]byte) (*Exchange, error) {
	if err := deb.Header.State.AcceptArguments(exchange); err != nil {
		return nil, &Refused{Reasons: []string{err.Error()}}
	}
	for _, side := range dialectic.Sides {
		if err := CheckSize(side.Name(), answers[side]); err != nil {
			return nil, err
		}
	}
	known := deb.Known()
	var all dialectic.Problems
	x := &Exchange{}
	refused := &Refused{}
	for _, side := range dialectic.Sides {
		subs, p := dialectic.ParseSubmissions(answers[side], side, exchange, known)
		all.Add(side.Name()+": ", p)
		if !p.OK() && refused.Side == "" {
			refused.Side, refused.SideReasons = side, p.Errors
		}
		ids := dialectic.ArgumentIDs(exchange, side)
		for i, s := range subs {
			x.Arguments = append(x.Arguments, dialectic.NewArgument(ids[i], side, exchange, s))
		}
	}
	x.Warnings, x.Soft = all.Warnings, all.Soft
	if !all.OK() {
		refused.Reasons, refused.Answer = all.Errors, true
		return x, refused
	}
	return x, nil
}

// CommitExchange writes an accepted exchange: its argument files, the
// graph, and debate.md in the judgment phase.
func CommitExchange(d *store.Dir, deb *dialectic.Debate, x *Exchange) error {
	var files []store.File
	for _, a := range x.Arguments {
		data, err := a.Render()
		if err != nil {
			return fmt.Errorf("render %s: %w", a.ID, err)
		}
		files = append(files, store.File{Name: dialectic.ArgumentFile(a.ID), Data: data})
	}
	deb.Add(x.Arguments...)
	deb.Header.State = deb.Header.State.Next()
	return commit(d, deb, files)
}

func commit(d *store.Dir, deb *dialectic.Debate, files []store.File) error {
	header, err := deb.Header.Render()
	if err != nil {
		return fmt.Errorf("render %s: %w", dialectic.HeaderFile, err)
	}
	files = append(files,
		store.File{Name: dialectic.GraphFile, Data: []byte(dialectic.Graph(deb))},
		store.File{Name: dialectic.HeaderFile, Data: header},
	)
	return d.Commit(files)
}

// CheckJudgment puts a judge's answer through the rules without writing.
func CheckJudgment(deb *dialectic.Debate, answer []byte) (dialectic.Judgment, dialectic.Problems, error) {
	if err := deb.Header.State.AcceptJudgment(); err != nil {
		return dialectic.Judgment{}, dialectic.Problems{}, &Refused{Reasons: []string{err.Error()}}
	}
	if err := CheckSize("judge", answer); err != nil {
		return dialectic.Judgment{}, dialectic.Problems{}, err
	}
	j, p := dialectic.ParseJudgment(answer, deb.Header.State.Exchange, deb.Known(), deb.Scores.Current())
	if !p.OK() {
		return j, p, &Refused{Reasons: p.Errors, Answer: true}
	}
	return j, p, nil
}

// CommitJudgment writes an accepted judgment: scores.json with one history
// entry per scored or rescored argument, the graph, and debate.md at the
// next exchange with the recomputed totals.
func CommitJudgment(d *store.Dir, deb *dialectic.Debate, j dialectic.Judgment, now time.Time) error {
	deb.Scores.Apply(j.Entries(deb.Known(), deb.Scores.Current()), now)
	scores, err := deb.Scores.Render()
	if err != nil {
		return fmt.Errorf("render %s: %w", dialectic.ScoresFile, err)
	}
	deb.Header.Totals = dialectic.Cumulative(deb.Scores.Current())
	deb.Header.State = deb.Header.State.Next()
	return commit(d, deb, []store.File{{Name: dialectic.ScoresFile, Data: scores}})
}

// ProcessExchange is the whole of process-exchange: check both answers and,
// if they pass, commit them.
func ProcessExchange(d *store.Dir, exchange int, prop, opp []byte) (Result, error) {
	res := Result{Warnings: []string{}, Errors: []string{}}
	deb, err := Load(d)
	if err != nil {
		return fail(res, err)
	}
	x, err := CheckExchange(deb, exchange, map[dialectic.Side][]byte{dialectic.Prop: prop, dialectic.Opp: opp})
	if x != nil {
		res.Warnings = append(res.Warnings, x.Warnings...)
		res.Soft = x.Soft
	}
	if err != nil {
		return fail(res, err)
	}
	if err := CommitExchange(d, deb, x); err != nil {
		return fail(res, err)
	}
	res.Success = true
	res.Sides = map[dialectic.Side][]string{}
	for _, a := range x.Arguments {
		res.ArgumentID = append(res.ArgumentID, a.ID)
		res.Sides[a.Side] = append(res.Sides[a.Side], a.ID)
	}
	return res, nil
}

// ProcessJudge is the whole of process-judge.
func ProcessJudge(d *store.Dir, answer []byte, now time.Time) (Result, error) {
	res := Result{Warnings: []string{}, Errors: []string{}, Judge: true}
	deb, err := Load(d)
	if err != nil {
		return fail(res, err)
	}
	j, p, err := CheckJudgment(deb, answer)
	res.Warnings = append(res.Warnings, p.Warnings...)
	res.Soft = p.Soft
	if err != nil {
		return fail(res, err)
	}
	if err := CommitJudgment(d, deb, j, now); err != nil {
		return fail(res, err)
	}
	res.Success = true
	for _, s := range j.Scores {
		res.ArgumentID = append(res.ArgumentID, s.ArgumentID)
		res.Score = append(res.Score, s.Score)
	}
	res.Rescored = []string{}
	for _, r := range j.Rescores {
		res.Rescored = append(res.Rescored, r.ArgumentID)
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
