package refine_test

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/moot-dev/moot/internal/driver"
	"github.com/moot-dev/moot/internal/testkit/crashtest"
	"github.com/moot-dev/moot/internal/testkit/fixture"
	"github.com/moot-dev/moot/internal/testkit/modeltest"
	"github.com/moot-dev/moot/statemachine/refine/refinetest"
)

var crashScores = map[string]float64{"Fermi estimate": 0.9, "Pre-mortem": 0.7}

// stopServer answers as the fake does but, at request stop (embedding
// requests counted with the chats), calls at and holds the request until
// its client has gone away, whatever the time that takes on a loaded
// machine: it is never answered.
func stopServer(t *testing.T, stop int, at func()) (*modeltest.Server, func() int) {
	var mu sync.Mutex
	n := 0
	hold := func(ctx context.Context, _ modeltest.Request) {
		mu.Lock()
		n++
		here := n
		mu.Unlock()
		if here == stop {
			at()
			<-ctx.Done()
		}
	}
	srv := modeltest.NewServer(t, refinetest.Handler(refinetest.Options{}),
		modeltest.Embeddings(refinetest.Embeddings(crashScores)), modeltest.Before(hold))
	return srv, func() int {
		mu.Lock()
		defer mu.Unlock()
		return n
	}
}

// TestInterruptedAtEveryCall: a run interrupted while any call is in
// flight, then resumed, ends with the files of a run never interrupted;
// only the call in flight is asked twice.
func TestInterruptedAtEveryCall(t *testing.T) {
	_, want, reqs := runAll(t, nil, refinetest.Options{}, crashScores)
	total := len(reqs)
	if total != 13 {
		t.Fatalf("the reference run made %d requests, want 1 embedding and 12 chats", total)
	}
	for _, stop := range crashtest.InterruptAt(t, total) {
		t.Run(fmt.Sprintf("at request %d", stop), func(t *testing.T) {
			// Each run has its own debate and fake: they go in parallel.
			t.Parallel()
			dir := newDebate(t, nil)
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			srv, asked := stopServer(t, stop, cancel)
			if _, err := advance(t, ctx, dir, srv.URL, driver.UnitGoal{All: true}); !errors.Is(err, context.Canceled) {
				t.Fatalf("interrupted run: %v", err)
			}
			first := asked()
			again := server(t, refinetest.Options{}, crashScores)
			if _, err := advance(t, context.Background(), dir, again.URL, driver.UnitGoal{All: true}); err != nil {
				t.Fatal(err)
			}
			if d := fixture.Diff(stable(want), stable(files(t, dir))); len(d) > 0 {
				t.Errorf("resumed files differ from an uninterrupted run:\n%s", strings.Join(d, "\n"))
			}
			if got := first + len(again.Requests()); got != total+1 {
				t.Errorf("%d requests before and %d after, want %d in all (the one in flight twice)", first, len(again.Requests()), total+1)
			}
		})
	}
}

// TestKilledAtEveryCall: moot itself, killed with SIGKILL while each
// request of a debate is in flight (the embeddings request included) and
// run again, ends with the files of a run never killed (times and model
// time aside); only the request in flight is asked twice.
func TestKilledAtEveryCall(t *testing.T) {
	if testing.Short() {
		t.Skip("crash test of 13 kills, each a moot process run twice: run without -short")
	}
	bin, env := crashtest.Self(t)
	crashtest.KillAtEveryCall(t, crashtest.CallKills{
		Bin: bin, Env: env,
		New:      []string{"--protocol", "refine", "--motion", question},
		Model:    refinetest.Handler(refinetest.Options{}),
		Embed:    refinetest.Embeddings(crashScores),
		Requests: 13,
		Normalise: func(_, data string) string {
			return variable.ReplaceAllString(data, `"$1": *`)
		},
	})
}

// TestKilledAtEveryCallKeepGoing: a run with --keep-going whose judge
// never answers in JSON, killed with SIGKILL while each call is in flight
// and run again, ends with the files of a run never killed, the score
// recorded as missing; only the call in flight is asked twice.
func TestKilledAtEveryCallKeepGoing(t *testing.T) {
	if testing.Short() {
		t.Skip("crash test of 15 kills, each a moot process run twice: run without -short")
	}
	bin, env := crashtest.Self(t)
	k := crashtest.KillAtEveryCall(t, crashtest.CallKills{
		Bin: bin, Env: env,
		New:   []string{"--protocol", "refine", "--motion", question},
		Run:   []string{"--all", "--keep-going", "--judge-model", "clumsy"},
		Model: refinetest.Handler(refinetest.Options{Judges: map[string]string{"clumsy": "A fine answer."}}),
		Embed: refinetest.Embeddings(crashScores),
		// The score's request twice more.
		Requests: 15,
		Normalise: func(_, data string) string {
			return variable.ReplaceAllString(data, `"$1": *`)
		},
	})
	if s := k.Reference["score.json"]; !strings.Contains(s, `"missing": {`) || strings.Contains(s, `"weighted_score"`) {
		t.Errorf("score.json does not record the score as missing:\n%s", s)
	}
}

// TestKilledAtEveryCallPanelKeepGoing: a panel of two judges, one of
// which never answers in JSON, run with --keep-going, killed with SIGKILL
// while each call is in flight and run again, ends with the files of a
// run never killed: that judge's score recorded as missing in its folder,
// the panel's the other's.
func TestKilledAtEveryCallPanelKeepGoing(t *testing.T) {
	if testing.Short() {
		t.Skip("crash test of a kill per call, each a moot process run twice: run without -short")
	}
	bin, env := crashtest.Self(t)
	k := crashtest.KillAtEveryCall(t, crashtest.CallKills{
		Bin: bin, Env: env,
		New:   []string{"--protocol", "refine", "--motion", question},
		Run:   []string{"--all", "--keep-going", "--judges", "a,clumsy"},
		Model: refinetest.Handler(refinetest.Options{Judges: map[string]string{"clumsy": "A fine answer."}}),
		Embed: refinetest.Embeddings(crashScores),
		Normalise: func(_, data string) string {
			return created.ReplaceAllString(variable.ReplaceAllString(data, `"$1": *`), `"created": ""`)
		},
	})
	if s := k.Reference["judgments/clumsy/score.json"]; !strings.Contains(s, `"missing": {`) {
		t.Errorf("clumsy's score is not recorded as missing:\n%s", s)
	}
	if s := k.Reference["score.json"]; !strings.Contains(s, `"missing": true`) || !strings.Contains(s, `"weighted_score"`) {
		t.Errorf("the panel's score is not a's with clumsy missing:\n%s", s)
	}
}

// TestKilledAtEveryCallPanelRetryMissing: --retry-missing over a panel
// whose judge clumsy's score is missing, killed with SIGKILL while each
// of clumsy's requests (its repairs included) is in flight and run again,
// ends with the files of an uninterrupted one: clumsy refused again, its
// record written anew, the panel's score the other judge's.
func TestKilledAtEveryCallPanelRetryMissing(t *testing.T) {
	if testing.Short() {
		t.Skip("crash test of 3 kills, each a moot process run twice: run without -short")
	}
	bin, env := crashtest.Self(t)
	k := crashtest.KillAtEveryCall(t, crashtest.CallKills{
		Bin: bin, Env: env,
		New:     []string{"--protocol", "refine", "--motion", question},
		Prepare: [][]string{{"run", "d", "--all", "--keep-going", "--judges", "a,clumsy"}},
		Command: []string{"run", "d", "--retry-missing", "--keep-going"},
		Model:   refinetest.Handler(refinetest.Options{Judges: map[string]string{"clumsy": "A fine answer."}}),
		Embed:   refinetest.Embeddings(crashScores),
		// clumsy asked once and repaired twice.
		Requests: 3,
		Normalise: func(_, data string) string {
			return created.ReplaceAllString(variable.ReplaceAllString(data, `"$1": *`), `"created": ""`)
		},
	})
	if s := k.Reference["judgments/clumsy/score.json"]; !strings.Contains(s, `"missing": {`) {
		t.Errorf("clumsy's score is not recorded as missing again:\n%s", s)
	}
}

// rejudgeMissing is a debate its judge kind scored, to be judged again
// by clumsy, who never answers in JSON.
func rejudgeMissing(t *testing.T) crashtest.CallKills {
	bin, env := crashtest.Self(t)
	return crashtest.CallKills{
		Bin: bin, Env: env,
		New:     []string{"--protocol", "refine", "--motion", question},
		Prepare: [][]string{{"run", "d", "--all", "--quiet"}},
		Model:   refinetest.Handler(refinetest.Options{Judges: map[string]string{"clumsy": "A fine answer."}}),
		Embed:   refinetest.Embeddings(crashScores),
		// clumsy asked once and repaired twice.
		Requests: 3,
		Normalise: func(_, data string) string {
			return created.ReplaceAllString(variable.ReplaceAllString(data, `"$1": *`), `"created": ""`)
		},
	}
}

// TestKilledAtEveryCallRejudgeKeepGoing: a re-judging with --keep-going
// whose judge clumsy never answers in JSON, killed with SIGKILL while
// each of its requests is in flight and run again, ends with the files of
// a re-judging never killed: its score recorded as missing in its folder.
func TestKilledAtEveryCallRejudgeKeepGoing(t *testing.T) {
	if testing.Short() {
		t.Skip("crash test of 3 kills, each a moot process run twice: run without -short")
	}
	c := rejudgeMissing(t)
	c.Command = []string{"rejudge", "d", "--judge-model", "clumsy", "--keep-going"}
	k := crashtest.KillAtEveryCall(t, c)
	if s := k.Reference["judgments/clumsy/score.json"]; !strings.Contains(s, `"missing": {`) || !strings.Contains(s, `"call": "rejudge-clumsy-score/judge"`) {
		t.Errorf("clumsy's score is not recorded as missing:\n%s", s)
	}
}

// TestKilledAtEveryCallRejudgeRetryMissing: moot rejudge --retry-missing
// over that re-judging, clumsy refused again, killed while each request
// is in flight and run again, ends with the files of a pass never
// killed: the record written anew.
func TestKilledAtEveryCallRejudgeRetryMissing(t *testing.T) {
	if testing.Short() {
		t.Skip("crash test of 3 kills, each a moot process run twice: run without -short")
	}
	c := rejudgeMissing(t)
	c.Prepare = append(c.Prepare, []string{"rejudge", "d", "--judge-model", "clumsy", "--keep-going", "--quiet"})
	c.Command = []string{"rejudge", "d", "--name", "clumsy", "--retry-missing", "--keep-going"}
	k := crashtest.KillAtEveryCall(t, c)
	if s := k.Reference["judgments/clumsy/score.json"]; !strings.Contains(s, `"missing": {`) {
		t.Errorf("clumsy's score is not recorded as missing again:\n%s", s)
	}
}

// TestKilledAtEveryCallPanel: moot killed while each request of a debate
// a panel of two judges scores is in flight, and run again, ends with the
// files of a run never killed; each judge is asked at most once more for
// the step in flight.
func TestKilledAtEveryCallPanel(t *testing.T) {
	if testing.Short() {
		t.Skip("crash test of 14 kills, each a moot process run twice: run without -short")
	}
	bin, env := crashtest.Self(t)
	o := refinetest.Options{Judges: map[string]string{"a": judgeA, "b": judgeB}}
	crashtest.KillAtEveryCall(t, crashtest.CallKills{
		Bin: bin, Env: env,
		New:      []string{"--protocol", "refine", "--motion", question},
		Run:      []string{"--all", "--judges", "a,b"},
		Model:    refinetest.Handler(o),
		Embed:    refinetest.Embeddings(crashScores),
		Requests: 14,
		Normalise: func(_, data string) string {
			return created.ReplaceAllString(variable.ReplaceAllString(data, `"$1": *`), `"created": *`)
		},
	})
}

// created is when a judge's record was made.
var created = regexp.MustCompile(`"created": "[^"]*"`)
