package panel

import (
	"encoding/json"
	"fmt"
	"slices"
)

// The phases of a debate, as debate.md names them.
const (
	phaseAspects     = "awaiting_aspects"
	phaseOpenings    = "awaiting_openings"
	phaseMini        = "awaiting_mini%d"
	phaseDetection   = "awaiting_detection"
	phasePositions   = "crux_positions"
	phaseTurn        = "crux_turn"
	phaseExit        = "crux_exit_check"
	phaseConvergence = "crux_convergence"
	phaseCard        = "crux_card"
	phaseSummary     = "awaiting_round_summary"
	phaseClosings    = "awaiting_closings"
	phaseWrapup      = "awaiting_wrapup"
	phaseComplete    = "complete"
)

// The stages `moot run N` counts.
const (
	stageOpening  = "opening"
	stageClosing  = "closing"
	stageComplete = "complete"
)

// pos is where the debate stands, derived from its files alone.
type pos struct {
	stage, phase string
	unit         int // the stage's number, from 1
	aspect, mini int // aspect from 1, mini from 0
	turn         int
}

func (p pos) cursor() Cursor { return Cursor{Aspect: p.aspect, Mini: p.mini, RoomTurn: p.turn} }

func openPath(pid string) string  { return fmt.Sprintf("%s/open-%s.md", MessagesDir, pid) }
func closePath(pid string) string { return fmt.Sprintf("%s/close-%s.md", MessagesDir, pid) }
func takePath(k, m int, pid string) string {
	return fmt.Sprintf("%s/a%d-m%d-%s.md", MessagesDir, k, m, pid)
}
func detectionPath(k int) string    { return fmt.Sprintf("%s/a%d/detection.json", AspectsDir, k) }
func roundSummaryPath(k int) string { return fmt.Sprintf("%s/a%d/summary.md", AspectsDir, k) }
func positionPath(k int, pid string) string {
	return fmt.Sprintf("%s/a%d/pos-%s.md", CruxDir, k, pid)
}
func turnPath(k, t int) string      { return fmt.Sprintf("%s/a%d/t%02d.md", CruxDir, k, t) }
func exitPath(k, t int) string      { return fmt.Sprintf("%s/a%d/exit-t%02d.json", CruxDir, k, t) }
func convergencePath(k int) string  { return fmt.Sprintf("%s/a%d/convergence.json", CruxDir, k) }
func cardPath(k int) string         { return fmt.Sprintf("%s/a%d.json", CardsDir, k) }
func cardMarkdownPath(k int) string { return fmt.Sprintf("%s/a%d.md", CardsDir, k) }

func (d *debate) has(path string) bool { _, ok := d.files[path]; return ok }

// aspects returns the aspects of aspects.json.
func (d *debate) aspects() []Aspect {
	var a aspectsAnswer
	if json.Unmarshal(d.files[AspectsFile], &a) != nil {
		return nil
	}
	return a.Aspects
}

func (d *debate) aspect(k int) Aspect {
	if as := d.aspects(); k >= 1 && k <= len(as) {
		return as[k-1]
	}
	return Aspect{ID: fmt.Sprintf("a%d", k), Label: fmt.Sprintf("aspect %d", k)}
}

func (d *debate) detection(k int) (Detection, bool) {
	var x Detection
	data, ok := d.files[detectionPath(k)]
	if !ok || json.Unmarshal(data, &x) != nil {
		return x, false
	}
	return x, true
}

func (d *debate) exit(k, t int) (Exit, bool) {
	var x Exit
	data, ok := d.files[exitPath(k, t)]
	if !ok || json.Unmarshal(data, &x) != nil {
		return x, false
	}
	return x, true
}

func (d *debate) card(k int) (Card, bool) {
	var c Card
	data, ok := d.files[cardPath(k)]
	if !ok || json.Unmarshal(data, &c) != nil {
		return c, false
	}
	return c, true
}

// msg returns the message at path when it was spoken.
func (d *debate) msg(path string) (Message, bool) {
	m, ok := d.msgs[path]
	return m, ok && m.OK()
}

// replyRound reports whether miniround m is the last one, of replies to
// replies: with three minirounds or more.
func (d *debate) replyRound(m int) bool {
	return d.st.Minirounds >= 3 && m == d.st.Minirounds-1
}

// members lists who speaks in miniround m of aspect k, in panel order:
// everyone in the first; in a reply round those replied to in the one
// before; else everyone who has another persona's take to react to.
func (d *debate) members(k, m int) []string {
	if m == 0 {
		return d.st.Personas
	}
	var out []string
	for _, p := range d.st.Personas {
		if d.replyRound(m) {
			if _, ok := d.challenger(k, m, p); ok {
				out = append(out, p)
			}
			continue
		}
		if len(d.targets(k, m, p)) > 0 {
			out = append(out, p)
		}
	}
	return out
}

// targets lists whom p may answer in miniround m of aspect k: the others
// who spoke in the miniround before.
func (d *debate) targets(k, m int, p string) []string {
	var out []string
	for _, o := range d.st.Personas {
		if _, ok := d.msg(takePath(k, m-1, o)); ok && o != p {
			out = append(out, o)
		}
	}
	return out
}

// challenger returns the first persona, in panel order, whose message of
// miniround m-1 replied to p: the one p answers in the reply round m.
func (d *debate) challenger(k, m int, p string) (string, bool) {
	if _, ok := d.msg(takePath(k, m-2, p)); !ok {
		return "", false
	}
	for _, o := range d.st.Personas {
		if x, ok := d.msg(takePath(k, m-1, o)); ok && o != p && x.ReplyTo == takeID(k, m-2, p) {
			return o, true
		}
	}
	return "", false
}

func takeID(k, m int, pid string) string { return fmt.Sprintf("a%d-m%d-%s", k, m, pid) }

// lastTakes lists the spoken messages of aspect k's last miniround that
// had speakers: what the disagreement check reads.
func (d *debate) lastTakes(k int) []string {
	for m := d.st.Minirounds - 1; m >= 0; m-- {
		ms := d.members(k, m)
		if len(ms) == 0 {
			continue
		}
		var out []string
		for _, p := range ms {
			if _, ok := d.msg(takePath(k, m, p)); ok {
				out = append(out, takePath(k, m, p))
			}
		}
		return out
	}
	return nil
}

// exitDue reports whether an exit check follows turn t.
func (d *debate) exitDue(t int) bool {
	c := d.st.Crux
	return t >= c.ExitFrom && (t-c.ExitFrom)%c.ExitEvery == 0
}

// where derives where the debate stands from its files.
func (d *debate) where() pos {
	n := d.st.Aspects
	if !d.has(AspectsFile) {
		return pos{stage: stageOpening, phase: phaseAspects, unit: 1}
	}
	for _, p := range d.st.Personas {
		if !d.has(openPath(p)) {
			return pos{stage: stageOpening, phase: phaseOpenings, unit: 1}
		}
	}
	for k := 1; k <= n; k++ {
		at := pos{stage: fmt.Sprintf("aspect:%d", k), unit: k + 1, aspect: k}
		for m := 0; m < d.st.Minirounds; m++ {
			for _, p := range d.members(k, m) {
				if !d.has(takePath(k, m, p)) {
					at.phase, at.mini = fmt.Sprintf(phaseMini, m), m
					return at
				}
			}
		}
		at.mini = d.st.Minirounds - 1
		x, ok := d.detection(k)
		if !ok {
			at.phase = phaseDetection
			return at
		}
		if x.Spawn() {
			if p, ok := d.roomWhere(k, x); !ok {
				p.stage, p.unit, p.aspect, p.mini = at.stage, at.unit, k, at.mini
				return p
			}
		}
		if !d.has(roundSummaryPath(k)) {
			at.phase = phaseSummary
			return at
		}
	}
	for _, p := range d.st.Personas {
		if !d.has(closePath(p)) {
			return pos{stage: stageClosing, phase: phaseClosings, unit: n + 2}
		}
	}
	if !d.has(ShiftsFile) || !d.has(SummaryFile) {
		return pos{stage: stageClosing, phase: phaseWrapup, unit: n + 2}
	}
	return pos{stage: stageComplete, phase: phaseComplete, unit: n + 3}
}

// roomWhere says where the room of aspect k stands; ok when it is over.
func (d *debate) roomWhere(k int, x Detection) (pos, bool) {
	for _, p := range x.Pair {
		if !d.has(positionPath(k, p)) {
			return pos{phase: phasePositions}, false
		}
	}
	for t := range d.roomTurns(k) {
		if !d.has(turnPath(k, t)) {
			return pos{phase: phaseTurn, turn: t}, false
		}
		if d.exitDue(t) && !d.has(exitPath(k, t)) {
			return pos{phase: phaseExit, turn: t}, false
		}
	}
	end := d.roomLength(k)
	if !d.has(convergencePath(k)) {
		return pos{phase: phaseConvergence, turn: end}, false
	}
	if !d.has(cardPath(k)) {
		return pos{phase: phaseCard, turn: end}, false
	}
	return pos{}, true
}

// roomLength is how many turns the room of aspect k has so far: up to the
// first exit check that found the crux surfaced, or the limit.
func (d *debate) roomLength(k int) int {
	for t := 0; t < d.st.Crux.MaxTurns; t++ {
		if !d.has(turnPath(k, t)) {
			return t
		}
		if x, ok := d.exit(k, t); ok && d.exitDue(t) && x.Surfaced {
			return t + 1
		}
	}
	return d.st.Crux.MaxTurns
}

// roomTurns yields the turns of the room of aspect k, up to and including
// the first one not yet taken, stopping after a surfaced exit check.
func (d *debate) roomTurns(k int) func(func(int) bool) {
	return func(yield func(int) bool) {
		for t := 0; t < d.st.Crux.MaxTurns; t++ {
			if !yield(t) {
				return
			}
			if x, ok := d.exit(k, t); ok && d.exitDue(t) && x.Surfaced {
				return
			}
		}
	}
}

// speaker is who speaks at turn t of a room of pair: the first persona
// at even turns.
func speaker(pair []string, t int) string { return pair[t%2] }

// roomMessages lists the spoken messages of aspect k's room in order:
// the positions, then the turns before turn upto.
func (d *debate) roomMessages(k int, pair []string, upto int) []string {
	var out []string
	for _, p := range pair {
		if _, ok := d.msg(positionPath(k, p)); ok {
			out = append(out, positionPath(k, p))
		}
	}
	for t := 0; t < upto; t++ {
		if _, ok := d.msg(turnPath(k, t)); ok {
			out = append(out, turnPath(k, t))
		}
	}
	return out
}

// latest returns, for each of pair, the path of its latest spoken room
// message before turn upto: the room's "positions so far".
func (d *debate) latest(k int, pair []string, upto int) []string {
	var out []string
	for _, p := range pair {
		last := ""
		if _, ok := d.msg(positionPath(k, p)); ok {
			last = positionPath(k, p)
		}
		for t := 0; t < upto; t++ {
			if m, ok := d.msg(turnPath(k, t)); ok && m.Persona == p {
				last = turnPath(k, t)
			}
		}
		if last != "" {
			out = append(out, last)
		}
	}
	return out
}

// tail returns the last n of paths.
func tail(paths []string, n int) []string {
	if len(paths) > n {
		return slices.Clone(paths[len(paths)-n:])
	}
	return slices.Clone(paths)
}
