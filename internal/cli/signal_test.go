package cli

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/moot-dev/moot/internal/testkit/modeltest"
	"github.com/moot-dev/moot/statemachine/dialectic/dialectictest/sparring"
)

// TestSecondSignalQuitsAtOnce checks the signal handler: the first signal
// cancels the command with the signal as the cause, and the second exits
// with 128 plus its number without waiting for the command.
func TestSecondSignalQuitsAtOnce(t *testing.T) {
	for _, tc := range []struct {
		name          string
		first, second os.Signal
		want          int
	}{
		{"Ctrl-C twice", os.Interrupt, os.Interrupt, 130},
		{"SIGTERM twice", syscall.SIGTERM, syscall.SIGTERM, 143},
		{"Ctrl-C then SIGTERM", os.Interrupt, syscall.SIGTERM, 143},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithCancelCause(context.Background())
			defer cancel(nil)
			sigs := make(chan os.Signal)
			exited := make(chan int)
			var stderr bytes.Buffer
			done := make(chan struct{})
			go func() {
				defer close(done)
				watchSignals(sigs, cancel, &stderr, func(code int) { exited <- code })
			}()
			sigs <- tc.first
			<-ctx.Done()
			var sig *signalError
			if !errors.As(context.Cause(ctx), &sig) || sig.sig != tc.first {
				t.Fatalf("cause %v, want the first signal", context.Cause(ctx))
			}
			// sigs and exited are unbuffered: the second signal is taken
			// only once the handler has got past the first, and an exit
			// at the first signal would block the handler before that.
			select {
			case sigs <- tc.second:
			case code := <-exited:
				t.Fatalf("exited with %d at the first signal", code)
			case <-time.After(time.Minute):
				t.Fatal("the handler did not take the second signal within a minute")
			}
			select {
			case code := <-exited:
				if code != tc.want {
					t.Errorf("exit %d, want %d", code, tc.want)
				}
			case <-time.After(time.Minute):
				t.Fatal("the second signal did not exit within a minute")
			}
			<-done
			if !strings.Contains(stderr.String(), "quitting at once") {
				t.Errorf("stderr %q says nothing", stderr.String())
			}
		})
	}
}

// mootBinary returns a path that runs this test binary as moot (see
// TestMain in script_test.go).
func mootBinary(t *testing.T) string {
	t.Helper()
	if runtime.GOOS == "windows" {
		t.Skip("signals other than kill cannot be sent on Windows")
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(t.TempDir(), "moot")
	if err := os.Symlink(exe, bin); err != nil {
		t.Fatal(err)
	}
	return bin
}

// TestSignalExitCodes stops a real run half way with SIGINT and SIGTERM:
// each exits with 128 plus the signal's number, and the debate passes check.
func TestSignalExitCodes(t *testing.T) {
	bin := mootBinary(t)
	// The signal is sent once the run is in a call, which the fake
	// reports: a run not yet started would die of the signal instead.
	asked := make(chan struct{}, 16)
	slow := modeltest.NewServer(t, sparring.Handler(sparring.Options{Delay: 300 * time.Millisecond}),
		modeltest.Before(func(context.Context, modeltest.Request) {
			select {
			case asked <- struct{}{}:
			default:
			}
		}))
	for _, tc := range []struct {
		sig  syscall.Signal
		code int
		msg  string
	}{
		{syscall.SIGINT, 130, "moot: error: interrupted"},
		{syscall.SIGTERM, 143, "moot: error: terminated"},
	} {
		t.Run(tc.sig.String(), func(t *testing.T) {
			root := t.TempDir()
			env := append(os.Environ(), "OPENAI_BASE_URL="+slow.URL, "OPENAI_API_KEY=", "MOOT_DIR="+root, "MOOT_MODEL=", "NO_COLOR=1")
			run := func(args ...string) *exec.Cmd {
				c := exec.Command(bin, args...)
				c.Env = env
				return c
			}
			if out, err := run("new", "slow", "--motion", "This house would slow down.").CombinedOutput(); err != nil {
				t.Fatalf("new: %v: %s", err, out)
			}
			c := run("run", "slow", "3")
			var stderr bytes.Buffer
			c.Stderr = &stderr
			for len(asked) > 0 {
				<-asked
			}
			if err := c.Start(); err != nil {
				t.Fatal(err)
			}
			exited := make(chan error, 1)
			go func() { exited <- c.Wait() }()
			select {
			case <-asked:
			case err := <-exited:
				t.Fatalf("the run ended (%v) before its first call; stderr:\n%s", err, stderr.String())
			case <-time.After(time.Minute):
				c.Process.Kill()
				<-exited
				t.Fatalf("the run made no call within a minute; stderr:\n%s", stderr.String())
			}
			c.Process.Signal(tc.sig)
			err := <-exited
			var ee *exec.ExitError
			if !errors.As(err, &ee) || ee.ExitCode() != tc.code {
				t.Fatalf("exit %v, want %d; stderr:\n%s", err, tc.code, stderr.String())
			}
			if !strings.Contains(stderr.String(), tc.msg) {
				t.Errorf("stderr lacks %q:\n%s", tc.msg, stderr.String())
			}
			if out, err := run("check", "slow").CombinedOutput(); err != nil {
				t.Errorf("check after %s: %v: %s", tc.sig, err, out)
			}
		})
	}
}
