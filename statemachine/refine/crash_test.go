package refine_test

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

	"github.com/moot-dev/moot/internal/driver"
	"github.com/moot-dev/moot/internal/testkit/fixture"
	"github.com/moot-dev/moot/internal/testkit/modeltest"
	"github.com/moot-dev/moot/statemachine/refine/refinetest"
)

var crashScores = map[string]float64{"Fermi estimate": 0.9, "Pre-mortem": 0.7}

// stopServer answers as the fake does but, at request stop (embedding
// requests counted with the chats), calls at and holds the request.
func stopServer(t *testing.T, stop int, at func()) (*modeltest.Server, func() int) {
	var mu sync.Mutex
	n := 0
	next := func() bool {
		mu.Lock()
		defer mu.Unlock()
		n++
		return n == stop
	}
	chat := refinetest.Handler(refinetest.Options{})
	vectors := refinetest.Embeddings(crashScores)
	embedded := map[string]bool{}
	srv := modeltest.NewServer(t, func(req modeltest.Request) modeltest.Reply {
		if next() {
			at()
			return modeltest.Reply{Delay: time.Minute}
		}
		return chat(req)
	}, modeltest.Embeddings(func(model, text string) []float64 {
		mu.Lock()
		first := len(embedded) == 0
		embedded[text] = true
		mu.Unlock()
		if first && next() {
			at()
			time.Sleep(2 * time.Second)
		}
		return vectors(model, text)
	}))
	return srv, func() int {
		mu.Lock()
		defer mu.Unlock()
		return n
	}
}

// TestInterruptedAtEveryCall: a run interrupted while any call is in
// flight, then resumed, ends with the files of a run never interrupted;
// only the call in flight is asked twice.
func TestInterruptedAtEveryCall(t *testing.T) {
	_, want, reqs := runAll(t, nil, refinetest.Options{}, crashScores)
	total := len(reqs)
	if total != 13 {
		t.Fatalf("the reference run made %d requests, want 1 embedding and 12 chats", total)
	}
	for stop := 1; stop <= total; stop++ {
		t.Run(fmt.Sprintf("at request %d", stop), func(t *testing.T) {
			dir := newDebate(t, nil)
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			srv, asked := stopServer(t, stop, cancel)
			if _, err := advance(t, ctx, dir, srv.URL, driver.UnitGoal{All: true}); !errors.Is(err, context.Canceled) {
				t.Fatalf("interrupted run: %v", err)
			}
			first := asked()
			again := server(t, refinetest.Options{}, crashScores)
			if _, err := advance(t, context.Background(), dir, again.URL, driver.UnitGoal{All: true}); err != nil {
				t.Fatal(err)
			}
			if d := fixture.Diff(stable(want), stable(files(t, dir))); len(d) > 0 {
				t.Errorf("resumed files differ from an uninterrupted run:\n%s", strings.Join(d, "\n"))
			}
			if got := first + len(again.Requests()); got != total+1 {
				t.Errorf("%d requests before and %d after, want %d in all (the one in flight twice)", first, len(again.Requests()), total+1)
			}
		})
	}
}

// TestKilledAtEveryCall: moot itself, killed with SIGKILL while each call
// is in flight and run again, ends with the files of a run never killed
// (times and model time aside); only the call in flight is asked twice.
func TestKilledAtEveryCall(t *testing.T) {
	if testing.Short() {
		t.Skip("crash test: run without -short")
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	made := t.TempDir()
	if out, err := moot(self, made, "", "new", "d", "--protocol", "refine", "--motion", question); err != nil {
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
	refSrv := server(t, refinetest.Options{}, crashScores)
	if out, err := moot(self, ref, refSrv.URL, "run", "d", "--all", "--quiet"); err != nil {
		t.Fatalf("reference run: %v\n%s", err, out)
	}
	want := stable(files(t, filepath.Join(ref, "d")))
	total := len(refSrv.Requests())
	if total != 13 {
		t.Fatalf("the reference run made %d requests, want 13", total)
	}
	for stop := 1; stop <= total; stop++ {
		t.Run(fmt.Sprintf("at request %d", stop), func(t *testing.T) {
			root := fresh(t)
			inFlight := make(chan struct{})
			var once sync.Once
			srv, asked := stopServer(t, stop, func() { once.Do(func() { close(inFlight) }) })
			cmd := exec.Command(self, "--dir", root, "run", "d", "--all", "--quiet")
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
			again := server(t, refinetest.Options{}, crashScores)
			if out, err := moot(self, root, again.URL, "check", "d"); err != nil {
				t.Fatalf("check after the kill: %v\n%s", err, out)
			}
			if out, err := moot(self, root, again.URL, "run", "d", "--all", "--quiet"); err != nil {
				t.Fatalf("resumed run: %v\n%s", err, out)
			}
			if d := fixture.Diff(want, stable(files(t, filepath.Join(root, "d")))); len(d) > 0 {
				t.Errorf("resumed files differ from an uninterrupted run:\n%s", strings.Join(d, "\n"))
			}
			if n := first + len(again.Requests()); n != total+1 {
				t.Errorf("%d requests before the kill and %d after, want %d in all", first, len(again.Requests()), total+1)
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
