package driver

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/moot-dev/moot/statemachine/dialectic"
	"github.com/moot-dev/moot/statemachine/dialectic/dialectictest"
	"github.com/moot-dev/moot/store"
)

func locked(t *testing.T, dir string) *store.Dir {
	t.Helper()
	d, err := store.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	if err := d.Lock(context.Background(), "moot test", false); err != nil {
		t.Fatal(err)
	}
	return d
}

// TestWriterRefusesABrokenDebate removes an argument file of the exchange
// awaiting judgment: a judgment would then score an argument that does not
// exist, so the step is refused and scores.json stays as it was.
func TestWriterRefusesABrokenDebate(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "demo")
	d, err := Create(dir, "demo", dialectic.Motion{Text: "This house would test."})
	if err != nil {
		t.Fatal(err)
	}
	d.Close()
	d = locked(t, dir)
	if _, err := ProcessExchange(d, 0, dialectictest.Answer(dialectic.Prop, 0), dialectictest.Answer(dialectic.Opp, 0)); err != nil {
		t.Fatal(err)
	}
	d.Close()
	if err := os.Remove(filepath.Join(dir, "arguments", "opp_000b.md")); err != nil {
		t.Fatal(err)
	}
	before, _ := os.ReadFile(filepath.Join(dir, "scores.json"))
	res, err := ProcessJudge(locked(t, dir), dialectictest.Judgment(0), time.Now())
	var broken *Broken
	if !errors.As(err, &broken) || res.Success {
		t.Fatalf("got %v (success %v), want a *Broken error", err, res.Success)
	}
	if len(broken.Problems) == 0 || broken.Problems[0].File != "arguments/opp_000b.md" {
		t.Fatalf("problems %v do not name the missing file", broken.Problems)
	}
	after, _ := os.ReadFile(filepath.Join(dir, "scores.json"))
	if string(before) != string(after) {
		t.Fatal("scores.json changed")
	}
	// A reader still loads it, to show what is there.
	r, err := store.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if _, err := Load(r); err != nil {
		t.Fatalf("a reader's Load: %v", err)
	}
}
