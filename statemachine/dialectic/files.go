package dialectic

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/moot-dev/moot/internal/evidence"
	"github.com/moot-dev/moot/internal/frontmatter"
	sm "github.com/moot-dev/moot/statemachine"
)

// Header is debate.md: its frontmatter, whose keys moot does not know are
// kept in place, and its markdown body.
type Header struct {
	Front  frontmatter.Object
	ID     string
	State  State
	Totals Totals
	Body   string
	Motion Motion
	// End is how many exchanges the debate has, kept under EndKey by a
	// debate made with an end (moot new --exchanges); 0 for a debate
	// without one, as dialectic's are.
	End int
	// DialecticTotals, when set, is written as cumulative_scores in place
	// of Totals: the same totals with their numbers as dialectic's
	// debate_ops wrote them (see Scores.DialecticTotals).
	DialecticTotals json.RawMessage
}

// EndKey is the key of debate.md under which a debate made with an end
// keeps how many exchanges it has.
const EndKey = "exchanges"

// NewHeader returns debate.md for a new debate: exchange 0, awaiting
// arguments, zero totals.
func NewHeader(slug string, m Motion) *Header {
	h := &Header{
		ID:     slug,
		State:  State{Exchange: 0, Phase: AwaitingArguments},
		Body:   RenderMotion(m),
		Motion: m,
	}
	// Lay the known keys out first, so that settings added later follow them.
	for _, k := range []string{"debate_id", "current_exchange", "current_phase", "cumulative_scores"} {
		h.Front.Set(k, json.RawMessage("null"))
	}
	return h
}

// ParseHeader reads debate.md. Errors name the field at fault.
func ParseHeader(data []byte) (*Header, error) {
	front, body, err := frontmatter.Parse(data)
	if err != nil {
		return nil, err
	}
	h := &Header{Front: front, Body: body}
	if err := front.Decode("debate_id", &h.ID); err != nil {
		return nil, err
	}
	var phase string
	if err := front.Decode("current_exchange", &h.State.Exchange); err != nil {
		return nil, fmt.Errorf("%w (want a whole number from 0 to %d)", err, MaxExchange)
	}
	if err := front.Decode("current_phase", &phase); err != nil {
		return nil, err
	}
	h.State.Phase = Phase(phase)
	if err := h.State.Validate(); err != nil {
		var fe *FieldError
		if errors.As(err, &fe) {
			return nil, fmt.Errorf("field %q: %w", fe.Field, err)
		}
		return nil, err
	}
	if raw, ok := front.Get("cumulative_scores"); ok {
		if err := json.Unmarshal(raw, &h.Totals); err != nil {
			return nil, fmt.Errorf("field \"cumulative_scores\": %w", frontmatter.JSONError(err))
		}
	} else {
		return nil, errors.New("field \"cumulative_scores\" is missing")
	}
	if raw, ok := front.Get(EndKey); ok && string(raw) != "null" {
		if err := json.Unmarshal(raw, &h.End); err != nil || h.End < 1 || h.End > MaxExchange {
			return nil, fmt.Errorf("field %q is %s, not a whole number of exchanges from 1 to %d", EndKey, raw, MaxExchange)
		}
	}
	h.Motion = ParseMotion(body)
	if strings.TrimSpace(h.Motion.Text) == "" {
		return nil, errors.New("the body has no motion: it needs a \"# Motion\" heading followed by the motion's text")
	}
	return h, nil
}

// Render writes debate.md: the known keys take their new values in place,
// and every other key stays where it was. A new debate gets the known keys
// in the order FORMAT.md gives.
func (h *Header) Render() ([]byte, error) {
	front := frontmatter.Object{Fields: append([]frontmatter.Field(nil), h.Front.Fields...)}
	for _, k := range []struct {
		key string
		val any
	}{
		{"debate_id", h.ID},
		{"current_exchange", h.State.Exchange},
		{"current_phase", string(h.State.Phase)},
		{"cumulative_scores", h.Totals},
	} {
		if k.key == "cumulative_scores" && h.DialecticTotals != nil {
			k.val = h.DialecticTotals
		}
		if err := front.SetValue(k.key, k.val); err != nil {
			return nil, err
		}
	}
	return frontmatter.Render(front, h.Body)
}

// Setting returns the raw value of a key moot keeps in debate.md besides
// the known ones (model settings, for instance).
func (h *Header) Setting(key string) (json.RawMessage, bool) { return h.Front.Get(key) }

// SetSetting stores v under key, in place if the key exists.
func (h *Header) SetSetting(key string, v any) error { return h.Front.SetValue(key, v) }

// Target is an attack or defence as the argument file's frontmatter keeps it.
type Target struct {
	TargetID string `json:"target_id"`
	Type     string `json:"type"`
}

// Argument is one argument file: its frontmatter and its markdown body.
type Argument struct {
	ID       string
	Side     Side
	Exchange int
	Title    string
	// Claim is the frontmatter's copy of the claim, as written: every
	// reader shows ClaimText, which the body decides.
	Claim   string
	Attacks []Target
	Defends []Target
	// Grounds holds the check of each ground, in order, when the
	// debate researches and a ground cites a URL; nil otherwise, and a
	// ground citing none has an empty check.
	Grounds []evidence.Check
	// Body is the markdown body: the argument's text, its one source.
	Body string
}

type argumentFront struct {
	ID       string           `json:"id"`
	Side     string           `json:"side"`
	Exchange int              `json:"exchange"`
	Title    string           `json:"title"`
	Claim    string           `json:"claim"`
	Attacks  []Target         `json:"attacks"`
	Defends  []Target         `json:"defends"`
	Grounds  []evidence.Check `json:"grounds,omitempty"`
}

// ParseArgument reads an argument file.
func ParseArgument(data []byte) (*Argument, error) {
	front, body, err := frontmatter.Parse(data)
	if err != nil {
		return nil, err
	}
	a := &Argument{Body: body}
	var side string
	for _, f := range []struct {
		key string
		v   any
	}{{"id", &a.ID}, {"side", &side}, {"exchange", &a.Exchange}, {"title", &a.Title}, {"claim", &a.Claim}} {
		if err := front.Decode(f.key, f.v); err != nil {
			return nil, err
		}
	}
	s, ok := ParseSide(side)
	if !ok || string(s) != side {
		return nil, fmt.Errorf("field \"side\": %q is not \"prop\" or \"opp\"", side)
	}
	a.Side = s
	for _, f := range []struct {
		key string
		v   *[]Target
	}{{"attacks", &a.Attacks}, {"defends", &a.Defends}} {
		if _, ok := front.Get(f.key); !ok {
			continue
		}
		if err := front.Decode(f.key, f.v); err != nil {
			return nil, err
		}
	}
	if _, ok := front.Get("grounds"); ok {
		if err := front.Decode("grounds", &a.Grounds); err != nil {
			return nil, err
		}
		for i, c := range a.Grounds {
			switch c.Result {
			case "", evidence.Verified, evidence.NotFound, evidence.Unreachable, evidence.TooShort:
			default:
				return nil, fmt.Errorf("field \"grounds\": ground %d: check %q is not %q, %q, %q or %q", i+1, c.Result, evidence.Verified, evidence.NotFound, evidence.Unreachable, evidence.TooShort)
			}
			if c.Score < 0 || c.Score > 1 {
				return nil, fmt.Errorf("field \"grounds\": ground %d: score %g is not from 0 to 1", i+1, c.Score)
			}
		}
	}
	return a, nil
}

// Targets lists the ids a attacks or defends.
func (a *Argument) Targets() []string {
	var ids []string
	for _, t := range a.Attacks {
		ids = append(ids, t.TargetID)
	}
	for _, t := range a.Defends {
		ids = append(ids, t.TargetID)
	}
	return ids
}

// NewArgument turns an accepted submission into the argument it becomes.
func NewArgument(id string, side Side, exchange int, s Submission) *Argument {
	a := &Argument{ID: id, Side: side, Exchange: exchange, Title: s.Title, Claim: s.Claim,
		Attacks: []Target{}, Defends: []Target{}}
	for _, l := range s.Attacks {
		if !l.Unlinked {
			a.Attacks = append(a.Attacks, Target{TargetID: l.TargetID, Type: l.Type})
		}
	}
	for _, l := range s.Defends {
		if !l.Unlinked {
			a.Defends = append(a.Defends, Target{TargetID: l.TargetID, Type: l.Type})
		}
	}
	a.Body = RenderBody(s)
	return a
}

// Render writes the argument file.
func (a *Argument) Render() ([]byte, error) {
	attacks, defends := a.Attacks, a.Defends
	if attacks == nil {
		attacks = []Target{}
	}
	if defends == nil {
		defends = []Target{}
	}
	front, err := sm.FrontOf(argumentFront{a.ID, string(a.Side), a.Exchange, a.Title, a.Claim, attacks, defends, a.Grounds})
	if err != nil {
		return nil, err
	}
	// json.Marshal escaped <, > and &: re-encode each value without it.
	for i, f := range front.Fields {
		var v any
		if err := json.Unmarshal(f.Value, &v); err != nil {
			return nil, err
		}
		b, err := frontmatter.Marshal(v)
		if err != nil {
			return nil, err
		}
		front.Fields[i].Value = json.RawMessage(strings.TrimSuffix(string(b), "\n"))
	}
	return frontmatter.Render(front, a.Body)
}

// RenderBody writes the markdown body of an argument: its Toulmin parts,
// then its attacks and defences with their text.
func RenderBody(s Submission) string { return renderBody(s, nil) }

// renderBody writes the body with the check of each ground under it, when
// checks has one.
func renderBody(s Submission, checks []evidence.Check) string {
	var b strings.Builder
	section := func(title, text string) {
		if strings.TrimSpace(text) == "" {
			return
		}
		if b.Len() > 0 {
			b.WriteString("\n\n")
		}
		b.WriteString("## " + title + "\n\n" + strings.TrimSpace(text))
	}
	section("Claim", s.Claim)
	var g strings.Builder
	for i, gr := range s.Grounds {
		if i > 0 {
			g.WriteString("\n\n")
		}
		fmt.Fprintf(&g, "### %d. %s\n\n%s\n\n**Relevance:** %s", i+1, oneLine(gr.Source), quote(gr.Content), strings.TrimSpace(gr.Relevance))
		if i < len(checks) {
			if line := CheckLine(checks[i]); line != "" {
				g.WriteString("\n\n" + line)
			}
		}
	}
	section("Grounds", g.String())
	section("Warrant", s.Warrant)
	section("Backing", s.Backing)
	section("Qualifier", s.Qualifier)
	links := func(title, verb string, ls []Link) {
		var l strings.Builder
		for i, x := range ls {
			if i > 0 {
				l.WriteString("\n\n")
			}
			fmt.Fprintf(&l, "### %s %s\n\n**Type:** %s\n\n%s", verb, x.TargetID, x.Type, strings.TrimSpace(x.Content))
		}
		section(title, l.String())
	}
	links("Attacks", "Attacking", s.Attacks)
	links("Defends", "Defending", s.Defends)
	return b.String()
}

// quote writes text as a markdown block quote, every line of it.
func quote(text string) string {
	lines := strings.Split(strings.TrimSpace(text), "\n")
	for i, l := range lines {
		if strings.TrimSpace(l) == "" {
			lines[i] = ">"
		} else {
			lines[i] = "> " + l
		}
	}
	return strings.Join(lines, "\n")
}
