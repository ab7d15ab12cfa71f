// Package live tells other processes what a running debate is doing now,
// and follows a debate's files as other processes write them: the live
// file that `moot run` keeps under .moot/, the watcher that `moot watch`
// and `moot serve` wait on, and the terminal view of `moot watch`.
//
// Nothing here takes a debate's lock or waits for a writer: the live file
// is written by the lock holder, atomically, and read by anyone.
package live

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"sync"
	"time"

	"github.com/moot-dev/moot/internal/frontmatter"
	"github.com/moot-dev/moot/store"
)

// Name is the live file, under the debate's .moot/ folder.
const Name = "live.json"

// Path is the live file's path inside the debate directory.
const Path = store.PrivateDir + "/" + Name

// MaxSize bounds the live file a reader accepts: a few calls take a few
// hundred bytes.
const MaxSize = 64 << 10

// State is what the live file holds: the run under way and the calls it
// is waiting for.
type State struct {
	PID     int       `json:"pid"`
	Command string    `json:"command"`
	Started time.Time `json:"started"`
	Updated time.Time `json:"updated"`
	// Unit is the unit (dialectic's exchange) of the step under way, and
	// UnitName what the protocol calls it.
	Unit     int    `json:"unit"`
	UnitName string `json:"unit_name,omitempty"`
	// Calls are the model calls in flight, in the order they were asked.
	Calls []Call `json:"calls"`
	// Finished is set when the run has ended, should the file outlive it.
	Finished *time.Time `json:"finished,omitempty"`
}

// Call is one model call in flight.
type Call struct {
	Role    string    `json:"role"`
	Model   string    `json:"model,omitempty"`
	Started time.Time `json:"started"`
}

// Writer is where a Recorder keeps the live file: a store.Dir.
type Writer interface {
	WriteVolatile(name string, data []byte) error
	RemovePrivate(name string) error
}

// Recorder keeps the live file of one run up to date. It writes on the
// events that change what a watcher shows (a call asked, a call answered,
// a step committed), never on the pieces of an answer. Its methods may be
// called from several goroutines. A write that fails is reported once to
// warn and otherwise ignored: the live file is a courtesy to watchers and
// never stops a run.
type Recorder struct {
	mu    sync.Mutex
	w     Writer
	st    State
	warn  func(error)
	fails int
}

// NewRecorder starts the live file of a run of command by process pid.
func NewRecorder(w Writer, pid int, command, unitName string, now time.Time, warn func(error)) *Recorder {
	if warn == nil {
		warn = func(error) {}
	}
	r := &Recorder{w: w, warn: warn, st: State{PID: pid, Command: command, Started: now.UTC(), Updated: now.UTC(), UnitName: unitName, Calls: []Call{}}}
	r.mu.Lock()
	r.write()
	r.mu.Unlock()
	return r
}

// Ask records that role is being asked, on model, for unit.
func (r *Recorder) Ask(unit int, role, model string, now time.Time) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.st.Unit = unit
	r.st.Calls = append(r.st.Calls, Call{Role: role, Model: model, Started: now.UTC()})
	r.st.Updated = now.UTC()
	r.write()
}

// Answer records that a call of role ended: answered, or failed. model,
// when it matches, tells apart the calls of one role on several models (a
// panel's judges); a server may name its model otherwise, so the first
// call of the role is taken when none matches.
func (r *Recorder) Answer(role, model string, now time.Time) {
	r.mu.Lock()
	defer r.mu.Unlock()
	at := -1
	for i, c := range r.st.Calls {
		if c.Role != role {
			continue
		}
		if c.Model == model {
			at = i
			break
		}
		if at < 0 {
			at = i
		}
	}
	if at < 0 {
		return
	}
	r.st.Calls = append(r.st.Calls[:at:at], r.st.Calls[at+1:]...)
	r.st.Updated = now.UTC()
	r.write()
}

// Commit records that a step of unit was committed: no call of it is in
// flight any more. It writes only when that changes the file: a step's
// commit says what it did in several events, and watchers learn of the
// commit itself from the debate's files.
func (r *Recorder) Commit(unit int, now time.Time) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.st.Calls) == 0 && r.st.Unit == unit {
		return
	}
	r.st.Unit = unit
	r.st.Calls = []Call{}
	r.st.Updated = now.UTC()
	r.write()
}

// Close ends the run's live file: it is removed.
func (r *Recorder) Close() {
	r.mu.Lock()
	defer r.mu.Unlock()
	if err := r.w.RemovePrivate(Name); err != nil {
		r.fail(err)
	}
}

func (r *Recorder) write() {
	data, err := json.Marshal(r.st)
	if err == nil {
		err = r.w.WriteVolatile(Name, append(data, '\n'))
	}
	if err != nil {
		r.fail(err)
	}
}

func (r *Recorder) fail(err error) {
	r.fails++
	if r.fails == 1 {
		r.warn(fmt.Errorf("cannot keep %s for watchers: %w", Path, err))
	}
}

// Reader is what Read needs of a debate: a store.Dir.
type Reader interface {
	ReadPrivate(name string) ([]byte, error)
	Writer() *store.Holder
}

// Read returns the run under way in the debate, nil when there is none:
// no live file, a finished one, or one whose process no longer holds the
// debate's lock (it was killed, so it could not remove its file).
func Read(d Reader) (*State, error) {
	data, err := d.ReadPrivate(Name)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	st, err := Parse(data)
	if err != nil || st.Finished != nil {
		return nil, err
	}
	if h := d.Writer(); h == nil || h.PID != st.PID {
		return nil, nil
	}
	return st, nil
}

// Parse reads a live file.
func Parse(data []byte) (*State, error) {
	if len(data) > MaxSize {
		return nil, fmt.Errorf("%s: over %d bytes", Path, MaxSize)
	}
	var st State
	if err := frontmatter.Unmarshal(data, &st); err != nil {
		return nil, fmt.Errorf("%s: %w", Path, err)
	}
	return &st, nil
}
