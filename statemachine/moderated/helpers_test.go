package moderated_test

import (
	"context"
	"fmt"
	iofs "io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/moot-dev/moot/internal/driver"
	"github.com/moot-dev/moot/internal/testkit/modeltest"
	"github.com/moot-dev/moot/internal/testkit/protocoltest"
	sm "github.com/moot-dev/moot/statemachine"
	"github.com/moot-dev/moot/statemachine/moderated"
	"github.com/moot-dev/moot/statemachine/moderated/moderatedtest"
)

var when = protocoltest.When

// newDebate makes a debate with moot new's defaults and the given flags.
func newDebate(t *testing.T, flags map[string]string) string {
	t.Helper()
	values := map[string][]string{"position-a": {"Cities should ban cars."}, "position-b": {"Cities should keep cars."}}
	for k, v := range flags {
		values[k] = []string{v}
	}
	return protocoltest.Create(t, moderated.Protocol{}, sm.NewInput{Slug: "d", Motion: "Cars in cities", Values: values, Now: when})
}

// advance runs the debate in dir against the fake server at url.
func advance(t *testing.T, ctx context.Context, dir, url string, goal driver.UnitGoal) (driver.Summary, error) {
	t.Helper()
	return protocoltest.Advance(t, ctx, moderated.Protocol{}, dir, goal, protocoltest.Served(t, url))
}

// runAll makes a debate with flags and runs it to its end against the
// fake, returning its folder, its files and the requests the server got.
// The debate of given flags and options is run once in the package's
// tests, and each test gets its own copy (see protocoltest.Shared).
func runAll(t *testing.T, flags map[string]string, o moderatedtest.Options) (string, map[string]string, []modeltest.Request) {
	t.Helper()
	dir, reqs := protocoltest.Shared(t, fmt.Sprintf("%v %#v", flags, o), func() (string, []modeltest.Request) {
		srv := modeltest.NewServer(t, moderatedtest.Handler(o))
		dir := newDebate(t, flags)
		if _, err := advance(t, context.Background(), dir, srv.URL, driver.UnitGoal{All: true}); err != nil {
			t.Fatal(err)
		}
		return dir, srv.Requests()
	})
	return dir, files(t, dir), reqs
}

func files(t *testing.T, dir string) map[string]string {
	t.Helper()
	return protocoltest.Files(t, dir)
}

// messageFiles lists the names of messages/ in order.
func messageFiles(fs map[string]string) []string { return protocoltest.Under(fs, "messages/") }

// user is the whole of a request's conversation after its system prompt.
func user(req modeltest.Request) string {
	var b strings.Builder
	for _, m := range req.Messages[1:] {
		b.WriteString(m.Content)
		b.WriteString("\n")
	}
	return b.String()
}

func all(req modeltest.Request) string {
	return req.Messages[0].Content + "\n" + user(req)
}

func of(reqs []modeltest.Request, kind string) []modeltest.Request {
	var out []modeltest.Request
	for _, r := range reqs {
		if moderatedtest.Kind(r) == kind {
			out = append(out, r)
		}
	}
	return out
}

// timeField is the time of a message, which differs between two runs
// of the same debate.
var timeField = regexp.MustCompile(`"time": "[^"]*"`)

func writeTree(dir string, fs map[string]string) error {
	for name, data := range fs {
		if strings.HasSuffix(name, "/") {
			continue
		}
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			return err
		}
	}
	return nil
}

func osFS(dir string) iofs.FS { return os.DirFS(dir) }
