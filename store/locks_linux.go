//go:build linux

package store

import (
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

// procLocks is the kernel's list of the file locks held; tests point it
// elsewhere to see the fallback.
var procLocks = "/proc/locks"

// lockHeld reports whether some process holds a lock on f, the open lock
// file, as procLocks lists them, without taking the lock. known is false
// when that cannot be told (procLocks unreadable), and the caller falls
// back to asking whether the pid named in the file is alive.
func lockHeld(f *os.File) (held, known bool) {
	info, err := f.Stat()
	if err != nil {
		return false, false
	}
	st, ok := info.Sys().(*syscall.Stat_t)
	if !ok {
		return false, false
	}
	data, err := os.ReadFile(procLocks)
	if err != nil {
		return false, false
	}
	dev := uint64(st.Dev)
	return locksHold(data, unix.Major(dev), unix.Minor(dev), uint64(st.Ino)), true
}
