//go:build unix

package store

import (
	"errors"
	"io/fs"
	"syscall"
)

// noFollow makes opening the lock file fail if it is a symbolic link.
const noFollow = syscall.O_NOFOLLOW

// alive reports whether a process with pid exists.
func alive(pid int) bool {
	if pid <= 0 {
		return false
	}
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}

// links returns how many hard links the file of info has.
func links(info fs.FileInfo) uint64 {
	if st, ok := info.Sys().(*syscall.Stat_t); ok {
		return uint64(st.Nlink)
	}
	return 1
}
