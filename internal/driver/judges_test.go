package driver_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	driver "github.com/moot-dev/moot/internal/driver"
	"github.com/moot-dev/moot/internal/testkit/fixture"
	"github.com/moot-dev/moot/internal/testkit/judgefake"
	"github.com/moot-dev/moot/internal/testkit/modeltest"
	"github.com/moot-dev/moot/internal/testkit/sparring"
	sm "github.com/moot-dev/moot/statemachine"
	"github.com/moot-dev/moot/statemachine/dialectic"
	"github.com/moot-dev/moot/templates"
)

// rejudgeCopy judges the debate at src again, on a copy, with a scripted
// judge, and checks that every original file is byte-identical, that the
// judgment is in judgments/again/ with its record, and that the debate
// passes its check.
func rejudgeCopy(t *testing.T, src string, exchanges int) {
	t.Helper()
	dir := filepath.Join(t.TempDir(), filepath.Base(src))
	if err := fixture.CopyTree(src, dir); err != nil {
		t.Fatal(err)
	}
	before := snapshot(t, dir, false)
	srv := modeltest.NewServer(t, judgefake.Handler(map[string]judgefake.Scorer{"scripted": judgefake.Lean(0.2)}, sparring.Handler(sparring.Options{})))
	d := openDir(t, dir)
	p := dialectic.Protocol{Templates: templates.Default()}
	rj := sm.Rejudging{Judge: sm.Judge{Name: "again", Model: "scripted"}, To: -1}
	sum, err := driver.Rejudge(context.Background(), d, p, rj, options(client(t, srv)))
	if err != nil {
		t.Fatal(err)
	}
	if sum.Steps != exchanges {
		t.Errorf("%d steps, want one per judged exchange, %d", sum.Steps, exchanges)
	}
	after := snapshot(t, dir, false)
	for name, data := range before {
		if strings.HasPrefix(name, ".moot/") {
			continue // moot's own bookkeeping
		}
		if after[name] != data {
			t.Errorf("%s changed", name)
		}
	}
	for name := range after {
		if _, ok := before[name]; !ok && name != "judgments/" && !strings.HasPrefix(name, "judgments/again/") && !strings.HasPrefix(name, ".moot/") {
			t.Errorf("%s was written outside judgments/again/", name)
		}
	}
	for _, f := range []string{"judgments/again/scores.json", "judgments/again/judge.json"} {
		if _, ok := after[f]; !ok {
			t.Errorf("no %s", f)
		}
	}
	deb, err := driver.ReadDebate(readDir(t, dir), p)
	if err != nil {
		t.Fatal(err)
	}
	if f := deb.Check(); len(f.Problems) > 0 {
		t.Errorf("check finds problems after the re-judging: %v", f.Problems)
	}
	j := deb.(sm.Judged).Judgments()
	if len(j.Judges) != 2 || j.Judges[1].Name != "again" || j.Judges[1].Kind != sm.KindRejudge {
		t.Fatalf("judges %+v, want the debate's own and again", j.Judges)
	}
	for _, a := range j.Items {
		if a.Unit >= exchanges {
			continue
		}
		want := 0.1
		if strings.HasPrefix(a.ID, "opp_") {
			want = -0.1
		}
		if got, ok := j.Judges[1].Final[a.ID]; !ok || got != want {
			t.Errorf("the re-judging's score of %s is %v, want %v", a.ID, got, want)
		}
	}
	// Judging again resumes nothing and writes nothing more.
	if sum, err := driver.Rejudge(context.Background(), d, p, rj, options(client(t, srv))); err != nil || sum.Steps != 0 {
		t.Errorf("a finished re-judging ran again: %d steps, %v", sum.Steps, err)
	}
}

// TestRejudgeCompat: the original tool's debate, judged again, keeps
// every file it had byte for byte and passes check.
func TestRejudgeCompat(t *testing.T) {
	rejudgeCopy(t, compatDir(t), 5)
}

// TestRejudgeOwnDebate: the same on a debate of moot's own, so that a
// clone without ../shared tests it too.
func TestRejudgeOwnDebate(t *testing.T) {
	rejudgeCopy(t, newDebate(t, t.TempDir(), 3, false), 3)
}
