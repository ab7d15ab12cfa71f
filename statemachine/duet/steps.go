package duet

import (
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/moot-dev/moot/internal/builtin"
	"github.com/moot-dev/moot/internal/lenient"
	sm "github.com/moot-dev/moot/statemachine"
	"github.com/moot-dev/moot/templates"
)

// Next returns the step the debate waits for: the statements of the next
// round, or the judge's scores of the round spoken; nil once every round
// is judged.
func (d *debate) Next() (*sm.Step, error) {
	if d.st.Round >= d.st.Rounds {
		return nil, nil
	}
	round := d.st.Round + 1
	if d.st.Phase == phaseJudge {
		return d.judgeStep(round)
	}
	return d.speakStep(round)
}

// history is the debate so far, up to round upTo, each statement quoted,
// for the speakers' prompts.
func (d *debate) history(upTo int) string {
	var parts []string
	for r := 1; r <= upTo; r++ {
		for _, side := range sides {
			if s, ok := d.statements[r][side]; ok {
				parts = append(parts, fmt.Sprintf("%s, round %d:\n%s", side, r, templates.Quote(s.Text)))
			}
		}
	}
	return strings.Join(parts, "\n\n")
}

// speakStep is round's statements: pro and con, asked in parallel.
func (d *debate) speakStep(round int) (*sm.Step, error) {
	user, err := d.tmpl.Render("speak.md", map[string]any{"Round": round, "Rounds": d.st.Rounds, "History": d.history(round - 1)})
	if err != nil {
		return nil, err
	}
	calls := make([]sm.Call, 0, len(sides))
	for _, side := range sides {
		system, err := d.tmpl.Render("speaker-system.md", map[string]any{"Role": side, "Motion": d.motion, "Words": words})
		if err != nil {
			return nil, err
		}
		calls = append(calls, sm.Call{
			ID: side, Role: side,
			Messages:  []sm.Message{{Role: "system", Content: system}, {Role: "user", Content: user}},
			Validate:  checkStatement,
			MaxTokens: 4 * words,
		})
	}
	return &sm.Step{
		Key: fmt.Sprintf("r%02d-speak", round), Unit: round, Calls: calls,
		Apply: func(answers map[string]sm.Answer, now time.Time) (*sm.Commit, error) {
			c := &sm.Commit{}
			var refused *sm.Refused
			for _, side := range sides {
				a := answers[side]
				if rep := checkStatement(a.Text); !rep.OK() {
					if refused == nil {
						refused = &sm.Refused{Role: side, RoleReasons: rep.Errors, Answer: true}
					}
					for _, e := range rep.Errors {
						refused.Reasons = append(refused.Reasons, side+": "+e)
					}
					continue
				}
				data, err := renderStatement(statement{Round: round, Role: side, Model: a.Model, Text: strings.TrimSpace(string(a.Text))})
				if err != nil {
					return nil, err
				}
				c.Files = append(c.Files, sm.File{Name: statementFile(round, side), Data: data})
				c.Events = append(c.Events, sm.Event{Kind: "spoke", Role: side, ID: fmt.Sprintf("r%02d-%s", round, side),
					Title: builtin.Clip(string(a.Text), 8), Message: fmt.Sprintf("round %d", round)})
			}
			if refused != nil {
				return nil, refused
			}
			st := d.st
			st.Phase = phaseJudge
			data, err := d.renderState(st)
			if err != nil {
				return nil, err
			}
			c.Files = append(c.Files, sm.File{Name: sm.StateFile, Data: data})
			return c, nil
		},
	}, nil
}

// checkStatement checks a speaker's answer: some text, and not more than
// twice the words it was asked to keep to.
func checkStatement(answer []byte) sm.Report {
	text := strings.TrimSpace(string(answer))
	if text == "" {
		return sm.Report{Errors: []string{"the statement is empty: answer with your statement in plain prose"}}
	}
	if n := len(strings.Fields(text)); n > 2*words {
		return sm.Report{Errors: []string{fmt.Sprintf("the statement is %d words long, over the %d a statement may have: shorten it to at most %d words", n, 2*words, words)}}
	}
	return sm.Report{}
}

// scoresSchema is the schema of a judge's answer: a score from 0 to 10
// and a reason for each side.
var scoresSchema = func() map[string]any {
	m := sm.SchemaObject(map[string]any{"score": sm.SchemaInteger(0, maxScore), "reason": sm.SchemaString()}, "score", "reason")
	return sm.SchemaObject(map[string]any{Pro: m, Con: m}, Pro, Con)
}()

// judgeCall is the call that asks the judge for round's scores.
func (d *debate) judgeCall(round int) (sm.Call, error) {
	system, err := d.tmpl.Render("judge-system.md", map[string]any{"Motion": d.motion})
	if err != nil {
		return sm.Call{}, err
	}
	user, err := d.tmpl.Render("judge.md", map[string]any{"Round": round, "Rounds": d.st.Rounds,
		"Pro": d.statements[round][Pro].Text, "Con": d.statements[round][Con].Text})
	if err != nil {
		return sm.Call{}, err
	}
	return sm.Call{
		ID: Judge, Role: Judge,
		Messages:   []sm.Message{{Role: "system", Content: system}, {Role: "user", Content: user}},
		Schema:     scoresSchema,
		SchemaName: "scores",
		Validate:   func(a []byte) sm.Report { _, errs := parseScores(a); return sm.Report{Errors: errs} },
		MaxTokens:  400,
	}, nil
}

// parseScores reads a judge's answer as a person would: the JSON object
// in it (fenced or not), each score a whole number from 0 to 10 (7.0 is
// 7), each reason some text. It returns what is wrong, in the words the
// judge is sent back.
func parseScores(answer []byte) (verdict, []string) {
	body, ok := lenient.JSON(answer)
	if !ok {
		return verdict{}, []string{`the answer holds no JSON object: answer with {"pro": {"score": N, "reason": "..."}, "con": {"score": N, "reason": "..."}}`}
	}
	var raw map[string]struct {
		Score  *float64 `json:"score"`
		Reason string   `json:"reason"`
	}
	if err := json.Unmarshal(body, &raw); err != nil {
		return verdict{}, []string{"the answer is not the JSON object asked for: " + err.Error()}
	}
	var v verdict
	var errs []string
	for _, side := range sides {
		r, ok := raw[side]
		switch {
		case !ok:
			errs = append(errs, fmt.Sprintf("%s: is missing: score %s's statement too", side, side))
			continue
		case r.Score == nil:
			errs = append(errs, fmt.Sprintf("%s.score: is missing: give a whole number from 0 to %d", side, maxScore))
		case *r.Score != math.Trunc(*r.Score) || *r.Score < 0 || *r.Score > maxScore:
			errs = append(errs, fmt.Sprintf("%s.score: %v is not a whole number from 0 to %d", side, *r.Score, maxScore))
		}
		if strings.TrimSpace(r.Reason) == "" {
			errs = append(errs, fmt.Sprintf("%s.reason: is empty: say in a sentence why %s's statement earns its score", side, side))
		}
		if len(errs) > 0 {
			continue
		}
		m := mark{Score: int(*r.Score), Reason: strings.TrimSpace(r.Reason)}
		if side == Pro {
			v.Pro = m
		} else {
			v.Con = m
		}
	}
	return v, errs
}

// judgeStep is the judge's scores of round, which add to the totals.
func (d *debate) judgeStep(round int) (*sm.Step, error) {
	call, err := d.judgeCall(round)
	if err != nil {
		return nil, err
	}
	return &sm.Step{
		Key: fmt.Sprintf("r%02d-judge", round), Unit: round, Calls: []sm.Call{call},
		Apply: func(answers map[string]sm.Answer, now time.Time) (*sm.Commit, error) {
			a := answers[Judge]
			v, errs := parseScores(a.Text)
			if len(errs) > 0 {
				return nil, &sm.Refused{Reasons: errs, Role: Judge, RoleReasons: errs, Answer: true}
			}
			v.Round, v.Role, v.Model = round, Judge, a.Model
			data, err := renderVerdict(v)
			if err != nil {
				return nil, err
			}
			st := d.st
			st.Totals = map[string]int{Pro: st.Totals[Pro] + v.Pro.Score, Con: st.Totals[Con] + v.Con.Score}
			st.Round, st.Phase = round, phaseSpeak
			state, err := d.renderState(st)
			if err != nil {
				return nil, err
			}
			return &sm.Commit{
				Files:  []sm.File{{Name: verdictFile(round), Data: data}, {Name: sm.StateFile, Data: state}},
				Events: scoredEvents(round, "", v),
			}, nil
		},
	}, nil
}

// scoredEvents say what a verdict of round gave each side; the last ends
// the round. judge names a judge who judges again, "" for the debate's.
func scoredEvents(round int, judge string, v verdict) []sm.Event {
	var out []sm.Event
	for i, side := range sides {
		m := v.of(side)
		score := float64(m.Score)
		title := fmt.Sprintf("%s's statement of round %d", side, round)
		if judge != "" {
			title = fmt.Sprintf("%s scores %s's statement of round %d again", judge, side, round)
		}
		out = append(out, sm.Event{Kind: "scored", Role: Judge, ID: fmt.Sprintf("r%02d-%s", round, side), Score: &score,
			Title: title, Message: fmt.Sprintf("%s %d: %s", side, m.Score, m.Reason), Ends: i == len(sides)-1})
	}
	return out
}
