package crashtest

import (
	"fmt"
	"slices"
	"testing"
)

// TestExitPoints: the walk over a command's writes finds how many it makes
// and exits at each of them, or, with SampleEnv set, at every fourth from
// the first and at each after the last of those, the last write among
// them, whatever the number of writes.
func TestExitPoints(t *testing.T) {
	for _, sample := range []bool{false, true} {
		for total := 1; total <= 14; total++ {
			t.Run(fmt.Sprintf("sample=%v/writes=%d", sample, total), func(t *testing.T) {
				if sample {
					t.Setenv(SampleEnv, "1")
				} else {
					t.Setenv(SampleEnv, "")
				}
				var tried []int
				writes, exits := exitPoints(t, 100, func(n int) bool {
					tried = append(tried, n)
					return n <= total // a command of total writes exits at any of them
				})
				if writes != total {
					t.Fatalf("writes = %d, want %d (tried %v)", writes, total, tried)
				}
				var exited []int
				for _, n := range tried {
					if n <= total && !slices.Contains(exited, n) {
						exited = append(exited, n)
					}
				}
				if exits != len(exited) {
					t.Errorf("exits = %d, but the command exited at %v", exits, exited)
				}
				if !slices.Contains(exited, total) {
					t.Errorf("never exited at the last write %d: tried %v", total, tried)
				}
				for n := 1; n <= total; n++ {
					want := !sample || n%4 == 1
					if want && !slices.Contains(exited, n) {
						t.Errorf("never exited at write %d: tried %v", n, tried)
					}
				}
				if !sample && len(tried) != total+1 {
					t.Errorf("tried %v, want each write once and then a run to the end", tried)
				}
				if sample && total > 8 && len(exited) == total {
					t.Errorf("with %s set, exited at every write: %v", SampleEnv, exited)
				}
			})
		}
	}
}
