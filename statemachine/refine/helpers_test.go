package refine_test

import (
	"context"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/moot-dev/moot/internal/driver"
	"github.com/moot-dev/moot/internal/testkit/crashtest"
	"github.com/moot-dev/moot/internal/testkit/modeltest"
	"github.com/moot-dev/moot/internal/testkit/protocoltest"
	sm "github.com/moot-dev/moot/statemachine"
	"github.com/moot-dev/moot/statemachine/dialectic"
	"github.com/moot-dev/moot/statemachine/refine"
	"github.com/moot-dev/moot/statemachine/refine/refinetest"
)

func TestMain(m *testing.M) {
	crashtest.AsMoot(dialectic.Protocol{}, refine.Protocol{})
	os.Exit(m.Run())
}

var when = protocoltest.When

const question = "How many piano tuners work in Chicago?"

// newDebate makes a debate with moot new's defaults and the given flags.
func newDebate(t *testing.T, flags map[string]string) string {
	t.Helper()
	values := map[string][]string{}
	for k, v := range flags {
		values[k] = []string{v}
	}
	return protocoltest.Create(t, refine.Protocol{}, sm.NewInput{Slug: "d", Motion: question, Values: values, Now: when})
}

// advance runs the debate in dir against the fake server at url.
func advance(t *testing.T, ctx context.Context, dir, url string, goal driver.UnitGoal) (driver.Summary, error) {
	t.Helper()
	return protocoltest.Advance(t, ctx, refine.Protocol{}, dir, goal, protocoltest.Served(t, url))
}

// server is a fake endpoint answering as refinetest does, with the
// scripted embeddings scores (nil: no embeddings at all).
func server(t *testing.T, o refinetest.Options, scores map[string]float64) *modeltest.Server {
	var opts []modeltest.Option
	if scores != nil {
		opts = append(opts, modeltest.Embeddings(refinetest.Embeddings(scores)))
	}
	return modeltest.NewServer(t, refinetest.Handler(o), opts...)
}

// runAll makes a debate with flags and runs it to its end.
func runAll(t *testing.T, flags map[string]string, o refinetest.Options, scores map[string]float64) (string, map[string]string, []modeltest.Request) {
	t.Helper()
	srv := server(t, o, scores)
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

// chats are the chat requests of reqs, by kind when kind is not "".
func chats(reqs []modeltest.Request, kind string) []modeltest.Request {
	var out []modeltest.Request
	for _, r := range reqs {
		if r.Path == "/v1/chat/completions" && (kind == "" || refinetest.Kind(r) == kind) {
			out = append(out, r)
		}
	}
	return out
}

func embeds(reqs []modeltest.Request) []modeltest.Request {
	var out []modeltest.Request
	for _, r := range reqs {
		if r.Path == "/v1/embeddings" {
			out = append(out, r)
		}
	}
	return out
}

func prompt(req modeltest.Request) string {
	var b strings.Builder
	for _, m := range req.Messages {
		b.WriteString(m.Content + "\n")
	}
	return b.String()
}

var variable = regexp.MustCompile(`"(time|elapsed_ms)": ("[^"]*"|[0-9]+)`)

// stable blanks what differs between two runs of one debate: times and
// model time.
func stable(fs map[string]string) map[string]string {
	out := map[string]string{}
	for k, v := range fs {
		out[k] = variable.ReplaceAllString(v, `"$1": *`)
	}
	return out
}
