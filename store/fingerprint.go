package store

import (
	"crypto/sha256"
	"fmt"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"
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
//
// A shallow fingerprint (deep false) looks at every folder and names every
// file but stats only the files directly in dir and in PrivateDir: it
// costs a few system calls however many files the debate has, and still
// changes with every commit (CommitFile is rewritten), every file added,
// removed or renamed over (its folder changes), but not with a file below
// a folder rewritten in place, which only the deep one sees.
func Fingerprint(dir string, skip func(name string) bool, deep bool) ([32]byte, error) {
	h := sha256.New()
	n := 0
	var line []byte
	err := filepath.WalkDir(dir, func(p string, e fs.DirEntry, err error) error {
		if err != nil {
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
		if !deep && !e.IsDir() && strings.Contains(name, "/") && !strings.HasPrefix(name, PrivateDir+"/") {
			line = append(line[:0], name...)
			line = append(line, '\n')
			h.Write(line)
			return nil
		}
		info, err := e.Info()
		if err != nil {
			return err
		}
		line = append(line[:0], name...)
		line = append(line, ' ')
		line = append(line, info.Mode().String()...)
		line = append(line, ' ')
		line = strconv.AppendInt(line, info.Size(), 10)
		line = append(line, ' ')
		line = strconv.AppendInt(line, info.ModTime().UnixNano(), 10)
		line = append(line, ' ')
		line = append(line, changeIdentity(info)...)
		line = append(line, '\n')
		h.Write(line)
		return nil
	})
	var out [32]byte
	if err != nil {
		return out, fmt.Errorf("fingerprint %s: %w", dir, err)
	}
	copy(out[:], h.Sum(nil))
	return out, nil
}
