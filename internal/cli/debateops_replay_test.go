package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/moot-dev/moot/internal/frontmatter"
	"github.com/moot-dev/moot/internal/testkit/fixture"
	sm "github.com/moot-dev/moot/statemachine"
	"github.com/moot-dev/moot/statemachine/dialectic"
)

// sharedCompat returns ../shared/compat next to the repository, which holds
// dialectic's own step package and the debates it wrote. A clone of moot
// alone does not have it, and the test is then skipped.
func sharedCompat(t *testing.T) string {
	t.Helper()
	dir := fixture.Shared(t, "compat")
	if _, err := os.Stat(filepath.Join(dir, "dialectic-skill", "debate_ops", "__main__.py")); errors.Is(err, fs.ErrNotExist) {
		t.Skipf("dialectic's debate_ops and its example debates are not at %s (they sit outside the repository, next to it)", dir)
	}
	return dir
}

// exampleDebates returns the folders of compat that hold a debate written
// by dialectic: a debate.md, a scores.json and an arguments folder. It
// skips when there is none.
func exampleDebates(t *testing.T, compat string) []string {
	t.Helper()
	entries, err := os.ReadDir(compat)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range entries {
		dir := filepath.Join(compat, e.Name())
		if !e.IsDir() || !isFile(filepath.Join(dir, sm.StateFile)) || !isFile(filepath.Join(dir, dialectic.ScoresFile)) {
			continue
		}
		if fi, err := os.Stat(filepath.Join(dir, dialectic.ArgumentsDir)); err != nil || !fi.IsDir() {
			continue
		}
		out = append(out, e.Name())
	}
	if len(out) == 0 {
		t.Skipf("no debate written by dialectic (a folder with debate.md, scores.json and arguments/) in %s", compat)
	}
	return out
}

func isFile(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.Mode().IsRegular()
}

// python3 returns the python3 that runs dialectic's debate_ops, or skips.
// debate_ops needs Python 3.8 or later and its standard library only (json,
// re, dataclasses, datetime, pathlib, typing).
func python3(t *testing.T) string {
	t.Helper()
	py, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("python3 is not on PATH: dialectic's debate_ops cannot run")
	}
	out, err := exec.Command(py, "-c", "import sys, json, re, dataclasses, datetime, pathlib, typing; print(sys.version_info >= (3, 8))").Output()
	if err != nil || strings.TrimSpace(string(out)) != "True" {
		t.Skipf("%s is not Python 3.8 or later with its standard library (%v, %q): dialectic's debate_ops cannot run", py, err, out)
	}
	return py
}

// opsStep is one step of the replay: a debate-ops command line whose
// <prop>, <opp> and <json> stand for answer files written fresh for each
// side of the comparison.
type opsStep struct {
	name    string
	args    []string
	answers map[string][]byte
	// graph marks a judgment: after an accepted one both tools have
	// redrawn the graph (debate_ops draws it at judgments only, moot at
	// every step).
	graph bool
}

// TestDebateOpsReplay replays each debate dialectic wrote (every folder of
// ../shared/compat with a debate.md, a scores.json and arguments/) through
// dialectic's own debate_ops and through moot debate-ops, side by side,
// from the same start, step by step, and compares what each printed
// (stdout, stderr, exit status), which input files each removed, and the
// files of the two debates. Normalised away are only: the final newline of
// a file, \uXXXX escapes against raw UTF-8, the mermaid graph's styling,
// and timestamps.
//
// The inputs are rebuilt from the example: each side's answer from its
// argument files, each judgment from scores.json (the first entry of each
// argument of the exchange, and the rescores that arguments of the
// exchange triggered). A few steps that must fail are mixed in.
func TestDebateOpsReplay(t *testing.T) {
	compat := sharedCompat(t)
	debates := exampleDebates(t, compat)
	py := python3(t)
	ops := filepath.Join(compat, "dialectic-skill", "debate_ops")
	for _, slug := range debates {
		t.Run(slug, func(t *testing.T) { replayDebate(t, py, ops, filepath.Join(compat, slug), slug) })
	}
}

// replayDebate replays the example debate at src, as TestDebateOpsReplay
// says, under the name slug.
func replayDebate(t *testing.T, py, ops, src, slug string) {
	start := startOf(t, src)
	exchange := func(name string, e int, prop, opp []byte) opsStep {
		return exchangeStep(name, slug, e, prop, opp)
	}
	judge := func(name string, answer []byte) opsStep { return judgeStep(name, slug, answer) }
	var steps []opsStep
	exchanges, judged := stateOf(t, src)
	for e := 0; e < exchanges; e++ {
		prop, opp := answerOf(t, src, dialectic.Prop, e), answerOf(t, src, dialectic.Opp, e)
		if e == 0 {
			steps = append(steps,
				exchange("exchange 0, the proposition's answer not JSON", 0, []byte("{\"title\": "), opp),
				exchange("exchange 0, the proposition's argument without a warrant", 0, withoutKey(t, prop, "warrant"), opp))
		}
		steps = append(steps, exchange(fmt.Sprintf("exchange %d", e), e, prop, opp))
		if e >= judged {
			break
		}
		judgment := judgmentOf(t, src, e)
		if e == 0 {
			steps = append(steps,
				judge("judgment 0 not JSON", []byte("```json\n{\"scores\": [\n```")),
				judge("judgment 0 not zero-sum", notZeroSum(t, judgment)),
				judge("judgment 0 with a score out of range", scoreOutOfRange(t, judgment)))
		}
		steps = append(steps, judge(fmt.Sprintf("judgment %d", e), judgment))
	}
	// Command lines debate_ops refuses before it reads anything.
	steps = append(steps,
		opsStep{name: "process-exchange missing --opp-file", args: []string{"process-exchange", slug, strconv.Itoa(judged), "--prop-file", "<prop>", "--opp", "<opp>"},
			answers: map[string][]byte{"<prop>": []byte("{}"), "<opp>": []byte("{}")}},
		opsStep{name: "process-judge with too few arguments", args: []string{"process-judge", slug, "<json>"},
			answers: map[string][]byte{"<json>": []byte("{}")}},
		opsStep{name: "an unknown command", args: []string{"process-everything", slug}})

	pyRoot := replaySteps(t, py, ops, slug, start, steps)

	// The replay rebuilt the example debate: debate_ops' own files match
	// the ones in the example (a check of the rebuilt inputs).
	compareTrees(t, "the example", filepath.Join(pyRoot, slug), src, true, false)
}

func exchangeStep(name, slug string, e int, prop, opp []byte) opsStep {
	return opsStep{name: name, args: []string{"process-exchange", slug, strconv.Itoa(e), "--prop-file", "<prop>", "--opp-file", "<opp>"},
		answers: map[string][]byte{"<prop>": prop, "<opp>": opp}}
}

func judgeStep(name, slug string, answer []byte) opsStep {
	return opsStep{name: name, args: []string{"process-judge", slug, "--json-file", "<json>"},
		answers: map[string][]byte{"<json>": answer}, graph: true}
}

// replaySteps runs steps on the debate slug, which starts with start as
// its debate.md and an empty scores.json, through dialectic's debate_ops
// and through moot debate-ops side by side, and compares what each
// printed, which input files each removed and the files of the two
// debates after every step. It returns the folder of debate_ops' debate.
func replaySteps(t *testing.T, py, ops, slug string, start []byte, steps []opsStep) (pyRoot string) {
	t.Helper()
	work := t.TempDir()
	pyRoot, mootRoot := filepath.Join(work, "py"), filepath.Join(work, "moot")
	for _, root := range []string{pyRoot, mootRoot} {
		dir := filepath.Join(root, slug)
		if err := os.MkdirAll(filepath.Join(dir, dialectic.ArgumentsDir), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, sm.StateFile), start, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, dialectic.ScoresFile), []byte("{}"), 0o644); err != nil {
			t.Fatal(err)
		}
	}

	// Both tools find the debate relative to the working directory.
	t.Chdir(mootRoot)
	for i, st := range steps {
		pyRun := runOriginal(t, py, ops, pyRoot, filepath.Join(work, fmt.Sprintf("py-in-%02d", i)), st)
		mootRun := runOps(t, filepath.Join(work, fmt.Sprintf("moot-in-%02d", i)), st)
		t.Logf("step %d, %s: exit %d", i, st.name, pyRun.code)
		if pyRun.code != mootRun.code {
			t.Errorf("step %d, %s: exit status %d, debate_ops %d\nmoot stderr: %s", i, st.name, mootRun.code, pyRun.code, mootRun.stderr)
		}
		if got, want := normalOutput(mootRun.stdout), normalOutput(pyRun.stdout); got != want {
			t.Errorf("step %d, %s: stdout differs\nmoot:\n%s\ndebate_ops:\n%s", i, st.name, got, want)
		}
		if got, want := normalOutput(withoutMootLines(mootRun.stderr)), normalOutput(pyRun.stderr); got != want {
			t.Errorf("step %d, %s: stderr differs\nmoot:\n%s\ndebate_ops:\n%s", i, st.name, got, want)
		}
		if got, want := strings.Join(mootRun.removed, " "), strings.Join(pyRun.removed, " "); got != want {
			t.Errorf("step %d, %s: removed input files [%s], debate_ops [%s]", i, st.name, got, want)
		}
		compareDebates(t, fmt.Sprintf("step %d, %s", i, st.name), filepath.Join(mootRoot, slug), filepath.Join(pyRoot, slug), st.graph && pyRun.code == 0)
		if t.Failed() {
			t.FailNow()
		}
	}
	return pyRoot
}

// TestDebateOpsWrongPhase checks moot debate-ops on steps that come at the
// wrong time. dialectic's debate_ops did not check the phase or the
// exchange number at all (it wrote whatever it was given); moot refuses the
// step, writes nothing, keeps the input files, and prints an error object
// on stderr with exit status 1, as debate_ops did for a step it could not
// take.
func TestDebateOpsWrongPhase(t *testing.T) {
	root := newTestDebate(t, map[string]string{
		"p.json": openingJSON("tea"), "o.json": openingJSON("coffee"),
		"j.json": `{"scores": [{"argument_id": "prop_000a", "score": 0, "reasoning": "r"}]}`,
	})
	t.Chdir(root)
	tests := []struct {
		name string
		args []string
		keep []string
	}{
		{"judgment before the arguments", []string{"process-judge", "tea", "--json-file", "j.json"}, []string{"j.json"}},
		{"arguments of the wrong exchange", []string{"process-exchange", "tea", "1", "--prop-file", "p.json", "--opp-file", "o.json"}, []string{"p.json", "o.json"}},
		{"a debate that is not there", []string{"process-exchange", "coffee", "0", "--prop-file", "p.json", "--opp-file", "o.json"}, []string{"p.json", "o.json"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			before := fileSnapshot(t, root)
			res := moot(t, append([]string{"debate-ops"}, tc.args...)...)
			if res.code != 1 || res.stdout != "" {
				t.Errorf("exit %d, stdout %q; want 1 and nothing", res.code, res.stdout)
			}
			if !regexp.MustCompile(`^\{"success": false, "error": "[^\n]+"\}\n$`).MatchString(res.stderr) {
				t.Errorf("stderr %q is not one error object", res.stderr)
			}
			after := fileSnapshot(t, root)
			if len(after) != len(before) {
				t.Errorf("files %d, before %d", len(after), len(before))
			}
			for name, data := range before {
				if after[name] != data {
					t.Errorf("%s changed", name)
				}
			}
		})
	}
}

// startOf returns the example's debate.md as it was before exchange 0:
// the same keys and motion, at exchange 0, awaiting arguments, no scores.
func startOf(t *testing.T, src string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(src, sm.StateFile))
	if err != nil {
		t.Fatal(err)
	}
	front, body, err := frontmatter.Parse(data)
	if err != nil {
		t.Fatal(err)
	}
	front.SetValue("current_exchange", 0)
	front.SetValue("current_phase", "awaiting_arguments")
	front.Set("cumulative_scores", json.RawMessage(`{"proposition": {"total": 0, "count": 0}, "opposition": {"total": 0, "count": 0}}`))
	out, err := frontmatter.Render(front, body)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// answerOf rebuilds what side handed in for exchange e from its argument
// files: the fields of the frontmatter and the sections of the body.
func answerOf(t *testing.T, src string, side dialectic.Side, e int) []byte {
	t.Helper()
	var args []map[string]any
	for _, id := range dialectic.ArgumentIDs(e, side) {
		data, err := os.ReadFile(filepath.Join(src, dialectic.ArgumentFile(id)))
		if err != nil {
			t.Fatal(err)
		}
		a, err := dialectic.ParseArgument(data)
		if err != nil {
			t.Fatalf("%s: %v", id, err)
		}
		sections := map[string]string{}
		for _, s := range strings.Split("\n\n"+a.Body, "\n\n## ")[1:] {
			head, text, _ := strings.Cut(s, "\n\n")
			sections[head] = text
		}
		m := map[string]any{"title": a.Title, "claim": a.Claim, "warrant": sections["Warrant"]}
		var grounds []map[string]any
		for _, g := range strings.Split("\n\n"+sections["Grounds"], "\n\n### ")[1:] {
			parts := strings.Split(g, "\n\n")
			_, source, _ := strings.Cut(parts[0], ". ")
			grounds = append(grounds, map[string]any{
				"source":    source,
				"content":   strings.TrimPrefix(parts[1], "> "),
				"relevance": strings.TrimPrefix(parts[2], "**Relevance:** "),
			})
		}
		m["grounds"] = grounds
		for _, k := range []string{"Backing", "Qualifier"} {
			if v, ok := sections[k]; ok {
				m[strings.ToLower(k)] = v
			}
		}
		links := func(section, verb, typeKey string) []map[string]any {
			var out []map[string]any
			for _, l := range strings.Split("\n\n"+sections[section], "\n\n### "+verb+" ")[1:] {
				target, rest, _ := strings.Cut(l, "\n\n")
				typ, content, _ := strings.Cut(strings.TrimPrefix(rest, "**Type:** "), "\n\n")
				out = append(out, map[string]any{"target_id": target, typeKey: typ, "content": content})
			}
			return out
		}
		if _, ok := sections["Attacks"]; ok {
			m["attacks"] = links("Attacks", "Attacking", "attack_type")
		}
		if _, ok := sections["Defends"]; ok {
			m["defends"] = links("Defends", "Defending", "defense_type")
		}
		args = append(args, m)
	}
	if e == 0 {
		return encode(t, args)
	}
	return encode(t, args[0])
}

// stateOf returns how many exchanges the example debate at src holds
// arguments for, and how many of them were judged.
func stateOf(t *testing.T, src string) (exchanges, judged int) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(src, sm.StateFile))
	if err != nil {
		t.Fatal(err)
	}
	var st struct {
		Exchange int    `json:"current_exchange"`
		Phase    string `json:"current_phase"`
	}
	front, _, err := frontmatter.Parse(data)
	if err != nil {
		t.Fatal(err)
	}
	raw, err := front.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(raw, &st); err != nil {
		t.Fatal(err)
	}
	if st.Phase == string(dialectic.AwaitingJudgment) {
		return st.Exchange + 1, st.Exchange
	}
	return st.Exchange, st.Exchange
}

// judgmentOf rebuilds the judgment of exchange e from scores.json: the
// first history entry of each argument of the exchange, in the file's
// order, and, as rescores, the later entries triggered by an argument of
// the exchange, in the order they were written; numbers as written.
func judgmentOf(t *testing.T, src string, e int) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(src, dialectic.ScoresFile))
	if err != nil {
		t.Fatal(err)
	}
	var all frontmatter.Object
	if err := json.Unmarshal(data, &all); err != nil {
		t.Fatal(err)
	}
	type entry struct {
		Score         json.Number `json:"score"`
		Reasoning     string      `json:"reasoning"`
		ScoredAt      string      `json:"scored_at"`
		TriggeredBy   string      `json:"triggered_by"`
		PreviousScore json.Number `json:"previous_score"`
	}
	type rescore struct {
		at string
		v  map[string]any
	}
	var scores []map[string]any
	var rescores []rescore
	for _, f := range all.Fields {
		id, err := dialectic.ParseID(f.Key)
		if err != nil {
			t.Fatalf("scores.json: %v", err)
		}
		var rec struct {
			History []entry `json:"history"`
		}
		dec := json.NewDecoder(bytes.NewReader(f.Value))
		dec.UseNumber()
		if err := dec.Decode(&rec); err != nil {
			t.Fatal(err)
		}
		if id.Exchange == e {
			first := rec.History[0]
			scores = append(scores, map[string]any{"argument_id": f.Key, "score": first.Score, "reasoning": first.Reasoning})
		}
		for _, h := range rec.History[1:] {
			by, err := dialectic.ParseID(h.TriggeredBy)
			if err != nil {
				t.Fatalf("scores.json: %s: a later entry without a valid triggered_by: %v", f.Key, err)
			}
			if by.Exchange != e {
				continue
			}
			r := map[string]any{"argument_id": f.Key, "new_score": h.Score, "reasoning": h.Reasoning}
			if h.PreviousScore != "" {
				r["old_score"] = h.PreviousScore
			}
			rescores = append(rescores, rescore{h.ScoredAt, r})
		}
	}
	judgment := map[string]any{"scores": scores}
	if len(rescores) > 0 {
		sort.SliceStable(rescores, func(i, j int) bool { return rescores[i].at < rescores[j].at })
		var rs []map[string]any
		for _, r := range rescores {
			rs = append(rs, r.v)
		}
		judgment["rescores"] = rs
	}
	return encode(t, judgment)
}

func encode(t *testing.T, v any) []byte {
	t.Helper()
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// withoutKey drops key from the first argument of an opening.
func withoutKey(t *testing.T, answer []byte, key string) []byte {
	t.Helper()
	var args []map[string]any
	if err := json.Unmarshal(answer, &args); err != nil {
		t.Fatal(err)
	}
	delete(args[0], key)
	return encode(t, args)
}

// notZeroSum raises the first score of a judgment by 0.2.
func notZeroSum(t *testing.T, judgment []byte) []byte {
	t.Helper()
	return editFirstScore(t, judgment, func(s float64) float64 { return s + 0.2 })
}

// scoreOutOfRange sets the first score to 1.5 and the second so that the
// scores still sum to zero.
func scoreOutOfRange(t *testing.T, judgment []byte) []byte {
	t.Helper()
	var j struct {
		Scores []map[string]any `json:"scores"`
	}
	if err := json.Unmarshal(judgment, &j); err != nil {
		t.Fatal(err)
	}
	a, b := j.Scores[0]["score"].(float64), j.Scores[1]["score"].(float64)
	j.Scores[0]["score"], j.Scores[1]["score"] = 1.5, a+b-1.5
	return encode(t, j)
}

func editFirstScore(t *testing.T, judgment []byte, f func(float64) float64) []byte {
	t.Helper()
	var j struct {
		Scores []map[string]any `json:"scores"`
	}
	if err := json.Unmarshal(judgment, &j); err != nil {
		t.Fatal(err)
	}
	j.Scores[0]["score"] = f(j.Scores[0]["score"].(float64))
	return encode(t, j)
}

// opsRun is what one run of a step did.
type opsRun struct {
	code           int
	stdout, stderr string
	// removed lists the placeholders of the input files that are gone.
	removed []string
}

// writeInputs writes the step's answer files into dir and returns the
// command line with the placeholders replaced by their paths.
func writeInputs(t *testing.T, dir string, st opsStep) []string {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	args := append([]string(nil), st.args...)
	for i, a := range args {
		if data, ok := st.answers[a]; ok {
			p := filepath.Join(dir, strings.Trim(a, "<>")+".json")
			if err := os.WriteFile(p, data, 0o644); err != nil {
				t.Fatal(err)
			}
			args[i] = p
		}
	}
	return args
}

func removedInputs(dir string, st opsStep) []string {
	var out []string
	for name := range st.answers {
		if _, err := os.Stat(filepath.Join(dir, strings.Trim(name, "<>")+".json")); errors.Is(err, fs.ErrNotExist) {
			out = append(out, name)
		}
	}
	sort.Strings(out)
	return out
}

// runOriginal runs dialectic's debate_ops from root, the folder holding the
// debate, as its plugin does.
func runOriginal(t *testing.T, py, ops, root, in string, st opsStep) opsRun {
	t.Helper()
	args := writeInputs(t, in, st)
	cmd := exec.Command(py, append([]string{ops}, args...)...)
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "PYTHONDONTWRITEBYTECODE=1", "PYTHONHASHSEED=0", "PYTHONIOENCODING=utf-8")
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("run debate_ops: %v", err)
	}
	return opsRun{code, out.String(), errb.String(), removedInputs(in, st)}
}

// runOps runs moot debate-ops in process, from the working directory.
func runOps(t *testing.T, in string, st opsStep) opsRun {
	t.Helper()
	args := writeInputs(t, in, st)
	var out, errb bytes.Buffer
	code := Run(context.Background(), append([]string{"moot", "debate-ops"}, args...), IO{
		Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errb,
		Now:    time.Now,
		Getenv: func(string) string { return "" }, Protocols: withDialectic(),
	})
	return opsRun{code, out.String(), errb.String(), removedInputs(in, st)}
}

var (
	// The texts of errors are each tool's own; their shape is compared.
	errorsList   = regexp.MustCompile(`"errors": \[(\s*"(?:[^"\\]|\\.)*",?)*\s*\]`)
	errorString  = regexp.MustCompile(`"error": "(?:[^"\\]|\\.)*"`)
	mootLineOnly = regexp.MustCompile(`(?m)^moot: (note|warning): .*\n`)
)

// normalOutput replaces the texts of errors, keeping the shape.
func normalOutput(s string) string {
	s = errorsList.ReplaceAllString(s, `"errors": [...]`)
	return errorString.ReplaceAllString(s, `"error": "..."`)
}

// withoutMootLines drops moot's own notes from stderr: moot tells there
// what dialectic did not check (answers over the soft length limits).
func withoutMootLines(s string) string { return mootLineOnly.ReplaceAllString(s, "") }

// compareDebates compares the files of the debate moot wrote with those of
// the debate debate_ops wrote, normalised as TestDebateOpsReplay says.
func compareDebates(t *testing.T, step, mootDir, pyDir string, graph bool) {
	compareTrees(t, step, mootDir, pyDir, graph, true)
}

// compareTrees compares the debate at mine, written by moot when mootWrote
// is set, with the debate at theirs written by debate_ops.
func compareTrees(t *testing.T, step, mootDir, pyDir string, graph, mootWrote bool) {
	t.Helper()
	mine, err := fixture.Tree(mootDir)
	if err != nil {
		t.Fatal(err)
	}
	theirs, err := fixture.Tree(pyDir)
	if err != nil {
		t.Fatal(err)
	}
	skip := func(p string) bool {
		return fixture.Folder(p) || strings.HasPrefix(p, ".moot/") || p == dialectic.GraphFile && !graph ||
			p == "README.md" || p == "LICENSE"
	}
	mine, theirs = fixture.Without(mine, skip), fixture.Without(theirs, skip)
	var names []string
	for name := range theirs {
		names = append(names, name)
	}
	for name := range mine {
		if _, ok := theirs[name]; !ok {
			t.Errorf("%s: moot wrote %s, debate_ops did not", step, name)
		}
	}
	sort.Strings(names)
	for _, name := range names {
		got, ok := mine[name]
		if !ok {
			t.Errorf("%s: debate_ops wrote %s, moot did not", step, name)
			continue
		}
		want := theirs[name]
		switch {
		case name == dialectic.ScoresFile:
			got, want = normalJSON(t, got, true), normalJSON(t, want, true)
		case name == dialectic.GraphFile:
			got, want = normalGraph(got, mootWrote), normalGraph(want, false)
		case strings.HasSuffix(name, ".md"):
			got, want = normalFront(t, got), normalFront(t, want)
		}
		if got != want {
			t.Errorf("%s: %s differs\nmoot:\n%s\ndebate_ops:\n%s", step, name, got, want)
		}
	}
}

// normalJSON decodes a JSON document, keys in their order and numbers as
// written, and writes it again: escapes and layout no longer matter. With
// noTimes, every "scored_at" is dropped.
func normalJSON(t *testing.T, s string, noTimes bool) string {
	t.Helper()
	var b strings.Builder
	dec := json.NewDecoder(strings.NewReader(s))
	dec.UseNumber()
	var walk func() error
	walk = func() error {
		tok, err := dec.Token()
		if err != nil {
			return err
		}
		switch v := tok.(type) {
		case json.Delim:
			b.WriteString(v.String())
			if v == '{' {
				for dec.More() {
					k, err := dec.Token()
					if err != nil {
						return err
					}
					if noTimes && k == "scored_at" {
						var skip json.RawMessage
						if err := dec.Decode(&skip); err != nil {
							return err
						}
						continue
					}
					fmt.Fprintf(&b, "%q:", k)
					if err := walk(); err != nil {
						return err
					}
					b.WriteString(",")
				}
			} else {
				for dec.More() {
					if err := walk(); err != nil {
						return err
					}
					b.WriteString(",")
				}
			}
			end, err := dec.Token()
			if err != nil {
				return err
			}
			b.WriteString(end.(json.Delim).String())
		case json.Number:
			b.WriteString(v.String())
		default:
			fmt.Fprintf(&b, "%q", fmt.Sprint(v))
		}
		return nil
	}
	if err := walk(); err != nil {
		t.Fatalf("normalise JSON: %v\n%s", err, s)
	}
	return b.String()
}

// normalFront normalises a file of JSON frontmatter and markdown: the
// frontmatter as normalJSON, the body without its final newline.
func normalFront(t *testing.T, s string) string {
	t.Helper()
	front, body, err := frontmatter.Parse([]byte(s))
	if err != nil {
		t.Fatalf("%v\n%s", err, s)
	}
	raw, err := front.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	return normalJSON(t, string(raw), false) + "\n\n" + strings.TrimRight(body, "\n")
}

var (
	graphNode = regexp.MustCompile(`^\s*(\w+)\["(\w+)<br/>(.*)<br/>(?:⭐ )?([-+]?[0-9.]+|unscored)"\]`)
	graphEdge = regexp.MustCompile(`^\s*(\w+) (-->|-\.->)\|(.*)\| (\w+)\s*$`)
	// mermaidEntity is how moot writes characters mermaid gives meaning to.
	mermaidEntity = regexp.MustCompile(`#(\d+|quot|lt|gt|amp);`)
)

// normalGraph reduces argument-graph.mmd to what it says, whatever its
// styling: a line per argument (id, title, score to two decimals) and per
// edge (from, kind, to), sorted.
func normalGraph(s string, moot bool) string {
	var lines []string
	for _, l := range strings.Split(s, "\n") {
		if m := graphNode.FindStringSubmatch(l); m != nil {
			title := m[3]
			if moot {
				title = mermaidEntity.ReplaceAllStringFunc(title, func(e string) string {
					switch e := strings.Trim(e, "#;"); e {
					case "quot":
						return `"`
					case "lt":
						return "<"
					case "gt":
						return ">"
					case "amp":
						return "&"
					default:
						n, _ := strconv.Atoi(e)
						return string(rune(n))
					}
				})
			}
			score := m[4]
			if f, err := strconv.ParseFloat(score, 64); err == nil {
				score = strconv.FormatFloat(f, 'f', 2, 64)
			}
			lines = append(lines, fmt.Sprintf("node %s %s %s", m[1], title, score))
			continue
		}
		if m := graphEdge.FindStringSubmatch(l); m != nil {
			label := m[3]
			// debate_ops labels an edge with an emoji and the type,
			// "claim" for claim_attack; moot with the type in words.
			if _, rest, ok := strings.Cut(label, " "); ok && !moot {
				label = rest
			}
			label = strings.TrimSuffix(strings.ReplaceAll(label, "_", " "), " attack")
			lines = append(lines, fmt.Sprintf("edge %s %s %s %s", m[1], m[2], label, m[4]))
		}
	}
	sort.Strings(lines)
	return strings.Join(lines, "\n")
}

// TestDebateOpsReplayRescores replays, as TestDebateOpsReplay does, a
// debate the test makes up: judges that list the opposition first, score
// 0.0 and 1, rescore with and without old_score, with a wrong old_score,
// too far from old_score or without new_score; debaters that attack or
// defend nothing and hand in a key dialectic did not know; the same file
// for both sides. The example debates have none of these. Both tools run
// on the inputs the test writes here, so that what dialectic wrote is
// made at run time, by dialectic's own debate_ops.
func TestDebateOpsReplayRescores(t *testing.T) {
	compat := sharedCompat(t)
	py := python3(t)
	ops := filepath.Join(compat, "dialectic-skill", "debate_ops")
	const slug = "tea"
	start := []byte(`{
  "debate_id": "tea",
  "current_exchange": 0,
  "current_phase": "awaiting_arguments",
  "cumulative_scores": {"proposition": {"total": 0, "count": 0}, "opposition": {"total": 0, "count": 0}}
}

# Motion

This house prefers tea.
`)
	arg := func(title, extra string) string {
		return `{"title": "The ` + title + ` argument stands firm", "claim": "It holds.", "grounds": [{"source": "S", "content": "C", "relevance": "R"}], "warrant": "W"` + extra + `}`
	}
	opening := func(side, extra string) []byte {
		return []byte("[" + arg(side+" first", "") + ", " + arg(side+" second", extra) + ", " + arg(side+" third", "") + "]")
	}
	same := exchangeStep("exchange 1, an attack and a defence without a target, one file for both sides", slug, 1, []byte(arg("shared",
		`, "attacks": [{"target_id": "", "attack_type": "claim_attack", "content": "Vague."}]`+
			`, "defends": [{"target_id": null, "defense_type": "reinforce", "content": "Also."}]`)), nil)
	same.args[6] = "<prop>"
	delete(same.answers, "<opp>")
	steps := []opsStep{
		exchangeStep("exchange 0, a key dialectic did not know", slug, 0, opening("proposition", ""), opening("opposition", `, "zeta": 1`)),
		judgeStep("judgment 0, the opposition first, 0.0 and 1", slug, []byte(`{"scores": [
  {"argument_id": "opp_000a", "score": 0.0, "reasoning": "r"}, {"argument_id": "opp_000b", "score": 0.25, "reasoning": "r"},
  {"argument_id": "opp_000c", "score": -0.5, "reasoning": "r"}, {"argument_id": "prop_000a", "score": 1, "reasoning": "r"},
  {"argument_id": "prop_000b", "score": -0.6875, "reasoning": "r"}, {"argument_id": "prop_000c", "score": -0.0625, "reasoning": "r"}]}`)),
		same,
		judgeStep("judgment 1, not zero-sum", slug, []byte(`{"scores": [{"argument_id": "opp_001", "score": -0.3, "reasoning": "r"}, {"argument_id": "prop_001", "score": 0.5, "reasoning": "r"}]}`)),
		judgeStep("judgment 1, rescores kept and skipped", slug, []byte(`{"scores": [{"argument_id": "opp_001", "score": -0.3, "reasoning": "r"}, {"argument_id": "prop_001", "score": 0.3, "reasoning": "r"}],
 "rescores": [{"argument_id": "prop_000c", "old_score": -0.0625, "new_score": 0.5, "reasoning": "Too far."},
   {"argument_id": "opp_000a", "new_score": 0.2, "reasoning": "No old score.", "triggered_by": "prop_001"},
   {"argument_id": "prop_000b", "old_score": -0.6, "new_score": -0.5, "reasoning": "A wrong old score."},
   {"argument_id": "opp_000b", "old_score": 0.25, "reasoning": "No new score.", "note": "l'été\u00a0\"x\""},
   {"argument_id": "", "old_score": 0.25, "new_score": 0.3},
   {"argument_id": "opp_000c", "old_score": -0.5, "new_score": 0, "reasoning": "To zero."}]}`)),
		exchangeStep("exchange 2", slug, 2, []byte(arg("proposition rebuttal", `, "attacks": [{"target_id": "opp_001", "attack_type": "warrant_attack", "content": "No."}]`)),
			[]byte(arg("opposition rebuttal", `, "defends": [{"target_id": "opp_000b", "defense_type": "clarify", "content": "Yes."}]`))),
		judgeStep("judgment 2, a rescore exactly 0.5 from old_score and one far from the current score", slug, []byte(`{"scores": [{"argument_id": "prop_002", "score": 0.15, "reasoning": "r"}, {"argument_id": "opp_002", "score": -0.15, "reasoning": "r"}],
 "rescores": [{"argument_id": "prop_000c", "old_score": -0.0625, "new_score": 0.4375, "reasoning": "Just within."},
   {"argument_id": "opp_000b", "new_score": -0.45, "reasoning": "Far, without an old score."}]}`)),
	}
	replaySteps(t, py, ops, slug, start, steps)
}
