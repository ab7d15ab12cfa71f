package forum_test

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/moot-dev/moot/internal/testkit/crashtest"
	"github.com/moot-dev/moot/internal/testkit/forumfake"
	"github.com/moot-dev/moot/internal/testkit/modeltest"
	sm "github.com/moot-dev/moot/statemachine"
	"github.com/moot-dev/moot/statemachine/dialectic"
	"github.com/moot-dev/moot/statemachine/forum"
)

func TestMain(m *testing.M) {
	crashtest.AsMoot(dialectic.Protocol{}, forum.Protocol{})
	os.Exit(m.Run())
}

// fakeHandler answers over HTTP as forumfake does.
func fakeHandler(req modeltest.Request) modeltest.Reply {
	return modeltest.Reply{Content: forumfake.Reply(fakeMessages(req), forumfake.Options{})}
}

// fakeMessages is the conversation of req, as forumfake reads it.
func fakeMessages(req modeltest.Request) []forumfake.Message {
	msgs := make([]forumfake.Message, len(req.Messages))
	for i, m := range req.Messages {
		msgs[i] = forumfake.Message{Role: m.Role, Content: m.Content}
	}
	return msgs
}

// TestKilledAtEveryCall: moot itself, killed with SIGKILL while each of
// the 30 calls of a debate of six turns with a judge is in flight, and
// run again, ends with the files of a run never killed; only the call in
// flight is asked twice.
func TestKilledAtEveryCall(t *testing.T) {
	if testing.Short() {
		t.Skip("crash test of 30 kills, each a moot process run twice: run without -short")
	}
	cast := castFile(t)
	bin, env := crashtest.Self(t)
	crashtest.KillAtEveryCall(t, crashtest.CallKills{
		Bin: bin, Env: env,
		New:      []string{"--protocol", "forum", "--motion", "Whether tests should talk to the network", "--turns", "6", "--seed", "7", "--cast", cast},
		Model:    fakeHandler,
		Requests: 30,
		// The next speaker's calls are asked while the judge's are:
		// the files are those of a run of one call at a time.
		Also: []string{"--sequential"},
	})
}

// TestKilledAtEveryCallPanel: the same with a panel of two judges over
// three turns, each judge's call a request of its own: killed while any
// of them is in flight and run again, moot asks each judge at most once
// more for the step in flight and ends with the files of a run never
// killed (the judges' records aside, which say when they were made).
func TestKilledAtEveryCallPanel(t *testing.T) {
	if testing.Short() {
		t.Skip("crash test of 28 kills, each a moot process run twice: run without -short")
	}
	cast := castFile(t)
	created := regexp.MustCompile(`"created": "[^"]*"`)
	bin, env := crashtest.Self(t)
	crashtest.KillAtEveryCall(t, crashtest.CallKills{
		Bin: bin, Env: env,
		New:   []string{"--protocol", "forum", "--motion", "Whether tests should talk to the network", "--turns", "3", "--seed", "7", "--cast", cast},
		Run:   []string{"--all", "--judges", "a,b"},
		Model: fakeHandler,
		// 8 calls of the debaters, 10 of each judge.
		Requests: 28,
		Normalise: func(name, data string) string {
			if strings.HasSuffix(name, sm.JudgeRecordFile) {
				return created.ReplaceAllString(data, `"created": ""`)
			}
			return data
		},
	})
}

// refusingConfirmation answers as fakeHandler does but names neither
// debater when asked who won, every time, so that the confirmation is
// skipped after every repair.
func refusingConfirmation(req modeltest.Request) modeltest.Reply {
	msgs := fakeMessages(req)
	if forumfake.Kind(msgs) == forumfake.Confirmation {
		return modeltest.Reply{Content: "Both argued well; I cannot choose."}
	}
	return fakeHandler(req)
}

// TestKilledAtEveryWriteSkippedConfirmation: the last steps of a debate,
// the first a confirmation refused after every repair, moot exiting as if
// killed at each of their writes and run again, ends with the files of a run never killed: the
// skipped confirmation keeps its model and the requests it took.
func TestKilledAtEveryWriteSkippedConfirmation(t *testing.T) {
	if testing.Short() {
		t.Skip("crash test of one moot process per write of a step: run without -short")
	}
	cast := castFile(t)
	bin, env := crashtest.Self(t)
	n := crashtest.ExitAtEveryWrite(t, crashtest.CallKills{
		Bin: bin, Env: env,
		New:   []string{"--protocol", "forum", "--motion", "Whether tests should talk to the network", "--turns", "2", "--seed", "7", "--cast", cast},
		Model: refusingConfirmation,
		// Both turns, then the deliberation: the next step is the
		// confirmation, then the verdict and the announcement.
		Prepare: [][]string{{"run", "d", "2", "--quiet"}, {"step", "d", "--quiet"}},
		Command: []string{"run", "d", "--all"},
	})
	t.Logf("the step of the skipped confirmation made %d writes", n)
}

// refusingBrook answers as fakeHandler does but never gives a score or
// an evaluation of Brook's turns (prose, then an empty answer), so that
// a run with --keep-going records them as missing.
func refusingBrook(req modeltest.Request) modeltest.Reply {
	msgs := fakeMessages(req)
	last := msgs[len(msgs)-1].Content
	switch forumfake.Kind(msgs) {
	case forumfake.Score:
		if strings.Contains(last, "Brook") || strings.Contains(promptOf(msgs), "Brook") {
			return modeltest.Reply{Content: "Brook was fine, I suppose."}
		}
	case forumfake.Evaluate:
		if strings.Contains(last, "Brook") {
			return modeltest.Reply{Content: "   "}
		}
	}
	return fakeHandler(req)
}

// promptOf is the newest user message of msgs that is not a repair.
func promptOf(msgs []forumfake.Message) string {
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i].Role == "user" && !strings.Contains(msgs[i].Content, "could not be accepted") {
			return msgs[i].Content
		}
	}
	return ""
}

// TestKilledAtEveryCallKeepGoing: a run with --keep-going whose judge
// never scores nor evaluates Brook, killed with SIGKILL while each call
// is in flight and run again, ends with the files of a run never killed,
// the calls recorded as missing included (their models, requests and
// refused answers); only the call in flight is asked twice.
func TestKilledAtEveryCallKeepGoing(t *testing.T) {
	if testing.Short() {
		t.Skip("crash test of a kill per call, each a moot process run twice: run without -short")
	}
	cast := castFile(t)
	bin, env := crashtest.Self(t)
	k := crashtest.KillAtEveryCall(t, crashtest.CallKills{
		Bin: bin, Env: env,
		New:   []string{"--protocol", "forum", "--motion", "Whether tests should talk to the network", "--turns", "3", "--seed", "7", "--cast", cast},
		Run:   []string{"--all", "--keep-going"},
		Model: refusingBrook,
	})
	score := k.Reference["calls/010_score_judge.md"]
	if !strings.Contains(score, `"missing": {`) || strings.Contains(score, `"score":`) || !strings.Contains(score, `"attempts": 3`) {
		t.Errorf("Brook's score is not recorded as missing after three requests:\n%s", score)
	}
}

// TestKilledAtEveryWriteMissingScore: the step of a score recorded as
// missing, moot exiting as if killed at each of its writes and run again
// with --keep-going, ends with the files of a run never killed.
func TestKilledAtEveryWriteMissingScore(t *testing.T) {
	if testing.Short() {
		t.Skip("crash test of one moot process per write of a step: run without -short")
	}
	cast := castFile(t)
	bin, env := crashtest.Self(t)
	crashtest.ExitAtEveryWrite(t, crashtest.CallKills{
		Bin: bin, Env: env,
		New:   []string{"--protocol", "forum", "--motion", "Whether tests should talk to the network", "--turns", "3", "--seed", "7", "--cast", cast},
		Model: refusingBrook,
		// Turn 1; turn 2 is Brook's, whose evaluation and score go
		// missing.
		Prepare: [][]string{{"run", "d", "1", "--quiet"}},
		Command: []string{"run", "d", "--until", "2", "--keep-going"},
	})
}

// TestKilledAtEveryCallPanelKeepGoing: a panel of two judges, the second
// of which never scores nor evaluates, run with --keep-going, killed with SIGKILL while
// each call is in flight and run again, ends with the files of a run
// never killed: the second judge's scores and evaluations recorded as
// missing in its folder, the panel's those of the first.
func TestKilledAtEveryCallPanelKeepGoing(t *testing.T) {
	if testing.Short() {
		t.Skip("crash test of a kill per call, each a moot process run twice: run without -short")
	}
	cast := castFile(t)
	created := regexp.MustCompile(`"created": "[^"]*"`)
	bin, env := crashtest.Self(t)
	k := crashtest.KillAtEveryCall(t, crashtest.CallKills{
		Bin: bin, Env: env,
		New:   []string{"--protocol", "forum", "--motion", "Whether tests should talk to the network", "--turns", "2", "--seed", "7", "--cast", cast},
		Run:   []string{"--all", "--judges", "a,b", "--keep-going"},
		Model: panelRefusingB,
		Normalise: func(name, data string) string {
			if strings.HasSuffix(name, sm.JudgeRecordFile) {
				return created.ReplaceAllString(data, `"created": ""`)
			}
			return data
		},
	})
	if s := k.Reference["judgments/b/calls/006_score_judge.md"]; !strings.Contains(s, `"missing": {`) {
		t.Errorf("judge b's score is not recorded as missing:\n%s", s)
	}
	if s := k.Reference["calls/006_score_judge.md"]; !strings.Contains(s, `"missing": true`) || !strings.Contains(s, `"score": `) {
		t.Errorf("the panel's score is not judge a's with b missing:\n%s", s)
	}
	if s := k.Reference["judgments/b/calls/005_evaluate_judge.md"]; !strings.Contains(s, `"missing": {`) {
		t.Errorf("judge b's evaluation is not recorded as missing:\n%s", s)
	}
}

// castFile writes castYAML to a file and returns its path.
func castFile(t *testing.T) string {
	t.Helper()
	cast := filepath.Join(t.TempDir(), "cast.yaml")
	if err := os.WriteFile(cast, []byte(castYAML), 0o644); err != nil {
		t.Fatal(err)
	}
	return cast
}

// panelRefusingB answers as fakeHandler does, but the judge on model b
// never gives a score (it answers prose) nor an evaluation (an empty
// answer, the model's failure).
func panelRefusingB(req modeltest.Request) modeltest.Reply {
	if req.Model == "b" {
		switch forumfake.Kind(fakeMessages(req)) {
		case forumfake.Score:
			return modeltest.Reply{Content: "No number from me."}
		case forumfake.Evaluate:
			return modeltest.Reply{Content: " "}
		}
	}
	return fakeHandler(req)
}

// createdBlank blanks the time of a judge's record.
func createdBlank(name, data string) string {
	if strings.HasSuffix(name, sm.JudgeRecordFile) {
		return regexp.MustCompile(`"created": "[^"]*"`).ReplaceAllString(data, `"created": ""`)
	}
	return data
}

// TestKilledAtEveryCallPanelRetryMissing: --retry-missing over a panel
// whose judge b's two scores and two evaluations are missing, b refused
// again, killed with
// SIGKILL while each of its requests (its repairs included) is in flight
// and run again, ends with the files of a pass never killed; a score
// asked again and recorded as missing again before the kill is not asked
// a third time.
func TestKilledAtEveryCallPanelRetryMissing(t *testing.T) {
	if testing.Short() {
		t.Skip("crash test of 8 kills, each a moot process run twice: run without -short")
	}
	cast := castFile(t)
	bin, env := crashtest.Self(t)
	k := crashtest.KillAtEveryCall(t, crashtest.CallKills{
		Bin: bin, Env: env,
		New:     []string{"--protocol", "forum", "--motion", "Whether tests should talk to the network", "--turns", "2", "--seed", "7", "--cast", cast},
		Prepare: [][]string{{"run", "d", "--all", "--judges", "a,b", "--keep-going", "--quiet"}},
		Command: []string{"run", "d", "--retry-missing", "--keep-going"},
		Model:   panelRefusingB,
		// Two scores of b, each asked three times; two evaluations, each
		// failing at once.
		Requests:  8,
		Normalise: createdBlank,
	})
	if s := k.Reference["judgments/b/calls/010_score_judge.md"]; !strings.Contains(s, `"missing": {`) {
		t.Errorf("judge b's score is not recorded as missing again:\n%s", s)
	}
}

// TestKilledAtEveryCallPanelRetryMissingAnswered: the same where b now
// answers: killed at each of its four requests and run again, moot ends
// with the files of a pass never killed, each panel score the mean of
// both judges and each evaluation both judges'.
func TestKilledAtEveryCallPanelRetryMissingAnswered(t *testing.T) {
	if testing.Short() {
		t.Skip("crash test of 4 kills, each a moot process run twice: run without -short")
	}
	cast := castFile(t)
	bin, env := crashtest.Self(t)
	c := crashtest.CallKills{
		Bin: bin, Env: env,
		New:     []string{"--protocol", "forum", "--motion", "Whether tests should talk to the network", "--turns", "2", "--seed", "7", "--cast", cast},
		Prepare: [][]string{{"run", "d", "--all", "--judges", "a,b", "--keep-going", "--quiet"}},
		Command: []string{"run", "d", "--retry-missing"},
		// b scores now: the debate was made where it did not.
		PrepareModel: panelRefusingB,
		Model:        fakeHandler,
		Requests:     4,
		Normalise:    createdBlank,
	}
	k := crashtest.KillAtEveryCall(t, c)
	if s := k.Reference["calls/006_score_judge.md"]; strings.Contains(s, `"missing"`) || !strings.Contains(s, "the mean of the panel's 2 scores") {
		t.Errorf("the panel's score is not the mean of both judges:\n%s", s)
	}
	if s := k.Reference["calls/005_evaluate_judge.md"]; strings.Contains(s, `"missing"`) || !strings.Contains(s, "\nb (b):") {
		t.Errorf("the panel's evaluation is not both judges':\n%s", s)
	}
}

// TestKilledAtEveryCallRetryMissing: --retry-missing over a debate whose
// judge never evaluated nor scored Brook's turn, failing again, killed
// while each request is in flight and run again, ends with the files of a
// pass never killed; only the request in flight is asked again.
func TestKilledAtEveryCallRetryMissing(t *testing.T) {
	if testing.Short() {
		t.Skip("crash test of 4 kills, each a moot process run twice: run without -short")
	}
	cast := castFile(t)
	bin, env := crashtest.Self(t)
	crashtest.KillAtEveryCall(t, crashtest.CallKills{
		Bin: bin, Env: env,
		New:     []string{"--protocol", "forum", "--motion", "Whether tests should talk to the network", "--turns", "3", "--seed", "7", "--cast", cast},
		Prepare: [][]string{{"run", "d", "--all", "--keep-going", "--quiet"}},
		Command: []string{"run", "d", "--retry-missing", "--keep-going"},
		Model:   refusingBrook,
		// Brook's score, asked three times; the evaluation, whose empty
		// answer is the model's failure, once.
		Requests: 4,
	})
}

// TestKilledAtEveryCallRejudgeRetryMissing: moot rejudge --retry-missing
// over a re-judging whose judge never scored nor evaluated, failing again, killed while
// each request is in flight and run again, ends with the files of a pass
// never killed; only the request in flight is asked again.
func TestKilledAtEveryCallRejudgeRetryMissing(t *testing.T) {
	if testing.Short() {
		t.Skip("crash test of 8 kills, each a moot process run twice: run without -short")
	}
	cast := castFile(t)
	bin, env := crashtest.Self(t)
	k := crashtest.KillAtEveryCall(t, crashtest.CallKills{
		Bin: bin, Env: env,
		New: []string{"--protocol", "forum", "--motion", "Whether tests should talk to the network", "--turns", "2", "--seed", "7", "--cast", cast},
		Prepare: [][]string{
			{"run", "d", "--all", "--quiet"},
			{"rejudge", "d", "--judge-model", "b", "--keep-going", "--quiet"},
		},
		Command:   []string{"rejudge", "d", "--name", "b", "--retry-missing", "--keep-going"},
		Model:     panelRefusingB,
		Requests:  8,
		Normalise: createdBlank,
	})
	if s := k.Reference["judgments/b/calls/010_score_judge.md"]; !strings.Contains(s, `"call": "rejudge-b-010-score/judge"`) {
		t.Errorf("the re-judging's score is not recorded as missing again:\n%s", s)
	}
}

// TestKilledAtEveryCallRejudgeKeepGoing: a re-judging with --keep-going
// whose judge never scores, killed while each of its requests (its
// repairs included) is in flight and run again, ends with the files of a
// re-judging never killed: its scores recorded as missing in its folder,
// its other calls made; only the request in flight is asked again.
func TestKilledAtEveryCallRejudgeKeepGoing(t *testing.T) {
	if testing.Short() {
		t.Skip("crash test of a kill per request, each a moot process run twice: run without -short")
	}
	cast := castFile(t)
	bin, env := crashtest.Self(t)
	k := crashtest.KillAtEveryCall(t, crashtest.CallKills{
		Bin: bin, Env: env,
		New:       []string{"--protocol", "forum", "--motion", "Whether tests should talk to the network", "--turns", "2", "--seed", "7", "--cast", cast},
		Prepare:   [][]string{{"run", "d", "--all", "--quiet"}},
		Command:   []string{"rejudge", "d", "--judge-model", "b", "--keep-going"},
		Model:     panelRefusingB,
		Normalise: createdBlank,
	})
	for _, f := range []string{"judgments/b/calls/006_score_judge.md", "judgments/b/calls/010_score_judge.md"} {
		if !strings.Contains(k.Reference[f], `"missing": {`) {
			t.Errorf("%s is not recorded as missing:\n%s", f, k.Reference[f])
		}
	}
	if _, ok := k.Reference["judgments/b/verdict.md"]; !ok {
		t.Error("the re-judging gave no verdict")
	}
}
