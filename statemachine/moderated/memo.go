package moderated

import "sync"

// A driver loads a debate again for every step it plans and takes, and a
// message or score file, once written, stays as it is: reading the same
// bytes again gives the same record. memo keeps what this process has
// read, by output format and file content, so that a load decodes only
// the files that are new. What it gives is shared between loads and is
// never changed: a Score's Names, Marks and Missing and a Message's
// Citations are only read. It forgets all once it holds memoLimit files,
// so a long-lived process (serve) keeps no more than that.
type memo[T any] struct {
	mu sync.Mutex
	// by holds, by output format, each file's record by its content.
	by map[string]map[string]memoEntry[T]
	n  int
}

// memoEntry is what reading a file gave: its record and text, or the
// error that refused it.
type memoEntry[T any] struct {
	rec  T
	body string
	err  error
}

// memoLimit is the number of files a memo holds before it forgets them.
const memoLimit = 8192

var (
	messageMemo memo[Message]
	scoreMemo   memo[Score]
)

// read returns what decode gives for data in format f, decoding it only
// the first time these bytes are read.
func (m *memo[T]) read(f string, data []byte, decode func() (T, string, error)) (T, string, error) {
	m.mu.Lock()
	e, ok := m.by[f][string(data)]
	m.mu.Unlock()
	if ok {
		return e.rec, e.body, e.err
	}
	e.rec, e.body, e.err = decode()
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.by == nil || m.n >= memoLimit {
		m.by, m.n = map[string]map[string]memoEntry[T]{}, 0
	}
	if m.by[f] == nil {
		m.by[f] = map[string]memoEntry[T]{}
	}
	m.by[f][string(data)] = e
	m.n++
	return e.rec, e.body, e.err
}
