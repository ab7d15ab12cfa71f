package live

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/moot-dev/moot/internal/termwidth"
	sm "github.com/moot-dev/moot/statemachine"
	"github.com/moot-dev/moot/store"
)

// memWriter keeps the live file in memory and counts the writes.
type memWriter struct {
	mu      sync.Mutex
	data    []byte
	writes  int
	removed bool
	err     error
}

func (w *memWriter) WriteVolatile(name string, data []byte) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.err != nil {
		return w.err
	}
	w.data, w.writes = bytes.Clone(data), w.writes+1
	return nil
}

func (w *memWriter) RemovePrivate(name string) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.data, w.removed = nil, true
	return nil
}

func (w *memWriter) state(t *testing.T) State {
	t.Helper()
	w.mu.Lock()
	defer w.mu.Unlock()
	st, err := Parse(w.data)
	if err != nil {
		t.Fatal(err)
	}
	return *st
}

func roles(st State) string {
	var out []string
	for _, c := range st.Calls {
		out = append(out, c.Role+"@"+c.Model)
	}
	return strings.Join(out, ",")
}

func TestRecorder(t *testing.T) {
	at := time.Date(2025, 1, 1, 12, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		name   string
		do     func(r *Recorder)
		calls  string
		unit   int
		writes int
	}{
		{"started", func(r *Recorder) {}, "", 0, 1},
		{"two asked", func(r *Recorder) {
			r.Ask(2, "proposition", "m1", at)
			r.Ask(2, "opposition", "m2", at)
		}, "proposition@m1,opposition@m2", 2, 3},
		{"one answered", func(r *Recorder) {
			r.Ask(2, "proposition", "m1", at)
			r.Ask(2, "opposition", "m2", at)
			r.Answer("proposition", "m1", at)
		}, "opposition@m2", 2, 4},
		{"a panel's judge answered by a dated model", func(r *Recorder) {
			r.Ask(1, "judge", "a", at)
			r.Ask(1, "judge", "b", at)
			r.Answer("judge", "b", at)
			r.Answer("judge", "a-2024", at)
		}, "", 1, 5},
		{"an answer nobody asked for writes nothing", func(r *Recorder) {
			r.Answer("judge", "x", at)
		}, "", 0, 1},
		{"committed with a call left in flight", func(r *Recorder) {
			r.Ask(3, "judge", "m", at)
			r.Commit(3, at)
		}, "", 3, 3},
		{"a commit's many events write once", func(r *Recorder) {
			r.Ask(3, "judge", "m", at)
			r.Answer("judge", "m", at)
			r.Commit(3, at)
			r.Commit(3, at)
			r.Commit(3, at)
		}, "", 3, 3},
		{"a commit that moves to the next unit", func(r *Recorder) {
			r.Commit(4, at)
			r.Commit(4, at)
		}, "", 4, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := &memWriter{}
			r := NewRecorder(w, 42, "moot run x", "exchange", at, nil)
			tc.do(r)
			st := w.state(t)
			if got := roles(st); got != tc.calls {
				t.Errorf("calls %q, want %q", got, tc.calls)
			}
			if st.Unit != tc.unit || st.PID != 42 || st.UnitName != "exchange" {
				t.Errorf("state %+v", st)
			}
			if w.writes != tc.writes {
				t.Errorf("%d writes, want %d", w.writes, tc.writes)
			}
			r.Close()
			if !w.removed {
				t.Error("Close left the file")
			}
		})
	}
}

func TestRecorderWarnsOnce(t *testing.T) {
	w := &memWriter{err: errors.New("disk full")}
	var warned []string
	r := NewRecorder(w, 1, "moot run x", "exchange", time.Now(), func(err error) { warned = append(warned, err.Error()) })
	r.Ask(0, "judge", "m", time.Now())
	r.Commit(0, time.Now())
	if len(warned) != 1 || !strings.Contains(warned[0], "disk full") {
		t.Errorf("warnings %q, want one naming the error", warned)
	}
}

// fakeReader is a debate whose live file and lock holder are given.
type fakeReader struct {
	data   []byte
	holder *store.Holder
}

func (f fakeReader) ReadPrivate(string) ([]byte, error) {
	if f.data == nil {
		return nil, fs.ErrNotExist
	}
	return f.data, nil
}
func (f fakeReader) Writer() *store.Holder { return f.holder }

func TestRead(t *testing.T) {
	file, _ := json.Marshal(State{PID: 7, Command: "moot run x", Calls: []Call{{Role: "judge"}}})
	finished := time.Now()
	done, _ := json.Marshal(State{PID: 7, Finished: &finished})
	for _, tc := range []struct {
		name string
		r    fakeReader
		want bool
		err  bool
	}{
		{"no file", fakeReader{}, false, false},
		{"its writer holds the lock", fakeReader{file, &store.Holder{PID: 7}}, true, false},
		{"nobody holds the lock: a killed run's file", fakeReader{file, nil}, false, false},
		{"another process holds the lock", fakeReader{file, &store.Holder{PID: 8}}, false, false},
		{"finished", fakeReader{done, &store.Holder{PID: 7}}, false, false},
		{"half a file", fakeReader{file[:10], &store.Holder{PID: 7}}, false, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st, err := Read(tc.r)
			if (err != nil) != tc.err {
				t.Fatalf("error %v, want error %v", err, tc.err)
			}
			if (st != nil) != tc.want {
				t.Errorf("state %+v, want one: %v", st, tc.want)
			}
		})
	}
}

func TestMotion(t *testing.T) {
	for _, tc := range []struct{ name, file, want string }{
		{"dialectic", "{\n  \"debate_id\": \"x\"\n}\n\n# Motion\n\nThis house would <b>act</b>.\n\n## Scope\n\nAll.\n", "This house would <b>act</b>."},
		{"forum's topic", "{\n  \"protocol\": \"forum\"\n}\n\n# Topic\n\nCats are better\nthan dogs\n\n## More\n", "Cats are better than dogs"},
		{"no frontmatter", "# Motion\n\nx\n", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := Motion([]byte(tc.file)); got != tc.want {
				t.Errorf("Motion = %q, want %q", got, tc.want)
			}
		})
	}
}

func TestRenderKeepsTerminalSafe(t *testing.T) {
	score := -0.5
	s := &Snapshot{Slug: "x", Protocol: "dialectic", Motion: "evil \x1b[2J\x1b]0;pwned\x07 motion\u202e",
		Status:  sm.Status{Unit: "exchange", Done: 1, Phase: "awaiting_judgment"},
		Entries: []Entry{{ID: "prop_000a", Unit: 0, Role: "proposition", Title: "a\rb\x9bc", Score: &score}},
		Live:    &State{PID: 1, Command: "moot run x", UnitName: "exchange", Unit: 1, Calls: []Call{{Role: "judge", Model: "m\x1b[31m", Started: time.Now()}}}}
	var b bytes.Buffer
	if err := Render(&b, s, 60, time.Now()); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, bad := range []string{"\x1b", "\x07", "\r", "\x9b", "\u202e"} {
		if strings.Contains(out, bad) {
			t.Errorf("the view holds %q:\n%s", bad, out)
		}
	}
	for _, want := range []string{"asking", "judge on m", "scores by exchange", "-0.50", "prop_000a"} {
		if !strings.Contains(out, want) {
			t.Errorf("the view lacks %q:\n%s", want, out)
		}
	}
	for _, line := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
		if n := len([]rune(line)); n > 60 {
			t.Errorf("line of %d columns: %q", n, line)
		}
	}
}

// TestRenderFitsWideCharacters renders a debate whose texts are in CJK
// and emoji, which take two columns of a terminal each: every line must
// fit the width in columns, not in runes, and the chart's axis must stand
// in the same column on every row, whatever the width of the role's name.
func TestRenderFitsWideCharacters(t *testing.T) {
	const width = 50
	up, down := 0.4, -0.3
	s := &Snapshot{Slug: "tea", Protocol: "panel", Motion: strings.Repeat("茶は珈琲より良い飲み物である。", 4),
		Status: sm.Status{Unit: "round", Done: 1, Lines: []sm.Line{{Label: "話題", Text: strings.Repeat("討論", 30)}}},
		Entries: []Entry{
			{ID: "r1-a", Unit: 1, Role: "王小明", Title: strings.Repeat("🙂👍🏽", 20), Score: &up},
			{ID: "r1-b", Unit: 1, Role: "ann", Title: "plain", Score: &down},
			{ID: "r1-c", Unit: 1, Role: "🇫🇷 Élodie Lefèvre-Dupont", Title: "x", Score: &up},
		},
		Live: &State{PID: 1, Command: "moot run tea", UnitName: "round", Unit: 2, Calls: []Call{{Role: "王小明", Model: "模型", Started: time.Now()}}}}
	var b bytes.Buffer
	if err := Render(&b, s, width, time.Now()); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	axis := -1
	for _, line := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
		if n := termwidth.Width(line); n > width {
			t.Errorf("line of %d columns, more than %d: %q", n, width, line)
		}
		if before, _, ok := strings.Cut(line, "│"); ok {
			if col := termwidth.Width(before); axis < 0 {
				axis = col
			} else if col != axis {
				t.Errorf("the chart's axis stands in column %d here, %d above: %q", col, axis, line)
			}
		}
	}
	if axis < 0 {
		t.Errorf("the view has no chart:\n%s", out)
	}
	for _, want := range []string{"茶は珈琲", "王小明", "🙂👍🏽", "…"} {
		if !strings.Contains(out, want) {
			t.Errorf("the view lacks %q:\n%s", want, out)
		}
	}
}

// TestWatchSeesChanges writes the files a step writes and expects Watch
// to call again within a second, by notice or by poll.
func TestWatchSeesChanges(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, ".moot"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"debate.md", ".moot/commit", ".moot/live.json"} {
		t.Run(name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			calls := make(chan struct{}, 100)
			go Watch(ctx, dir, func() { calls <- struct{}{} })
			<-calls // the first call, at the start
			time.Sleep(50 * time.Millisecond)
			if err := os.WriteFile(filepath.Join(dir, name), []byte(name+time.Now().String()), 0o644); err != nil {
				t.Fatal(err)
			}
			select {
			case <-calls:
			case <-time.After(time.Minute):
				// Only a guard: the call comes by notice or by poll.
				t.Fatalf("no call within a minute of writing %s", name)
			}
		})
	}
}
