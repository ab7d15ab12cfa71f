package cli

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestReadFlagFileRefusesALargeFile checks that a file flag of `moot new`
// names the flag and the file when the file is too large, and reads
// nothing of it.
func TestReadFlagFileRefusesALargeFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "cast.yaml")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	// Sparse: the size is checked before anything is read.
	if err := f.Truncate(MaxFlagFileSize + 1); err != nil {
		t.Fatal(err)
	}
	f.Close()
	_, err = readFlagFile("cast", path)
	var ee *exitError
	if !errors.As(err, &ee) || ee.code != ExitError {
		t.Fatalf("readFlagFile error = %v, want an exit error of code %d", err, ExitError)
	}
	if want := "read --cast " + path + ": the file is larger than 4 MiB"; !strings.HasPrefix(err.Error(), want) {
		t.Errorf("error = %q, want it to start with %q", err, want)
	}
}
