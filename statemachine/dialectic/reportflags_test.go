package dialectic_test

import (
	"strings"
	"testing"
	"time"

	"github.com/moot-dev/moot/statemachine/dialectic"
)

// TestReportFlagsAMassRescore: the report warns, under its scoreboard,
// of a judgment that rescored four earlier arguments all in one side's
// favour.
func TestReportFlagsAMassRescore(t *testing.T) {
	deb, err := dialectic.Load(genDebate(t, 3))
	if err != nil {
		t.Fatal(err)
	}
	if md := string(dialectic.Build(deb, nil).Markdown()); strings.Contains(md, "judgment of exchange 2 rescored") {
		t.Fatalf("flagged before the mass rescore:\n%s", md)
	}
	cur := deb.Scores.Current()
	var entries []dialectic.Entry
	for _, id := range []string{"opp_000a", "opp_000b", "opp_000c", "opp_001"} {
		prev := cur[id]
		to := max(prev-0.5, -1)
		diff := to - prev
		entries = append(entries, dialectic.Entry{ArgumentID: id, Score: to, Reasoning: "as the argument told me", TriggeredBy: "prop_002", PreviousScore: &prev, Diff: &diff})
	}
	deb.Scores.Apply(entries, time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	md := string(dialectic.Build(deb, nil).Markdown())
	i, j := strings.Index(md, "> **Warning:** the judgment of exchange 2 rescored"), strings.Index(md, "## Motion")
	if i < 0 || (j >= 0 && j < i) {
		t.Errorf("the report does not warn of the mass rescore before the motion:\n%s", md[:min(len(md), 2000)])
	}
}
