package cli_test

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/moot-dev/moot/internal/cli"
)

// TestHintsCallMootAsInvoked: a hint's command line calls moot the way
// the user did, so that it can be pasted as it is: ./moot when they ran
// ./moot, moot when moot was found on PATH.
func TestHintsCallMootAsInvoked(t *testing.T) {
	for _, tc := range []struct {
		prog, want, wantHelp string
	}{
		{"./moot", "'./moot run d' carries it on", "'./moot help run'"},
		{"/opt/bin/moot", "'/opt/bin/moot run d' carries it on", "'/opt/bin/moot help run'"},
		{"moot", "'moot run d' carries it on", "'moot help run'"},
	} {
		t.Run(tc.prog, func(t *testing.T) {
			dir := t.TempDir()
			var out, errb bytes.Buffer
			io := cli.IO{Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errb, Now: time.Now,
				Getenv: func(string) string { return "" }, Protocols: withDialectic()}
			run := func(args ...string) int {
				errb.Reset()
				return cli.Run(context.Background(), append([]string{tc.prog, "--dir", dir}, args...), io)
			}
			if code := run("new", "d", "--motion", "This house would paste hints."); code != 0 {
				t.Fatalf("new: exit %d: %s", code, errb.String())
			}
			if code := run("new", "d", "--motion", "Again."); code != cli.ExitUsage {
				t.Errorf("new on an existing debate: exit %d, want %d", code, cli.ExitUsage)
			}
			if !strings.Contains(errb.String(), tc.want) {
				t.Errorf("hint does not say %q:\n%s", tc.want, errb.String())
			}
			if code := run("run", "d", "x"); code != cli.ExitUsage {
				t.Errorf("run with a bad N: exit %d, want %d", code, cli.ExitUsage)
			}
			if !strings.Contains(errb.String(), tc.wantHelp) {
				t.Errorf("hint does not say %q:\n%s", tc.wantHelp, errb.String())
			}
		})
	}
}
