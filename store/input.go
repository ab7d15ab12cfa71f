package store

import (
	"errors"
	"fmt"
	"os"
)

// ErrNotRegular is the error of a file given by name that is not a
// regular file: a folder, a named pipe, a device or a socket.
var ErrNotRegular = errors.New("not a regular file")

// ReadInput reads the file at path, a file outside any debate that a
// command was given by name (such as a protocol's --cast FILE). It refuses
// what is not a regular file (ErrNotRegular) before it opens it, so that
// a named pipe never makes it wait for a writer, and a file larger than
// limit bytes with a *SizeError, checked before reading and again after,
// for a file that grew meanwhile.
func ReadInput(path string, limit int64) ([]byte, error) {
	info, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if !info.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is %w", path, ErrNotRegular)
	}
	// Opened without blocking, in case a named pipe took the file's place
	// since: its open then returns at once, and the check below refuses it.
	f, err := os.OpenFile(path, os.O_RDONLY|nonBlock, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if info, err = f.Stat(); err != nil {
		return nil, err
	}
	if !info.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is %w", path, ErrNotRegular)
	}
	b := &budget{limit: limit}
	data, err := readLimited(f, path, b)
	if se, ok := err.(*SizeError); ok {
		return nil, &SizeError{Name: se.Name, Limit: limit, Input: true}
	}
	return data, err
}
