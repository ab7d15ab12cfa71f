package driver_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/moot-dev/moot/internal/testkit/storetest"

	driver "github.com/moot-dev/moot/internal/driver"
	"github.com/moot-dev/moot/internal/faults"
	"github.com/moot-dev/moot/statemachine/dialectic"
	"github.com/moot-dev/moot/store"
)

// The fault tests run each faulty step in a child process of this test
// binary, which arms the faults that MOOT_FAULT asks for: they count
// operations from the start of a process, and exit:N ends it.
const (
	childDir  = "MOOT_TEST_CHILD_DIR"
	childStep = "MOOT_TEST_CHILD_STEP"
)

func TestMain(m *testing.M) {
	if dir := os.Getenv(childDir); dir != "" {
		faults.ArmFromEnv()
		os.Exit(runChild(dir, os.Getenv(childStep)))
	}
	os.Exit(m.Run())
}

// runChild performs one step on dir and exits 0 when it was committed.
func runChild(dir, step string) int {
	if err := runStep(dir, step); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}

// runStep performs one step on dir: "exchange" (the arguments of the
// current exchange) or "judge".
func runStep(dir, step string) error {
	d, err := storetest.OpenForWrite(dir, "test")
	if err != nil {
		return err
	}
	defer d.Close()
	deb, err := driver.Load(d)
	if err != nil {
		return err
	}
	e := deb.Header.State.Exchange
	switch step {
	case "exchange":
		_, err = driver.ProcessExchange(d, e, exchangeAnswers(dialectic.Prop, e), exchangeAnswers(dialectic.Opp, e))
	case "judge":
		_, err = driver.ProcessJudge(d, judgeAnswer(e, deb.Scores.Current()), fixedNow)
	default:
		err = fmt.Errorf("unknown step %q", step)
	}
	return err
}

func TestProcessSteps(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "demo")
	d, err := driver.Create(dir, "demo", dialectic.Motion{Text: "This house would test."})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	if ps := checkDir(t, dir); len(ps) != 0 {
		t.Fatalf("new debate: %v", ps)
	}

	res, err := driver.ProcessExchange(d, 0, openingAnswer(dialectic.Prop), openingAnswer(dialectic.Opp))
	if err != nil {
		t.Fatal(err)
	}
	if !res.Success || strings.Join(res.ArgumentID, " ") != strings.Join(dialectic.ExchangeIDs(0), " ") {
		t.Errorf("exchange result %+v", res)
	}
	deb, err := driver.Load(d)
	if err != nil {
		t.Fatal(err)
	}
	if deb.Header.State != (dialectic.State{Exchange: 0, Phase: dialectic.AwaitingJudgment}) || len(deb.Arguments) != 6 {
		t.Fatalf("after the opening: %+v, %d arguments", deb.Header.State, len(deb.Arguments))
	}
	if ps := checkDir(t, dir); len(ps) != 0 {
		t.Fatalf("after the opening: %v", ps)
	}

	res = judge(t, d, 0)
	out, _ := json.Marshal(res)
	want := `{"success":true,"argument_id":["prop_000a","prop_000b","prop_000c","opp_000a","opp_000b","opp_000c"],"score":[0.3,0.1,-0.2,0.1,-0.2,-0.1],"rescored":[],"warnings":[],"errors":[]}`
	if string(out) != want {
		t.Errorf("judge result\n%s\nwant\n%s", out, want)
	}
	for e := 1; e <= 3; e++ {
		if _, err := driver.ProcessExchange(d, e, rebuttalAnswer(dialectic.Prop, e), rebuttalAnswer(dialectic.Opp, e)); err != nil {
			t.Fatalf("exchange %d: %v", e, err)
		}
		res = judge(t, d, e)
		if ps := checkDir(t, dir); len(ps) != 0 {
			t.Fatalf("after exchange %d: %v", e, ps)
		}
	}
	// The last judgment rescored prop_001.
	out, _ = json.Marshal(res)
	if want := `{"success":true,"argument_id":["prop_003","opp_003"],"score":[0.15,-0.15],"rescored":["prop_001"],"warnings":[],"errors":[]}`; string(out) != want {
		t.Errorf("judge result\n%s\nwant\n%s", out, want)
	}
	deb, err = driver.Load(d)
	if err != nil {
		t.Fatal(err)
	}
	if deb.Header.State != (dialectic.State{Exchange: 4, Phase: dialectic.AwaitingArguments}) {
		t.Errorf("state %+v", deb.Header.State)
	}
	if got, want := deb.Header.Totals, dialectic.Cumulative(deb.Scores.Current()); got != want {
		t.Errorf("totals %+v, recomputed %+v", got, want)
	}
	r, _ := deb.Scores.Get("prop_001")
	if len(r.History) != 2 || r.History[1].TriggeredBy != "prop_003" || *r.History[1].PreviousScore != 0.15 || r.CurrentScore != 0.2 {
		t.Errorf("prop_001 scores %+v", r)
	}
	graph, err := d.ReadFile(dialectic.GraphFile)
	if err != nil || !strings.Contains(string(graph), "prop_003 -->|grounds attack| opp_002") {
		t.Errorf("graph: %v\n%s", err, graph)
	}
}

func TestResultJSON(t *testing.T) {
	tests := []struct {
		res  driver.Result
		want string
	}{
		{driver.Result{}, `{"success":false,"argument_id":[],"warnings":[],"errors":[]}`},
		{driver.Result{Success: true, ArgumentID: []string{"prop_001", "opp_001"}, Warnings: []string{"w"}}, `{"success":true,"argument_id":["prop_001","opp_001"],"warnings":["w"],"errors":[]}`},
		{driver.Result{Judge: true, Success: true, ArgumentID: []string{"prop_001"}, Score: []float64{0.5}}, `{"success":true,"argument_id":["prop_001"],"score":[0.5],"rescored":[],"warnings":[],"errors":[]}`},
		{driver.Result{Judge: true, Errors: []string{"<bad> & \"worse\""}}, `{"success":false,"argument_id":[],"score":[],"rescored":[],"warnings":[],"errors":["<bad> & \"worse\""]}`},
	}
	for _, tc := range tests {
		// As the command line prints it: no HTML escaping.
		out, err := tc.res.MarshalJSON()
		if err != nil || string(out) != tc.want {
			t.Errorf("got %s, %v\nwant %s", out, err, tc.want)
		}
	}
}

// TestResultJSONRefusesWhatJSONCannotHold checks that a result JSON cannot
// hold (a score that is not a number) is an error, not an object missing
// its score.
func TestResultJSONRefusesWhatJSONCannotHold(t *testing.T) {
	res := driver.Result{Judge: true, Success: true, ArgumentID: []string{"prop_001"}, Score: []float64{math.NaN()}}
	if out, err := res.MarshalJSON(); err == nil {
		t.Errorf("MarshalJSON = %s, want an error", out)
	}
}

func TestCreate(t *testing.T) {
	parent := t.TempDir()
	if _, err := driver.Create(filepath.Join(parent, "x"), "x", dialectic.Motion{Text: "  "}); err == nil {
		t.Error("created a debate with an empty motion")
	}
	if _, err := os.Stat(filepath.Join(parent, "x")); !errors.Is(err, os.ErrNotExist) {
		t.Error("a refused create left a directory")
	}
	d, err := driver.Create(filepath.Join(parent, "y"), "y", dialectic.Motion{Text: "M."})
	if err != nil {
		t.Fatal(err)
	}
	d.Close()
	before := snapshot(t, parent, false)
	if _, err := driver.Create(filepath.Join(parent, "y"), "y", dialectic.Motion{Text: "Other."}); err == nil {
		t.Error("created over an existing debate")
	}
	sameSnapshot(t, snapshot(t, parent, false), before)
	if _, isDir := before["y/arguments/"]; before["y/scores.json"] != "{}\n" || !isDir {
		t.Errorf("new debate files: %v", before)
	}
}

// TestRefusedStepsChangeNothing runs steps that must be refused and checks
// that every file stays byte for byte as it was.
func TestRefusedStepsChangeNothing(t *testing.T) {
	bad := func(m map[string]any, kv ...any) []byte {
		for i := 0; i < len(kv); i += 2 {
			m[kv[i].(string)] = kv[i+1]
		}
		return mustJSON(m)
	}
	rebuttal := func(side dialectic.Side) map[string]any {
		var m map[string]any
		json.Unmarshal(rebuttalAnswer(side, 1), &m)
		return m
	}
	judgment := func() map[string]any {
		var m map[string]any
		json.Unmarshal(judgeAnswer(1, nil), &m)
		return m
	}
	type step func(d *store.Dir) (driver.Result, error)
	exchange := func(e int, prop, opp []byte) step {
		return func(d *store.Dir) (driver.Result, error) { return driver.ProcessExchange(d, e, prop, opp) }
	}
	judgeWith := func(answer []byte) step {
		return func(d *store.Dir) (driver.Result, error) { return driver.ProcessJudge(d, answer, fixedNow) }
	}
	goodProp, goodOpp := rebuttalAnswer(dialectic.Prop, 1), rebuttalAnswer(dialectic.Opp, 1)
	tests := []struct {
		name    string
		judging bool // start at exchange 1 awaiting judgment, else awaiting arguments
		step    step
		msg     string
	}{
		{name: "bad JSON", step: exchange(1, []byte(`{"title": `), goodOpp), msg: "proposition: invalid JSON"},
		{name: "empty answer", step: exchange(1, goodProp, nil), msg: "opposition: the answer is empty"},
		{name: "opening shape in a rebuttal", step: exchange(1, openingAnswer(dialectic.Prop), goodOpp), msg: "not an array of 3"},
		{name: "wrong exchange, later", step: exchange(2, rebuttalAnswer(dialectic.Prop, 2), rebuttalAnswer(dialectic.Opp, 2)), msg: "arguments for exchange 2 refused"},
		{name: "wrong exchange, earlier", step: exchange(0, openingAnswer(dialectic.Prop), openingAnswer(dialectic.Opp)), msg: "arguments for exchange 0 refused"},
		{name: "judgment while awaiting arguments", step: judgeWith(judgeAnswer(1, nil)), msg: "a judgment refused"},
		{name: "attack on own side", step: exchange(1, bad(rebuttal(dialectic.Prop), "attacks", []map[string]any{{"target_id": "prop_000b", "attack_type": "claim_attack", "content": "x"}}), goodOpp), msg: "you can only attack an opponent's"},
		{name: "attack on the same exchange", step: exchange(1, goodProp, bad(rebuttal(dialectic.Opp), "attacks", []map[string]any{{"target_id": "prop_001", "attack_type": "claim_attack", "content": "x"}})), msg: "not from an earlier exchange"},
		{name: "missing field", step: exchange(1, bad(rebuttal(dialectic.Prop), "warrant", nil), goodOpp), msg: "warrant: is required"},
		{name: "arguments while awaiting judgment", judging: true, step: exchange(1, goodProp, goodOpp), msg: "arguments for exchange 1 refused"},
		{name: "next arguments while awaiting judgment", judging: true, step: exchange(2, rebuttalAnswer(dialectic.Prop, 2), rebuttalAnswer(dialectic.Opp, 2)), msg: "refused"},
		{name: "judgment not JSON", judging: true, step: judgeWith([]byte("prop wins")), msg: "not JSON"},
		{name: "judgment not zero-sum", judging: true, step: judgeWith(mustJSON(map[string]any{"scores": []map[string]any{{"argument_id": "prop_001", "score": 0.5, "reasoning": "r"}, {"argument_id": "opp_001", "score": -0.3, "reasoning": "r"}}})), msg: "sum to 0.2"},
		{name: "judgment missing a score", judging: true, step: judgeWith(mustJSON(map[string]any{"scores": []map[string]any{{"argument_id": "prop_001", "score": 0, "reasoning": "r"}}})), msg: "missing scores for opp_001"},
		{name: "judgment with a huge score", judging: true, step: judgeWith([]byte(`{"scores": [{"argument_id": "prop_001", "score": 1e999, "reasoning": "r"}, {"argument_id": "opp_001", "score": 0, "reasoning": "r"}]}`)), msg: "must be a finite number"},
		{name: "rescore too far", judging: true, step: judgeWith(bad(judgment(), "rescores", []map[string]any{{"argument_id": "opp_000a", "new_score": 0.9, "reasoning": "r"}})), msg: "a rescore moves at most 0.5"},
		{name: "answer over 1 MiB", step: exchange(1, goodProp, append(bytes.Clone(goodOpp), bytes.Repeat([]byte(" "), driver.MaxAnswerSize)...)), msg: "the opposition's answer is"},
		{name: "judgment over 1 MiB", judging: true, step: judgeWith(append(judgeAnswer(1, nil), bytes.Repeat([]byte("\n"), driver.MaxAnswerSize)...)), msg: "over the 1048576-byte (1 MiB) limit"},
		{name: "rescore of the current exchange", judging: true, step: judgeWith(bad(judgment(), "rescores", []map[string]any{{"argument_id": "opp_001", "new_score": 0, "reasoning": "r"}})), msg: "only arguments of earlier exchanges"},
	}
	// Build each starting point once; every case works on a copy.
	arguing, judging := newDebate(t, t.TempDir(), 1, false), newDebate(t, t.TempDir(), 1, true)
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := copyOf(t, arguing)
			if tc.judging {
				dir = copyOf(t, judging)
			}
			before := snapshot(t, dir, false)
			d := openDir(t, dir)
			res, err := tc.step(d)
			var refused *driver.Refused
			if !errors.As(err, &refused) {
				t.Fatalf("error %v (%T), want *engine.Refused", err, err)
			}
			if res.Success || len(res.Errors) == 0 {
				t.Errorf("result %+v", res)
			}
			if !strings.Contains(err.Error(), tc.msg) || !strings.Contains(strings.Join(res.Errors, "\n"), tc.msg) {
				t.Errorf("error %q / result errors %q lack %q", err, res.Errors, tc.msg)
			}
			sameSnapshot(t, snapshot(t, dir, false), before)
		})
	}
}

// TestBrokenDebateRefused checks that a step on a debate whose files do not
// parse fails with the file named and writes nothing.
func TestBrokenDebateRefused(t *testing.T) {
	template := newDebate(t, t.TempDir(), 1, false)
	for _, tc := range []struct{ file, content, msg string }{
		{"debate.md", "# Motion\n\nNo state.\n", "debate.md"},
		{"scores.json", "[]", "scores.json"},
		{"arguments/opp_000b.md", "{\n  \"id\": \"opp_000c\"\n}\n", "arguments/opp_000b.md"},
	} {
		t.Run(tc.file, func(t *testing.T) {
			dir := copyOf(t, template)
			os.WriteFile(filepath.Join(dir, filepath.FromSlash(tc.file)), []byte(tc.content), 0o644)
			before := snapshot(t, dir, false)
			d := openDir(t, dir)
			res, err := driver.ProcessExchange(d, 1, rebuttalAnswer(dialectic.Prop, 1), rebuttalAnswer(dialectic.Opp, 1))
			if err == nil || res.Success || !strings.Contains(err.Error(), tc.msg) {
				t.Errorf("error %v, want one naming %s", err, tc.msg)
			}
			sameSnapshot(t, snapshot(t, dir, false), before)
		})
	}
}

func TestWarningsReported(t *testing.T) {
	dir := newDebate(t, t.TempDir(), 1, false)
	d := openDir(t, dir)
	var m map[string]any
	json.Unmarshal(rebuttalAnswer(dialectic.Opp, 1), &m)
	m["title"] = "Short"
	m["mood"] = "confident"
	res, err := driver.ProcessExchange(d, 1, rebuttalAnswer(dialectic.Prop, 1), mustJSON(m))
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(res.Warnings, "\n"); !strings.Contains(got, "opposition: title: 1 word,") || !strings.Contains(got, `opposition: ignored unknown key "mood"`) {
		t.Errorf("warnings %q", res.Warnings)
	}
	// The unknown key is kept out of the file.
	data, _ := d.ReadFile(dialectic.ArgumentFile("opp_001"))
	if strings.Contains(string(data), "mood") || strings.Contains(string(data), "confident") {
		t.Errorf("unknown key written:\n%s", data)
	}
}

// TestFaults injects a fault at every write operation of a step in turn,
// both as an error (fail:N) and as a killed process (exit:N). Before the
// journal is written the debate must be byte for byte as it was, and the
// step can be retried; after, every reader must see the completed step,
// Check must accept it, a retry must be refused without writing, and the
// next writer's Recover must leave the same files as an unbroken step.
func TestFaults(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the test binary once per write operation; skipped with -short")
	}
	for _, step := range []string{"exchange", "judge"} {
		t.Run(step, func(t *testing.T) {
			t.Parallel()
			template := newDebate(t, t.TempDir(), 1, step == "judge")
			before := snapshot(t, template, false)

			// The step without a fault, for reference.
			ref := copyOf(t, template)
			if err := runStep(ref, step); err != nil {
				t.Fatalf("reference step: %v", err)
			}
			want := snapshot(t, ref, false)
			wantRaw := readRaw(t, ref)

			for _, mode := range []string{"fail", "exit"} {
				sawOld, sawNew := false, false
				for n := 1; ; n++ {
					if n > 100 {
						t.Fatal("the step never completed")
					}
					dir := copyOf(t, template)
					code, out := child(t, dir, step, fmt.Sprintf("%s:%d", mode, n))
					if code == 0 {
						// n is past the step's last operation.
						sameSnapshot(t, snapshot(t, dir, false), want)
						if !sawOld || !sawNew {
							t.Errorf("%s: no fault left the old state (%v) or the journal (%v)", mode, sawOld, sawNew)
						}
						break
					}
					if mode == "fail" && (code != 1 || !strings.Contains(out, "injected fault")) {
						t.Fatalf("%s:%d: exit %d: %s", mode, n, code, out)
					}
					if mode == "exit" && code != 137 {
						t.Fatalf("%s:%d: exit %d, want 137: %s", mode, n, code, out)
					}
					d := readDir(t, dir)
					if !d.Pending() {
						sawOld = true
						// Nothing changed; a killed writer may leave a hidden
						// temporary file, which no reader looks at.
						sameSnapshot(t, snapshot(t, dir, mode == "exit"), before)
						if err := runStep(dir, step); err != nil {
							t.Fatalf("%s:%d: retry: %v", mode, n, err)
						}
						sameSnapshot(t, snapshot(t, dir, true), want)
						continue
					}
					sawNew = true
					raw, err := driver.ReadRaw(d)
					if err != nil {
						t.Fatal(err)
					}
					if ps := dialectic.Check(raw).Problems; len(ps) != 0 {
						t.Errorf("%s:%d: Check: %v", mode, n, ps)
					}
					sameRaw(t, raw, wantRaw)
					// Retrying the step first completes the recorded one
					// (every writer does), then is refused, as it is done.
					var refused *driver.Refused
					if err := runStep(dir, step); !errors.As(err, &refused) {
						t.Errorf("%s:%d: retry: %v, want a refusal", mode, n, err)
					}
					sameSnapshot(t, snapshot(t, dir, true), want)
				}
			}
		})
	}
}

// child runs one step of dir in a child process with MOOT_FAULT set to
// fault, and returns its exit code and output. (This process never sets
// MOOT_FAULT, so the steps it runs itself have no faults.)
func child(t *testing.T, dir, step, fault string) (int, string) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	// A race-enabled binary sleeps a second on exit unless told not to.
	gorace := strings.TrimSpace(os.Getenv("GORACE") + " atexit_sleep_ms=0")
	cmd.Env = append(os.Environ(), childDir+"="+dir, childStep+"="+step, faults.Env+"="+fault, "GORACE="+gorace)
	out, err := cmd.CombinedOutput()
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return ee.ExitCode(), string(out)
	}
	if err != nil {
		t.Fatal(err)
	}
	return 0, string(out)
}

func readRaw(t *testing.T, dir string) dialectic.Raw {
	t.Helper()
	d := openDir(t, dir)
	raw, err := driver.ReadRaw(d)
	if err != nil {
		t.Fatal(err)
	}
	return raw
}

func sameRaw(t *testing.T, got, want dialectic.Raw) {
	t.Helper()
	if string(got.Header) != string(want.Header) {
		t.Errorf("debate.md reads\n%s\nwant\n%s", got.Header, want.Header)
	}
	if string(got.Scores) != string(want.Scores) {
		t.Errorf("scores.json reads\n%s\nwant\n%s", got.Scores, want.Scores)
	}
	if len(got.Arguments) != len(want.Arguments) {
		t.Errorf("%d argument files, want %d", len(got.Arguments), len(want.Arguments))
	}
	for name, data := range want.Arguments {
		if string(got.Arguments[name]) != string(data) {
			t.Errorf("arguments/%s reads differently", name)
		}
	}
}

// TestFailureResult checks the result object of a failed step: the same
// keys as on success, argument_id, score and rescored empty lists, and each
// problem of a broken debate its own entry in errors.
func TestFailureResult(t *testing.T) {
	dir := newDebate(t, t.TempDir(), 1, false)
	// Two problems: two argument files that scores.json and debate.md need.
	for _, id := range []string{"prop_000a", "opp_000b"} {
		if err := os.Remove(filepath.Join(dir, dialectic.ArgumentFile(id))); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		name string
		step func(d *store.Dir) (driver.Result, error)
		want string
	}{
		{"exchange", func(d *store.Dir) (driver.Result, error) {
			return driver.ProcessExchange(d, 1, rebuttalAnswer(dialectic.Prop, 1), rebuttalAnswer(dialectic.Opp, 1))
		}, `{"success":false,"argument_id":[],"warnings":[],"errors":[`},
		{"judgment", func(d *store.Dir) (driver.Result, error) {
			return driver.ProcessJudge(d, judgeAnswer(1, nil), fixedNow)
		}, `{"success":false,"argument_id":[],"score":[],"rescored":[],"warnings":[],"errors":[`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d := openDir(t, dir)
			res, err := tc.step(d)
			var broken *driver.Broken
			if !errors.As(err, &broken) {
				t.Fatalf("error %v, want a broken debate", err)
			}
			if len(res.Errors) != len(broken.Problems) || len(res.Errors) < 2 {
				t.Errorf("errors %q, want one entry per problem of %d", res.Errors, len(broken.Problems))
			}
			for _, e := range res.Errors {
				if strings.Contains(e, "\n") {
					t.Errorf("error %q holds several lines", e)
				}
			}
			out, err := json.Marshal(res)
			if err != nil || !strings.HasPrefix(string(out), tc.want) {
				t.Errorf("result %s, %v\nwant it to start %s", out, err, tc.want)
			}
		})
	}
}
