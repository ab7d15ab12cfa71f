package forum

import (
	"fmt"
	"reflect"
	"strings"

	"github.com/moot-dev/moot/internal/frontmatter"
	sm "github.com/moot-dev/moot/statemachine"
)

// MaxTurns is the most public turns a debate may have.
const MaxTurns = 99

// state is what debate.md's frontmatter holds.
type state struct {
	Protocol     string   `json:"protocol"`
	Premise      string   `json:"premise,omitempty"`
	Turns        int      `json:"turns"`
	Seed         int64    `json:"seed"`
	FirstSpeaker string   `json:"first_speaker"`
	For          Persona  `json:"for"`
	Against      Persona  `json:"against"`
	Judge        *Persona `json:"judge,omitempty"`
	CastFile     string   `json:"cast_file,omitempty"`
	CastNotes    []string `json:"cast_notes,omitempty"`
	// Calls is how many calls are committed; the next call is number
	// Calls+1 of the schedule.
	Calls int    `json:"calls"`
	Turn  int    `json:"turn"`  // units complete
	Phase string `json:"phase"` // the kind of the next call, or "complete"
	// RunningScores holds the judge's latest score of each side.
	RunningScores map[string]int `json:"running_scores,omitempty"`
	Verdict       *verdictState  `json:"verdict,omitempty"`
}

// verdictState is the verdict as debate.md repeats it.
type verdictState struct {
	Winner        string         `json:"winner"` // a side
	WinnerName    string         `json:"winner_name"`
	Scores        map[string]int `json:"scores"` // by side
	PremiseUpheld *bool          `json:"premise_upheld"`
	WinnerSource  string         `json:"winner_source"`
	// Votes, with a panel, counts the judges whose verdict named each
	// side.
	Votes map[string]int `json:"votes,omitempty"`
}

// stateKeys are the keys of debate.md's frontmatter the state owns.
var stateKeys = func() map[string]bool {
	keys := map[string]bool{}
	t := reflect.TypeFor[state]()
	for i := range t.NumField() {
		name, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ",")
		keys[name] = true
	}
	return keys
}()

// Complete is the phase of a finished debate.
const Complete = "complete"

func (st *state) persona(role string) *Persona {
	switch role {
	case For:
		return &st.For
	case Against:
		return &st.Against
	case Judge:
		return st.Judge
	}
	return nil
}

// seat returns the side of debater A (who opens) or B.
func (st *state) a() string { return st.FirstSpeaker }
func (st *state) b() string { return other(st.FirstSpeaker) }

func other(side string) string {
	if side == For {
		return Against
	}
	return For
}

func (st *state) name(role string) string {
	if p := st.persona(role); p != nil {
		return p.Name
	}
	return role
}

// render writes debate.md: the state as frontmatter, the topic and the
// cast as body. The keys of keep, the frontmatter as read, that are not
// the state's own (the judge panel, moot's settings) follow the state's,
// in their order.
func (st *state) render(topic string, keep frontmatter.Object) ([]byte, error) {
	front, err := sm.FrontOf(st)
	if err != nil {
		return nil, err
	}
	for _, f := range keep.Fields {
		if !stateKeys[f.Key] {
			front.Fields = append(front.Fields, f)
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "# Topic\n\n%s\n", strings.TrimSpace(topic))
	if st.Premise != "" {
		fmt.Fprintf(&b, "\n## Premise\n\n%s\n", st.Premise)
	}
	return frontmatter.Render(front, b.String())
}

// parseState reads debate.md.
func parseState(data []byte) (*state, string, frontmatter.Object, error) {
	st := &state{}
	front, body, err := sm.ParseState(data, st, Name, "turns", "first_speaker", "calls", "phase")
	if err != nil {
		return nil, "", front, err
	}
	topic := strings.TrimSpace(body)
	topic = strings.TrimSpace(strings.TrimPrefix(topic, "# Topic"))
	if i := strings.Index(topic, "\n## Premise"); i >= 0 {
		topic = strings.TrimSpace(topic[:i])
	}
	return st, topic, front, nil
}

// The kinds of calls, in the words of files and phases.
const (
	kindPlan         = "plan"
	kindThink        = "think"
	kindSpeech       = "speech"
	kindEvaluate     = "evaluate"
	kindScore        = "score"
	kindDeliberation = "deliberation"
	kindConfirmation = "confirmation"
	kindVerdict      = "verdict"
	kindAnnouncement = "announcement"
)

// slot is one call of a debate's schedule.
type slot struct {
	Seq    int
	Kind   string
	Role   string
	Turn   int  // the unit it belongs to: a public turn, or turns+1 for the verdict
	Final  bool // a debater's closing turn
	First  bool // the judge's first score of its target
	Target string
}

// File is where the slot's call is kept.
func (s slot) File() string { return fmt.Sprintf("calls/%03d_%s_%s.md", s.Seq, s.Kind, s.Role) }

// Key names the step the slot's call is made in.
func (s slot) Key() string { return fmt.Sprintf("%03d-%s", s.Seq, s.Kind) }

func (s slot) private() bool {
	switch s.Kind {
	case kindPlan, kindThink, kindEvaluate, kindDeliberation, kindConfirmation:
		return true
	}
	return false
}

func (s slot) visibility() string {
	if s.private() {
		return "private:" + s.Role
	}
	return "public"
}

// schedule lists every call of a debate of turns public turns, A being
// side a, with or without a judge, in order. It is the seed's call flow.
func schedule(turns int, a string, judge bool) []slot {
	var out []slot
	add := func(s slot) {
		s.Seq = len(out) + 1
		out = append(out, s)
	}
	b := other(a)
	add(slot{Kind: kindPlan, Role: a, Turn: 1})
	add(slot{Kind: kindPlan, Role: b, Turn: 1})
	scored := map[string]bool{}
	for t := 1; t <= turns; t++ {
		sp := a
		if t%2 == 0 {
			sp = b
		}
		final := t > 1 && t >= turns-1
		add(slot{Kind: kindThink, Role: sp, Turn: t, Final: final})
		add(slot{Kind: kindSpeech, Role: sp, Turn: t, Final: final})
		if judge {
			add(slot{Kind: kindEvaluate, Role: Judge, Turn: t, Target: sp})
			add(slot{Kind: kindScore, Role: Judge, Turn: t, Target: sp, First: !scored[sp]})
			scored[sp] = true
		}
	}
	if judge {
		for _, k := range []string{kindDeliberation, kindConfirmation, kindVerdict, kindAnnouncement} {
			add(slot{Kind: k, Role: Judge, Turn: turns + 1})
		}
	}
	return out
}

// units is how many units a debate has: its turns, and the verdict when
// there is a judge.
func units(turns int, judge bool) int {
	if judge {
		return turns + 1
	}
	return turns
}

// closing names the unit after the last turn, the judge's verdict, in a
// debate with a judge.
func closing(judge bool) string {
	if judge {
		return "the verdict"
	}
	return ""
}

// unitsDone counts the units whose every call is among the first calls.
func unitsDone(slots []slot, calls int) int {
	done := 0
	for i, s := range slots {
		last := i+1 == len(slots) || slots[i+1].Turn != s.Turn
		if last && s.Seq <= calls {
			done = s.Turn
		}
	}
	return done
}

// phaseAfter names what waits once calls calls are committed.
func phaseAfter(slots []slot, calls int) string {
	if calls >= len(slots) {
		return Complete
	}
	if calls < 0 {
		return ""
	}
	return slots[calls].Kind
}
