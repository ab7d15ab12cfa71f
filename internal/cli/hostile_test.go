package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/moot-dev/moot/internal/testkit/fixture"
	"github.com/moot-dev/moot/statemachine/dialectic"
	"github.com/moot-dev/moot/statemachine/dialectic/dialectictest"
)

// runMoot runs moot in this process and returns its exit code and output.
func runMoot(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	now := func() time.Time { return time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC) }
	code = Run(context.Background(), append([]string{"moot"}, args...), IO{
		Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errb, Now: now, Getenv: func(string) string { return "" }, Protocols: withDialectic(),
	})
	return code, out.String(), errb.String()
}

// Stages a test debate can be at.
const (
	fresh   = "fresh"   // created: exchange 0, awaiting arguments
	argued  = "argued"  // exchange 0 argued: awaiting judgment
	rebuted = "rebuted" // exchanges 0 and 1 judged, 2 argued: awaiting judgment
)

var (
	stagesOnce sync.Once
	stagesDir  string
	stagesErr  error
)

// stage returns a copy, under a new debates root, of the debate "demo" at
// stage s. The stages are made once through the CLI and copied.
func stage(t *testing.T, s string) (root string) {
	t.Helper()
	stagesOnce.Do(func() {
		stagesDir, stagesErr = os.MkdirTemp("", "moot-stages-")
		if stagesErr != nil {
			return
		}
		answers := filepath.Join(stagesDir, "answers")
		os.Mkdir(answers, 0o755)
		file := func(name string, data []byte) string {
			p := filepath.Join(answers, name)
			os.WriteFile(p, data, 0o644)
			return p
		}
		steps := map[string][][]string{fresh: {{"new", "demo", "--motion", "This house would test hostile input."}}}
		steps[argued] = append(steps[fresh], []string{"process-exchange", "demo", "0",
			"--prop-file", file("p0", dialectictest.Answer(dialectic.Prop, 0)), "--opp-file", file("o0", dialectictest.Answer(dialectic.Opp, 0))})
		steps[rebuted] = append(append([][]string{}, steps[argued]...),
			[]string{"process-judge", "demo", "--json-file", file("j0", dialectictest.Judgment(0))},
			[]string{"process-exchange", "demo", "1", "--prop-file", file("p1", dialectictest.Answer(dialectic.Prop, 1)), "--opp-file", file("o1", dialectictest.Answer(dialectic.Opp, 1))},
			[]string{"process-judge", "demo", "--json-file", file("j1", dialectictest.Judgment(1))},
			[]string{"process-exchange", "demo", "2", "--prop-file", file("p2", dialectictest.Answer(dialectic.Prop, 2)), "--opp-file", file("o2", dialectictest.Answer(dialectic.Opp, 2))},
		)
		for name, cmds := range steps {
			root := filepath.Join(stagesDir, name)
			for _, c := range cmds {
				var out, errb bytes.Buffer
				io := IO{Stdout: &out, Stderr: &errb, Now: time.Now, Getenv: func(string) string { return "" }, Protocols: withDialectic()}
				if code := Run(context.Background(), append([]string{"moot", "--dir", root}, c...), io); code != 0 {
					stagesErr = fmt.Errorf("%v: exit %d: %s", c, code, errb.String())
					return
				}
			}
		}
	})
	if stagesErr != nil {
		t.Fatal(stagesErr)
	}
	root = t.TempDir()
	if err := fixture.CopyTree(filepath.Join(stagesDir, s), root); err != nil {
		t.Fatal(err)
	}
	return root
}

// snapshot reads everything under dir, as fixture.Tree does.
func snapshot(t *testing.T, dir string) map[string]string {
	t.Helper()
	tree, err := fixture.Tree(dir)
	if err != nil {
		t.Fatal(err)
	}
	return tree
}

// changes lists how after differs from before.
var changes = fixture.Diff

// env is what a hostile case works with: the debates root, the debate,
// a folder for answer files, and a folder outside everything that links
// may point into.
type env struct {
	root, dir, answers, outside string
}

func (e env) write(t *testing.T, name string, data []byte) string {
	t.Helper()
	p := filepath.Join(e.dir, name)
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func (e env) read(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(e.dir, name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// edit replaces old with new in a debate file; old must be there.
func (e env) edit(t *testing.T, name, old, new string) {
	t.Helper()
	s := e.read(t, name)
	if !strings.Contains(s, old) {
		t.Fatalf("%s does not contain %q", name, old)
	}
	e.write(t, name, []byte(strings.Replace(s, old, new, 1)))
}

func (e env) answer(t *testing.T, name string, data []byte) string {
	t.Helper()
	p := filepath.Join(e.answers, name)
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func (e env) link(t *testing.T, name, target string) {
	t.Helper()
	p := filepath.Join(e.dir, name)
	os.RemoveAll(p)
	if err := os.Symlink(target, p); err != nil {
		t.Fatal(err)
	}
}

// hardlink makes name, in the debate, a hard link shared with a copy of
// it outside the debate.
func (e env) hardlink(t *testing.T, name string) {
	t.Helper()
	p := filepath.Join(e.dir, filepath.FromSlash(name))
	data, _ := os.ReadFile(p)
	out := filepath.Join(e.outside, filepath.Base(name))
	if err := os.WriteFile(out, data, 0o644); err != nil {
		t.Fatal(err)
	}
	os.Remove(p)
	if err := os.Link(out, p); err != nil {
		t.Fatal(err)
	}
}

// exchange0 runs process-exchange for exchange 0 with valid answers.
func exchange0(e env, t *testing.T) []string {
	return []string{"process-exchange", "demo", "0",
		"--prop-file", e.answer(t, "p.json", dialectictest.Answer(dialectic.Prop, 0)),
		"--opp-file", e.answer(t, "o.json", dialectictest.Answer(dialectic.Opp, 0))}
}

// judge0 runs process-judge with the valid judgment of exchange 0.
func judge0(e env, t *testing.T) []string {
	return []string{"process-judge", "demo", "--json-file", e.answer(t, "j.json", dialectictest.Judgment(0))}
}

func judgeWith(e env, t *testing.T, answer string) []string {
	return []string{"process-judge", "demo", "--json-file", e.answer(t, "j.json", []byte(answer))}
}

func exchange0With(e env, t *testing.T, prop string) []string {
	return []string{"process-exchange", "demo", "0",
		"--prop-file", e.answer(t, "p.json", []byte(prop)),
		"--opp-file", e.answer(t, "o.json", dialectictest.Answer(dialectic.Opp, 0))}
}

func deep(n int) string { return strings.Repeat("[", n) + strings.Repeat("]", n) }

// opening returns a valid opening with one field of the first argument
// replaced by raw JSON.
func opening(t *testing.T, key, raw string) string {
	t.Helper()
	var args []map[string]json.RawMessage
	if err := json.Unmarshal(dialectictest.Answer(dialectic.Prop, 0), &args); err != nil {
		t.Fatal(err)
	}
	args[0][key] = json.RawMessage(raw)
	// Marshal would validate raw; build the text by hand instead.
	var b strings.Builder
	b.WriteString("[")
	for i, a := range args {
		if i > 0 {
			b.WriteString(",")
		}
		b.WriteString("{")
		keys := make([]string, 0, len(a))
		for k := range a {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for j, k := range keys {
			if j > 0 {
				b.WriteString(",")
			}
			fmt.Fprintf(&b, "%q:%s", k, a[k])
		}
		b.WriteString("}")
	}
	b.WriteString("]")
	return b.String()
}

// judgment0 returns the valid judgment of exchange 0 with the first
// score's value replaced by raw.
func judgment0(raw string) string {
	j := string(dialectictest.Judgment(0))
	return strings.Replace(j, `"score": 0.3`, `"score": `+raw, 1)
}

type hostileCase struct {
	name  string
	stage string
	// setup changes the debate; it returns the command line to run.
	setup func(e env, t *testing.T) []string
	code  int
	// want are pieces of the error output: the file and field at fault.
	want []string
}

var hostile = []hostileCase{
	// debate.md
	{"truncated frontmatter", fresh, func(e env, t *testing.T) []string {
		e.write(t, "debate.md", []byte(e.read(t, "debate.md")[:40]))
		return exchange0(e, t)
	}, ExitError, []string{"debate.md", "frontmatter"}},
	{"frontmatter that is not JSON", fresh, func(e env, t *testing.T) []string {
		e.write(t, "debate.md", []byte("{\n  debate_id: demo\n}\n\n# Motion\n\nx\n"))
		return exchange0(e, t)
	}, ExitError, []string{"debate.md", "invalid JSON"}},
	{"frontmatter that is an array", fresh, func(e env, t *testing.T) []string {
		e.write(t, "debate.md", []byte("[\n  1\n]\n\n# Motion\n\nx\n"))
		return exchange0(e, t)
	}, ExitError, []string{"debate.md", "frontmatter"}},
	{"YAML frontmatter", fresh, func(e env, t *testing.T) []string {
		e.write(t, "debate.md", []byte("---\ndebate_id: demo\n---\n\n# Motion\n\nx\n"))
		return exchange0(e, t)
	}, ExitError, []string{"debate.md", "frontmatter"}},
	{"unknown phase", fresh, func(e env, t *testing.T) []string {
		e.edit(t, "debate.md", `"awaiting_arguments"`, `"awaiting_godot"`)
		return exchange0(e, t)
	}, ExitError, []string{"debate.md", "current_phase", "awaiting_godot"}},
	{"negative exchange in debate.md", fresh, func(e env, t *testing.T) []string {
		e.edit(t, "debate.md", `"current_exchange": 0`, `"current_exchange": -1`)
		return exchange0(e, t)
	}, ExitError, []string{"debate.md", "current_exchange"}},
	{"fractional exchange in debate.md", fresh, func(e env, t *testing.T) []string {
		e.edit(t, "debate.md", `"current_exchange": 0`, `"current_exchange": 0.5`)
		return exchange0(e, t)
	}, ExitError, []string{"debate.md", "current_exchange"}},
	{"absurd exchange in debate.md", fresh, func(e env, t *testing.T) []string {
		e.edit(t, "debate.md", `"current_exchange": 0`, `"current_exchange": 1e12`)
		return exchange0(e, t)
	}, ExitError, []string{"debate.md", "current_exchange"}},
	{"exchange as a string in debate.md", fresh, func(e env, t *testing.T) []string {
		e.edit(t, "debate.md", `"current_exchange": 0`, `"current_exchange": "0"`)
		return exchange0(e, t)
	}, ExitError, []string{"debate.md", "current_exchange"}},
	{"NaN token in debate.md", argued, func(e env, t *testing.T) []string {
		e.edit(t, "debate.md", `"total": 0`, `"total": NaN`)
		return judge0(e, t)
	}, ExitError, []string{"debate.md", "invalid JSON"}},
	{"1e999 in debate.md", argued, func(e env, t *testing.T) []string {
		e.edit(t, "debate.md", `"total": 0`, `"total": 1e999`)
		return judge0(e, t)
	}, ExitError, []string{"debate.md", "cumulative_scores"}},
	{"100k-deep nesting in debate.md", fresh, func(e env, t *testing.T) []string {
		e.edit(t, "debate.md", `"debate_id": "demo",`, `"debate_id": "demo", "x": `+deep(100000)+`,`)
		return exchange0(e, t)
	}, ExitError, []string{"debate.md", "depth"}},
	{"invalid UTF-8 in debate.md", fresh, func(e env, t *testing.T) []string {
		e.edit(t, "debate.md", "hostile input", "hostile \xff\xfe input")
		return exchange0(e, t)
	}, ExitError, []string{"debate.md", "UTF-8"}},
	{"debate.md missing", fresh, func(e env, t *testing.T) []string {
		os.Remove(filepath.Join(e.dir, "debate.md"))
		return []string{"process-exchange", e.dir, "0", "--prop-file", e.answer(t, "p.json", dialectictest.Answer(dialectic.Prop, 0)), "--opp-file", e.answer(t, "o.json", dialectictest.Answer(dialectic.Opp, 0))}
	}, ExitError, []string{"debate.md"}},
	{"cumulative totals that lie, check", rebuted, func(e env, t *testing.T) []string {
		e.edit(t, "debate.md", `"count": 4`, `"count": 5`)
		return []string{"check", "demo"}
	}, ExitCheckFailed, []string{"debate.md", "cumulative_scores.proposition"}},
	{"cumulative totals that lie, step", rebuted, func(e env, t *testing.T) []string {
		e.edit(t, "debate.md", `"count": 4`, `"count": 5`)
		return judgeWith(e, t, string(dialectictest.Judgment(2)))
	}, ExitError, []string{"debate.md", "cumulative_scores.proposition"}},

	// scores.json
	{"scores.json not JSON", rebuted, func(e env, t *testing.T) []string {
		e.write(t, "scores.json", []byte("{\"prop_000a\": "))
		return judgeWith(e, t, string(dialectictest.Judgment(2)))
	}, ExitError, []string{"scores.json"}},
	{"scores.json not JSON, check", rebuted, func(e env, t *testing.T) []string {
		e.write(t, "scores.json", []byte("not json"))
		return []string{"check", "demo"}
	}, ExitCheckFailed, []string{"scores.json"}},
	{"scores.json current score lies", rebuted, func(e env, t *testing.T) []string {
		e.edit(t, "scores.json", `"current_score": -0.1`, `"current_score": 0.9`)
		return []string{"check", "demo"}
	}, ExitCheckFailed, []string{"scores.json", "current_score"}},
	{"scores.json scores an argument with no file", rebuted, func(e env, t *testing.T) []string {
		e.edit(t, "scores.json", "{\n", `{"opp_000d": {"current_score": 0, "history": [{"score": 0, "reasoning": "x", "scored_at": "2026-01-01T00:00:00.000000+00:00"}]},`+"\n")
		return []string{"check", "demo"}
	}, ExitCheckFailed, []string{"scores.json", "opp_000d"}},
	{"scores.json with NaN", rebuted, func(e env, t *testing.T) []string {
		e.edit(t, "scores.json", `"current_score": -0.1`, `"current_score": NaN`)
		return judgeWith(e, t, string(dialectictest.Judgment(2)))
	}, ExitError, []string{"scores.json", "invalid JSON"}},
	{"scores.json with 1e999", rebuted, func(e env, t *testing.T) []string {
		e.edit(t, "scores.json", `"current_score": -0.1`, `"current_score": 1e999`)
		return judgeWith(e, t, string(dialectictest.Judgment(2)))
	}, ExitError, []string{"scores.json", "current_score"}},
	{"scores.json missing", argued, func(e env, t *testing.T) []string {
		os.Remove(filepath.Join(e.dir, "scores.json"))
		return judge0(e, t)
	}, ExitError, []string{"scores.json"}},
	{"judged history that does not sum to zero", rebuted, func(e env, t *testing.T) []string {
		e.edit(t, "scores.json", `"score": -0.1`, `"score": 0.4`)
		return []string{"check", "demo"}
	}, ExitCheckFailed, []string{"scores.json", "exchange 0"}},

	// argument files
	{"id that disagrees with the file name", argued, func(e env, t *testing.T) []string {
		e.edit(t, "arguments/prop_000a.md", `"id": "prop_000a"`, `"id": "prop_000b"`)
		return []string{"check", "demo"}
	}, ExitCheckFailed, []string{"arguments/prop_000a.md", "prop_000b"}},
	{"id that disagrees with the file name, step", argued, func(e env, t *testing.T) []string {
		e.edit(t, "arguments/prop_000a.md", `"id": "prop_000a"`, `"id": "prop_000b"`)
		return judge0(e, t)
	}, ExitError, []string{"arguments/prop_000a.md", "prop_000b"}},
	{"id with a path in it", argued, func(e env, t *testing.T) []string {
		e.edit(t, "arguments/prop_000a.md", `"id": "prop_000a"`, `"id": "../../prop_000a"`)
		return judge0(e, t)
	}, ExitError, []string{"arguments/prop_000a.md", `field "id"`}},
	{"side that disagrees with the id", argued, func(e env, t *testing.T) []string {
		e.edit(t, "arguments/prop_000a.md", `"side": "prop"`, `"side": "opp"`)
		return []string{"check", "demo"}
	}, ExitCheckFailed, []string{"arguments/prop_000a.md", "side"}},
	{"absurd exchange in an argument", argued, func(e env, t *testing.T) []string {
		e.edit(t, "arguments/prop_000a.md", `"exchange": 0`, `"exchange": 1e12`)
		return judge0(e, t)
	}, ExitError, []string{"arguments/prop_000a.md", "exchange"}},
	{"argument file with quotes and brackets in its name", argued, func(e env, t *testing.T) []string {
		e.write(t, `arguments/prop_000a"]:::x.md`, []byte(e.read(t, "arguments/prop_000a.md")))
		return []string{"check", "demo"}
	}, ExitCheckFailed, []string{`arguments/prop_000a"]:::x.md`}},
	{"argument of an exchange not reached", argued, func(e env, t *testing.T) []string {
		s := strings.ReplaceAll(e.read(t, "arguments/prop_000a.md"), "prop_000a", "prop_007")
		e.write(t, "arguments/prop_007.md", []byte(strings.Replace(s, `"exchange": 0`, `"exchange": 7`, 1)))
		return judge0(e, t)
	}, ExitError, []string{"arguments/prop_007.md", "not reached"}},
	{"attack on a target that does not exist", rebuted, func(e env, t *testing.T) []string {
		e.edit(t, "arguments/prop_002.md", `"target_id": "opp_001"`, `"target_id": "opp_009"`)
		return []string{"check", "demo"}
	}, ExitCheckFailed, []string{"arguments/prop_002.md", "opp_009"}},
	{"invalid UTF-8 in an argument", argued, func(e env, t *testing.T) []string {
		e.edit(t, "arguments/opp_000b.md", "Warrant", "War\xc0rant")
		return judge0(e, t)
	}, ExitError, []string{"arguments/opp_000b.md", "UTF-8"}},
	{"100k-deep nesting in an argument", argued, func(e env, t *testing.T) []string {
		e.edit(t, "arguments/opp_000b.md", `"attacks": []`, `"attacks": `+deep(100000))
		return judge0(e, t)
	}, ExitError, []string{"arguments/opp_000b.md", "depth"}},
	{"argument file missing", argued, func(e env, t *testing.T) []string {
		os.Remove(filepath.Join(e.dir, "arguments", "opp_000b.md"))
		return judge0(e, t)
	}, ExitError, []string{"arguments/opp_000b.md", "missing"}},

	// links out of the debate
	{"argument file linking outside, read", argued, func(e env, t *testing.T) []string {
		os.WriteFile(filepath.Join(e.outside, "secret.md"), []byte(e.read(t, "arguments/prop_000a.md")), 0o644)
		e.link(t, "arguments/prop_000a.md", filepath.Join(e.outside, "secret.md"))
		return []string{"show", "demo", "prop_000a"}
	}, ExitCheckFailed, []string{"arguments/prop_000a.md", "symbolic link"}},
	{"debate.md linking outside", fresh, func(e env, t *testing.T) []string {
		os.WriteFile(filepath.Join(e.outside, "debate.md"), []byte(e.read(t, "debate.md")), 0o644)
		e.link(t, "debate.md", filepath.Join(e.outside, "debate.md"))
		return exchange0(e, t)
	}, ExitCheckFailed, []string{"debate.md", "symbolic link"}},
	{"arguments folder linking outside, write", fresh, func(e env, t *testing.T) []string {
		e.link(t, "arguments", e.outside)
		return exchange0(e, t)
	}, ExitCheckFailed, []string{"arguments", "symbolic link"}},
	{"graph linking outside, write", fresh, func(e env, t *testing.T) []string {
		os.WriteFile(filepath.Join(e.outside, "graph.mmd"), []byte("keep"), 0o644)
		e.link(t, "argument-graph.mmd", filepath.Join(e.outside, "graph.mmd"))
		return exchange0(e, t)
	}, ExitError, []string{"argument-graph.mmd", "symbolic link"}},
	{".moot linking outside", fresh, func(e env, t *testing.T) []string {
		e.link(t, ".moot", e.outside)
		return exchange0(e, t)
	}, ExitCheckFailed, []string{".moot", "symbolic link"}},
	// hard links, which can make a debate file share a file outside it
	{"argument file hard-linked outside, check", argued, func(e env, t *testing.T) []string {
		e.hardlink(t, "arguments/prop_000a.md")
		return []string{"check", "demo"}
	}, ExitCheckFailed, []string{"arguments/prop_000a.md has 2 hard links", "outside the debate", "copy it"}},
	{"argument file hard-linked outside, status", argued, func(e env, t *testing.T) []string {
		e.hardlink(t, "arguments/prop_000a.md")
		return []string{"status", "demo"}
	}, ExitCheckFailed, []string{"arguments/prop_000a.md has 2 hard links", "outside the debate"}},
	{"debate.md hard-linked outside, write", argued, func(e env, t *testing.T) []string {
		e.hardlink(t, "debate.md")
		return judge0(e, t)
	}, ExitCheckFailed, []string{"debate.md has 2 hard links", "outside the debate"}},
	{"usage log hard-linked outside, status", argued, func(e env, t *testing.T) []string {
		e.hardlink(t, ".moot/usage.jsonl")
		return []string{"status", "demo"}
	}, ExitCheckFailed, []string{".moot/usage.jsonl has 2 hard links"}},
	{"journal naming a file outside", argued, func(e env, t *testing.T) []string {
		e.write(t, ".moot/journal.json", []byte(`{"files": [{"name": "../escape", "data": "eA=="}]}`))
		return judge0(e, t)
	}, ExitError, []string{".moot/journal.json", "../escape"}},
	{"journal that is not JSON", argued, func(e env, t *testing.T) []string {
		e.write(t, ".moot/journal.json", []byte(`{"files": [`))
		return []string{"check", "demo"}
	}, ExitCheckFailed, []string{".moot/journal.json", "remove it"}},
	{"journal naming the debate folder, check", argued, func(e env, t *testing.T) []string {
		e.write(t, ".moot/journal.json", []byte(`{"files": [{"name": ".", "data": "eA=="}]}`))
		return []string{"check", "demo"}
	}, ExitCheckFailed, []string{".moot/journal.json", `entry "."`, "remove it"}},
	{"journal naming a file inside debate.md, check", argued, func(e env, t *testing.T) []string {
		e.write(t, ".moot/journal.json", []byte(`{"files": [{"name": "debate.md/x", "data": "eA=="}]}`))
		return []string{"check", "demo"}
	}, ExitCheckFailed, []string{".moot/journal.json", `entry "debate.md/x"`, "debate.md is not a directory", "remove it"}},
	{"journal naming a file inside debate.md, step", argued, func(e env, t *testing.T) []string {
		e.write(t, ".moot/journal.json", []byte(`{"files": [{"name": "debate.md/x", "data": "eA=="}]}`))
		return judge0(e, t)
	}, ExitError, []string{".moot/journal.json", `entry "debate.md/x"`, "remove it"}},
	{"journal naming an absolute file, check", argued, func(e env, t *testing.T) []string {
		e.write(t, ".moot/journal.json", []byte(`{"files": [{"name": "/etc/passwd", "data": "eA=="}]}`))
		return []string{"check", "demo"}
	}, ExitCheckFailed, []string{".moot/journal.json", `entry "/etc/passwd"`, "remove it"}},

	// files written in place
	{"lock file hard-linked outside", argued, func(e env, t *testing.T) []string {
		outside := filepath.Join(e.outside, "precious")
		os.WriteFile(outside, []byte("precious\n"), 0o644)
		os.Remove(filepath.Join(e.dir, ".moot", "lock"))
		if err := os.Link(outside, filepath.Join(e.dir, ".moot", "lock")); err != nil {
			t.Fatal(err)
		}
		return judge0(e, t)
	}, ExitCheckFailed, []string{".moot/lock", "hard links"}},

	// the user's own files
	{"user files named .tmp- and a refused step", argued, func(e env, t *testing.T) []string {
		e.write(t, ".tmp-x", []byte("mine"))
		e.write(t, "arguments/.tmp-notes", []byte("mine"))
		return exchange0(e, t)
	}, ExitRefused, []string{"exchange"}},

	// command lines
	{"negative exchange argument", fresh, func(e env, t *testing.T) []string {
		a := exchange0(e, t)
		a[2] = "-1"
		return a
	}, ExitUsage, []string{"-1"}},
	{"fractional exchange argument", fresh, func(e env, t *testing.T) []string {
		a := exchange0(e, t)
		a[2] = "0.5"
		return a
	}, ExitUsage, []string{"0.5", "whole number"}},
	{"absurd exchange argument", fresh, func(e env, t *testing.T) []string {
		a := exchange0(e, t)
		a[2] = "1e12"
		return a
	}, ExitUsage, []string{"1e12", "whole number"}},
	{"huge exchange argument", fresh, func(e env, t *testing.T) []string {
		a := exchange0(e, t)
		a[2] = "99999999999999999999999"
		return a
	}, ExitUsage, []string{"whole number"}},
	{"wrong exchange", fresh, func(e env, t *testing.T) []string {
		a := exchange0(e, t)
		a[2] = "1"
		return a
	}, ExitRefused, []string{"exchange 1", "exchange 0"}},
	{"wrong phase", fresh, judge0, ExitRefused, []string{"judgment", "waiting for"}},
	{"slug climbing out", fresh, func(e env, t *testing.T) []string {
		return []string{"new", "../evil", "--motion", "x"}
	}, ExitUsage, []string{"../evil", "slug"}},
	{"slug with a separator", fresh, func(e env, t *testing.T) []string {
		return []string{"new", "a/b", "--motion", "x"}
	}, ExitUsage, []string{"a/b", "slug"}},
	{"slug that is dots", fresh, func(e env, t *testing.T) []string {
		return []string{"new", "..", "--motion", "x"}
	}, ExitUsage, []string{"slug"}},
	{"slug with quotes and brackets", fresh, func(e env, t *testing.T) []string {
		return []string{"new", `a"]:::prop`, "--motion", "x"}
	}, ExitUsage, []string{"slug"}},
	{"slug with markdown", fresh, func(e env, t *testing.T) []string {
		return []string{"new", "# motion", "--motion", "x"}
	}, ExitUsage, []string{"slug"}},
	{"new over an existing debate", argued, func(e env, t *testing.T) []string {
		return []string{"new", "demo", "--motion", "Another motion."}
	}, ExitUsage, []string{"already exists", "moot run demo"}},
	{"show an id with a path", argued, func(e env, t *testing.T) []string {
		return []string{"show", "demo", "../../debate"}
	}, ExitUsage, []string{"not an argument id"}},
	{"show an id with quotes", argued, func(e env, t *testing.T) []string {
		return []string{"show", "demo", `prop_000a"`}
	}, ExitUsage, []string{"not an argument id"}},
	{"show an id that is not canonical", argued, func(e env, t *testing.T) []string {
		return []string{"show", "demo", "prop_0001"}
	}, ExitUsage, []string{"not an argument id"}},

	// answers
	{"20 MB answer", fresh, func(e env, t *testing.T) []string {
		return exchange0With(e, t, `[{"title": "`+strings.Repeat("x", 20<<20)+`"}]`)
	}, ExitRefused, []string{"--prop-file", "limit"}},
	{"answer that is not JSON", fresh, func(e env, t *testing.T) []string {
		return exchange0With(e, t, "I would rather not.")
	}, ExitRefused, []string{"proposition", "not JSON"}},
	{"truncated answer", fresh, func(e env, t *testing.T) []string {
		return exchange0With(e, t, string(dialectictest.Answer(dialectic.Prop, 0)[:200]))
	}, ExitRefused, []string{"proposition", "invalid JSON"}},
	{"answer with invalid UTF-8", fresh, func(e env, t *testing.T) []string {
		return exchange0With(e, t, opening(t, "title", "\"An \xff\xfe title of five words\""))
	}, ExitRefused, []string{"proposition", "UTF-8"}},
	{"answer nested 100k deep", fresh, func(e env, t *testing.T) []string {
		return exchange0With(e, t, deep(100000))
	}, ExitRefused, []string{"proposition", "depth"}},
	{"answer with a title that is not a string", fresh, func(e env, t *testing.T) []string {
		return exchange0With(e, t, opening(t, "title", "{}"))
	}, ExitRefused, []string{"argument 1", "title"}},
	{"attack target with a path", rebuted, func(e env, t *testing.T) []string {
		if code, _, stderr := runMoot(t, "--dir", e.root, "process-judge", "demo", "--json-file", e.answer(t, "j2.json", dialectictest.Judgment(2))); code != 0 {
			t.Fatalf("judge exchange 2: %s", stderr)
		}
		return []string{"process-exchange", "demo", "3",
			"--prop-file", e.answer(t, "p.json", []byte(strings.Replace(string(dialectictest.Answer(dialectic.Prop, 3)), `"opp_002"`, `"../opp_002"`, 1))),
			"--opp-file", e.answer(t, "o.json", dialectictest.Answer(dialectic.Opp, 3))}
	}, ExitRefused, []string{"proposition", "attacks[0].target_id", "../opp_002"}},
	{"opening that attacks", fresh, func(e env, t *testing.T) []string {
		return exchange0With(e, t, opening(t, "attacks", `[{"target_id": "opp_000a", "attack_type": "claim_attack", "content": "x"}]`))
	}, ExitRefused, []string{"attacks[0]", "opening"}},
	{"attack target with quotes and brackets", fresh, func(e env, t *testing.T) []string {
		return exchange0With(e, t, opening(t, "attacks", `[{"target_id": "opp_000a\"]:::x", "attack_type": "claim_attack", "content": "x"}]`))
	}, ExitRefused, []string{"attacks[0].target_id", "not an argument id"}},
	{"score NaN token", argued, func(e env, t *testing.T) []string {
		return judgeWith(e, t, judgment0("NaN"))
	}, ExitRefused, []string{"invalid JSON"}},
	{"score Infinity token", argued, func(e env, t *testing.T) []string {
		return judgeWith(e, t, judgment0("Infinity"))
	}, ExitRefused, []string{"invalid JSON"}},
	{"score 1e999", argued, func(e env, t *testing.T) []string {
		return judgeWith(e, t, judgment0("1e999"))
	}, ExitRefused, []string{"scores[0].score", "finite"}},
	// A score written "0.3" is read as the number it is (internal/lenient);
	// a string that is no number is refused.
	{"score as a string", argued, func(e env, t *testing.T) []string {
		return judgeWith(e, t, judgment0(`"high"`))
	}, ExitRefused, []string{"scores[0].score", "number"}},
	{"scores that do not sum to zero", argued, func(e env, t *testing.T) []string {
		return judgeWith(e, t, judgment0("0.9"))
	}, ExitRefused, []string{"sum"}},
	{"score for an argument of another exchange", argued, func(e env, t *testing.T) []string {
		return judgeWith(e, t, strings.Replace(string(dialectictest.Judgment(0)), `"prop_000a"`, `"prop_001"`, 1))
	}, ExitRefused, []string{"prop_001", "exchange 0"}},
	{"judgment with a key twice", argued, func(e env, t *testing.T) []string {
		return judgeWith(e, t, strings.Replace(string(dialectictest.Judgment(0)), `"score": 0.3`, `"score": 0.3, "score": 0.5`, 1))
	}, ExitRefused, []string{"twice"}},
	{"answer file missing", fresh, func(e env, t *testing.T) []string {
		return []string{"process-exchange", "demo", "0", "--prop-file", filepath.Join(e.answers, "nope.json"), "--opp-file", filepath.Join(e.answers, "nope.json")}
	}, ExitError, []string{"--prop-file", "nope.json"}},
	{"answer file that is a folder", fresh, func(e env, t *testing.T) []string {
		return []string{"process-exchange", "demo", "0", "--prop-file", e.answers, "--opp-file", e.answers}
	}, ExitUsage, []string{"--prop-file", "not a regular file"}},
}

// TestHostileInput runs each hostile input through the CLI: a clear error
// naming the file or field at fault, a non-zero exit, no panic, and not a
// byte changed in the debates root or outside it.
func TestHostileInput(t *testing.T) {
	if len(hostile) < 30 {
		t.Fatalf("the catalogue has %d cases, want at least 30", len(hostile))
	}
	for _, tc := range hostile {
		t.Run(tc.name, func(t *testing.T) {
			root := stage(t, tc.stage)
			e := env{root: root, dir: filepath.Join(root, "demo"), answers: t.TempDir(), outside: t.TempDir()}
			args := tc.setup(e, t)
			before, beforeOut := snapshot(t, root), snapshot(t, e.outside)
			code, stdout, stderr := runMoot(t, append([]string{"--dir", root}, args...)...)
			if code != tc.code {
				t.Errorf("exit %d, want %d\nstdout: %s\nstderr: %s", code, tc.code, stdout, stderr)
			}
			out := stdout + stderr
			for _, w := range tc.want {
				if !strings.Contains(out, w) {
					t.Errorf("the output does not mention %q:\n%s", w, out)
				}
			}
			if !strings.Contains(stderr, "moot: error: ") {
				t.Errorf("no error line on stderr: %q", stderr)
			}
			if len(stderr) > 4000 {
				t.Errorf("the error is %d bytes long; it should be short", len(stderr))
			}
			if diff := changes(before, snapshot(t, root)); len(diff) > 0 {
				t.Errorf("the debates root changed: %v", diff)
			}
			if diff := changes(beforeOut, snapshot(t, e.outside)); len(diff) > 0 {
				t.Errorf("files outside changed: %v", diff)
			}
		})
	}
}

// dangerous is text that looks like syntax of one of moot's formats but is
// just text: it must be accepted and come back exactly.
var dangerous = []string{
	"A claim with } and {\"debate_id\": \"evil\"} in it.",
	"# Motion\n\nThis house would not be fooled.",
	"---\ntitle: not yaml\n---",
	"Line one\n}\nline three",
	`She said "no" and 'yes' and \"escaped\".`,
	"Emoji 🦀🔥 and accents: déjà vu, naïve, Ελληνικά, 日本語.",
	"Mermaid: prop_000a[\"x\"]:::opp --> opp_000a; linkStyle 0 stroke:red; %% comment",
	"Markdown: **bold** _it_ [link](http://x) <script>alert(1)</script> | a | b |",
	"## Grounds\n\n### 1. fake heading\n\n> quote",
	"Tabs\tand trailing spaces   ",
	"\u2028line separator\u2029paragraph separator",
}

// TestDangerousLookingTextRoundTrips hands in arguments whose title and
// claim hold such text: they are accepted, check passes, and reading the
// argument file back gives exactly the text handed in.
func TestDangerousLookingTextRoundTrips(t *testing.T) {
	root := stage(t, fresh)
	e := env{root: root, dir: filepath.Join(root, "demo"), answers: t.TempDir()}
	type arg struct {
		Title     string `json:"title"`
		Claim     string `json:"claim"`
		Grounds   []any  `json:"grounds"`
		Warrant   string `json:"warrant"`
		Qualifier string `json:"qualifier"`
	}
	answer := func(offset int) []byte {
		var args []arg
		for i := 0; i < 3; i++ {
			d := dangerous[(offset+i)%len(dangerous)]
			args = append(args, arg{
				Title: d, Claim: dangerous[(offset+i+3)%len(dangerous)], Warrant: d, Qualifier: d,
				Grounds: []any{map[string]string{"source": d, "content": d, "relevance": d}},
			})
		}
		b, err := json.Marshal(args)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	code, _, stderr := runMoot(t, "--dir", root, "process-exchange", "demo", "0",
		"--prop-file", e.answer(t, "p.json", answer(0)), "--opp-file", e.answer(t, "o.json", answer(3)))
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if code, out, stderr := runMoot(t, "--dir", root, "check", "demo"); code != 0 {
		t.Fatalf("check: exit %d: %s %s", code, out, stderr)
	}
	for i, id := range dialectic.ExchangeIDs(0) {
		offset := 0
		if i >= 3 {
			offset = 3
		}
		a, err := dialectic.ParseArgument([]byte(e.read(t, "arguments/"+id+".md")))
		if err != nil {
			t.Fatalf("%s: %v", id, err)
		}
		wantTitle := dangerous[(offset+i%3)%len(dangerous)]
		wantClaim := dangerous[(offset+i%3+3)%len(dangerous)]
		if a.Title != wantTitle || a.Claim != wantClaim {
			t.Errorf("%s: read back title %q claim %q, want %q and %q", id, a.Title, a.Claim, wantTitle, wantClaim)
		}
		code, out, stderr := runMoot(t, "--dir", root, "show", "--json", "demo", id)
		if code != 0 {
			t.Fatalf("show %s: %s", id, stderr)
		}
		var shown struct{ Title, Claim string }
		if err := json.Unmarshal([]byte(out), &shown); err != nil {
			t.Fatal(err)
		}
		if shown.Title != wantTitle || shown.Claim != wantClaim {
			t.Errorf("show %s: title %q claim %q", id, shown.Title, shown.Claim)
		}
	}
	graph := e.read(t, "argument-graph.mmd")
	for _, bad := range []string{"<script>", `["x"]`, "-->  opp", "%%"} {
		if strings.Contains(graph, bad) {
			t.Errorf("the graph carries %q unescaped:\n%s", bad, graph)
		}
	}
	// Every node line is one line, quoted label intact.
	node := regexp.MustCompile(`^    (prop|opp)_000[abc]\["[^"]*"\]:::(prop|opp)$`)
	for _, line := range strings.Split(graph, "\n") {
		if strings.HasPrefix(line, "    prop_") || strings.HasPrefix(line, "    opp_") {
			if !node.MatchString(line) {
				t.Errorf("graph node line broken by the text: %q", line)
			}
		}
	}
}

// TestDangerousMotionRoundTrips creates a debate whose motion, definition
// and scope hold text that looks like syntax, and reads them back.
func TestDangerousMotionRoundTrips(t *testing.T) {
	root := t.TempDir()
	motion := `This house would put } and "quotes" and 🦀 and <b>tags</b> in a motion`
	code, _, stderr := runMoot(t, "--dir", root, "new", "demo", "--motion", motion,
		"--definition", `"the house": a group } with "quotes"`, "--scope", "Scope with {\"json\": true} and --- lines")
	if code != 0 {
		t.Fatalf("new: %s", stderr)
	}
	code, out, stderr := runMoot(t, "--dir", root, "status", "--json", "demo")
	if code != 0 {
		t.Fatalf("status: %s", stderr)
	}
	var st struct{ Motion string }
	json.Unmarshal([]byte(out), &st)
	if st.Motion != motion {
		t.Fatalf("motion read back as %q, want %q", st.Motion, motion)
	}
	h, err := dialectic.ParseHeader([]byte(snapshot(t, root)["demo/debate.md"]))
	if err != nil {
		t.Fatal(err)
	}
	if len(h.Motion.Definitions) != 1 || h.Motion.Definitions[0].Term != `"the house"` || h.Motion.Definitions[0].Meaning != `a group } with "quotes"` {
		t.Errorf("definitions read back as %+v", h.Motion.Definitions)
	}
	if h.Motion.Scope != "Scope with {\"json\": true} and --- lines" {
		t.Errorf("scope read back as %q", h.Motion.Scope)
	}
}
