package crashtest

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/moot-dev/moot/store"
)

// lockedDebate makes the scripted debate with its first exchange argued
// and holds its lock from this process, as a running writer would.
func lockedDebate(tb testing.TB, root string) (*Harness, []Step) {
	tb.Helper()
	steps, err := Script(tb.TempDir(), "demo", 1)
	if err != nil {
		tb.Fatal(err)
	}
	h := dialecticHarness(root, "demo")
	if _, err := h.RunReference(steps[:2]); err != nil {
		tb.Fatal(err)
	}
	d, err := store.Open(h.Dir())
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { d.Close() })
	if err := d.Lock(context.Background(), "moot run demo", false); err != nil {
		tb.Fatal(err)
	}
	return h, steps
}

// TestSecondWriterGetsExitBusy runs process-judge while another process
// holds the lock: exit 5, a message naming the holder's pid and command and
// a hint about --wait, and not a byte changed; with --wait it waits and
// completes once the holder lets go.
func TestSecondWriterGetsExitBusy(t *testing.T) {
	h, steps := lockedDebate(t, t.TempDir())
	before := must(h.Files())
	o, err := h.Exec(steps[2].Args, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	if o.Code != 5 {
		t.Fatalf("second writer: %s, want exit 5", o)
	}
	for _, want := range []string{"pid " + strconv.Itoa(os.Getpid()), `"moot run demo"`, "--wait"} {
		if !strings.Contains(o.Stderr, want) {
			t.Errorf("stderr %q does not mention %s", o.Stderr, want)
		}
	}
	if diff := Diff(before, must(h.Files())); len(diff) > 0 {
		t.Fatalf("a refused writer changed files: %v", diff)
	}
	// Readers are not blocked.
	if _, err := h.Check(); err != nil {
		t.Fatal(err)
	}
}

func TestWaitingWriterCarriesOn(t *testing.T) {
	root := t.TempDir()
	steps, err := Script(t.TempDir(), "demo", 1)
	if err != nil {
		t.Fatal(err)
	}
	h := dialecticHarness(root, "demo")
	if _, err := h.RunReference(steps[:2]); err != nil {
		t.Fatal(err)
	}
	d, err := store.Open(h.Dir())
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	if err := d.Lock(context.Background(), "moot run demo", false); err != nil {
		t.Fatal(err)
	}
	released := make(chan struct{})
	time.AfterFunc(300*time.Millisecond, func() { d.Close(); close(released) })
	o, err := h.Exec(append(steps[2].Args, "--wait"), nil, 0)
	<-released
	if err != nil {
		t.Fatal(err)
	}
	if o.Code != 0 || o.Elapsed < 300*time.Millisecond {
		t.Fatalf("process-judge --wait: %s; want exit 0 after the holder let go", o)
	}
	if done, err := h.Done(steps[2]); !done || err != nil {
		t.Fatalf("the judgment was not applied (%v)", err)
	}
}

// BenchmarkSecondWriterRefused measures, end to end, how long the moot
// binary takes to refuse a second writer: start, open, fail to lock, name
// the holder, exit 5. It reports the median in milliseconds; the goal is
// under 100.
func BenchmarkSecondWriterRefused(b *testing.B) {
	h, steps := lockedDebate(b, filepath.Join(b.TempDir()))
	var took []time.Duration
	for b.Loop() {
		o, err := h.Exec(steps[2].Args, nil, 0)
		if err != nil || o.Code != 5 {
			b.Fatalf("%v %s", err, o)
		}
		took = append(took, o.Elapsed)
	}
	slices.Sort(took)
	b.ReportMetric(float64(took[len(took)/2].Microseconds())/1000, "ms-median")
	b.ReportMetric(float64(took[len(took)-1].Microseconds())/1000, "ms-max")
}
