package store

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
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
// lock is free or ctx is done. Once locked, Lock rereads the journal and
// removes temporary files that a killed writer left; the caller then calls
// Recover, loads, validates and commits, and finally calls unlock (or
// Close). Readers never lock.
func (d *Dir) Lock(ctx context.Context, command string, wait bool) (unlock func() error, err error) {
	if d.lock != nil {
		return nil, errors.New("the debate is already locked by this process")
	}
	if err := d.mkdirs(PrivateDir); err != nil {
		return nil, fmt.Errorf("lock: %w", err)
	}
	if info, err := d.root.Lstat(LockFile); err == nil && !info.Mode().IsRegular() {
		return nil, fmt.Errorf("lock: %s is not a regular file", LockFile)
	}
	fl := flock.New(filepath.Join(d.abs, filepath.FromSlash(LockFile)),
		flock.SetFlag(os.O_CREATE|os.O_RDWR|noFollow), flock.SetPermissions(0o644))
	ok, err := fl.TryLock()
	if err != nil {
		return nil, fmt.Errorf("lock %s: %w", LockFile, err)
	}
	if !ok && !wait {
		if ok, err = d.busy(fl); err != nil {
			return nil, err
		}
	}
	if !ok {
		if ok, err = fl.TryLockContext(ctx, lockPoll); err != nil {
			return nil, fmt.Errorf("wait for the lock of %s: %w", d.path, err)
		}
	}
	d.lock = fl
	if err := d.writeHolder(Holder{PID: os.Getpid(), Command: command, StartedAt: time.Now().UTC().Format(time.RFC3339)}); err != nil {
		d.unlock()
		return nil, err
	}
	if err := d.loadJournal(); err != nil {
		d.unlock()
		return nil, err
	}
	if err := d.sweep(); err != nil {
		d.unlock()
		return nil, err
	}
	if err := d.writeGitignore(); err != nil {
		d.unlock()
		return nil, err
	}
	return d.unlock, nil
}

// Locked reports whether this Dir holds the debate's write lock.
func (d *Dir) Locked() bool { return d.lock != nil }

func (d *Dir) unlock() error {
	if d.lock == nil {
		return nil
	}
	// Clear the holder's name first, so that a lock file left behind says
	// nothing false; the lock itself is what counts.
	if f, err := d.root.OpenFile(LockFile, os.O_WRONLY|os.O_TRUNC|noFollow, 0o644); err == nil {
		f.Close()
	}
	err := d.lock.Unlock()
	d.lock = nil
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
	data, err := d.root.ReadFile(LockFile)
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
	if _, err := f.WriteAt(data, 0); err != nil {
		return fmt.Errorf("write %s: %w", LockFile, err)
	}
	if err := f.Truncate(int64(len(data))); err != nil {
		return fmt.Errorf("write %s: %w", LockFile, err)
	}
	return nil
}

// sweep removes the temporary files that a writer killed in the middle of
// writing one left behind: ".tmp-*" regular files in the debate directory,
// in each of its folders and in the folders of .moot. Only the lock holder
// sweeps, so no temporary file in use is touched.
func (d *Dir) sweep() error {
	dirs := []string{"."}
	for _, top := range []string{".", PrivateDir} {
		sub, err := d.subdirs(top)
		if err != nil {
			return err
		}
		dirs = append(dirs, sub...)
	}
	seen := map[string]bool{}
	for _, dir := range dirs {
		if seen[dir] {
			continue
		}
		seen[dir] = true
		entries, err := d.readDir(dir)
		if err != nil {
			return err
		}
		for _, e := range entries {
			if !e.Type().IsRegular() || !strings.HasPrefix(e.Name(), ".tmp-") {
				continue
			}
			name := e.Name()
			if dir != "." {
				name = dir + "/" + name
			}
			if err := d.root.Remove(name); err != nil && !errors.Is(err, fs.ErrNotExist) {
				return fmt.Errorf("remove %s: %w", name, err)
			}
		}
	}
	return nil
}

// subdirs lists the real folders (not links) directly in dir.
func (d *Dir) subdirs(dir string) ([]string, error) {
	entries, err := d.readDir(dir)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, e := range entries {
		if e.IsDir() && e.Type()&fs.ModeSymlink == 0 {
			if dir == "." {
				out = append(out, e.Name())
			} else {
				out = append(out, dir+"/"+e.Name())
			}
		}
	}
	return out, nil
}

func (d *Dir) readDir(dir string) ([]fs.DirEntry, error) {
	if dir != "." {
		if err := d.regular(dir, true); err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil, nil
			}
			return nil, err
		}
	}
	f, err := d.root.Open(dir)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return f.ReadDir(-1)
}

// OpenForWrite opens the debate directory at dir for a command that writes
// it: Open, Lock (see there for wait), then Recover, so that the caller can
// load, validate and commit. Close releases the lock.
func OpenForWrite(ctx context.Context, dir, command string, wait bool) (*Dir, error) {
	d, err := Open(dir)
	if err != nil {
		return nil, err
	}
	if _, err := d.Lock(ctx, command, wait); err != nil {
		d.Close()
		return nil, err
	}
	if err := d.Recover(); err != nil {
		d.Close()
		return nil, err
	}
	return d, nil
}
