package moderated

import (
	"fmt"
	"strconv"

	sm "github.com/moot-dev/moot/statemachine"
)

var (
	_ sm.Sided    = Protocol{}
	_ sm.Outcomer = (*debate)(nil)
)

// SideRoles returns advocate A, who defends position A and takes the
// proposition in a tournament, and advocate B. The moderator stays the
// moderator (and the scorer, unless a panel scores).
func (Protocol) SideRoles() (string, string) { return RoleA, RoleB }

// Outcome is the debate's result once it is complete: the advocate with
// the higher mean of its statements' official weighted totals (the
// moderator's scores, or a panel's aggregate), to two places, wins, as the
// report's leader by mean; level means are a draw. Every debate gives both
// advocates the same number of scored statements, so the means rank as
// the sums do. The scores are those means, also while the debate runs; A
// speaks first in every phase, so First is always the proposition. A
// complete debate whose advocates have no scores has no result.
func (d *debate) Outcome() sm.Outcome {
	role, a, b, ok := d.lead()
	o := sm.Outcome{Proposition: a.Mean, Opposition: b.Mean, First: sm.WinProposition}
	if d.st.Step < len(d.sched) || !ok {
		return o
	}
	switch role {
	case RoleA:
		o.Winner = sm.WinProposition
	case RoleB:
		o.Winner = sm.WinOpposition
	default:
		o.Winner = sm.Draw
	}
	pa, _ := d.participant(RoleA)
	pb, _ := d.participant(RoleB)
	o.Columns = map[string]string{
		"rounds": strconv.Itoa(d.st.RoundCount), "format": d.st.Format,
		"position_a": pa.Position, "position_b": pb.Position,
	}
	return o
}

var _ sm.Leader = (*debate)(nil)

// Leader names the advocate ahead by mean, as the report does, and says
// how the debate came out once it is complete.
func (d *debate) Leader() string {
	role, a, b, ok := d.lead()
	done := d.st.Step >= len(d.sched)
	switch {
	case !ok:
		return "not scored yet"
	case role == "" && done:
		return fmt.Sprintf("a draw, both at %.2f", a.Mean)
	case role == "":
		return fmt.Sprintf("even, both at %.2f", a.Mean)
	}
	lead, other := a, b
	if role == RoleB {
		lead, other = b, a
	}
	verb := ""
	if done {
		verb = " won"
	}
	return fmt.Sprintf("%s%s, %.2f against %.2f", d.name(role), verb, lead.Mean, other.Mean)
}
