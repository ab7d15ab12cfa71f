package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/moot-dev/moot/internal/cli"
	"github.com/moot-dev/moot/internal/testkit/fixture"
)

// runIn runs moot in this process with every protocol.
func runIn(args []string, stdout, stderr *bytes.Buffer) int {
	return cli.Run(context.Background(), append([]string{"moot"}, args...), cli.IO{
		Stdin: strings.NewReader(""), Stdout: stdout, Stderr: stderr, Now: func() time.Time { return time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC) },
		Getenv:    func(string) string { return "" },
		Protocols: protocols,
	})
}

// runMoot runs moot in this process and returns its exit code and output.
func runMoot(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	code = runIn(args, &out, &errb)
	return code, out.String(), errb.String()
}

var (
	finishedOnce sync.Once
	finishedDir  string
	finishedErr  error
)

// finished returns a copy, under a new debates root, of a debate of
// protocol p (named as the protocol) run to its end by the built-in
// model. The debates are made once through the CLI and copied.
func finished(t *testing.T, p string) (root string) {
	t.Helper()
	finishedOnce.Do(func() {
		finishedDir, finishedErr = os.MkdirTemp("", "moot-finished-")
		if finishedErr != nil {
			return
		}
		news := map[string][]string{
			"dialectic": nil,
			"forum":     {"--seed", "634607700"},
			"moderated": {"--position-a", "Cats", "--position-b", "Dogs"},
			"refine":    nil,
			"panel":     nil,
		}
		for name, flags := range news {
			for _, c := range [][]string{
				append([]string{"new", name, "--protocol", name, "--motion", "Cats are better than dogs"}, flags...),
				// 100 units end every protocol but dialectic, which has no
				// end, and is judged by a panel.
				map[bool][]string{
					true:  {"run", name, "4", "--model", "builtin", "--judges", "builtin,builtin"},
					false: {"run", name, "100", "--model", "builtin"},
				}[name == "dialectic"],
			} {
				var out, errb bytes.Buffer
				if code := runIn(append([]string{"--dir", finishedDir}, c...), &out, &errb); code != 0 {
					finishedErr = fmt.Errorf("%v: exit %d: %s", c, code, errb.String())
					return
				}
			}
		}
	})
	if finishedErr != nil {
		t.Fatal(finishedErr)
	}
	root = t.TempDir()
	if err := fixture.CopyTree(filepath.Join(finishedDir, p), filepath.Join(root, p)); err != nil {
		t.Fatal(err)
	}
	return root
}

// fileEdit changes a file of a finished debate, dir, in a hostile way.
type fileEdit func(t *testing.T, dir, file string)

// replaced replaces the first old in the file by new; old must be there.
func replaced(old, new string) fileEdit {
	return func(t *testing.T, dir, file string) {
		t.Helper()
		p := filepath.Join(dir, file)
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Contains(b, []byte(old)) {
			t.Fatalf("%s does not contain %q:\n%s", file, old, b)
		}
		if err := os.WriteFile(p, bytes.Replace(b, []byte(old), []byte(new), 1), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// appended adds data at the end of the file.
func appended(data string) fileEdit {
	return func(t *testing.T, dir, file string) {
		t.Helper()
		f, err := os.OpenFile(filepath.Join(dir, file), os.O_WRONLY|os.O_APPEND, 0)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		if _, err := f.WriteString(data); err != nil {
			t.Fatal(err)
		}
	}
}

// swapped makes the file into something else: a symbolic link to a copy
// outside the debate, a hard link shared with one, a folder, a FIFO, or
// a sparse file over the store's size limit.
func swapped(kind string) fileEdit {
	return func(t *testing.T, dir, file string) {
		t.Helper()
		p := filepath.Join(dir, file)
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		outside := filepath.Join(t.TempDir(), filepath.Base(file))
		if err := os.WriteFile(outside, data, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Remove(p); err != nil {
			t.Fatal(err)
		}
		switch kind {
		case "symlink":
			err = os.Symlink(outside, p)
		case "hardlink":
			err = os.Link(outside, p)
		case "folder":
			err = os.Mkdir(p, 0o755)
		case "fifo":
			err = syscall.Mkfifo(p, 0o644)
		case "huge":
			if err = os.WriteFile(p, data, 0o644); err == nil {
				err = os.Truncate(p, 300<<20)
			}
		default:
			t.Fatalf("no such kind %q", kind)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
}

// fileCase is one hostile edit of one file of a finished debate: `moot
// check` must end in exit 4 and name the file and each of want.
type fileCase struct {
	protocol, file string
	name           string
	edit           fileEdit
	want           []string
}

// hostileFiles lists the cases; a function, so that the command's
// package initialisation allocates nothing for them.
func hostileFiles() []fileCase {
	var cs []fileCase
	add := func(protocol, file, name string, edit fileEdit, want ...string) {
		cs = append(cs, fileCase{protocol: protocol, file: file, name: name, edit: edit, want: want})
	}
	// Every protocol: files that are not plain files of the debate.
	for _, f := range []struct{ protocol, file string }{
		{"dialectic", "debate.md"}, {"dialectic", "arguments/opp_000a.md"},
		{"forum", "debate.md"}, {"forum", "calls/004_speech_for.md"}, {"forum", "verdict.md"},
		{"moderated", "debate.md"}, {"moderated", "messages/003_position_advocate_ba03b9ca.md"},
		{"refine", "debate.md"}, {"refine", "score.json"},
		{"panel", "debate.md"}, {"panel", "personas/ines.md"}, {"panel", "cards/a1.json"},
	} {
		for _, kind := range []string{"symlink", "hardlink", "folder", "fifo", "huge"} {
			add(f.protocol, f.file, kind, swapped(kind))
		}
		add(f.protocol, f.file, "not UTF-8", appended("\xff\xfe\n"))
	}

	// Bounds: a number that sizes something is checked before it does.
	add("forum", "debate.md", "turns of ten million", replaced(`"turns": 6`, `"turns": 10000000`), "turns")
	add("forum", "debate.md", "calls below zero", replaced(`"calls": 30`, `"calls": -5`), "calls")
	add("moderated", "debate.md", "round_count of a hundred million", replaced(`"round_count": 2`, `"round_count": 100000000`), "round_count")
	add("refine", "debate.md", "max_rounds of a hundred million", replaced(`"max_rounds": 5`, `"max_rounds": 100000000`), "max_rounds")
	add("refine", "debate.md", "top_k of a hundred million", replaced(`"top_k": 3`, `"top_k": 100000000`), "top_k")
	add("panel", "debate.md", "aspects of a hundred million", replaced(`"aspects": 3`, `"aspects": 100000000`), "aspects")
	add("panel", "debate.md", "minirounds of a hundred million", replaced(`"minirounds": 3`, `"minirounds": 100000000`), "minirounds")
	add("panel", "debate.md", "crux window of a hundred million", replaced(`"window": 4`, `"window": 100000000`), "window")
	add("panel", "debate.md", "crux max_turns of a hundred million", replaced(`"max_turns": 14`, `"max_turns": 100000000`), "max_turns")
	add("moderated", "debate.md", "max_tokens of a trillion", replaced(`"opening": 300`, `"opening": 1000000000000`), "max_tokens")
	add("dialectic", "debate.md", "current_exchange of a hundred million", replaced(`"current_exchange": 4`, `"current_exchange": 100000000`), "current_exchange")

	// Duplicate keys: the first or the last would win, unseen.
	add("forum", "calls/006_score_judge.md", "a second score", replaced(`"score": 6`, `"score": 6, "score": 9`), `"score"`, "twice")
	add("forum", "debate.md", "a second turns", replaced(`"turns": 6`, `"turns": 6, "turns": 6`), `"turns"`, "twice")
	add("moderated", "scores/008_ba03b9ca.md", "a second total", replaced(`"total": 6.35`, `"total": 6.35, "total": 10`), `"total"`, "twice")
	add("moderated", "scores/008_ba03b9ca.md", "a second participant", replaced(`"participant": "ba03b9ca-05ef-56be-8780-0971db11845b"`, `"participant": "ba03b9ca-05ef-56be-8780-0971db11845b", "participant": "389fa357-6e59-5e9d-a45f-5745593825e4"`), `"participant"`, "twice")
	add("refine", "score.json", "a second score", replaced(`"score": 6,`, `"score": 6, "score": 7,`), `"score"`, "twice")
	add("panel", "cards/a1.json", "a second position", replaced(`"position": "NO",`, `"position": "NO", "position": "YES",`), `"position"`, "twice")
	add("panel", "aspects.json", "a second label", replaced(`"label": "Who bears the risk",`, `"label": "Who bears the risk", "label": "x",`), `"label"`, "twice")
	add("dialectic", "scores.json", "a second current_score", replaced(`"current_score": `, `"current_score": 0.9, "current_score": `), `"current_score"`, "twice")

	// Derived values edited: each is checked against its source.
	add("dialectic", "judgments/builtin/scores.json", "a panel judge's current_score", replaced(`"current_score": 0.1,`, `"current_score": 0.99,`), "current_score")
	add("forum", "debate.md", "the verdict's scores in debate.md", replaced(`"against": 8,
      "for": 7`, `"against": 10,
      "for": 0`), "verdict")
	add("forum", "verdict.md", "a verdict score of 1e400", replaced(`"Ilse": 8`, `"Ilse": 1e400`), "scores")
	add("forum", "verdict.md", "a verdict score unlike the call's", replaced(`"Ilse": 8`, `"Ilse": 10`), "scores")
	add("forum", "calls/006_score_judge.md", "a score unlike the judge's answer", replaced(`"score": 6`, `"score": 9`), "score")
	add("refine", "score.json", "a score unlike its criteria", replaced(`"score": 6,`, `"score": 10,`), "score")
	add("moderated", "scores/008_ba03b9ca.md", "a criterion the debate does not have", replaced(`"criteria": {`, `"criteria": {
    "charm": {"raw": 10, "weight": 0.5, "weighted": 5, "justification": "x"},`), "charm")

	// Unknown enum values.
	add("panel", "cards/a1.json", "a position MAYBE", replaced(`"position": "NO"`, `"position": "MAYBE"`), "MAYBE")
	add("forum", "calls/004_speech_for.md", "a visibility of nobody", replaced(`"visibility": "public"`, `"visibility": "nobody"`), "visibility")

	// Identity fields: each must equal what it names.
	add("forum", "calls/004_speech_for.md", "a speaker renamed", replaced(`"speaker": "Maren"`, `"speaker": "Bob"`), "speaker")
	add("moderated", "messages/003_position_advocate_ba03b9ca.md", "a message's role changed", replaced(`"role": "position_advocate"`, `"role": "moderator"`), "role")
	add("moderated", "messages/003_position_advocate_ba03b9ca.md", "a message's name changed", replaced(`"name": "Advocate A"`, `"name": "Advocate Z"`), "name")
	add("panel", "messages/open-ines.md", "a message's persona changed", replaced(`"persona": "ines"`, `"persona": "mara"`), "persona")
	add("panel", "messages/open-ines.md", "a message's name changed", replaced(`"name": "Ines Carvalho"`, `"name": "Bob"`), "name")

	add("panel", "cards/a1.json", "a card's pair changed", replaced(`"pair": [
    "mara",
    "theo"`, `"pair": [
    "mara",
    "ines"`), "pair")
	add("refine", "rounds/r01-critique.md", "critical_count edited", replaced(`"critical_count": 1`, `"critical_count": 5`), "critical")
	add("refine", "rounds/r01-critique.md", "a skeptic_score of 50", replaced(`"skeptic_score": 5`, `"skeptic_score": 50`), "skeptic_score")
	add("refine", "debate.md", "a stop reason of its own", replaced(`"reason": "ready_signal"`, `"reason": "bored"`), "stop.reason")
	add("panel", "messages/open-ines.md", "a message's kind of song", replaced(`"kind": "opening"`, `"kind": "song"`), "kind")
	add("panel", "messages/open-ines.md", "a message's status of meh", replaced(`"status": "ok"`, `"status": "meh"`), "status")
	add("refine", "rounds/r01-critique.md", "a point's severity unknown", replaced(`"severity": "critical"`, `"severity": "apocalyptic"`), "severity")
	add("refine", "debate.md", "a phase unknown", replaced(`"current_phase": "complete"`, `"current_phase": "nap"`), "current_phase")
	add("moderated", "messages/003_position_advocate_ba03b9ca.md", "a message's kind of rant", replaced(`"kind": "opening"`, `"kind": "rant"`), "rant")
	add("dialectic", "arguments/opp_001.md", "an attack's type unknown", replaced(`"type": "grounds_attack"`, `"type": "smash"`), "type")
	add("forum", "calls/006_score_judge.md", "a target unknown", replaced(`"target": "for"`, `"target": "nobody"`), "target")

	// Identity fields: each must equal what it names.
	add("refine", "rounds/r01-critique.md", "a point's id moved", replaced(`"id": "R1.1"`, `"id": "R9.9"`), "id")
	add("refine", "rounds/r01-critique.md", "a round renumbered", replaced(`"round": 1,`, `"round": 2,`), "round")
	add("dialectic", "arguments/opp_001.md", "an argument's side changed", replaced(`"side": "opp"`, `"side": "prop"`), "side")
	add("dialectic", "arguments/opp_001.md", "an argument's id changed", replaced(`"id": "opp_001"`, `"id": "opp_002"`), "id")
	add("forum", "calls/006_score_judge.md", "a target_name renamed", replaced(`"target_name": "Maren"`, `"target_name": "Bob"`), "target_name")

	// A state file of another protocol.
	add("forum", "debate.md", "protocol moderated", replaced(`"protocol": "forum"`, `"protocol": "moderated"`), "not a moderated debate")
	return cs
}

// TestHostileFiles edits each protocol's files by hand in every way a
// person or a program might: `moot check` refuses each with exit 4,
// naming the file and the field, never panics and never sizes anything by
// an unchecked number; status, export and the report (the page moot serve
// serves) refuse it too.
func TestHostileFiles(t *testing.T) {
	if raceEnabled && os.Getenv(casesApartEnv) != "" {
		t.Skipf("commands that read a debate and refuse it: run without -race by test.sh's second pass (go test -run '^TestHostileFiles$'), as %s is set", casesApartEnv)
	}
	for _, tc := range hostileFiles() {
		t.Run(tc.protocol+"/"+tc.file+"/"+tc.name, func(t *testing.T) {
			root := finished(t, tc.protocol)
			dir := filepath.Join(root, tc.protocol)
			tc.edit(t, dir, tc.file)
			for _, cmd := range [][]string{{"check"}, {"status"}, {"export"}, {"report", "--stdout", "--html"}} {
				code, stdout, stderr := runMoot(t, append(append([]string{"--dir", root}, cmd...), tc.protocol)...)
				if code != cli.ExitCheckFailed {
					t.Errorf("%s: exit %d, want %d\nstdout: %s\nstderr: %s", cmd, code, cli.ExitCheckFailed, stdout, stderr)
					continue
				}
				out := stdout + stderr
				for _, w := range append([]string{tc.file}, tc.want...) {
					if !strings.Contains(out, w) {
						t.Errorf("%s: the output does not name %q:\n%s", cmd, w, out)
					}
				}
			}
		})
	}
}

// casesApartEnv, set in the environment of `go test -race`, makes
// TestHostileFiles skip under the race detector: test.sh's pass without
// it runs every case (go test -run '^TestHostileFiles$'), where they take
// a fraction of the time. Most of that time goes to the finished debates,
// each protocol's run to its end by the built-in model, in this process,
// as internal/builtin's TestEveryProtocol runs them under the detector;
// each case's commands then read one debate and refuse it, before any
// write.
const casesApartEnv = "MOOT_CASES_APART"

// TestMain removes the finished debates once every test has used them.
func TestMain(m *testing.M) {
	code := m.Run()
	if finishedDir != "" && os.Getenv("MOOT_KEEP") == "" {
		os.RemoveAll(finishedDir)
	}
	os.Exit(code)
}
