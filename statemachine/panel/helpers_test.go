package panel_test

import (
	"context"
	"strings"
	"testing"

	"github.com/moot-dev/moot/internal/driver"
	"github.com/moot-dev/moot/internal/testkit/modeltest"
	"github.com/moot-dev/moot/internal/testkit/protocoltest"
	sm "github.com/moot-dev/moot/statemachine"
	"github.com/moot-dev/moot/statemachine/panel"
	"github.com/moot-dev/moot/statemachine/panel/paneltest"
)

var when = protocoltest.When

// testPersonas are a panel of three for tests, named so that a model's
// first names map to their ids.
var testPersonas = map[string][]byte{
	"michael.md": []byte("---\nid: michael\nname: Michael Stone\nidentity: A hard-money investor.\nanchors: [\"Money should be hard.\"]\n---\n"),
	"arthur.md":  []byte("---\nid: arthur\nname: Arthur Reyes\nidentity: A derivatives trader.\n---\n"),
	"brian.md":   []byte("---\nid: brian\nname: Brian Cole\nidentity: An exchange founder.\n---\n"),
}

// newDebate makes a debate with moot new's defaults, the test personas
// and the given flags.
func newDebate(t *testing.T, flags map[string]string) string {
	t.Helper()
	values := map[string][]string{"personas": {"michael,arthur,brian"}, "persona-dir": {"own"}}
	for k, v := range flags {
		values[k] = []string{v}
	}
	return protocoltest.Create(t, panel.Protocol{}, sm.NewInput{Slug: "d", Motion: "Is Bitcoin a good investment?", Values: values,
		Dirs: map[string]map[string][]byte{"persona-dir": testPersonas}, Now: when})
}

func advance(t *testing.T, ctx context.Context, dir, url string, goal driver.UnitGoal) (driver.Summary, error) {
	t.Helper()
	return protocoltest.Advance(t, ctx, panel.Protocol{}, dir, goal, protocoltest.Served(t, url))
}

// runAll makes a debate with flags and runs it to its end against the
// fake, returning its files and the requests the server got.
func runAll(t *testing.T, flags map[string]string, o paneltest.Options) (string, map[string]string, []modeltest.Request) {
	t.Helper()
	srv := modeltest.NewServer(t, paneltest.Handler(o))
	dir := newDebate(t, flags)
	if _, err := advance(t, context.Background(), dir, srv.URL, driver.UnitGoal{All: true}); err != nil {
		t.Fatal(err)
	}
	return dir, files(t, dir), srv.Requests()
}

func files(t *testing.T, dir string) map[string]string {
	t.Helper()
	return protocoltest.Files(t, dir)
}

// under lists the files under prefix, sorted.
func under(fs map[string]string, prefix string) []string { return protocoltest.Under(fs, prefix) }

func of(reqs []modeltest.Request, task string) []modeltest.Request {
	var out []modeltest.Request
	for _, r := range reqs {
		if paneltest.Kind(r) == task {
			out = append(out, r)
		}
	}
	return out
}

// prompt is the whole of a request's conversation.
func prompt(req modeltest.Request) string {
	var b strings.Builder
	for _, m := range req.Messages {
		b.WriteString(m.Content)
		b.WriteString("\n")
	}
	return b.String()
}

// roomFor opens a room for michael and arthur in every aspect.
func roomFor(k int) ([3]bool, []string) {
	return [3]bool{true, true, true}, []string{"michael", "arthur"}
}
