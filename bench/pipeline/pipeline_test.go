// Package pipeline measures what asking calls as soon as their prompts'
// data is committed saves (issue 30): a debate run against a fake endpoint
// that answers every call after a fixed 300 ms, one step at a time
// (--sequential) and pipelined, side by side in one process, with the
// wall time of each, its ratio to the sequential run's and to the data
// floor (the latencies of the longest chain of calls each of which reads
// the one before), and the files of both runs compared byte for byte.
//
//	go test ./bench/pipeline -run Pipeline -v
package pipeline

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/moot-dev/moot/internal/driver"
	"github.com/moot-dev/moot/internal/model"
	"github.com/moot-dev/moot/internal/testkit/fixture"
	"github.com/moot-dev/moot/internal/testkit/modeltest"
	"github.com/moot-dev/moot/internal/testkit/protocoltest"
	"github.com/moot-dev/moot/internal/testkit/sparring"
	sm "github.com/moot-dev/moot/statemachine"
	"github.com/moot-dev/moot/statemachine/dialectic"
	"github.com/moot-dev/moot/store"
	"github.com/moot-dev/moot/templates"
)

// latency is how long the fake takes to answer every call.
const latency = 300 * time.Millisecond

// bench is one protocol's measurement.
type bench struct {
	name string
	// make creates the debate at dir and returns it locked, with its
	// protocol.
	make func(t *testing.T, dir string) (*store.Dir, sm.Protocol)
	goal driver.UnitGoal
	// handler answers every call, at once: the fake adds the latency.
	handler modeltest.Handler
	// floor is the data floor, in latencies; calls the calls of the
	// debate.
	floor, calls int
	// target is issue 30's most for pipelined/sequential.
	target float64
}

// result is one run's.
type result struct {
	wall  time.Duration
	calls int
	files map[string]string
}

func run(t *testing.T, b bench, sequential bool) result {
	t.Helper()
	h := b.handler
	srv := modeltest.NewServer(t, func(r modeltest.Request) modeltest.Reply {
		reply := h(r)
		reply.Delay = latency
		return reply
	})
	d, p := b.make(t, filepath.Join(t.TempDir(), "d"))
	defer d.Close()
	cl, err := model.New(model.Config{BaseURL: srv.URL, APIKey: "k"})
	if err != nil {
		t.Fatal(err)
	}
	opts := driver.Options{
		Client: cl, Templates: templates.Default(), DefaultModel: "fake", Repairs: 2,
		Now: func() time.Time { return protocoltest.When }, Sequential: sequential,
	}
	start := time.Now()
	if _, err := driver.Advance(context.Background(), d, p, b.goal, opts); err != nil {
		t.Fatal(err)
	}
	wall := time.Since(start)
	tree, err := fixture.Tree(d.Path())
	if err != nil {
		t.Fatal(err)
	}
	files := fixture.Without(tree, func(p string) bool { return fixture.Folder(p) || strings.HasPrefix(p, ".moot") })
	return result{wall: wall, calls: len(srv.Requests()), files: files}
}

func dialecticBench(exchanges int) bench {
	return bench{
		name: "dialectic, 20 exchanges",
		make: func(t *testing.T, dir string) (*store.Dir, sm.Protocol) {
			p := dialectic.Protocol{Templates: templates.Default()}
			d, err := driver.CreateDebate(dir, p, dialectic.NewInput("d", dialectic.Motion{Text: "This house would tax sugar."}))
			if err != nil {
				t.Fatal(err)
			}
			return d, p
		},
		goal:    driver.UnitGoal{Done: exchanges},
		handler: sparring.Handler(sparring.Options{}),
		// The debaters of exchange x+1 read the arguments of x, the
		// judge of x+1 reads them and the scores of x: N+1 latencies.
		floor:  exchanges + 1,
		calls:  3 * exchanges,
		target: 0.6,
	}
}

// TestPipeline runs each protocol's debate one step at a time and
// pipelined, and prints the figures side by side; the pipelined run must
// write the sequential run's files, make as many calls, and meet issue
// 30's target against the sequential run.
func TestPipeline(t *testing.T) {
	if testing.Short() {
		t.Skip("debates at 300 ms a call, each run twice; run without -short")
	}
	if raceEnabled && os.Getenv("MOOT_BENCH_APART") != "" {
		t.Skip("a measurement: run without -race by test.sh's second pass, as MOOT_BENCH_APART is set")
	}
	for _, b := range []bench{dialecticBench(20)} {
		t.Run(b.name, func(t *testing.T) {
			seq, pip := run(t, b, true), run(t, b, false)
			floor := time.Duration(b.floor) * latency
			ratio := float64(pip.wall) / float64(seq.wall)
			t.Logf("\n%-26s %10s %10s %10s\n%-26s %10.2f %10.2f %10.2f\n%-26s %10s %10.2f %10s\n%-26s %10.2f %10.2f %10s",
				b.name, "sequential", "pipelined", "floor",
				"wall, s", seq.wall.Seconds(), pip.wall.Seconds(), floor.Seconds(),
				"  pipelined/sequential", "", ratio, "",
				"  wall/floor", float64(seq.wall)/float64(floor), float64(pip.wall)/float64(floor), "")
			if d := fixture.Diff(seq.files, pip.files); len(d) > 0 {
				t.Errorf("the pipelined run's files differ from the sequential run's: %v", d)
			}
			if seq.calls != b.calls || pip.calls != b.calls {
				t.Errorf("calls: sequential %d, pipelined %d, want %d each", seq.calls, pip.calls, b.calls)
			}
			if ratio > b.target {
				t.Errorf("pipelined/sequential wall %.2f, want at most %.2f", ratio, b.target)
			}
			// The floor is reported, not enforced: moot's own time per
			// step (fsyncs, on a loaded machine) adds to it.
			if over := float64(pip.wall) / float64(floor); over > 1.1 {
				t.Logf("target NOT MET: pipelined wall %.2fx the data floor, want at most 1.1x", over)
			}
		})
	}
}
