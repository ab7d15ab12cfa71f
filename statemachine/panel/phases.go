package panel

import (
	"fmt"
	"strings"

	"github.com/moot-dev/moot/internal/english"
	sm "github.com/moot-dev/moot/statemachine"
)

func (d *debate) aspectsPhase() ([]sm.Call, applyFunc, error) {
	n := d.st.Aspects
	c, err := d.analysisCall(RoleDecompose, RoleDecompose, "decompose", d.base("decompose"), aspectsSchema(n), func(a []byte) sm.Report {
		_, errs := parseAspects(a, n)
		return report(errs)
	})
	if err != nil {
		return nil, nil, err
	}
	return []sm.Call{c}, func(answers map[string]sm.Answer) ([]sm.File, []sm.Event, error) {
		as, errs := parseAspects(answers[c.ID].Text, n)
		if len(errs) > 0 {
			return nil, nil, refused(c.Role, errs)
		}
		f, err := jsonFile(AspectsFile, aspectsAnswer{Aspects: as})
		if err != nil {
			return nil, nil, err
		}
		labels := make([]string, len(as))
		for i, a := range as {
			labels[i] = a.Label
		}
		return []sm.File{f}, []sm.Event{{Kind: "decomposed", Role: c.Role, Message: "aspects: " + strings.Join(labels, "; ")}}, nil
	}, nil
}

// personaPhase is a phase of parallel persona calls, one message file
// each.
type personaSpec struct {
	pid, path string
	msg       Message
	call      sm.Call
	// text reads the spoken text of an answer (a reaction's JSON).
	text func([]byte) (string, string)
}

func (d *debate) personaPhase(specs []personaSpec) ([]sm.Call, applyFunc, error) {
	calls := make([]sm.Call, len(specs))
	for i, s := range specs {
		calls[i] = s.call
	}
	return calls, func(answers map[string]sm.Answer) ([]sm.File, []sm.Event, error) {
		var files []sm.File
		var events []sm.Event
		for _, s := range specs {
			ans := answers[s.call.ID]
			text, replyTo := string(ans.Text), ""
			if s.text != nil && ans.Skipped == "" && ans.Missing == nil {
				var errs []string
				if errs = s.call.Validate(ans.Text).Errors; len(errs) > 0 {
					return nil, nil, refused(s.pid, errs)
				}
				text, replyTo = s.text(ans.Text)
			}
			m := s.msg
			m.ReplyTo = replyTo
			f, ev, err := d.spoken(s.path, m, ans, text)
			if err != nil {
				return nil, nil, err
			}
			files, events = append(files, f), append(events, ev)
		}
		return files, events, nil
	}, nil
}

func (d *debate) openingsPhase() ([]sm.Call, applyFunc, error) {
	var specs []personaSpec
	for _, pid := range d.st.Personas {
		c, err := d.personaCall(pid, RolePersona, "opening.md", d.base("opening"), nil)
		if err != nil {
			return nil, nil, err
		}
		c.MaxTokens = 200
		specs = append(specs, personaSpec{pid: pid, path: openPath(pid), call: c,
			msg: Message{ID: "open-" + pid, Persona: pid, Kind: kindOpening}})
	}
	return d.personaPhase(specs)
}

func (d *debate) miniPhase(k, m int) ([]sm.Call, applyFunc, error) {
	var specs []personaSpec
	for _, pid := range d.members(k, m) {
		pd := d.base("take")
		pd.Aspect = d.aspect(k)
		spec := personaSpec{pid: pid, path: takePath(k, m, pid), msg: Message{ID: takeID(k, m, pid), Persona: pid, Kind: kindTake, Aspect: k, Mini: intp(m)}}
		var c sm.Call
		var err error
		switch {
		case m == 0:
			// Every aspect's first take is told not to repeat the
			// openings, as in the original.
			for _, o := range d.st.Personas {
				if _, ok := d.msg(openPath(o)); ok {
					pd.Openings = append(pd.Openings, d.entry(openPath(o)))
				}
			}
			c, err = d.personaCall(pid, RolePersona, "take.md", pd, nil)
		case d.replyRound(m):
			pd.Task = "reply"
			o, _ := d.challenger(k, m, pid)
			mine, reply := d.entry(takePath(k, m-2, pid)), d.entry(takePath(k, m-1, o))
			pd.Mine, pd.Reply = &mine, &reply
			spec.msg.Kind, spec.msg.ReplyTo = kindReply, takeID(k, m-1, o)
			c, err = d.personaCall(pid, RolePersona, "reply.md", pd, nil)
			spec.text = nil
			if err == nil {
				replyTo := spec.msg.ReplyTo
				spec.msg.ReplyTo = ""
				spec.text = func(a []byte) (string, string) { return string(a), replyTo }
			}
		default:
			pd.Task = "react"
			targets := d.targets(k, m, pid)
			for _, o := range targets {
				pd.Others = append(pd.Others, d.entry(takePath(k, m-1, o)))
			}
			spec.msg.Kind = kindReact
			ps := d.personas
			validate := func(a []byte) sm.Report {
				_, _, errs := parseReact(a, ps, pid, targets)
				return report(errs)
			}
			c, err = d.personaCall(pid, RolePersona, "react.md", pd, validate)
			var names []string
			for _, t := range targets {
				names = append(names, d.name(t))
			}
			c.Schema, c.SchemaName = reactSchema(names), "reaction"
			spec.text = func(a []byte) (string, string) {
				r, id, _ := parseReact(a, ps, pid, targets)
				return r.Text, takeID(k, m-1, id)
			}
		}
		if err != nil {
			return nil, nil, err
		}
		spec.call = c
		specs = append(specs, spec)
	}
	return d.personaPhase(specs)
}

func (d *debate) detectionPhase(k int) ([]sm.Call, applyFunc, error) {
	takes := d.lastTakes(k)
	if len(takes) < 2 {
		return nil, func(map[string]sm.Answer) ([]sm.File, []sm.Event, error) {
			x := Detection{Reason: fmt.Sprintf("not asked: %d spoken messages in the last miniround, fewer than 2", len(takes))}
			f, err := jsonFile(detectionPath(k), x)
			return []sm.File{f}, []sm.Event{{Kind: "checked", Message: fmt.Sprintf("aspect %d: no disagreement check (%s)", k, x.Reason)}}, err
		}, nil
	}
	pd := d.base("detect")
	pd.Aspect, pd.Takes = d.aspect(k), d.entries(takes)
	ps := d.personas
	var names []string
	for _, p := range takes {
		if m, ok := d.msg(p); ok {
			names = append(names, d.name(m.Persona))
		}
	}
	c, err := d.analysisCall(RoleDetect, RoleDetect, "detect", pd, detectionSchema(names), func(a []byte) sm.Report {
		_, errs := parseDetection(a, ps)
		return report(errs)
	})
	if err != nil {
		return nil, nil, err
	}
	c.Skippable = true
	return []sm.Call{c}, func(answers map[string]sm.Answer) ([]sm.File, []sm.Event, error) {
		ans := answers[c.ID]
		var x Detection
		if ans.Skipped != "" {
			x.Reason = "skipped: " + ans.Skipped
		} else {
			var errs []string
			if x, errs = parseDetection(ans.Text, ps); len(errs) > 0 {
				return nil, nil, refused(c.Role, errs)
			}
		}
		f, err := jsonFile(detectionPath(k), x)
		msg := fmt.Sprintf("aspect %d: no room (opposition %t, specific claim %t, on topic %t)", k, x.Opposition, x.Specific, x.OnTopic)
		if x.Spawn() {
			msg = fmt.Sprintf("aspect %d: a crux room for %s and %s: %s", k, d.name(x.Pair[0]), d.name(x.Pair[1]), x.Topic)
		} else if x.Reason != "" {
			msg = fmt.Sprintf("aspect %d: no room (%s)", k, x.Reason)
		}
		return []sm.File{f}, []sm.Event{{Kind: "checked", Role: c.Role, Message: msg, Data: map[string]any{"spawn": x.Spawn(), "pair": x.Pair}}}, err
	}, nil
}

func (d *debate) room(k int) Detection {
	x, _ := d.detection(k)
	return x
}

func (d *debate) roomData(k int, pid string) promptData {
	x := d.room(k)
	pd := d.base("crux")
	pd.Aspect, pd.Question = d.aspect(k), x.Topic
	for _, p := range x.Pair {
		if p != pid {
			pd.Opponent = d.name(p)
		}
	}
	return pd
}

func (d *debate) positionsPhase(k int) ([]sm.Call, applyFunc, error) {
	var specs []personaSpec
	for _, pid := range d.room(k).Pair {
		pd := d.roomData(k, pid)
		pd.Task = "crux-position"
		c, err := d.personaCall(pid, RoleCrux, "crux-position.md", pd, nil)
		if err != nil {
			return nil, nil, err
		}
		c.MaxTokens = 200
		specs = append(specs, personaSpec{pid: pid, path: positionPath(k, pid), call: c,
			msg: Message{ID: fmt.Sprintf("a%d-pos-%s", k, pid), Persona: pid, Kind: kindPosition, Aspect: k}})
	}
	return d.personaPhase(specs)
}

func (d *debate) turnPhase(k, t int) ([]sm.Call, applyFunc, error) {
	pair := d.room(k).Pair
	pid := speaker(pair, t)
	pd := d.roomData(k, pid)
	pd.Task, pd.Turn, pd.Late = "crux-turn", t, t >= d.st.Crux.LateFrom
	pd.Positions = d.entries(d.latest(k, pair, t))
	// The last exchanges are the room's last messages, the position
	// statements among them while they are recent, as in the original.
	pd.Window = d.entries(tail(d.roomMessages(k, pair, t), d.st.Crux.Window))
	for i := t - 1; i >= 0; i-- {
		if m, ok := d.msg(turnPath(k, i)); ok && m.Persona != pid {
			e := d.entry(turnPath(k, i))
			pd.Last = &e
			break
		}
	}
	c, err := d.personaCall(pid, RoleCrux, "crux-turn.md", pd, nil)
	if err != nil {
		return nil, nil, err
	}
	return d.personaPhase([]personaSpec{{pid: pid, path: turnPath(k, t), call: c,
		msg: Message{ID: fmt.Sprintf("a%d-t%02d", k, t), Persona: pid, Kind: kindTurn, Aspect: k, Turn: intp(t)}}})
}

func (d *debate) exitPhase(k, t int) ([]sm.Call, applyFunc, error) {
	x := d.room(k)
	pd := d.base("exit-check")
	pd.Aspect, pd.Question, pd.Turn = d.aspect(k), x.Topic, t
	pd.Window = d.entries(tail(d.roomMessages(k, x.Pair, t+1), d.st.Crux.ExitWindow))
	c, err := d.analysisCall(RoleExitCheck, RoleExitCheck, "exit-check", pd, exitSchema(), func(a []byte) sm.Report {
		_, errs := parseExit(a)
		return report(errs)
	})
	if err != nil {
		return nil, nil, err
	}
	return []sm.Call{c}, func(answers map[string]sm.Answer) ([]sm.File, []sm.Event, error) {
		e, errs := parseExit(answers[c.ID].Text)
		if len(errs) > 0 {
			return nil, nil, refused(c.Role, errs)
		}
		e.After = t
		f, err := jsonFile(exitPath(k, t), e)
		msg := fmt.Sprintf("aspect %d, after turn %d: the crux is not surfaced yet", k, t)
		if e.Surfaced {
			msg = fmt.Sprintf("aspect %d, after turn %d: crux surfaced, the room closes", k, t)
		}
		return []sm.File{f}, []sm.Event{{Kind: "exit-check", Role: c.Role, Message: msg, Data: map[string]any{"surfaced": e.Surfaced}}}, err
	}, nil
}

// roomTranscript is the whole of a room: positions and turns.
func (d *debate) roomTranscript(k int) []entry {
	x := d.room(k)
	return d.entries(d.roomMessages(k, x.Pair, d.roomLength(k)))
}

func (d *debate) convergencePhase(k int) ([]sm.Call, applyFunc, error) {
	pd := d.base("convergence")
	pd.Aspect, pd.Question, pd.Transcript = d.aspect(k), d.room(k).Topic, d.roomTranscript(k)
	c, err := d.analysisCall(RoleConvergence, RoleConvergence, "convergence", pd, convergenceSchema(), func(a []byte) sm.Report {
		_, errs := parseConvergence(a)
		return report(errs)
	})
	if err != nil {
		return nil, nil, err
	}
	return []sm.Call{c}, func(answers map[string]sm.Answer) ([]sm.File, []sm.Event, error) {
		x, errs := parseConvergence(answers[c.ID].Text)
		if len(errs) > 0 {
			return nil, nil, refused(c.Role, errs)
		}
		f, err := jsonFile(convergencePath(k), x)
		return []sm.File{f}, []sm.Event{{Kind: "converged", Role: c.Role, Message: fmt.Sprintf("aspect %d: the core disagreement (%s): %s", k, x.Kind, x.Core)}}, err
	}, nil
}

func (d *debate) cardPhase(k int) ([]sm.Call, applyFunc, error) {
	x := d.room(k)
	pd := d.base("card")
	pd.Aspect, pd.Question, pd.Transcript = d.aspect(k), x.Topic, d.roomTranscript(k)
	pd.Names = append(pd.Names, x.Pair...)
	ps := d.personas
	c, err := d.analysisCall(RoleCard, RoleCard, "card", pd, cardSchema(x.Pair), func(a []byte) sm.Report {
		_, errs := parseCard(a, ps, x.Pair)
		return report(errs)
	})
	if err != nil {
		return nil, nil, err
	}
	return []sm.Call{c}, func(answers map[string]sm.Answer) ([]sm.File, []sm.Event, error) {
		card, errs := parseCard(answers[c.ID].Text, ps, x.Pair)
		if len(errs) > 0 {
			return nil, nil, refused(c.Role, errs)
		}
		card.ID, card.Aspect, card.Pair, card.Room = fmt.Sprintf("card-a%d", k), k, x.Pair, fmt.Sprintf("%s/a%d", CruxDir, k)
		for _, p := range d.lastTakes(k) {
			card.Sources = append(card.Sources, d.msgs[p].ID)
		}
		f, err := jsonFile(cardPath(k), card)
		if err != nil {
			return nil, nil, err
		}
		md := sm.File{Name: cardMarkdownPath(k), Data: []byte(d.cardMarkdown(card, 1))}
		return []sm.File{f, md}, []sm.Event{{Kind: "card", Role: c.Role, ID: card.ID, Message: fmt.Sprintf("aspect %d: crux card: %s [%s]", k, card.Question, card.Kind)}}, nil
	}, nil
}

func (d *debate) roundSummaryPhase(k int) ([]sm.Call, applyFunc, error) {
	pd := d.base("round-summary")
	pd.Aspect = d.aspect(k)
	for m := 0; m < d.st.Minirounds; m++ {
		for _, p := range d.members(k, m) {
			if _, ok := d.msg(takePath(k, m, p)); ok {
				pd.Takes = append(pd.Takes, d.entry(takePath(k, m, p)))
			}
		}
	}
	c, err := d.analysisCall(RoleRoundSummary, RoleRoundSummary, "round-summary", pd, nil, nil)
	if err != nil {
		return nil, nil, err
	}
	return []sm.Call{c}, func(answers map[string]sm.Answer) ([]sm.File, []sm.Event, error) {
		text := strings.TrimSpace(string(answers[c.ID].Text))
		if text == "" {
			return nil, nil, refused(c.Role, []string{"the answer is empty"})
		}
		return []sm.File{{Name: roundSummaryPath(k), Data: []byte(text + "\n")}},
			[]sm.Event{{Kind: "summarized", Role: c.Role, Message: fmt.Sprintf("aspect %d summarized", k)}}, nil
	}, nil
}

func (d *debate) closingsPhase() ([]sm.Call, applyFunc, error) {
	var specs []personaSpec
	for _, pid := range d.st.Personas {
		c, err := d.personaCall(pid, RolePersona, "closing.md", d.base("closing"), nil)
		if err != nil {
			return nil, nil, err
		}
		c.MaxTokens = 350
		specs = append(specs, personaSpec{pid: pid, path: closePath(pid), call: c,
			msg: Message{ID: "close-" + pid, Persona: pid, Kind: kindClosing}})
	}
	return d.personaPhase(specs)
}

// mainTranscript is the debate outside the rooms: openings, every
// miniround of every aspect, closings.
func (d *debate) mainTranscript() []entry {
	var paths []string
	for _, p := range d.st.Personas {
		paths = append(paths, openPath(p))
	}
	for k := 1; k <= d.st.Aspects; k++ {
		for m := 0; m < d.st.Minirounds; m++ {
			for _, p := range d.st.Personas {
				paths = append(paths, takePath(k, m, p))
			}
		}
	}
	for _, p := range d.st.Personas {
		paths = append(paths, closePath(p))
	}
	var out []entry
	for _, p := range paths {
		if _, ok := d.msg(p); ok {
			out = append(out, d.entry(p))
		}
	}
	return out
}

func (d *debate) wrapupPhase() ([]sm.Call, applyFunc, error) {
	pd := d.base("shifts")
	var ids []string
	for _, p := range d.st.Personas {
		o, ok1 := d.msg(openPath(p))
		c, ok2 := d.msg(closePath(p))
		if ok1 && ok2 {
			ids = append(ids, p)
			pd.Pairs = append(pd.Pairs, pairEntry{ID: p, Name: d.name(p), Opening: o.Content, Closing: c.Content})
		}
	}
	ps := d.personas
	var calls []sm.Call
	if !d.has(ShiftsFile) {
		c, err := d.analysisCall(RoleShifts, RoleShifts, "shifts", pd, shiftsSchema(ids), func(a []byte) sm.Report {
			_, errs := parseShifts(a, ps, ids)
			return report(errs)
		})
		if err != nil {
			return nil, nil, err
		}
		calls = append(calls, c)
	}
	if !d.has(SummaryFile) {
		sd := d.base("summary")
		sd.Transcript = d.mainTranscript()
		c, err := d.analysisCall(RoleSummary, RoleSummary, "summary", sd, summarySchema(d.st.Personas), func(a []byte) sm.Report {
			_, errs := parseSummary(a, ps)
			return report(errs)
		})
		if err != nil {
			return nil, nil, err
		}
		calls = append(calls, c)
	}
	return calls, func(answers map[string]sm.Answer) ([]sm.File, []sm.Event, error) {
		var files []sm.File
		var events []sm.Event
		if ans, ok := answers[RoleShifts]; ok {
			shifts, errs := parseShifts(ans.Text, ps, ids)
			if len(errs) > 0 {
				return nil, nil, refused(RoleShifts, errs)
			}
			f, err := jsonFile(ShiftsFile, struct {
				Shifts []Shift `json:"shifts"`
			}{shifts})
			if err != nil {
				return nil, nil, err
			}
			files = append(files, f)
			var moved []string
			for _, s := range shifts {
				if s.Shifted {
					moved = append(moved, d.name(s.Persona))
				}
			}
			msg := fmt.Sprintf("no persona shifted (%d read)", len(shifts))
			if len(moved) > 0 {
				msg = fmt.Sprintf("%d of %d shifted: %s", len(moved), len(shifts), strings.Join(moved, ", "))
			}
			events = append(events, sm.Event{Kind: "shifts", Role: RoleShifts, Message: msg})
		}
		if ans, ok := answers[RoleSummary]; ok {
			s, errs := parseSummary(ans.Text, ps)
			if len(errs) > 0 {
				return nil, nil, refused(RoleSummary, errs)
			}
			f, err := jsonFile(SummaryFile, s)
			if err != nil {
				return nil, nil, err
			}
			files = append(files, f)
			events = append(events, sm.Event{Kind: "summarized", Role: RoleSummary, Message: fmt.Sprintf("summary: %s, %s", english.Count(len(s.Claims), "claim"), english.Count(len(s.ResolutionPaths), "resolution path"))})
		}
		return files, events, nil
	}, nil
}
