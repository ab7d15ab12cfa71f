//go:build !unix

package store

import "io/fs"

// identity is empty where the file system gives no inode numbers.
func identity(fs.FileInfo) string { return "" }
