// Package pipeline measures what asking calls as soon as the answers
// their prompts read have come saves (issue 30): a debate run against a
// fake endpoint that answers every call after a fixed 300 ms, one step at
// a time (--sequential) and pipelined, side by side in one process, with
// the wall time of each, its ratio to the sequential run's and to the
// data floor (the latencies of the longest chain of calls each of which
// reads the one before), the CPU time of the pipelined run, and the files
// of both runs compared byte for byte. MOOT_BENCH_RUNS=N runs each pair N
// times and prints the medians.
//
//	MOOT_BENCH_RUNS=3 go test ./bench/pipeline -run Pipeline -v
//
// Medians of three runs at load 49-59 on a 2-core machine (seconds;
// pipelined wall over sequential, and over the floor; the pipelined run's
// CPU time, the fake's included):
//
//	dialectic, 20 exchanges  27.02 seq  11.42 pip  6.30 floor  0.42  1.81x  1.49 CPU
//	forum, 6 turns           18.39 seq   7.06 pip  5.70 floor  0.38  1.24x  0.45 CPU
//	moderated, 2 rounds      25.35 seq  11.29 pip  9.30 floor  0.45  1.21x  0.91 CPU
//
// What stays above the floor is the commits, one per step, in order,
// each waiting for the disk (3 to 600 ms at that load): the calls follow
// the floor, and the run ends once its last step is committed.
package pipeline

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/moot-dev/moot/internal/driver"
	"github.com/moot-dev/moot/internal/model"
	"github.com/moot-dev/moot/internal/testkit/fixture"
	"github.com/moot-dev/moot/internal/testkit/forumfake"
	"github.com/moot-dev/moot/internal/testkit/modeltest"
	"github.com/moot-dev/moot/internal/testkit/protocoltest"
	"github.com/moot-dev/moot/internal/testkit/storetest"
	sm "github.com/moot-dev/moot/statemachine"
	"github.com/moot-dev/moot/statemachine/dialectic"
	"github.com/moot-dev/moot/statemachine/dialectic/dialectictest/sparring"
	"github.com/moot-dev/moot/statemachine/forum"
	"github.com/moot-dev/moot/statemachine/moderated"
	"github.com/moot-dev/moot/statemachine/moderated/moderatedtest"
	"github.com/moot-dev/moot/templates"
)

// latency is how long the fake takes to answer every call.
const latency = 300 * time.Millisecond

// bench is one protocol's measurement.
type bench struct {
	name string
	// make creates the debate and returns its folder, with its
	// protocol.
	make func(t *testing.T) (string, sm.Protocol)
	goal driver.UnitGoal
	// handler answers every call, at once: the fake adds the latency.
	handler modeltest.Handler
	// floor is the data floor, in latencies, of a debate whose requests
	// were reqs; calls the calls of the debate.
	floor func(reqs []modeltest.Request) int
	calls int
	// target is issue 30's most for pipelined/sequential.
	target float64
}

// result is one run's.
type result struct {
	wall time.Duration
	// cpu is the CPU time the process used meanwhile, the fake's
	// included: what the run costs whatever else the machine runs.
	cpu   time.Duration
	reqs  []modeltest.Request
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
	dir, p := b.make(t)
	d, err := storetest.OpenForWrite(dir, "bench")
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	cl, err := model.New(model.Config{BaseURL: srv.URL, APIKey: "k"})
	if err != nil {
		t.Fatal(err)
	}
	opts := driver.Options{
		Client: cl, Templates: templates.Default(), DefaultModel: "fake", Repairs: 2,
		Now: func() time.Time { return protocoltest.When }, Sequential: sequential,
	}
	start, cpu := time.Now(), cpuTime()
	if _, err := driver.Advance(context.Background(), d, p, b.goal, opts); err != nil {
		t.Fatal(err)
	}
	wall, cpu := time.Since(start), cpuTime()-cpu
	tree, err := fixture.Tree(d.Path())
	if err != nil {
		t.Fatal(err)
	}
	files := fixture.Without(tree, func(p string) bool { return fixture.Folder(p) || strings.HasPrefix(p, ".moot") })
	return result{wall: wall, cpu: cpu, reqs: srv.Requests(), files: files}
}

func dialecticBench(exchanges int) bench {
	return bench{
		name: "dialectic, 20 exchanges",
		make: func(t *testing.T) (string, sm.Protocol) {
			dir := filepath.Join(t.TempDir(), "d")
			p := dialectic.Protocol{Templates: templates.Default()}
			d, err := driver.CreateDebate(dir, p, dialectic.NewInput("d", dialectic.Motion{Text: "This house would tax sugar."}))
			if err != nil {
				t.Fatal(err)
			}
			d.Close()
			return dir, p
		},
		goal:    driver.UnitGoal{Done: exchanges},
		handler: sparring.Handler(sparring.Options{}),
		// The debaters of exchange x+1 read the arguments of x, the
		// judge of x+1 reads them and the scores of x: N+1 latencies.
		floor:  func([]modeltest.Request) int { return exchanges + 1 },
		calls:  3 * exchanges,
		target: 0.6,
	}
}

// castYAML is a forum cast: a judge and two speakers.
const castYAML = `topic: "Whether tests should talk to the network"
premise: "Tests should never talk to the network"
turns: 8
line_width: 80
audience:
  - name: Judge Jo
    type: proceduralist
    color: magenta
    personality: >
      You are Judge Jo. PERSONA-JUDGE
    judging_criteria: >
      You score logic and evidence.
for:
  - name: Ada
    type: academic
    color: yellow
    personality: >
      You are Ada. PERSONA-FOR
    position: >
      You argue that tests must be hermetic.
    instructions: >
      Keep every response to 3-4 sentences maximum. No stage directions.
against:
  - name: Brook
    type: practitioner
    color: cyan
    personality: >
      You are Brook. PERSONA-AGAINST
    position: >
      You argue that some tests must touch the real network.
    instructions: >
      Keep every response to 3-4 sentences maximum. No stage directions.
`

func forumBench(turns int) bench {
	return bench{
		name: fmt.Sprintf("forum, %d turns", turns),
		make: func(t *testing.T) (string, sm.Protocol) {
			p := forum.Protocol{}
			return protocoltest.Create(t, p, sm.NewInput{Slug: "d", Motion: "Whether tests should talk to the network", Now: protocoltest.When,
				Values: map[string][]string{"turns": {fmt.Sprint(turns)}, "seed": {"7"}, "cast": {"cast.yaml"}},
				Files:  map[string][]byte{"cast": []byte(castYAML)},
			}), p
		},
		goal: driver.UnitGoal{All: true},
		handler: func(req modeltest.Request) modeltest.Reply {
			msgs := make([]forumfake.Message, len(req.Messages))
			for i, m := range req.Messages {
				msgs[i] = forumfake.Message{Role: m.Role, Content: m.Content}
			}
			return modeltest.Reply{Content: forumfake.Reply(msgs, forumfake.Options{})}
		},
		// The two plans together, then each speaker's think and speech,
		// each reading the one before; the judge's evaluation and score
		// of a turn read its speech, and nothing of the speakers reads
		// them: only the last turn's two and the verdict's four calls
		// are on the chain.
		floor:  func([]modeltest.Request) int { return 1 + 2*turns + 2 + 4 },
		calls:  2 + 4*turns + 4,
		target: 0.7,
	}
}

func moderatedBench(rounds int) bench {
	return bench{
		name: fmt.Sprintf("moderated, %d rounds", rounds),
		make: func(t *testing.T) (string, sm.Protocol) {
			p := moderated.Protocol{}
			return protocoltest.Create(t, p, sm.NewInput{Slug: "d", Motion: "Cars in cities", Now: protocoltest.When, Values: map[string][]string{
				"position-a": {"Cities should ban cars."}, "position-b": {"Cities should keep cars."}, "rounds": {fmt.Sprint(rounds)},
			}}), p
		},
		goal:    driver.UnitGoal{All: true},
		handler: moderatedtest.Handler(moderatedtest.Options{}),
		// Every message reads the one before (the advocates the whole
		// debate, the moderator's hand-over the statement just given, a
		// fact check its statement); no call reads a score: the floor is
		// the calls that are not scores.
		floor: func(reqs []modeltest.Request) int {
			n := 0
			for _, r := range reqs {
				if moderatedtest.Kind(r) != "scorer" {
					n++
				}
			}
			return n
		},
		target: 0.85,
	}
}

// TestPipeline runs each protocol's debate one step at a time and
// pipelined, MOOT_BENCH_RUNS times (1 unless set), the two runs of each
// protocol one after the other, and prints the medians side by side, with
// issue 30's targets (met or not) and the machine's load average before
// and after; every pipelined run must write its sequential run's files,
// make as many calls, and the medians show it faster.
func TestPipeline(t *testing.T) {
	if testing.Short() {
		t.Skip("debates at 300 ms a call, each run twice; run without -short")
	}
	if raceEnabled && os.Getenv("MOOT_BENCH_APART") != "" {
		t.Skip("a measurement: run without -race by test.sh's second pass, as MOOT_BENCH_APART is set")
	}
	runs := 1
	if v := os.Getenv("MOOT_BENCH_RUNS"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > 50 {
			t.Fatalf("MOOT_BENCH_RUNS=%q: want a number of runs from 1 to 50", v)
		}
		runs = n
	}
	benches := []bench{dialecticBench(20), forumBench(6), moderatedBench(2)}
	seqs := make([][]result, len(benches))
	pips := make([][]result, len(benches))
	loadBefore := loadAverage()
	for range runs {
		for i, b := range benches {
			seq, pip := run(t, b, true), run(t, b, false)
			if d := fixture.Diff(seq.files, pip.files); len(d) > 0 {
				t.Errorf("%s: the pipelined run's files differ from the sequential run's: %v", b.name, d)
			}
			if len(seq.reqs) != len(pip.reqs) || (b.calls > 0 && len(seq.reqs) != b.calls) {
				t.Errorf("%s: calls: sequential %d, pipelined %d, want the same (%d)", b.name, len(seq.reqs), len(pip.reqs), b.calls)
			}
			seqs[i], pips[i] = append(seqs[i], seq), append(pips[i], pip)
		}
	}
	var out strings.Builder
	fmt.Fprintf(&out, "\nmedians of %d run(s); load average %s before, %s after\n", runs, loadBefore, loadAverage())
	fmt.Fprintf(&out, "%-24s %8s %8s %8s %8s %8s %8s %8s\n", "", "seq s", "pip s", "floor s", "pip/seq", "seq/fl", "pip/fl", "pip cpu")
	var notMet []string
	for i, b := range benches {
		seq, pip := median(seqs[i], wallOf), median(pips[i], wallOf)
		floor := time.Duration(b.floor(seqs[i][0].reqs)) * latency
		ratio, over := float64(pip)/float64(seq), float64(pip)/float64(floor)
		fmt.Fprintf(&out, "%-24s %8.2f %8.2f %8.2f %8.2f %8.2f %8.2f %8.2f\n", b.name, seq.Seconds(), pip.Seconds(), floor.Seconds(),
			ratio, float64(seq)/float64(floor), over, median(pips[i], cpuOf).Seconds())
		// The targets are reported, not enforced, but for a gain at
		// all: the run's commits, which stay in order and each wait for
		// the disk, add to both runs and to neither floor, and a busy
		// machine stretches them several times.
		if ratio >= 1 {
			t.Errorf("%s: pipelined/sequential wall %.2f: no faster than one step at a time", b.name, ratio)
		}
		if ratio > b.target {
			notMet = append(notMet, fmt.Sprintf("%s: pipelined/sequential wall %.2f, want at most %.2f", b.name, ratio, b.target))
		}
		if over > 1.1 {
			notMet = append(notMet, fmt.Sprintf("%s: pipelined wall %.2fx the data floor, want at most 1.1x", b.name, over))
		}
	}
	for _, m := range notMet {
		fmt.Fprintf(&out, "target NOT MET: %s\n", m)
	}
	t.Log(out.String())
}

func wallOf(r result) time.Duration { return r.wall }
func cpuOf(r result) time.Duration  { return r.cpu }

// median is the median of what of rs, the mean of the two middle ones
// for an even count.
func median(rs []result, what func(result) time.Duration) time.Duration {
	ds := make([]time.Duration, len(rs))
	for i, r := range rs {
		ds[i] = what(r)
	}
	slices.Sort(ds)
	n := len(ds)
	if n%2 == 1 {
		return ds[n/2]
	}
	return (ds[n/2-1] + ds[n/2]) / 2
}

// loadAverage is the machine's load averages over 1, 5 and 15 minutes,
// "unknown" where /proc/loadavg cannot be read.
func loadAverage() string {
	data, err := os.ReadFile("/proc/loadavg")
	if f := strings.Fields(string(data)); err == nil && len(f) >= 3 {
		return strings.Join(f[:3], " ")
	}
	return "unknown"
}
