package live

import (
	"context"
	"crypto/sha256"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/fsnotify/fsnotify"

	"github.com/moot-dev/moot/store"
)

// Poll is how often Watch looks at a debate's files even when the file
// system sends no notice: a safety net for file systems that send none
// (some network and container mounts), and the whole of the watch where
// no notifier can be made.
const Poll = time.Second

// settle is how long Watch waits after a notice for the ones that follow
// it: a commit renames several files in a row.
const settle = 15 * time.Millisecond

// Watch calls changed once at the start and then whenever the debate at
// dir may have changed, until ctx ends: a step committed, a journal
// written or removed, the live file replaced. It waits on the file
// system's notices (fsnotify) on the debate's folder and its .moot/
// folder, and also looks every Poll at a signature of the files that
// change with every step, so that nothing is missed where notices do not
// come. It only reads, and never takes the debate's lock.
//
// changed is called from Watch's goroutine, one call at a time; a reader
// that finds the debate half-written may simply wait for the next call.
func Watch(ctx context.Context, dir string, changed func()) error {
	w, err := fsnotify.NewWatcher()
	var events chan fsnotify.Event
	if err == nil {
		defer w.Close()
		for _, sub := range []string{dir, filepath.Join(dir, store.PrivateDir)} {
			// .moot/ may not exist yet (a debate made by another tool):
			// the poll covers it until then.
			_ = w.Add(sub)
		}
		events = w.Events
	}
	last := Signature(dir)
	changed()
	tick := time.NewTicker(Poll)
	defer tick.Stop()
	var settleC <-chan time.Time
	for {
		select {
		case <-ctx.Done():
			return nil
		case _, ok := <-events:
			if !ok {
				events = nil
				continue
			}
			if settleC == nil {
				settleC = time.After(settle)
			}
		case <-errorsOf(w):
			// An overflow or a lost watch: the poll still runs.
		case <-settleC:
			settleC = nil
			last = Signature(dir)
			changed()
		case <-tick.C:
			if w != nil {
				// .moot/ may have appeared since.
				_ = w.Add(filepath.Join(dir, store.PrivateDir))
			}
			if s := Signature(dir); s != last {
				last = s
				changed()
			}
		}
	}
}

func errorsOf(w *fsnotify.Watcher) <-chan error {
	if w == nil {
		return nil
	}
	return w.Errors
}

// watched are the files whose change Signature sees: the state file,
// which every step rewrites last, the last commit's mark, the journal of
// a commit in progress, and the live file.
var watched = []string{"debate.md", store.CommitFile, store.JournalFile, Path}

// Signature sums what a reader can tell of the files that change with
// every step and every call, without reading the debate: their sizes,
// times and identities. Two equal signatures mean, as far as the poll can
// tell, that nothing changed.
func Signature(dir string) [32]byte {
	h := sha256.New()
	for _, name := range watched {
		info, err := os.Lstat(filepath.Join(dir, filepath.FromSlash(name)))
		if err != nil {
			h.Write([]byte(name + " none\n"))
			continue
		}
		h.Write([]byte(name + " " + info.ModTime().UTC().Format(time.RFC3339Nano) + " " + strconv.FormatInt(info.Size(), 10) + " " + inode(info) + "\n"))
	}
	var out [32]byte
	copy(out[:], h.Sum(nil))
	return out
}
