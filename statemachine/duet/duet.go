// Package duet is moot's example protocol: the proof that a protocol is
// added to moot by its package, its templates (templates/duet) and one
// line in cmd/moot, and that every command then runs it. It is small on
// purpose: two speakers, pro and con, each make one statement a round, in
// parallel; a judge then scores both from 0 to 10; the side with the
// higher total after the rounds wins. A saved debate can be judged again
// by another model (moot rejudge), and moot's built-in model plays every
// role (moot demo).
//
// A release build of moot does not know it: cmd/moot registers it only
// when built with -tags moot_example (cmd/moot/example.go), so that no
// user mistakes it for a protocol to use.
package duet

import (
	"errors"
	"fmt"
	"io/fs"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/moot-dev/moot/internal/frontmatter"
	sm "github.com/moot-dev/moot/statemachine"
	"github.com/moot-dev/moot/templates"
)

// Name is the protocol's name, as debate.md and --protocol spell it.
const Name = "duet"

// The roles.
const (
	Pro   = "pro"
	Con   = "con"
	Judge = "judge"
)

// sides are the speaking roles, in the order their files and events come.
var sides = []string{Pro, Con}

// The bounds of a debate and of a score.
const (
	maxRounds = 9
	maxScore  = 10
	// words is the length a statement is asked to keep to; one of more
	// than twice as many is sent back.
	words = 150
)

// RoundsDir is the folder of the rounds' files.
const RoundsDir = "rounds"

// Protocol is the duet protocol. Templates are the prompt templates in
// force; nil means the built-in ones.
type Protocol struct {
	Templates *templates.Set
}

var (
	_ sm.Protocol     = Protocol{}
	_ sm.Scripted     = Protocol{}
	_ sm.FormatLister = Protocol{}
	_ sm.Demoed       = Protocol{}
	_ sm.Templated    = Protocol{}
)

// Name returns "duet".
func (Protocol) Name() string { return Name }

// Summary describes the protocol in one line.
func (Protocol) Summary() string {
	return "moot's example protocol: pro and con make a statement a round, a judge scores both from 0 to 10"
}

// Roles returns pro, con and the judge.
func (Protocol) Roles() []sm.Role {
	return []sm.Role{
		{Name: Pro, Description: "speaks for the motion, one statement a round", Group: "speaker"},
		{Name: Con, Description: "speaks against the motion, one statement a round", Group: "speaker"},
		{Name: Judge, Description: "scores both statements of each round from 0 to 10"},
	}
}

// Demo is the debate of moot demo: two rounds on a motion.
func (Protocol) Demo() sm.Demo {
	return sm.Demo{Args: []string{"--motion", "Cities should ban private cars from their centres.", "--rounds", "2"},
		Parts: RoundsDir + "/", PartsAre: "each round's two statements and the judge's scores (rNN-judge.md)"}
}

var roundsFlag = sm.Flag{Name: "rounds", Usage: "how many `ROUNDS` the debate has, 1 to 9", Placeholder: "ROUNDS", Default: "2"}

// Flags returns --rounds.
func (Protocol) Flags() []sm.Flag { return []sm.Flag{roundsFlag} }

// state is what debate.md's frontmatter holds.
type state struct {
	Protocol string `json:"protocol"`
	Rounds   int    `json:"rounds"`
	// Round is how many rounds are judged.
	Round int `json:"round"`
	// Phase is what the next round waits for: speak or judge.
	Phase string `json:"phase"`
	// Totals are each side's scores so far, by role.
	Totals map[string]int `json:"totals"`
}

// stateKeys are the keys of debate.md the protocol writes, in order; any
// other key (moot's settings) is kept where it is.
var stateKeys = []string{"protocol", "rounds", "round", "phase", "totals"}

const (
	phaseSpeak = "speak"
	phaseJudge = "judge"
)

// New returns debate.md for a new debate of --rounds rounds on the motion.
func (Protocol) New(in sm.NewInput) ([]sm.File, error) {
	motion := strings.TrimSpace(in.Motion)
	if motion == "" {
		return nil, errors.New("the motion is empty")
	}
	n, err := strconv.Atoi(strings.TrimSpace(in.Value(roundsFlag)))
	if err != nil || n < 1 || n > maxRounds {
		return nil, &sm.InputError{Flag: roundsFlag.Name, Err: fmt.Errorf("%q is not a whole number from 1 to %d", in.Value(roundsFlag), maxRounds)}
	}
	d := &debate{st: state{Protocol: Name, Rounds: n, Phase: phaseSpeak, Totals: map[string]int{Pro: 0, Con: 0}}, motion: motion}
	data, err := d.renderState(d.st)
	if err != nil {
		return nil, err
	}
	return []sm.File{{Name: sm.StateFile, Data: data}}, nil
}

// debate is a duet debate as read from its files.
type debate struct {
	st     state
	front  frontmatter.Object
	motion string
	tmpl   *templates.Set
	// statements holds each statement by round and role; verdicts each
	// judged round's scores.
	statements map[int]map[string]statement
	verdicts   map[int]verdict
	// judges holds every folder under judgments/, by name.
	judges map[string]*judgeFolder
	// stray lists the files of rounds/ that are no round's, as problems.
	stray []sm.Problem
}

// statement is one speaker's statement, as its file holds it.
type statement struct {
	Round int    `json:"round"`
	Role  string `json:"role"`
	Model string `json:"model,omitempty"`
	Text  string `json:"-"`
}

// mark is one statement's score and the judge's reason for it.
type mark struct {
	Score  int    `json:"score"`
	Reason string `json:"reason"`
}

// verdict is a judge's scores of one round, as its file holds them.
type verdict struct {
	Round int    `json:"round"`
	Role  string `json:"role"`
	Model string `json:"model,omitempty"`
	Pro   mark   `json:"pro"`
	Con   mark   `json:"con"`
}

// of returns the mark of side.
func (v verdict) of(side string) mark {
	if side == Pro {
		return v.Pro
	}
	return v.Con
}

// judgeFolder is a judge's folder under judgments/: its record (nil for a
// folder no step has committed to) and its verdicts by round.
type judgeFolder struct {
	sm.Seating
	verdicts map[int]verdict
}

// Load reads a debate from its files.
func (p Protocol) Load(files fs.FS) (sm.Debate, error) {
	if p.Templates == nil {
		return load(files, templates.For(Name))
	}
	return load(files, p.Templates)
}

// WithTemplates returns p with the prompt templates t (sm.Templated).
func (p Protocol) WithTemplates(t *templates.Set) sm.Protocol {
	p.Templates = t
	return p
}

func load(files fs.FS, tmpl *templates.Set) (*debate, error) {
	data, err := fs.ReadFile(files, sm.StateFile)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", sm.StateFile, err)
	}
	d := &debate{tmpl: tmpl, statements: map[int]map[string]statement{}, verdicts: map[int]verdict{}}
	front, body, err := frontmatter.ParseInto(data, &d.st)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", sm.StateFile, err)
	}
	if err := sm.RequireKeys(front, Name, "rounds", "round", "phase", "totals"); err != nil {
		return nil, err
	}
	d.front = front
	d.motion = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(body), "# Motion"))
	names, err := sm.FileNames(files, RoundsDir)
	if err != nil {
		return nil, err
	}
	for _, n := range names {
		file := RoundsDir + "/" + n
		m := roundFile().FindStringSubmatch(n)
		if m == nil {
			d.stray = append(d.stray, sm.Problem{File: file, Message: "is no file of a round: a round's files are rNN-pro.md, rNN-con.md and rNN-judge.md"})
			continue
		}
		round, _ := strconv.Atoi(m[1])
		data, err := fs.ReadFile(files, file)
		if err != nil {
			return nil, fmt.Errorf("read %s: %w", file, err)
		}
		if m[2] == Judge {
			v, err := readVerdict(data)
			if err != nil {
				return nil, fmt.Errorf("read %s: %w", file, err)
			}
			d.verdicts[round] = v
			continue
		}
		var s statement
		_, body, err := frontmatter.ParseInto(data, &s)
		if err != nil {
			return nil, fmt.Errorf("read %s: %w", file, err)
		}
		s.Text = strings.TrimSpace(body)
		if d.statements[round] == nil {
			d.statements[round] = map[string]statement{}
		}
		d.statements[round][m[2]] = s
	}
	if err := d.readJudges(files); err != nil {
		return nil, err
	}
	return d, nil
}

// roundFile matches the name of a round's file: its round and its role.
var roundFile = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^r([0-9]{2})-(pro|con|judge)\.md$`) })

// judgeFile matches the name of a round's file in a judge's folder.
var judgeFile = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^r([0-9]{2})\.md$`) })

// readJudges reads every folder under judgments/: its record and its
// rounds' verdicts; what is wrong with the folders is stray
// (sm.Bench.Problems).
func (d *debate) readJudges(files fs.FS) error {
	b, err := sm.ReadBench(files, d.front)
	if err != nil {
		return err
	}
	d.stray = append(d.stray, b.Problems(sm.FolderLayout{Owns: judgeFile().MatchString, Want: []string{"rNN.md"}})...)
	d.judges, err = sm.EachFolder(b, func(name string, rec *sm.JudgeRecord) (*judgeFolder, error) {
		f := &judgeFolder{Seating: sm.Seating{Record: rec}, verdicts: map[int]verdict{}}
		dir := sm.JudgeFolder(name)
		for _, n := range b.Entries[name] {
			m := judgeFile().FindStringSubmatch(n)
			if m == nil {
				continue
			}
			file := dir + "/" + n
			data, err := fs.ReadFile(files, file)
			if err != nil {
				return nil, fmt.Errorf("read %s: %w", file, err)
			}
			v, err := readVerdict(data)
			if err != nil {
				return nil, fmt.Errorf("read %s: %w", file, err)
			}
			round, _ := strconv.Atoi(m[1])
			f.verdicts[round] = v
		}
		return f, nil
	})
	return err
}

// readVerdict reads a verdict's file: its scores are its frontmatter.
func readVerdict(data []byte) (verdict, error) {
	var v verdict
	if _, _, err := frontmatter.ParseInto(data, &v); err != nil {
		return v, err
	}
	return v, nil
}

// renderState writes debate.md with st, keeping every key of the file the
// protocol does not write.
func (d *debate) renderState(st state) ([]byte, error) {
	front, err := frontmatter.Merge(d.front, st, stateKeys)
	if err != nil {
		return nil, err
	}
	return frontmatter.Render(front, "# Motion\n\n"+d.motion+"\n")
}

// statementFile, verdictFile and rejudgeFile name a round's files.
func statementFile(round int, role string) string {
	return fmt.Sprintf("%s/r%02d-%s.md", RoundsDir, round, role)
}
func verdictFile(round int) string { return statementFile(round, Judge) }
func rejudgeFile(judge string, round int) string {
	return fmt.Sprintf("%s/r%02d.md", sm.JudgeFolder(judge), round)
}

// renderStatement and renderVerdict write a round's files.
func renderStatement(s statement) ([]byte, error) {
	keys := []string{"round", "role", "model"}
	if s.Model == "" {
		keys = keys[:2]
	}
	front, err := frontmatter.Merge(frontmatter.Object{}, s, keys)
	if err != nil {
		return nil, err
	}
	return frontmatter.Render(front, s.Text+"\n")
}

func renderVerdict(v verdict) ([]byte, error) {
	keys := []string{"round", "role", "model", "pro", "con"}
	if v.Model == "" {
		keys = []string{"round", "role", "pro", "con"}
	}
	front, err := frontmatter.Merge(frontmatter.Object{}, v, keys)
	if err != nil {
		return nil, err
	}
	return frontmatter.Render(front, fmt.Sprintf("pro %d: %s\n\ncon %d: %s\n", v.Pro.Score, v.Pro.Reason, v.Con.Score, v.Con.Reason))
}

// Status says where the debate stands: the rounds judged, the totals, and
// what comes next.
func (d *debate) Status() sm.Status {
	st := sm.Status{Unit: "round", Done: d.st.Round, Total: d.st.Rounds, Complete: d.st.Round >= d.st.Rounds, Phase: d.st.Phase}
	round := d.st.Round + 1
	switch {
	case st.Complete:
		st.Phase, st.Next = "complete", "nothing: the debate is complete"
	case d.st.Phase == phaseJudge:
		st.Next = fmt.Sprintf("the judge scores round %d", round)
	default:
		st.Next = fmt.Sprintf("pro and con make their statements of round %d", round)
	}
	st.Lines = []sm.Line{{Label: "totals", Text: fmt.Sprintf("pro %d · con %d", d.st.Totals[Pro], d.st.Totals[Con])}}
	st.Data = map[string]any{"totals": map[string]int{Pro: d.st.Totals[Pro], Con: d.st.Totals[Con]}}
	return st
}

// Leader says who leads, or who won once the debate is complete.
func (d *debate) Leader() string {
	p, c := d.st.Totals[Pro], d.st.Totals[Con]
	if d.st.Round == 0 {
		return ""
	}
	lead, hi, lo := Pro, p, c
	if c > p {
		lead, hi, lo = Con, c, p
	}
	switch {
	case p == c && d.st.Round >= d.st.Rounds:
		return fmt.Sprintf("drawn, %d all", p)
	case p == c:
		return fmt.Sprintf("level, %d all", p)
	case d.st.Round >= d.st.Rounds:
		return fmt.Sprintf("%s won, %d to %d", lead, hi, lo)
	}
	return fmt.Sprintf("%s leads, %d to %d", lead, hi, lo)
}

// Check lists what is wrong with the files: a state outside its bounds, a
// round's file missing or one too many, a score out of range, or totals
// that are not the sum of the verdicts.
func (d *debate) Check() sm.Findings {
	var f sm.Findings
	switch {
	case d.st.Protocol != Name:
		f.Problemf(sm.StateFile, "protocol is %q, not %q", d.st.Protocol, Name)
	case d.st.Rounds < 1 || d.st.Rounds > maxRounds:
		f.Problemf(sm.StateFile, "rounds is %d, not a number from 1 to %d", d.st.Rounds, maxRounds)
	case d.st.Round < 0 || d.st.Round > d.st.Rounds:
		f.Problemf(sm.StateFile, "round is %d, not a number from 0 to %d (rounds)", d.st.Round, d.st.Rounds)
	case d.st.Phase != phaseSpeak && d.st.Phase != phaseJudge:
		f.Problemf(sm.StateFile, "phase is %q, neither %q nor %q", d.st.Phase, phaseSpeak, phaseJudge)
	case d.st.Phase == phaseJudge && d.st.Round >= d.st.Rounds:
		f.Problemf(sm.StateFile, "phase is %q, but every round is judged", phaseJudge)
	}
	f.Problems = append(f.Problems, d.stray...)
	spoken := d.st.Round
	if d.st.Phase == phaseJudge {
		spoken++
	}
	rounds := map[int]bool{}
	for r := range d.statements {
		rounds[r] = true
	}
	for r := range d.verdicts {
		rounds[r] = true
	}
	for r := 1; r <= spoken; r++ {
		rounds[r] = true
	}
	totals := map[string]int{}
	for _, r := range sortedRounds(rounds) {
		for _, side := range sides {
			s, ok := d.statements[r][side]
			switch {
			case !ok && r <= spoken:
				f.Problemf(statementFile(r, side), "is missing: round %d was spoken", r)
			case ok && r > spoken:
				f.Problemf(statementFile(r, side), "is one too many: debate.md says %d rounds were spoken", spoken)
			case ok && (s.Round != r || s.Role != side):
				f.Problemf(statementFile(r, side), "says round %d and role %q, not round %d and %q", s.Round, s.Role, r, side)
			}
		}
		v, ok := d.verdicts[r]
		switch {
		case !ok && r <= d.st.Round:
			f.Problemf(verdictFile(r), "is missing: round %d was judged", r)
			continue
		case ok && r > d.st.Round:
			f.Problemf(verdictFile(r), "is one too many: debate.md says %d rounds were judged", d.st.Round)
			continue
		case !ok:
			continue
		}
		for _, e := range checkVerdict(v) {
			f.Problemf(verdictFile(r), "%s", e)
		}
		totals[Pro] += v.Pro.Score
		totals[Con] += v.Con.Score
	}
	for _, side := range sides {
		if totals[side] != d.st.Totals[side] {
			f.Problemf(sm.StateFile, "totals.%s is %d, but the verdicts give %s %d", side, d.st.Totals[side], side, totals[side])
		}
	}
	for _, name := range sm.SortedNames(d.judges, nil) {
		for _, r := range sortedRounds(keysOf(d.judges[name].verdicts)) {
			file := rejudgeFile(name, r)
			if r < 1 || r > d.st.Round {
				f.Problemf(file, "judges round %d, which the debate has not judged", r)
			}
			for _, e := range checkVerdict(d.judges[name].verdicts[r]) {
				f.Problemf(file, "%s", e)
			}
		}
	}
	return f
}

// checkVerdict lists what is wrong with a verdict's scores.
func checkVerdict(v verdict) []string {
	var out []string
	for _, side := range sides {
		if m := v.of(side); m.Score < 0 || m.Score > maxScore {
			out = append(out, fmt.Sprintf("%s.score is %d, not a whole number from 0 to %d", side, m.Score, maxScore))
		}
	}
	return out
}

func keysOf[V any](m map[int]V) map[int]bool {
	out := make(map[int]bool, len(m))
	for k := range m {
		out[k] = true
	}
	return out
}

func sortedRounds(set map[int]bool) []int {
	out := make([]int, 0, len(set))
	for r := range set {
		out = append(out, r)
	}
	sort.Ints(out)
	return out
}

// judgeModel is the judge's model as moot's settings in debate.md keep
// it; empty for a debate no run has judged.
func (d *debate) judgeModel() string { return sm.RoleModel(d.front, Judge) }
