package live

import (
	"context"
	"path/filepath"
	"sync"

	"github.com/fsnotify/fsnotify"

	"github.com/moot-dev/moot/store"
)

// Hub follows any number of debates for any number of readers with one
// file-system notifier: moot serve gives every event stream it serves
// the same Hub, so that open pages cost no inotify instance each (a user
// has 128 by default, shared with every other program). A folder is
// watched while at least one reader follows it.
//
// A Hub is safe for concurrent use; its zero value is not usable: make
// one with NewHub, and Close it when done.
type Hub struct {
	mu sync.Mutex
	// w is the one notifier, made on the first Watch; nil when none
	// could be made, and the poll then does it all.
	w      *fsnotify.Watcher
	tried  bool
	closed bool
	// dirs holds the readers of each debate folder followed.
	dirs map[string]map[chan struct{}]bool
}

// NewHub returns a Hub that watches nothing yet.
func NewHub() *Hub { return &Hub{dirs: map[string]map[chan struct{}]bool{}} }

// Watch is Watch of the package, on the Hub's one notifier: it calls
// changed once at the start and then whenever the debate at dir may
// have changed, until ctx ends.
func (h *Hub) Watch(ctx context.Context, dir string, changed func()) error {
	dir = filepath.Clean(dir)
	notices := make(chan struct{}, 1)
	h.join(dir, notices)
	defer h.leave(dir, notices)
	follow(ctx, dir, notices, func() { h.addPrivate(dir) }, changed)
	return nil
}

// join adds a reader of dir, watching dir and its .moot/ for the first.
// The notifier is made on the first join.
func (h *Hub) join(dir string, notices chan struct{}) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if !h.tried && !h.closed {
		h.tried = true
		if w, err := fsnotify.NewWatcher(); err == nil {
			h.w = w
			go h.dispatch(w)
		}
	}
	readers := h.dirs[dir]
	if readers == nil {
		readers = map[chan struct{}]bool{}
		h.dirs[dir] = readers
		if h.w != nil {
			// .moot/ may not exist yet: the poll adds it later.
			_ = h.w.Add(dir)
			_ = h.w.Add(filepath.Join(dir, store.PrivateDir))
		}
	}
	readers[notices] = true
}

// leave removes a reader of dir, and stops watching dir after the last.
func (h *Hub) leave(dir string, notices chan struct{}) {
	h.mu.Lock()
	defer h.mu.Unlock()
	readers := h.dirs[dir]
	delete(readers, notices)
	if len(readers) > 0 {
		return
	}
	delete(h.dirs, dir)
	if h.w != nil {
		_ = h.w.Remove(filepath.Join(dir, store.PrivateDir))
		_ = h.w.Remove(dir)
	}
}

// addPrivate watches dir's .moot/, which may have appeared since dir was
// first followed.
func (h *Hub) addPrivate(dir string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.w != nil && h.dirs[dir] != nil {
		_ = h.w.Add(filepath.Join(dir, store.PrivateDir))
	}
}

// dispatch hands each notice of w to the readers of the debate it
// concerns: a file of the debate's folder or of its .moot/.
func (h *Hub) dispatch(w *fsnotify.Watcher) {
	for {
		select {
		case e, ok := <-w.Events:
			if !ok {
				return
			}
			parent := filepath.Dir(e.Name)
			h.mu.Lock()
			readers := h.dirs[parent]
			if readers == nil && filepath.Base(parent) == store.PrivateDir {
				readers = h.dirs[filepath.Dir(parent)]
			}
			for ch := range readers {
				notify(ch)
			}
			h.mu.Unlock()
		case _, ok := <-w.Errors:
			// An overflow or a lost watch: the poll still runs.
			if !ok {
				return
			}
		}
	}
}

// Close releases the notifier. The readers still following go on by the
// poll alone until their contexts end.
func (h *Hub) Close() {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.closed = true
	if h.w != nil {
		h.w.Close()
		h.w = nil
	}
}
