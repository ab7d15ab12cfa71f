//go:build unix

package store

import "syscall"

// nonBlock opens a file without waiting: for a named pipe, without
// waiting for a writer.
const nonBlock = syscall.O_NONBLOCK
