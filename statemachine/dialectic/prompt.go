// Package prompt builds what each role of a debate is shown, as a pure
// function of the debate's files and the templates in force. A resumed run
// therefore asks exactly what an uninterrupted run would have asked.
//
// A debater sees the motion, its definitions and scope, its side, the
// exchange, and every earlier argument of both sides in full with its id;
// never a score, never the judge's reasoning, never the other side's
// argument of the same exchange. The judge sees the motion, every
// argument in full up to those of the exchange it judges, and the current
// scores of the earlier ones: it can check an attack on an argument's
// grounds or warrant against the grounds and warrant themselves.
//
// Each prompt puts what the role's previous prompt already held first, in
// the same order, and what is new last, so that a provider's prompt cache
// can serve the repeated part: the system prompt holds every instruction
// and the form of the answer, which do not change from call to call; the
// user message holds the motion, then the arguments in the order they
// were made, which only grow at the end; then what changes from call to
// call: for the judge the current scores (a rescore changes them), and a
// short line naming the exchange (and for the judge its ids) to answer.
// bench/prefix measures it.
package dialectic

import (
	"fmt"

	"github.com/moot-dev/moot/templates"
)

// Role is who a prompt is for.
type Role string

// The three roles of a dialectic debate.
const (
	Proposition Role = "proposition"
	Opposition  Role = "opposition"
	Judge       Role = "judge"
)

// RoleOf returns the debater role of side.
func RoleOf(side Side) Role {
	if side == Opp {
		return Opposition
	}
	return Proposition
}

// Message is one chat message.
type Message struct {
	Role    string // "system", "user" or "assistant"
	Content string
}

// Prompt is what one role is asked: its conversation and the JSON schema
// of the answer expected.
type Prompt struct {
	Role       Role
	Messages   []Message
	SchemaName string
	Schema     map[string]any
}

type argumentView struct {
	ID       string
	SideName string
	Exchange int
	Title    string
	Body     string
}

type indexEntry struct {
	ID       string
	SideName string
	Exchange int
	Title    string
	Claim    string
	Score    string
}

type data struct {
	Motion      string
	Definitions []Definition
	Scope       string
	Side        string
	Opponent    string
	Exchange    int
	Own         []argumentView
	Others      []argumentView
	Earlier     []argumentView
	Arguments   []argumentView
	All         []argumentView
	Index       []indexEntry
	IDs         []string
	Errors      []string
}

func base(d *Debate) data {
	m := d.Header.Motion
	return data{Motion: m.Text, Definitions: m.Definitions, Scope: m.Scope, Exchange: d.Header.State.Exchange}
}

func view(a *Argument) argumentView {
	return argumentView{ID: a.ID, SideName: a.Side.Name(), Exchange: a.Exchange, Title: a.Title, Body: a.Body}
}

// Debater builds the prompt of side for the exchange the debate waits for.
func Debater(t *templates.Set, d *Debate, side Side) (Prompt, error) {
	x := d.Header.State.Exchange
	v := base(d)
	v.Side, v.Opponent = side.Name(), side.Other().Name()
	var attackable, defensible []string
	for _, a := range d.Arguments {
		if a.Exchange >= x {
			continue // never the other side's argument of this exchange
		}
		v.Earlier = append(v.Earlier, view(a))
		if a.Side == side {
			v.Own = append(v.Own, view(a))
			defensible = append(defensible, a.ID)
		} else {
			v.Others = append(v.Others, view(a))
			attackable = append(attackable, a.ID)
		}
	}
	system, err := t.Render("debater-system.md", v)
	if err != nil {
		return Prompt{}, err
	}
	name := "debater-rebuttal.md"
	schema, schemaName := RebuttalSchema(attackable, defensible), "rebuttal"
	if Opening(x) {
		name = "debater-opening.md"
		schema, schemaName = OpeningSchema(), "opening"
	}
	user, err := t.Render(name, v)
	if err != nil {
		return Prompt{}, err
	}
	return Prompt{
		Role:       RoleOf(side),
		Messages:   []Message{{"system", system}, {"user", user}},
		SchemaName: schemaName,
		Schema:     schema,
	}, nil
}

// JudgePrompt builds the judge's prompt for the exchange awaiting judgment.
func JudgePrompt(t *templates.Set, d *Debate) (Prompt, error) {
	return judgePrompt(t, d, d.Header.State.Exchange, d.Scores.Current())
}

// judgePrompt builds a judge's prompt for exchange x, showing the earlier
// arguments with the scores of current: the prompt of a panel's judge,
// which sees its own scores, or of a judge judging a saved debate again.
func judgePrompt(t *templates.Set, d *Debate, x int, current map[string]float64) (Prompt, error) {
	v := base(d)
	v.Exchange = x
	for _, a := range d.Arguments {
		if a.Exchange <= x {
			v.All = append(v.All, view(a))
		}
		switch {
		case a.Exchange == x:
			v.Arguments = append(v.Arguments, view(a))
		case a.Exchange < x:
			score := "none"
			if s, ok := current[a.ID]; ok {
				score = FormatScore(s)
			}
			v.Index = append(v.Index, indexEntry{ID: a.ID, SideName: a.Side.Name(), Exchange: a.Exchange, Title: a.Title, Claim: a.Claim, Score: score})
		}
	}
	v.IDs = ExchangeIDs(x)
	var rescorable []string
	for _, e := range v.Index {
		if _, ok := current[e.ID]; ok {
			rescorable = append(rescorable, e.ID)
		}
	}
	if len(v.Arguments) != len(v.IDs) {
		return Prompt{}, fmt.Errorf("exchange %d has %d argument files, want %d", x, len(v.Arguments), len(v.IDs))
	}
	system, err := t.Render("judge-system.md", v)
	if err != nil {
		return Prompt{}, err
	}
	user, err := t.Render("judge.md", v)
	if err != nil {
		return Prompt{}, err
	}
	return Prompt{
		Role:       Judge,
		Messages:   []Message{{"system", system}, {"user", user}},
		SchemaName: "judgment",
		Schema:     JudgmentSchema(v.IDs, rescorable),
	}, nil
}

// Repair is the message that sends a refused answer's errors back to the
// model in the same conversation.
func Repair(t *templates.Set, errs []string) (Message, error) {
	s, err := t.Render("repair.md", data{Errors: errs})
	if err != nil {
		return Message{}, err
	}
	return Message{"user", s}, nil
}
