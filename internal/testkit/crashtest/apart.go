package crashtest

import (
	"os"
	"strings"
	"testing"
)

// ApartEnv, set in the environment of `go test -race`, makes the tests
// that kill moot processes skip under the race detector: test.sh then runs
// them in a pass of their own without it, as `go test -run Kill`.
const ApartEnv = "MOOT_KILLS_APART"

// Apart is called first by a test that starts moot as processes and kills
// them. Under the race detector with ApartEnv set it skips the test, which
// test.sh's second pass runs: each of the test's many moot processes is
// the race-built test binary, several times slower, and processes share no
// memory for the detector to watch. The test's name must contain "Kill",
// so that the second pass, which selects tests by that word, runs it.
func Apart(t testing.TB) {
	t.Helper()
	name, _, _ := strings.Cut(t.Name(), "/")
	if !strings.Contains(name, "Kill") {
		t.Fatalf("%s kills moot processes but its name has no \"Kill\": test.sh's pass without -race would not run it", name)
	}
	if raceEnabled && os.Getenv(ApartEnv) != "" {
		t.Skipf("kills moot processes: run without -race by test.sh's second pass (go test -run Kill), as %s is set", ApartEnv)
	}
}

// InterruptsApartEnv, set in the environment of `go test -race`, makes
// InterruptAt keep two of a test's interruptions under the race detector:
// test.sh's pass without it runs them all, as `go test -run
// InterruptedAtEveryCall`.
const InterruptsApartEnv = "MOOT_INTERRUPTS_APART"

// InterruptAt returns the requests, numbered from 1 to total, at which a
// test that interrupts a run in process at every call, and resumes it,
// interrupts it: all of them, except under the race detector with
// InterruptsApartEnv set, where only the middle request and the last
// remain, and with SampleEnv set, the first, the middle and the last.
// Such a test checks the order of a run's writes, which the
// race detector does not see; the two it keeps still race an interrupted
// run and its resumption, pipelined calls included, while test.sh's pass
// without the race detector runs every request in CI. The test's name must
// contain "InterruptedAtEveryCall", so that that pass, which selects
// tests by those words, runs it.
func InterruptAt(t testing.TB, total int) []int {
	t.Helper()
	name, _, _ := strings.Cut(t.Name(), "/")
	if !strings.Contains(name, "InterruptedAtEveryCall") {
		t.Fatalf("%s interrupts a run at every call but its name has no \"InterruptedAtEveryCall\": test.sh's pass without -race would not run it", name)
	}
	if raceEnabled && os.Getenv(InterruptsApartEnv) != "" && total > 2 {
		t.Logf("%d of %d interruptions under the race detector: test.sh's pass without it runs them all, as %s is set", 2, total, InterruptsApartEnv)
		return []int{(total + 1) / 2, total}
	}
	stops := make([]int, total)
	for i := range stops {
		stops[i] = i + 1
	}
	if sampled() && total > 3 {
		stops = sample(stops, func(int) string { return "" })
		t.Logf("%d of %d interruptions, the first, the middle and the last, as %s is set", len(stops), total, SampleEnv)
	}
	return stops
}

// SampleEnv, set in the environment of go test, makes KillAtEveryCall
// kill at a sample of a debate's requests (see sample) where it kills at
// every one without it, InterruptAt interrupt at the first, the middle
// and the last request, schemafake's TestSchemaInstances run five
// seeds a case, not thirty, and bench/cachemarks run its debates under
// the default judge context only. The README's test command, ./test.sh,
// sets it unless CI is "true": CI kills at every request.
const SampleEnv = "MOOT_SAMPLE"

// sampled reports whether SampleEnv is set.
func sampled() bool { return os.Getenv(SampleEnv) != "" }

// sample returns, of stops (request numbers in the order the requests
// came), the first, the middle and the last, and the first and the last
// of each kind of step that kind names: a kill while each kind of call
// is in flight, at the start and the end of a run and of each of its
// kinds, chosen the same way every time.
func sample(stops []int, kind func(stop int) string) []int {
	if len(stops) == 0 {
		return nil
	}
	keep := map[int]bool{stops[0]: true, stops[(len(stops)-1)/2]: true, stops[len(stops)-1]: true}
	first, last := map[string]int{}, map[string]int{}
	for _, k := range stops {
		kd := kind(k)
		if _, ok := first[kd]; !ok {
			first[kd] = k
		}
		last[kd] = k
	}
	for kd := range first {
		keep[first[kd]], keep[last[kd]] = true, true
	}
	var kept []int
	for _, k := range stops {
		if keep[k] {
			kept = append(kept, k)
		}
	}
	return kept
}

// exitPoints walks the write operations of a command to exit at: it calls
// exit with N = 1, 2, 3, ... until exit reports that the command completed
// before its write N. With SampleEnv set it steps by four (1, 5, 9, ...)
// and, once the command completes, goes back to each write after the last
// one exited at, so the last write is always among those exited at. It
// returns how many writes the command made and at how many of them it
// exited, and fails t if the command still wrote after most writes.
func exitPoints(t testing.TB, most int, exit func(n int) (exited bool)) (writes, exits int) {
	t.Helper()
	step := 1
	if sampled() {
		step = 4
	}
	last := 0
	for n := 1; n <= most; n += step {
		if exit(n) {
			exits, last = exits+1, n
			continue
		}
		if n > last+1 {
			n, step = last, 1
			continue
		}
		return n - 1, exits
	}
	t.Fatalf("the command still wrote after %d writes", most)
	return 0, exits
}
