package cli

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/moot-dev/moot/internal/testkit/modeltest"
	"github.com/moot-dev/moot/statemachine/dialectic/dialectictest/tourneyfake"
)

// BenchmarkReadCommand runs a command that only reads a debate (status or
// check) in-process, b.N times, for a CPU profile of the work a command
// does once started, apart from the start-up of the process:
//
//	go run ./bench/gendebate -exchanges 9 /tmp/nine
//	MOOT_BENCH_DEBATE=/tmp/nine MOOT_BENCH_CMD=status \
//	  go test -run '^$' -bench ReadCommand -benchtime 1000x -cpuprofile cpu.prof ./internal/cli/
//
// It is skipped without MOOT_BENCH_DEBATE, as it needs a debate built
// outside the test (bench/gendebate is a command, not a package).
func BenchmarkReadCommand(b *testing.B) {
	dir := os.Getenv("MOOT_BENCH_DEBATE")
	if dir == "" {
		b.Skip("MOOT_BENCH_DEBATE is not set: no debate to read")
	}
	cmd := os.Getenv("MOOT_BENCH_CMD")
	if cmd == "" {
		cmd = "status"
	}
	io := IO{Stdin: os.Stdin, Stdout: io.Discard, Stderr: io.Discard, Now: time.Now, Getenv: os.Getenv, Protocols: withDialectic()}
	b.ReportAllocs()
	for b.Loop() {
		if code := Run(context.Background(), []string{"moot", cmd, dir}, io); code != ExitOK {
			b.Fatalf("moot %s %s: exit %d", cmd, dir, code)
		}
	}
}

// BenchmarkStepCommand runs `moot process-judge` in-process on a fresh
// copy of a debate awaiting its judgment, b.N times, copying outside the
// timer, for a CPU profile of a step's own work:
//
//	MOOT_BENCH_DEBATE=/tmp/awaiting MOOT_BENCH_JUDGE=/tmp/answers/judge.json \
//	  go test -run '^$' -bench StepCommand -benchtime 300x -cpuprofile cpu.prof ./internal/cli/
//
// It is skipped without MOOT_BENCH_DEBATE and MOOT_BENCH_JUDGE (see
// bench/startup.py for how they are made).
func BenchmarkStepCommand(b *testing.B) {
	src, judge := os.Getenv("MOOT_BENCH_DEBATE"), os.Getenv("MOOT_BENCH_JUDGE")
	if src == "" || judge == "" {
		b.Skip("MOOT_BENCH_DEBATE or MOOT_BENCH_JUDGE is not set: no debate to step")
	}
	io := IO{Stdin: os.Stdin, Stdout: io.Discard, Stderr: io.Discard, Now: time.Now, Getenv: os.Getenv, Protocols: withDialectic()}
	tmp := b.TempDir()
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		b.StopTimer()
		dir := filepath.Join(tmp, strconv.Itoa(i))
		if err := os.CopyFS(dir, os.DirFS(src)); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		if code := Run(context.Background(), []string{"moot", "process-judge", dir, "--json-file", judge}, io); code != ExitOK {
			b.Fatalf("moot process-judge %s: exit %d", dir, code)
		}
	}
}

// BenchmarkTournamentRun makes and runs, in-process, a tournament of 3
// models on 2 motions (12 debates of 3 exchanges, 72 steps) against the
// tournament fake answering at once, b.N times: for a CPU profile of what
// `moot tournament run` does a step (the fake's own work is in the
// profile too, under modeltest):
//
//	go test -run '^$' -bench TournamentRun -benchtime 20x -cpuprofile cpu.prof ./internal/cli/
//
// bench/tourney measures the whole process against issue 15's targets.
func BenchmarkTournamentRun(b *testing.B) {
	srv := modeltest.NewServer(b, tourneyfake.Handler(map[string]float64{"strong": 2, "middle": 1}), modeltest.Forget())
	env := map[string]string{"OPENAI_BASE_URL": srv.URL}
	io := IO{Stdin: os.Stdin, Stdout: io.Discard, Stderr: io.Discard, Now: time.Now,
		Getenv: func(k string) string { return env[k] }, Protocols: withDialectic()}
	motions := filepath.Join(b.TempDir(), "motions.txt")
	if err := os.WriteFile(motions, []byte("Cities should ban cars.\nSchools should end homework.\n"), 0o644); err != nil {
		b.Fatal(err)
	}
	tmp := b.TempDir()
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		b.StopTimer()
		root := filepath.Join(tmp, strconv.Itoa(i))
		if code := Run(context.Background(), []string{"moot", "--dir", root, "tournament", "new", "cup", "--models", "strong,middle,weak",
			"--motions", motions, "--judge-model", "judge"}, io); code != ExitOK {
			b.Fatalf("moot tournament new: exit %d", code)
		}
		b.StartTimer()
		if code := Run(context.Background(), []string{"moot", "--dir", root, "tournament", "run", "cup", "--jobs", "4", "--quiet"}, io); code != ExitOK {
			b.Fatalf("moot tournament run: exit %d", code)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Microseconds())/1000/float64(b.N*72), "ms/step")
}

// BenchmarkTournamentStatus runs `moot tournament status` in-process on a
// tournament made outside the test, b.N times, for a CPU profile of
// reading every debate of a large tournament (status computes what report
// does, without writing):
//
//	go run ./bench/tourney report -keep /tmp/t1800 -runs 1
//	MOOT_BENCH_TOURNAMENT=/tmp/t1800/debates/tournaments/bench \
//	  go test -run '^$' -bench TournamentStatus -benchtime 5x -cpuprofile cpu.prof ./internal/cli/
//
// It is skipped without MOOT_BENCH_TOURNAMENT.
func BenchmarkTournamentStatus(b *testing.B) {
	dir := os.Getenv("MOOT_BENCH_TOURNAMENT")
	if dir == "" {
		b.Skip("MOOT_BENCH_TOURNAMENT is not set: no tournament to read")
	}
	root := filepath.Dir(filepath.Dir(dir))
	io := IO{Stdin: os.Stdin, Stdout: io.Discard, Stderr: io.Discard, Now: time.Now, Getenv: os.Getenv, Protocols: withDialectic()}
	b.ReportAllocs()
	for b.Loop() {
		if code := Run(context.Background(), []string{"moot", "--dir", root, "tournament", "status", filepath.Base(dir)}, io); code != ExitOK {
			b.Fatalf("moot tournament status: exit %d", code)
		}
	}
}
