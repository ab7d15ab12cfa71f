package panel_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/moot-dev/moot/internal/cli"
	"github.com/moot-dev/moot/internal/driver"
	"github.com/moot-dev/moot/internal/testkit/crashtest"
	"github.com/moot-dev/moot/internal/testkit/fixture"
	"github.com/moot-dev/moot/internal/testkit/modeltest"
	"github.com/moot-dev/moot/internal/testkit/protocoltest"
	"github.com/moot-dev/moot/statemachine/dialectic"
	"github.com/moot-dev/moot/statemachine/panel"
	"github.com/moot-dev/moot/statemachine/panel/paneltest"
)

// asMoot makes this test binary run as moot, knowing panel, for the
// crash test's processes.
const asMoot = "MOOT_PANEL_AS_MOOT"

func TestMain(m *testing.M) {
	crashtest.AsMoot(dialectic.Protocol{}, panel.Protocol{})
	if os.Getenv(asMoot) == "1" {
		os.Exit(cli.Main(os.Args, panel.Protocol{}))
	}
	os.Exit(m.Run())
}

// roomOptions open a room in the one aspect whose crux surfaces at the
// second check, after turn 5.
var roomOptions = paneltest.Options{Detect: roomFor, Exit: func(k, t int) bool { return t >= 5 }}

// TestInterruptedAtEveryCall: a run interrupted while any call is in
// flight, rooms included, then resumed, ends with the files of a run never
// interrupted; only the calls in flight are asked again.
func TestInterruptedAtEveryCall(t *testing.T) {
	flags := map[string]string{"aspects": "1"}
	_, want, reqs := runAll(t, flags, roomOptions)
	total := len(reqs)
	for _, stop := range crashtest.InterruptAt(t, total) {
		t.Run(fmt.Sprintf("at request %d", stop), func(t *testing.T) {
			// Each run has its own debate and fake: they go in parallel.
			t.Parallel()
			dir := newDebate(t, flags)
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			h, asked := protocoltest.StopAt(paneltest.Handler(roomOptions), stop, cancel)
			srv := modeltest.NewServer(t, h)
			if _, err := advance(t, ctx, dir, srv.URL, driver.UnitGoal{All: true}); !errors.Is(err, context.Canceled) {
				t.Fatalf("interrupted run: %v", err)
			}
			first := asked()
			again := modeltest.NewServer(t, paneltest.Handler(roomOptions))
			if _, err := advance(t, context.Background(), dir, again.URL, driver.UnitGoal{All: true}); err != nil {
				t.Fatal(err)
			}
			if d := fixture.Diff(want, files(t, dir)); len(d) > 0 {
				t.Errorf("resumed files differ from an uninterrupted run:\n%s", strings.Join(d, "\n"))
			}
			// A parallel phase loses its calls still in flight, at most
			// one per persona, and with the openings the aspects' call,
			// which they are asked beside (the run is pipelined).
			if got := first + len(again.Requests()); got < total+1 || got > total+4 {
				t.Errorf("%d requests before and %d after, want %d to %d in all", first, len(again.Requests()), total+1, total+4)
			}
		})
	}
}

// TestKilledInTheRoom: moot itself, killed with SIGKILL while each call
// of a crux room is in flight and run again, continues the room at the
// same turn and ends with the files of a run never killed.
func TestKilledInTheRoom(t *testing.T) {
	if testing.Short() {
		t.Skip("crash test: run without -short")
	}
	crashtest.Apart(t)
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	own := personaDir(t)
	made := t.TempDir()
	if out, err := moot(self, made, "", "new", "d", "--protocol", "panel", "--motion", "Is Bitcoin a good investment?",
		"--personas", "michael,arthur,brian", "--persona-dir", own, "--aspects", "1"); err != nil {
		t.Fatalf("moot new: %v\n%s", err, out)
	}
	fresh := func(t *testing.T) string {
		root := t.TempDir()
		if err := fixture.CopyTree(filepath.Join(made, "d"), filepath.Join(root, "d")); err != nil {
			t.Fatal(err)
		}
		return root
	}
	ref := fresh(t)
	refSrv := modeltest.NewServer(t, paneltest.Handler(roomOptions))
	if out, err := moot(self, ref, refSrv.URL, "run", "d", "--all", "--quiet"); err != nil {
		t.Fatalf("reference run: %v\n%s", err, out)
	}
	want := files(t, filepath.Join(ref, "d"))
	var room []int
	for i, r := range refSrv.Requests() {
		if k := paneltest.Kind(r); k == "crux-turn" || k == "exit-check" || k == "crux-position" || k == "convergence" || k == "card" {
			room = append(room, i+1)
		}
	}
	if len(room) < 10 {
		t.Fatalf("the reference room took %d calls", len(room))
	}
	// before holds the kinds of call asked only before the room: a run
	// resumed in the room asks none of them again.
	before := map[string]bool{}
	for i, r := range refSrv.Requests() {
		if i+1 < room[0] {
			before[paneltest.Kind(r)] = true
		} else {
			delete(before, paneltest.Kind(r))
		}
	}
	if len(before) == 0 {
		t.Fatal("the reference run asked no kind of call only before the room")
	}
	// A pipelined run asks some calls before the step ahead of them is
	// committed, so a request that is the room's in the reference run
	// may come, in a killed run, while the debate is not yet in the
	// room: every kill must resume to the same files, and most must land
	// in the room.
	landed := 0
	defer func() {
		if landed*2 < len(room) {
			t.Errorf("only %d of %d kills landed in the room", landed, len(room))
		}
	}()
	for _, stop := range room {
		t.Run(fmt.Sprintf("at request %d", stop), func(t *testing.T) {
			root := fresh(t)
			cmd := exec.Command(self, "--dir", root, "run", "d", "--all", "--quiet")
			inFlight := make(chan struct{})
			h, _ := protocoltest.StopAt(paneltest.Handler(roomOptions), stop, func() { close(inFlight) })
			srv := modeltest.NewServer(t, h)
			cmd.Env = append(os.Environ(), asMoot+"=1", "OPENAI_BASE_URL="+srv.URL, "OPENAI_API_KEY=", "MOOT_MODEL=fake")
			var out strings.Builder
			cmd.Stdout, cmd.Stderr = &out, &out
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			exited := make(chan error, 1)
			go func() { exited <- cmd.Wait() }()
			// The run either makes the request or ends without it, which
			// is the failure: nothing but the test's own deadline bounds
			// how long a loaded machine takes to get there.
			select {
			case <-inFlight:
				cmd.Process.Signal(syscall.SIGKILL)
				<-exited
			case err := <-exited:
				t.Fatalf("moot run ended (%v) before request %d:\n%s", err, stop, out.String())
			}
			again := modeltest.NewServer(t, paneltest.Handler(roomOptions))
			if out, err := moot(self, root, again.URL, "check", "d"); err != nil {
				t.Fatalf("check after the kill: %v\n%s", err, out)
			}
			status, _ := moot(self, root, again.URL, "status", "d")
			inRoom := strings.Contains(status, "crux")
			if inRoom {
				landed++
			}
			if out, err := moot(self, root, again.URL, "run", "d", "--all", "--quiet"); err != nil {
				t.Fatalf("resumed run: %v\n%s", err, out)
			}
			if d := fixture.Diff(want, files(t, filepath.Join(root, "d"))); len(d) > 0 {
				t.Errorf("resumed files differ from an uninterrupted run:\n%s", strings.Join(d, "\n"))
			}
			// Which request of the resumed run comes first is not certain:
			// it asks the room's next call beside those after it that do
			// not read it (pipelined). None may be one of before the room.
			if inRoom {
				for _, r := range again.Requests() {
					if k := paneltest.Kind(r); before[k] {
						t.Errorf("the run resumed in the room asked a %q call, which comes before the room", k)
					}
				}
			}
		})
	}
}

// moot runs this test binary as moot under root against the fake at url.
func moot(self, root, url string, args ...string) (string, error) {
	cmd := exec.Command(self, append([]string{"--dir", root}, args...)...)
	cmd.Env = append(os.Environ(), asMoot+"=1", "OPENAI_BASE_URL="+url, "OPENAI_API_KEY=", "MOOT_MODEL=fake")
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// TestKilledAtEveryWriteMissingOpening: the step of the openings, one of
// which (brian's) is refused after every repair and recorded as missing
// (--keep-going), moot exiting as if killed at each of its writes and run
// again, ends with the files of a run never killed: the missing message
// keeps its model and its record.
func TestKilledAtEveryWriteMissingOpening(t *testing.T) {
	if testing.Short() {
		t.Skip("crash test of one moot process per write of a step: run without -short")
	}
	own := personaDir(t)
	bin, env := crashtest.Self(t)
	n := crashtest.ExitAtEveryWrite(t, crashtest.CallKills{
		Bin: bin, Env: env,
		New: []string{"--protocol", "panel", "--motion", "Is Bitcoin a good investment?",
			"--personas", "michael,arthur,brian", "--persona-dir", own, "--aspects", "1"},
		Model: paneltest.Handler(paneltest.Options{Short: "brian"}),
		// The aspects: the next step is the openings, the last of the
		// first stage.
		Prepare: [][]string{{"step", "d", "--quiet"}},
		Command: []string{"run", "d", "--until", "1", "--keep-going"},
	})
	t.Logf("the step of the openings made %d writes", n)
}

// TestMissingTakesKilledAtEveryCall: a run with --keep-going in which
// every message of brian's (his opening, take, reaction and closing) is
// refused after every repair, killed while each call is in flight (each
// of brian's repairs included) and run again, ends with the files of a
// run never killed: brian's messages recorded as missing, the panel's
// other messages as they were.
func TestMissingTakesKilledAtEveryCall(t *testing.T) {
	if testing.Short() {
		t.Skip("crash test of one kill per request, each a moot process run twice: run without -short")
	}
	own := personaDir(t)
	bin, env := crashtest.Self(t)
	k := crashtest.KillAtEveryCall(t, crashtest.CallKills{
		Bin: bin, Env: env,
		New: []string{"--protocol", "panel", "--motion", "Is Bitcoin a good investment?",
			"--personas", "michael,arthur,brian", "--persona-dir", own, "--aspects", "1"},
		Model: paneltest.Handler(paneltest.Options{Short: "brian"}),
		Run:   []string{"--all", "--keep-going"},
	})
	var missing []string
	for name, data := range k.Reference {
		if strings.Contains(data, `"status": "missing"`) {
			missing = append(missing, name)
		}
	}
	for _, kind := range []string{`"kind": "opening"`, `"kind": "take"`, `"kind": "reaction"`, `"kind": "closing"`} {
		found := false
		for _, name := range missing {
			if strings.Contains(k.Reference[name], kind) && strings.Contains(k.Reference[name], `"persona": "brian"`) {
				found = true
			}
		}
		if !found {
			t.Errorf("no message of brian's with %s is recorded as missing (missing: %v)", kind, missing)
		}
	}
}

// TestMissingRepliesKilledAtEveryCall: a run with --keep-going in which
// arthur's replies, and nothing else of his, are refused after every
// repair, killed while each call is in flight and run again, ends with the
// files of a run never killed: his replies recorded as missing, his other
// messages and the panel's as they were.
func TestMissingRepliesKilledAtEveryCall(t *testing.T) {
	if testing.Short() {
		t.Skip("crash test of one kill per request, each a moot process run twice: run without -short")
	}
	own := personaDir(t)
	bin, env := crashtest.Self(t)
	k := crashtest.KillAtEveryCall(t, crashtest.CallKills{
		Bin: bin, Env: env,
		New: []string{"--protocol", "panel", "--motion", "Is Bitcoin a good investment?",
			"--personas", "michael,arthur,brian", "--persona-dir", own, "--aspects", "1", "--minirounds", "3"},
		Model: paneltest.Handler(paneltest.Options{Short: "arthur", ShortTask: "reply"}),
		Run:   []string{"--all", "--keep-going"},
	})
	kinds := map[string]int{}
	for _, data := range k.Reference {
		if strings.Contains(data, `"status": "missing"`) {
			if !strings.Contains(data, `"persona": "arthur"`) {
				t.Errorf("a message of another persona than arthur's is recorded as missing:\n%s", data)
			}
			for _, kind := range []string{"opening", "take", "reaction", "reply", "closing"} {
				if strings.Contains(data, `"kind": "`+kind+`"`) {
					kinds[kind]++
				}
			}
		}
	}
	if kinds["reply"] == 0 || len(kinds) != 1 {
		t.Errorf("want arthur's replies alone recorded as missing, got these kinds: %v", kinds)
	}
}

// TestMissingRoomTurnsKilledAtEveryCall: a run with --keep-going in which
// every message of arthur's, who sits in the crux room, is refused after
// every repair (his room position and turns among them), killed while
// each call is in flight and run again, ends with the files of a run
// never killed: arthur's room messages recorded as missing, the room
// going on without them.
func TestMissingRoomTurnsKilledAtEveryCall(t *testing.T) {
	if testing.Short() {
		t.Skip("crash test of one kill per request, each a moot process run twice: run without -short")
	}
	own := personaDir(t)
	opts := roomOptions
	opts.Short = "arthur"
	bin, env := crashtest.Self(t)
	k := crashtest.KillAtEveryCall(t, crashtest.CallKills{
		Bin: bin, Env: env,
		New: []string{"--protocol", "panel", "--motion", "Is Bitcoin a good investment?",
			"--personas", "michael,arthur,brian", "--persona-dir", own, "--aspects", "1"},
		Model: paneltest.Handler(opts),
		Run:   []string{"--all", "--keep-going"},
	})
	kinds := map[string]bool{}
	for _, data := range k.Reference {
		if strings.Contains(data, `"status": "missing"`) && strings.Contains(data, `"persona": "arthur"`) {
			for _, kind := range []string{"position", "turn"} {
				if strings.Contains(data, `"kind": "`+kind+`"`) {
					kinds[kind] = true
				}
			}
		}
	}
	if !kinds["position"] || !kinds["turn"] {
		t.Errorf("arthur's room position and turns are not all recorded as missing: %v", kinds)
	}
}

// personaDir returns a folder holding the test personas, for --persona-dir.
func personaDir(t *testing.T) string {
	t.Helper()
	own := t.TempDir()
	for n, data := range testPersonas {
		if err := os.WriteFile(filepath.Join(own, n), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return own
}
