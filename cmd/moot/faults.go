//go:build moot_faults

package main

import "github.com/moot-dev/moot/internal/faults"

// A moot built with -tags moot_faults, as the crash tests build it, makes
// the store fail or exit at the write operation that MOOT_FAULT names. A
// release build has no such file and never reads MOOT_FAULT.
func init() { faults.ArmFromEnv() }
