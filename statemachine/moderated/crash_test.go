package moderated_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/moot-dev/moot/internal/driver"
	"github.com/moot-dev/moot/internal/testkit/crashtest"
	"github.com/moot-dev/moot/internal/testkit/fixture"
	"github.com/moot-dev/moot/internal/testkit/modeltest"
	"github.com/moot-dev/moot/internal/testkit/protocoltest"
	"github.com/moot-dev/moot/statemachine/dialectic"
	"github.com/moot-dev/moot/statemachine/moderated"
	"github.com/moot-dev/moot/statemachine/moderated/moderatedtest"
)

func TestMain(m *testing.M) {
	crashtest.AsMoot(dialectic.Protocol{}, moderated.Protocol{})
	code := m.Run()
	protocoltest.RemoveShared()
	os.Exit(code)
}

// TestInterruptedAtEveryCall: a run interrupted while any call is in
// flight, then resumed, ends with the files of a run never interrupted;
// only the call in flight is asked twice.
func TestInterruptedAtEveryCall(t *testing.T) {
	whole, want, reqs := runAll(t, map[string]string{"rounds": "1", "transcript": "true"}, moderatedtest.Options{})
	_ = whole
	total := len(reqs)
	for _, stop := range crashtest.InterruptAt(t, total) {
		t.Run(fmt.Sprintf("at request %d", stop), func(t *testing.T) {
			// Each run has its own debate and fake: they go in parallel.
			t.Parallel()
			dir := newDebate(t, map[string]string{"rounds": "1", "transcript": "true"})
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			h, asked := protocoltest.StopAt(moderatedtest.Handler(moderatedtest.Options{}), stop, cancel)
			srv := modeltest.NewServer(t, h)
			// One call at a time, so that one is in flight when the run
			// is interrupted: TestKilledAtEveryCall counts the calls in
			// flight of a pipelined run (the default) by their prompts.
			opts := protocoltest.Served(t, srv.URL)
			opts.Sequential = true
			if _, err := protocoltest.Advance(t, ctx, moderated.Protocol{}, dir, driver.UnitGoal{All: true}, opts); !errors.Is(err, context.Canceled) {
				t.Fatalf("interrupted run: %v", err)
			}
			first := asked()
			again := modeltest.NewServer(t, moderatedtest.Handler(moderatedtest.Options{}))
			if _, err := advance(t, context.Background(), dir, again.URL, driver.UnitGoal{All: true}); err != nil {
				t.Fatal(err)
			}
			if d := fixture.Diff(want, files(t, dir)); len(d) > 0 {
				t.Errorf("resumed files differ from an uninterrupted run:\n%s", strings.Join(d, "\n"))
			}
			if got := first + len(again.Requests()); got != total+1 {
				t.Errorf("%d requests before and %d after, want %d in all (the one in flight twice)", first, len(again.Requests()), total+1)
			}
		})
	}
}

// TestKilledAtEveryCall: moot itself, killed with SIGKILL while each call
// of a debate is in flight and run again, ends with the files of a run
// never killed (the messages' times aside), whose index.md lists every
// message in order; only the call in flight is asked twice.
func TestKilledAtEveryCall(t *testing.T) {
	if testing.Short() {
		t.Skip("crash test of 25 kills, each a moot process run twice: run without -short")
	}
	bin, env := crashtest.Self(t)
	k := crashtest.KillAtEveryCall(t, crashtest.CallKills{
		Bin: bin, Env: env,
		New: []string{"--protocol", "moderated", "--motion", "Cars in cities",
			"--position-a", "Ban them.", "--position-b", "Keep them.", "--rounds", "1", "--transcript"},
		Model:    moderatedtest.Handler(moderatedtest.Options{}),
		Requests: 25,
		Normalise: func(_, data string) string {
			return timeField.ReplaceAllString(data, `"time": "*"`)
		},
	})
	index := k.Reference["index.md"]
	last := 0
	for n := 1; n <= 21; n++ {
		i := strings.Index(index, fmt.Sprintf("| %03d | [%03d_", n, n))
		if i < last {
			t.Errorf("index.md lists message %03d out of order or not at all", n)
		}
		last = i
	}
}

// TestKilledAtEveryCallJSON: the same for a debate written as JSON, whose
// index.json lists every message in order, killed at the first and the
// last call of each role (TestKilledAtEveryCall kills at every one).
func TestKilledAtEveryCallJSON(t *testing.T) {
	if testing.Short() {
		t.Skip("crash test of 8 kills, each a moot process run twice: run without -short")
	}
	bin, env := crashtest.Self(t)
	k := crashtest.KillAtEveryCall(t, crashtest.CallKills{
		Bin: bin, Env: env,
		New: []string{"--protocol", "moderated", "--motion", "Cars in cities",
			"--position-a", "Ban them.", "--position-b", "Keep them.", "--rounds", "1", "--transcript", "--output-format", "json"},
		Model:    moderatedtest.Handler(moderatedtest.Options{}),
		Requests: 25,
		// The calls are TestKilledAtEveryCall's, killed there one by one:
		// here the first and the last of each role's.
		Repeated: moderatedtest.Kind,
		Normalise: func(_, data string) string {
			return timeField.ReplaceAllString(data, `"time": "*"`)
		},
	})
	var index struct {
		Messages []struct {
			Number int `json:"number"`
		} `json:"messages"`
	}
	if err := json.Unmarshal([]byte(k.Reference["index.json"]), &index); err != nil {
		t.Fatal(err)
	}
	for i, m := range index.Messages {
		if m.Number != i+1 {
			t.Errorf("index.json lists message %d at place %d", m.Number, i+1)
		}
	}
	if len(index.Messages) != 21 {
		t.Errorf("index.json lists %d messages, want 21", len(index.Messages))
	}
}

// messagesRepeated names, for crashtest.CallKills.Repeated, the role of
// a request for one of the debate's 21 messages, which TestKilledAtEveryCall
// kills at one by one in the same debate, scored otherwise; "" for a
// request for a score, the test's own.
func messagesRepeated(req modeltest.Request) string {
	if k := moderatedtest.Kind(req); k != "scorer" {
		return k
	}
	return ""
}

// createdField is the time of a judge's record.
var createdField = regexp.MustCompile(`"created": "[^"]*"`)

// TestKilledAtEveryCallPanel: the same for a debate a panel of two
// judges scores: killed while any judge's call is in flight (of the
// messages' calls, which TestKilledAtEveryCall kills at one by one, the
// first and the last of each role's), and run again, moot ends with the
// files of a run never killed; a judge whose answer was kept before the
// kill is not asked again.
func TestKilledAtEveryCallPanel(t *testing.T) {
	if testing.Short() {
		t.Skip("crash test of 14 kills, each a moot process run twice: run without -short")
	}
	bin, env := crashtest.Self(t)
	k := crashtest.KillAtEveryCall(t, crashtest.CallKills{
		Bin: bin, Env: env,
		New: []string{"--protocol", "moderated", "--motion", "Cars in cities",
			"--position-a", "Ban them.", "--position-b", "Keep them.", "--rounds", "1", "--transcript"},
		Model:    moderatedtest.Handler(moderatedtest.Options{Judges: map[string][]float64{"a": {8, 6, 7, 7, 9}, "b": {7, 5, 9, 6, 8}}}),
		Run:      []string{"--all", "--judges", "a,b"},
		Requests: 29,
		Repeated: messagesRepeated,
		// The messages' times and the judges' records' are the clock's.
		Normalise: func(_, data string) string {
			return createdField.ReplaceAllString(timeField.ReplaceAllString(data, `"time": "*"`), `"created": "*"`)
		},
	})
	for _, j := range []string{"a", "b"} {
		if !strings.Contains(k.Reference["judgments/"+j+"/judge.json"], `"kind": "panel"`) {
			t.Errorf("judgments/%s/judge.json:\n%s", j, k.Reference["judgments/"+j+"/judge.json"])
		}
	}
	// a 7.30 and b 6.90 make means 7.5, 5.5, 8, 6.5 and 8.5: 7.10.
	if !strings.Contains(k.Reference["transcript.md"], "| **total** | **7.10** |") {
		t.Errorf("transcript.md lacks the panel's total:\n%s", k.Reference["transcript.md"])
	}
}

// TestKilledAtEveryCallKeepGoing: a run with --keep-going whose
// moderator never scores within the range, killed with SIGKILL while each
// request for a score is in flight (and at the first and the last
// message of each role) and run again, ends with the files of a run never
// killed, every score recorded as missing; only the call in flight is
// asked twice.
func TestKilledAtEveryCallKeepGoing(t *testing.T) {
	if testing.Short() {
		t.Skip("crash test of a kill per call, each a moot process run twice: run without -short")
	}
	bin, env := crashtest.Self(t)
	k := crashtest.KillAtEveryCall(t, crashtest.CallKills{
		Bin: bin, Env: env,
		New: []string{"--protocol", "moderated", "--motion", "Cars in cities",
			"--position-a", "Ban them.", "--position-b", "Keep them.", "--rounds", "1", "--transcript"},
		Run:   []string{"--all", "--keep-going", "--moderator-model", "clumsy"},
		Model: moderatedtest.Handler(moderatedtest.Options{Judges: map[string][]float64{"clumsy": {11}}}),
		// 21 calls of the messages, 4 scores of three requests each.
		Requests: 33,
		Repeated: messagesRepeated,
		Normalise: func(_, data string) string {
			return timeField.ReplaceAllString(data, `"time": "*"`)
		},
	})
	n := 0
	for name, data := range k.Reference {
		if strings.HasPrefix(name, "scores/") && name != "scores/" {
			if !strings.Contains(data, `"missing": {`) || strings.Contains(data, `"total"`) {
				t.Errorf("%s is not recorded as missing:\n%s", name, data)
			}
			n++
		}
	}
	if n != 4 {
		t.Errorf("%d score files, want 4", n)
	}
}

// panelMissing is a debate a panel of two judges scores, one of which,
// clumsy, never scores within the range.
func panelMissing(bin string, env []string) crashtest.CallKills {
	return crashtest.CallKills{
		Bin: bin, Env: env,
		New: []string{"--protocol", "moderated", "--motion", "Cars in cities",
			"--position-a", "Ban them.", "--position-b", "Keep them.", "--rounds", "1", "--transcript"},
		Model: moderatedtest.Handler(moderatedtest.Options{Judges: map[string][]float64{"a": {8, 6, 7, 7, 9}, "clumsy": {11}}}),
		Normalise: func(_, data string) string {
			return createdField.ReplaceAllString(timeField.ReplaceAllString(data, `"time": "*"`), `"created": "*"`)
		},
	}
}

// TestKilledAtEveryCallPanelMissingJudge: a panel run with --keep-going
// whose judge clumsy is refused at every score, killed while each
// judge's call is in flight (each of clumsy's repairs included; of the
// messages, the first and the last of each role's) and run again, ends with
// the files of a run never killed: clumsy's scores recorded as missing in
// its folder, the panel's a's.
func TestKilledAtEveryCallPanelMissingJudge(t *testing.T) {
	if testing.Short() {
		t.Skip("crash test of 22 kills, each a moot process run twice: run without -short")
	}
	c := panelMissing(crashtest.Self(t))
	c.Run = []string{"--all", "--judges", "a,clumsy", "--keep-going"}
	// 21 calls of the messages, 4 scores: a once, clumsy three times.
	c.Requests = 37
	c.Repeated = messagesRepeated
	k := crashtest.KillAtEveryCall(t, c)
	n := 0
	for name, data := range k.Reference {
		if strings.HasPrefix(name, "judgments/clumsy/scores/") && !strings.HasSuffix(name, "/") {
			if !strings.Contains(data, `"missing": {`) {
				t.Errorf("%s is not recorded as missing:\n%s", name, data)
			}
			n++
		}
	}
	if n != 4 {
		t.Errorf("%d of clumsy's score files, want 4", n)
	}
}

// rejudgeMissing is a debate scored by a moderator who scores right, then
// judged again with --keep-going by clumsy, who never scores within the
// range: each of its four scores recorded as missing in its folder.
func rejudgeMissing(bin string, env []string) crashtest.CallKills {
	c := panelMissing(bin, env)
	c.Prepare = [][]string{{"run", "d", "--all", "--quiet"}}
	return c
}

// TestKilledAtEveryCallRejudgeKeepGoing: a re-judging with --keep-going
// whose judge clumsy is refused at every score, killed while each of its
// requests (its repairs included) is in flight and run again, ends with
// the files of a re-judging never killed: its four scores recorded as
// missing in its folder, the debate's own files untouched; only the
// request in flight is asked twice.
func TestKilledAtEveryCallRejudgeKeepGoing(t *testing.T) {
	if testing.Short() {
		t.Skip("crash test of 12 kills, each a moot process run twice: run without -short")
	}
	c := rejudgeMissing(crashtest.Self(t))
	c.Command = []string{"rejudge", "d", "--judge-model", "clumsy", "--keep-going"}
	// 4 scores, each asked three times.
	c.Requests = 12
	k := crashtest.KillAtEveryCall(t, c)
	n := 0
	for name, data := range k.Reference {
		if strings.HasPrefix(name, "judgments/clumsy/scores/") && !strings.HasSuffix(name, "/") {
			if !strings.Contains(data, `"missing": {`) || !strings.Contains(data, `"call": "rejudge-clumsy-`) {
				t.Errorf("%s is not recorded as the re-judging's missing score:\n%s", name, data)
			}
			n++
		}
	}
	if n != 4 {
		t.Errorf("%d of clumsy's score files, want 4", n)
	}
}

// TestKilledAtEveryCallRejudgeRetryMissing: moot rejudge --retry-missing
// over a re-judging whose four scores are missing, clumsy refused again,
// killed while each request is in flight and run again, ends with the
// files of a pass never killed, and asks only the request in flight
// again: a score asked again and recorded as missing again before the
// kill is not asked a third time.
func TestKilledAtEveryCallRejudgeRetryMissing(t *testing.T) {
	if testing.Short() {
		t.Skip("crash test of 12 kills, each a moot process run twice: run without -short")
	}
	c := rejudgeMissing(crashtest.Self(t))
	c.Prepare = append(c.Prepare, []string{"rejudge", "d", "--judge-model", "clumsy", "--keep-going", "--quiet"})
	c.Command = []string{"rejudge", "d", "--name", "clumsy", "--retry-missing", "--keep-going"}
	c.Requests = 12
	k := crashtest.KillAtEveryCall(t, c)
	for name, data := range k.Reference {
		if strings.HasPrefix(name, "judgments/clumsy/scores/") && !strings.HasSuffix(name, "/") && !strings.Contains(data, `"missing": {`) {
			t.Errorf("%s is not recorded as missing again:\n%s", name, data)
		}
	}
}

// TestKilledAtEveryCallPanelRetryMissing: --retry-missing over a panel
// whose judge clumsy's four scores are missing, clumsy refused again,
// killed while each of its requests is in flight and run again, ends with
// the files of a pass never killed; a score asked again before the kill
// is not asked again.
func TestKilledAtEveryCallPanelRetryMissing(t *testing.T) {
	if testing.Short() {
		t.Skip("crash test of 12 kills, each a moot process run twice: run without -short")
	}
	c := panelMissing(crashtest.Self(t))
	c.Prepare = [][]string{{"run", "d", "--all", "--judges", "a,clumsy", "--keep-going", "--quiet"}}
	c.Command = []string{"run", "d", "--retry-missing", "--keep-going"}
	c.Requests = 12
	crashtest.KillAtEveryCall(t, c)
}
