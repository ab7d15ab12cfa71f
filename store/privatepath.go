package store

import "path/filepath"

// PrivatePath returns the path on disk of the private file name (a path
// under .moot/), for a program that edits it in place, such as the editor
// a person fills a form in (moot run --human). Read and write the file
// with ReadPrivate and WritePrivate.
func (d *Dir) PrivatePath(name string) (string, error) {
	full, err := privateName(name)
	if err != nil {
		return "", err
	}
	return filepath.Join(d.path, filepath.FromSlash(full)), nil
}
