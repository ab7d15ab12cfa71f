// This file builds what each role of a debate is shown, as a pure
// function of the debate's files and the templates in force. A resumed run
// therefore asks exactly what an uninterrupted run would have asked.
//
// A debater sees the motion, its definitions and scope, its side, the
// exchange, and every earlier argument of both sides in full with its id;
// never a score, never the judge's reasoning, never the other side's
// argument of the same exchange. The judge sees the motion, the arguments
// of the exchange it judges and every earlier argument they attack or
// defend in full, so that it can check an attack on an argument's grounds
// or warrant against the grounds and warrant themselves, every other
// earlier argument as one index line, and the current scores (see
// JudgeContext; under ContextFull it sees every argument in full).
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
	"encoding/json"
	"fmt"
	"strings"
	"unicode"

	sm "github.com/moot-dev/moot/statemachine"
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
	// Marks are where the parts of the user message that the role's
	// prompts share end (see sm.Call.Marks): for a debater, where the
	// arguments its previous prompt showed end and where those this one
	// shows end, which its next prompt repeats; for a judge, the end of
	// the motion, which every judge's prompt repeats.
	Marks []sm.Mark
}

// userMessage is the index of the user message in every prompt.
const userMessage = 1

// motionEnd returns where the motion's text ends in user, or 0 when a
// template leaves it out.
func motionEnd(user, motion string) int {
	if motion == "" {
		return 0
	}
	i := strings.Index(user, motion)
	if i < 0 {
		return 0
	}
	return i + len(motion)
}

// exchangeEnds returns, for each exchange from 0 to x-1, where the last
// of its arguments in args (in the order they were made) ends in user, each
// found after the one before; -1 for an exchange none of whose bodies a
// template shows. A body is found as it is, or as a judge's prompt quotes
// it (templates.Quote).
func exchangeEnds(user string, args []argumentView, x int) []int {
	ends := make([]int, x)
	for i := range ends {
		ends[i] = -1
	}
	at := 0
	for _, a := range args {
		if a.Exchange < 0 || a.Exchange >= x || strings.TrimSpace(a.Body) == "" {
			continue
		}
		body := a.Body
		i := strings.Index(user[at:], body)
		if i < 0 {
			body = templates.Neutralise(strings.TrimRightFunc(a.Body, unicode.IsSpace))
			i = strings.Index(user[at:], body)
		}
		if i < 0 {
			continue
		}
		at += i + len(body)
		ends[a.Exchange] = at
	}
	return ends
}

// marks turns offsets in the user message into marks, leaving out those
// not found (0 or less) and any not after the one before.
func marks(offsets ...int) []sm.Mark {
	var out []sm.Mark
	last := 0
	for _, o := range offsets {
		if o > last {
			out = append(out, sm.Mark{Message: userMessage, Offset: o})
			last = o
		}
	}
	return out
}

// historyMarks are the marks of a prompt that shows, after the motion,
// the arguments of the exchanges before x in full, in the order they were
// made: the end of what the role's previous prompt showed (the motion when
// it showed none, the arguments up to exchange x-2 otherwise), then the
// end of what its next prompt will repeat (the motion when this one shows
// no argument, the arguments up to exchange x-1 otherwise). A debater's
// prompt for exchange x is such a prompt, and so is the judge's under
// ContextFull, with x one above the exchange it judges.
func historyMarks(user, motion string, shown []argumentView, x int) []sm.Mark {
	m := motionEnd(user, motion)
	if x == 0 {
		return marks(m)
	}
	ends := exchangeEnds(user, shown, x)
	read := m
	if x >= 2 {
		read = ends[x-2]
	}
	return marks(read, ends[x-1])
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
	Rest        []indexEntry
	Focused     bool
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
		Marks:      historyMarks(user, v.Motion, v.Earlier, x),
	}, nil
}

// JudgeContext says which earlier arguments a judge's prompt shows in full.
type JudgeContext string

const (
	// ContextFocused, the default, shows in full the arguments of the
	// exchange to judge and every earlier argument they attack or defend,
	// and every other earlier argument as one line of an index: its id,
	// side, current score and claim.
	ContextFocused JudgeContext = "focused"
	// ContextFull shows every argument of the debate in full, as moot
	// did before the focused context was the default.
	ContextFull JudgeContext = "full"
)

// JudgeContextField is the field of debate.md's moot settings that keeps
// the judge context of a debate; absent means ContextFocused.
const JudgeContextField = "judge_context"

// ParseJudgeContext reads a judge context as a person or a settings file
// writes it; "" is the default, ContextFocused.
func ParseJudgeContext(s string) (JudgeContext, error) {
	switch JudgeContext(s) {
	case "", ContextFocused:
		return ContextFocused, nil
	case ContextFull:
		return ContextFull, nil
	}
	return "", fmt.Errorf("%q is not a judge context (focused or full)", truncate(s, 40))
}

// JudgeContextOf returns the judge context debate.md's moot settings keep.
func JudgeContextOf(h *Header) (JudgeContext, error) {
	raw, ok := h.Setting("moot")
	if !ok {
		return ContextFocused, nil
	}
	var set struct {
		JudgeContext *string `json:"judge_context"`
	}
	if err := json.Unmarshal(raw, &set); err != nil || set.JudgeContext == nil {
		// The driver reports a malformed settings value when it reads
		// them; what is not a judge context here is the default.
		return ContextFocused, nil
	}
	c, err := ParseJudgeContext(*set.JudgeContext)
	if err != nil {
		return "", fmt.Errorf("%s: field \"moot\": %s: %w", sm.StateFile, JudgeContextField, err)
	}
	return c, nil
}

// maxIndexClaim bounds, in characters, the claim an index line quotes.
const maxIndexClaim = 160

// indexClaim is a claim as an index line quotes it: on one line, at most
// maxIndexClaim characters.
func indexClaim(claim string) string {
	return truncate(strings.Join(strings.Fields(claim), " "), maxIndexClaim)
}

// JudgePrompt builds the judge's prompt for the exchange awaiting
// judgment, in the judge context debate.md's settings keep.
func JudgePrompt(t *templates.Set, d *Debate) (Prompt, error) {
	ctx, err := JudgeContextOf(d.Header)
	if err != nil {
		return Prompt{}, err
	}
	return judgePrompt(t, d, d.Header.State.Exchange, d.Scores.Current(), ctx)
}

// Context lists the ids of the earlier arguments the arguments of
// exchange x attack or defend, in the order they were made: those a
// focused judge's prompt shows in full besides the new ones.
func Context(d *Debate, x int) []string {
	targets := map[string]bool{}
	for _, a := range d.Arguments {
		if a.Exchange != x {
			continue
		}
		for _, t := range a.Attacks {
			targets[t.TargetID] = true
		}
		for _, t := range a.Defends {
			targets[t.TargetID] = true
		}
	}
	var out []string
	for _, a := range d.Arguments {
		if a.Exchange < x && targets[a.ID] {
			out = append(out, a.ID)
		}
	}
	return out
}

// judgePrompt builds a judge's prompt for exchange x in the judge context
// ctx, showing the earlier arguments with the scores of current: the
// prompt of a panel's judge, which sees its own scores, or of a judge
// judging a saved debate again.
func judgePrompt(t *templates.Set, d *Debate, x int, current map[string]float64, ctx JudgeContext) (Prompt, error) {
	v := base(d)
	v.Exchange = x
	v.Focused = ctx != ContextFull
	shown := map[string]bool{}
	for _, id := range Context(d, x) {
		shown[id] = true
	}
	var rescorable []string
	for _, a := range d.Arguments {
		full := a.Exchange == x || (a.Exchange < x && (!v.Focused || shown[a.ID]))
		if full {
			v.All = append(v.All, view(a))
		}
		switch {
		case a.Exchange == x:
			v.Arguments = append(v.Arguments, view(a))
		case a.Exchange < x:
			score := "none"
			if s, ok := current[a.ID]; ok {
				score = FormatScore(s)
				rescorable = append(rescorable, a.ID)
			}
			e := indexEntry{ID: a.ID, SideName: a.Side.Name(), Exchange: a.Exchange, Title: a.Title, Claim: a.ClaimText(), Score: score}
			if full {
				v.Index = append(v.Index, e)
			} else {
				e.Claim = indexClaim(e.Claim)
				v.Rest = append(v.Rest, e)
			}
		}
	}
	v.IDs = ExchangeIDs(x)
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
		Marks:      judgeMarks(user, v, x),
	}, nil
}

// judgeMarks are the marks of the judge's prompt v for exchange x: under
// ContextFull, which shows every argument in full in the order they were
// made, those of historyMarks; under the focused context, whose index and
// arguments in full change from exchange to exchange, the end of the
// motion, the part every judge's prompt repeats.
func judgeMarks(user string, v data, x int) []sm.Mark {
	if !v.Focused {
		return historyMarks(user, v.Motion, v.All, x+1)
	}
	return marks(motionEnd(user, v.Motion))
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
