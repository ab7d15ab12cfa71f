package cli

import (
	"context"
	"io"
	"os"
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
