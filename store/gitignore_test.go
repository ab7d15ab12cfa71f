package store

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/moot-dev/moot/internal/faults"
)

// lockOnce runs in a child process of TestGitignoreAfterACrash: it takes
// the lock of dir, as every writing command does first, and lets it go,
// with the faults that faults.Env asks for.
func lockOnce(dir string) {
	faults.ArmFromEnv()
	d, err := Open(dir)
	if err == nil {
		err = d.Lock(context.Background(), "moot helper", false)
	}
	if err != nil {
		fmt.Println(err)
		os.Exit(1)
	}
	d.Close()
	os.Exit(0)
}

// TestGitignoreAfterACrash kills a writer that is writing .moot/.gitignore
// for a debate without one, after it has linked the temporary file to its
// name and before it has removed the temporary file: .moot/.gitignore then
// has two links. The next accepted step must remove the temporary file,
// giving .moot/.gitignore back its single link, and leave no temporary
// file of it anywhere.
func TestGitignoreAfterACrash(t *testing.T) {
	dir, d := newDebate(t)
	d.Close()
	gitignore := filepath.Join(dir, filepath.FromSlash(GitignoreFile))
	if err := os.Remove(gitignore); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(os.Args[0])
	// The only write operation of Lock here is the removal of the
	// temporary file, after the link.
	cmd.Env = append(os.Environ(), "MOOT_TEST_LOCK_ONCE="+dir, faults.Env+"=exit:1")
	out, err := cmd.CombinedOutput()
	if cmd.ProcessState.ExitCode() != 137 {
		t.Fatalf("the writer was not killed at the removal: %v, %s", err, out)
	}
	if n := nlink(t, gitignore); n != 2 {
		t.Fatalf("after the crash .moot/.gitignore has %d links, want 2", n)
	}

	w := openDir(t, dir)
	if err := w.Commit([]File{{Name: "debate.md", Data: []byte("v1\n")}}); err != nil {
		t.Fatal(err)
	}
	if n := nlink(t, gitignore); n != 1 {
		t.Fatalf("after the next step .moot/.gitignore has %d links, want 1", n)
	}
	if b, _ := os.ReadFile(gitignore); string(b) != Gitignore {
		t.Fatalf(".moot/.gitignore holds %q", b)
	}
	filepath.WalkDir(filepath.Join(dir, PrivateDir), func(p string, e fs.DirEntry, err error) error {
		if err == nil && strings.Contains(e.Name(), "gitignore") && e.Name() != ".gitignore" {
			t.Errorf("left behind: %s", p)
		}
		return nil
	})
}

func nlink(t *testing.T, name string) uint64 {
	t.Helper()
	info, err := os.Stat(name)
	if err != nil {
		t.Fatal(err)
	}
	return links(info)
}
