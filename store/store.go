// Package store is the only part of moot that touches the disk. It reads
// the files of a debate directory, never following a path or a symbolic
// link out of it, and writes a step as one commit: every file of the step
// is first recorded in a journal, then each is replaced atomically, then the
// journal is removed. A commit interrupted at any instant is completed by
// the next writer (Recover) and seen as completed by every reader.
package store

import (
	"bytes"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/gofrs/flock"

	"github.com/moot-dev/moot/internal/faults"
	"github.com/moot-dev/moot/internal/frontmatter"
)

// MaxFileSize is the largest file the store reads from a debate directory
// (the journal and moot's private files included), and the largest journal
// a commit writes.
const MaxFileSize = 256 << 20

// MaxDebateSize is the most the store reads for one load of a debate: all
// the files that one Snapshot (or one ReadDebateFolder, or one ReadFolder)
// reads together, the journal included.
const MaxDebateSize = 512 << 20

// debateBudget is MaxDebateSize; tests lower it to stay cheap.
var debateBudget int64 = MaxDebateSize

// SizeError is the error of a read refused because of its size: the file
// Name is larger than Limit, or, when Total is set, reading it takes all
// the files read for one load past Limit.
type SizeError struct {
	Name  string
	Limit int64
	Total bool
	// Input marks a file outside any debate that a command was given
	// (ReadInput, ReadFolder), not a file of a debate.
	Input bool
}

func (e *SizeError) Error() string {
	if e.Total {
		return fmt.Sprintf("%s: reading it takes the files read for the debate past %d MiB, the limit for all of them together", e.Name, e.Limit>>20)
	}
	return fmt.Sprintf("%s is larger than %d MiB", e.Name, e.Limit>>20)
}

// NotRegularError is the error of a path of a debate that moot will not
// read or write as a file: a symbolic link (Link), or something that is
// not a regular file, such as a folder or a FIFO.
type NotRegularError struct {
	// Name is the path inside the debate.
	Name string
	Link bool
}

func (e *NotRegularError) Error() string {
	if e.Link {
		return fmt.Sprintf("%s is a symbolic link; moot does not follow links inside a debate", e.Name)
	}
	return fmt.Sprintf("%s is not a regular file", e.Name)
}

// budget counts the bytes read for one load against debateBudget.
type budget struct {
	used, limit int64
}

func newBudget() *budget { return &budget{limit: debateBudget} }

// PrivateDir holds moot's own files inside a debate directory.
const PrivateDir = ".moot"

// JournalFile is the journal of the commit in progress.
const JournalFile = PrivateDir + "/journal.json"

// CommitFile names the last commit applied: the SHA-256 of its journal. A
// commit rewrites it after its journal is written and before it replaces
// any file, so that a reader can tell whether a commit went on while it
// read (see Snapshot), which the identity of files cannot tell once the
// file system reuses a freed inode number.
const CommitFile = PrivateDir + "/commit"

// TempDir holds the temporary files of the writes in progress. Only moot
// writes there, so whatever a killed writer left there is moot's, and the
// next accepted commit removes it.
const TempDir = PrivateDir + "/tmp"

// File is one file of a commit: its path inside the debate directory, with
// forward slashes, and its whole new content.
type File struct {
	Name string `json:"name"`
	Data []byte `json:"data"`
}

// Dir is an open debate directory. Its commits and snapshots are made by
// one goroutine at a time; the parallel calls of a step may keep their
// answers (WritePrivate, ReadPrivate) through it at once, and while a
// commit is made (the calls of a later step asked early).
type Dir struct {
	path string
	abs  string
	root *os.Root
	// pending is the journal of an interrupted commit, if any: reads see it
	// as applied. journal is the journal file as it was read, nil if none.
	pending map[string][]byte
	journal []byte
	// hooks, when set, is called before each write operation (see
	// internal/faults); only tests of crash safety set it.
	hooks func(op string) error
	// lock is the write lock, when this Dir holds it.
	lock *flock.Flock
	// seen records what the reads of a Snapshot saw, to tell afterwards
	// whether a writer replaced any of it meanwhile.
	seen map[string]fs.FileInfo
	// budget, when set, counts what one load reads (see MaxDebateSize).
	budget *budget
	// onWait, when set, is told who holds the lock when Lock starts to
	// wait for it.
	onWait func(*Holder)
	// tempReady records that TempDir was made and checked under the
	// current lock, so that the temporary files of a commit do not each
	// check it again. The parallel calls of a step keep their answers
	// through one Dir at once, hence an atomic.
	tempReady atomic.Bool
	// dirs holds the folders of the debate that reads have opened and
	// checked (no link on the way), by name, so that reading the files of
	// a folder opens and checks it once. A commit clears it. dirsMu guards
	// it, as the private reads and writes of parallel calls may meet.
	dirsMu sync.Mutex
	dirs   map[string]*folder
	// privMu lets moot's own files be read and written by many goroutines
	// at once but not while a commit begins, which clears the folders
	// opened and the temporary files of TempDir (a commit's writes and
	// syncs, after that, let them go on).
	privMu sync.RWMutex
}

// Open opens the debate directory at dir. It must exist and hold debate.md.
func Open(dir string) (*Dir, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	info, err := os.Stat(abs)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("%s: no such debate directory", dir)
		}
		return nil, err
	}
	if !info.IsDir() {
		return nil, fmt.Errorf("%s: not a directory", dir)
	}
	root, err := os.OpenRoot(abs)
	if err != nil {
		return nil, err
	}
	d := &Dir{path: dir, abs: abs, root: root, hooks: faults.Hook()}
	if err := d.loadJournal(); err != nil {
		root.Close()
		return nil, err
	}
	return d, nil
}

// ExistsError is the error of Create when its directory exists already.
// It matches fs.ErrExist.
type ExistsError struct{ Dir string }

func (e *ExistsError) Error() string { return e.Dir + " already exists" }

// Is reports whether target is fs.ErrExist.
func (e *ExistsError) Is(target error) bool { return target == fs.ErrExist }

// Create makes a new debate directory at dir holding the folders dirs and
// the files, all at once: they are written into a hidden staging folder
// beside dir (".tmp-new-<name>-<random>"), which is then renamed to dir.
// A crash leaves no half-made debate, at most a staging folder that no
// command reads. Create fails if dir exists, and opens the new debate.
func Create(dir string, dirs []string, files []File) (*Dir, error) {
	parent, base := filepath.Split(filepath.Clean(dir))
	if parent == "" {
		parent = "."
	}
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return nil, err
	}
	if _, err := os.Lstat(dir); err == nil {
		return nil, &ExistsError{Dir: dir}
	}
	var rnd [6]byte
	if _, err := rand.Read(rnd[:]); err != nil {
		return nil, err
	}
	stage := filepath.Join(parent, ".tmp-new-"+base+"-"+hex.EncodeToString(rnd[:]))
	if err := os.Mkdir(stage, 0o755); err != nil {
		return nil, err
	}
	if err := fill(stage, dirs, files); err != nil {
		os.RemoveAll(stage)
		return nil, err
	}
	if err := fault(faults.Hook(), "rename "+dir); err != nil {
		os.RemoveAll(stage)
		return nil, err
	}
	if err := renameNoReplace(stage, dir); err != nil {
		os.RemoveAll(stage)
		if errors.Is(err, fs.ErrExist) {
			return nil, &ExistsError{Dir: dir}
		}
		return nil, err
	}
	if err := syncPath(parent); err != nil {
		return nil, err
	}
	removeStaleStages(parent, time.Now())
	return Open(dir)
}

// StaleStage is how old a staging folder of Create must be before a later
// Create removes it: no Create takes that long, so its process was killed.
const StaleStage = time.Hour

// stageName matches the names of Create's staging folders.
var stageName = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^\.tmp-new-.+-[0-9a-f]{12}$`) })

// removeStaleStages removes, from the debates root parent, the staging
// folders that a killed Create left: folders (not links) named as Create
// names them, untouched for StaleStage, and either empty or holding the
// .moot/lock that Create writes first. Anything else is left alone, and a
// folder that cannot be removed is passed over: this is tidying, and a
// new debate does not fail for it.
func removeStaleStages(parent string, now time.Time) {
	entries, err := os.ReadDir(parent)
	if err != nil {
		return
	}
	for _, e := range entries {
		if !e.IsDir() || !stageName().MatchString(e.Name()) {
			continue
		}
		info, err := e.Info()
		if err != nil || now.Sub(info.ModTime()) < StaleStage {
			continue
		}
		stage := filepath.Join(parent, e.Name())
		inside, err := os.ReadDir(stage)
		if err != nil {
			continue
		}
		if len(inside) > 0 {
			lock, err := os.Lstat(filepath.Join(stage, filepath.FromSlash(LockFile)))
			if err != nil || !lock.Mode().IsRegular() {
				continue
			}
		}
		os.RemoveAll(stage)
	}
}

// fill writes the folders and files of a new debate into stage.
func fill(stage string, dirs []string, files []File) error {
	root, err := os.OpenRoot(stage)
	if err != nil {
		return err
	}
	d := &Dir{path: stage, abs: stage, root: root, hooks: faults.Hook()}
	defer root.Close()
	// The lock file comes with the debate, so that no later command,
	// even one refused, adds a file to it.
	if err := d.mkdirs(PrivateDir); err != nil {
		return err
	}
	if err := root.WriteFile(LockFile, nil, 0o644); err != nil {
		return err
	}
	if err := root.WriteFile(GitignoreFile, []byte(Gitignore), 0o644); err != nil {
		return err
	}
	for _, dir := range dirs {
		if err := d.Mkdir(dir); err != nil {
			return err
		}
	}
	for _, f := range files {
		if err := d.checkWritable(f.Name); err != nil {
			return err
		}
		if err := d.mkdirs(path.Dir(f.Name)); err != nil {
			return err
		}
		if err := d.writeAtomic(f.Name, f.Data); err != nil {
			return fmt.Errorf("write %s: %w", f.Name, err)
		}
	}
	return nil
}

func syncPath(dir string) error {
	f, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer f.Close()
	if err := folderSynced(f.Sync()); err != nil {
		return fmt.Errorf("sync %s: %w", dir, err)
	}
	return nil
}

// folderSynced is the error of an fsync of a folder, nil where the file
// system cannot sync a folder at all (EINVAL, ENOTSUP: some network and
// FUSE file systems, and Windows): the renames in it are then as durable
// as that file system makes them, and refusing every step would help no
// one.
func folderSynced(err error) error {
	if errors.Is(err, syscall.EINVAL) || errors.Is(err, syscall.ENOTSUP) || errors.Is(err, errors.ErrUnsupported) {
		return nil
	}
	return err
}

// Path returns the directory as it was given to Open.
func (d *Dir) Path() string { return d.path }

// Close releases the directory and the write lock, if held.
func (d *Dir) Close() error {
	err := d.unlock()
	d.forgetDirs()
	if cerr := d.root.Close(); err == nil {
		err = cerr
	}
	return err
}

// checkName refuses names that are absolute, empty, or climb out.
func checkName(name string) error {
	if name == "" || strings.HasPrefix(name, "/") || strings.Contains(name, "\\") || strings.ContainsRune(name, 0) {
		return fmt.Errorf("%q is not a file name inside the debate", name)
	}
	if path.Clean(name) != name || name == ".." || strings.HasPrefix(name, "../") {
		return fmt.Errorf("%q is not a file name inside the debate", name)
	}
	return nil
}

// regular checks that every component of name is a real directory or file,
// not a symbolic link: moot does not follow links inside a debate. The
// file itself, once open, is checked for other hard links (checkLinks).
func (d *Dir) regular(name string, wantDir bool) error {
	return d.walkPath(name, func(p string, info fs.FileInfo, last bool) error {
		switch {
		case info.Mode()&fs.ModeSymlink != 0:
			return &NotRegularError{Name: p, Link: true}
		case !last && !info.IsDir():
			return fmt.Errorf("%s is not a directory", p)
		case last && wantDir && !info.IsDir():
			return fmt.Errorf("%s is not a directory", p)
		case last && !wantDir && !info.Mode().IsRegular():
			return &NotRegularError{Name: p}
		}
		return nil
	})
}

// walkPath calls visit with each path from the first folder of name down
// to name itself and what Lstat says of it (last is set for name). It
// stops at the first error, from Lstat or from visit.
func (d *Dir) walkPath(name string, visit func(p string, info fs.FileInfo, last bool) error) error {
	parts := strings.Split(name, "/")
	for i := range parts {
		p := strings.Join(parts[:i+1], "/")
		info, err := d.root.Lstat(p)
		if err != nil {
			return err
		}
		if err := visit(p, info, i == len(parts)-1); err != nil {
			return err
		}
	}
	return nil
}

// ReadFile reads the file name of the debate, as the last commit left it.
// A file with other hard links is refused (see LinkedError).
func (d *Dir) ReadFile(name string) ([]byte, error) {
	if err := checkName(name); err != nil {
		return nil, err
	}
	if data, ok := d.pending[name]; ok {
		return data, nil
	}
	dir, base := path.Split(name)
	fo, done, err := d.folder(path.Clean(dir))
	if err != nil {
		return nil, err
	}
	defer done()
	switch info, err := fo.root.Lstat(base); {
	case err != nil:
		return nil, renamed(err, name)
	case info.Mode()&fs.ModeSymlink != 0:
		return nil, &NotRegularError{Name: name, Link: true}
	case !info.Mode().IsRegular():
		return nil, &NotRegularError{Name: name}
	}
	f, err := fo.open(base)
	if err != nil {
		return nil, renamed(err, name)
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if n := links(info); n > 1 {
		return nil, &LinkedError{Name: name, Links: n}
	}
	if d.seen != nil {
		d.seen[name] = info
	}
	return readSized(f, name, d.budget, info)
}

// folder is a folder of the debate, open: as a Root, and as a file
// whose descriptor the files in it are opened from.
type folder struct {
	root *os.Root
	f    *os.File
}

// folder returns the debate's folder dir ("." for the debate itself),
// checked to have no link on the way, and what to call when done with it.
// While the Dir holds the lock or reads a snapshot, a folder is opened
// once and kept until the commit or the snapshot's end; otherwise it is
// opened for the one read and closed by done.
func (d *Dir) folder(dir string) (fo *folder, done func(), err error) {
	keep := d.lock != nil || d.budget != nil
	d.dirsMu.Lock()
	defer d.dirsMu.Unlock()
	if fo, ok := d.dirs[dir]; ok && keep {
		return fo, func() {}, nil
	}
	fo = &folder{root: d.root}
	if dir != "." {
		if err := d.regular(dir, true); err != nil {
			return nil, nil, err
		}
		r, err := d.root.OpenRoot(dir)
		if err != nil {
			return nil, nil, err
		}
		fo.root = r
	}
	f, err := fo.root.Open(".")
	if err != nil {
		fo.close(d.root)
		return nil, nil, err
	}
	fo.f = f
	if !keep {
		return fo, func() { fo.close(d.root) }, nil
	}
	if d.dirs == nil {
		d.dirs = map[string]*folder{}
	}
	d.dirs[dir] = fo
	return fo, func() {}, nil
}

// close closes the folder, and its Root unless it is the debate's own,
// root.
func (fo *folder) close(root *os.Root) {
	if fo.f != nil {
		fo.f.Close()
	}
	if fo.root != root {
		fo.root.Close()
	}
}

// forgetDirs closes the folders folder opened.
func (d *Dir) forgetDirs() {
	d.dirsMu.Lock()
	defer d.dirsMu.Unlock()
	for _, fo := range d.dirs {
		fo.close(d.root)
	}
	d.dirs = nil
}

// renamed returns err with the path of a *fs.PathError in it set to name,
// the path inside the debate, for an error of a folder's Root.
func renamed(err error, name string) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return &fs.PathError{Op: pe.Op, Path: name, Err: pe.Err}
	}
	return err
}

// readLimited reads all of f, the file name, refusing one larger than
// MaxFileSize and, when b is set, one that takes what b counts past its
// limit. Every read of the store goes through it. The size is checked
// before reading, so that a huge (or sparse) file costs nothing, and again
// after, for a file that grew meanwhile.
func readLimited(f fs.File, name string, b *budget) ([]byte, error) {
	info, err := f.Stat()
	if err != nil {
		info = nil
	}
	return readSized(f, name, b, info)
}

// readSized is readLimited of a file whose Stat is info (nil when it
// could not be had).
func readSized(f io.Reader, name string, b *budget, info fs.FileInfo) ([]byte, error) {
	limit := int64(MaxFileSize)
	if b != nil {
		limit = min(limit, b.limit-b.used)
	}
	tooLarge := func(n int64) error {
		if n > MaxFileSize {
			return &SizeError{Name: name, Limit: MaxFileSize}
		}
		return &SizeError{Name: name, Limit: b.limit, Total: true}
	}
	size := int64(0)
	if info != nil && info.Mode().IsRegular() {
		size = info.Size()
		if size > limit {
			return nil, tooLarge(size)
		}
	}
	buf := bytes.NewBuffer(make([]byte, 0, size+512))
	if _, err := buf.ReadFrom(io.LimitReader(f, limit+1)); err != nil {
		return nil, err
	}
	if n := int64(buf.Len()); n > limit {
		return nil, tooLarge(n)
	}
	if b != nil {
		b.used += int64(buf.Len())
	}
	return buf.Bytes(), nil
}

// Exists reports whether name exists in the debate (as a file, a directory
// or a link).
func (d *Dir) Exists(name string) bool {
	if checkName(name) != nil {
		return false
	}
	if _, ok := d.pending[name]; ok {
		return true
	}
	_, err := d.root.Lstat(name)
	return err == nil
}

// List returns the names of the entries of the directory dir of the
// debate whose names end in suffix, sorted: its files, and its folders too,
// so that a folder where a file should be is read, and refused, rather
// than passed over. A missing directory lists nothing.
func (d *Dir) List(dir, suffix string) ([]string, error) {
	if err := checkName(dir); err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	if fo, done, err := d.folder(path.Clean(dir)); err == nil {
		f, err := fo.open(".")
		done()
		if err != nil {
			return nil, err
		}
		if d.seen != nil {
			if info, err := f.Stat(); err == nil {
				d.seen[dir+"/"] = info
			}
		}
		entries, err := f.ReadDir(-1)
		f.Close()
		if err != nil {
			return nil, err
		}
		for _, e := range entries {
			if strings.HasSuffix(e.Name(), suffix) && !strings.HasPrefix(e.Name(), ".") {
				seen[e.Name()] = true
			}
		}
	} else if !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	for name := range d.pending {
		if path.Dir(name) == dir && strings.HasSuffix(name, suffix) {
			seen[path.Base(name)] = true
		}
	}
	names := make([]string, 0, len(seen))
	for n := range seen {
		names = append(names, n)
	}
	sort.Strings(names)
	return names, nil
}

// Folders returns the names of the folders directly in the directory dir
// of the debate, sorted, a pending commit's seen as made. A missing
// directory lists nothing; symbolic links are not folders.
func (d *Dir) Folders(dir string) ([]string, error) {
	if err := checkName(dir); err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	if err := d.regular(dir, true); err == nil {
		entries, err := d.readDir(dir)
		if err != nil {
			return nil, err
		}
		for _, e := range entries {
			if e.IsDir() && !strings.HasPrefix(e.Name(), ".") {
				seen[e.Name()] = true
			}
		}
	} else if !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	for name := range d.pending {
		if rest, ok := strings.CutPrefix(name, dir+"/"); ok {
			if first, _, ok := strings.Cut(rest, "/"); ok {
				seen[first] = true
			}
		}
	}
	names := make([]string, 0, len(seen))
	for n := range seen {
		names = append(names, n)
	}
	sort.Strings(names)
	return names, nil
}

// Pending reports whether an interrupted commit waits to be completed.
func (d *Dir) Pending() bool { return len(d.pending) > 0 }

type journal struct {
	Files []File `json:"files"`
}

// JournalError is the error of a journal that no writer can ever
// complete: not JSON, or an entry (Entry) that names no file moot could
// write, such as ".", "..", an absolute name, a file under .moot, or a file
// inside something that is not a folder ("debate.md/x"). Readers cannot
// tell what the debate is and writers cannot go on until the journal is
// looked at and removed by hand.
type JournalError struct {
	// Path is the journal's path, as the debate directory was given.
	Path string
	// Entry is the entry at fault, "" when the journal as a whole is.
	Entry string
	Err   error
}

func (e *JournalError) Error() string {
	if e.Entry == "" {
		return fmt.Sprintf("%s cannot be completed: %v", e.Path, e.Err)
	}
	return fmt.Sprintf("%s cannot be completed: entry %q: %v", e.Path, e.Entry, e.Err)
}

func (e *JournalError) Unwrap() error { return e.Err }

// loadJournal reads the journal, if there is one, into pending.
func (d *Dir) loadJournal() error {
	d.pending, d.journal = nil, nil
	data, err := d.readJournal()
	if err != nil || data == nil {
		return err
	}
	jpath := filepath.Join(d.path, filepath.FromSlash(JournalFile))
	var j journal
	if err := json.Unmarshal(data, &j); err != nil {
		return &JournalError{Path: jpath, Err: fmt.Errorf("it is not a journal moot wrote: %w", err)}
	}
	if err := frontmatter.CheckDuplicates(data); err != nil {
		return &JournalError{Path: jpath, Err: fmt.Errorf("it is not a journal moot wrote: %w", err)}
	}
	if name, err := d.checkStep(j.Files); err != nil {
		return &JournalError{Path: jpath, Entry: name, Err: err}
	}
	pending := map[string][]byte{}
	for _, f := range j.Files {
		pending[f.Name] = f.Data
	}
	d.pending, d.journal = pending, data
	return nil
}

// checkStep checks that every file of a step can be written, as a commit
// does before writing its journal and a reader does with a journal it
// finds: a name inside the debate and outside .moot, not the debate folder
// itself, no file inside another file of the step, and nothing on disk in
// the way (see checkWritable). It returns the name at fault.
func (d *Dir) checkStep(files []File) (string, error) {
	names := map[string]bool{}
	for _, f := range files {
		names[f.Name] = true
	}
	for _, f := range files {
		if err := checkName(f.Name); err != nil {
			return f.Name, err
		}
		if f.Name == "." {
			return f.Name, fmt.Errorf("%q names the debate folder itself, not a file in it", f.Name)
		}
		if isPrivate(f.Name) {
			return f.Name, fmt.Errorf("%q is not a debate file", f.Name)
		}
		for dir := path.Dir(f.Name); dir != "."; dir = path.Dir(dir) {
			if names[dir] {
				return f.Name, fmt.Errorf("%q is inside %s, which the same step writes as a file", f.Name, dir)
			}
		}
		if err := d.checkWritable(f.Name); err != nil {
			return f.Name, err
		}
	}
	return "", nil
}

// readJournal returns the journal file's content, nil if there is none.
func (d *Dir) readJournal() ([]byte, error) { return d.readPrivate(JournalFile, d.budget) }

// readPrivate returns the content of name, one of moot's own files, nil
// if there is none; the size of what it reads counts against b, if set.
func (d *Dir) readPrivate(name string, b *budget) ([]byte, error) {
	if err := d.regular(name, false); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, nil
		}
		return nil, fmt.Errorf("read %s: %w", name, err)
	}
	f, err := d.root.Open(name)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", name, err)
	}
	defer f.Close()
	if err := checkLinks(f, name); err != nil {
		return nil, fmt.Errorf("read %s: %w", name, err)
	}
	data, err := readLimited(f, name, b)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", name, err)
	}
	return data, nil
}

func isPrivate(name string) bool {
	return name == PrivateDir || strings.HasPrefix(name, PrivateDir+"/")
}

// checkWritable checks, before anything is written, that name can be
// written inside the debate: every folder on its way is a real folder or
// does not exist yet, and the file is a regular file or does not exist. A
// commit that passes this cannot be stopped half way by a link or a
// folder in the way.
func (d *Dir) checkWritable(name string) error {
	if err := checkName(name); err != nil {
		return err
	}
	err := d.walkPath(name, func(p string, info fs.FileInfo, last bool) error {
		switch {
		case info.Mode()&fs.ModeSymlink != 0:
			return fmt.Errorf("%s is a symbolic link; moot does not write through links inside a debate", p)
		case !last && !info.IsDir():
			return fmt.Errorf("%s is not a directory", p)
		case last && !info.Mode().IsRegular():
			return fmt.Errorf("%s exists and is not a regular file", p)
		}
		return nil
	})
	if errors.Is(err, fs.ErrNotExist) {
		// What does not exist yet is made by the commit.
		return nil
	}
	return err
}

// ErrNotLocked is returned by Commit and Recover when the Dir does not
// hold the debate's write lock: only the lock holder writes.
var ErrNotLocked = errors.New("internal error: a debate is written only under its lock (call Lock first)")

// Commit writes files as one step: all of them or, if the process dies
// part way, none until the next Recover completes them. The last file is
// written last: put the file that records the new state there.
//
// Every file is checked before the journal is written: a name outside the
// debate or under .moot, or a link or folder in the way, refuses the whole
// commit with nothing written. Commit needs the write lock (see Lock).
func (d *Dir) Commit(files []File) error {
	if d.lock == nil {
		return ErrNotLocked
	}
	// Nothing else of moot's own may be written while what killed
	// writers left is cleared (prepare); then the calls asked early may
	// keep their answers while the commit's files are written and synced.
	d.privMu.Lock()
	data, err := d.prepare(files)
	d.privMu.Unlock()
	if err != nil {
		return err
	}
	d.privMu.RLock()
	defer d.privMu.RUnlock()
	// The journal and every file are written to temporary files and synced
	// together, before the journal is renamed into place: their syncs
	// overlap, and a step whose files cannot be written (a full disk) is
	// refused before it is recorded.
	staged, err := d.stage(append([]File{{Name: JournalFile, Data: data}}, files...))
	if err != nil {
		return err
	}
	if err := d.commitJournal(staged[0]); err != nil {
		d.unstage(staged)
		return fmt.Errorf("write %s: %w", JournalFile, err)
	}
	// From here the commit is made: if applying it fails, this Dir reads it
	// as applied and its next Recover completes it, like any other reader.
	d.pending = map[string][]byte{}
	for _, f := range files {
		d.pending[f.Name] = f.Data
	}
	d.journal = data
	if err := d.install(files, staged[1:]); err != nil {
		return &IncompleteError{Err: err}
	}
	return nil
}

// prepare checks that files can be committed, completes an interrupted
// commit and clears what killed writers left, and returns the journal of
// files. It is called with privMu locked.
func (d *Dir) prepare(files []File) ([]byte, error) {
	d.forgetDirs()
	if err := d.recover(); err != nil {
		return nil, err
	}
	if _, err := d.checkStep(files); err != nil {
		return nil, err
	}
	for _, f := range files {
		// Refuse a link on the way before the journal is written: once it
		// is, readers take the commit as made.
		if err := d.regular(f.Name, false); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return nil, err
		}
	}
	data, err := json.Marshal(journal{Files: files})
	if err != nil {
		return nil, err
	}
	if len(data) > MaxFileSize {
		// Readers would refuse to read such a journal.
		return nil, fmt.Errorf("the step is too large: its journal would be %d MiB, over the %d MiB limit of %s", len(data)>>20, MaxFileSize>>20, JournalFile)
	}
	// The step is accepted: clear what killed writers left.
	if err := d.sweep(); err != nil {
		return nil, err
	}
	if err := d.mkdirs(PrivateDir); err != nil {
		return nil, err
	}
	return data, nil
}

// commitJournal renames the staged journal into place and syncs its
// folder: the commit point.
func (d *Dir) commitJournal(tmp string) error {
	if err := d.fault("rename " + JournalFile); err != nil {
		return err
	}
	if err := d.root.Rename(tmp, JournalFile); err != nil {
		return err
	}
	return d.syncDir(path.Dir(JournalFile))
}

// IncompleteError is the error of a commit that failed after its journal
// was written: the step is recorded and counts as done; the next writer
// completes it.
type IncompleteError struct {
	Err error
}

func (e *IncompleteError) Error() string {
	return fmt.Sprintf("%v; the step is recorded in %s and the next command that writes the debate completes it", e.Err, JournalFile)
}

func (e *IncompleteError) Unwrap() error { return e.Err }

// Recover completes a commit that was interrupted, if there is one, by
// writing every file of its journal again (which is harmless for those
// already written) and then removing the journal; it first removes the
// temporary files the interrupted writer left. It needs the write lock.
func (d *Dir) Recover() error {
	if d.lock == nil {
		return ErrNotLocked
	}
	d.privMu.Lock()
	defer d.privMu.Unlock()
	return d.recover()
}

// recover is Recover, under privMu.
func (d *Dir) recover() error {
	if err := d.loadJournal(); err != nil {
		return err
	}
	if len(d.pending) == 0 {
		return nil
	}
	// loadJournal has checked that every file of the journal can be
	// written.
	var j journal
	if err := json.Unmarshal(d.journal, &j); err != nil {
		return fmt.Errorf("read %s: %w", JournalFile, err)
	}
	// The step was accepted when its journal was written: clear what the
	// writer killed in the middle of it left.
	if err := d.sweep(); err != nil {
		return err
	}
	return d.apply(j.Files)
}

// apply writes the files of the journal d holds and removes it.
func (d *Dir) apply(files []File) error {
	staged, err := d.stage(files)
	if err != nil {
		return err
	}
	return d.install(files, staged)
}

// stage writes each file to a temporary file in TempDir, synced, and
// returns their names, in the order of files. The files are written and
// synced in parallel; the fault hook sees "write NAME" for each in order
// before it is started. On an error every temporary file is removed.
func (d *Dir) stage(files []File) ([]string, error) {
	tmps := make([]string, 0, len(files))
	errs := make([]error, len(files))
	var wg sync.WaitGroup
	fail := func(err error) ([]string, error) {
		wg.Wait()
		d.unstage(tmps)
		return nil, err
	}
	for i, f := range files {
		if err := d.fault("write " + f.Name); err != nil {
			return fail(fmt.Errorf("write %s: %w", f.Name, err))
		}
		tf, tmp, err := d.tempFile(path.Base(f.Name))
		if err != nil {
			return fail(fmt.Errorf("write %s: %w", f.Name, err))
		}
		tmps = append(tmps, tmp)
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, err := tf.Write(f.Data)
			if err == nil {
				err = tf.Sync()
			}
			if cerr := tf.Close(); err == nil {
				err = cerr
			}
			if err != nil {
				errs[i] = fmt.Errorf("write %s: %w", f.Name, err)
			}
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		d.unstage(tmps)
		return nil, err
	}
	return tmps, nil
}

// unstage removes the temporary files stage wrote.
func (d *Dir) unstage(tmps []string) {
	for _, tmp := range tmps {
		d.root.Remove(tmp)
	}
}

// install renames each file's staged temporary file over it, in order,
// then syncs the folders and removes the journal. Each file is replaced
// atomically; the folders are synced once each, after the last rename and
// before the journal goes, since until then the journal can redo any
// rename the disk did not keep.
func (d *Dir) install(files []File, staged []string) error {
	if err := d.markCommit(); err != nil {
		d.unstage(staged)
		return err
	}
	var dirs []string
	for i, f := range files {
		if err := d.mkdirs(path.Dir(f.Name)); err != nil {
			d.unstage(staged[i:])
			return err
		}
		if err := d.rename(staged[i], f.Name); err != nil {
			d.unstage(staged[i:])
			return fmt.Errorf("write %s: %w", f.Name, err)
		}
		if dir := path.Dir(f.Name); !slices.Contains(dirs, dir) {
			dirs = append(dirs, dir)
		}
	}
	for _, dir := range dirs {
		if err := d.syncDir(dir); err != nil {
			return err
		}
	}
	if err := d.fault("remove-journal"); err != nil {
		return err
	}
	// The removal is not synced: if the disk forgets it, the next writer
	// replays a journal whose files are already in place, which changes
	// nothing.
	if err := d.root.Remove(JournalFile); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("remove %s: %w", JournalFile, err)
	}
	d.pending, d.journal = nil, nil
	return nil
}

// markCommit writes CommitFile for the commit whose journal d holds. It
// is not synced: it matters only to readers running while this process
// writes, none of which outlives a crash of the machine, and replaying the
// journal writes the same content again.
func (d *Dir) markCommit() error {
	sum := sha256.Sum256(d.journal)
	f, tmp, err := d.tempFile(path.Base(CommitFile))
	if err != nil {
		return err
	}
	_, err = f.WriteString(hex.EncodeToString(sum[:]) + "\n")
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = d.root.Rename(tmp, CommitFile)
	}
	if err != nil {
		d.root.Remove(tmp)
		return fmt.Errorf("write %s: %w", CommitFile, err)
	}
	return nil
}

// readCommit returns the content of CommitFile, nil if there is none.
func (d *Dir) readCommit() ([]byte, error) { return d.readPrivate(CommitFile, nil) }

// tempFile creates a new temporary file in TempDir, named after base, and
// returns it with its name inside the debate.
func (d *Dir) tempFile(base string) (*os.File, string, error) {
	if !d.tempReady.Load() || d.lock == nil {
		if err := d.mkdirs(TempDir); err != nil {
			return nil, "", err
		}
		d.tempReady.Store(d.lock != nil)
	}
	var rnd [6]byte
	if _, err := rand.Read(rnd[:]); err != nil {
		return nil, "", err
	}
	tmp := path.Join(TempDir, ".tmp-"+base+"-"+hex.EncodeToString(rnd[:]))
	f, err := d.root.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	return f, tmp, err
}

// mkdirs makes dir and its parents inside the debate, refusing links.
func (d *Dir) mkdirs(dir string) error {
	if dir == "." {
		return nil
	}
	parts := strings.Split(dir, "/")
	for i := range parts {
		p := strings.Join(parts[:i+1], "/")
		err := d.root.Mkdir(p, 0o755)
		if err != nil && !errors.Is(err, fs.ErrExist) {
			return fmt.Errorf("create %s: %w", p, err)
		}
		if err == nil {
			if err := d.syncDir(path.Dir(p)); err != nil {
				return err
			}
		}
		if err := d.regular(p, true); err != nil {
			return err
		}
	}
	return nil
}

// writeAtomic replaces name with data: a temporary file in TempDir, fsync,
// rename over name, fsync of the directory.
func (d *Dir) writeAtomic(name string, data []byte) error {
	if err := d.replace(name, data); err != nil {
		return err
	}
	return d.syncDir(path.Dir(name))
}

// replace is writeAtomic without the sync of the folder, for callers that
// sync it themselves. The temporary file is in TempDir, not beside name,
// so that moot never has to guess which files of the debate are its own.
func (d *Dir) replace(name string, data []byte) error {
	if err := d.fault("write " + name); err != nil {
		return err
	}
	if info, err := d.root.Lstat(name); err == nil && !info.Mode().IsRegular() {
		return fmt.Errorf("%s exists and is not a regular file", name)
	}
	f, tmp, err := d.tempFile(path.Base(name))
	if err != nil {
		return err
	}
	_, err = io.Copy(f, bytes.NewReader(data))
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = d.fault("rename " + name)
	}
	if err == nil {
		err = d.root.Rename(tmp, name)
	}
	if err != nil {
		d.root.Remove(tmp)
		return err
	}
	return nil
}

// rename puts the staged temporary file tmp in place of name, refusing to
// replace anything but a regular file.
func (d *Dir) rename(tmp, name string) error {
	if err := d.fault("rename " + name); err != nil {
		return err
	}
	if info, err := d.root.Lstat(name); err == nil && !info.Mode().IsRegular() {
		return fmt.Errorf("%s exists and is not a regular file", name)
	}
	return d.root.Rename(tmp, name)
}

func (d *Dir) syncDir(dir string) error {
	f, err := d.root.Open(dir)
	if err != nil {
		return err
	}
	defer f.Close()
	if err := folderSynced(f.Sync()); err != nil {
		return fmt.Errorf("sync %s: %w", dir, err)
	}
	return nil
}

// Mkdir makes the directory name inside the debate, with its parents.
func (d *Dir) Mkdir(name string) error {
	if err := checkName(name); err != nil {
		return err
	}
	return d.mkdirs(name)
}

// Snapshot runs read, which reads the debate through d, so that it sees
// the debate as one commit left it even while another process writes: it
// notes CommitFile, the journal and every file and folder read, and if a
// writer committed or replaced any of them meanwhile it runs read again, a
// few times before it gives up. Readers take no lock and wait for nobody.
//
// CommitFile is read before the journal and compared after read: a commit
// writes its journal, then CommitFile, then its files, then removes the
// journal, so a read that overlaps the replacement of any file sees either
// the journal appear or go, or CommitFile change. The identity of the
// files read (device and inode) is compared too, but cannot be relied on
// alone, since a file system reuses the inode of a file a commit removed.
//
// Everything one call of read reads, the journal included, counts against
// MaxDebateSize.
func (d *Dir) Snapshot(read func() error) error {
	d.budget = newBudget()
	defer func() {
		d.budget = nil
		if d.lock == nil {
			// A Dir kept open between reads holds no folder open.
			d.forgetDirs()
		}
	}()
	if d.lock != nil {
		// Nobody else writes while this Dir holds the lock.
		return read()
	}
	const attempts = 40
	for i := 0; ; i++ {
		d.budget = newBudget()
		// Folders are opened afresh for each read of the whole: a Dir
		// that lives long (a watch) sees a folder that was replaced.
		d.forgetDirs()
		commit, err := d.readCommit()
		if err != nil {
			return err
		}
		if err := d.loadJournal(); err != nil {
			return err
		}
		before := d.journal
		d.seen = map[string]fs.FileInfo{}
		err = read()
		d.budget = nil
		stable := d.unchanged(commit, before)
		d.seen = nil
		if stable {
			return err
		}
		if i == attempts-1 {
			return fmt.Errorf("%s kept changing while it was read; try again", d.path)
		}
		time.Sleep(time.Duration(min(i+1, 25)) * 2 * time.Millisecond)
	}
}

// unchanged reports whether CommitFile still holds commit, the journal is
// still journal, and every file and folder that was read is still the
// same one.
func (d *Dir) unchanged(commit, journal []byte) bool {
	now, err := d.readJournal()
	if err != nil || !bytes.Equal(now, journal) {
		return false
	}
	if now, err := d.readCommit(); err != nil || !bytes.Equal(now, commit) {
		return false
	}
	for name, was := range d.seen {
		// Looked up afresh from the debate's root, not through the
		// folders the read opened: a folder replaced meanwhile is a
		// change.
		info, err := d.root.Lstat(strings.TrimSuffix(name, "/"))
		if err != nil || !os.SameFile(was, info) {
			return false
		}
		if strings.HasSuffix(name, "/") && !info.ModTime().Equal(was.ModTime()) {
			return false
		}
	}
	return true
}

// renameChecked renames from to to unless to exists. Between the check and
// the rename another process could create to; rename then replaces it only
// if it is an empty folder.
func renameChecked(from, to string) error {
	if _, err := os.Lstat(to); err == nil {
		return &os.LinkError{Op: "rename", Old: from, New: to, Err: fs.ErrExist}
	}
	return os.Rename(from, to)
}

// fault calls the fault hook, if any, before the write operation op.
func (d *Dir) fault(op string) error { return fault(d.hooks, op) }

// fault calls hook, if set, before the write operation op.
func fault(hook func(op string) error, op string) error {
	if hook == nil {
		return nil
	}
	return hook(op)
}
