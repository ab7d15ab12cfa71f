package cli

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io"
	"io/fs"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/moot-dev/moot/internal/live"
	"github.com/moot-dev/moot/internal/testkit/modeltest"
	sm "github.com/moot-dev/moot/statemachine"
	"github.com/moot-dev/moot/statemachine/dialectic"
	"github.com/moot-dev/moot/statemachine/dialectic/dialectictest/sparring"
	"github.com/moot-dev/moot/statemachine/forum"
)

// liveEnv is a debates root and the environment of moot processes that
// run in it against the model server at url.
type liveEnv struct {
	t    *testing.T
	bin  string
	root string
	env  []string
}

func newLiveEnv(t *testing.T, url string) *liveEnv {
	root := t.TempDir()
	return &liveEnv{t: t, bin: mootBinary(t), root: root,
		env: append(os.Environ(), "OPENAI_BASE_URL="+url, "OPENAI_API_KEY=", "MOOT_DIR="+root, "MOOT_MODEL=", "NO_COLOR=1", "MOOT_TOKEN=")}
}

func (e *liveEnv) cmd(args ...string) *exec.Cmd {
	c := exec.Command(e.bin, args...)
	c.Env = e.env
	return c
}

func (e *liveEnv) must(args ...string) string {
	e.t.Helper()
	out, err := e.cmd(args...).CombinedOutput()
	if err != nil {
		e.t.Fatalf("moot %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// TestLiveFileDuringRun runs a debate against a slow model and reads its
// live file from outside while it runs: it names the calls in flight, and
// it is gone when the run ends.
func TestLiveFileDuringRun(t *testing.T) {
	if testing.Short() {
		t.Skip("runs moot against a slow model server")
	}
	// Each role's call is held until the live file has named it (or a
	// minute's guard, the test failing then), so that a reader that a
	// loaded machine lets read only now and then still sees it in flight.
	roles := []string{modeltest.Proposition, modeltest.Opposition, modeltest.Judge}
	held, once := map[string]chan struct{}{}, map[string]*sync.Once{}
	for _, role := range roles {
		held[role], once[role] = make(chan struct{}), new(sync.Once)
	}
	name := func(role string) {
		if o := once[role]; o != nil {
			o.Do(func() { close(held[role]) })
		}
	}
	good := sparring.Handler(sparring.Options{})
	slow := modeltest.NewServer(t, func(r modeltest.Request) modeltest.Reply {
		if c := held[modeltest.RoleOf(r)]; c != nil {
			select {
			case <-c:
			case <-time.After(time.Minute):
			}
		}
		return good(r)
	})
	t.Cleanup(func() {
		for _, role := range roles {
			name(role)
		}
	})
	e := newLiveEnv(t, slow.URL)
	e.must("new", "slow", "--motion", "This house would wait.")
	dir := filepath.Join(e.root, "slow")
	run := e.cmd("run", "slow", "1")
	var stderr bytes.Buffer
	run.Stderr = &stderr
	if err := run.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- run.Wait() }()
	// The live file is read until it has named every role or the run has
	// ended, however long a loaded machine makes the run take.
	seen := map[string]bool{}
	var runErr error
	ended := false
	for !ended && !(seen["proposition"] && seen["opposition"] && seen["judge"]) {
		select {
		case runErr = <-exited:
			ended = true
		default:
		}
		data, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(live.Path)))
		if err == nil {
			st, err := live.Parse(data)
			if err != nil {
				t.Fatalf("a reader found a torn live file: %v\n%s", err, data)
			}
			if st.PID != run.Process.Pid || st.UnitName != "exchange" {
				t.Errorf("live file %+v: want pid %d, unit exchange", st, run.Process.Pid)
			}
			for _, c := range st.Calls {
				seen[c.Role] = true
				name(c.Role)
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	if !ended {
		select {
		case runErr = <-exited:
		case <-time.After(time.Minute):
			run.Process.Kill()
			t.Fatalf("the run did not end within a minute of its live file naming every role")
		}
	}
	if runErr != nil {
		t.Fatalf("run: %v\n%s", runErr, stderr.String())
	}
	for _, role := range []string{"proposition", "opposition", "judge"} {
		if !seen[role] {
			t.Errorf("the live file never named the %s in flight (saw %v)", role, seen)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, filepath.FromSlash(live.Path))); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the live file outlived the run: %v", err)
	}
}

// TestLiveFileOfOtherCommands checks that the commands besides run that
// ask models for a debate keep its live file too, so that moot watch and
// moot serve show who is asked: moot rejudge, and moot tournament run for
// each of its debates.
func TestLiveFileOfOtherCommands(t *testing.T) {
	if testing.Short() {
		t.Skip("runs moot against a slow model server")
	}
	for _, tc := range []struct {
		name    string
		prepare [][]string
		args    []string
		// role is the role the live file must name in flight.
		role string
	}{
		{
			name:    "rejudge",
			prepare: [][]string{{"new", "judged", "--motion", "This house would judge again."}, {"run", "judged", "1"}},
			args:    []string{"rejudge", "judged", "--judge-model", "second"},
			role:    "judge",
		},
		{
			name:    "tournament run",
			prepare: [][]string{{"tournament", "new", "cup", "--models", "a,b", "--motions", "MOTIONS", "--exchanges", "1"}},
			args:    []string{"tournament", "run", "cup", "--jobs", "1", "--quiet"},
			role:    "proposition",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// The role's calls are held, once the debate is prepared,
			// until a live file has named the role (or a minute's guard,
			// the test failing then), so that a reader that a loaded
			// machine lets read only now and then still sees it in flight.
			release := make(chan struct{})
			var once sync.Once
			free := func() { once.Do(func() { close(release) }) }
			var armed atomic.Bool
			good := sparring.Handler(sparring.Options{})
			slow := modeltest.NewServer(t, func(r modeltest.Request) modeltest.Reply {
				if armed.Load() && modeltest.RoleOf(r) == tc.role {
					select {
					case <-release:
					case <-time.After(time.Minute):
					}
				}
				return good(r)
			})
			t.Cleanup(free)
			e := newLiveEnv(t, slow.URL)
			motions := filepath.Join(t.TempDir(), "motions.txt")
			if err := os.WriteFile(motions, []byte("This house would wait.\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			for _, args := range tc.prepare {
				for i, a := range args {
					if a == "MOTIONS" {
						args[i] = motions
					}
				}
				e.must(args...)
			}
			armed.Store(true)
			run := e.cmd(tc.args...)
			var stderr bytes.Buffer
			run.Stderr = &stderr
			if err := run.Start(); err != nil {
				t.Fatal(err)
			}
			exited := make(chan error, 1)
			go func() { exited <- run.Wait() }()
			// The live files are read until one names the role or the
			// command has ended, however long that takes.
			seen, ended := false, false
			var runErr error
			for ; !seen && !ended; time.Sleep(20 * time.Millisecond) {
				select {
				case runErr = <-exited:
					ended = true
				default:
				}
				files, _ := filepath.Glob(filepath.Join(e.root, "*", filepath.FromSlash(live.Path)))
				more, _ := filepath.Glob(filepath.Join(e.root, "tournaments", "*", "*", filepath.FromSlash(live.Path)))
				for _, f := range append(files, more...) {
					data, err := os.ReadFile(f)
					if err != nil {
						continue // replaced or removed meanwhile
					}
					st, err := live.Parse(data)
					if err != nil {
						t.Fatalf("a reader found a torn live file %s: %v\n%s", f, err, data)
					}
					for _, c := range st.Calls {
						if st.PID == run.Process.Pid && c.Role == tc.role {
							seen = true
							free()
						}
					}
				}
			}
			if !ended {
				select {
				case runErr = <-exited:
				case <-time.After(time.Minute):
					run.Process.Kill()
					t.Fatalf("moot %s did not end within a minute of its live file naming the %s", strings.Join(tc.args, " "), tc.role)
				}
			}
			if runErr != nil {
				t.Fatalf("moot %s: %v\n%s", strings.Join(tc.args, " "), runErr, stderr.String())
			}
			if !seen {
				t.Errorf("moot %s: no live file named the %s in flight", strings.Join(tc.args, " "), tc.role)
			}
			left, _ := filepath.Glob(filepath.Join(e.root, "*", filepath.FromSlash(live.Path)))
			more, _ := filepath.Glob(filepath.Join(e.root, "tournaments", "*", "*", filepath.FromSlash(live.Path)))
			if len(left)+len(more) > 0 {
				t.Errorf("live files outlived moot %s: %v", strings.Join(tc.args, " "), append(left, more...))
			}
		})
	}
}

// TestWatchedRunIsTheSame runs the same forum debate twice on a fixed
// clock with the built-in model, once while a watcher reads it over and
// over, and finds every file outside .moot/ byte for byte the same: a
// watcher changes nothing and the live file stays in .moot/.
func TestWatchedRunIsTheSame(t *testing.T) {
	if testing.Short() {
		t.Skip("runs two debates")
	}
	fixed := time.Date(2025, 1, 1, 12, 0, 0, 0, time.UTC)
	protocols := withDialectic(forum.Protocol{})
	runOne := func(watched bool) map[string]string {
		root := t.TempDir()
		io := IO{Stdin: strings.NewReader(""), Stdout: io.Discard, Stderr: io.Discard, Now: func() time.Time { return fixed },
			Getenv: func(string) string { return "" }, Protocols: protocols}
		if code := Run(context.Background(), []string{"moot", "--dir", root, "new", "cats", "--protocol", "forum", "--motion", "Cats are better."}, io); code != 0 {
			t.Fatalf("new: exit %d", code)
		}
		dir := filepath.Join(root, "cats")
		ctx, cancel := context.WithCancel(context.Background())
		var wg sync.WaitGroup
		loads := 0
		if watched {
			all := sm.Protocols{dialectic.Protocol{}, forum.Protocol{}}
			wg.Add(2)
			go func() {
				defer wg.Done()
				live.Watch(ctx, dir, func() { live.Load(dir, all) })
			}()
			go func() {
				defer wg.Done()
				for ctx.Err() == nil {
					if _, err := live.Load(dir, all); err == nil {
						loads++
					}
				}
			}()
		}
		if code := Run(context.Background(), []string{"moot", "--dir", root, "run", "cats", "--all", "--model", "builtin"}, io); code != 0 {
			t.Fatalf("run: exit %d", code)
		}
		cancel()
		wg.Wait()
		if watched && loads == 0 {
			t.Error("the watcher never read the debate")
		}
		files := map[string]string{}
		filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			rel, _ := filepath.Rel(dir, p)
			if d.IsDir() && rel == ".moot" {
				return filepath.SkipDir
			}
			if !d.IsDir() {
				data, _ := os.ReadFile(p)
				files[rel] = string(data)
			}
			return nil
		})
		return files
	}
	alone, watched := runOne(false), runOne(true)
	if len(alone) < 3 {
		t.Fatalf("the run wrote only %v", alone)
	}
	for name, data := range alone {
		if watched[name] != data {
			t.Errorf("%s differs when watched", name)
		}
	}
	for name := range watched {
		if _, ok := alone[name]; !ok {
			t.Errorf("%s appears only when watched", name)
		}
	}
}

// TestWatchOnce prints the view of a debate once.
func TestWatchOnce(t *testing.T) {
	fake := modeltest.NewServer(t, sparring.Handler(sparring.Options{}))
	e := newLiveEnv(t, fake.URL)
	e.must("new", "once", "--motion", "This house would look once.")
	e.must("step", "once")
	e.must("step", "once")
	out := e.must("watch", "once", "--once")
	for _, want := range []string{"moot watch · once (dialectic)", "This house would look once.", "prop_000a", "scores by exchange", "asking   nobody"} {
		if !strings.Contains(out, want) {
			t.Errorf("watch --once lacks %q:\n%s", want, out)
		}
	}
}

// TestWatchPiped runs moot watch with its output in a pipe: it prints a
// block at the start and a new one when another process commits a step,
// and SIGINT ends it with 0.
func TestWatchPiped(t *testing.T) {
	fake := modeltest.NewServer(t, sparring.Handler(sparring.Options{}))
	e := newLiveEnv(t, fake.URL)
	e.must("new", "piped", "--motion", "This house would use pipes.")
	w := e.cmd("watch", "piped")
	out := &syncBuffer{}
	w.Stdout = out
	if err := w.Start(); err != nil {
		t.Fatal(err)
	}
	defer w.Process.Kill()
	wait := func(what string, n int, within time.Duration) bool {
		deadline := time.Now().Add(within)
		for time.Now().Before(deadline) {
			if strings.Count(out.String(), what) >= n {
				return true
			}
			time.Sleep(10 * time.Millisecond)
		}
		return false
	}
	if !wait("moot watch · piped", 1, time.Minute) {
		t.Fatalf("no first block:\n%s", out.String())
	}
	e.must("step", "piped")
	committed := time.Now()
	// How soon the step shows is a speed target, not this test's to time
	// on a loaded machine: the minute is only a guard.
	if !wait("prop_000a", 1, time.Minute) {
		t.Fatalf("the step did not show within a minute:\n%s", out.String())
	}
	t.Logf("the step showed %v after moot step exited", time.Since(committed))
	// A block per change, the run's own moments among them (started,
	// asking), and never the same block twice in a row.
	blocks := strings.Split(out.String(), "moot watch · piped")
	for i := 2; i < len(blocks); i++ {
		if blocks[i] == blocks[i-1] {
			t.Errorf("block %d repeats the one before:\n%s", i, blocks[i])
		}
	}
	if strings.Contains(out.String(), "\x1b") {
		t.Errorf("escape sequences in piped output:\n%q", out.String())
	}
	w.Process.Signal(os.Interrupt)
	done := make(chan error, 1)
	go func() { done <- w.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("watch after SIGINT: %v", err)
		}
	case <-time.After(time.Minute):
		t.Fatal("watch did not stop on SIGINT within a minute")
	}
}

// TestWatchInTmux runs moot watch in a tmux pane, commits a step from
// another process, and expects the pane to show it (the test logs how
// soon).
func TestWatchInTmux(t *testing.T) {
	if testing.Short() {
		t.Skip("starts tmux")
	}
	tmux, err := exec.LookPath("tmux")
	if err != nil {
		t.Skip("tmux is absent: install it (apt-get install -y tmux) to run moot watch in a terminal")
	}
	fake := modeltest.NewServer(t, sparring.Handler(sparring.Options{}))
	e := newLiveEnv(t, fake.URL)
	e.must("new", "watched", "--motion", "This house would be watched.")
	sock := filepath.Join(t.TempDir(), "tmux.sock")
	tm := func(args ...string) (string, error) {
		c := exec.Command(tmux, append([]string{"-S", sock, "-f", "/dev/null"}, args...)...)
		c.Env = append(os.Environ(), "TERM=xterm-256color")
		out, err := c.CombinedOutput()
		return string(out), err
	}
	// watch runs twice, to be quit with q and then with Ctrl-C; after
	// each, stty says whether the terminal was given back in its normal
	// (canonical, echoing) mode.
	watch := "env MOOT_DIR=" + e.root + " " + e.bin + " watch watched"
	// The shell waits for a line between the two, so that the second
	// watch's screen does not hide what the first left.
	shell := watch + "; echo WATCH-EXITED $? $(stty -a | grep -o -- '-*icanon'); read line; " + watch + "; echo AGAIN-EXITED $? $(stty -a | grep -o -- '-*icanon'); sleep 30"
	if out, err := tm("new-session", "-d", "-x", "132", "-y", "50", shell); err != nil {
		t.Fatalf("tmux new-session: %v\n%s", err, out)
	}
	t.Cleanup(func() { tm("kill-server") })
	pane := func() string {
		out, _ := tm("capture-pane", "-p")
		return out
	}
	waitFor := func(what string, within time.Duration) (time.Duration, bool) {
		start := time.Now()
		for time.Since(start) < within {
			if strings.Contains(pane(), what) {
				return time.Since(start), true
			}
			time.Sleep(10 * time.Millisecond)
		}
		return time.Since(start), false
	}
	if _, ok := waitFor("moot watch · watched", time.Minute); !ok {
		t.Fatalf("moot watch did not start in tmux:\n%s", pane())
	}
	if strings.Contains(pane(), "prop_000a") {
		t.Fatalf("the step shows before it is committed:\n%s", pane())
	}
	e.must("step", "watched")
	committed := time.Now()
	// How soon the step shows is a speed target, not this test's to time
	// on a loaded machine: the minute is only a guard.
	if _, ok := waitFor("prop_000a", time.Minute); !ok {
		t.Fatalf("the step did not show within a minute:\n%s", pane())
	}
	t.Logf("the step showed %v after moot step exited", time.Since(committed))
	// q quits, and the terminal is given back.
	if out, err := tm("send-keys", "q"); err != nil {
		t.Fatalf("send-keys: %v\n%s", err, out)
	}
	if _, ok := waitFor("WATCH-EXITED 0 icanon", time.Minute); !ok {
		t.Fatalf("q did not quit moot watch with 0 and the terminal restored:\n%s", pane())
	}
	if out, err := tm("send-keys", "Enter"); err != nil {
		t.Fatalf("send-keys: %v\n%s", err, out)
	}
	if _, ok := waitFor("q quits", time.Minute); !ok {
		t.Fatalf("the second watch did not start:\n%s", pane())
	}
	if out, err := tm("send-keys", "C-c"); err != nil {
		t.Fatalf("send-keys: %v\n%s", err, out)
	}
	if _, ok := waitFor("AGAIN-EXITED 0 icanon", time.Minute); !ok {
		t.Fatalf("Ctrl-C did not quit moot watch with 0 and the terminal restored:\n%s", pane())
	}
}

// serveProcess is a moot serve running in the background.
type serveProcess struct {
	cmd  *exec.Cmd
	addr string
	errs *syncBuffer
	// read is closed when all of the process's stderr is in errs: the
	// process has exited or closed it.
	read chan struct{}
}

// wait waits, for at most a minute (a guard, not a decision), until the
// process has exited and all it wrote to stderr is in errs, and returns
// how it exited. Stderr is read to its end first, as exec.Cmd.Wait closes
// the pipe and would lose what the process wrote last (its "serve
// stopped").
func (s *serveProcess) wait(t *testing.T) error {
	t.Helper()
	done := make(chan error, 1)
	go func() {
		<-s.read
		done <- s.cmd.Wait()
	}()
	select {
	case err := <-done:
		return err
	case <-time.After(time.Minute):
		t.Fatalf("moot serve did not exit within a minute:\n%s", s.errs.String())
		return nil
	}
}

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

var servingAt = regexp.MustCompile(`at http://([^/]+)/`)

// startServe starts moot serve with args on a free port and waits until
// it says where it listens.
func (e *liveEnv) startServe(args ...string) *serveProcess {
	e.t.Helper()
	c := e.cmd(append([]string{"serve", "--addr", "127.0.0.1:0"}, args...)...)
	pipe, err := c.StderrPipe()
	if err != nil {
		e.t.Fatal(err)
	}
	if err := c.Start(); err != nil {
		e.t.Fatal(err)
	}
	s := &serveProcess{cmd: c, errs: &syncBuffer{}, read: make(chan struct{})}
	e.t.Cleanup(func() {
		c.Process.Kill()
		<-s.read
		c.Wait()
	})
	first := make(chan string, 1)
	go func() {
		defer close(s.read)
		r := bufio.NewReader(pipe)
		line, _ := r.ReadString('\n')
		s.errs.Write([]byte(line))
		first <- line
		io.Copy(s.errs, r)
	}()
	select {
	case line := <-first:
		m := servingAt.FindStringSubmatch(line)
		if m == nil {
			e.t.Fatalf("moot serve said %q", line)
		}
		s.addr = m[1]
	case <-time.After(time.Minute):
		e.t.Fatal("moot serve did not start within a minute")
	}
	return s
}

// TestServeToken starts moot serve with a token: a request without it is
// refused, one with it served; SIGTERM stops the server cleanly.
func TestServeToken(t *testing.T) {
	e := newLiveEnv(t, "http://127.0.0.1:1")
	e.must("new", "guarded", "--motion", "This house would lock the door.")
	s := e.startServe("--token", "open-sesame")
	for _, tc := range []struct {
		path, auth string
		want       int
	}{
		{"/", "", http.StatusUnauthorized},
		{"/debates/guarded/", "", http.StatusUnauthorized},
		{"/debates/guarded/events", "", http.StatusUnauthorized},
		{"/?token=wrong", "", http.StatusForbidden},
		{"/", "Bearer wrong", http.StatusForbidden},
		{"/?token=open-sesame", "", http.StatusOK},
		{"/debates/guarded/", "Bearer open-sesame", http.StatusOK},
	} {
		req, _ := http.NewRequest(http.MethodGet, "http://"+s.addr+tc.path, nil)
		if tc.auth != "" {
			req.Header.Set("Authorization", tc.auth)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != tc.want {
			t.Errorf("%s (%q): status %d, want %d", tc.path, tc.auth, resp.StatusCode, tc.want)
		}
		if tc.want != http.StatusOK && strings.Contains(string(body), "lock the door") {
			t.Errorf("%s: a refusal shows the debate: %s", tc.path, body)
		}
	}
	s.cmd.Process.Signal(syscall.SIGTERM)
	if err := s.wait(t); err != nil {
		t.Errorf("moot serve after SIGTERM: %v\n%s", err, s.errs.String())
	}
	if !strings.Contains(s.errs.String(), "serve stopped") {
		t.Errorf("stderr:\n%s", s.errs.String())
	}
}

// TestServeNeedsTokenAway refuses an address that is not loopback
// without a token, before listening.
func TestServeNeedsTokenAway(t *testing.T) {
	e := newLiveEnv(t, "http://127.0.0.1:1")
	out, err := e.cmd("serve", "--addr", "0.0.0.0:0").CombinedOutput()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != ExitUsage || !strings.Contains(string(out), "needs --token") {
		t.Errorf("serve on 0.0.0.0 without a token: %v\n%s", err, out)
	}
	// A blank token is no token, and a short one guards nothing away
	// from loopback: both are refused before listening.
	for _, tc := range []struct{ addr, token, want string }{
		{"0.0.0.0:0", " ", "blank"},
		{"127.0.0.1:0", " ", "blank"},
		{"0.0.0.0:0", "open-sesame", "at least 16"},
	} {
		out, err := e.cmd("serve", "--addr", tc.addr, "--token", tc.token).CombinedOutput()
		if !errors.As(err, &ee) || ee.ExitCode() != ExitUsage || !strings.Contains(string(out), tc.want) {
			t.Errorf("serve --addr %s --token %q: %v\n%s", tc.addr, tc.token, err, out)
		}
	}
}
