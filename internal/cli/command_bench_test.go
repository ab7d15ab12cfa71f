package cli

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"
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
	io := IO{Stdin: os.Stdin, Stdout: io.Discard, Stderr: io.Discard, Now: time.Now, Getenv: os.Getenv}
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
	io := IO{Stdin: os.Stdin, Stdout: io.Discard, Stderr: io.Discard, Now: time.Now, Getenv: os.Getenv}
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
