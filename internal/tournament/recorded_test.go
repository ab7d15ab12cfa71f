//go:build unix

package tournament_test

import (
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/moot-dev/moot/store"
)

// TestRunWritesOutARecordedStep: a finished debate whose last step a
// killed runner recorded in its journal, but did not write out, reads as
// done; `moot tournament plan` gives it a job, and the next `moot
// tournament run` writes the step out, so that the files on disk say what
// readers see.
func TestRunWritesOutARecordedStep(t *testing.T) {
	p := newProc(t, filepath.Join(t.TempDir(), "debates"), fakeServer(t, 0, nil).URL)
	// Two models on one motion: two debates, one of which is the one
	// whose last step is left recorded.
	p.moot(cupArgs(t, "strong,middle", "Cities should ban cars.\n")...)
	p.moot("tournament", "run", "cup", "--quiet")
	dir := filepath.Join(p.root, "tournaments", "cup", "m01-r1-strong-vs-middle")
	header := filepath.Join(dir, "debate.md")
	final, err := os.ReadFile(header)
	if err != nil {
		t.Fatal(err)
	}
	// The journal holds the last step; debate.md is still as it was before.
	journal, err := json.Marshal(map[string]any{"files": []store.File{{Name: "debate.md", Data: final}}})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, filepath.FromSlash(store.JournalFile)), journal, 0o644); err != nil {
		t.Fatal(err)
	}
	stale := strings.Replace(string(final), `"current_exchange": 2,`, `"current_exchange": 1,`, 1)
	stale = strings.Replace(stale, `"current_phase": "awaiting_arguments",`, `"current_phase": "awaiting_judgment",`, 1)
	if stale == string(final) {
		t.Fatalf("debate.md is not at exchange 2, awaiting arguments:\n%s", final)
	}
	if err := os.WriteFile(header, []byte(stale), 0o644); err != nil {
		t.Fatal(err)
	}
	if s := p.standings("cup"); s.Counts["done"] != 2 {
		t.Fatalf("with the step recorded, %d debates read as done, want 2", s.Counts["done"])
	}

	if plan := p.moot("tournament", "plan", "cup").Stdout; plan != "moot run "+dir+" --all --quiet\n" {
		t.Errorf("the plan is\n%s\nwant the one job that writes the step out", plan)
	}

	r := p.moot("tournament", "run", "cup")
	if !strings.Contains(r.Stderr, "completed the interrupted last step of 1 finished debate") || !strings.Contains(r.Stderr, "nothing to run") {
		t.Errorf("moot tournament run said:\n%s", r.Stderr)
	}
	if got, err := os.ReadFile(header); err != nil || string(got) != string(final) {
		t.Errorf("after the run debate.md is (%v)\n%s\nwant the recorded step's\n%s", err, got, final)
	}
	if _, err := os.Stat(filepath.Join(dir, filepath.FromSlash(store.JournalFile))); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the journal is still there after the run: %v", err)
	}
	p.moot("check", dir)
}
