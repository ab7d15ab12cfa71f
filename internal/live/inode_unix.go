//go:build unix

package live

import (
	"io/fs"
	"strconv"
	"syscall"
)

// inode names the file info describes, so that a file replaced by one of
// the same size within the clock's resolution still reads as changed.
func inode(info fs.FileInfo) string {
	if st, ok := info.Sys().(*syscall.Stat_t); ok {
		return strconv.FormatUint(uint64(st.Ino), 10)
	}
	return ""
}
