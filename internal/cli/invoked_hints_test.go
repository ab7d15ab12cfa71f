package cli_test

import (
	"bytes"
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/moot-dev/moot/internal/cli"
	"github.com/moot-dev/moot/statemachine/forum"
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

// TestNextCommandsCallMootAsInvoked: the commands a summary or a status
// proposes next (after a run, in status's next lines, after tournament
// new and in tournament status) call moot the way the user did, as the
// hints of errors do.
func TestNextCommandsCallMootAsInvoked(t *testing.T) {
	for _, prog := range []string{"./moot", "/opt/bin/moot", "moot"} {
		t.Run(prog, func(t *testing.T) {
			dir := t.TempDir()
			var out, errb bytes.Buffer
			io := cli.IO{Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errb, Now: time.Now,
				Getenv: func(string) string { return "" }, Protocols: withDialectic(forum.Protocol{})}
			run := func(args ...string) {
				t.Helper()
				out.Reset()
				errb.Reset()
				if code := cli.Run(context.Background(), append([]string{prog, "--dir", dir}, args...), io); code != 0 {
					t.Fatalf("%s: exit %d: %s", strings.Join(args, " "), code, errb.String())
				}
			}
			want := func(what, text string, lines ...string) {
				t.Helper()
				for _, l := range lines {
					if !strings.Contains(text, l) {
						t.Errorf("%s does not say %q:\n%s", what, l, text)
					}
				}
			}
			run("new", "d", "--motion", "This house would paste commands.")
			run("run", "d", "--model", "builtin")
			want("the run's summary", errb.String(), "  "+prog+" run "+dir+"/d 3 ", "  "+prog+" report "+dir+"/d ")
			run("status", "d")
			want("status", out.String(), "          "+prog+" run "+dir+"/d ", "          "+prog+" process-exchange "+dir+"/d ")
			run("new", "f", "--protocol", "forum", "--motion", "Cats are better.")
			run("status", "f")
			want("forum's status", out.String(), "          "+prog+" run "+dir+"/f\n")
			motions := dir + "/motions.txt"
			if err := os.WriteFile(motions, []byte("Tea is better than coffee.\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			run("tournament", "new", "cup", "--models", "builtin,gpt-4o-mini", "--motions", motions, "--exchanges", "1")
			want("tournament new", out.String(), "next: "+prog+" tournament run cup ", "'"+prog+" tournament plan cup'")
			run("tournament", "status", "cup")
			want("tournament status", out.String(), "next        "+prog+" tournament run cup\n")
		})
	}
}
