package store

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync/atomic"
)

// FaultEnv names the environment variable that injects faults into the
// store, for tests of crash safety. Its value is "fail:N" (the N-th write
// operation returns an error) or "exit:N" (the process exits at once with
// status 137, as if killed). Operations are counted from 1 across the whole
// process: each temporary file write, each rename, the removal of the
// journal and the removal of the temporary file of .moot/.gitignore count
// as one.
const FaultEnv = "MOOT_FAULT"

type faults struct {
	mode  string
	limit int64
}

func faultsFromEnv() *faults {
	v := os.Getenv(FaultEnv)
	if v == "" {
		return nil
	}
	mode, num, ok := strings.Cut(v, ":")
	n, err := strconv.Atoi(num)
	if !ok || err != nil || n < 1 || (mode != "fail" && mode != "exit") {
		return nil
	}
	return &faults{mode: mode, limit: int64(n)}
}

// counter is shared by every Dir of the process, so that N counts writes
// across a whole command.
var counter atomic.Int64

func (f *faults) at(op string) error {
	if f == nil {
		return nil
	}
	n := counter.Add(1)
	if n != f.limit {
		return nil
	}
	if f.mode == "exit" {
		os.Exit(137)
	}
	return fmt.Errorf("injected fault at operation %d (%s)", n, op)
}
