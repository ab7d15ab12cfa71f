package store

import (
	"io/fs"
	"strconv"
	"syscall"
)

// changeIdentity names the file info describes and its last change: its
// inode number and its change time (ctime), which every write sets and no
// program can set back.
func changeIdentity(info fs.FileInfo) string {
	if st, ok := info.Sys().(*syscall.Stat_t); ok {
		return strconv.FormatUint(st.Ino, 10) + " " + strconv.FormatInt(st.Ctim.Sec, 10) + "." + strconv.FormatInt(st.Ctim.Nsec, 10)
	}
	return ""
}
