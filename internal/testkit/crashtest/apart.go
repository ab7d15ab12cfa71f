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
