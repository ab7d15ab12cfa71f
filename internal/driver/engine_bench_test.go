package driver_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/moot-dev/moot/internal/testkit/storetest"

	"github.com/moot-dev/moot/internal/testkit/fixture"

	driver "github.com/moot-dev/moot/internal/driver"
	"github.com/moot-dev/moot/statemachine/dialectic"
)

// BenchmarkProcessJudge times process-judge on a 10-exchange debate: open
// the directory, load and check the judgment of exchange 9 (with a
// rescore), and commit scores.json, the graph and debate.md with their
// fsyncs. Copying the debate afresh for each run is not timed.
func BenchmarkProcessJudge(b *testing.B) {
	template := newDebate(b, b.TempDir(), 9, true)
	d, err := storetest.OpenForWrite(template, "test")
	if err != nil {
		b.Fatal(err)
	}
	deb, err := driver.Load(d)
	d.Close()
	if err != nil {
		b.Fatal(err)
	}
	answer := judgeAnswer(deb.Header.State.Exchange, deb.Scores.Current())
	work := b.TempDir()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		dir := filepath.Join(work, "demo")
		os.RemoveAll(dir)
		if err := fixture.CopyTree(template, dir); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()

		d, err := storetest.OpenForWrite(dir, "test")
		if err != nil {
			b.Fatal(err)
		}
		if _, err := driver.ProcessJudge(d, answer, fixedNow); err != nil {
			b.Fatal(err)
		}
		d.Close()
	}
}

// BenchmarkCheck times check on a 10-exchange debate: open the directory,
// read every file and verify every invariant.
func BenchmarkCheck(b *testing.B) {
	dir := newDebate(b, b.TempDir(), 10, false)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		d, err := storetest.OpenForWrite(dir, "test")
		if err != nil {
			b.Fatal(err)
		}
		raw, err := driver.ReadRaw(d)
		if err != nil {
			b.Fatal(err)
		}
		if ps := dialectic.Check(raw).Problems; len(ps) != 0 {
			b.Fatal(ps)
		}
		d.Close()
	}
}
