// This file keeps in memory what a load of the debate read, so that the
// debate a step's commit will leave can be read again, for planning, with
// the commit's files in place and without touching the disk (see onward).

package driver

import (
	"bytes"
	"errors"
	"io/fs"
	"maps"
	"path"
	"slices"
	"sort"
	"sync"

	"github.com/moot-dev/moot/store"
)

// errUnread is what a memFS answers for a file or folder the load it
// records did not read: what it holds on disk is not known, and the
// debate it would be part of is not foreseen.
var errUnread = errors.New("not read by the last load")

// recorder is a debate's files, as debateFS shows them, that notes what
// each read gave for a memFS.
type recorder struct {
	base debateFS
	mu   sync.Mutex
	mem  *memFS
}

// start begins a new record.
func (r *recorder) start() {
	r.mu.Lock()
	r.mem = newMemFS()
	r.mu.Unlock()
}

// snapshot returns what the reads since start gave.
func (r *recorder) snapshot() *memFS {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.mem
}

func (r *recorder) Open(name string) (fs.File, error) {
	if name == "." || !fs.ValidPath(name) {
		return r.base.Open(name)
	}
	data, err := r.ReadFile(name)
	if err != nil {
		return nil, err
	}
	return newMemFile(name, data), nil
}

func (r *recorder) ReadFile(name string) ([]byte, error) {
	data, err := r.base.ReadFile(name)
	r.mu.Lock()
	defer r.mu.Unlock()
	if err == nil {
		r.mem.files[name] = data
	} else {
		r.mem.errs[name] = err
	}
	return data, err
}

func (r *recorder) ReadDir(dir string) ([]fs.DirEntry, error) {
	entries, err := r.base.ReadDir(dir)
	r.mu.Lock()
	defer r.mu.Unlock()
	switch {
	case err == nil:
		l := &listing{}
		for _, e := range entries {
			l.names = append(l.names, e.Name())
		}
		r.mem.lists[dir] = l
	case errors.Is(err, fs.ErrNotExist):
		r.mem.lists[dir] = &listing{absent: true}
	default:
		r.mem.errs[dir+"/"] = err
	}
	return entries, err
}

func (r *recorder) Folders(dir string) ([]string, error) {
	names, err := r.base.Folders(dir)
	r.mu.Lock()
	defer r.mu.Unlock()
	if err == nil {
		r.mem.folders[dir] = slices.Clone(names)
	} else {
		r.mem.errs[dir+"//"] = err
	}
	return names, err
}

// memFS is a debate's files as a load read them, with the files of the
// commits made since in place: an fs.FS that answers as debateFS would
// once those commits are written, for what the load read, and errUnread
// for anything else.
type memFS struct {
	files map[string][]byte
	// errs holds what a read failed with, by file; by folder with a "/"
	// after it for ReadDir, "//" for Folders.
	errs    map[string]error
	lists   map[string]*listing
	folders map[string][]string
}

// listing is what ReadDir gave for a folder: the names in it, or that it
// did not exist.
type listing struct {
	names  []string
	absent bool
}

func newMemFS() *memFS {
	return &memFS{files: map[string][]byte{}, errs: map[string]error{}, lists: map[string]*listing{}, folders: map[string][]string{}}
}

// with returns m with files written over it, as a commit writes them; m
// is left as it was.
func (m *memFS) with(files []store.File) *memFS {
	out := &memFS{files: maps.Clone(m.files), errs: maps.Clone(m.errs), lists: map[string]*listing{}, folders: map[string][]string{}}
	for k, l := range m.lists {
		out.lists[k] = &listing{names: slices.Clone(l.names), absent: l.absent}
	}
	for k, v := range m.folders {
		out.folders[k] = slices.Clone(v)
	}
	for _, f := range files {
		out.files[f.Name] = f.Data
		delete(out.errs, f.Name)
		// Each folder on the way now holds the next part of the name:
		// the file, or a folder.
		child := f.Name
		for dir := path.Dir(f.Name); ; dir = path.Dir(dir) {
			base := path.Base(child)
			if l, ok := out.lists[dir]; ok {
				l.absent = false
				if !slices.Contains(l.names, base) {
					l.names = append(l.names, base)
					sort.Strings(l.names)
				}
			}
			if child != f.Name {
				if names, ok := out.folders[dir]; ok && !slices.Contains(names, base) {
					names = append(names, base)
					sort.Strings(names)
					out.folders[dir] = names
				}
			}
			if dir == "." {
				break
			}
			child = dir
		}
	}
	return out
}

func (m *memFS) Open(name string) (fs.File, error) {
	if name == "." || !fs.ValidPath(name) {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrInvalid}
	}
	data, err := m.ReadFile(name)
	if err != nil {
		return nil, err
	}
	return newMemFile(name, data), nil
}

func (m *memFS) ReadFile(name string) ([]byte, error) {
	if data, ok := m.files[name]; ok {
		return data, nil
	}
	if err, ok := m.errs[name]; ok {
		return nil, err
	}
	return nil, &fs.PathError{Op: "read", Path: name, Err: errUnread}
}

func (m *memFS) ReadDir(dir string) ([]fs.DirEntry, error) {
	l, ok := m.lists[dir]
	if !ok {
		if err, ok := m.errs[dir+"/"]; ok {
			return nil, err
		}
		return nil, &fs.PathError{Op: "readdir", Path: dir, Err: errUnread}
	}
	if l.absent {
		return nil, &fs.PathError{Op: "readdir", Path: dir, Err: fs.ErrNotExist}
	}
	out := make([]fs.DirEntry, len(l.names))
	for i, n := range l.names {
		out[i] = fileEntry(n)
	}
	return out, nil
}

func (m *memFS) Folders(dir string) ([]string, error) {
	names, ok := m.folders[dir]
	if !ok {
		if err, ok := m.errs[dir+"//"]; ok {
			return nil, err
		}
		return nil, &fs.PathError{Op: "folders", Path: dir, Err: errUnread}
	}
	return slices.Clone(names), nil
}

func newMemFile(name string, data []byte) *memFile {
	return &memFile{name: path.Base(name), r: bytes.NewReader(data), size: int64(len(data))}
}
