//go:build unix

package cli_test

import (
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/moot-dev/moot/internal/cli"
	"github.com/moot-dev/moot/internal/testkit/fixture"
)

// TestAnswerFileNotRegular: a file handed in that is not a regular file
// (a named pipe, a folder) is an error in the command line (exit 2),
// refused before it is opened: moot never waits for a pipe's writer.
func TestAnswerFileNotRegular(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "pipe")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skipf("cannot make a named pipe here: %v", err)
	}
	tests := []struct {
		name string
		c    personCase
		args []string
	}{
		{"moot answer, a pipe", personCases[1], []string{"answer", "d", "for", fifo}},
		{"moot answer, a folder", personCases[1], []string{"answer", "d", "for", dir}},
		{"process-exchange, a pipe", personCases[0], []string{"process-exchange", "d", "0", "--prop-file", fifo, "--opp-file", fifo}},
		{"process-judge, a folder", personCases[0], []string{"process-judge", "d", "--json-file", dir}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := stopForPerson(t, tt.c)
			before := debateFiles(t, root)
			type result struct {
				code   int
				stderr string
			}
			done := make(chan result, 1)
			go func() {
				code, _, stderr := mootIn(t, root, tt.args...)
				done <- result{code, stderr}
			}()
			select {
			case r := <-done:
				if r.code != cli.ExitUsage || !strings.Contains(r.stderr, "is not a regular file") {
					t.Errorf("exit %d, want %d and not a regular file\n%s", r.code, cli.ExitUsage, r.stderr)
				}
			case <-time.After(time.Minute): // a guard: moot returns at once
				t.Fatal("moot had not returned after a minute: it waits for the pipe's writer")
			}
			if diff := fixture.Diff(before, debateFiles(t, root)); len(diff) > 0 {
				t.Errorf("the debate changed: %v", diff)
			}
		})
	}
}
