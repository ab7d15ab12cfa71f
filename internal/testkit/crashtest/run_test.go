package crashtest

import (
	"fmt"
	"math/rand"
	"strings"
	"testing"
	"time"

	"github.com/moot-dev/moot/internal/testkit/modeltest"
	"github.com/moot-dev/moot/statemachine/dialectic"
	"github.com/moot-dev/moot/statemachine/dialectic/dialectictest/sparring"
)

// runSteps is a debate driven by moot run against a fake model server: new,
// then one `run --until E` per exchange. Run again after its work is done,
// `run --until E` does nothing and exits 0.
func runSteps(url string, exchanges int) []Step {
	env := []string{"OPENAI_BASE_URL=" + url, "OPENAI_API_KEY="}
	steps := []Step{{
		Args:   []string{"new", "demo", "--motion", "This house would survive a crash."},
		Until:  State{0, string(dialectic.AwaitingArguments)},
		Redone: []int{1},
	}}
	for e := 1; e <= exchanges; e++ {
		steps = append(steps, Step{
			Args:  []string{"run", "demo", "--until", fmt.Sprint(e), "--model", "fake", "--quiet"},
			Env:   env,
			Until: State{e, string(dialectic.AwaitingArguments)},
		})
	}
	return steps
}

// withoutPrivate drops moot's private files (the usage log, kept answers),
// which record how a run went rather than what the debate is.
func withoutPrivate(files map[string]string) map[string]string {
	out := map[string]string{}
	for k, v := range files {
		if !strings.HasPrefix(k, ".moot/") {
			out[k] = v
		}
	}
	return out
}

// TestRandomKillsDuringRun kills `moot run` at random instants while it
// talks to a fake model server. After every kill moot check passes and no
// history entry is doubled; running the command again finishes the same
// debate as a run that was never killed.
func TestRandomKillsDuringRun(t *testing.T) {
	skipIfShort(t)
	Apart(t)
	srv := modeltest.NewServer(t, sparring.Handler(sparring.Options{Delay: 2 * time.Millisecond}))
	steps := runSteps(srv.URL, 3)
	ref, _ := reference(t, steps)
	final := withoutPrivate(ref.Files[len(ref.Files)-1])
	s := *seed
	if s == 0 {
		s = time.Now().UnixNano()
	}
	t.Logf("seed %d (rerun with -seed %d)", s, s)
	rng := rand.New(rand.NewSource(s))
	want := *kills / 2
	killed, debates := 0, 0
	for killed < want {
		h := harness(t)
		for i := 0; i < len(steps); {
			st := steps[i]
			var delay time.Duration
			if killed < want && i > 0 {
				window := int64(ref.Took[i]*5/4) / int64(time.Microsecond)
				delay = time.Duration(rng.Int63n(window)+1) * time.Microsecond
			}
			o, err := h.Exec(st.Args, st.Env, delay)
			if err != nil {
				t.Fatal(err)
			}
			if o.Killed {
				killed++
				if err := h.AfterCrash(ref, i); err != nil {
					t.Fatalf("debate %d, kill %d in %s after %v: %v", debates+1, killed, st, delay, err)
				}
				continue
			}
			if o.Code != 0 {
				t.Fatalf("debate %d, %s: %s", debates+1, st, o)
			}
			if n := must(h.Entries()); n != ref.Entries[i] {
				t.Fatalf("debate %d, %s: the debate's records hold %d entries, want %d", debates+1, st, n, ref.Entries[i])
			}
			i++
		}
		debates++
		if diff := Diff(final, withoutPrivate(must(h.Files()))); len(diff) > 0 {
			t.Fatalf("debate %d: the finished debate differs from the uninterrupted run: %v", debates, diff)
		}
	}
	t.Logf("%d kills of moot run over %d debates", killed, debates)
}
