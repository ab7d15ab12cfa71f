package store

import (
	"fmt"
	"os"
)

// ReadInput reads the file at path, a file outside any debate that a
// command was given by name (such as a protocol's --cast FILE). It refuses
// what is not a regular file, and a file larger than limit bytes with a
// *SizeError, checked before reading and again after, for a file that
// grew meanwhile.
func ReadInput(path string, limit int64) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !info.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file", path)
	}
	b := &budget{limit: limit}
	data, err := readLimited(f, path, b)
	if se, ok := err.(*SizeError); ok {
		return nil, &SizeError{Name: se.Name, Limit: limit, Input: true}
	}
	return data, err
}
