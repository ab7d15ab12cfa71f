package dialectic_test

import (
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/moot-dev/moot/internal/testkit/crashtest"
	"github.com/moot-dev/moot/statemachine/dialectic"
	"github.com/moot-dev/moot/statemachine/dialectic/dialectictest/judgefake"
	"github.com/moot-dev/moot/statemachine/dialectic/dialectictest/sparring"
)

func TestMain(m *testing.M) {
	crashtest.AsMoot(dialectic.Protocol{})
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

// TestPipelinedKilledAtEveryCall: a run whose debaters of the next
// exchange are asked while the judge scores, killed while each call is in
// flight and run again, ends with the files of a run never killed, which
// are those of a run of one step at a time (--sequential); a debater's
// answer that came early, before the judgment was committed, is not asked
// again.
func TestPipelinedKilledAtEveryCall(t *testing.T) {
	if testing.Short() {
		t.Skip("crash test of 9 kills, each a moot process run twice: run without -short")
	}
	c := judges()
	c.Model = sparring.Handler(sparring.Options{})
	c.Bin, c.Env = crashtest.Self(t)
	c.Run = []string{"--until", "3"}
	c.Also = []string{"--sequential"}
	c.Requests = 9 // three exchanges: 2 debaters and the judge each
	crashtest.KillAtEveryCall(t, c)
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

// badJudge scores every argument +0.5, so that its judgments never sum
// to zero and are refused after every repair.
func badJudge(x int, ids []string) map[string]float64 {
	out := map[string]float64{}
	for _, id := range ids {
		out[id] = 0.5
	}
	return out
}

// TestPanelMissingJudgeKilledAtEveryCall: a panel run with --keep-going
// whose judge bad is refused at every exchange, killed while each call
// (each of bad's repairs included) is in flight and run again, ends with
// the files of a run never killed: bad's judgments recorded as missing
// in its folder, the official scores the other judge's.
func TestPanelMissingJudgeKilledAtEveryCall(t *testing.T) {
	if testing.Short() {
		t.Skip("crash test of 12 kills, each a moot process run twice: run without -short")
	}
	c := judges()
	c.Model = judgefake.Handler(map[string]judgefake.Scorer{"lean": judgefake.Lean(0.2), "bad": badJudge}, sparring.Handler(sparring.Options{}))
	c.Bin, c.Env = crashtest.Self(t)
	c.Run = []string{"--until", "2", "--judges", "lean,bad", "--keep-going"}
	c.Requests = 12 // two exchanges: 2 debaters, lean once and bad three times each
	k := crashtest.KillAtEveryCall(t, c)
	gaps := k.Reference["judgments/bad/missing.json"]
	for _, want := range []string{`"call": "00000/judge-bad"`, `"call": "00001/judge-bad"`, `"note": "no value was invented`} {
		if !strings.Contains(gaps, want) {
			t.Errorf("judgments/bad/missing.json has no %s:\n%s", want, gaps)
		}
	}
	if _, ok := k.Reference["judgments/bad/scores.json"]; ok {
		t.Error("a judge whose every judgment is missing has scores")
	}
}

// TestRejudgeMissingKilledAtEveryCall: a re-judging with --keep-going by
// a judge refused at every exchange, killed at each call and run again,
// ends with the files of an uninterrupted one, its gaps in its folder.
func TestRejudgeMissingKilledAtEveryCall(t *testing.T) {
	if testing.Short() {
		t.Skip("crash test of 6 kills, each a moot process run twice: run without -short")
	}
	c := judges()
	c.Model = judgefake.Handler(map[string]judgefake.Scorer{"fair": judgefake.Alternating(0.2), "bad": badJudge}, sparring.Handler(sparring.Options{}))
	c.Bin, c.Env = crashtest.Self(t)
	c.Prepare = [][]string{{"run", "d", "--until", "2", "--judge-model", "fair"}}
	c.Command = []string{"rejudge", "d", "--judge-model", "bad", "--keep-going"}
	c.Requests = 6 // two exchanges, bad asked three times each
	k := crashtest.KillAtEveryCall(t, c)
	if gaps := k.Reference["judgments/bad/missing.json"]; !strings.Contains(gaps, `"call": "rejudge-bad-00001/judge"`) {
		t.Errorf("the re-judging recorded no gap of exchange 1:\n%s", gaps)
	}
}

// TestPanelRetryMissingKilledAtEveryCall: --retry-missing over a panel
// whose judge bad's two judgments are missing, bad refused again, killed
// while each of its requests is in flight and run again, ends with the
// files of a pass never killed; a judgment asked again and recorded as
// missing again before the kill is not asked a third time.
func TestPanelRetryMissingKilledAtEveryCall(t *testing.T) {
	if testing.Short() {
		t.Skip("crash test of 6 kills, each a moot process run twice: run without -short")
	}
	c := judges()
	c.Model = judgefake.Handler(map[string]judgefake.Scorer{"lean": judgefake.Lean(0.2), "bad": badJudge}, sparring.Handler(sparring.Options{}))
	c.Bin, c.Env = crashtest.Self(t)
	c.Prepare = [][]string{{"run", "d", "--until", "2", "--judges", "lean,bad", "--keep-going", "--quiet"}}
	c.Command = []string{"run", "d", "--until", "2", "--retry-missing", "--keep-going"}
	c.Requests = 6 // two judgments, bad asked three times each
	k := crashtest.KillAtEveryCall(t, c)
	if gaps := k.Reference["judgments/bad/missing.json"]; !strings.Contains(gaps, `"call": "00001/judge-bad"`) {
		t.Errorf("bad's judgment of exchange 1 is not missing again:\n%s", gaps)
	}
}

// TestRejudgeRetryMissingKilledAtEveryCall: moot rejudge --retry-missing
// over a re-judging whose two judgments are missing, refused again,
// killed at each request and run again, ends with the files of a pass
// never killed, only the request in flight asked again.
func TestRejudgeRetryMissingKilledAtEveryCall(t *testing.T) {
	if testing.Short() {
		t.Skip("crash test of 6 kills, each a moot process run twice: run without -short")
	}
	c := judges()
	c.Model = judgefake.Handler(map[string]judgefake.Scorer{"fair": judgefake.Alternating(0.2), "bad": badJudge}, sparring.Handler(sparring.Options{}))
	c.Bin, c.Env = crashtest.Self(t)
	c.Prepare = [][]string{
		{"run", "d", "--until", "2", "--judge-model", "fair", "--quiet"},
		{"rejudge", "d", "--judge-model", "bad", "--keep-going", "--quiet"},
	}
	c.Command = []string{"rejudge", "d", "--name", "bad", "--retry-missing", "--keep-going"}
	c.Requests = 6
	k := crashtest.KillAtEveryCall(t, c)
	if gaps := k.Reference["judgments/bad/missing.json"]; !strings.Contains(gaps, `"call": "rejudge-bad-00001/judge"`) {
		t.Errorf("the re-judging's gap of exchange 1 is not missing again:\n%s", gaps)
	}
}
