package forum

import (
	"cmp"
	"encoding/json"
	"fmt"
	"math"
	"strings"

	sm "github.com/moot-dev/moot/statemachine"
)

// A panel's aggregate: the debate's own files of the judge's calls hold
// it, and list what each judge answered (panel):
//
//   - a score is the mean of the judges' scores of the turn, rounded to
//     the nearest whole number, halves up (6.5 is 7); the mean itself is
//     kept to three places (panel_mean);
//   - the verdict names the side most judges' verdicts name; a tie goes
//     to the side with the higher mean verdict score, then to the first
//     judge of the panel's winner. Its scores are the means of the
//     judges' verdict scores, rounded as the running scores are;
//   - the confirmation names the debater most of the judges who named one
//     confirmed, or none on a tie;
//   - an evaluation, the deliberation and the announcement are the
//     judges' texts one after the other, each under its judge's name.

// vote is what one judge of a panel answered to a call, as the official
// file of the call lists it.
type vote struct {
	Judge           string  `json:"judge"`
	Model           string  `json:"model"`
	Attempts        int     `json:"attempts"`
	Score           *int    `json:"score,omitempty"`
	ConfirmedWinner *string `json:"confirmed_winner,omitempty"`
	Skipped         string  `json:"skipped,omitempty"`
	// Missing marks a judge whose answer is recorded as missing (moot
	// run --keep-going): its own file holds the record, and the
	// aggregate leaves it out.
	Missing bool           `json:"missing,omitempty"`
	Winner  string         `json:"winner,omitempty"`
	Scores  map[string]int `json:"scores,omitempty"`
}

// missingVotes counts the judges of votes whose answer is missing.
func missingVotes(votes []vote) int {
	n := 0
	for _, v := range votes {
		if v.Missing {
			n++
		}
	}
	return n
}

// aggregate makes the debate's own file of s from the panel's answers
// got: its frontmatter and body, and its event. It changes st as the
// answer of a single judge would.
func (d *debate) aggregate(s slot, got []panelAnswer, st *state) (callMeta, string, sm.Event, error) {
	var models []string
	attempts := 0
	votes := make([]vote, len(got))
	var gaps []panelAnswer
	for i, g := range got {
		model := cmp.Or(g.meta.Model, g.judge.Model)
		models = append(models, model)
		attempts += g.meta.Attempts
		votes[i] = vote{Judge: g.judge.Name, Model: model, Attempts: g.meta.Attempts, Missing: g.meta.Missing != nil}
		if g.meta.Missing != nil {
			gaps = append(gaps, g)
		}
	}
	m := callMeta{
		Seq: s.Seq, Kind: s.Kind, Role: Judge, Speaker: st.name(Judge), Turn: s.Turn, Final: s.Final,
		Visibility: s.visibility(), Model: "panel: " + strings.Join(models, ", "), Attempts: attempts, Panel: votes,
	}
	texts := func() string {
		parts := make([]string, len(got))
		for i, g := range got {
			parts[i] = fmt.Sprintf("%s (%s):\n\n%s", g.judge.Name, votes[i].Model, g.text)
		}
		return strings.Join(parts, "\n\n")
	}
	var text string
	var note func(*sm.Event)
	switch s.Kind {
	case kindEvaluate:
		m.Target, m.TargetName = s.Target, st.name(s.Target)
		text = texts()
		if len(gaps) == len(got) {
			m.Missing = panelMissing(s, models, gaps)
		}
	case kindDeliberation, kindAnnouncement:
		if s.Kind == kindAnnouncement && st.Verdict == nil {
			return m, "", sm.Event{}, &sm.Refused{Reasons: []string{"the verdict is announced before it is given"}}
		}
		text = texts()
	case kindScore:
		var scores []int
		var parts []string
		for i, g := range got {
			if g.meta.Score == nil {
				parts = append(parts, g.judge.Name+" missing")
				continue
			}
			scores = append(scores, *g.meta.Score)
			votes[i].Score = g.meta.Score
			parts = append(parts, fmt.Sprintf("%s %d", g.judge.Name, *g.meta.Score))
		}
		if len(scores) == 0 {
			// No judge scored: the aggregate is missing too, and the
			// running score stays as it was.
			m.Target, m.TargetName = s.Target, st.name(s.Target)
			m.Missing = panelMissing(s, models, gaps)
			text = missingBody(m.Missing)
			break
		}
		mean := meanOf(scores)
		n, pm := roundHalfUp(mean), round3(mean)
		m.Target, m.TargetName, m.Score, m.PanelMean = s.Target, st.name(s.Target), &n, &pm
		m.Reasoning = fmt.Sprintf("the mean of the panel's %d scores (%s) is %s, rounded to %d", len(scores), strings.Join(parts, ", "), formatMean(mean), n)
		body, err := json.Marshal(scoreAnswer{Score: n, Reasoning: m.Reasoning})
		if err != nil {
			return m, "", sm.Event{}, err
		}
		text = string(body)
		st.RunningScores[s.Target] = n
		note = func(ev *sm.Event) {
			ev.Message += fmt.Sprintf(" (panel mean %s: %s)", formatMean(mean), strings.Join(parts, ", "))
			ev.Data = map[string]any{"panel_mean": pm, "judges": judgeValues(got, func(g panelAnswer) any {
				if g.meta.Score == nil {
					return nil
				}
				return *g.meta.Score
			})}
		}
	case kindConfirmation:
		count := map[string]int{}
		var lines []string
		for i, g := range got {
			votes[i].ConfirmedWinner, votes[i].Skipped = g.meta.ConfirmedWinner, g.meta.Skipped
			if w := g.meta.ConfirmedWinner; w != nil {
				count[*w]++
				lines = append(lines, g.judge.Name+": "+*w)
			} else {
				lines = append(lines, fmt.Sprintf("%s: named neither debater (%s)", g.judge.Name, g.meta.Skipped))
			}
		}
		a, b := st.name(st.a()), st.name(st.b())
		switch {
		case count[a] > count[b]:
			m.ConfirmedWinner = &a
		case count[b] > count[a]:
			m.ConfirmedWinner = &b
		case count[a] == 0:
			m.Skipped = "no judge of the panel named either debater"
		}
		text = strings.Join(lines, "\n")
		if m.ConfirmedWinner == nil && m.Skipped == "" {
			note = func(ev *sm.Event) {
				ev.Message = fmt.Sprintf("the panel is split: %d name %s, %d %s", count[a], a, count[b], b)
			}
		}
	case kindVerdict:
		verdicts := make([]*verdictState, len(got))
		for i, g := range got {
			verdicts[i] = g.verdict
			votes[i].Winner, votes[i].Scores = g.meta.Winner, g.meta.Scores
		}
		winner, source, count, means := panelVerdict(verdicts)
		v := &verdictState{Winner: winner, WinnerName: st.name(winner), WinnerSource: source, Votes: count,
			Scores: map[string]int{For: roundHalfUp(means[For]), Against: roundHalfUp(means[Against])}}
		if st.Premise != "" {
			up := winner == For
			v.PremiseUpheld = &up
		}
		st.Verdict = v
		byName := map[string]int{st.name(For): v.Scores[For], st.name(Against): v.Scores[Against]}
		m.Winner, m.WinnerSide, m.Scores, m.PremiseUpheld, m.WinnerSource = v.WinnerName, winner, byName, v.PremiseUpheld, source
		m.PanelMeans = map[string]float64{st.name(For): round3(means[For]), st.name(Against): round3(means[Against])}
		body, err := json.Marshal(struct {
			Winner string         `json:"winner"`
			Scores map[string]int `json:"scores"`
		}{v.WinnerName, byName})
		if err != nil {
			return m, "", sm.Event{}, err
		}
		text = string(body)
		note = func(ev *sm.Event) {
			ev.Message += fmt.Sprintf(" (%d of the panel's %d judges name %s)", count[winner], len(got), v.WinnerName)
			ev.Data = map[string]any{"votes": count, "judges": judgeValues(got, func(g panelAnswer) any { return g.meta.WinnerSide })}
		}
	}
	ev := d.event(s, m)
	if note != nil {
		note(&ev)
	}
	return m, text, ev, nil
}

// judgeValues maps each judge's name to value(its answer).
func judgeValues(got []panelAnswer, value func(panelAnswer) any) map[string]any {
	out := make(map[string]any, len(got))
	for _, g := range got {
		out[g.judge.Name] = value(g)
	}
	return out
}

// panelVerdict is the verdict of a panel whose judges gave verdicts, in
// the panel's order: the side most of them name; on a tie, the side with
// the higher mean verdict score; on a tie of those too, the first judge's
// winner. It returns the winning side, how it was decided
// ("panel-majority", "panel-tie-scores" or "panel-tie-first-judge"), the
// votes of each side and each side's mean verdict score.
func panelVerdict(verdicts []*verdictState) (winner, source string, votes map[string]int, means map[string]float64) {
	votes = map[string]int{For: 0, Against: 0}
	sums := map[string]float64{}
	for _, v := range verdicts {
		votes[v.Winner]++
		sums[For] += float64(v.Scores[For])
		sums[Against] += float64(v.Scores[Against])
	}
	n := float64(len(verdicts))
	means = map[string]float64{For: sums[For] / n, Against: sums[Against] / n}
	switch {
	case votes[For] != votes[Against]:
		winner, source = For, "panel-majority"
		if votes[Against] > votes[For] {
			winner = Against
		}
	case means[For] != means[Against]:
		winner, source = For, "panel-tie-scores"
		if means[Against] > means[For] {
			winner = Against
		}
	default:
		winner, source = verdicts[0].Winner, "panel-tie-first-judge"
	}
	return winner, source, votes, means
}

// meanOf is the mean of scores.
func meanOf(scores []int) float64 {
	sum := 0
	for _, s := range scores {
		sum += s
	}
	return float64(sum) / float64(len(scores))
}

// roundHalfUp rounds a score to the nearest whole number, halves up: 6.5
// is 7.
func roundHalfUp(x float64) int { return int(math.Floor(x + 0.5)) }

// round3 rounds x to three places.
func round3(x float64) float64 { return math.Round(x*1000) / 1000 }

// formatMean writes a mean to at most three places: 6.5, 6.667, 7.
func formatMean(x float64) string { return fmt.Sprint(round3(x)) }
