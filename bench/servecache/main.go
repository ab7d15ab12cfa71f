// Command servecache measures `moot serve` against the targets of issue
// 30, item 4, with its page cache on (the default) and off (--cache-mb 0,
// which rebuilds every page for every request, as moot serve did before)
// side by side in one run:
//
//	go build -o /tmp/moot ./cmd/moot && go build -o /tmp/gendebate ./bench/gendebate
//	go run ./bench/servecache -moot /tmp/moot -gendebate /tmp/gendebate
//
// It makes a debates root with two dialectic debates written by
// gendebate: "big", of 1,000 exchanges, which nothing changes, and
// "live", of 20, to which a goroutine of this program commits one more
// step (an exchange's arguments, then its judgment) every -step, as moot
// run would, under the debate's lock. Then, against each server in turn:
//
//   - poll: -clients clients each ask every -interval for live's report
//     and its /live JSON, as a browser revalidating its copy does
//     (If-None-Match with the ETag it last got), for -duration; the
//     latency of every request is recorded: median and p99.
//   - poll-full: the same, without If-None-Match (a client that keeps
//     nothing): every answer is the whole report.
//   - big: -n requests in a row for big's report, whole (no
//     If-None-Match), then -n with its ETag (304): median and p99.
//
// Targets: poll p99 at most 20 ms; big's report, unchanged, at most 5 ms a
// request. Each phase's row gives the machine's load average (of the last
// minute) at its end, which the figures depend on: on a machine shared
// with other work, -runs 3 measures every phase three times and prints
// the medians, and -off=false leaves out the server with the cache off,
// which loads the machine for minutes. The servers' peak resident memory
// (VmHWM) is printed at the end.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	driver "github.com/moot-dev/moot/internal/driver"
	sm "github.com/moot-dev/moot/statemachine"
	"github.com/moot-dev/moot/statemachine/dialectic"
	"github.com/moot-dev/moot/statemachine/dialectic/dialectictest"
	"github.com/moot-dev/moot/store"
)

func main() {
	moot := flag.String("moot", "", "the moot binary to serve with (required)")
	gen := flag.String("gendebate", "", "the gendebate binary (go build ./bench/gendebate; required)")
	bigN := flag.Int("big-exchanges", 1000, "exchanges of the unchanged debate")
	clients := flag.Int("clients", 50, "clients polling the live debate")
	interval := flag.Duration("interval", 200*time.Millisecond, "how often each client polls")
	duration := flag.Duration("duration", 10*time.Second, "how long each poll lasts")
	step := flag.Duration("step", time.Second, "how often a step is committed to the live debate")
	n := flag.Int("n", 40, "requests in a row for the big report")
	off := flag.Bool("off", true, "measure a server with the cache off too (slow: it loads the machine for minutes)")
	runs := flag.Int("runs", 1, "measure every phase this many times, and print the medians")
	flag.Parse()
	if *moot == "" || *gen == "" {
		flag.Usage()
		os.Exit(2)
	}
	if err := run(*moot, *gen, *bigN, *clients, *interval, *duration, *step, *n, *off, *runs); err != nil {
		fmt.Fprintln(os.Stderr, "servecache:", err)
		os.Exit(1)
	}
}

func run(moot, gen string, bigN, clients int, interval, duration, step time.Duration, n int, off bool, runs int) error {
	if runs < 1 {
		return fmt.Errorf("-runs %d: at least 1", runs)
	}
	root, err := os.MkdirTemp("", "servecache-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(root)
	fmt.Printf("load before: %s", loadavg())
	for _, d := range []struct {
		slug string
		n    int
	}{{"big", bigN}, {"live", 20}} {
		cmd := exec.Command(gen, "-exchanges", fmt.Sprint(d.n), filepath.Join(root, d.slug))
		if out, err := cmd.CombinedOutput(); err != nil {
			return fmt.Errorf("gendebate %s: %v: %s", d.slug, err, out)
		}
	}
	type server struct {
		name string
		url  string
		cmd  *exec.Cmd
	}
	var servers []*server
	configs := []struct{ name, mb string }{{"cache on", "64"}, {"cache off", "0"}}
	if !off {
		configs = configs[:1]
	}
	for _, c := range configs {
		addr, err := freeAddr()
		if err != nil {
			return err
		}
		cmd := exec.Command(moot, "--dir", root, "serve", "--addr", addr, "--cache-mb", c.mb)
		cmd.Stderr = io.Discard
		if err := cmd.Start(); err != nil {
			return err
		}
		defer func() { cmd.Process.Kill(); cmd.Wait() }()
		s := &server{name: c.name, url: "http://" + addr, cmd: cmd}
		if err := ready(s.url); err != nil {
			return err
		}
		servers = append(servers, s)
	}
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 2 * clients, MaxConnsPerHost: 2 * clients}}

	fmt.Printf("%-10s %-10s %4s %6s %9s %10s %10s %9s %9s\n", "server", "phase", "run", "load", "requests", "median", "p99", "KB/answer", "CPU/req")
	var rows []row
	for run := 1; run <= runs; run++ {
		for _, s := range servers {
			for _, full := range []bool{false, true} {
				cpu := cpuTime(s.cmd.Process.Pid)
				ctx, cancel := context.WithTimeout(context.Background(), duration)
				steps := make(chan error, 1)
				go func() { steps <- commitSteps(ctx, filepath.Join(root, "live"), step) }()
				lat, bytes, errs := poll(ctx, client, s.url+"/debates/live/", clients, interval, full)
				cancel()
				if err := <-steps; err != nil {
					return fmt.Errorf("commit steps: %w", err)
				}
				if errs > 0 {
					return fmt.Errorf("%s: %d requests failed", s.name, errs)
				}
				name := "poll"
				if full {
					name = "poll-full"
				}
				rows = append(rows, measure(s.name, name, run, lat, bytes, cpuTime(s.cmd.Process.Pid)-cpu))
			}
			for _, revalidate := range []bool{false, true} {
				var lat []time.Duration
				var bytes int64
				var cpu time.Duration
				tag := ""
				for i := 0; i < n; i++ {
					if i == 1 {
						cpu = cpuTime(s.cmd.Process.Pid)
					}
					d, b, t, err := fetch(client, s.url+"/debates/big/report", tag)
					if err != nil {
						return err
					}
					if revalidate {
						tag = t
					}
					if i > 0 { // the first request may build the page
						lat = append(lat, d)
						bytes += b
					}
				}
				name := "big"
				if revalidate {
					name = "big-304"
				}
				rows = append(rows, measure(s.name, name, run, lat, bytes, cpuTime(s.cmd.Process.Pid)-cpu))
			}
		}
	}
	// Each phase's figures, the medians over the runs.
	final := map[string]row{}
	if runs > 1 {
		fmt.Printf("medians of %d runs (load: the lowest and highest):\n", runs)
	}
	for _, r := range rows[:len(rows)/runs] {
		var meds, p99s []time.Duration
		var loads []float64
		for _, o := range rows {
			if o.server == r.server && o.phase == r.phase {
				meds, p99s, loads = append(meds, o.median), append(p99s, o.p99), append(loads, o.load)
			}
		}
		m := row{server: r.server, phase: r.phase, median: medianOf(meds), p99: medianOf(p99s)}
		final[r.server+" "+r.phase] = m
		if runs > 1 {
			fmt.Printf("%-10s %-10s %4s %6s %9s %10s %10s   load %.2f-%.2f\n", r.server, r.phase, "all", "", "", m.median.Round(10*time.Microsecond), m.p99.Round(10*time.Microsecond), slices.Min(loads), slices.Max(loads))
		}
	}
	for _, t := range []struct {
		phase, what string
		got, limit  time.Duration
	}{
		{"poll", "p99", final["cache on poll"].p99, 20 * time.Millisecond},
		{"big", "median", final["cache on big"].median, 5 * time.Millisecond},
		{"big-304", "median", final["cache on big-304"].median, 5 * time.Millisecond},
	} {
		verdict := "met"
		if t.got > t.limit {
			verdict = "NOT met"
		}
		fmt.Printf("target: cache on, %s %s at most %s: %s (%s)\n", t.phase, t.what, t.limit, verdict, t.got.Round(10*time.Microsecond))
	}
	for _, s := range servers {
		fmt.Printf("%s: peak resident memory %s\n", s.name, vmHWM(s.cmd.Process.Pid))
	}
	fmt.Printf("load after: %s", loadavg())
	return nil
}

// row is one phase of one run against one server.
type row struct {
	server, phase string
	load          float64
	median, p99   time.Duration
}

// measure prints the figures of one phase, with the load average at its
// end and the server's CPU time (user and system) per request, and
// returns them.
func measure(server, phase string, run int, lat []time.Duration, bytes int64, cpu time.Duration) row {
	slices.Sort(lat)
	r := row{server: server, phase: phase, load: load1()}
	if len(lat) == 0 {
		return r
	}
	q := func(p float64) time.Duration { return lat[min(len(lat)-1, int(p*float64(len(lat))))] }
	r.median, r.p99 = q(0.5), q(0.99)
	fmt.Printf("%-10s %-10s %4d %6.2f %9d %10s %10s %9.1f %9s\n", server, phase, run, r.load, len(lat), r.median.Round(10*time.Microsecond), r.p99.Round(10*time.Microsecond), float64(bytes)/float64(len(lat))/1024, (cpu / time.Duration(len(lat))).Round(time.Microsecond))
	return r
}

func medianOf(ds []time.Duration) time.Duration {
	ds = slices.Clone(ds)
	slices.Sort(ds)
	return ds[len(ds)/2]
}

// poll runs clients clients that each ask for base's report and live
// JSON every interval until ctx ends, revalidating unless full.
func poll(ctx context.Context, client *http.Client, base string, clients int, interval time.Duration, full bool) ([]time.Duration, int64, int) {
	var mu sync.Mutex
	var lat []time.Duration
	var bytes int64
	errs := 0
	var wg sync.WaitGroup
	for c := 0; c < clients; c++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			tags := map[string]string{}
			// Spread the clients over the interval, as pages opened at
			// different moments are.
			time.Sleep(interval * time.Duration(c) / time.Duration(clients))
			t := time.NewTicker(interval)
			defer t.Stop()
			for {
				for _, what := range []string{"report", "live"} {
					tag := ""
					if !full {
						tag = tags[what]
					}
					d, b, newTag, err := fetch(client, base+what, tag)
					if ctx.Err() != nil {
						return
					}
					mu.Lock()
					if err != nil {
						errs++
					} else {
						lat = append(lat, d)
						bytes += b
					}
					mu.Unlock()
					tags[what] = newTag
				}
				select {
				case <-ctx.Done():
					return
				case <-t.C:
				}
			}
		}()
	}
	wg.Wait()
	return lat, bytes, errs
}

// fetch asks for url, with If-None-Match tag when tag is set, reads the
// whole answer and returns how long that took, its bytes and its ETag.
func fetch(client *http.Client, url, tag string) (time.Duration, int64, string, error) {
	req, err := http.NewRequest(http.MethodGet, url, nil)
	if err != nil {
		return 0, 0, "", err
	}
	if tag != "" {
		req.Header.Set("If-None-Match", tag)
	}
	start := time.Now()
	resp, err := client.Do(req)
	if err != nil {
		return 0, 0, "", err
	}
	b, err := io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	d := time.Since(start)
	if err != nil {
		return 0, 0, "", err
	}
	if resp.StatusCode != http.StatusOK && resp.StatusCode != http.StatusNotModified {
		return 0, 0, "", fmt.Errorf("%s: status %d", url, resp.StatusCode)
	}
	return d, b, resp.Header.Get("ETag"), nil
}

// commitSteps commits one step of the live debate at dir every interval,
// under the debate's lock, until ctx ends.
func commitSteps(ctx context.Context, dir string, interval time.Duration) error {
	d, err := store.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	if err := d.Lock(ctx, "servecache bench", false); err != nil {
		return err
	}
	deb, err := dialectic.Loaded(driver.LoadDebate(d, dialectic.Protocol{}))
	if err != nil {
		return err
	}
	// The debate grows across polls: it goes on from where the last poll
	// left it.
	e := deb.Header.State.Exchange
	judged := deb.Header.State.Phase == dialectic.AwaitingArguments
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
		}
		var c *sm.Commit
		if judged {
			c, err = dialectic.ApplyArguments(deb, e, map[dialectic.Side][]byte{dialectic.Prop: dialectictest.Answer(dialectic.Prop, e), dialectic.Opp: dialectictest.Answer(dialectic.Opp, e)})
		} else {
			c, err = dialectic.ApplyJudgment(deb, dialectictest.Judgment(e), time.Date(2026, 1, 2, 0, 0, 0, 0, time.UTC).Add(time.Duration(e)*time.Minute))
			e++
		}
		if err == nil {
			err = driver.Commit(d, c)
		}
		if err != nil {
			return fmt.Errorf("exchange %d: %w", e, err)
		}
		judged = !judged
	}
}

func freeAddr() (string, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer l.Close()
	return l.Addr().String(), nil
}

// ready waits until the server at url answers its index.
func ready(url string) error {
	deadline := time.Now().Add(20 * time.Second)
	for {
		resp, err := http.Get(url + "/")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("the server at %s never answered", url)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// load1 is the load average of the last minute, 0 when unknown.
func load1() float64 {
	var l float64
	fmt.Sscan(loadavg(), &l)
	return l
}

func loadavg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "unknown\n"
	}
	return string(b)
}

// cpuTime is the user and system CPU time the process pid has used, at
// the kernel's tick (10 ms on most machines); 0 when unknown.
func cpuTime(pid int) time.Duration {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	// The fields after the command's name, which is in parentheses and
	// may hold spaces: utime and stime are the 12th and 13th.
	_, rest, ok := strings.Cut(string(b), ") ")
	f := strings.Fields(rest)
	if !ok || len(f) < 13 {
		return 0
	}
	var u, s int64
	fmt.Sscan(f[11], &u)
	fmt.Sscan(f[12], &s)
	return time.Duration(u+s) * time.Second / 100
}

func vmHWM(pid int) string {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return "unknown"
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			return strings.TrimSpace(v)
		}
	}
	return "unknown"
}
