//go:build unix

package store

import (
	"errors"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// TestReadInputRefusesAFIFOAtOnce: a named pipe given as a file is refused
// as not a regular file, before it is opened, so that reading it does
// not wait for a writer that never comes.
func TestReadInputRefusesAFIFOAtOnce(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "answer")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skipf("cannot make a named pipe here: %v", err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := ReadInput(fifo, 10)
		done <- err
	}()
	select {
	case err := <-done:
		if !errors.Is(err, ErrNotRegular) {
			t.Fatalf("ReadInput = %v, want ErrNotRegular", err)
		}
	case <-time.After(time.Minute): // a guard: the read returns at once
		t.Fatal("ReadInput of a named pipe had not returned after a minute: it waits for a writer")
	}
}
