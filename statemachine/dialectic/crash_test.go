package dialectic_test

import (
	"os"
	"regexp"
	"testing"

	"github.com/moot-dev/moot/internal/testkit/crashtest"
	"github.com/moot-dev/moot/internal/testkit/judgefake"
	"github.com/moot-dev/moot/internal/testkit/sparring"
)

func TestMain(m *testing.M) {
	crashtest.AsMoot()
	os.Exit(m.Run())
}

// stamps are the times a judgment records, which differ between two runs
// of the same debate.
var stamps = regexp.MustCompile(`"(scored_at|created)": "[^"]*"`)

func judges() crashtest.CallKills {
	return crashtest.CallKills{
		New: []string{"--motion", "This house would tax sugar."},
		Model: judgefake.Handler(map[string]judgefake.Scorer{
			"lean": judgefake.Lean(0.2), "fair": judgefake.Alternating(0.2), "third": judgefake.Lean(-0.1),
		}, sparring.Handler(sparring.Options{})),
		Normalise: func(_, data string) string { return stamps.ReplaceAllString(data, `"$1": "*"`) },
	}
}

// TestPanelKilledAtEveryCall: a dialectic debate judged by a panel of
// three, killed while each call is in flight and run again, ends with
// the files of a run never killed; only the calls in flight are asked
// again, so each judge is asked at most once more for the step.
func TestPanelKilledAtEveryCall(t *testing.T) {
	if testing.Short() {
		t.Skip("crash test of 10 kills, each a moot process run twice: run without -short")
	}
	c := judges()
	c.Bin, c.Env = crashtest.Self(t)
	c.Run = []string{"--until", "2", "--judges", "lean,fair,third"}
	c.Requests = 10 // two exchanges: 2 debaters and 3 judges each
	k := crashtest.KillAtEveryCall(t, c)
	for _, f := range []string{"judgments/lean/scores.json", "judgments/fair/judge.json", "judgments/third/scores.json"} {
		if _, ok := k.Reference[f]; !ok {
			t.Errorf("the panel's run wrote no %s", f)
		}
	}
}

// TestRejudgeKilledAtEveryCall: judging a saved debate again, killed at
// each call and run again, ends with the files of an uninterrupted
// re-judging and asks only the call in flight twice.
func TestRejudgeKilledAtEveryCall(t *testing.T) {
	if testing.Short() {
		t.Skip("crash test of 3 kills, each a moot process run twice: run without -short")
	}
	c := judges()
	c.Bin, c.Env = crashtest.Self(t)
	c.Prepare = [][]string{{"run", "d", "--until", "3", "--judge-model", "fair"}}
	c.Command = []string{"rejudge", "d", "--judge-model", "lean"}
	c.Requests = 3
	k := crashtest.KillAtEveryCall(t, c)
	if _, ok := k.Reference["judgments/lean/scores.json"]; !ok {
		t.Error("the re-judging wrote no judgments/lean/scores.json")
	}
}
