package dialectic

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"

	sm "github.com/moot-dev/moot/statemachine"
)

var _ sm.StepTool = Protocol{}

// toolHelp is what moot debate-ops --help says after the usage lines.
const toolHelp = `moot debate-ops stands in for dialectic's debate_ops, the step tool its plugin
runs as "python3 <skill>/debate_ops ...": the same arguments, the same printed
objects on the same streams, exit status 1 for every failure. <debate> is the
debate's directory relative to the working directory. The answer files are
removed once they have been judged, accepted or refused, as debate_ops did;
they are kept when the step could not be taken at all.`

// StepTool returns debate-ops, moot standing in for dialectic's Python
// package debate_ops, so that dialectic's plugin can call moot instead:
// the same command lines, the same printed objects on the same streams,
// and exit status 1 for every failure. The rules are moot's, as are the
// files it writes, and a step is all or nothing.
func (Protocol) StepTool() sm.Tool {
	return sm.Tool{
		Name:  "debate-ops",
		Usage: "stand in for dialectic's debate_ops (its plugin's step tool): same arguments, printed objects and exit statuses; removes its input files",
		Help:  toolHelp,
		Commands: []sm.ToolCommand{
			{
				Name: "process-exchange", ArgsUsage: "<debate> <exchange> --prop-file <path> --opp-file <path>",
				Args: 7, Files: []string{"--prop-file", "--opp-file"},
				Check: func(args []string) error {
					_, err := toolExchange(args[2])
					return err
				},
				Take: toolArguments,
			},
			{
				Name: "process-judge", ArgsUsage: "<debate> --json-file <path>",
				Args: 4, Files: []string{"--json-file"},
				Take: toolJudgment,
			},
		},
	}
}

// toolExchange reads the exchange of a process-exchange command line.
func toolExchange(arg string) (int, error) {
	exchange, err := strconv.Atoi(strings.TrimSpace(arg))
	if err != nil || exchange < 0 || exchange > MaxExchange {
		return 0, fmt.Errorf("exchange %q is not a whole number from 0 to %d", arg, MaxExchange)
	}
	return exchange, nil
}

// toolArguments is debate-ops process-exchange: both sides' arguments for
// an exchange, under dialectic's rules (see ParseDialecticSubmissions).
// A refusal prints the side that broke a rule and its errors on stderr;
// the arguments taken print their ids, and the warnings dialectic gave,
// on stdout.
func toolArguments(d sm.Debate, args []string, inputs [][]byte, _ time.Time) (sm.ToolResult, error) {
	deb, err := Loaded(d, nil)
	if err != nil {
		return sm.ToolResult{}, err
	}
	exchange, err := toolExchange(args[2])
	if err != nil {
		return sm.ToolResult{}, err
	}
	x, refused, err := toolCheckExchange(deb, exchange, inputs[0], inputs[1])
	if err != nil {
		return sm.ToolResult{}, err
	}
	if refused != nil {
		return sm.ToolResult{Failed: true, Stderr: true, Notes: x.Warnings, Object: sm.ToolObject{
			{Key: "success", Value: false},
			{Key: "side", Value: refused.Role},
			{Key: "errors", Value: refused.RoleReasons},
			{Key: "warnings", Value: nil},
		}}, nil
	}
	c, err := CommitArguments(deb, x.Exchange)
	if err != nil {
		return sm.ToolResult{}, err
	}
	ids := sm.ToolObject{}
	for _, side := range Sides() {
		var got []string
		for _, arg := range x.Arguments {
			if arg.Side == side {
				got = append(got, arg.ID)
			}
		}
		var v any = got
		if len(got) == 1 {
			v = got[0]
		}
		ids = append(ids, sm.ToolField{Key: side.Name(), Value: v})
	}
	// The object holds only the warnings dialectic gave, in its words;
	// moot's own are notes.
	var w any
	if len(x.dialectic) > 0 {
		w = x.dialectic
	}
	return sm.ToolResult{Files: c.Files, Notes: x.Warnings, Object: sm.ToolObject{
		{Key: "success", Value: true}, {Key: "argument_id", Value: ids}, {Key: "warnings", Value: w},
	}}, nil
}

// toolChecked is an exchange checked under dialectic's rules, with the
// warnings dialectic would have given, in its words.
type toolChecked struct {
	*Exchange
	dialectic []string
}

// toolCheckExchange is CheckExchange under dialectic's rules (see
// ParseDialecticSubmissions). refused is set when an answer broke a rule;
// err when the step cannot be taken at all.
func toolCheckExchange(deb *Debate, exchange int, prop, opp []byte) (x toolChecked, refused *sm.Refused, err error) {
	if err := deb.Header.State.AcceptArguments(exchange); err != nil {
		return x, nil, err
	}
	answers := map[Side][]byte{Prop: prop, Opp: opp}
	for _, side := range Sides() {
		if err := CheckSize(side.Name(), answers[side]); err != nil {
			return x, nil, err
		}
	}
	known := deb.Known()
	x.Exchange = &Exchange{}
	for _, side := range Sides() {
		subs, p := ParseDialecticSubmissions(answers[side], side, exchange, known)
		for _, w := range p.Warnings {
			x.Warnings = append(x.Warnings, side.Name()+": "+w)
		}
		if !p.OK() {
			// dialectic stopped at the first side that broke a rule.
			return x, &sm.Refused{Role: side.Name(), RoleReasons: p.Errors, Answer: true}, nil
		}
		ids := ArgumentIDs(exchange, side)
		for i, s := range subs {
			x.Arguments = append(x.Arguments, NewArgument(ids[i], side, exchange, s))
			if len(s.Unknown) > 0 {
				x.dialectic = append(x.dialectic, "Unrecognized keys (ignored): "+pySet(s.Unknown))
			}
		}
	}
	return x, nil, nil
}

// toolJudgment is debate-ops process-judge: the judge's scores for the
// exchange the debate waits for, under dialectic's rules (see
// ParseDialecticJudgment). Both a refusal and the scores taken print on
// stdout.
func toolJudgment(d sm.Debate, _ []string, inputs [][]byte, now time.Time) (sm.ToolResult, error) {
	deb, err := Loaded(d, nil)
	if err != nil {
		return sm.ToolResult{}, err
	}
	answer := inputs[0]
	if err := deb.Header.State.AcceptJudgment(); err != nil {
		return sm.ToolResult{}, err
	}
	if err := CheckSize("judge", answer); err != nil {
		return sm.ToolResult{}, err
	}
	known, current := deb.Known(), deb.Scores.Current()
	j, skipped, p := ParseDialecticJudgment(answer, deb.Header.State.Exchange, known, current)
	if !p.OK() {
		return sm.ToolResult{Failed: true, Notes: p.Warnings, Object: sm.ToolObject{
			{Key: "success", Value: false}, {Key: "argument_id", Value: nil}, {Key: "errors", Value: p.Errors},
		}}, nil
	}
	files, err := toolJudgmentFiles(deb, j, now)
	if err != nil {
		return sm.ToolResult{}, err
	}
	out := sm.ToolObject{{Key: "success", Value: true}}
	// One argument gives one id and one score, several give lists; a
	// score of 0 alone is left out, as debate_ops left it out.
	var ids []string
	var values []float64
	for _, s := range j.Scores {
		ids, values = append(ids, s.ArgumentID), append(values, s.Score)
	}
	scores := pyScores(answer, values)
	if len(ids) == 1 {
		out = append(out, sm.ToolField{Key: "argument_id", Value: ids[0]})
		if values[0] != 0 {
			out = append(out, sm.ToolField{Key: "score", Value: scores[0]})
		}
	} else {
		out = append(out, sm.ToolField{Key: "argument_id", Value: ids}, sm.ToolField{Key: "score", Value: scores})
	}
	if len(j.Rescores) > 0 {
		var rescored []string
		for _, r := range j.Rescores {
			rescored = append(rescored, r.ArgumentID)
		}
		out = append(out, sm.ToolField{Key: "rescored", Value: rescored})
	}
	// dialectic's warnings: the rescores it skipped, in its words.
	var warnings []string
	for _, sk := range skipped {
		if sk.Incomplete {
			warnings = append(warnings, "Incomplete rescore entry: "+pyRepr(sk.Raw))
		} else {
			warnings = append(warnings, fmt.Sprintf("Rescore delta for %s is %.3f, outside valid range [-0.5, 0.5]", sk.ID, sk.Delta))
		}
	}
	if len(warnings) > 0 {
		out = append(out, sm.ToolField{Key: "warnings", Value: warnings})
	}
	return sm.ToolResult{Files: files, Notes: p.Warnings, Object: out}, nil
}

// toolJudgmentFiles are the files of a judgment as dialectic's debate_ops
// wrote them: new arguments join scores.json in the judge's order, and
// the numbers of scores.json and of debate.md's totals are written as
// Python wrote them (0.0 for a score the judge wrote 0.0). debate.md goes
// last, as every commit of moot writes it.
func toolJudgmentFiles(deb *Debate, j Judgment, now time.Time) ([]sm.File, error) {
	deb.Scores.ApplyAsGiven(j.Entries(deb.Known(), deb.Scores.Current()), now)
	scores, err := deb.Scores.RenderDialectic()
	if err != nil {
		return nil, fmt.Errorf("render %s: %w", ScoresFile, err)
	}
	deb.Header.Totals = Cumulative(deb.Scores.Current())
	deb.Header.DialecticTotals = deb.Scores.DialecticTotals()
	deb.Header.State = deb.Header.State.Next()
	header, err := deb.Header.Render()
	if err != nil {
		return nil, fmt.Errorf("render %s: %w", sm.StateFile, err)
	}
	return []sm.File{
		{Name: ScoresFile, Data: scores},
		{Name: GraphFile, Data: []byte(Graph(deb))},
		{Name: sm.StateFile, Data: header},
	}, nil
}

// pyScores returns the scores of an accepted judgment as debate_ops printed
// them: a score the judge wrote as a whole number (1, 0) stays one, as
// Python's json module reads it; any other is a float. scores are the
// values moot read, in the judge's order.
func pyScores(answer []byte, scores []float64) []any {
	out := make([]any, len(scores))
	for i, s := range scores {
		out[i] = s
	}
	body, err := ExtractJSON(answer)
	if err != nil {
		return out
	}
	type score struct {
		Score json.Number `json:"score"`
	}
	var j struct {
		Scores []score `json:"scores"`
		score
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	if err := dec.Decode(&j); err != nil {
		return out
	}
	given := j.Scores
	if given == nil {
		given = []score{j.score}
	}
	if len(given) != len(scores) {
		return out
	}
	for i, g := range given {
		if strings.ContainsAny(g.Score.String(), ".eE") {
			continue
		}
		if n, err := strconv.ParseInt(g.Score.String(), 10, 64); err == nil {
			out[i] = sm.ToolInt(n)
		}
	}
	return out
}
