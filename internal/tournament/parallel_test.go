//go:build unix

package tournament_test

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// The examples of docs/tournaments.md: the job list of `moot tournament
// plan` run four at a time by GNU parallel and by xargs -P, then the
// report read from the debates wherever they ran.
const (
	parallelExample = `moot tournament plan cup > jobs.txt
parallel -j 4 < jobs.txt
moot tournament report cup
`
	xargsExample = `moot tournament plan cup | xargs -d '\n' -n 1 -P 4 sh -c 'eval "$1"' sh
`
)

// jobListCup makes the tournament cup of TestJobList: three models on one
// motion, six debates, more than the examples run at a time (four), and
// enough to rank the three models.
func jobListCup(t *testing.T) []string {
	return cupArgs(t, "strong,middle,weak", "Cities should ban cars.\n")
}

// TestJobList runs the documented examples that run a tournament's job
// list, GNU parallel's and xargs's, against the fake, and checks that
// every debate is done with the standings a `moot tournament run` of the
// same tournament gives, and that the report reads them.
func TestJobList(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join("..", "..", "docs", "tournaments.md"))
	if err != nil {
		t.Fatal(err)
	}
	server := fakeServer(t, 0, nil)
	// The reference: the same tournament run by moot tournament run.
	ref := newProc(t, filepath.Join(t.TempDir(), "debates"), server.URL)
	ref.moot(jobListCup(t)...)
	ref.moot("tournament", "run", "cup", "--jobs", "4", "--quiet")
	want := ref.standings("cup")

	for _, tc := range []struct {
		name, example string
		// missing says why the example cannot run here, "" when it can.
		missing func() string
	}{
		{"GNU parallel", parallelExample, func() string {
			bin, err := exec.LookPath("parallel")
			if err != nil {
				return "GNU parallel is not on PATH: install it (Debian's package parallel; .ci/run does) to run the documented example"
			}
			if out, err := exec.Command(bin, "--version").Output(); err != nil || !bytes.Contains(out, []byte("GNU parallel")) {
				return bin + " is not GNU parallel (moreutils has another of that name): install Debian's package parallel to run the documented example"
			}
			return ""
		}},
		{"xargs", xargsExample, func() string {
			if err := exec.Command("xargs", "-d", `\n`, "true").Run(); err != nil {
				return "no xargs that takes -d (GNU findutils') is on PATH"
			}
			return ""
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if !strings.Contains(string(doc), tc.example) {
				t.Fatalf("docs/tournaments.md does not have the example this test runs:\n%s", tc.example)
			}
			if why := tc.missing(); why != "" {
				t.Skip(why)
			}
			runJobList(t, server.URL, tc.example, want)
		})
	}
}

// runJobList makes the tournament cup and runs example on it: in a project
// folder, with the debates root at its default, ./debates, and moot on
// PATH (this test binary, which runs as moot under the name moot). The
// standings must then be want, and the report must say so.
func runJobList(t *testing.T, url, example string, want standings) {
	work := t.TempDir()
	p := newProc(t, filepath.Join(work, "debates"), url)
	p.moot(jobListCup(t)...)
	path := t.TempDir()
	if err := os.Symlink(p.bin, filepath.Join(path, "moot")); err != nil {
		t.Fatal(err)
	}
	sh := exec.Command("sh", "-e", "-c", example+"moot tournament plan cup > left.txt\nmoot tournament report cup\n")
	sh.Dir = work
	sh.Env = append(append(os.Environ(), p.env...), "PATH="+path+string(os.PathListSeparator)+os.Getenv("PATH"))
	out, err := sh.CombinedOutput()
	if err != nil {
		t.Fatalf("the example failed: %v\n%s", err, out)
	}
	if jobs, err := os.ReadFile(filepath.Join(work, "jobs.txt")); err == nil {
		// The plan names the debates as the root was given: relative to
		// the folder the jobs run in.
		if n := strings.Count(string(jobs), "moot run debates/tournaments/cup/m0"); n != 6 {
			t.Errorf("the plan has %d jobs that run a debate under ./debates, want 6:\n%s", n, jobs)
		}
	}
	if left, err := os.ReadFile(filepath.Join(work, "left.txt")); err != nil || len(left) > 0 {
		t.Errorf("after the example the plan still has jobs (%v):\n%s", err, left)
	}
	got := p.standings("cup")
	if !reflect.DeepEqual(got, want) {
		t.Errorf("after the example the standings are\n%+v\nwant those of moot tournament run:\n%+v", got, want)
	}
	readme, err := os.ReadFile(filepath.Join(work, "debates", "tournaments", "cup", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range []string{"6 debates of the dialectic protocol between 3 models on 1 motion: 6 done, 0 failed, 0 running, 0 still to run.", "| 1 | strong |", "| 2 | middle |", "| 3 | weak |"} {
		if !strings.Contains(string(readme), line) {
			t.Errorf("the report has no %q:\n%s", line, readme)
		}
	}
}
