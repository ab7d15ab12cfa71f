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
	var need []int
	moderator := 0
	for _, r := range seqReqs {
		switch moderatedtest.Kind(r) {
		case "moderator":
			moderator++
		case "scorer":
			need = append(need, moderator+1)
		}
	}
	good := moderatedtest.Handler(moderatedtest.Options{})
	var mu sync.Mutex
	moderator, scores := 0, 0
	more := sync.NewCond(&mu)
	srv := modeltest.NewServer(t, func(r modeltest.Request) modeltest.Reply {
		switch moderatedtest.Kind(r) {
		case "moderator":
			mu.Lock()
			moderator++
			more.Broadcast()
			mu.Unlock()
		case "scorer":
			mu.Lock()
			k := scores
			scores++
			deadline := time.AfterFunc(time.Minute, func() { mu.Lock(); more.Broadcast(); mu.Unlock() })
			start := time.Now()
			for k < len(need) && moderator < need[k] && time.Since(start) < time.Minute {
				more.Wait()
			}
			deadline.Stop()
			late := k < len(need) && moderator < need[k]
			mu.Unlock()
			if late {
				return modeltest.Failf("score %d waited a minute for the moderator's next call to be asked", k+1)
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
