package cli_test

import (
	"bytes"
	"context"
	"os"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/moot-dev/moot/internal/cli"
	"github.com/moot-dev/moot/internal/testkit/fixture"
	sm "github.com/moot-dev/moot/statemachine"
	"github.com/moot-dev/moot/statemachine/forum"
	"github.com/moot-dev/moot/statemachine/moderated"
	"github.com/moot-dev/moot/statemachine/panel"
	"github.com/moot-dev/moot/statemachine/refine"
)

// casesApartEnv, set in the environment of `go test -race`, makes a test
// of many alike cases run in this process keep one under the race
// detector; test.sh's pass without it runs them all, where they take a
// fraction of the time.
const casesApartEnv = "MOOT_CASES_APART"

// TestDemoDeterministic runs the demo of every protocol into a debates
// root, and again a second later into another, and checks that the two
// trees are the same byte for byte, moot's private .moot folder (its
// usage log among them) included, and that the demo wrote its report.
func TestDemoDeterministic(t *testing.T) {
	protocols := []sm.Protocol{forum.Protocol{}, moderated.Protocol{}, refine.Protocol{}, panel.Protocol{}}
	names := []string{"dialectic", "forum", "moderated", "refine", "panel"}
	// Under the race detector with casesApartEnv set, the panel's demo
	// alone, whose calls run most in parallel: test.sh's pass without the
	// detector runs every demo (go test -run '^TestDemoDeterministic$').
	if raceEnabled && os.Getenv(casesApartEnv) != "" {
		names = []string{"panel"}
	}
	var trees [2]map[string]string
	for i := range trees {
		if i > 0 {
			// The second run is at another time.
			time.Sleep(1100 * time.Millisecond)
		}
		root := t.TempDir()
		for _, name := range names {
			var out, errb bytes.Buffer
			io := cli.IO{Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errb, Now: time.Now,
				Getenv: func(string) string { return "" }, Protocols: withDialectic(protocols...)}
			if code := cli.Run(context.Background(), []string{"moot", "--dir", root, "demo", "--protocol", name}, io); code != 0 {
				t.Fatalf("demo --protocol %s: exit %d: %s", name, code, errb.String())
			}
		}
		tree, err := fixture.Tree(root)
		if err != nil {
			t.Fatal(err)
		}
		trees[i] = tree
	}
	for _, name := range names {
		t.Run(name, func(t *testing.T) {
			slug := "demo"
			if name != "dialectic" {
				slug += "-" + name
			}
			for _, f := range []string{"README.md", "report.html", "debate.md", ".moot/usage.jsonl"} {
				if _, ok := trees[0][slug+"/"+f]; !ok {
					t.Errorf("the demo wrote no %s", f)
				}
			}
			var differ []string
			for p, v := range trees[0] {
				if w, ok := trees[1][p]; strings.HasPrefix(p, slug+"/") && (!ok || w != v) {
					differ = append(differ, p)
				}
			}
			for p := range trees[1] {
				if _, ok := trees[0][p]; strings.HasPrefix(p, slug+"/") && !ok {
					differ = append(differ, p)
				}
			}
			sort.Strings(differ)
			if len(differ) > 0 {
				t.Errorf("two runs of the demo differ in %s", strings.Join(differ, ", "))
			}
		})
	}
}
