package panel_test

import (
	"context"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/moot-dev/moot/internal/driver"
	"github.com/moot-dev/moot/internal/model"
	"github.com/moot-dev/moot/internal/testkit/fixture"
	"github.com/moot-dev/moot/internal/testkit/modeltest"
	"github.com/moot-dev/moot/internal/testkit/storetest"
	sm "github.com/moot-dev/moot/statemachine"
	"github.com/moot-dev/moot/statemachine/panel"
	"github.com/moot-dev/moot/statemachine/panel/paneltest"
)

var when = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

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
	dir := filepath.Join(t.TempDir(), "d")
	values := map[string][]string{"personas": {"michael,arthur,brian"}, "persona-dir": {"own"}}
	for k, v := range flags {
		values[k] = []string{v}
	}
	d, err := driver.CreateDebate(dir, panel.Protocol{}, sm.NewInput{Slug: "d", Motion: "Is Bitcoin a good investment?", Values: values,
		Dirs: map[string]map[string][]byte{"persona-dir": testPersonas}, Now: when})
	if err != nil {
		t.Fatal(err)
	}
	d.Close()
	return dir
}

func advance(t *testing.T, ctx context.Context, dir, url string, goal driver.UnitGoal) (driver.Summary, error) {
	t.Helper()
	client, err := model.New(model.Config{BaseURL: url, APIKey: "k"})
	if err != nil {
		t.Fatal(err)
	}
	d, err := storetest.OpenForWrite(dir, "test")
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	return driver.Advance(ctx, d, panel.Protocol{}, goal, driver.Options{
		Client: client, DefaultModel: "fake", Repairs: 2, Now: func() time.Time { return when },
	})
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
	tree, err := fixture.Tree(dir)
	if err != nil {
		t.Fatal(err)
	}
	return fixture.Without(tree, func(p string) bool { return strings.HasPrefix(p, ".moot") })
}

// under lists the files under prefix, sorted.
func under(fs map[string]string, prefix string) []string {
	var out []string
	for k := range fs {
		if strings.HasPrefix(k, prefix) && !strings.HasSuffix(k, "/") {
			out = append(out, strings.TrimPrefix(k, prefix))
		}
	}
	sort.Strings(out)
	return out
}

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
