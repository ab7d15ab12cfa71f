//go:build !unix

package store

import "os"

// open opens name, one element of a path, in the folder for reading,
// through its Root.
func (fo *folder) open(name string) (*os.File, error) { return fo.root.Open(name) }
