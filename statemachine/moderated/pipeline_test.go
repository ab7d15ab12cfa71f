package moderated_test

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/moot-dev/moot/internal/driver"
	"github.com/moot-dev/moot/internal/testkit/fixture"
	"github.com/moot-dev/moot/internal/testkit/modeltest"
	"github.com/moot-dev/moot/internal/testkit/protocoltest"
	"github.com/moot-dev/moot/statemachine/moderated"
	"github.com/moot-dev/moot/statemachine/moderated/moderatedtest"
)

// TestHandOverAskedWithTheScore: the moderator's call after a score,
// which reads no score, is asked while the score is (the fake's scorer
// answers only once the moderator is asked after it), and the debate's
// files are byte for byte those of a run of one step at a time.
func TestHandOverAskedWithTheScore(t *testing.T) {
	flags := map[string]string{"rounds": "1"}
	_, want, seqReqs := runSequential(t, flags)
	// Before the k-th score, a run of one step at a time has asked the
	// moderator need[k]-1 times; a pipelined one asks the moderator's
	// next call too while the score is out.
	moderator := func(kind string) bool { return kind == "moderator" }
	var need []int
	n := 0
	for _, r := range seqReqs {
		switch k := moderatedtest.Kind(r); {
		case moderator(k):
			n++
		case k == "scorer":
			need = append(need, n+1)
		}
	}
	scoresWait(t, flags, want, seqReqs, need, moderator, "the moderator's next call")
}

// TestNextStatementAskedWhileScored: the statement after the moderator's
// hand-over, which reads the messages and never a score, is asked as soon
// as the hand-over has come, while the statement before it is still
// scored (the fake's scorer answers a score followed by a hand-over and a
// statement only once that statement is asked), and the debate's files
// are byte for byte those of a run of one step at a time.
func TestNextStatementAskedWhileScored(t *testing.T) {
	flags := map[string]string{"rounds": "2"}
	_, want, seqReqs := runSequential(t, flags)
	// need[k] is how many statements a run must have asked when the
	// k-th score is answered: those before it, and the one after the
	// hand-over that follows it; 0 when no hand-over and statement
	// follow it.
	statement := func(kind string) bool { return kind == "A" || kind == "B" }
	var need []int
	n, waits := 0, 0
	for i, r := range seqReqs {
		switch k := moderatedtest.Kind(r); {
		case statement(k):
			n++
		case k == "scorer":
			if i+2 < len(seqReqs) && moderatedtest.Kind(seqReqs[i+1]) == "moderator" && statement(moderatedtest.Kind(seqReqs[i+2])) {
				need = append(need, n+1)
				waits++
			} else {
				need = append(need, 0)
			}
		}
	}
	if waits == 0 {
		t.Fatal("no score is followed by a hand-over and a statement: the test proves nothing")
	}
	scoresWait(t, flags, want, seqReqs, need, statement, "the statement after the next hand-over")
}

// scoresWait runs the debate of flags pipelined against the fake whose
// scorer answers the k-th score (from 0) only once need[k] calls of the
// kinds counted (moderatedtest.Kind) have been asked, what naming them;
// its files and its number of requests must be want and those of
// seqReqs, a run's of one step at a time.
func scoresWait(t *testing.T, flags map[string]string, want map[string]string, seqReqs []modeltest.Request, need []int, counted func(kind string) bool, what string) {
	t.Helper()
	good := moderatedtest.Handler(moderatedtest.Options{})
	var mu sync.Mutex
	asked, scores := 0, 0
	more := sync.NewCond(&mu)
	srv := modeltest.NewServer(t, func(r modeltest.Request) modeltest.Reply {
		switch kind := moderatedtest.Kind(r); {
		case counted(kind):
			mu.Lock()
			asked++
			more.Broadcast()
			mu.Unlock()
		case kind == "scorer":
			mu.Lock()
			k := scores
			scores++
			deadline := time.AfterFunc(time.Minute, func() { mu.Lock(); more.Broadcast(); mu.Unlock() })
			start := time.Now()
			for k < len(need) && asked < need[k] && time.Since(start) < time.Minute {
				more.Wait()
			}
			deadline.Stop()
			late := k < len(need) && asked < need[k]
			mu.Unlock()
			if late {
				return modeltest.Failf("score %d waited a minute for %s to be asked", k+1, what)
			}
		}
		return good(r)
	})
	dir := newDebate(t, flags)
	if _, err := advance(t, context.Background(), dir, srv.URL, driver.UnitGoal{All: true}); err != nil {
		t.Fatal(err)
	}
	if d := fixture.Diff(want, files(t, dir)); len(d) > 0 {
		t.Errorf("the pipelined run's files differ from the sequential run's:\n%s", strings.Join(d, "\n"))
	}
	if got := len(srv.Requests()); got != len(seqReqs) {
		t.Errorf("%d requests pipelined, %d one step at a time", got, len(seqReqs))
	}
}

// runSequential is runAll, one step at a time.
func runSequential(t *testing.T, flags map[string]string) (string, map[string]string, []modeltest.Request) {
	t.Helper()
	srv := modeltest.NewServer(t, moderatedtest.Handler(moderatedtest.Options{}))
	dir := newDebate(t, flags)
	opts := protocoltest.Served(t, srv.URL)
	opts.Sequential = true
	if _, err := protocoltest.Advance(t, context.Background(), moderated.Protocol{}, dir, driver.UnitGoal{All: true}, opts); err != nil {
		t.Fatal(err)
	}
	return dir, files(t, dir), srv.Requests()
}
