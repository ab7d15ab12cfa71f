package serve

import (
	"container/list"
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
type pageCache struct {
	mu    sync.Mutex
	limit int64
	used  int64
	order *list.List // of *built, the most recently asked first
	byKey map[string]*list.Element
}

// page is a page as built, before a request's own part is put in: its
// body, where that part goes, and the Content-Security-Policy it needs.
type page struct {
	body []byte
	cut  int
	csp  string
}

// built is one page, built once for the fingerprint id.
type built struct {
	// id is the debate's shallow fingerprint when the page was built,
	// deep its deep one, and checked when deep was last found unchanged.
	key, id, deep string
	checked       time.Time
	page
	err error
	// done is closed when body (or err) is set: the requests that ask
	// for the same page meanwhile wait for that one build.
	done chan struct{}
}

func newPageCache(limit int64) *pageCache {
	return &pageCache{limit: limit, order: list.New(), byKey: map[string]*list.Element{}}
}

// DeepEvery is how long a kept page is answered on the debate's shallow
// fingerprint alone before its deep one is taken again: how late, at
// most, a file below a folder of the debate rewritten in place by hand
// (not by moot, which always commits) is seen.
var DeepEvery = time.Second

// get returns the page key as built for the debate's shallow fingerprint
// id (and its deep one, which deep takes): the one kept, or, when none is
// kept for them, the one build makes now, with the deep fingerprint it
// was built for, which names it. Requests that ask for the same page
// while it is built wait for that build.
func (c *pageCache) get(key, id string, deep func() (string, bool), build func() (page, error)) (page, string, error) {
	c.mu.Lock()
	if el, ok := c.byKey[key]; ok && el.Value.(*built).id == id {
		b := el.Value.(*built)
		c.order.MoveToFront(el)
		c.mu.Unlock()
		<-b.done
		c.mu.Lock()
		fresh := time.Since(b.checked) < DeepEvery
		c.mu.Unlock()
		if fresh || b.err != nil {
			return b.page, b.deep, b.err
		}
		if d, ok := deep(); ok && d == b.deep {
			c.mu.Lock()
			b.checked = time.Now()
			c.mu.Unlock()
			return b.page, b.deep, nil
		}
	} else {
		c.mu.Unlock()
	}
	// Taken before the page is built: a change made while it is built
	// makes the next request build it again, never keeps it stale.
	d, ok := deep()
	if !ok {
		p, err := build()
		return p, "", err
	}
	c.mu.Lock()
	if el, ok := c.byKey[key]; ok {
		if b := el.Value.(*built); b.id == id && b.deep == d {
			// Another request is building (or built) this very page.
			c.order.MoveToFront(el)
			c.mu.Unlock()
			<-b.done
			return b.page, b.deep, b.err
		}
		c.drop(el)
	}
	b := &built{key: key, id: id, deep: d, checked: time.Now(), done: make(chan struct{})}
	el := c.order.PushFront(b)
	c.byKey[key] = el
	c.mu.Unlock()

	func() {
		// A build that panics fails its waiters too, and is not kept.
		defer func() {
			if b.body == nil && b.err == nil {
				b.err = errBuildFailed
			}
			c.mu.Lock()
			if b.err != nil || int64(len(b.body)) > c.limit {
				if c.byKey[key] == el {
					c.drop(el)
				}
			} else if c.byKey[key] == el {
				c.used += int64(len(b.body))
				c.evict(el)
			}
			c.mu.Unlock()
			close(b.done)
		}()
		p, err := build()
		if p.body == nil && err == nil {
			p.body = []byte{}
		}
		b.page, b.err = p, err
	}()
	return b.page, b.deep, b.err
}

// drop forgets the page of el; a request that waits for it still gets it.
func (c *pageCache) drop(el *list.Element) {
	b := el.Value.(*built)
	c.order.Remove(el)
	delete(c.byKey, b.key)
	select {
	case <-b.done:
		c.used -= int64(len(b.body))
	default:
		// Still being built: its bytes were never counted.
	}
}

// evict drops the least recently asked pages, never keep, until the kept
// bytes are within the cap.
func (c *pageCache) evict(keep *list.Element) {
	for el := c.order.Back(); el != nil && c.used > c.limit; {
		prev := el.Prev()
		if el != keep {
			select {
			case <-el.Value.(*built).done:
				c.drop(el)
			default:
			}
		}
		el = prev
	}
}

// stats says how many pages are kept and their bytes, for tests.
func (c *pageCache) stats() (pages int, bytes int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.order.Len(), c.used
}

type buildError string

func (e buildError) Error() string { return string(e) }

const errBuildFailed = buildError("the page could not be built")

// fingerprint names the debate at dir as its files stand now, shallow or
// deep (see store.Fingerprint): the deep one changes with every commit and
// every change to any of its files, by moot or by hand, the shallow one
// with every commit and every file added, removed or replaced, at a few
// system calls. What a page does not show is left out: the live file, which a run
// rewrites at every call, and the temporary files of writes in progress.
func fingerprint(dir string, deep bool) (string, bool) {
	sum, err := store.Fingerprint(dir, func(name string) bool {
		return name == store.PrivateDir+"/"+live.Name || name == store.TempDir || strings.HasPrefix(name, store.TempDir+"/")
	}, deep)
	if err != nil {
		return "", false
	}
	return base64.RawURLEncoding.EncodeToString(sum[:15]), true
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
