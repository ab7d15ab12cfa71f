// Command tourney measures moot's tournaments against the targets of
// issue 15's "Speed and scale", each as a whole moot process against a
// fake OpenAI-compatible server that this program serves (package
// tourneyfake: the judge gives every exchange to the stronger model):
//
//	go run ./bench/tourney run      # 100 debates of 3 exchanges, 500 ms a call, --jobs 16
//	go run ./bench/tourney rpm      # --rpm 120: the most requests any 60 s saw
//	go run ./bench/tourney report   # report and status of 1,800 generated debates
//
// run makes a tournament of 5 models and 5 motions (every pair meets on
// every motion twice, sides swapped: 100 debates) and times `moot
// tournament run --jobs 16`, RUNS times, each on a fresh tournament. The
// ideal is the debates' latency over the jobs: a debate's steps go one
// after the other, each waiting one call's latency (an argument step asks
// both debaters at once), so a debate of 3 exchanges cannot take less than
// 6 × 500 ms, and 100 of them on 16 jobs not less than 100 × 3 s / 16. (As
// debates are not split between jobs, the last of ceil(100/16) waves runs
// part-empty: ceil(100/16) × 3 s is printed too.) moot's CPU per step is
// its user and system time over the steps taken; its peak memory the
// maximum resident set size. Both come from the rusage that wait4 gives,
// which is what GNU time -v prints. Targets: wall time at most 1.2 times
// the ideal, under 20 ms of CPU a step, under 200 MiB.
//
// rpm runs a tournament of 4 models and 2 motions (24 debates, 216 calls)
// with --rpm 120 and finds the most calls that arrived at the server in
// any 60 s: at most 120 is the target. It takes about two minutes.
//
// report makes a tournament of 10 models and 20 motions (1,800 debates of
// 3 exchanges) and runs it to its end against the fake answering at once,
// then times `moot tournament report` and `moot tournament status` in
// interleaved rounds: the report under 5 s is the target. -keep DIR keeps
// the tournament in DIR, and a later run with the same -keep DIR measures
// it again without making it anew.
//
// moot is built with the README's build command (CGO_ENABLED=0) and
// -trimpath, as bench/startup.py builds it; -moot measures another binary
// instead, and -baseline runs a second binary in the same rounds, for a
// before and after under the same load. Figures are medians, printed with
// the load average before and after (the machine may be shared). The
// exit status is 1 when a target is missed.
package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/moot-dev/moot/internal/testkit/modeltest"
	"github.com/moot-dev/moot/statemachine/dialectic/dialectictest/tourneyfake"
)

// Targets of issue 15.
const (
	wallMax     = 1.2 // wall time of run, as a multiple of the ideal
	cpuStepMax  = 20  // ms of moot's CPU per debate step
	rssMax      = 200 // MiB of peak memory of run
	reportMax   = 5.0 // seconds of tournament report
	tournament  = "bench"
	judgeModel  = "judge"
	modelPrefix = "model-"
)

func main() {
	fs := flag.NewFlagSet("tourney", flag.ExitOnError)
	runs := fs.Int("runs", 0, "measured runs (default 3 for run, 1 for rpm, 5 for report)")
	jobs := fs.Int("jobs", 16, "moot tournament run --jobs")
	delay := fs.Duration("delay", 500*time.Millisecond, "how long the fake takes to answer a call (run and rpm)")
	models := fs.Int("models", 0, "models in the tournament (default 5 for run, 4 for rpm, 10 for report)")
	motions := fs.Int("motions", 0, "motions in the tournament (default 5 for run, 2 for rpm, 20 for report)")
	exchanges := fs.Int("exchanges", 3, "exchanges of every debate")
	rpm := fs.Int("rpm", 120, "moot tournament run --rpm (rpm)")
	moot := fs.String("moot", "", "measure this moot binary instead of building one")
	baseline := fs.String("baseline", "", "another moot binary to measure in the same rounds (run and report)")
	keep := fs.String("keep", "", "make the report's tournament in `DIR` and keep it; reuse it if it is there (report)")
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "usage: tourney [flags] run|rpm|report\n")
		fs.PrintDefaults()
	}
	if len(os.Args) < 2 || strings.HasPrefix(os.Args[1], "-") {
		fs.Usage()
		os.Exit(2)
	}
	mode := os.Args[1]
	fs.Parse(os.Args[2:])
	defaults := map[string][3]int{"run": {3, 5, 5}, "rpm": {1, 4, 2}, "report": {5, 10, 20}}
	d, ok := defaults[mode]
	if !ok || fs.NArg() != 0 {
		fs.Usage()
		os.Exit(2)
	}
	for i, p := range []*int{runs, models, motions} {
		if *p == 0 {
			*p = d[i]
		}
	}
	work, err := os.MkdirTemp("", "moot-tourney-")
	if err != nil {
		fail(err)
	}
	defer os.RemoveAll(work)
	bin, err := mootBinary(work, *moot)
	if err != nil {
		fail(err)
	}
	b := bench{work: work, moot: bin, baseline: *baseline, runs: *runs, jobs: *jobs, delay: *delay,
		models: *models, motions: *motions, exchanges: *exchanges, rpm: *rpm, keep: *keep}
	var missed []string
	switch mode {
	case "run":
		missed, err = b.run()
	case "rpm":
		missed, err = b.rpmLimit()
	case "report":
		missed, err = b.report()
	}
	if err != nil {
		os.RemoveAll(work)
		fail(err)
	}
	for _, m := range missed {
		fmt.Println("missed: " + m)
	}
	if len(missed) > 0 {
		os.RemoveAll(work)
		os.Exit(1)
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "tourney:", err)
	os.Exit(1)
}

// bench is what a measurement needs.
type bench struct {
	work, moot, baseline, keep             string
	runs, jobs, models, motions, exchanges int
	rpm                                    int
	delay                                  time.Duration
}

// mootBinary builds moot into work as the README says, or returns given.
func mootBinary(work, given string) (string, error) {
	if given != "" {
		return filepath.Abs(given)
	}
	out, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil || len(bytes.TrimSpace(out)) == 0 || string(bytes.TrimSpace(out)) == os.DevNull {
		return "", fmt.Errorf("run me inside moot's module: go env GOMOD: %v", err)
	}
	bin := filepath.Join(work, "moot")
	cmd := exec.Command("go", "build", "-trimpath", "-o", bin, "./cmd/moot")
	cmd.Dir = filepath.Dir(string(bytes.TrimSpace(out)))
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("build moot: %v\n%s", err, out)
	}
	return bin, nil
}

// fake is the model server: tourneyfake's answers after delay, every
// call's arrival kept.
type fake struct {
	srv *modeltest.Server

	mu       sync.Mutex
	arrivals []time.Time
	byRole   map[string]int
	failures []string
}

// newFake serves the models of n, model-01 the strongest, answering after
// delay.
func newFake(n int, delay time.Duration) (*fake, error) {
	strength := map[string]float64{}
	for i := 1; i <= n; i++ {
		strength[modelName(i)] = float64(n - i)
	}
	f := &fake{byRole: map[string]int{}}
	h := tourneyfake.Handler(strength)
	before := func(ctx context.Context, req modeltest.Request) {
		now := time.Now()
		f.mu.Lock()
		defer f.mu.Unlock()
		f.arrivals = append(f.arrivals, now)
		f.byRole[modeltest.RoleOf(req)]++
	}
	srv, err := modeltest.Serve(func(req modeltest.Request) modeltest.Reply {
		r := h(req)
		r.Delay = delay
		return r
	}, func(msg string) {
		f.mu.Lock()
		defer f.mu.Unlock()
		f.failures = append(f.failures, msg)
	}, modeltest.Forget(), modeltest.Before(before))
	if err != nil {
		return nil, err
	}
	f.srv = srv
	return f, nil
}

// reset forgets the calls so far and returns them: their arrivals and
// their count by role.
func (f *fake) reset() ([]time.Time, map[string]int, []string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	a, r, fl := f.arrivals, f.byRole, f.failures
	f.arrivals, f.byRole, f.failures = nil, map[string]int{}, nil
	return a, r, fl
}

func modelName(i int) string { return fmt.Sprintf("%s%02d", modelPrefix, i) }

// measure is one moot process's cost.
type measure struct {
	wall, cpu time.Duration
	user, sys time.Duration
	rssKiB    int64
	stderr    string
	stdout    string
}

// mootRun runs moot with args in dir, with the fake's URL, and measures
// it; a failing moot is an error.
func (b *bench) mootRun(bin, dir, url string, args ...string) (measure, error) {
	cmd := exec.Command(bin, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "OPENAI_BASE_URL="+url, "OPENAI_API_KEY=", "MOOT_DIR=", "MOOT_MODEL=", "NO_COLOR=1")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	start := time.Now()
	err := cmd.Run()
	m := measure{wall: time.Since(start), stdout: stdout.String(), stderr: stderr.String()}
	if err != nil {
		return m, fmt.Errorf("moot %s: %v\n%s", strings.Join(args, " "), err, stderr.String())
	}
	m.user, m.sys = cmd.ProcessState.UserTime(), cmd.ProcessState.SystemTime()
	m.cpu = m.user + m.sys
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		m.rssKiB = ru.Maxrss // KiB on Linux
	}
	return m, nil
}

// newTournament writes a motions file into dir and makes the tournament
// with bin.
func (b *bench) newTournament(bin, dir, url string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	var lines []string
	for i := 1; i <= b.motions; i++ {
		lines = append(lines, fmt.Sprintf("Motion number %d should be adopted.", i))
	}
	if err := os.WriteFile(filepath.Join(dir, "motions.txt"), []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		return err
	}
	var names []string
	for i := 1; i <= b.models; i++ {
		names = append(names, modelName(i))
	}
	_, err := b.mootRun(bin, dir, url, "tournament", "new", tournament, "--models", strings.Join(names, ","),
		"--motions", "motions.txt", "--exchanges", strconv.Itoa(b.exchanges), "--judge-model", judgeModel)
	return err
}

// debates is how many debates the tournament has.
func (b *bench) debates() int { return b.models * (b.models - 1) * b.motions }

var doneRe = regexp.MustCompile(`done: (\d+) debates run in .*, (\d+) failed`)

// checkDone reports an error unless the run's summary says every debate
// ran and none failed.
func (b *bench) checkDone(m measure) error {
	sub := doneRe.FindStringSubmatch(m.stderr)
	if sub == nil || sub[1] != strconv.Itoa(b.debates()) || sub[2] != "0" {
		return fmt.Errorf("not every debate ran: %s", strings.TrimSpace(m.stderr))
	}
	return nil
}

// binaries are the moot binaries measured: moot, then the baseline.
func (b *bench) binaries() []string {
	if b.baseline != "" {
		return []string{b.moot, b.baseline}
	}
	return []string{b.moot}
}

// name calls a binary moot or baseline.
func (b *bench) name(bin string) string {
	if bin == b.moot {
		return "moot"
	}
	return "baseline"
}

// run measures issue 15's first target.
func (b *bench) run() ([]string, error) {
	f, err := newFake(b.models, b.delay)
	if err != nil {
		return nil, err
	}
	defer f.srv.Close()
	type result struct {
		wall, ideal, waves time.Duration
		cpuStep            float64 // ms
		rssMiB             float64
		load               [2]float64
	}
	results := map[string][]result{}
	fmt.Printf("%d debates (%d models × %d motions) of %d exchanges, --jobs %d, every call answered in %s; %d cores\n",
		b.debates(), b.models, b.motions, b.exchanges, b.jobs, b.delay, runtime.NumCPU())
	for r := 0; r < b.runs; r++ {
		for _, bin := range b.binaries() {
			dir := filepath.Join(b.work, fmt.Sprintf("run-%d-%s", r, b.name(bin)))
			if err := b.newTournament(bin, dir, f.srv.URL); err != nil {
				return nil, err
			}
			f.reset()
			before := loadAvg()
			m, err := b.mootRun(bin, dir, f.srv.URL, "tournament", "run", tournament, "--jobs", strconv.Itoa(b.jobs), "--quiet")
			after := loadAvg()
			if err != nil {
				return nil, err
			}
			if err := b.checkDone(m); err != nil {
				return nil, err
			}
			arrivals, byRole, failures := f.reset()
			if len(failures) > 0 {
				return nil, fmt.Errorf("the fake failed: %s", failures[0])
			}
			// Each argument step asks both debaters, each judgment step
			// the judge, once each when nothing is repaired.
			debaters := byRole["proposition"] + byRole["opposition"]
			steps := debaters/2 + byRole["judge"]
			if want := b.debates() * b.exchanges * 3; len(arrivals) != want {
				fmt.Printf("  note: %d calls, not %d: repairs or retries\n", len(arrivals), want)
			}
			perDebate := time.Duration(steps) * b.delay / time.Duration(b.debates())
			res := result{
				wall:    m.wall,
				ideal:   time.Duration(steps) * b.delay / time.Duration(b.jobs),
				waves:   time.Duration((b.debates()+b.jobs-1)/b.jobs) * perDebate,
				cpuStep: float64(m.cpu) / float64(time.Millisecond) / float64(steps),
				rssMiB:  float64(m.rssKiB) / 1024,
				load:    [2]float64{before, after},
			}
			results[bin] = append(results[bin], res)
			fmt.Printf("  run %d %-8s wall %6.2f s = %.3f × ideal %.2f s (whole waves %.2f s) · CPU %.2f s (user %.2f, sys %.2f), %.2f ms a step (%d steps, %d calls) · peak RSS %.1f MiB · load %.2f → %.2f\n",
				r+1, b.name(bin), res.wall.Seconds(), res.wall.Seconds()/res.ideal.Seconds(), res.ideal.Seconds(), res.waves.Seconds(),
				m.cpu.Seconds(), m.user.Seconds(), m.sys.Seconds(), res.cpuStep, steps, len(arrivals), res.rssMiB, before, after)
		}
	}
	var missed []string
	for _, bin := range b.binaries() {
		rs := results[bin]
		ratio := median(rs, func(r result) float64 { return r.wall.Seconds() / r.ideal.Seconds() })
		cpu := median(rs, func(r result) float64 { return r.cpuStep })
		rss := median(rs, func(r result) float64 { return r.rssMiB })
		fmt.Printf("median of %d, %-8s wall %.2f s = %.3f × the ideal %.2f s (target ≤ %.1f×) · %.2f ms of CPU a step (target < %d) · peak RSS %.1f MiB (target < %d) · load %.2f to %.2f\n",
			len(rs), b.name(bin), median(rs, func(r result) float64 { return r.wall.Seconds() }), ratio,
			median(rs, func(r result) float64 { return r.ideal.Seconds() }), wallMax, cpu, cpuStepMax, rss, rssMax,
			minOf(rs, func(r result) float64 { return r.load[0] }), maxOf(rs, func(r result) float64 { return r.load[1] }))
		if bin != b.moot {
			continue
		}
		if ratio > wallMax {
			missed = append(missed, fmt.Sprintf("wall time is %.3f × the ideal (target ≤ %.1f×)", ratio, wallMax))
		}
		if cpu >= cpuStepMax {
			missed = append(missed, fmt.Sprintf("%.2f ms of CPU a step (target < %d)", cpu, cpuStepMax))
		}
		if rss >= rssMax {
			missed = append(missed, fmt.Sprintf("peak RSS %.1f MiB (target < %d)", rss, rssMax))
		}
	}
	return missed, nil
}

// rpmLimit measures issue 15's second target: no 60 s sees more than rpm
// calls.
func (b *bench) rpmLimit() ([]string, error) {
	f, err := newFake(b.models, b.delay)
	if err != nil {
		return nil, err
	}
	defer f.srv.Close()
	fmt.Printf("%d debates (%d models × %d motions) of %d exchanges, --jobs %d --rpm %d, every call answered in %s; %d cores\n",
		b.debates(), b.models, b.motions, b.exchanges, b.jobs, b.rpm, b.delay, runtime.NumCPU())
	var missed []string
	for r := 0; r < b.runs; r++ {
		dir := filepath.Join(b.work, fmt.Sprintf("rpm-%d", r))
		if err := b.newTournament(b.moot, dir, f.srv.URL); err != nil {
			return nil, err
		}
		f.reset()
		before := loadAvg()
		m, err := b.mootRun(b.moot, dir, f.srv.URL, "tournament", "run", tournament, "--jobs", strconv.Itoa(b.jobs),
			"--rpm", strconv.Itoa(b.rpm), "--quiet")
		after := loadAvg()
		if err != nil {
			return nil, err
		}
		if err := b.checkDone(m); err != nil {
			return nil, err
		}
		arrivals, _, failures := f.reset()
		if len(failures) > 0 {
			return nil, fmt.Errorf("the fake failed: %s", failures[0])
		}
		most, at := maxInWindow(arrivals, time.Minute)
		slices.SortFunc(arrivals, func(a, b time.Time) int { return a.Compare(b) })
		span := arrivals[len(arrivals)-1].Sub(arrivals[0])
		least := time.Duration((len(arrivals)-1)/b.rpm) * time.Minute
		fmt.Printf("  run %d: %d calls in %.1f s (moot's wall time); last call %.1f s after the first (the limit allows no less than %s); at most %d calls in any 60 s (from %.1f s; limit %d) · load %.2f → %.2f\n",
			r+1, len(arrivals), m.wall.Seconds(), span.Seconds(), least, most, at.Sub(arrivals[0]).Seconds(), b.rpm, before, after)
		if most > b.rpm {
			missed = append(missed, fmt.Sprintf("run %d: a minute saw %d calls (limit %d)", r+1, most, b.rpm))
		}
	}
	return missed, nil
}

// maxInWindow is the most times of ts within any span shorter than w,
// and the first time of such a span.
func maxInWindow(ts []time.Time, w time.Duration) (int, time.Time) {
	s := slices.Clone(ts)
	slices.SortFunc(s, func(a, b time.Time) int { return a.Compare(b) })
	most, at, j := 0, time.Time{}, 0
	for i := range s {
		for s[i].Sub(s[j]) >= w {
			j++
		}
		if n := i - j + 1; n > most {
			most, at = n, s[j]
		}
	}
	return most, at
}

// report measures issue 15's third target: the report of a large
// tournament.
func (b *bench) report() ([]string, error) {
	dir := filepath.Join(b.work, "report")
	if b.keep != "" {
		dir = b.keep
	}
	if _, err := os.Stat(filepath.Join(dir, "debates", "tournaments", tournament)); err != nil {
		if !errors.Is(err, os.ErrNotExist) {
			return nil, err
		}
		if err := b.generate(dir); err != nil {
			return nil, err
		}
	} else {
		fmt.Printf("reusing the tournament in %s\n", dir)
	}
	commands := [][]string{
		{"tournament", "report", tournament},
		{"tournament", "status", tournament},
	}
	type key struct{ bin, cmd string }
	walls, cpus, rsss := map[key][]float64{}, map[key][]float64{}, map[key][]float64{}
	const warmup = 1
	loadBefore := loadAvg()
	for r := 0; r < warmup+b.runs; r++ {
		for _, bin := range b.binaries() {
			for _, c := range commands {
				m, err := b.mootRun(bin, dir, "http://127.0.0.1:1/v1", c...)
				if err != nil {
					return nil, err
				}
				if r < warmup {
					continue
				}
				k := key{bin, c[1]}
				walls[k] = append(walls[k], m.wall.Seconds())
				cpus[k] = append(cpus[k], m.cpu.Seconds())
				rsss[k] = append(rsss[k], float64(m.rssKiB)/1024)
			}
		}
	}
	loadAfter := loadAvg()
	fmt.Printf("%d interleaved rounds (after %d warm-up) on %d debates, %d cores, load %.2f before and %.2f after\n",
		b.runs, warmup, b.debates(), runtime.NumCPU(), loadBefore, loadAfter)
	id := func(x float64) float64 { return x }
	var missed []string
	for _, bin := range b.binaries() {
		for _, c := range commands {
			k := key{bin, c[1]}
			wall := median(walls[k], id)
			fmt.Printf("  %-8s %-28s wall median %6.3f s (min %.3f, max %.3f) · CPU median %.3f s · peak RSS median %.1f MiB\n",
				b.name(bin), strings.Join(c[:2], " "), wall, slices.Min(walls[k]), slices.Max(walls[k]), median(cpus[k], id), median(rsss[k], id))
			if bin == b.moot && c[1] == "report" && wall >= reportMax {
				missed = append(missed, fmt.Sprintf("the report took %.2f s (target < %.0f s)", wall, reportMax))
			}
		}
	}
	return missed, nil
}

// generate makes the report's tournament in dir and runs it to its end
// against the fake answering at once.
func (b *bench) generate(dir string) error {
	f, err := newFake(b.models, 0)
	if err != nil {
		return err
	}
	defer f.srv.Close()
	start := time.Now()
	if err := b.newTournament(b.moot, dir, f.srv.URL); err != nil {
		return err
	}
	made := time.Since(start)
	m, err := b.mootRun(b.moot, dir, f.srv.URL, "tournament", "run", tournament, "--jobs", "8", "--quiet")
	if err != nil {
		return err
	}
	if err := b.checkDone(m); err != nil {
		return err
	}
	if _, _, failures := f.reset(); len(failures) > 0 {
		return fmt.Errorf("the fake failed: %s", failures[0])
	}
	fmt.Printf("made %d debates (%d models × %d motions, %d exchanges) in %.1f s and ran them in %.1f s (moot CPU %.1f s) against the fake answering at once\n",
		b.debates(), b.models, b.motions, b.exchanges, made.Seconds(), m.wall.Seconds(), m.cpu.Seconds())
	return nil
}

// median is the median of f over xs.
func median[T any](xs []T, f func(T) float64) float64 {
	v := make([]float64, len(xs))
	for i, x := range xs {
		v[i] = f(x)
	}
	slices.Sort(v)
	n := len(v)
	if n == 0 {
		return math.NaN()
	}
	if n%2 == 1 {
		return v[n/2]
	}
	return (v[n/2-1] + v[n/2]) / 2
}

func minOf[T any](xs []T, f func(T) float64) float64 {
	m := math.Inf(1)
	for _, x := range xs {
		m = math.Min(m, f(x))
	}
	return m
}

func maxOf[T any](xs []T, f func(T) float64) float64 {
	m := math.Inf(-1)
	for _, x := range xs {
		m = math.Max(m, f(x))
	}
	return m
}

// loadAvg is the one-minute load average, or NaN where /proc has none.
func loadAvg() float64 {
	data, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return math.NaN()
	}
	f := strings.Fields(string(data))
	if len(f) == 0 {
		return math.NaN()
	}
	x, err := strconv.ParseFloat(f[0], 64)
	if err != nil {
		return math.NaN()
	}
	return x
}
