//go:build linux

package store

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// TestWriterWithoutProcLocks checks the fallback where the kernel's list
// of locks cannot be read: the holder named in the lock file is reported
// if a process with its pid exists.
func TestWriterWithoutProcLocks(t *testing.T) {
	was := procLocks
	procLocks = filepath.Join(t.TempDir(), "missing")
	t.Cleanup(func() { procLocks = was })
	dir, d := newDebate(t)
	d.Close()
	writeLockFile(t, dir, fmt.Sprintf(`{"pid": %d, "command": "moot run demo"}`, os.Getpid()))
	if h := open(t, dir).Writer(); h == nil || h.PID != os.Getpid() {
		t.Fatalf("Writer() = %+v, want this process, which is alive", h)
	}
	writeLockFile(t, dir, fmt.Sprintf(`{"pid": %d, "command": "moot run demo"}`, deadPID(t)))
	if h := open(t, dir).Writer(); h != nil {
		t.Fatalf("Writer() = %+v, want none: the pid named is dead", h)
	}
}
