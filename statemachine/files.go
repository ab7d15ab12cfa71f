package statemachine

import (
	"errors"
	"fmt"
	"io/fs"
	"sort"
)

// FileNames returns the names of the regular files directly in dir,
// sorted. Folders in dir are left out, and a dir that does not exist lists
// no names and no error, as a debate starts without most of its folders.
func FileNames(files fs.FS, dir string) ([]string, error) {
	entries, err := fs.ReadDir(files, dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", dir, err)
	}
	var names []string
	for _, e := range entries {
		if !e.IsDir() {
			names = append(names, e.Name())
		}
	}
	sort.Strings(names)
	return names, nil
}
