package cli_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/moot-dev/moot/internal/cli"
	"github.com/moot-dev/moot/internal/testkit/forumfake"
	"github.com/moot-dev/moot/internal/testkit/modeltest"
	sm "github.com/moot-dev/moot/statemachine"
	"github.com/moot-dev/moot/statemachine/dialectic"
	"github.com/moot-dev/moot/statemachine/forum"
	"github.com/moot-dev/moot/statemachine/moderated"
	"github.com/moot-dev/moot/statemachine/moderated/moderatedtest"
	"github.com/moot-dev/moot/statemachine/panel"
	"github.com/moot-dev/moot/statemachine/panel/paneltest"
	"github.com/moot-dev/moot/statemachine/refine"
	"github.com/moot-dev/moot/statemachine/refine/refinetest"
	"github.com/moot-dev/moot/templates"
)

// everyProtocol is moot's protocols as cmd/moot registers them.
var everyProtocol = sm.Protocols{dialectic.Protocol{}, forum.Protocol{}, moderated.Protocol{}, refine.Protocol{}, panel.Protocol{}}

// recorder wraps a fake model and keeps the text of every message it was
// sent.
type recorder struct {
	mu   sync.Mutex
	sent []string
	h    modeltest.Handler
}

func (r *recorder) handle(req modeltest.Request) modeltest.Reply {
	r.mu.Lock()
	for _, m := range req.Messages {
		r.sent = append(r.sent, m.Content)
	}
	r.mu.Unlock()
	return r.h(req)
}

// count is the number of messages sent so far.
func (r *recorder) count() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.sent)
}

// saw reports whether some message sent so far holds text.
func (r *recorder) saw(text string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, s := range r.sent {
		if strings.Contains(s, text) {
			return true
		}
	}
	return false
}

// marked writes into dir every template of protocol but its partials,
// each its built-in text followed by a line that holds mark.
func marked(t *testing.T, dir, protocol, mark string) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	set := templates.For(protocol)
	for _, s := range set.List() {
		if s.Name == "partials.md" {
			continue
		}
		text, _ := set.Text(s.Name)
		if err := os.WriteFile(filepath.Join(dir, s.Name), []byte(text+"\n"+mark+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// TestEveryProtocolHonoursTemplateOverrides checks that a template a user
// replaces, in the debate's templates/ folder or with --templates DIR,
// changes the prompts a run of every protocol sends, and that one that
// does not parse stops the run naming its file.
func TestEveryProtocolHonoursTemplateOverrides(t *testing.T) {
	forumHandler := func(req modeltest.Request) modeltest.Reply {
		msgs := make([]forumfake.Message, len(req.Messages))
		for i, m := range req.Messages {
			msgs[i] = forumfake.Message{Role: m.Role, Content: m.Content}
		}
		return modeltest.Reply{Content: forumfake.Reply(msgs, forumfake.Options{})}
	}
	for _, tc := range []struct {
		protocol string
		new      []string
		h        modeltest.Handler
	}{
		{"forum", []string{"--motion", "Whether tests should talk to the network", "--seed", "1"}, forumHandler},
		{"panel", []string{"--motion", "Should tests talk to the network?"}, paneltest.Handler(paneltest.Options{})},
		{"moderated", []string{"--motion", "Should tests talk to the network?", "--position-a", "They should", "--position-b", "They should not"}, moderatedtest.Handler(moderatedtest.Options{})},
		{"refine", []string{"--motion", "Should tests talk to the network?", "--rag", "off"}, refinetest.Handler(refinetest.Options{})},
	} {
		t.Run(tc.protocol, func(t *testing.T) {
			rec := &recorder{h: tc.h}
			srv := modeltest.NewServer(t, rec.handle)
			root := t.TempDir()
			env := map[string]string{"OPENAI_BASE_URL": srv.URL}
			moot := func(args ...string) (int, string) {
				var out, errb bytes.Buffer
				code := cli.Run(context.Background(), append([]string{"moot", "--dir", root}, args...), cli.IO{
					Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errb,
					Now:       func() time.Time { return time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC) },
					Getenv:    func(k string) string { return env[k] },
					Protocols: everyProtocol,
				})
				return code, errb.String()
			}
			if code, stderr := moot(append([]string{"new", "d", "--protocol", tc.protocol}, tc.new...)...); code != 0 {
				t.Fatalf("new: exit %d: %s", code, stderr)
			}
			// The debate's own folder.
			marked(t, filepath.Join(root, "d", "templates"), tc.protocol, "MARK-OF-THE-DEBATE")
			// step takes steps until one asks a model (refine's first,
			// the retrieval without --rag, asks none).
			step := func(args ...string) {
				t.Helper()
				before := rec.count()
				for i := 0; i < 3 && rec.count() == before; i++ {
					if code, stderr := moot(append([]string{"step", "d", "--quiet"}, args...)...); code != 0 {
						t.Fatalf("step %v: exit %d: %s", args, code, stderr)
					}
				}
			}
			step()
			if !rec.saw("MARK-OF-THE-DEBATE") {
				t.Errorf("no prompt of the step holds the text of the debate's templates/ folder")
			}
			// --templates DIR, which wins over the debate's folder.
			mine := filepath.Join(t.TempDir(), "mine")
			marked(t, mine, tc.protocol, "MARK-OF-THE-FLAG")
			step("--templates", mine)
			if !rec.saw("MARK-OF-THE-FLAG") {
				t.Errorf("no prompt of the step holds the text of --templates %s", mine)
			}
			// A template that does not parse is a bad input file, named.
			bad := filepath.Join(t.TempDir(), "bad")
			name := templates.For(tc.protocol).List()[0].Name
			if err := os.MkdirAll(bad, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(bad, name), []byte("{{if}}"), 0o644); err != nil {
				t.Fatal(err)
			}
			before := rec.count()
			code, stderr := moot("step", "d", "--quiet", "--templates", bad)
			if code != 1 || !strings.Contains(stderr, filepath.Join(bad, name)) {
				t.Errorf("step with a template that does not parse: exit %d, stderr:\n%s\nwant exit 1 naming %s", code, stderr, filepath.Join(bad, name))
			}
			if rec.count() != before {
				t.Errorf("step with a template that does not parse asked a model")
			}
		})
	}
}

// TestTemplatesListsEveryProtocol checks that moot templates lists the
// templates of every protocol under its name, those of one protocol with
// --protocol, and those of a debate's protocol for a debate.
func TestTemplatesListsEveryProtocol(t *testing.T) {
	root := t.TempDir()
	moot := func(args ...string) (int, string, string) {
		var out, errb bytes.Buffer
		code := cli.Run(context.Background(), append([]string{"moot", "--dir", root}, args...), cli.IO{
			Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errb, Now: time.Now,
			Getenv: func(string) string { return "" }, Protocols: everyProtocol,
		})
		return code, out.String(), errb.String()
	}
	code, out, stderr := moot("templates")
	if code != 0 {
		t.Fatalf("templates: exit %d: %s", code, stderr)
	}
	for _, p := range everyProtocol {
		head := p.Name() + ":\n"
		i := strings.Index(out, head)
		if i < 0 {
			t.Errorf("moot templates has no heading %q:\n%s", head, out)
			continue
		}
		group, _, _ := strings.Cut(out[i+len(head):], "\n\n")
		for _, s := range templates.For(p.Name()).List() {
			if !strings.Contains(group, "\n"+s.Name+" ") && !strings.HasPrefix(group, s.Name+" ") {
				t.Errorf("moot templates lists no %s under %s:\n%s", s.Name, p.Name(), group)
			}
		}
	}
	code, out, stderr = moot("templates", "--protocol", "panel")
	if code != 0 || !strings.Contains(out, "card-system.md") || strings.Contains(out, "debater-opening.md") || strings.Contains(out, ":\n") {
		t.Errorf("templates --protocol panel: exit %d, stdout:\n%s\nstderr:\n%s\nwant panel's templates alone", code, out, stderr)
	}
	code, out, _ = moot("templates", "--protocol", "panel", "--print", "card")
	if want, _ := templates.For("panel").Text("card.md"); code != 0 || out != want {
		t.Errorf("templates --protocol panel --print card: exit %d, printed:\n%s\nwant panel's card.md", code, out)
	}
	if code, _, stderr := moot("templates", "--protocol", "nope"); code != 2 || !strings.Contains(stderr, `no protocol "nope"`) {
		t.Errorf("templates --protocol nope: exit %d, stderr:\n%s\nwant exit 2", code, stderr)
	}
	if code, stderr := func() (int, string) {
		c, _, e := moot("new", "f", "--protocol", "forum", "--motion", "Whether tests should talk to the network", "--seed", "1")
		return c, e
	}(); code != 0 {
		t.Fatalf("new: exit %d: %s", code, stderr)
	}
	if err := os.MkdirAll(filepath.Join(root, "f", "templates"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "f", "templates", "verdict.md"), []byte("Give the verdict on {{.Topic}}.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, stderr = moot("templates", "f")
	if code != 0 || !strings.Contains(out, "announce.md") || strings.Contains(out, "debater-opening.md") {
		t.Errorf("templates f: exit %d, stdout:\n%s\nstderr:\n%s\nwant forum's templates alone", code, out, stderr)
	}
	if want := filepath.Join(root, "f", "templates"); !strings.Contains(out, "verdict.md") || !strings.Contains(out, want) {
		t.Errorf("templates f lists no verdict.md from %s:\n%s", want, out)
	}
	if code, _, stderr := moot("templates", "f", "--protocol", "forum"); code != 2 {
		t.Errorf("templates f --protocol forum: exit %d, stderr:\n%s\nwant exit 2", code, stderr)
	}
}
