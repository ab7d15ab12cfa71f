package store

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
)

// Private files live under .moot/ in the debate directory: failed answers,
// answers already paid for, the usage log. They are never needed to read a
// debate and are not part of a step's commit.

func privateName(name string) (string, error) {
	full := path.Join(PrivateDir, name)
	if err := checkName(full); err != nil || path.Dir(full) == "." || !isUnder(full, PrivateDir) {
		return "", fmt.Errorf("%q is not a private file name", name)
	}
	return full, nil
}

func isUnder(name, dir string) bool {
	return len(name) > len(dir) && name[:len(dir)+1] == dir+"/"
}

// WritePrivate replaces the private file name (a path under .moot/)
// atomically.
func (d *Dir) WritePrivate(name string, data []byte) error {
	d.privMu.RLock()
	defer d.privMu.RUnlock()
	full, err := privateName(name)
	if err != nil {
		return err
	}
	if err := d.mkdirs(path.Dir(full)); err != nil {
		return err
	}
	return d.writeAtomic(full, data)
}

// PrivateWrite is one write of WritePrivates: the private file Name
// replaced by Data, or Data appended to it when Append is set.
type PrivateWrite struct {
	Name   string
	Data   []byte
	Append bool
}

// WritePrivates makes the writes ws, in order, as WritePrivate and
// AppendPrivate make each: a write is in place, and its folder synced,
// before a write to another folder or an append is made, so that a
// reader, or a process killed on the way, finds the first writes without
// the last and never the other way round. The files it replaces are
// written and synced first, all at once, so that their syncs overlap;
// each folder is synced once after the files renamed into it one after
// another. It returns how many writes were made: all of them, or those
// before the one that failed, with its error.
func (d *Dir) WritePrivates(ws []PrivateWrite) (int, error) {
	d.privMu.RLock()
	defer d.privMu.RUnlock()
	fulls := make([]string, len(ws))
	var staged []File
	for i, w := range ws {
		full, err := privateName(w.Name)
		if err != nil {
			return 0, err
		}
		if err := d.mkdirs(path.Dir(full)); err != nil {
			return 0, err
		}
		fulls[i] = full
		if !w.Append {
			staged = append(staged, File{Name: full, Data: w.Data})
		}
	}
	tmps, err := d.stage(staged)
	if err != nil {
		return 0, err
	}
	var unsynced []string
	sync := func() error {
		for _, dir := range unsynced {
			if err := d.syncDir(dir); err != nil {
				return err
			}
		}
		unsynced = nil
		return nil
	}
	next := 0
	for i, w := range ws {
		dir := path.Dir(fulls[i])
		if w.Append || (len(unsynced) > 0 && !slices.Contains(unsynced, dir)) {
			if err := sync(); err != nil {
				d.unstage(tmps[next:])
				return i, err
			}
		}
		if w.Append {
			if err := d.appendPrivate(fulls[i], w.Data); err != nil {
				d.unstage(tmps[next:])
				return i, err
			}
			continue
		}
		err := d.rename(tmps[next], fulls[i])
		next++
		if err != nil {
			d.unstage(tmps[next-1:])
			return i, err
		}
		if !slices.Contains(unsynced, dir) {
			unsynced = append(unsynced, dir)
		}
	}
	if err := sync(); err != nil {
		return len(ws) - 1, err
	}
	return len(ws), nil
}

// AppendPrivate appends data to the private file name and syncs it. It
// refuses a file with other hard links (see LinkedError).
func (d *Dir) AppendPrivate(name string, data []byte) error {
	d.privMu.RLock()
	defer d.privMu.RUnlock()
	full, err := privateName(name)
	if err != nil {
		return err
	}
	if err := d.mkdirs(path.Dir(full)); err != nil {
		return err
	}
	return d.appendPrivate(full, data)
}

// appendPrivate is AppendPrivate, of full, the file's path in the
// debate, whose folder exists.
func (d *Dir) appendPrivate(full string, data []byte) error {
	if info, err := d.root.Lstat(full); err == nil && !info.Mode().IsRegular() {
		return &NotRegularError{Name: full}
	}
	f, err := d.root.OpenFile(full, os.O_WRONLY|os.O_CREATE|os.O_APPEND|noFollow, 0o644)
	if err != nil {
		return err
	}
	if err := checkLinks(f, full); err != nil {
		f.Close()
		return err
	}
	_, err = f.Write(data)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// ReadPrivate reads the private file name; a missing file is an error
// that satisfies errors.Is(err, fs.ErrNotExist). A file with other hard
// links is refused (see LinkedError).
func (d *Dir) ReadPrivate(name string) ([]byte, error) {
	d.privMu.RLock()
	defer d.privMu.RUnlock()
	full, err := privateName(name)
	if err != nil {
		return nil, err
	}
	if err := d.regular(full, false); err != nil {
		return nil, err
	}
	f, err := d.root.Open(full)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if err := checkLinks(f, full); err != nil {
		return nil, err
	}
	return readLimited(f, full, nil)
}

// RemovePrivate removes the private file name; a missing file is fine.
func (d *Dir) RemovePrivate(name string) error {
	d.privMu.RLock()
	defer d.privMu.RUnlock()
	full, err := privateName(name)
	if err != nil {
		return err
	}
	if err := d.root.Remove(full); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return nil
}

// ReadFolder reads the regular files directly in dir, a folder outside any
// debate (such as one given with --templates), whose names end in suffix.
// Links and subfolders are passed over. Each file is limited to
// MaxFileSize and all of them together to MaxDebateSize.
func ReadFolder(dir, suffix string) (map[string][]byte, error) {
	return readFolder(dir, suffix, newBudget())
}

// ReadInputFolder reads the regular files directly in dir, a folder outside
// any debate that a command was given by name (such as a protocol's
// --persona-dir DIR), whose names end in suffix. Links and subfolders are
// passed over. All of them together are limited to limit bytes, refused
// with a *SizeError naming the file that took them past it.
func ReadInputFolder(dir, suffix string, limit int64) (map[string][]byte, error) {
	return readFolder(dir, suffix, &budget{limit: limit})
}

func readFolder(dir, suffix string, b *budget) (map[string][]byte, error) {
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, err
	}
	defer root.Close()
	f, err := root.Open(".")
	if err != nil {
		return nil, err
	}
	entries, err := f.ReadDir(-1)
	f.Close()
	if err != nil {
		return nil, err
	}
	// In name order, so that the file named by a size error is always
	// the same.
	slices.SortFunc(entries, func(a, b fs.DirEntry) int { return strings.Compare(a.Name(), b.Name()) })
	out := map[string][]byte{}
	for _, e := range entries {
		if !e.Type().IsRegular() || path.Ext(e.Name()) != suffix {
			continue
		}
		data, err := readFolderFile(root, e.Name(), filepath.Join(dir, e.Name()), b)
		if se, ok := err.(*SizeError); ok {
			se.Input = true
		}
		if err != nil {
			return nil, err
		}
		out[e.Name()] = data
	}
	return out, nil
}

func readFolderFile(root *os.Root, name, full string, b *budget) ([]byte, error) {
	f, err := root.OpenFile(name, os.O_RDONLY|noFollow, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return readLimited(f, full, b)
}

// ReadDebateFolder reads the files of the folder dir inside the debate
// whose names end in suffix; a missing folder gives none. Inside a
// Snapshot they count against its limit; otherwise all of them together
// are limited to MaxDebateSize.
func (d *Dir) ReadDebateFolder(dir, suffix string) (map[string][]byte, error) {
	if d.budget == nil {
		d.budget = newBudget()
		defer func() { d.budget = nil }()
	}
	names, err := d.List(dir, suffix)
	if err != nil {
		return nil, err
	}
	out := map[string][]byte{}
	for _, n := range names {
		data, err := d.ReadFile(dir + "/" + n)
		if err != nil {
			return nil, err
		}
		out[n] = data
	}
	return out, nil
}

// WriteVolatile replaces the private file name (a path under .moot/)
// atomically, as WritePrivate does, but without syncing it to the disk:
// for a file that only says what a process is doing now (.moot/live.json),
// whose loss in a crash costs nothing and which is rewritten often. A
// reader sees the old file or the new one, never half of one.
func (d *Dir) WriteVolatile(name string, data []byte) error {
	d.privMu.RLock()
	defer d.privMu.RUnlock()
	full, err := privateName(name)
	if err != nil {
		return err
	}
	if err := d.mkdirs(path.Dir(full)); err != nil {
		return err
	}
	if info, err := d.root.Lstat(full); err == nil && !info.Mode().IsRegular() {
		return fmt.Errorf("%s exists and is not a regular file", full)
	}
	f, tmp, err := d.tempFile(path.Base(full))
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = d.root.Rename(tmp, full)
	}
	if err != nil {
		d.root.Remove(tmp)
	}
	return err
}
