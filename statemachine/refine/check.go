package refine

import (
	"fmt"
	"sort"
	"strings"

	sm "github.com/moot-dev/moot/statemachine"
)

// phaseOrder ranks the phases of a round and of the finish.
var phaseOrder = map[string]int{phaseRetrieval: 0, phaseProposal: 1, phaseCritique: 2, phaseSynthesis: 3, phaseScore: 4, phaseComplete: 5}

// Check lists what is wrong with the files: a state that disagrees with
// the files there are, a kept template that changed, a decision that is
// not the stop rule's.
func (d *debate) Check() sm.Findings {
	var f sm.Findings
	f.Problems = append(f.Problems, d.problems...)
	st := d.st
	at := phaseOrder[st.Phase]
	switch {
	case at >= phaseOrder[phaseSynthesis] && st.Stop == nil:
		f.Problemf(sm.StateFile, "current_phase is %q, but stop is null", st.Phase)
	case at < phaseOrder[phaseSynthesis] && st.Stop != nil:
		f.Problemf(sm.StateFile, "stop is set, but current_phase is %q", st.Phase)
	case st.Stop != nil && st.Stop.Round != st.Round:
		f.Problemf(sm.StateFile, "stop.round is %d, but current_round is %d", st.Stop.Round, st.Round)
	}
	if at == phaseOrder[phaseRetrieval] {
		if d.retrieval != nil {
			f.Problemf(RetrievalFile, "is written, but debate.md still awaits the retrieval")
		}
	} else if d.retrieval == nil {
		f.Problemf(RetrievalFile, "is missing: debate.md is past the retrieval")
	} else {
		sums := map[string]string{}
		for _, c := range d.retrieval.Candidates {
			sums[c.ID] = c.SHA256
		}
		for _, id := range d.retrieval.Kept {
			t, ok := d.own[id]
			file := ReasoningDir + "/" + id + ".md"
			switch {
			case !ok:
				f.Problemf(file, "is missing: retrieval.json keeps template %q", id)
			case sha(t.Body) != sums[id]:
				f.Problemf(file, "differs from the template retrieval.json kept (sha256 %s)", sums[id])
			}
		}
	}
	// Rounds: those before current_round are whole; the current one has
	// what its phase says.
	var nums []int
	for n := range d.rounds {
		nums = append(nums, n)
	}
	sort.Ints(nums)
	for _, n := range nums {
		r := d.rounds[n]
		wantP := n < st.Round || (n == st.Round && at >= phaseOrder[phaseCritique])
		wantC := n < st.Round || (n == st.Round && at >= phaseOrder[phaseSynthesis])
		if r.Proposal != nil && !wantP {
			f.Problemf(r.Proposal.file, "round %d's proposal is not given yet: debate.md is at %s of round %d", n, st.Phase, st.Round)
		}
		if r.Critique != nil && !wantC {
			f.Problemf(r.Critique.file, "round %d's critique is not given yet: debate.md is at %s of round %d", n, st.Phase, st.Round)
		}
	}
	for n := 1; n <= st.Round; n++ {
		wantP := n < st.Round || at >= phaseOrder[phaseCritique]
		wantC := n < st.Round || at >= phaseOrder[phaseSynthesis]
		if wantP && d.proposalOf(n) == nil {
			f.Problemf(proposalFile(n), "is missing: round %d's proposal was given", n)
		}
		c := d.critiqueOf(n)
		if wantC && c == nil {
			f.Problemf(critiqueFile(n), "is missing: round %d's critique was given", n)
		}
		if c == nil || c.Round != n {
			if c != nil {
				f.Problemf(c.file, "says round %d", c.Round)
			}
			continue
		}
		var crit, major, minor int
		for _, p := range c.Points {
			switch p.Severity {
			case "critical":
				crit++
			case "major":
				major++
			case "minor":
				minor++
			}
		}
		open := map[string]string{}
		for _, o := range d.openBefore(n) {
			open[o.ID] = o.Severity
		}
		for _, p := range c.Previous {
			if p.Status == "resolved" {
				continue
			}
			switch open[p.ID] {
			case "critical":
				crit++
			case "major":
				major++
			case "minor":
				minor++
			}
		}
		if crit != c.Critical || major != c.Major || minor != c.Minor {
			f.Problemf(c.file, "counts %d/%d/%d critical/major/minor, but its points make %d/%d/%d", c.Critical, c.Major, c.Minor, crit, major, minor)
		}
		for _, msg := range checkCritique(c, n, open, st.EarlyStop) {
			f.Problemf(c.file, "%s", msg)
		}
		want := Decide(Facts{Ready: c.Ready, Critical: c.Critical, Score: c.Score}, n, st.MinRounds, st.MaxRounds)
		if want.Stop != c.Decision.Stop || want.Reason != c.Decision.Reason {
			f.Problemf(c.file, "decision is stop=%t %q, but the stop rule gives stop=%t %q", c.Decision.Stop, c.Decision.Reason, want.Stop, want.Reason)
		}
		last := n == st.Round && st.Stop != nil
		if c.Decision.Stop != last {
			f.Problemf(c.file, "decision stop=%t disagrees with debate.md (current_round %d, stop %v)", c.Decision.Stop, st.Round, st.Stop != nil)
		}
		if last && c.Decision.Reason != st.Stop.Reason {
			f.Problemf(sm.StateFile, "stop.reason is %q, but %s says %q", st.Stop.Reason, c.file, c.Decision.Reason)
		}
	}
	if has, want := d.synthesis != nil, at >= phaseOrder[phaseScore]; has != want {
		f.Problemf(SynthesisFile, "is %s, but debate.md is at %s", map[bool]string{true: "written", false: "missing"}[has], st.Phase)
	}
	if d.scoreGap != nil && !strings.HasSuffix(d.scoreGap.Missing.Call, "score/"+RoleJudge) {
		f.Problemf(ScoreFile, "missing.call: %q is not the judge's score", d.scoreGap.Missing.Call)
	}
	if has, want := d.score != nil || d.scoreGap != nil, at == phaseOrder[phaseComplete]; has != want {
		f.Problemf(ScoreFile, "is %s, but debate.md is at %s", map[bool]string{true: "written", false: "missing"}[has], st.Phase)
	}
	switch {
	case d.score == nil:
	case d.score.Parse != "panel":
		// The judge's own score: the rules its answer was read by.
		for _, msg := range judgeScoreProblems(d.score) {
			f.Problemf(ScoreFile, "%s", msg)
		}
	default:
		// A panel's aggregate, a mean of its judges' scores (checkJudges).
		if w := Weighted(d.score.Criteria); w != d.score.WeightedScore {
			f.Problemf(ScoreFile, "weighted_score is %.2f, but its criteria make %.2f", d.score.WeightedScore, w)
		}
		if d.score.Score < 1 || d.score.Score > 10 {
			f.Problemf(ScoreFile, "score %d is outside 1 to 10", d.score.Score)
		}
	}
	d.checkJudges(&f)
	return f
}

// checkCritique lists what is wrong with c, the critique of round n, by
// the rules its answer was read by: a skeptic_score from 1 to 10, ready
// only at the early-stop score, each point's severity one of Severities
// and its id R<n>.<place>, and each earlier point rated one of Statuses,
// once, among those still open (open, by id).
func checkCritique(c *critique, n int, open map[string]string, earlyStop int) []string {
	var out []string
	if c.Score < 1 || c.Score > 10 {
		out = append(out, fmt.Sprintf("skeptic_score %d is outside 1 to 10", c.Score))
	} else if c.Ready && c.Score < earlyStop {
		out = append(out, fmt.Sprintf("ready is true but skeptic_score %d is below the early-stop score %d", c.Score, earlyStop))
	}
	for i, p := range c.Points {
		if !oneOf(p.Severity, Severities) {
			out = append(out, fmt.Sprintf("points[%d].severity %q is none of %s", i, p.Severity, strings.Join(Severities, ", ")))
		}
		if want := fmt.Sprintf("R%d.%d", n, i+1); p.ID != want {
			out = append(out, fmt.Sprintf("points[%d].id %q, but its place makes it %q", i, p.ID, want))
		}
	}
	rated := map[string]bool{}
	for i, p := range c.Previous {
		if _, ok := open[p.ID]; !ok || rated[p.ID] {
			out = append(out, fmt.Sprintf("previous[%d].id %q is not an earlier point still open, rated once", i, p.ID))
		}
		rated[p.ID] = true
		if !oneOf(p.Status, Statuses) {
			out = append(out, fmt.Sprintf("previous[%d].status %q is none of %s", i, p.Status, strings.Join(Statuses, ", ")))
		}
	}
	return out
}
