package store

import (
	"crypto/sha256"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"
)

// Debates lists, in order, the folders directly in root that hold a
// regular file named marker (a debate's state file): not links, and not
// hidden folders (a name starting with a dot). A root that does not exist
// holds none.
func Debates(root, marker string) ([]string, error) {
	entries, err := os.ReadDir(root)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, nil
		}
		return nil, fmt.Errorf("read %s: %w", root, err)
	}
	var out []string
	for _, e := range entries {
		if !e.IsDir() || strings.HasPrefix(e.Name(), ".") {
			continue
		}
		if info, err := os.Lstat(filepath.Join(root, e.Name(), marker)); err == nil && info.Mode().IsRegular() {
			out = append(out, e.Name())
		}
	}
	sort.Strings(out)
	return out, nil
}

// Holds reports whether name is one of the folders Debates(root, marker)
// lists, at two lstats, without listing root: a folder directly in root,
// not a link and not hidden, that holds a regular file named marker.
func Holds(root, name, marker string) bool {
	if name == "" || strings.HasPrefix(name, ".") || strings.ContainsAny(name, `/\`) {
		return false
	}
	dir := filepath.Join(root, name)
	if info, err := os.Lstat(dir); err != nil || !info.IsDir() {
		return false
	}
	info, err := os.Lstat(filepath.Join(dir, marker))
	return err == nil && info.Mode().IsRegular()
}

// Absent reports whether the debate at dir holds no file or folder name
// (slash-separated), at one lstat: false when it holds one or when the
// file system cannot tell.
func Absent(dir, name string) bool {
	_, err := os.Lstat(filepath.Join(dir, filepath.FromSlash(name)))
	return errors.Is(err, fs.ErrNotExist)
}

// Signature sums what can be told of the files names (slash-separated,
// inside the debate at dir) without opening, reading or locking the
// debate: whether each is there, its size, time and identity. A watcher
// compares signatures to learn that a writer changed something; two equal
// signatures mean that, as far as the file system tells, nothing did.
func Signature(dir string, names ...string) [32]byte {
	h := sha256.New()
	for _, name := range names {
		info, err := os.Lstat(filepath.Join(dir, filepath.FromSlash(name)))
		if err != nil {
			h.Write([]byte(name + " none\n"))
			continue
		}
		h.Write([]byte(name + " " + info.ModTime().UTC().Format(time.RFC3339Nano) + " " + strconv.FormatInt(info.Size(), 10) + " " + identity(info) + "\n"))
	}
	var out [32]byte
	copy(out[:], h.Sum(nil))
	return out
}
