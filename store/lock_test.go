package store

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gofrs/flock"
)

// newDebate makes a debate directory holding debate.md and opens it.
func newDebate(t *testing.T) (string, *Dir) {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "demo")
	d, err := Create(dir, []string{"arguments"}, []File{{Name: "debate.md", Data: []byte("v0\n")}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	return dir, d
}

func open(t *testing.T, dir string) *Dir {
	t.Helper()
	d, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	return d
}

func TestSecondWriterIsRefusedNamingTheHolder(t *testing.T) {
	dir, first := newDebate(t)
	err := first.Lock(context.Background(), "moot process-judge demo", false)
	if err != nil {
		t.Fatal(err)
	}
	second := open(t, dir)
	err = second.Lock(context.Background(), "moot process-exchange demo 1", false)
	var busy *BusyError
	if !errors.As(err, &busy) {
		t.Fatalf("second Lock: got %v, want a *BusyError", err)
	}
	if busy.Holder == nil || busy.Holder.PID != os.Getpid() || busy.Holder.Command != "moot process-judge demo" {
		t.Fatalf("holder = %+v, want pid %d and the first command", busy.Holder, os.Getpid())
	}
	for _, want := range []string{strconv.Itoa(os.Getpid()), "moot process-judge demo", dir} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("message %q does not name %q", err, want)
		}
	}
	if second.Locked() {
		t.Fatal("a refused writer reports holding the lock")
	}
	if err := first.unlock(); err != nil {
		t.Fatal(err)
	}
	if err := second.Lock(context.Background(), "moot process-exchange demo 1", false); err != nil {
		t.Fatalf("Lock after the holder unlocked: %v", err)
	}
}

func TestWaitingWriterGetsTheLockWhenItIsFreed(t *testing.T) {
	dir, first := newDebate(t)
	err := first.Lock(context.Background(), "moot first", false)
	if err != nil {
		t.Fatal(err)
	}
	second := open(t, dir)
	waiting := make(chan *Holder, 1)
	second.OnWait(func(h *Holder) { waiting <- h })
	got := make(chan error, 1)
	go func() {
		err := second.Lock(context.Background(), "moot second", true)
		got <- err
	}()
	// The second writer's first attempt must be refused: it says so by
	// starting to wait, which is what this test waits for.
	select {
	case err := <-got:
		t.Fatalf("the waiting writer returned while the lock was held: %v", err)
	case h := <-waiting:
		if h == nil || h.Command != "moot first" {
			t.Fatalf("the waiting writer saw holder %+v, want the first writer", h)
		}
	case <-time.After(time.Minute):
		t.Fatal("the second writer neither started waiting nor returned within a minute")
	}
	if err := first.unlock(); err != nil {
		t.Fatal(err)
	}
	if err := <-got; err != nil {
		t.Fatalf("waiting Lock: %v", err)
	}
	if h := second.readHolder(); h == nil || h.Command != "moot second" {
		t.Fatalf("the lock file names %+v, want the second writer", h)
	}
}

func TestWaitingWriterStopsWhenCanceled(t *testing.T) {
	dir, first := newDebate(t)
	if err := first.Lock(context.Background(), "moot first", false); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	err := open(t, dir).Lock(ctx, "moot second", true)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("got %v, want the context's error", err)
	}
}

// deadPID returns the pid of a process that has exited.
func deadPID(t *testing.T) int {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	return cmd.Process.Pid
}

func TestStaleLockFileBlocksNobody(t *testing.T) {
	dir, d := newDebate(t)
	if err := d.Mkdir(PrivateDir); err != nil {
		t.Fatal(err)
	}
	stale := fmt.Sprintf(`{"pid": %d, "command": "moot process-judge demo", "started_at": "2020-01-01T00:00:00Z"}`, deadPID(t))
	if err := os.WriteFile(filepath.Join(dir, ".moot", "lock"), []byte(stale), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := d.Lock(context.Background(), "moot new-holder", false); err != nil {
		t.Fatalf("Lock over a stale lock file: %v", err)
	}
	if h := d.readHolder(); h == nil || h.PID != os.Getpid() || h.Command != "moot new-holder" {
		t.Fatalf("lock file names %+v, want this process", h)
	}
}

func TestMain(m *testing.M) {
	if dir := os.Getenv("MOOT_TEST_HOLD_LOCK"); dir != "" {
		holdLock(dir)
		return
	}
	if dir := os.Getenv("MOOT_TEST_LOCK_ONCE"); dir != "" {
		lockOnce(dir)
		return
	}
	os.Exit(m.Run())
}

// holdLock runs in a child process of TestLockDiesWithItsProcess: it takes
// the lock of dir and waits to be killed.
func holdLock(dir string) {
	d, err := Open(dir)
	if err == nil {
		err = d.Lock(context.Background(), "moot helper", false)
	}
	if err != nil {
		fmt.Println(err)
		os.Exit(1)
	}
	fmt.Println("locked")
	time.Sleep(time.Minute)
	os.Exit(1)
}

func TestLockDiesWithItsProcess(t *testing.T) {
	dir, _ := newDebate(t)
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), "MOOT_TEST_HOLD_LOCK="+dir)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 64)
	n, _ := out.Read(buf)
	if !strings.Contains(string(buf[:n]), "locked") {
		cmd.Process.Kill()
		t.Fatalf("helper did not lock: %q", buf[:n])
	}
	d := open(t, dir)
	err = d.Lock(context.Background(), "moot me", false)
	var busy *BusyError
	if !errors.As(err, &busy) || busy.Holder == nil || busy.Holder.PID != cmd.Process.Pid {
		t.Fatalf("while the helper lives: got %v, want busy naming pid %d", err, cmd.Process.Pid)
	}
	if h := d.Writer(); h == nil || h.PID != cmd.Process.Pid {
		t.Fatalf("Writer() while the helper holds the lock = %+v, want pid %d", h, cmd.Process.Pid)
	}
	cmd.Process.Kill()
	cmd.Wait()
	if err := d.Lock(context.Background(), "moot me", false); err != nil {
		t.Fatalf("after the holder was killed: %v", err)
	}
}

func TestLockRefusesLinks(t *testing.T) {
	t.Run("lock file", func(t *testing.T) {
		dir, d := newDebate(t)
		outside := filepath.Join(t.TempDir(), "target")
		os.WriteFile(outside, []byte("keep"), 0o644)
		os.Remove(filepath.Join(dir, ".moot", "lock"))
		if err := os.Symlink(outside, filepath.Join(dir, ".moot", "lock")); err != nil {
			t.Fatal(err)
		}
		if err := d.Lock(context.Background(), "moot x", false); err == nil {
			t.Fatal("Lock went through a link")
		}
		if b, _ := os.ReadFile(outside); string(b) != "keep" {
			t.Fatalf("the file outside changed: %q", b)
		}
	})
	t.Run(".moot", func(t *testing.T) {
		dir, d := newDebate(t)
		outside := t.TempDir()
		os.RemoveAll(filepath.Join(dir, ".moot"))
		if err := os.Symlink(outside, filepath.Join(dir, ".moot")); err != nil {
			t.Fatal(err)
		}
		if err := d.Lock(context.Background(), "moot x", false); err == nil {
			t.Fatal("Lock went through a linked .moot")
		}
		if entries, _ := os.ReadDir(outside); len(entries) != 0 {
			t.Fatalf("files appeared outside: %v", entries)
		}
	})
}

// TestOnlyMootsTemporaryFilesAreRemoved leaves the user's own ".tmp-"
// files alone, through a refused step (the lock taken, nothing committed)
// and an accepted one; what a killed writer left in TempDir is removed by
// the accepted step only.
func TestOnlyMootsTemporaryFilesAreRemoved(t *testing.T) {
	dir, d := newDebate(t)
	users := []string{".tmp-x", "arguments/.tmp-notes", ".tmp-new-notes"}
	leftover := TempDir + "/.tmp-debate.md-0123456789ab"
	for _, n := range append([]string{leftover}, users...) {
		p := filepath.Join(dir, filepath.FromSlash(n))
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte("mine"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	exists := func(n string) bool {
		_, err := os.Lstat(filepath.Join(dir, filepath.FromSlash(n)))
		return err == nil
	}

	// A refused step: locked, then let go without a commit.
	before := tree(t, dir)
	err := d.Lock(context.Background(), "moot refused", false)
	if err != nil {
		t.Fatal(err)
	}
	if err := d.unlock(); err != nil {
		t.Fatal(err)
	}
	if diff := diffTrees(before, tree(t, dir)); len(diff) > 0 {
		t.Fatalf("a refused step changed the debate: %v", diff)
	}

	// An accepted step.
	lock(t, d)
	if err := d.Commit([]File{{Name: "arguments/a.md", Data: []byte("a\n")}, {Name: "debate.md", Data: []byte("v1\n")}}); err != nil {
		t.Fatal(err)
	}
	for _, n := range users {
		if !exists(n) {
			t.Errorf("the user's %s was removed", n)
		}
	}
	if exists(leftover) {
		t.Errorf("the killed writer's %s was left", leftover)
	}
}

func BenchmarkSecondWriterRefused(b *testing.B) {
	dir := filepath.Join(b.TempDir(), "demo")
	first, err := Create(dir, nil, []File{{Name: "debate.md", Data: []byte("x\n")}})
	if err != nil {
		b.Fatal(err)
	}
	defer first.Close()
	if err := first.Lock(context.Background(), "moot holder", false); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		d, err := Open(dir)
		if err != nil {
			b.Fatal(err)
		}
		var busy *BusyError
		if err := d.Lock(context.Background(), "moot second", false); !errors.As(err, &busy) {
			b.Fatalf("got %v, want busy", err)
		}
		d.Close()
	}
}

// TestWriterIsWhoeverHoldsTheLock asks Writer, as status does, who writes
// the debate: the holder named in the lock file is reported only while a
// lock is held on the file, so that a file left by a killed writer, whose
// pid now belongs to another process, names nobody.
func TestWriterIsWhoeverHoldsTheLock(t *testing.T) {
	named := func(pid int) string {
		return fmt.Sprintf(`{"pid": %d, "command": "moot run demo", "started_at": "2020-01-01T00:00:00Z"}`+"\n", pid)
	}
	tests := []struct {
		name string
		// hold takes the lock, or not, and returns the pid the lock file
		// should then name as the writer, 0 for none.
		hold func(t *testing.T, dir string) int
	}{
		{"file left naming pid 1, no lock held", func(t *testing.T, dir string) int {
			writeLockFile(t, dir, named(1))
			return 0
		}},
		{"file left naming this process, no lock held", func(t *testing.T, dir string) int {
			writeLockFile(t, dir, named(os.Getpid()))
			return 0
		}},
		{"lock held by another Dir", func(t *testing.T, dir string) int {
			if err := open(t, dir).Lock(context.Background(), "moot run demo", false); err != nil {
				t.Fatal(err)
			}
			return os.Getpid()
		}},
		{"lock held on the file, which names pid 1", func(t *testing.T, dir string) int {
			writeLockFile(t, dir, named(1))
			fl := flock.New(filepath.Join(dir, ".moot", "lock"))
			if ok, err := fl.TryLock(); !ok || err != nil {
				t.Fatalf("flock: %v, %v", ok, err)
			}
			t.Cleanup(func() { fl.Close() })
			return 1
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir, d := newDebate(t)
			d.Close()
			want := tc.hold(t, dir)
			got := open(t, dir).Writer()
			switch {
			case want == 0 && got != nil:
				t.Fatalf("Writer() = %+v, want none: nobody holds the lock", got)
			case want != 0 && (got == nil || got.PID != want || got.Command != "moot run demo"):
				t.Fatalf("Writer() = %+v, want pid %d running moot run demo", got, want)
			}
		})
	}
}

func writeLockFile(t *testing.T, dir, content string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, ".moot", "lock"), []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestLocksHold reads lines as /proc/locks prints them: the device's major
// and minor numbers in hexadecimal, the inode in decimal, and the waiters
// marked "->", which hold nothing.
func TestLocksHold(t *testing.T) {
	const ino = 9977981
	tests := []struct {
		name         string
		data         string
		major, minor uint32
		want         bool
	}{
		{"flock held", "1: FLOCK  ADVISORY  WRITE 9294 fe:00:9977981 0 EOF\n", 0xfe, 0, true},
		{"posix lock held", "3: POSIX  ADVISORY  WRITE 12 08:01:9977981 0 EOF\n", 8, 1, true},
		{"ofd lock held", "3: OFDLCK ADVISORY  WRITE -1 08:01:9977981 0 EOF\n", 8, 1, true},
		{"major in hexadecimal", "1: FLOCK  ADVISORY  WRITE 9294 103:0a:9977981 0 EOF\n", 259, 10, true},
		{"major read as decimal would match", "1: FLOCK  ADVISORY  WRITE 9294 103:0a:9977981 0 EOF\n", 103, 10, false},
		{"other inode", "1: FLOCK  ADVISORY  WRITE 9294 fe:00:9977982 0 EOF\n", 0xfe, 0, false},
		{"same inode on another device", "1: FLOCK  ADVISORY  WRITE 9294 fe:01:9977981 0 EOF\n", 0xfe, 0, false},
		{"only a waiter", "1: FLOCK  ADVISORY  WRITE 9294 fe:00:1 0 EOF\n1: -> FLOCK  ADVISORY  WRITE 9295 fe:00:9977981 0 EOF\n", 0xfe, 0, false},
		{"a lease", "2: LEASE  ACTIVE    READ 77 fe:00:9977981 0 EOF\n", 0xfe, 0, false},
		{"held among others", "1: POSIX  ADVISORY  READ 5 00:1a:4 0 EOF\n2: FLOCK  ADVISORY  WRITE 9294 fe:00:9977981 0 EOF\n", 0xfe, 0, true},
		{"no locks", "", 0xfe, 0, false},
		{"unknown inode", "1: FLOCK  ADVISORY  WRITE 9294 <none>:0 0 EOF\n", 0xfe, 0, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := locksHold([]byte(tc.data), tc.major, tc.minor, ino); got != tc.want {
				t.Fatalf("locksHold = %v, want %v", got, tc.want)
			}
		})
	}
}
