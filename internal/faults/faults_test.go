package faults

import (
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	tests := map[string]struct {
		want Plan
		ok   bool
	}{
		"":         {},
		"fail:3":   {Plan{At: 3}, true},
		"exit:12":  {Plan{Exit: true, At: 12}, true},
		"fail":     {},
		"fail:0":   {},
		"fail:-1":  {},
		"fail:x":   {},
		"crash:3":  {},
		"FAIL:3":   {},
		"fail:3:4": {},
	}
	for v, tt := range tests {
		t.Run(v, func(t *testing.T) {
			got, ok := Parse(v)
			if got != tt.want || ok != tt.ok {
				t.Errorf("Parse(%q) = %+v, %v; want %+v, %v", v, got, ok, tt.want, tt.ok)
			}
		})
	}
}

// TestHookFailsTheNthOperation checks that a fail:N plan fails the N-th
// operation counted from the reset, and only that one.
func TestHookFailsTheNthOperation(t *testing.T) {
	hook := Plan{At: 3}.Hook()
	ResetCount()
	for n := 1; n <= 5; n++ {
		err := hook("write x")
		if (err != nil) != (n == 3) {
			t.Fatalf("operation %d: %v", n, err)
		}
		if err != nil && !strings.Contains(err.Error(), "operation 3 (write x)") {
			t.Errorf("the fault reads %q, want it to name the operation", err)
		}
	}
}

// TestUnarmed checks that no hook is armed unless a test arms one: moot's
// own commands never do.
func TestUnarmed(t *testing.T) {
	t.Setenv(Env, "fail:1")
	if Hook() != nil {
		t.Fatal("Hook() is set though nothing armed it")
	}
}
