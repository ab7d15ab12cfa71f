package main

import (
	"bufio"
	"bytes"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
)

// initBudget is how many bytes the package initialisation of each of
// moot's own packages may allocate. Every command pays for it at start-up,
// so regexps, parsers and tables are built on first use instead; what is
// left is small literal maps and error values.
const initBudget = 6 << 10

// TestStartupInitIsSmall runs this test binary, which links the same
// packages as moot, with GODEBUG=inittrace=1, and checks that none of
// moot's packages does heavy work in its initialisation.
func TestStartupInitIsSmall(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, "-test.run=^$")
	cmd.Env = append(os.Environ(), "GODEBUG=inittrace=1")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s: %v\n%s", exe, err, stderr.Bytes())
	}
	seen := 0
	sc := bufio.NewScanner(&stderr)
	for sc.Scan() {
		// init PKG @0.5 ms, 0.01 ms clock, 1234 bytes, 5 allocs
		f := strings.Fields(sc.Text())
		if len(f) < 10 || f[0] != "init" || f[8] != "bytes," {
			continue
		}
		seen++
		pkg := f[1]
		if !strings.HasPrefix(pkg, "github.com/moot-dev/moot/") {
			continue
		}
		n, err := strconv.Atoi(f[7])
		if err != nil {
			t.Fatalf("inittrace line %q: %v", sc.Text(), err)
		}
		if n > initBudget {
			t.Errorf("package %s allocates %d bytes in its initialisation (budget %d): build what it needs on first use (sync.OnceValue)", pkg, n, initBudget)
		}
	}
	if seen == 0 {
		t.Fatalf("no inittrace lines from %s:\n%s", exe, stderr.Bytes())
	}
}
