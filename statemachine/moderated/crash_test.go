package moderated_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/moot-dev/moot/internal/cli"
	"github.com/moot-dev/moot/internal/driver"
	"github.com/moot-dev/moot/internal/testkit/fixture"
	"github.com/moot-dev/moot/internal/testkit/modeltest"
	"github.com/moot-dev/moot/statemachine/moderated"
	"github.com/moot-dev/moot/statemachine/moderated/moderatedtest"
)

// asMoot makes this test binary run as moot, knowing moderated, for the
// crash test's processes.
const asMoot = "MOOT_MODERATED_AS_MOOT"

func TestMain(m *testing.M) {
	if os.Getenv(asMoot) == "1" {
		os.Exit(cli.Main(os.Args, moderated.Protocol{}))
	}
	os.Exit(m.Run())
}

// stopAt returns a handler that answers as the fake does but, at request
// stop, calls at and then holds the request until the client goes away.
func stopAt(stop int, at func()) (modeltest.Handler, func() int) {
	var mu sync.Mutex
	n := 0
	h := moderatedtest.Handler(moderatedtest.Options{})
	return func(req modeltest.Request) modeltest.Reply {
			mu.Lock()
			n++
			here := n
			mu.Unlock()
			if here == stop {
				at()
				return modeltest.Reply{Delay: time.Minute}
			}
			return h(req)
		}, func() int {
			mu.Lock()
			defer mu.Unlock()
			return n
		}
}

// TestInterruptedAtEveryCall: a run interrupted while any call is in
// flight, then resumed, ends with the files of a run never interrupted;
// only the call in flight is asked twice.
func TestInterruptedAtEveryCall(t *testing.T) {
	whole, want, reqs := runAll(t, map[string]string{"rounds": "1", "transcript": "true"}, moderatedtest.Options{})
	_ = whole
	total := len(reqs)
	for stop := 1; stop <= total; stop++ {
		t.Run(fmt.Sprintf("at request %d", stop), func(t *testing.T) {
			dir := newDebate(t, map[string]string{"rounds": "1", "transcript": "true"})
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			h, asked := stopAt(stop, cancel)
			srv := modeltest.NewServer(t, h)
			if _, err := advance(t, ctx, dir, srv.URL, driver.UnitGoal{All: true}); !errors.Is(err, context.Canceled) {
				t.Fatalf("interrupted run: %v", err)
			}
			first := asked()
			again := modeltest.NewServer(t, moderatedtest.Handler(moderatedtest.Options{}))
			if _, err := advance(t, context.Background(), dir, again.URL, driver.UnitGoal{All: true}); err != nil {
				t.Fatal(err)
			}
			if d := fixture.Diff(want, files(t, dir)); len(d) > 0 {
				t.Errorf("resumed files differ from an uninterrupted run:\n%s", strings.Join(d, "\n"))
			}
			if got := first + len(again.Requests()); got != total+1 {
				t.Errorf("%d requests before and %d after, want %d in all (the one in flight twice)", first, len(again.Requests()), total+1)
			}
		})
	}
}

// TestKilledAtEveryCall: moot itself, killed with SIGKILL while each call
// of a debate is in flight and run again, ends with the files of a run
// never killed (the messages' times aside) and an index.md listing every
// message in order; only the call in flight is asked twice.
func TestKilledAtEveryCall(t *testing.T) {
	if testing.Short() {
		t.Skip("crash test: run without -short")
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	// One debate made by moot new, copied for every run, so that all
	// share its participants' ids.
	made := t.TempDir()
	if out, err := moot(self, made, "", "new", "d", "--protocol", "moderated", "--motion", "Cars in cities",
		"--position-a", "Ban them.", "--position-b", "Keep them.", "--rounds", "1", "--transcript"); err != nil {
		t.Fatalf("moot new: %v\n%s", err, out)
	}
	fresh := func(t *testing.T) string {
		root := t.TempDir()
		if err := fixture.CopyTree(filepath.Join(made, "d"), filepath.Join(root, "d")); err != nil {
			t.Fatal(err)
		}
		return root
	}
	ref := fresh(t)
	refSrv := modeltest.NewServer(t, moderatedtest.Handler(moderatedtest.Options{}))
	if out, err := moot(self, ref, refSrv.URL, "run", "d", "--all", "--quiet"); err != nil {
		t.Fatalf("reference run: %v\n%s", err, out)
	}
	want := stable(files(t, filepath.Join(ref, "d")))
	total := len(refSrv.Requests())
	if total != 25 {
		t.Fatalf("the reference run made %d requests, want 25", total)
	}
	for stop := 1; stop <= total; stop++ {
		t.Run(fmt.Sprintf("at request %d", stop), func(t *testing.T) {
			root := fresh(t)
			cmd := exec.Command(self, "--dir", root, "run", "d", "--all", "--quiet")
			inFlight := make(chan struct{})
			h, asked := stopAt(stop, func() { close(inFlight) })
			srv := modeltest.NewServer(t, h)
			cmd.Env = append(os.Environ(), asMoot+"=1", "OPENAI_BASE_URL="+srv.URL, "OPENAI_API_KEY=", "MOOT_MODEL=fake")
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			select {
			case <-inFlight:
				cmd.Process.Signal(syscall.SIGKILL)
			case <-time.After(30 * time.Second):
				cmd.Process.Kill()
				t.Fatal("request never came")
			}
			cmd.Wait()
			first := asked()
			again := modeltest.NewServer(t, moderatedtest.Handler(moderatedtest.Options{}))
			if out, err := moot(self, root, again.URL, "check", "d"); err != nil {
				t.Fatalf("check after the kill: %v\n%s", err, out)
			}
			if out, err := moot(self, root, again.URL, "run", "d", "--all", "--quiet"); err != nil {
				t.Fatalf("resumed run: %v\n%s", err, out)
			}
			got := stable(files(t, filepath.Join(root, "d")))
			if d := fixture.Diff(want, got); len(d) > 0 {
				t.Errorf("resumed files differ from an uninterrupted run:\n%s", strings.Join(d, "\n"))
			}
			if n := first + len(again.Requests()); n != total+1 {
				t.Errorf("%d requests before the kill and %d after, want %d in all", first, len(again.Requests()), total+1)
			}
			index := got["index.md"]
			last := 0
			for n := 1; n <= 21; n++ {
				i := strings.Index(index, fmt.Sprintf("| %03d | [%03d_", n, n))
				if i < last {
					t.Errorf("index.md lists message %03d out of order or not at all", n)
				}
				last = i
			}
		})
	}
}

// moot runs this test binary as moot under root against the fake at url.
func moot(self, root, url string, args ...string) (string, error) {
	cmd := exec.Command(self, append([]string{"--dir", root}, args...)...)
	cmd.Env = append(os.Environ(), asMoot+"=1", "OPENAI_BASE_URL="+url, "OPENAI_API_KEY=", "MOOT_MODEL=fake")
	out, err := cmd.CombinedOutput()
	return string(out), err
}
