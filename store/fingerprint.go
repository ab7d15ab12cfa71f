package store

import (
	"crypto/sha256"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strconv"
)

// MaxFingerprintFiles is the most files and folders Fingerprint looks at
// in one debate; a debate with more has no fingerprint.
const MaxFingerprintFiles = 200_000

// Fingerprint sums what the file system tells, without opening or reading
// any file, of every file and folder of the debate at dir except those
// skip names (slash-separated paths inside the debate; a skipped folder is
// not entered): each one's path, kind, size, modification and change
// times and identity (inode). Any write to any file, in place or by a new
// file renamed over it, and any file added or removed, changes it, since
// a write sets the file's change time, which no program can set back. It
// is what a reader keeps a page by: two equal fingerprints mean that, as
// far as the file system tells, nothing of the debate changed in between.
// The times of PrivateDir itself are left out: they change whenever a
// file skip names is replaced there (the live file, at every call), and
// every file it holds that counts is looked at on its own.
//
// A shallow fingerprint (deep false) looks at every folder and names every
// file but stats only the files directly in dir and in PrivateDir: it
// costs a few system calls per folder however many files the debate has,
// and still changes with every commit (CommitFile is rewritten), every
// file added, removed or renamed over (its folder changes), but not with a
// file below a folder rewritten in place, which only the deep one sees.
func Fingerprint(dir string, skip func(name string) bool, deep bool) ([32]byte, error) {
	sum, _, err := fingerprint(dir, skip, deep)
	return sum, err
}

// ShallowFingerprint is the shallow Fingerprint of the debate at dir, with
// the Stamp of what it looked at, which tells at a fraction of its cost
// whether it could have changed since.
func ShallowFingerprint(dir string, skip func(name string) bool) ([32]byte, Stamp, error) {
	return fingerprint(dir, skip, false)
}

// A Stamp remembers what a shallow Fingerprint looked at with a system
// call, as it stood then: every folder of the debate and every file
// directly in it or in PrivateDir. Its zero value is never Unchanged.
type Stamp struct {
	dir   string
	names []string
	sum   [32]byte
}

// Unchanged reports whether everything s looked at still stands as it
// did, one lstat each and no folder read: if so, the shallow fingerprint
// taken with s is unchanged too, since a file added, removed or renamed
// in a folder changes the folder, and a folder's times are read before
// its files are listed.
func (s Stamp) Unchanged() bool {
	if s.names == nil {
		return false
	}
	h := sha256.New()
	var line []byte
	for _, name := range s.names {
		info, err := os.Lstat(filepath.Join(s.dir, filepath.FromSlash(name)))
		if err != nil {
			return false
		}
		line = statLine(line[:0], name, info)
		h.Write(line)
	}
	var sum [32]byte
	h.Sum(sum[:0])
	return sum == s.sum
}

// statLine appends to line what Fingerprint and Stamp write of the file
// or folder name.
func statLine(line []byte, name string, info fs.FileInfo) []byte {
	line = append(line, name...)
	line = append(line, ' ')
	line = append(line, info.Mode().String()...)
	line = append(line, ' ')
	line = strconv.AppendInt(line, info.Size(), 10)
	line = append(line, ' ')
	line = strconv.AppendInt(line, info.ModTime().UnixNano(), 10)
	line = append(line, ' ')
	line = append(line, changeIdentity(info)...)
	return append(line, '\n')
}

func fingerprint(dir string, skip func(name string) bool, deep bool) ([32]byte, Stamp, error) {
	h, stamped := sha256.New(), sha256.New()
	stamp := Stamp{dir: dir}
	n := 0
	var line []byte
	err := filepath.WalkDir(dir, func(p string, e fs.DirEntry, err error) error {
		if err != nil {
			if p != dir && errors.Is(err, fs.ErrNotExist) {
				return nil // removed since its folder was listed, see below
			}
			return err
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil {
			return err
		}
		name := filepath.ToSlash(rel)
		if name != "." && skip != nil && skip(name) {
			if e.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if n++; n > MaxFingerprintFiles {
			return fmt.Errorf("more than %d files", MaxFingerprintFiles)
		}
		parent := path.Dir(name)
		if !deep && !e.IsDir() && parent != "." && parent != PrivateDir {
			line = append(line[:0], name...)
			line = append(line, '\n')
			h.Write(line)
			return nil
		}
		// A folder's times are read here, before WalkDir lists it: a
		// file added after that changes them, and the Stamp sees it.
		info, err := e.Info()
		if errors.Is(err, fs.ErrNotExist) && name != "." {
			// Removed since its folder was listed (a commit renames
			// and removes files as it goes): that folder's times, read
			// before, have changed, so the Stamp sees it.
			return nil
		}
		if err != nil {
			return err
		}
		line = statLine(line[:0], name, info)
		if !deep {
			stamp.names = append(stamp.names, name)
			stamped.Write(line)
		}
		if name == PrivateDir {
			line = append(line[:0], name...)
			line = append(line, " folder\n"...)
		}
		h.Write(line)
		return nil
	})
	var out [32]byte
	if err != nil {
		return out, Stamp{}, fmt.Errorf("fingerprint %s: %w", dir, err)
	}
	h.Sum(out[:0])
	if !deep {
		stamped.Sum(stamp.sum[:0])
	}
	return out, stamp, nil
}
