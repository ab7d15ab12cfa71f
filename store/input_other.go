//go:build !unix

package store

// nonBlock is 0 where a file cannot be opened without waiting.
const nonBlock = 0
