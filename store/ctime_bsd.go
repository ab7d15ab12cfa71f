//go:build darwin || freebsd || netbsd

package store

import (
	"io/fs"
	"strconv"
	"syscall"
)

// changeIdentity names the file info describes and its last change: its
// inode number and its change time, which every write sets and no
// program can set back (a write that keeps the size and sets the
// modification time back, as cp -p does, still changes it).
func changeIdentity(info fs.FileInfo) string {
	if st, ok := info.Sys().(*syscall.Stat_t); ok {
		return strconv.FormatUint(uint64(st.Ino), 10) + " " + strconv.FormatInt(int64(st.Ctimespec.Sec), 10) + "." + strconv.FormatInt(int64(st.Ctimespec.Nsec), 10)
	}
	return ""
}
