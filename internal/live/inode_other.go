//go:build !unix

package live

import "io/fs"

func inode(fs.FileInfo) string { return "" }
