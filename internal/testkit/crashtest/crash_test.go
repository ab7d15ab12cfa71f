package crashtest

import (
	"encoding/json"
	"flag"
	"fmt"
	"math"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/moot-dev/moot/internal/testkit/fixture"
	"github.com/moot-dev/moot/statemachine/dialectic"

	"github.com/moot-dev/moot/internal/faults"
	"github.com/moot-dev/moot/internal/testkit/trio"
	"github.com/moot-dev/moot/store"
)

var (
	kills     = flag.Int("kills", 30, "how many times TestRandomKills kills moot (make crash raises it)")
	seed      = flag.Int64("seed", 0, "the random seed of TestRandomKills; 0 takes one from the clock")
	exchanges = flag.Int("exchanges", 3, "how many exchanges TestRandomKills's debate has")
)

// bin is the moot binary, built once by TestMain.
var bin string

// faultsBinEnv names a moot built with -tags moot_faults that test.sh
// builds once for both of its passes; without it TestMain builds one.
const faultsBinEnv = "MOOT_TEST_FAULTS_BIN"

func TestMain(m *testing.M) {
	// The processes that the quick run (-short) and the tests of trio
	// start from this test binary run as moot, with MOOT_FAULT read as
	// the moot_faults build reads it; they know trio too.
	if os.Getenv(SelfEnv) == "1" {
		faults.ArmFromEnv()
	}
	AsMoot(dialectic.Protocol{}, trio.Protocol{})
	flag.Parse()
	if testing.Short() {
		// The quick run starts moot from this test binary rather than
		// linking one, which takes most of its time on a busy machine.
		self, err := os.Executable()
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		bin = self
		os.Setenv(SelfEnv, "1")
		os.Exit(m.Run())
	}
	if built := os.Getenv(faultsBinEnv); built != "" {
		bin = built
		os.Exit(m.Run())
	}
	dir, err := os.MkdirTemp("", "moot-crashtest-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	bin = filepath.Join(dir, "moot")
	// The tag builds in the reading of MOOT_FAULT, which a release build
	// of moot does not have.
	build := exec.Command("go", "build", "-tags", "moot_faults", "-o", bin, "github.com/moot-dev/moot/cmd/moot")
	if out, err := build.CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "build moot: %v\n%s", err, out)
		os.RemoveAll(dir)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// skipIfShort skips a long crash test in a developer's quick run (go test
// -short); CI runs them all. The short run keeps the tests of a few
// seconds: the busy-writer tests and the harness's own check.
func skipIfShort(t *testing.T) {
	t.Helper()
	if testing.Short() {
		t.Skip("crash tests: run without -short")
	}
}

func harness(t *testing.T) *Harness {
	t.Helper()
	return dialecticHarness(t.TempDir(), "demo")
}

// reference runs steps without interruption and keeps a copy of the debate
// after each step.
func reference(t *testing.T, steps []Step) (*Reference, []string) {
	t.Helper()
	h := harness(t)
	var copies []string
	ref := &Reference{}
	for i, s := range steps {
		r, err := h.RunReference([]Step{s})
		if err != nil {
			t.Fatalf("reference run, step %d: %v", i, err)
		}
		ref.Files = append(ref.Files, r.Files[0])
		ref.Took = append(ref.Took, r.Took[0])
		n, err := h.Entries()
		if err != nil {
			t.Fatal(err)
		}
		ref.Entries = append(ref.Entries, n)
		c := filepath.Join(t.TempDir(), "demo")
		if err := fixture.CopyTree(h.Dir(), c); err != nil {
			t.Fatal(err)
		}
		copies = append(copies, c)
	}
	return ref, copies
}

func script(t *testing.T, exchanges int) []Step {
	t.Helper()
	steps, err := Script(t.TempDir(), "demo", exchanges)
	if err != nil {
		t.Fatal(err)
	}
	return steps
}

// TestKilledAtEveryWrite makes each step exit at its first write
// operation, then its second, and so on until it completes, with
// MOOT_FAULT=exit:N, as if killed there. After every exit moot check
// passes (saying when a step waits in the journal), running the step
// again completes it without applying it twice, and the rest of the
// debate ends as the uninterrupted run did. With SampleEnv set (test.sh
// outside CI) each step exits only at every fourth write from the first,
// and at the last, as ExitAtEveryWrite does; CI exits at every write.
// Its moot processes are killed, so test.sh runs it in its pass without
// the race detector (Apart).
func TestKilledAtEveryWrite(t *testing.T) {
	skipIfShort(t)
	Apart(t)
	steps := script(t, 2)
	ref, copies := reference(t, steps)
	final := ref.Files[len(ref.Files)-1]
	for i, s := range steps {
		writes, exits := exitPoints(t, math.MaxInt, func(n int) bool {
			h := harness(t)
			if i > 0 {
				if err := fixture.CopyTree(copies[i-1], h.Dir()); err != nil {
					t.Fatal(err)
				}
			}
			o, err := h.Exec(s.Args, append(s.Env, faults.Env+fmt.Sprintf("=exit:%d", n)), 0)
			if err != nil {
				t.Fatal(err)
			}
			if o.Code == 0 {
				return false
			}
			if o.Code != 137 {
				t.Fatalf("%s with exit:%d: %s", s, n, o)
			}
			if err := h.AfterCrash(ref, i); err != nil {
				t.Fatalf("%s, exit at write %d: %v", s, n, err)
			}
			if i > 0 {
				// The dead writer's lock file names it, without its flags.
				var holder store.Holder
				b, _ := os.ReadFile(filepath.Join(h.Dir(), store.LockFile))
				want := strings.Join(s.Args[:slices.Index(s.Args, "demo")+1], " ")
				if s.Args[0] == "process-exchange" {
					want += " " + s.Args[2]
				}
				if err := json.Unmarshal(b, &holder); err != nil || holder.PID == 0 || holder.Command != "moot "+want {
					t.Fatalf("%s, exit at write %d: the lock file holds %q, want the pid and %q", s, n, b, "moot "+want)
				}
			}
			if _, err := os.Stat(filepath.Join(h.Dir(), store.JournalFile)); err == nil {
				before := must(h.Files())
				c, _ := h.Check()
				if !strings.Contains(c.Stderr, "interrupted step") {
					t.Errorf("%s, exit at write %d: check does not say a step waits in the journal: %q", s, n, c.Stderr)
				}
				if diff := Diff(before, must(h.Files())); len(diff) > 0 {
					t.Fatalf("%s, exit at write %d: moot check changed files: %v", s, n, diff)
				}
			}
			if err := h.Finish(ref, steps, i); err != nil {
				t.Fatalf("%s, exit at write %d, run again: %v", s, n, err)
			}
			if diff := Diff(ref.Files[i], must(h.Files())); len(diff) > 0 {
				t.Fatalf("%s, exit at write %d: after the step the files differ from the uninterrupted run: %v", s, n, diff)
			}
			for _, rest := range steps[i+1:] {
				if o, err := h.Exec(rest.Args, rest.Env, 0); err != nil || o.Code != 0 {
					t.Fatalf("%s after an exit in %s: %v %s", rest, s, err, o)
				}
			}
			if diff := Diff(final, must(h.Files())); len(diff) > 0 {
				t.Fatalf("%s, exit at write %d: the finished debate differs from the uninterrupted run: %v", s, n, diff)
			}
			return true
		})
		if writes == 0 {
			t.Fatalf("%s wrote nothing", s)
		}
		t.Logf("%s: %d write operations, exited at %d of them", s.Args[0], writes, exits)
	}
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

// TestRandomKills runs the scripted debate again and again, sending
// SIGKILL to moot at random instants within each step's usual duration,
// until -kills processes have been killed. After every kill the debate
// passes moot check and holds the history entries of before or after the
// step, never more; the killed step is then run again (and may be killed
// again). Each finished debate must equal the uninterrupted run file by
// file.
func TestRandomKills(t *testing.T) {
	skipIfShort(t)
	Apart(t)
	s := *seed
	if s == 0 {
		s = time.Now().UnixNano()
	}
	t.Logf("seed %d (rerun with -seed %d)", s, s)
	rng := rand.New(rand.NewSource(s))
	steps := script(t, *exchanges)
	ref, _ := reference(t, steps)
	final := ref.Files[len(ref.Files)-1]
	killed, debates := 0, 0
	// where counts where the kills landed: before the step's commit, with
	// the commit in the journal, or after the step was done.
	where := map[string]int{}
	for killed < *kills {
		h := harness(t)
		crashed := false
		for i := 0; i < len(steps); {
			st := steps[i]
			var delay time.Duration
			if killed < *kills {
				window := int64(ref.Took[i]*5/4) / int64(time.Microsecond)
				delay = time.Duration(rng.Int63n(window)+1) * time.Microsecond
			}
			o, err := h.Exec(st.Args, st.Env, delay)
			if err != nil {
				t.Fatal(err)
			}
			if o.Killed {
				killed++
				crashed = true
				if err := h.AfterCrash(ref, i); err != nil {
					t.Fatalf("debate %d, kill %d in %s after %v: %v", debates+1, killed, st, delay, err)
				}
				_, jerr := os.Stat(filepath.Join(h.Dir(), store.JournalFile))
				switch done, _ := h.Done(st); {
				case jerr == nil:
					where["in the journal"]++
				case done:
					where["after"]++
				default:
					where["before"]++
				}
				continue
			}
			if o.Code != 0 && !(crashed && st.redone(o.Code)) {
				t.Fatalf("debate %d, %s: %s", debates+1, st, o)
			}
			if done, err := h.Done(st); err != nil || !done {
				t.Fatalf("debate %d, %s: %s; the debate did not reach %v (%v)", debates+1, st, o, st.Until, err)
			}
			if n := must(h.Entries()); n != ref.Entries[i] {
				t.Fatalf("debate %d, %s: the debate's records hold %d entries, want %d", debates+1, st, n, ref.Entries[i])
			}
			crashed = false
			i++
		}
		debates++
		if diff := Diff(final, must(h.Files())); len(diff) > 0 {
			t.Fatalf("debate %d: the finished debate differs from the uninterrupted run: %v", debates, diff)
		}
	}
	t.Logf("%d kills over %d debates of %d steps: %d before a step's commit, %d with it in the journal, %d after it",
		killed, debates, len(steps), where["before"], where["in the journal"], where["after"])
}

// TestDuplicatedEntriesAreCaught makes sure the harness itself would see
// a judgment applied twice: a history entry repeated in scores.json.
func TestDuplicatedEntriesAreCaught(t *testing.T) {
	steps := script(t, 1)
	h := harness(t)
	ref, err := h.RunReference(steps)
	if err != nil {
		t.Fatal(err)
	}
	if err := h.recordsArePrefixes(ref); err != nil {
		t.Fatalf("the reference itself: %v", err)
	}
	path := filepath.Join(h.Dir(), "scores.json")
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var scores map[string]map[string]any
	if err := json.Unmarshal(b, &scores); err != nil {
		t.Fatal(err)
	}
	hist := scores["opp_000b"]["history"].([]any)
	scores["opp_000b"]["history"] = append(hist, hist[len(hist)-1])
	b, _ = json.Marshal(scores)
	os.WriteFile(path, b, 0o644)
	if err := h.recordsArePrefixes(ref); err == nil || !strings.Contains(err.Error(), "opp_000b") {
		t.Fatalf("a repeated entry went unnoticed: %v", err)
	}
	if err := h.AfterCrash(ref, len(steps)-1); err == nil {
		t.Fatal("AfterCrash passed a debate with a repeated entry")
	}
}

// TestChangedEntriesAreCaught makes sure the harness sees an entry of the
// records that differs from the reference's in anything but its time: a
// step applied again with other content, not only twice.
func TestChangedEntriesAreCaught(t *testing.T) {
	steps := script(t, 2)
	h := harness(t)
	ref, err := h.RunReference(steps)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(h.Dir(), "scores.json")
	orig, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		field  string
		value  any
		caught bool
	}{
		{"score", 0.25, true},
		{"reasoning", "Another reason.", true},
		{"triggered_by", "opp_009", true},
		{"previous_score", 0.5, true},
		{"diff", 0.5, true},
		{"scored_at", "2001-01-01T00:00:00Z", false},
	} {
		t.Run(tt.field, func(t *testing.T) {
			var scores map[string]map[string]any
			if err := json.Unmarshal(orig, &scores); err != nil {
				t.Fatal(err)
			}
			// prop_000a was scored in exchange 0 and rescored in 1, so
			// its last entry has every field.
			hist := scores["prop_000a"]["history"].([]any)
			hist[len(hist)-1].(map[string]any)[tt.field] = tt.value
			b, _ := json.Marshal(scores)
			if err := os.WriteFile(path, b, 0o644); err != nil {
				t.Fatal(err)
			}
			err := h.recordsArePrefixes(ref)
			if tt.caught && (err == nil || !strings.Contains(err.Error(), "prop_000a")) {
				t.Errorf("a changed %s went unnoticed: %v", tt.field, err)
			}
			if !tt.caught && err != nil {
				t.Errorf("a changed %s, which differs between any two runs, was taken for a changed entry: %v", tt.field, err)
			}
		})
	}
}

// releaseBinEnv names a moot built as a user builds it, without build
// tags, that test.sh builds once beside the others; without it
// TestReleaseBuildIgnoresFaults builds one.
const releaseBinEnv = "MOOT_TEST_RELEASE_BIN"

// TestReleaseBuildIgnoresFaults takes moot built as a user does, without
// the moot_faults tag (releaseBinEnv's, else one it builds), and checks
// that MOOT_FAULT cannot make it fail or exit: fault injection is for the
// crash tests' own build only.
func TestReleaseBuildIgnoresFaults(t *testing.T) {
	skipIfShort(t)
	release := os.Getenv(releaseBinEnv)
	if release == "" {
		release = filepath.Join(t.TempDir(), "moot")
		// Without DWARF (-w), which only debuggers read: a third of the
		// link's CPU time.
		build := exec.Command("go", "build", "-ldflags=-w", "-o", release, "github.com/moot-dev/moot/cmd/moot")
		if out, err := build.CombinedOutput(); err != nil {
			t.Fatalf("build moot: %v\n%s", err, out)
		}
	}
	steps := script(t, 1)
	for _, fault := range []string{"exit:1", "fail:1"} {
		h := harness(t)
		h.Bin = release
		for _, s := range steps {
			o, err := h.Exec(s.Args, append(s.Env, faults.Env+"="+fault), 0)
			if err != nil {
				t.Fatal(err)
			}
			if o.Code != 0 {
				t.Fatalf("%s with %s=%s: %s", s, faults.Env, fault, o)
			}
		}
	}
}
