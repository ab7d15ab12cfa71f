package forum_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/moot-dev/moot/internal/testkit/crashtest"
	"github.com/moot-dev/moot/internal/testkit/forumfake"
	"github.com/moot-dev/moot/internal/testkit/modeltest"
	"github.com/moot-dev/moot/statemachine/forum"
)

func TestMain(m *testing.M) {
	crashtest.AsMoot(forum.Protocol{})
	os.Exit(m.Run())
}

// fakeHandler answers over HTTP as forumfake does.
func fakeHandler(req modeltest.Request) modeltest.Reply {
	msgs := make([]forumfake.Message, len(req.Messages))
	for i, m := range req.Messages {
		msgs[i] = forumfake.Message{Role: m.Role, Content: m.Content}
	}
	return modeltest.Reply{Content: forumfake.Reply(msgs, forumfake.Options{})}
}

// TestKilledAtEveryCall: moot itself, killed with SIGKILL while each of
// the 30 calls of a debate of six turns with a judge is in flight, and
// run again, ends with the files of a run never killed; only the call in
// flight is asked twice.
func TestKilledAtEveryCall(t *testing.T) {
	if testing.Short() {
		t.Skip("crash test of 30 kills, each a moot process run twice: run without -short")
	}
	cast := filepath.Join(t.TempDir(), "cast.yaml")
	if err := os.WriteFile(cast, []byte(castYAML), 0o644); err != nil {
		t.Fatal(err)
	}
	bin, env := crashtest.Self(t)
	crashtest.KillAtEveryCall(t, crashtest.CallKills{
		Bin: bin, Env: env,
		New:      []string{"--protocol", "forum", "--motion", "Whether tests should talk to the network", "--turns", "6", "--seed", "7", "--cast", cast},
		Model:    fakeHandler,
		Requests: 30,
	})
}
