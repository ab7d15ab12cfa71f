package forum_test

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/moot-dev/moot/internal/driver"
	"github.com/moot-dev/moot/internal/testkit/fixture"
	"github.com/moot-dev/moot/internal/testkit/forumfake"
	"github.com/moot-dev/moot/internal/testkit/modeltest"
	"github.com/moot-dev/moot/internal/testkit/protocoltest"
	"github.com/moot-dev/moot/statemachine/forum"
)

// TestNextSpeakerAskedWhileJudged: the next speaker's first call, which
// reads the last speech and never the judge, is asked while the judge
// evaluates it (the fake's judge evaluates only once the next speaker has
// been asked to think), and the files are byte for byte those of a run of
// one call at a time.
func TestNextSpeakerAskedWhileJudged(t *testing.T) {
	askedWhileJudged(t, setup{turns: 4, judge: true, premise: true}, forumfake.Evaluate, forumfake.Think)
}

// TestNextSpeechAskedWhileScored: the next speaker's speech, which reads
// its own thought and never the judge, is asked as soon as that thought
// has come, while the judge still scores the speech before it (the fake's
// judge scores turn k only once the speech of turn k+1 has been asked),
// and the files are byte for byte those of a run of one call at a time.
func TestNextSpeechAskedWhileScored(t *testing.T) {
	askedWhileJudged(t, setup{turns: 4, judge: true}, forumfake.Score, forumfake.Turn)
}

// askedWhileJudged runs the debate s one call at a time, then pipelined
// against the fake whose judge answers its k-th call of kind judged (from
// 1, that of turn k) only once the debaters' calls of kind asked have been
// asked k+1 times, but after the last turn; the files and the number of
// requests of both runs must be the same.
func askedWhileJudged(t *testing.T, s setup, judged, asked string) {
	t.Helper()
	run := func(h modeltest.Handler, sequential bool) (map[string]string, int) {
		srv := modeltest.NewServer(t, h)
		dir := newDebate(t, s)
		opts := protocoltest.Served(t, srv.URL)
		opts.Sequential = sequential
		if _, err := protocoltest.Advance(t, context.Background(), forum.Protocol{}, dir, driver.UnitGoal{All: true}, opts); err != nil {
			t.Fatal(err)
		}
		return files(t, dir), len(srv.Requests())
	}
	want, n := run(fakeHandler, true)
	var mu sync.Mutex
	asks, judgings := 0, 0
	more := sync.NewCond(&mu)
	got, m := run(func(req modeltest.Request) modeltest.Reply {
		mu.Lock()
		defer mu.Unlock()
		switch forumfake.Kind(fakeMessages(req)) {
		case asked:
			asks++
			more.Broadcast()
		case judged:
			judgings++
			k := judgings
			stop := time.AfterFunc(time.Minute, func() { mu.Lock(); more.Broadcast(); mu.Unlock() })
			defer stop.Stop()
			start := time.Now()
			for k < s.turns && asks < k+1 && time.Since(start) < time.Minute {
				more.Wait()
			}
			if k < s.turns && asks < k+1 {
				return modeltest.Failf("the judge's %s of turn %d waited a minute for the %s of turn %d to be asked", judged, k, asked, k+1)
			}
		}
		return fakeHandler(req)
	}, false)
	if d := fixture.Diff(want, got); len(d) > 0 {
		t.Errorf("the pipelined run's files differ from the sequential run's:\n%s", strings.Join(d, "\n"))
	}
	if m != n {
		t.Errorf("%d requests pipelined, %d one call at a time", m, n)
	}
}
