package serve

import (
	"container/list"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/moot-dev/moot/internal/live"
	"github.com/moot-dev/moot/store"
)

// DefaultCacheBytes is how many bytes of built pages a Server keeps when
// its Options leave CacheBytes 0.
const DefaultCacheBytes = 64 << 20

// pageCache keeps built pages by what they are (the debate's folder and
// which of its pages) and the debate's fingerprint when they were built,
// the least recently asked dropped first once their bytes pass the cap.
// The pages it keeps hold nothing of a request: no token, no address.
//
// A page is rebuilt by the first request that finds its debate changed,
// which waits for that build; the requests that come while it runs are
// answered the page built before, each with its own tag, rather than
// wait: a page is at most one build behind its debate.
type pageCache struct {
	mu    sync.Mutex
	limit int64
	used  int64
	order *list.List // of *entry, the most recently asked first
	byKey map[string]*list.Element
	// ids holds what is known of each debate's shallow fingerprint, by
	// its folder.
	ids map[string]*debateID
	// waits counts the requests that waited for another's build, for
	// tests.
	waits int
	// salt starts every tag this cache gives: a page another server
	// built for the same files (another moot, other prices) may differ.
	salt string
}

// maxIDs bounds pageCache.ids: past it, the fingerprints known are
// forgotten (and taken anew as their debates are asked for).
const maxIDs = 4096

// debateID is a debate's shallow fingerprint as last taken, with the
// stamp that tells whether it could have changed since.
type debateID struct {
	id    string
	stamp store.Stamp
	// walking is closed when the fingerprint being taken is; nil when
	// none is.
	walking chan struct{}
	ok      bool
}

// page is a page as built, before a request's own part is put in: its
// body, where that part goes, and the Content-Security-Policy it needs.
type page struct {
	body []byte
	cut  int
	csp  string
}

// entry is one page of one debate: the one last built, answered while the
// debate stands as it was, and the one being built.
type entry struct {
	key  string
	cur  *built
	next *built
}

// built is one page, built once for the shallow fingerprint id.
type built struct {
	// id is the debate's shallow fingerprint when the page was built,
	// deep its deep one (which names the page: its ETag), and checked
	// when deep was last found unchanged; checking says a request is
	// taking it again, changed that it was found changed.
	id, deep          string
	checked           time.Time
	checking, changed bool
	page
	err error
	// done is closed when body (or err) is set: the requests that ask
	// for the same page meanwhile wait for that one build, when no page
	// was built before it.
	done chan struct{}
}

func newPageCache(limit int64) *pageCache {
	return &pageCache{limit: limit, order: list.New(), byKey: map[string]*list.Element{}, ids: map[string]*debateID{}, salt: uniqueTag()[:8]}
}

// DeepEvery is how long a kept page is answered on the debate's shallow
// fingerprint alone before its deep one is taken again: how late, at
// most, a file below a folder of the debate rewritten in place by hand
// (not by moot, which always commits) is seen.
var DeepEvery = time.Second

// identity returns the shallow fingerprint of the debate at dir, false
// when the file system cannot give one. It is taken again only when the
// stamp of the last one shows a change: one lstat of each folder of the
// debate and of each file directly in it or in its .moot/, no folder
// read. A request that finds another taking it waits for that one.
func (c *pageCache) identity(dir string) (string, bool) {
	c.mu.Lock()
	d := c.ids[dir]
	if d == nil {
		if len(c.ids) >= maxIDs {
			clear(c.ids)
		}
		d = &debateID{}
		c.ids[dir] = d
	}
	stamp, id, ok, w := d.stamp, d.id, d.ok, d.walking
	c.mu.Unlock()
	if w == nil && ok && stamp.Unchanged() {
		return id, true
	}
	c.mu.Lock()
	if w = d.walking; w == nil {
		w = make(chan struct{})
		d.walking = w
		c.mu.Unlock()
		id, stamp, ok = fingerprint(dir)
		c.mu.Lock()
		d.id, d.stamp, d.ok, d.walking = id, stamp, ok, nil
		c.mu.Unlock()
		close(w)
		return id, ok
	}
	c.mu.Unlock()
	<-w
	c.mu.Lock()
	defer c.mu.Unlock()
	return d.id, d.ok
}

// get returns the page key as built for the debate's shallow fingerprint
// id (and its deep one, which deep takes): the one kept, or, when none is
// kept for them, the one build makes now, with the deep fingerprint it
// was built for, which names it ("" when the debate has none: the page
// is then not kept). The first request to find the page changed builds
// it; while it does, the others are answered the page built before, or,
// when there is none or fresh is set, wait for that build.
func (c *pageCache) get(key, id string, fresh bool, deep func() (string, bool), build func() (page, error)) (page, string, error) {
	c.mu.Lock()
	el, ok := c.byKey[key]
	if !ok {
		el = c.order.PushFront(&entry{key: key})
		c.byKey[key] = el
	}
	c.order.MoveToFront(el)
	e := el.Value.(*entry)
	for {
		if b := e.cur; b != nil && b.id == id && !b.changed {
			if b.checking || time.Since(b.checked) < DeepEvery {
				c.mu.Unlock()
				return b.page, b.deep, nil
			}
			// Due for its deep fingerprint: this request takes it, the
			// others meanwhile are answered the page.
			b.checking = true
			c.mu.Unlock()
			d, ok := deep()
			c.mu.Lock()
			b.checking = false
			if ok && d == b.deep {
				b.checked = time.Now()
				c.mu.Unlock()
				return b.page, b.deep, nil
			}
			b.changed = true
			continue // built again, unless another request does it
		}
		n := e.next
		if n == nil {
			break
		}
		if b := e.cur; b != nil && !fresh {
			c.mu.Unlock()
			return b.page, b.deep, nil
		}
		c.waits++
		c.mu.Unlock()
		<-n.done
		if !fresh || n.id == id || n.err != nil {
			return n.page, n.deep, n.err
		}
		// Built for an older fingerprint than the one this request saw.
		c.mu.Lock()
		if c.byKey[key] != el {
			// Dropped meanwhile (the cap): kept anew.
			el = c.order.PushFront(&entry{key: key})
			c.byKey[key] = el
			e = el.Value.(*entry)
		}
	}
	b := &built{id: id, done: make(chan struct{})}
	e.next = b
	c.mu.Unlock()
	func() {
		// A build that panics fails its waiters too, and is not kept.
		defer func() {
			if b.body == nil && b.err == nil {
				b.err = errBuildFailed
			}
			c.mu.Lock()
			if e.next == b {
				e.next = nil
			}
			if c.byKey[key] == el {
				switch {
				case b.err != nil || b.deep == "" || int64(len(b.body)) > c.limit:
					// A page that fails is not answered from before
					// either: the debate no longer reads.
					c.drop(el)
				default:
					if e.cur != nil {
						c.used -= int64(len(e.cur.body))
					}
					e.cur = b
					c.used += int64(len(b.body))
					c.evict(el)
				}
			}
			c.mu.Unlock()
			close(b.done)
		}()
		// Taken before the page is built: a change made while it is
		// built makes the next request build it again, never keeps it
		// stale.
		d, ok := deep()
		if ok {
			b.deep = d
			b.checked = time.Now()
		}
		p, err := build()
		if p.body == nil && err == nil {
			p.body = []byte{}
		}
		b.page, b.err = p, err
		// A change made while it was built may be in the page: the tag
		// taken before names the files as they stood before, which a
		// browser may hold another page of (from an earlier build or
		// server). Such a page gets a tag of its own, which names no
		// other, and is answered only until the next request rebuilds it.
		if after, ok := deep(); b.deep != "" && (!ok || after != b.deep) {
			b.deep, b.changed = uniqueTag(), true
		}
	}()
	return b.page, b.deep, b.err
}

// drop forgets the page of el; a request that waits for its build still
// gets it.
func (c *pageCache) drop(el *list.Element) {
	e := el.Value.(*entry)
	c.order.Remove(el)
	delete(c.byKey, e.key)
	if e.cur != nil {
		c.used -= int64(len(e.cur.body))
	}
}

// evict drops the least recently asked pages, never keep, until the kept
// bytes are within the cap.
func (c *pageCache) evict(keep *list.Element) {
	for el := c.order.Back(); el != nil && c.used > c.limit; {
		prev := el.Prev()
		if el != keep {
			c.drop(el)
		}
		el = prev
	}
}

// stats says how many pages are kept and their bytes, for tests.
func (c *pageCache) stats() (pages int, bytes int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for el := c.order.Front(); el != nil; el = el.Next() {
		if el.Value.(*entry).cur != nil {
			pages++
		}
	}
	return pages, c.used
}

// waited says how many requests waited for another's build, for tests.
func (c *pageCache) waited() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.waits
}

type buildError string

func (e buildError) Error() string { return string(e) }

const errBuildFailed = buildError("the page could not be built")

// fingerprint names the debate at dir as its files stand now, shallow
// (see store.Fingerprint), with the stamp that tells at a few system
// calls whether it could have changed since: it changes with every commit
// and every file added, removed or replaced, by moot or by hand.
func fingerprint(dir string) (string, store.Stamp, bool) {
	sum, stamp, err := store.ShallowFingerprint(dir, notShown)
	if err != nil {
		return "", store.Stamp{}, false
	}
	return base64.RawURLEncoding.EncodeToString(sum[:15]), stamp, true
}

// uniqueTag returns a name for a page that no other page has: random, as
// long as a fingerprint's name.
func uniqueTag() string {
	var b [15]byte
	rand.Read(b[:])
	return base64.RawURLEncoding.EncodeToString(b[:])
}

// deepFingerprint names the debate at dir as its files stand now, deep:
// it changes with every change to any of its files, by moot or by hand.
func deepFingerprint(dir string) (string, bool) {
	sum, err := store.Fingerprint(dir, notShown, true)
	if err != nil {
		return "", false
	}
	return base64.RawURLEncoding.EncodeToString(sum[:15]), true
}

// notShown says what of a debate's files its pages do not show, left out
// of its fingerprints: the live file, which a run rewrites at every call,
// the lock file, which names the process writing (taken and let go
// around every commit), and the temporary files of writes in progress.
func notShown(name string) bool {
	return name == store.PrivateDir+"/"+live.Name || name == store.LockFile || name == store.TempDir || strings.HasPrefix(name, store.TempDir+"/")
}

// etag is the entity tag of a page built for the fingerprint id whose
// request-made part (the links of its strip) is told by variant. It
// names no token: variant says only whether the links carry one.
func etag(id, variant string) string {
	if variant == "" {
		return `"` + id + `"`
	}
	v := sha256.Sum256([]byte(variant))
	return `"` + id + "-" + base64.RawURLEncoding.EncodeToString(v[:6]) + `"`
}

// variant is what of r goes into a page besides the debate: the path its
// links start from and whether they carry the token (never the token
// itself, which is the server's own whenever r was let in).
func variant(r *http.Request) string {
	v := strings.TrimSuffix(r.URL.EscapedPath(), "/")
	if tokenQuery(r) != "" {
		v += "?token"
	}
	return v
}

// notModified reports whether the request's If-None-Match names tag, so
// that the browser's copy is the page as it stands.
func notModified(r *http.Request, tag string) bool {
	for _, f := range r.Header.Values("If-None-Match") {
		for _, t := range strings.Split(f, ",") {
			t = strings.TrimPrefix(strings.TrimSpace(t), "W/")
			if t == tag || t == "*" {
				return true
			}
		}
	}
	return false
}

// sendCached answers r with the page kept under tag: 304 when the browser
// has it, else the body with part (the request's own) put in at cut. The
// browser may keep it but must ask again before using it.
func sendCached(w http.ResponseWriter, r *http.Request, tag string, p page, part []byte) {
	body, cut := p.body, p.cut
	h := w.Header()
	if p.csp != "" {
		h.Set("Content-Security-Policy", p.csp)
	}
	h.Set("Cache-Control", "private, no-cache")
	h.Set("ETag", tag)
	h.Add("Vary", "Authorization")
	if notModified(r, tag) {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	h.Set("Content-Length", strconv.Itoa(len(body)+len(part)))
	w.WriteHeader(http.StatusOK)
	if r.Method == http.MethodHead {
		return
	}
	if _, err := w.Write(body[:cut]); err != nil {
		return
	}
	if len(part) > 0 {
		if _, err := w.Write(part); err != nil {
			return
		}
	}
	w.Write(body[cut:])
}
