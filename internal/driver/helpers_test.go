package driver_test

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/moot-dev/moot/internal/testkit/storetest"

	"github.com/moot-dev/moot/internal/testkit/fixture"

	driver "github.com/moot-dev/moot/internal/driver"
	"github.com/moot-dev/moot/statemachine/dialectic"
	"github.com/moot-dev/moot/store"
)

// fixedNow stamps every judgment of these tests, so that two runs of the
// same step write the same bytes.
var fixedNow = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

func mustJSON(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}

func argument(title string, attacks, defends []map[string]any) map[string]any {
	a := map[string]any{
		"title": title,
		"claim": "The claim of " + title + " holds.",
		"grounds": []map[string]any{{
			"source":    "A study of the question",
			"content":   "It found what the claim says.\nOn two lines.",
			"relevance": "It supports the claim.",
		}},
		"warrant": "What the study found is what the claim says.",
	}
	if attacks != nil {
		a["attacks"] = attacks
	}
	if defends != nil {
		a["defends"] = defends
	}
	return a
}

// openingAnswer is a valid opening for side: three arguments.
func openingAnswer(side dialectic.Side) []byte {
	var args []any
	for _, l := range []string{"first", "second", "third"} {
		args = append(args, argument(fmt.Sprintf("The %s %s opening argument here", side.Name(), l), nil, nil))
	}
	return mustJSON(args)
}

// rebuttalAnswer is a valid rebuttal for side at exchange e >= 1: it
// attacks the opponent's argument of e-1 and, from exchange 2, defends its
// own argument of e-1.
func rebuttalAnswer(side dialectic.Side, e int) []byte {
	attacks := []map[string]any{{"target_id": dialectic.ArgumentIDs(e-1, side.Other())[0], "attack_type": "grounds_attack", "content": "Its evidence is old."}}
	var defends []map[string]any
	if e >= 2 {
		defends = []map[string]any{{"target_id": dialectic.ArgumentIDs(e-1, side)[0], "defense_type": "reinforce", "content": "It still stands."}}
	}
	return mustJSON(argument(fmt.Sprintf("The %s rebuttal of exchange %d", side.Name(), e), attacks, defends))
}

func exchangeAnswers(side dialectic.Side, e int) []byte {
	if e == 0 {
		return openingAnswer(side)
	}
	return rebuttalAnswer(side, e)
}

// judgeAnswer is a valid judgment of exchange e: zero-sum scores and, from
// exchange 2, a rescore of the proposition's argument of e-2 by +0.05
// (current holds its current score).
func judgeAnswer(e int, current map[string]float64) []byte {
	var scores []map[string]any
	vals := []float64{0.15, -0.15}
	if e == 0 {
		vals = []float64{0.3, 0.1, -0.2, 0.1, -0.2, -0.1}
	}
	for i, id := range dialectic.ExchangeIDs(e) {
		scores = append(scores, map[string]any{"argument_id": id, "score": vals[i], "reasoning": "Weighed against its opponent."})
	}
	j := map[string]any{"scores": scores}
	if e >= 2 {
		id := dialectic.ArgumentIDs(e-2, dialectic.Prop)[0]
		cur := current[id]
		j["rescores"] = []map[string]any{{"argument_id": id, "old_score": cur, "new_score": dialectic.Round3(cur + 0.05), "reasoning": "Stood up to the attack."}}
	}
	return mustJSON(j)
}

// newDebate creates a debate through the engine and runs it through full
// exchanges (each argued and judged); with half set, the arguments of the
// next exchange are accepted too, so that it waits for a judgment.
func newDebate(tb testing.TB, parent string, exchanges int, half bool) string {
	tb.Helper()
	dir := filepath.Join(parent, "demo")
	d, err := driver.Create(dir, "demo", dialectic.Motion{
		Text:        "This house would test every step.",
		Definitions: []dialectic.Definition{{Term: "Step", Meaning: "one accepted answer"}},
		Scope:       "Only this package.",
	})
	if err != nil {
		tb.Fatal(err)
	}
	defer d.Close()
	for e := 0; e < exchanges || (half && e == exchanges); e++ {
		if _, err := driver.ProcessExchange(d, e, exchangeAnswers(dialectic.Prop, e), exchangeAnswers(dialectic.Opp, e)); err != nil {
			tb.Fatalf("exchange %d: %v", e, err)
		}
		if e == exchanges {
			break
		}
		judge(tb, d, e)
	}
	return dir
}

func judge(tb testing.TB, d *store.Dir, e int) driver.Result {
	tb.Helper()
	deb, err := driver.Load(d)
	if err != nil {
		tb.Fatal(err)
	}
	res, err := driver.ProcessJudge(d, judgeAnswer(e, deb.Scores.Current()), fixedNow)
	if err != nil {
		tb.Fatalf("judge %d: %v", e, err)
	}
	return res
}

func openDir(tb testing.TB, dir string) *store.Dir {
	tb.Helper()
	d, err := storetest.OpenForWrite(dir, "test")
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { d.Close() })
	return d
}

// readDir opens dir as a reader does, without the lock.
func readDir(tb testing.TB, dir string) *store.Dir {
	tb.Helper()
	d, err := store.Open(dir)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { d.Close() })
	return d
}

// snapshot reads everything under dir as fixture.Tree does, without the
// lock file (it names who holds the lock, not anything of the debate).
// With skipTmp, the hidden temporary files a killed writer leaves behind
// are left out too.
func snapshot(tb testing.TB, dir string, skipTmp bool) map[string]string {
	tb.Helper()
	tree, err := fixture.Tree(dir)
	if err != nil {
		tb.Fatal(err)
	}
	return fixture.Without(tree, func(p string) bool {
		return fixture.LockFile(p) || (skipTmp && fixture.Temporary(p))
	})
}

func sameSnapshot(tb testing.TB, got, want map[string]string) {
	tb.Helper()
	if diffs := fixture.Diff(want, got); len(diffs) > 0 {
		tb.Errorf("directory differs: %s", strings.Join(diffs, ", "))
	}
}

// copyOf copies the debate at template into a new temporary directory
// and returns its path. Copying a debate is much cheaper than building one
// through the engine, whose every commit syncs the disk.
func copyOf(tb testing.TB, template string) string {
	tb.Helper()
	dir := filepath.Join(tb.TempDir(), filepath.Base(template))
	if err := fixture.CopyTree(template, dir); err != nil {
		tb.Fatal(err)
	}
	return dir
}

// checkDir runs debate.Check on dir as a fresh reader sees it.
func checkDir(tb testing.TB, dir string) []dialectic.Problem {
	tb.Helper()
	d, err := store.Open(dir)
	if err != nil {
		tb.Fatal(err)
	}
	defer d.Close()
	raw, err := driver.ReadRaw(d)
	if err != nil {
		tb.Fatal(err)
	}
	return dialectic.Check(raw).Problems
}
