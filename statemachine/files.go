package statemachine

import (
	"encoding/json"
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

// TimeLayout is the layout of the times the protocols write in their
// files: UTC, to the second.
const TimeLayout = "2006-01-02T15:04:05Z"

// ParseState reads data, a state file of a debate of protocol, into v,
// returning its frontmatter and body. A frontmatter that lacks any of
// keys is RequireKeys's error, said before any error of decoding, since
// the files are then another protocol's; other errors name the file.
func ParseState(data []byte, v any, protocol string, keys ...string) (frontmatter.Object, string, error) {
	front, body, err := frontmatter.ParseInto(data, v)
	if len(front.Fields) > 0 {
		if kerr := RequireKeys(front, protocol, keys...); kerr != nil {
			return front, body, kerr
		}
	}
	if err != nil {
		return front, body, fmt.Errorf("read %s: %w", StateFile, err)
	}
	return front, body, nil
}

// FrontOf returns v's JSON encoding as a frontmatter object, its keys in
// the order v encodes them.
func FrontOf(v any) (frontmatter.Object, error) {
	raw, err := json.Marshal(v)
	if err != nil {
		return frontmatter.Object{}, err
	}
	var front frontmatter.Object
	if err := json.Unmarshal(raw, &front); err != nil {
		return frontmatter.Object{}, err
	}
	return front, nil
}

// RenderFile writes v's JSON encoding as the frontmatter of a file whose
// body is body (see frontmatter.Render).
func RenderFile(v any, body string) ([]byte, error) {
	front, err := FrontOf(v)
	if err != nil {
		return nil, err
	}
	return frontmatter.Render(front, body)
}
