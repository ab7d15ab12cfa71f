package forum

import (
	"fmt"

	sm "github.com/moot-dev/moot/statemachine"
)

var (
	_ sm.Sided    = Protocol{}
	_ sm.Outcomer = (*debate)(nil)
)

// SideRoles returns the debater for the premise and the one against it:
// a tournament seats one model on each, and the judge stays the judge.
func (Protocol) SideRoles() (string, string) { return For, Against }

// outcomeColumns are the columns of the original's results.csv that an
// outcome carries: all but run_num, the batch's own numbering (a
// tournament names each debate instead), and transcript_filename, a path
// in the original's batch folder.
var outcomeColumns = func() []string {
	var out []string
	for _, c := range csvColumns {
		if c != "run_num" && c != "transcript_filename" {
			out = append(out, c)
		}
	}
	return out
}()

// Outcome is the debate's result once it is complete: the side the
// verdict names wins (with a panel, the panel's verdict: its majority,
// else the rule of panelVerdict), and the scores are the verdict's. The
// forum verdict always names a winner, so there are no draws. A debate
// without a judge has no verdict and so no result, even when complete:
// its winner stays "" and a tournament leaves it out of the ratings. The
// scores before the verdict are the judge's running scores; First is the
// side that opened; Columns are the original's results.csv columns of
// this debate.
func (d *debate) Outcome() sm.Outcome {
	st := d.st
	o := sm.Outcome{
		Proposition: float64(st.RunningScores[For]),
		Opposition:  float64(st.RunningScores[Against]),
		First:       sideOutcome(st.FirstSpeaker),
	}
	if v := st.Verdict; v != nil {
		o.Proposition, o.Opposition = float64(v.Scores[For]), float64(v.Scores[Against])
	}
	if len(d.slots) == 0 || st.Calls < len(d.slots) {
		return o
	}
	if v := st.Verdict; v != nil {
		o.Winner = sideOutcome(v.Winner)
	}
	row := d.csvRow()
	o.Columns = map[string]string{}
	for _, c := range outcomeColumns {
		o.Columns[c] = row[c]
	}
	return o
}

// sideOutcome names a side in an Outcome's words, "" for no side.
func sideOutcome(side string) string {
	switch side {
	case For:
		return sm.WinProposition
	case Against:
		return sm.WinOpposition
	}
	return ""
}

var _ sm.Leader = (*debate)(nil)

// Leader names the winner of the verdict once there is one, else the side
// ahead on the judge's running scores.
func (d *debate) Leader() string {
	st := d.st
	if v := st.Verdict; v != nil {
		return fmt.Sprintf("%s (%s) won, %d to %d", v.WinnerName, sideWord(v.Winner), v.Scores[v.Winner], v.Scores[other(v.Winner)])
	}
	if st.Judge == nil {
		return "no judge"
	}
	a, aok := st.RunningScores[For]
	b, bok := st.RunningScores[Against]
	switch {
	case !aok && !bok:
		return "not scored yet"
	case a > b:
		return fmt.Sprintf("%s (%s), %d to %d", st.name(For), sideWord(For), a, b)
	case b > a:
		return fmt.Sprintf("%s (%s), %d to %d", st.name(Against), sideWord(Against), b, a)
	}
	return fmt.Sprintf("even at %d", a)
}
