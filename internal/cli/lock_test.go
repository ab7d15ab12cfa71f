package cli

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/moot-dev/moot/store"
)

// holdLock takes the write lock of the debate at dir from this process,
// as a running `moot run demo` would, and returns the function that lets
// it go (closing the directory).
func holdLock(t *testing.T, dir string) func() error {
	t.Helper()
	d, err := store.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	if err := d.Lock(context.Background(), "moot run demo", false); err != nil {
		t.Fatal(err)
	}
	return d.Close
}

// TestStatusNamesTheWriter runs status while another process holds the
// lock: it says who writes the debate, in text and JSON, and says nothing
// once the lock is let go, or when the lock file names a process that
// does not hold the lock, dead or alive.
func TestStatusNamesTheWriter(t *testing.T) {
	root := stage(t, argued)
	dir := filepath.Join(root, "demo")
	unlock := holdLock(t, dir)
	want := fmt.Sprintf("writer    being written by moot run demo (pid %d) since ", os.Getpid())
	if r := moot(t, "--dir", root, "status", "demo"); r.code != 0 || !strings.Contains(r.stdout, want) {
		t.Fatalf("status while locked: exit %d\n%s%s\nwant a line %q", r.code, r.stdout, r.stderr, want)
	}
	r := moot(t, "--dir", root, "status", "demo", "--json")
	if wantJSON := fmt.Sprintf(`"pid": %d`, os.Getpid()); r.code != 0 || !strings.Contains(r.stdout, `"writer": {`) || !strings.Contains(r.stdout, wantJSON) {
		t.Fatalf("status --json while locked: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if err := unlock(); err != nil {
		t.Fatal(err)
	}
	if r := moot(t, "--dir", root, "status", "demo"); r.code != 0 || strings.Contains(r.stdout, "writer") {
		t.Fatalf("status once let go: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	dead := exec.Command("true")
	if err := dead.Run(); err != nil {
		t.Skipf("cannot run a process that ends: %v", err)
	}
	stale := fmt.Sprintf(`{"pid": %d, "command": "moot run demo", "started_at": "2026-01-01T00:00:00Z"}`, dead.Process.Pid)
	os.WriteFile(filepath.Join(dir, ".moot", "lock"), []byte(stale), 0o644)
	if r := moot(t, "--dir", root, "status", "demo"); r.code != 0 || strings.Contains(r.stdout, "writer") {
		t.Fatalf("status with a dead holder named: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	// A lock file left by a killed writer whose pid now belongs to another
	// process (pid 1 always exists) names nobody: nobody holds the lock.
	reused := `{"pid": 1, "command": "moot run demo", "started_at": "2026-01-01T00:00:00Z"}`
	os.WriteFile(filepath.Join(dir, ".moot", "lock"), []byte(reused), 0o644)
	if r := moot(t, "--dir", root, "status", "demo"); r.code != 0 || strings.Contains(r.stdout, "writer") {
		t.Fatalf("status with a reused pid named: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
}

// signalWriter collects what is written and closes seen the first time
// the text holds want.
type signalWriter struct {
	mu   sync.Mutex
	buf  bytes.Buffer
	want string
	seen chan struct{}
	once sync.Once
}

func (w *signalWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.buf.Write(p)
	if strings.Contains(w.buf.String(), w.want) {
		w.once.Do(func() { close(w.seen) })
	}
	return len(p), nil
}

func (w *signalWriter) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.buf.String()
}

// TestWaitSaysWhoItWaitsFor runs process-judge --wait while another
// process holds the lock: it prints one line on stderr naming the holder,
// and once the holder lets go it takes the step.
func TestWaitSaysWhoItWaitsFor(t *testing.T) {
	root := stage(t, argued)
	dir := filepath.Join(root, "demo")
	unlock := holdLock(t, dir)
	e := env{root: root, dir: dir, answers: t.TempDir()}
	stderr := &signalWriter{want: "waiting", seen: make(chan struct{})}
	var stdout bytes.Buffer
	done := make(chan int)
	go func() {
		done <- Run(context.Background(), append([]string{"moot", "--dir", root}, append(judge0(e, t), "--wait")...), IO{
			Stdin: strings.NewReader(""), Stdout: &stdout, Stderr: stderr,
			Now: time.Now, Getenv: func(string) string { return "" }, Protocols: withDialectic(),
		})
	}()
	select {
	case <-stderr.seen:
	case code := <-done:
		t.Fatalf("process-judge --wait ended (exit %d) while the lock was held: %s", code, stderr)
	case <-time.After(time.Minute):
		t.Fatalf("process-judge --wait said nothing while it waited: %q", stderr)
	}
	if err := unlock(); err != nil {
		t.Fatal(err)
	}
	if code := <-done; code != 0 {
		t.Fatalf("process-judge --wait: exit %d\n%s", code, stderr)
	}
	lines := strings.Split(strings.TrimSpace(stderr.String()), "\n")
	want := fmt.Sprintf("moot: note: %s is being written by moot run demo (pid %d) since ", dir, os.Getpid())
	if len(lines) != 1 || !strings.HasPrefix(lines[0], want) || !strings.HasSuffix(lines[0], "; waiting for it to finish") {
		t.Fatalf("stderr:\n%s\nwant one line starting %q", stderr, want)
	}
}
