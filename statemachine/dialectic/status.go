package dialectic

import (
	"fmt"
	"strconv"
	"strings"

	sm "github.com/moot-dev/moot/statemachine"
)

var _ sm.StatusLayout = (*stepDebate)(nil)

// statusJSON is what `moot status --json` prints of a dialectic debate.
type statusJSON struct {
	Debate   string `json:"debate"`
	Path     string `json:"path"`
	Motion   string `json:"motion"`
	Exchange int    `json:"exchange"`
	Phase    Phase  `json:"phase"`
	Next     string `json:"next"`
	Command  string `json:"command"`
	Totals   Totals `json:"cumulative_scores"`
	Leader   string `json:"leader"`
	// Margin is how far the leader is ahead.
	Margin    float64 `json:"margin"`
	Arguments int     `json:"arguments"`
	Pending   bool    `json:"interrupted_step_pending"`
	// End is how many exchanges a debate made with an end has (0: none),
	// and Complete reports that it has reached it.
	End      int  `json:"end,omitempty"`
	Complete bool `json:"complete"`
	Usage    any  `json:"usage"`
	// Cost is the bill of the usage log.
	Cost   map[string]any `json:"cost,omitempty"`
	Writer any            `json:"writer,omitempty"`
	// Judges is the debate's judge panel, when it has one; Judgments
	// names every judge with a record under judgments/.
	Judges    []sm.Judge `json:"judges,omitempty"`
	Judgments []string   `json:"judgments,omitempty"`
	// Missing names the judgments recorded as missing (moot run
	// --keep-going), by call.
	Missing  []string `json:"missing,omitempty"`
	Scripted string   `json:"scripted,omitempty"`
	// Flags names the judgments whose rescores look like a judge that
	// obeyed instructions planted in an argument (RescoreFlags).
	Flags []string `json:"flags,omitempty"`
}

// StatusLayout lays out the status of a dialectic debate as moot has
// always printed it: its id and whole motion, the exchange and phase, the
// commands that take the next step with models and by hand, the scores,
// the leader, the arguments, the warnings of rescores, the judges and
// what they miss.
func (s *stepDebate) StatusLayout(dir string, moot sm.StatusFacts) sm.Layout {
	h := s.deb.Header
	st := s.Status()
	out := statusJSON{
		Debate: h.ID, Path: dir, Motion: h.Motion.Text,
		Exchange: h.State.Exchange, Phase: h.State.Phase, Next: st.Next, Totals: h.Totals,
		Arguments: len(s.deb.Arguments), Pending: moot.Pending, End: h.End, Complete: st.Complete,
		Usage: moot.Usage, Cost: moot.Cost, Writer: moot.Writer, Judges: s.panel,
		Scripted: moot.Scripted, Flags: s.deb.RescoreFlags(),
	}
	if !st.Complete {
		out.Command = HandCommand(dir, h.State)
	}
	for _, n := range s.sortedJudges() {
		if s.judges[n].Record != nil {
			out.Judgments = append(out.Judgments, n)
		}
	}
	missing := ""
	if len(out.Judgments) > 0 {
		out.Missing = s.Gaps()
		missing = gapLine(s.sortedJudges(), s.judges)
	}
	side, margin := h.Totals.Leader()
	out.Leader, out.Margin = side.Name(), margin
	if side == "" {
		out.Leader = "even"
	}

	l := sm.Layout{JSON: out, ByHand: out.Command,
		Head:  []sm.StatusLine{{Label: "debate", Text: h.ID}},
		Where: sm.StatusLine{Label: "exchange", Text: fmt.Sprintf("%d, %s", h.State.Exchange, strings.ReplaceAll(string(h.State.Phase), "_", " "))},
	}
	if st.Complete {
		// An ended debate's files still wait for the arguments of an
		// exchange it will never have: status says it ended.
		l.Where.Text = fmt.Sprintf("%d of %d, ended", st.Done, st.Total)
	}
	// The whole motion, each of its lines wrapped: status never cuts it.
	label := "motion"
	for _, para := range strings.Split(strings.TrimSpace(h.Motion.Text), "\n") {
		if strings.TrimSpace(para) != "" {
			l.Head = append(l.Head, sm.StatusLine{Label: label, Text: para, Wrap: true})
			label = ""
		}
	}
	t := h.Totals
	leader := "none: the sides are even"
	if side != "" {
		leader = side.Name() + " by " + strconv.FormatFloat(margin, 'f', 2, 64)
	}
	l.Lines = []sm.StatusLine{
		{Label: "scores", Text: fmt.Sprintf("proposition %s (%d scored) · opposition %s (%d scored)",
			FormatScore(t.Proposition.Total), t.Proposition.Count, FormatScore(t.Opposition.Total), t.Opposition.Count)},
		{Label: "leader", Text: leader},
		{Label: "arguments", Text: strconv.Itoa(len(s.deb.Arguments))},
	}
	for _, flag := range out.Flags {
		l.Lines = append(l.Lines, sm.StatusLine{Label: "warning", Text: flag, Wrap: true})
	}
	if len(s.panel) > 0 {
		names := make([]string, len(s.panel))
		for i, j := range s.panel {
			names[i] = j.Name
			if j.Model != j.Name {
				names[i] += " (" + j.Model + ")"
			}
		}
		l.Lines = append(l.Lines, sm.StatusLine{Label: "judges",
			Text: fmt.Sprintf("a panel of %d: %s; the scores are their means", len(s.panel), strings.Join(names, ", "))})
	}
	if len(out.Judgments) > 0 {
		l.Lines = append(l.Lines, sm.StatusLine{Label: "judgments",
			Text: fmt.Sprintf("%s under %s/: moot judges %s compares them", strings.Join(out.Judgments, ", "), sm.JudgmentsDir, dir)})
	}
	if missing != "" {
		l.Lines = append(l.Lines, sm.StatusLine{Label: "missing", Text: missing})
	}
	return l
}

// HandCommand is the command line that takes, by hand, the step st waits
// for in the debate in the folder dir.
func HandCommand(dir string, st State) string {
	line := fmt.Sprintf("moot %s %s", st.Command(), dir)
	if st.Phase == AwaitingJudgment {
		return line + " --json-file JUDGMENT.json"
	}
	return fmt.Sprintf("%s %d --prop-file PROP.json --opp-file OPP.json", line, st.Exchange)
}
