//go:build unix

package tournament_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/moot-dev/moot/internal/testkit/crashtest"
	"github.com/moot-dev/moot/internal/testkit/fixture"
	"github.com/moot-dev/moot/internal/testkit/modeltest"
)

// TestKillRunner kills `moot tournament run` with SIGKILL twenty times at
// random instants of its run and checks what the issue promises: after
// every kill every debate passes `moot check`, no process of the runner is
// left and no debate's lock is held; `run` again resumes, and the finished
// tournament has the leaderboard, and the debates, of a run never
// interrupted.
func TestKillRunner(t *testing.T) {
	if testing.Short() {
		t.Skip("kills the tournament runner 20 times, a run of some 30 s: run without -short")
	}
	crashtest.Apart(t)
	const kills = 20
	seed := time.Now().UnixNano()
	if s := os.Getenv("MOOT_TKILL_SEED"); s != "" {
		fmt.Sscan(s, &seed)
	}
	t.Logf("seed %d (MOOT_TKILL_SEED=%d repeats this run)", seed, seed)
	rng := rand.New(rand.NewSource(seed))

	newArgs := newArgs(t)
	runArgs := []string{"tournament", "run", "cup", "--jobs", "4"}

	// The reference: one run, never interrupted.
	refServer := fakeServer(t, callDelay, nil)
	ref := newProc(t, filepath.Join(t.TempDir(), "debates"), refServer.URL)
	ref.moot(newArgs...)
	refRun := ref.moot(runArgs...)
	calls := len(refServer.Requests())
	want := ref.standings("cup")
	if want.Counts["done"] != 12 {
		t.Fatalf("the reference run finished %d debates, want 12: %+v", want.Counts["done"], want.Counts)
	}
	t.Logf("the reference run took %v (%v of CPU) and %d calls", refRun.Elapsed.Round(time.Millisecond), refRun.CPU.Round(time.Millisecond), calls)

	// The killed copy. Each run is killed at a random instant after a
	// random one of its calls arrives at the fake, so that every kill lands
	// while the runner works: calls in flight, answers being committed.
	var (
		mu      sync.Mutex
		arrived int
		trigger int
		victim  *exec.Cmd
		killAt  time.Duration
		seen    = map[string]bool{}
	)
	server := fakeServer(t, callDelay, func(_ context.Context, req modeltest.Request) {
		mu.Lock()
		defer mu.Unlock()
		b, _ := json.Marshal(req.Messages)
		seen[req.Model+" "+string(b)] = true
		arrived++
		if arrived == trigger && victim != nil {
			// The process, not its pid: a process already waited for is
			// not signalled.
			proc := victim.Process
			time.AfterFunc(killAt, func() { proc.Signal(syscall.SIGKILL) })
		}
	})
	p := newProc(t, filepath.Join(t.TempDir(), "debates"), server.URL)
	p.moot(newArgs...)
	dir := filepath.Join(p.root, "tournaments", "cup")
	slugs := make([]string, len(want.Debates))
	for i, d := range want.Debates {
		slugs[i] = d.Slug
	}

	killed := 0
	for i := range kills {
		mu.Lock()
		left := max(calls-len(seen), 1)
		// Spread what is left over the kills to come, so that the last
		// still finds work to interrupt.
		window := max(left/(2*(kills-i)), 1)
		arrived, trigger = 0, 1+rng.Intn(window)
		killAt = time.Duration(rng.Int63n(int64(2 * callDelay)))
		mark := fmt.Sprintf("%d-%d", seed, i)
		start := time.Now()
		cmd, stdout, stderr := p.start(mark, runArgs...)
		victim = cmd
		at := fmt.Sprintf("call %d + %v", trigger, killAt.Round(time.Millisecond))
		mu.Unlock()
		r := wait(t, cmd, stdout, stderr, start)
		mu.Lock()
		victim = nil
		mu.Unlock()
		if !r.Killed {
			t.Logf("run %d was not killed (at %s): exit %d after %v: %s", i+1, at, r.Code, r.Elapsed, strings.TrimSpace(r.Stderr))
		} else {
			killed++
		}
		if strings.Contains(r.Stderr, "being run by another process") {
			t.Fatalf("run %d found a debate locked by another process:\n%s", i+1, r.Stderr)
		}
		noProcessLeft(t, cmd.Process.Pid, mark)
		noLockHeld(t, dir, slugs)
		if failed := p.checkAll(dir, slugs); len(failed) > 0 {
			t.Fatalf("after kill %d (at %s):\n%s", i+1, at, strings.Join(failed, "\n"))
		}
		s := p.standings("cup")
		if s.Counts["running"] != 0 || s.Counts["failed"] != 0 {
			t.Fatalf("after kill %d (at %s) the tournament stands at %v, want no debate running or failed", i+1, at, s.Counts)
		}
		t.Logf("kill %d at %s, %v into the run: %d of 12 debates done", i+1, at, r.Elapsed.Round(time.Millisecond), s.Counts["done"])
	}
	if killed < kills {
		t.Errorf("%d of the %d runs were killed; the others finished first", killed, kills)
	}

	final := p.moot(runArgs...)
	if strings.Contains(final.Stderr, "being run by another process") {
		t.Fatalf("the last run found a debate locked by another process:\n%s", final.Stderr)
	}
	got := p.standings("cup")
	if !reflect.DeepEqual(got, want) {
		g, _ := json.MarshalIndent(got, "", "  ")
		w, _ := json.MarshalIndent(want, "", "  ")
		t.Errorf("after the kills the standings are\n%s\nwant those of the uninterrupted run:\n%s", g, w)
	}
	wantFiles, gotFiles := debateFiles(t, filepath.Join(ref.root, "tournaments", "cup")), debateFiles(t, dir)
	if d := fixture.Diff(wantFiles, gotFiles); len(d) > 0 {
		t.Errorf("after the kills the tournament's files differ from the uninterrupted run's: %v", d)
		for _, c := range d {
			if name, ok := strings.CutPrefix(c, "changed "); ok {
				t.Logf("%s:\n%s", name, lineDiff(wantFiles[name], gotFiles[name]))
			}
		}
	}
	if failed := p.checkAll(dir, slugs); len(failed) > 0 {
		t.Fatalf("after the last run:\n%s", strings.Join(failed, "\n"))
	}
	t.Logf("the killed copy took %d calls, the reference %d", len(server.Requests()), calls)
}

// checkAll runs moot check on every debate of the tournament at dir, four
// at a time, and returns the failures.
func (p *proc) checkAll(dir string, slugs []string) []string {
	var (
		mu     sync.Mutex
		failed []string
		wg     sync.WaitGroup
	)
	next := make(chan string)
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for slug := range next {
				cmd := exec.Command(p.bin, "--dir", p.root, "check", filepath.Join(dir, slug))
				cmd.Env = append(os.Environ(), p.env...)
				if out, err := cmd.CombinedOutput(); err != nil {
					mu.Lock()
					failed = append(failed, fmt.Sprintf("moot check %s: %v\n%s", slug, err, out))
					mu.Unlock()
				}
			}
		}()
	}
	for _, slug := range slugs {
		next <- slug
	}
	close(next)
	wg.Wait()
	return failed
}

// noProcessLeft fails the test if a process of the killed moot pid is
// still running: one in its process group, or one with its mark in its
// environment (a child that left the group).
func noProcessLeft(t *testing.T, pid int, mark string) {
	t.Helper()
	if err := syscall.Kill(-pid, 0); !errors.Is(err, syscall.ESRCH) {
		t.Fatalf("a process of the killed runner's group %d is still there (kill -0: %v)", pid, err)
	}
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return // no /proc here: the group's check stands alone
	}
	needle := []byte("MOOT_TKILL_MARK=" + mark + "\x00")
	for _, e := range entries {
		if e.Name()[0] < '0' || e.Name()[0] > '9' {
			continue
		}
		env, err := os.ReadFile(filepath.Join("/proc", e.Name(), "environ"))
		if err == nil && bytes.Contains(env, needle) {
			t.Fatalf("process %s, started by the killed runner, is still running", e.Name())
		}
	}
}

// noLockHeld fails the test if any debate's lock, or the tournament's, is
// held: it takes each lock for an instant.
func noLockHeld(t *testing.T, dir string, slugs []string) {
	t.Helper()
	for _, d := range append([]string{"."}, slugs...) {
		name := filepath.Join(dir, d, ".moot", "lock")
		f, err := os.Open(name)
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if err == nil {
			syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
		}
		f.Close()
		if err != nil {
			t.Fatalf("the lock of %s is held after the runner was killed: %v", filepath.Join(dir, d), err)
		}
	}
}

// lineDiff shows the lines of got that differ from want's at the same
// place, a few at most.
func lineDiff(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	var b strings.Builder
	shown := 0
	for i := 0; i < max(len(w), len(g)) && shown < 6; i++ {
		var wl, gl string
		if i < len(w) {
			wl = w[i]
		}
		if i < len(g) {
			gl = g[i]
		}
		if wl != gl {
			fmt.Fprintf(&b, "  line %d: want %q\n           got  %q\n", i+1, wl, gl)
			shown++
		}
	}
	if len(w) != len(g) {
		fmt.Fprintf(&b, "  %d lines, want %d\n", len(g), len(w))
	}
	return b.String()
}
