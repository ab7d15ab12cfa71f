//go:build unix

package tournament_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/moot-dev/moot/internal/testkit/crashtest"
	"github.com/moot-dev/moot/internal/testkit/fixture"
	"github.com/moot-dev/moot/internal/testkit/modeltest"
	"github.com/moot-dev/moot/statemachine/dialectic/dialectictest/tourneyfake"
)

// strengths rank the fake's models: strong beats middle beats weak.
var strengths = map[string]float64{"strong": 3, "middle": 2, "weak": 1}

const motions = "Cities should ban cars.\nSchools should end homework.\n"

// callDelay is how long the fake takes to answer in TestKillRunner, so
// that a kill finds calls in flight and commits under way.
const callDelay = 40 * time.Millisecond

// fakeServer is a tourneyfake server whose answers take delay. before,
// when set, sees every request first.
func fakeServer(t *testing.T, delay time.Duration, before func(context.Context, modeltest.Request)) *modeltest.Server {
	h := tourneyfake.Handler(strengths)
	var opts []modeltest.Option
	if before != nil {
		opts = append(opts, modeltest.Before(before))
	}
	return modeltest.NewServer(t, func(req modeltest.Request) modeltest.Reply {
		r := h(req)
		r.Delay = delay
		return r
	}, opts...)
}

// newArgs makes the tournament cup of the three models of strengths on
// the two motions, two exchanges a debate (12 debates); it writes the
// motions file.
func newArgs(t *testing.T) []string {
	t.Helper()
	return cupArgs(t, "strong,middle,weak", motions)
}

// cupArgs makes the tournament cup of models (some of strengths, comma
// separated) on the motions of motionsFile's text, two exchanges a
// debate: every pair of models meets on every motion twice, sides
// swapped. It writes the motions file.
func cupArgs(t *testing.T, models, motionsFile string) []string {
	t.Helper()
	file := filepath.Join(t.TempDir(), "motions.txt")
	if err := os.WriteFile(file, []byte(motionsFile), 0o644); err != nil {
		t.Fatal(err)
	}
	return []string{"tournament", "new", "cup", "--models", models, "--motions", file,
		"--exchanges", "2", "--judge-model", "judge"}
}

// env is what every moot process of these tests has in its environment
// besides the test's own: the fake at url, no key, no debates root.
func env(t *testing.T, url string) []string {
	_, self := crashtest.Self(t)
	// A moot process built with the race detector would sleep a second
	// as it exits, waiting for reports that its own end already gave.
	gorace := strings.TrimSpace(os.Getenv("GORACE") + " atexit_sleep_ms=0")
	return append(self, "OPENAI_BASE_URL="+url, "OPENAI_API_KEY=", "MOOT_MODEL=judge", "MOOT_DIR=", "NO_COLOR=1", "GORACE="+gorace)
}

// mootRun is one moot process of a test.
type mootRun struct {
	Code           int
	Killed         bool
	Stdout, Stderr string
	Elapsed        time.Duration
	// CPU is the process's user and system time.
	CPU time.Duration
}

// proc starts moot processes under one debates root against one fake.
type proc struct {
	t    *testing.T
	bin  string
	env  []string
	root string
}

func newProc(t *testing.T, root, url string) *proc {
	bin, _ := crashtest.Self(t)
	return &proc{t: t, bin: bin, root: root, env: env(t, url)}
}

// start starts moot with args in a process group of its own, with mark in
// its environment so that any process it leaves can be found.
func (p *proc) start(mark string, args ...string) (*exec.Cmd, *bytes.Buffer, *bytes.Buffer) {
	p.t.Helper()
	cmd := exec.Command(p.bin, append([]string{"--dir", p.root}, args...)...)
	cmd.Env = append(append(os.Environ(), p.env...), "MOOT_TKILL_MARK="+mark)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Start(); err != nil {
		p.t.Fatal(err)
	}
	return cmd, &stdout, &stderr
}

// wait waits for a process that start started.
func wait(t *testing.T, cmd *exec.Cmd, stdout, stderr *bytes.Buffer, start time.Time) mootRun {
	t.Helper()
	err := cmd.Wait()
	r := mootRun{Stdout: stdout.String(), Stderr: stderr.String(), Elapsed: time.Since(start)}
	if ps := cmd.ProcessState; ps != nil {
		r.CPU = ps.UserTime() + ps.SystemTime()
	}
	var exit *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &exit):
		r.Code = exit.ExitCode()
		if ws, ok := exit.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			r.Killed, r.Code = true, -1
		}
	default:
		t.Fatal(err)
	}
	return r
}

// moot runs moot to its end and fails the test unless it exits 0.
func (p *proc) moot(args ...string) mootRun {
	p.t.Helper()
	start := time.Now()
	cmd, stdout, stderr := p.start("-", args...)
	r := wait(p.t, cmd, stdout, stderr, start)
	if r.Code != 0 {
		p.t.Fatalf("moot %s: exit %d\n%s%s", strings.Join(args, " "), r.Code, r.Stdout, r.Stderr)
	}
	return r
}

// standings is the part of `moot tournament status --json` that an
// interrupted run must give as an uninterrupted one does: everything but
// the tokens, which a call answered and then lost to a kill adds to.
type standings struct {
	Counts  map[string]int `json:"counts"`
	Ratings []struct {
		Model  string  `json:"model"`
		BT     float64 `json:"bradley_terry"`
		Low    float64 `json:"low"`
		High   float64 `json:"high"`
		Elo    float64 `json:"elo"`
		Games  int     `json:"games"`
		Wins   int     `json:"wins"`
		Draws  int     `json:"draws"`
		Losses int     `json:"losses"`
	} `json:"ratings"`
	Side    json.RawMessage `json:"side_advantage"`
	First   json.RawMessage `json:"first_speaker_advantage"`
	Motions json.RawMessage `json:"motions"`
	Debates []struct {
		Slug    string          `json:"slug"`
		State   string          `json:"state"`
		Done    int             `json:"done"`
		Total   int             `json:"total"`
		Outcome json.RawMessage `json:"outcome"`
		Failure string          `json:"failure"`
	} `json:"debates"`
}

func (p *proc) standings(name string) standings {
	p.t.Helper()
	var s standings
	if err := json.Unmarshal([]byte(p.moot("tournament", "status", name, "--json").Stdout), &s); err != nil {
		p.t.Fatalf("moot tournament status --json: %v", err)
	}
	return s
}

// times are the instants a debate's files record, which differ from run
// to run.
var times = regexp.MustCompile(`\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)`)

// debateFiles reads every debate of the tournament at dir, .moot aside,
// with its times blanked.
func debateFiles(t *testing.T, dir string) map[string]string {
	t.Helper()
	tree, err := fixture.Tree(dir)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for name, data := range tree {
		if strings.HasPrefix(name, ".moot") || strings.Contains(name, "/.moot") {
			continue
		}
		out[name] = times.ReplaceAllString(data, "TIME")
	}
	return out
}
