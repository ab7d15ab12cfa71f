package store

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/gofrs/flock"
)

// LockFile is the advisory lock every command that writes a debate holds
// while it works. The lock is an flock(2) on the file, which the kernel
// releases when its process dies, so a lock file left by a killed process
// never blocks anyone. The file itself is never removed or replaced (a
// writer waiting on the old file would then lock a file nobody else sees);
// while a lock is held it names its holder.
const LockFile = PrivateDir + "/lock"

// Holder describes the process that holds a debate's lock, as it wrote
// itself into the lock file.
type Holder struct {
	PID       int    `json:"pid"`
	Command   string `json:"command"`
	StartedAt string `json:"started_at"`
}

// BusyError is the error of a writer that found the debate locked by
// another process.
type BusyError struct {
	// Dir is the debate directory.
	Dir string
	// Holder is the process holding the lock, nil when it could not be
	// read.
	Holder *Holder
}

func (e *BusyError) Error() string {
	if e.Holder == nil || e.Holder.PID == 0 {
		return fmt.Sprintf("%s is being written by another moot process", e.Dir)
	}
	msg := fmt.Sprintf("%s is being written by another moot process: pid %d, %q", e.Dir, e.Holder.PID, e.Holder.Command)
	if e.Holder.StartedAt != "" {
		msg += ", since " + e.Holder.StartedAt
	}
	return msg
}

// LinkedError is the error of a file of the debate (the debate's own
// files and those under .moot alike) that has other hard links. A hard
// link can make a file inside the debate share its content with a file
// outside it: reading it would read that other file, and writing in place
// (the lock file, the usage log) would change or truncate it. Such files
// are refused, read or written, where symbolic links are refused. Copying
// the file and moving the copy over it breaks the link.
type LinkedError struct {
	// Name is the file's path inside the debate.
	Name  string
	Links uint64
}

func (e *LinkedError) Error() string {
	return fmt.Sprintf("%s has %d hard links: it may share its content with a file outside the debate, so moot neither reads nor writes it (copy it and move the copy over it to break the link)", e.Name, e.Links)
}

// checkLinks refuses the open file f, name inside the debate, if it has
// more than one hard link. It checks the file already open, so that the
// file checked is the file read or written.
func checkLinks(f *os.File, name string) error {
	info, err := f.Stat()
	if err != nil {
		return err
	}
	if n := links(info); n > 1 {
		return &LinkedError{Name: name, Links: n}
	}
	return nil
}

// lockPoll is how often a waiting writer tries the lock again.
const lockPoll = 20 * time.Millisecond

// holderGrace bounds how long a refused writer retries reading the
// holder's name when the holder has just taken the lock and not yet
// written it.
const holderGrace = 30 * time.Millisecond

// Lock takes the debate's write lock for command (a short description such
// as "moot process-judge demo", written into the lock file with the pid and
// the time). If another process holds it, Lock fails at once with a
// *BusyError naming that process, or, when wait is set, waits until the
// lock is free or ctx is done. Once locked, Lock rereads the journal; the
// caller then calls Recover, loads, validates and commits, and finally
// calls Close, which lets the lock go. Readers never lock.
func (d *Dir) Lock(ctx context.Context, command string, wait bool) error {
	if d.lock != nil {
		return errors.New("the debate is already locked by this process")
	}
	if err := d.mkdirs(PrivateDir); err != nil {
		return fmt.Errorf("lock: %w", err)
	}
	if info, err := d.root.Lstat(LockFile); err == nil && !info.Mode().IsRegular() {
		return fmt.Errorf("lock: %s is not a regular file", LockFile)
	} else if err == nil && links(info) > 1 {
		return fmt.Errorf("lock: %w", &LinkedError{Name: LockFile, Links: links(info)})
	}
	fl := flock.New(filepath.Join(d.abs, filepath.FromSlash(LockFile)),
		flock.SetFlag(os.O_CREATE|os.O_RDWR|noFollow), flock.SetPermissions(0o644))
	ok, err := fl.TryLock()
	if err != nil {
		return fmt.Errorf("lock %s: %w", LockFile, err)
	}
	if !ok && !wait {
		if ok, err = d.busy(fl); err != nil {
			return err
		}
	}
	if !ok {
		if d.onWait != nil {
			d.onWait(d.currentHolder())
		}
		if _, err = fl.TryLockContext(ctx, lockPoll); err != nil {
			return fmt.Errorf("wait for the lock of %s: %w", d.path, err)
		}
	}
	d.lock = fl
	if err := d.writeHolder(Holder{PID: os.Getpid(), Command: command, StartedAt: time.Now().UTC().Format(time.RFC3339)}); err != nil {
		d.unlock()
		return err
	}
	if err := d.loadJournal(); err != nil {
		d.unlock()
		return err
	}
	if err := d.writeGitignore(); err != nil {
		d.unlock()
		return err
	}
	return nil
}

// OnWait sets f to be called, with the lock's holder (nil if it could not
// be read), when Lock starts waiting for the lock.
func (d *Dir) OnWait(f func(h *Holder)) { d.onWait = f }

// Writer returns the process that holds the debate's write lock, as the
// lock file names it, or nil if nobody holds the lock. It takes no lock
// and writes nothing, so it may be called by any reader without making a
// writer fail as busy.
//
// The lock, not the name in the file, says whether there is a writer: a
// lock file left by a killed process still names it, and its pid may have
// been given to another process since. Where the kernel lists the locks
// held (Linux's /proc/locks), the holder named in the file is reported
// only if a lock is held on that very file. Elsewhere, or if that list
// cannot be read, the holder is reported if a process with its pid exists.
// /proc/locks lists only the locks of the processes this one can see, so
// a writer in another pid namespace (another container) goes unreported.
func (d *Dir) Writer() *Holder {
	f, err := d.root.OpenFile(LockFile, os.O_RDONLY|noFollow, 0)
	if err != nil {
		return nil
	}
	defer f.Close()
	if checkLinks(f, LockFile) != nil {
		return nil // a writer refuses it too
	}
	h := holderIn(f)
	if h == nil || h.PID <= 0 {
		return nil
	}
	if held, known := lockHeld(f); known {
		if !held {
			return nil
		}
		return h
	}
	if !alive(h.PID) {
		return nil
	}
	return h
}

// locksHold reports whether data, in the format of Linux's /proc/locks,
// lists a lock held on the file whose device is major:minor and whose
// inode is ino. Locks of the kinds a file lock takes count (FLOCK, which
// gofrs/flock uses on Linux, and POSIX or OFDLCK, which an NFS mount may
// turn it into); processes waiting for a lock (the lines marked "->") do
// not, nor do leases. A line reads, for instance,
//
//	1: FLOCK  ADVISORY  WRITE 9294 fe:00:9977981 0 EOF
//
// with the device's major and minor numbers in hexadecimal and the inode
// in decimal.
func locksHold(data []byte, major, minor uint32, ino uint64) bool {
	for line := range strings.Lines(string(data)) {
		fields := strings.Fields(line)
		if len(fields) < 2 || fields[1] == "->" {
			continue
		}
		switch fields[1] {
		case "FLOCK", "POSIX", "OFDLCK":
		default:
			continue
		}
		// The kind, ADVISORY or MANDATORY, READ or WRITE, the pid, then
		// the file.
		if len(fields) < 6 {
			continue
		}
		parts := strings.Split(fields[5], ":")
		if len(parts) != 3 {
			continue
		}
		maj, err1 := strconv.ParseUint(parts[0], 16, 32)
		mnr, err2 := strconv.ParseUint(parts[1], 16, 32)
		n, err3 := strconv.ParseUint(parts[2], 10, 64)
		if err1 == nil && err2 == nil && err3 == nil && uint32(maj) == major && uint32(mnr) == minor && n == ino {
			return true
		}
	}
	return false
}

// currentHolder reads the lock's holder for a writer about to wait: like
// busy, it gives a holder that has just taken the lock a few milliseconds
// to write its name.
func (d *Dir) currentHolder() *Holder {
	deadline := time.Now().Add(holderGrace)
	for {
		h := d.readHolder()
		if (h != nil && alive(h.PID)) || time.Now().After(deadline) {
			return h
		}
		time.Sleep(2 * time.Millisecond)
	}
}

// Locked reports whether this Dir holds the debate's write lock.
func (d *Dir) Locked() bool { return d.lock != nil }

func (d *Dir) unlock() error {
	if d.lock == nil {
		return nil
	}
	// Clear the holder's name first, so that a lock file left behind says
	// nothing false; the lock itself is what counts.
	if f, err := d.root.OpenFile(LockFile, os.O_WRONLY|noFollow, 0o644); err == nil {
		if checkLinks(f, LockFile) == nil {
			f.Truncate(0)
		}
		f.Close()
	}
	err := d.lock.Unlock()
	d.lock = nil
	d.tempReady.Store(false)
	d.forgetDirs()
	return err
}

// busy builds the error of a refused writer. The holder may have taken the
// lock an instant ago and not written its name yet, or the file may still
// name a dead earlier holder: for a few milliseconds, retry reading the
// name, and the lock too, which is taken (ok) if it came free meanwhile.
func (d *Dir) busy(fl *flock.Flock) (ok bool, err error) {
	deadline := time.Now().Add(holderGrace)
	for {
		h := d.readHolder()
		if (h != nil && alive(h.PID)) || time.Now().After(deadline) {
			return false, &BusyError{Dir: d.path, Holder: h}
		}
		time.Sleep(2 * time.Millisecond)
		if ok, err := fl.TryLock(); err != nil || ok {
			return ok, err
		}
	}
}

func (d *Dir) readHolder() *Holder {
	f, err := d.root.OpenFile(LockFile, os.O_RDONLY|noFollow, 0)
	if err != nil {
		return nil
	}
	defer f.Close()
	if checkLinks(f, LockFile) != nil {
		return nil
	}
	return holderIn(f)
}

// holderIn reads the holder named in f, the open lock file; nil if it
// names none.
func holderIn(f *os.File) *Holder {
	data, err := readLimited(f, LockFile, nil)
	if err != nil || len(strings.TrimSpace(string(data))) == 0 {
		return nil
	}
	var h Holder
	if err := json.Unmarshal(data, &h); err != nil {
		return nil
	}
	return &h
}

// writeHolder writes h into the lock file in place: the file must stay
// the same file, since the lock is on it.
func (d *Dir) writeHolder(h Holder) error {
	data, err := json.Marshal(h)
	if err != nil {
		return err
	}
	data = append(data, '\n')
	f, err := d.root.OpenFile(LockFile, os.O_WRONLY|noFollow, 0o644)
	if err != nil {
		return fmt.Errorf("write %s: %w", LockFile, err)
	}
	defer f.Close()
	if err := checkLinks(f, LockFile); err != nil {
		return fmt.Errorf("lock: %w", err)
	}
	if _, err := f.WriteAt(data, 0); err != nil {
		return fmt.Errorf("write %s: %w", LockFile, err)
	}
	if err := f.Truncate(int64(len(data))); err != nil {
		return fmt.Errorf("write %s: %w", LockFile, err)
	}
	return nil
}

// sweep removes the temporary files that a writer killed in the middle of
// writing one left behind: whatever is in TempDir, where only moot writes.
// Only the lock holder sweeps, when it commits a step, so no temporary file
// in use is touched and a refused step changes nothing.
func (d *Dir) sweep() error {
	entries, err := d.readDir(TempDir)
	if err != nil {
		return err
	}
	for _, e := range entries {
		if e.IsDir() {
			continue
		}
		name := TempDir + "/" + e.Name()
		if err := d.root.Remove(name); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("remove %s: %w", name, err)
		}
	}
	return nil
}

func (d *Dir) readDir(dir string) ([]fs.DirEntry, error) {
	if err := d.regular(dir, true); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, nil
		}
		return nil, err
	}
	f, err := d.root.Open(dir)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return f.ReadDir(-1)
}
