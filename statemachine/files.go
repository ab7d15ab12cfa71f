package statemachine

import (
	"errors"
	"fmt"
	"io/fs"
	"sort"
	"strconv"
	"strings"

	"github.com/moot-dev/moot/internal/frontmatter"
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

// RequireKeys returns an error when front, the frontmatter of the state
// file of a debate that names protocol, lacks any of keys, the fields
// every debate of protocol has: the files are then another protocol's, or
// were cut, and reading them as protocol's would only name a field's
// zero value.
func RequireKeys(front frontmatter.Object, protocol string, keys ...string) error {
	var missing []string
	for _, k := range keys {
		if _, ok := front.Get(k); !ok {
			missing = append(missing, strconv.Quote(k))
		}
	}
	if len(missing) == 0 {
		return nil
	}
	word := "field"
	if len(missing) > 1 {
		word = "fields"
	}
	return fmt.Errorf("%s names protocol %q but lacks its %s %s: the files are not a %[2]s debate's",
		StateFile, protocol, word, strings.Join(missing, ", "))
}
