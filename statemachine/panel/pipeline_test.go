package panel_test

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
	"github.com/moot-dev/moot/statemachine/panel"
	"github.com/moot-dev/moot/statemachine/panel/paneltest"
)

// TestOpeningsAskedWithTheAspects: the personas' openings, which never
// read the aspects, are asked while the aspects are (the fake answers the
// aspects only once an opening is asked), and the debate's files are byte
// for byte those of a run of one step at a time.
func TestOpeningsAskedWithTheAspects(t *testing.T) {
	flags := map[string]string{"aspects": "2", "minirounds": "1"}
	seqSrv := modeltest.NewServer(t, paneltest.Handler(paneltest.Options{}))
	seq := newDebate(t, flags)
	opts := protocoltest.Served(t, seqSrv.URL)
	opts.Sequential = true
	if _, err := protocoltest.Advance(t, context.Background(), panel.Protocol{}, seq, driver.UnitGoal{All: true}, opts); err != nil {
		t.Fatal(err)
	}
	good := paneltest.Handler(paneltest.Options{})
	opened := make(chan struct{})
	var once sync.Once
	srv := modeltest.NewServer(t, func(r modeltest.Request) modeltest.Reply {
		switch paneltest.Kind(r) {
		case "opening":
			once.Do(func() { close(opened) })
		case "decompose":
			select {
			case <-opened:
			case <-time.After(time.Minute):
				return modeltest.Failf("the aspects waited a minute for an opening to be asked")
			}
		}
		return good(r)
	})
	pip := newDebate(t, flags)
	if _, err := advance(t, context.Background(), pip, srv.URL, driver.UnitGoal{All: true}); err != nil {
		t.Fatal(err)
	}
	if d := fixture.Diff(files(t, seq), files(t, pip)); len(d) > 0 {
		t.Errorf("the pipelined run's files differ from the sequential run's:\n%s", strings.Join(d, "\n"))
	}
	if got, want := len(srv.Requests()), len(seqSrv.Requests()); got != want {
		t.Errorf("%d requests pipelined, %d one step at a time", got, want)
	}
}
