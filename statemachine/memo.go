package statemachine

import "sync"

// Memo keeps what decoding a debate's files gave, by the files' content.
// A driver loads a debate again for every step it plans and takes, and a
// protocol's record files, once written, stay as they are: reading the
// same bytes again gives the same record, so a load decodes only the
// files that are new. What a Memo gives is shared between loads and must
// never be changed by its readers. It forgets all once it holds
// MemoLimit files or MemoBytes bytes of them, so a long-lived process
// (serve) keeps no more.
type Memo[T any] struct {
	mu sync.Mutex
	// by holds, by kind, each file's record by its content.
	by    map[string]map[string]memoEntry[T]
	n     int
	bytes int
}

// memoEntry is what reading a file gave: its record, or the error that
// refused it.
type memoEntry[T any] struct {
	rec T
	err error
}

// MemoLimit and MemoBytes are the number of files and of their bytes a
// Memo holds before it forgets them.
const (
	MemoLimit = 8192
	MemoBytes = 32 << 20
)

// Read returns what decode gives for data, decoding it only the first
// time these bytes are read as this kind (a protocol's output format,
// for one): other bytes, an edited file's, are decoded anew.
func (m *Memo[T]) Read(kind string, data []byte, decode func() (T, error)) (T, error) {
	m.mu.Lock()
	e, ok := m.by[kind][string(data)]
	m.mu.Unlock()
	if ok {
		return e.rec, e.err
	}
	e.rec, e.err = decode()
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.by == nil || m.n >= MemoLimit || m.bytes+len(data) > MemoBytes {
		m.by, m.n, m.bytes = map[string]map[string]memoEntry[T]{}, 0, 0
	}
	if m.by[kind] == nil {
		m.by[kind] = map[string]memoEntry[T]{}
	}
	m.by[kind][string(data)] = e
	m.n++
	m.bytes += len(data)
	return e.rec, e.err
}
