// Package scriptcmd holds the commands that moot's end-to-end scripts
// (testscript) share beyond testscript's own.
package scriptcmd

import (
	"errors"
	"os/exec"
	"strconv"

	"github.com/rogpeppe/go-internal/testscript"
)

// Code is the command `code N PROGRAM [ARGS...]`: it runs the program and
// fails unless it exits with N (negated: unless it exits otherwise), since
// moot's exit codes are part of what it promises.
func Code(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) < 2 {
		ts.Fatalf("usage: code N command [args...]")
	}
	want, err := strconv.Atoi(args[0])
	if err != nil {
		ts.Fatalf("code: %v", err)
	}
	err = ts.Exec(args[1], args[2:]...)
	got := 0
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		got = ee.ExitCode()
	} else if err != nil {
		ts.Fatalf("code: %v", err)
	}
	if (got == want) == neg {
		ts.Fatalf("%s exited with %d, want %d", args[1], got, want)
	}
}
