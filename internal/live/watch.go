package live

import (
	"context"
	"path/filepath"
	"time"

	"github.com/fsnotify/fsnotify"

	sm "github.com/moot-dev/moot/statemachine"
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
	var events <-chan struct{}
	add := func() {}
	if err == nil {
		defer w.Close()
		for _, sub := range []string{dir, filepath.Join(dir, store.PrivateDir)} {
			// .moot/ may not exist yet (a debate made by another tool):
			// the poll covers it until then.
			_ = w.Add(sub)
		}
		notices := make(chan struct{}, 1)
		go func() {
			for {
				select {
				case _, ok := <-w.Events:
					if !ok {
						return
					}
					notify(notices)
				case _, ok := <-w.Errors:
					// An overflow or a lost watch: the poll still runs.
					if !ok {
						return
					}
				}
			}
		}()
		events = notices
		// .moot/ may have appeared since.
		add = func() { _ = w.Add(filepath.Join(dir, store.PrivateDir)) }
	}
	follow(ctx, dir, events, add, changed)
	return nil
}

// notify tells a follower that a notice came, without waiting: one
// notice pending is as good as many.
func notify(ch chan struct{}) {
	select {
	case ch <- struct{}{}:
	default:
	}
}

// follow calls changed at once and then whenever a notice comes on
// events (settled) or the poll sees the debate's signature change, until
// ctx ends; poll is called at every tick, to add what could not be
// watched at first.
func follow(ctx context.Context, dir string, events <-chan struct{}, poll func(), changed func()) {
	last := Signature(dir)
	changed()
	tick := time.NewTicker(Poll)
	defer tick.Stop()
	var settleC <-chan time.Time
	for {
		select {
		case <-ctx.Done():
			return
		case <-events:
			if settleC == nil {
				settleC = time.After(settle)
			}
		case <-settleC:
			settleC = nil
			last = Signature(dir)
			changed()
		case <-tick.C:
			poll()
			if s := Signature(dir); s != last {
				last = s
				changed()
			}
		}
	}
}

// watched are the files whose change Signature sees: the state file,
// which every step rewrites last, the last commit's mark, the journal of
// a commit in progress, and the live file.
var watched = []string{sm.StateFile, store.CommitFile, store.JournalFile, Path}

// Signature sums what a reader can tell of the files that change with
// every step and every call, without reading the debate (see
// store.Signature).
func Signature(dir string) [32]byte { return store.Signature(dir, watched...) }
