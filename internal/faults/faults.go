// Package faults makes the store fail, or the process exit as if killed, at
// its N-th write operation, for the tests of crash safety. Nothing in a
// release build of moot arms it: only test binaries do (through Arm or
// ArmFromEnv), and moot built with the moot_faults build tag, which reads
// Env at start. Without that tag the release binary holds none of this
// package but Hook, which then always returns nil.
package faults

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync/atomic"
)

// Env names the environment variable that arms faults in a test binary or
// a moot built with -tags moot_faults. Its value is "fail:N" (the N-th
// write operation returns an error) or "exit:N" (the process exits at once
// with status 137, as if killed). Operations are counted from 1 across the
// whole process: each temporary file write, each rename, the removal of the
// journal and the removal of the temporary file of .moot/.gitignore count
// as one.
const Env = "MOOT_FAULT"

// Plan says at which operation a fault fires, and how.
type Plan struct {
	// Exit makes the process exit with status 137 rather than the
	// operation fail.
	Exit bool
	// At is the number of the operation, counted by Count, that faults.
	At int64
}

// counter counts the operations of the whole process, so that N counts
// writes across a whole command, whichever store.Dir makes them.
var counter atomic.Int64

// Count returns how many operations the process has counted.
func Count() int64 { return counter.Load() }

// ResetCount starts the count of operations again from zero.
func ResetCount() { counter.Store(0) }

// Parse reads a value of Env; ok is false when v is not "fail:N" or
// "exit:N" with N ≥ 1.
func Parse(v string) (p Plan, ok bool) {
	mode, num, found := strings.Cut(v, ":")
	n, err := strconv.Atoi(num)
	if !found || err != nil || n < 1 || (mode != "fail" && mode != "exit") {
		return Plan{}, false
	}
	return Plan{Exit: mode == "exit", At: int64(n)}, true
}

// Hook returns the function the store calls before each write operation,
// op naming it: it counts the operation and returns the fault when its
// number is the plan's.
func (p Plan) Hook() func(op string) error {
	return func(op string) error {
		n := counter.Add(1)
		if n != p.At {
			return nil
		}
		if p.Exit {
			os.Exit(137)
		}
		return fmt.Errorf("injected fault at operation %d (%s)", n, op)
	}
}

// armed is the hook that Hook returns, nil until Arm.
var armed atomic.Pointer[func(op string) error]

// Arm makes Hook return p's hook from now on.
func Arm(p Plan) {
	h := p.Hook()
	armed.Store(&h)
}

// ArmFromEnv arms the plan that Env holds, if it holds a valid one.
func ArmFromEnv() {
	if p, ok := Parse(os.Getenv(Env)); ok {
		Arm(p)
	}
}

// Hook returns the armed hook, or nil when none is: the store opens every
// directory with it.
func Hook() func(op string) error {
	if h := armed.Load(); h != nil {
		return *h
	}
	return nil
}
