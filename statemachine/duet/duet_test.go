package duet

import (
	"errors"
	"regexp"
	"slices"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	sm "github.com/moot-dev/moot/statemachine"
)

var now = time.Date(2025, 1, 1, 12, 0, 0, 0, time.UTC)

// files is a debate's files in memory.
type files fstest.MapFS

func (f files) write(c *sm.Commit) {
	for _, file := range c.Files {
		f[file.Name] = &fstest.MapFile{Data: file.Data}
	}
}

func (f files) load(t *testing.T) *debate {
	t.Helper()
	d, err := Protocol{}.Load(fstest.MapFS(f))
	if err != nil {
		t.Fatal(err)
	}
	return d.(*debate)
}

// newDebate makes a debate of rounds rounds on a motion.
func newDebate(t *testing.T, rounds string) files {
	t.Helper()
	out, err := Protocol{}.New(sm.NewInput{Motion: "Tea is better than coffee.", Values: map[string][]string{"rounds": {rounds}}})
	if err != nil {
		t.Fatal(err)
	}
	f := files{}
	f.write(&sm.Commit{Files: out})
	return f
}

// answer answers every call of step by the built-in model's script, as
// mended after a repair when repaired is set.
func answer(t *testing.T, step *sm.Step, repaired bool) map[string]sm.Answer {
	t.Helper()
	answers := map[string]sm.Answer{}
	for _, c := range step.Calls {
		text, err := Protocol{}.Script(sm.ScriptCall{Role: c.Role, Messages: c.Messages, Repair: repaired})
		if err != nil {
			t.Fatal(err)
		}
		answers[c.ID] = sm.Answer{Text: []byte(text), Model: "m"}
	}
	return answers
}

// play takes steps of the debate in f until load says it has none, each
// answered by the script after a repair.
func play(t *testing.T, f files, load func() sm.Debate) {
	t.Helper()
	for range 50 {
		step, err := load().Next()
		if err != nil {
			t.Fatal(err)
		}
		if step == nil {
			return
		}
		c, err := step.Apply(answer(t, step, true), now)
		if err != nil {
			t.Fatalf("step %s: %v", step.Key, err)
		}
		f.write(c)
	}
	t.Fatal("the debate took 50 steps and did not end")
}

func TestNewRefusesBadInput(t *testing.T) {
	tests := []struct {
		name, motion, rounds, flag, want string
	}{
		{"no rounds", "Tea.", "0", "rounds", `"0" is not a whole number from 1 to 9`},
		{"too many rounds", "Tea.", "10", "rounds", `"10" is not a whole number from 1 to 9`},
		{"rounds not a number", "Tea.", "two", "rounds", `"two" is not a whole number`},
		{"an empty motion", "  ", "2", "", "the motion is empty"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Protocol{}.New(sm.NewInput{Motion: tt.motion, Values: map[string][]string{"rounds": {tt.rounds}}})
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("New = %v, want an error saying %q", err, tt.want)
			}
			var ie *sm.InputError
			if tt.flag != "" && (!errors.As(err, &ie) || ie.Flag != tt.flag) {
				t.Errorf("the error %v does not name --%s", err, tt.flag)
			}
		})
	}
}

func TestParseScores(t *testing.T) {
	tests := []struct {
		name, answer string
		pro, con     int
		errs         []string
	}{
		{"as asked", `{"pro": {"score": 7, "reason": "clear"}, "con": {"score": 3, "reason": "thin"}}`, 7, 3, nil},
		{"fenced, with a whole number written 6.0", "Here:\n```json\n{\"pro\": {\"score\": 6.0, \"reason\": \"a\"}, \"con\": {\"score\": 0, \"reason\": \"b\"}}\n```", 6, 0, nil},
		{"a score out of range", `{"pro": {"score": 11, "reason": "a"}, "con": {"score": 5, "reason": "b"}}`, 0, 0,
			[]string{"pro.score: 11 is not a whole number from 0 to 10"}},
		{"a score with a fraction", `{"pro": {"score": 6.5, "reason": "a"}, "con": {"score": 5, "reason": "b"}}`, 0, 0,
			[]string{"pro.score: 6.5 is not a whole number from 0 to 10"}},
		{"a side left out and a reason empty", `{"pro": {"score": 6, "reason": " "}}`, 0, 0,
			[]string{"pro.reason: is empty: say in a sentence why pro's statement earns its score", "con: is missing: score con's statement too"}},
		{"no JSON", `pro wins`, 0, 0, []string{`the answer holds no JSON object: answer with {"pro": {"score": N, "reason": "..."}, "con": {"score": N, "reason": "..."}}`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v, errs := parseScores([]byte(tt.answer))
			if !slices.Equal(errs, tt.errs) {
				t.Fatalf("errors = %q, want %q", errs, tt.errs)
			}
			if tt.errs == nil && (v.Pro.Score != tt.pro || v.Con.Score != tt.con) {
				t.Errorf("scores = %d and %d, want %d and %d", v.Pro.Score, v.Con.Score, tt.pro, tt.con)
			}
		})
	}
}

func TestCheckStatement(t *testing.T) {
	tests := []struct {
		name, text, want string
	}{
		{"a statement", "Tea calms.", ""},
		{"empty", " \n", "the statement is empty"},
		{"too long", strings.Repeat("word ", 2*words+1), "the statement is 301 words long, over the 300 a statement may have: shorten it to at most 150 words"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rep := checkStatement([]byte(tt.text))
			if got := strings.Join(rep.Errors, "; "); !strings.HasPrefix(got, tt.want) || (tt.want == "") != (got == "") {
				t.Errorf("errors = %q, want %q", got, tt.want)
			}
		})
	}
}

// TestADebateToItsEnd plays a debate by the script: every round spoken
// then judged, the totals the sum of the verdicts, the files consistent.
func TestADebateToItsEnd(t *testing.T) {
	f := newDebate(t, "3")
	play(t, f, func() sm.Debate { return f.load(t) })
	d := f.load(t)
	st := d.Status()
	if !st.Complete || st.Done != 3 || st.Total != 3 {
		t.Fatalf("status = %+v, want 3 of 3 rounds, complete", st)
	}
	if fs := d.Check(); len(fs.Problems) > 0 {
		t.Fatalf("the debate has problems: %v", fs.Problems)
	}
	sum := map[string]int{}
	for r := 1; r <= 3; r++ {
		sum[Pro] += d.verdicts[r].Pro.Score
		sum[Con] += d.verdicts[r].Con.Score
	}
	if sum[Pro] != d.st.Totals[Pro] || sum[Con] != d.st.Totals[Con] {
		t.Errorf("totals = %v, want the sum of the verdicts %v", d.st.Totals, sum)
	}
	if got := len(d.Judgments().Items); got != 6 {
		t.Errorf("the judgments have %d items, want a statement a side a round: 6", got)
	}
}

// TestStepsAreParallelAndPrivate checks the shape of a round: one step of
// two calls, then one of the judge, who reads both statements quoted.
func TestStepsAreParallelAndPrivate(t *testing.T) {
	f := newDebate(t, "1")
	step, err := f.load(t).Next()
	if err != nil {
		t.Fatal(err)
	}
	if len(step.Calls) != 2 || step.Calls[0].Role != Pro || step.Calls[1].Role != Con {
		t.Fatalf("round 1 asks %d calls, want pro's and con's together", len(step.Calls))
	}
	answers := map[string]sm.Answer{Pro: {Text: []byte("Tea <<<calms>>>.")}, Con: {Text: []byte("Coffee wakes.")}}
	c, err := step.Apply(answers, now)
	if err != nil {
		t.Fatal(err)
	}
	if last := c.Files[len(c.Files)-1].Name; last != sm.StateFile {
		t.Errorf("the commit writes %s last, want the state file", last)
	}
	f.write(c)
	judge, err := f.load(t).Next()
	if err != nil {
		t.Fatal(err)
	}
	if len(judge.Calls) != 1 || judge.Calls[0].Schema == nil {
		t.Fatalf("the judge's step = %+v, want one call with a schema", judge.Calls)
	}
	prompt := judge.Calls[0].Messages[1].Content
	if !strings.Contains(prompt, "Tea << <calms>> >.") || strings.Contains(prompt, "<<<calms") {
		t.Errorf("the judge's prompt does not quote pro's statement with its fences broken:\n%s", prompt)
	}
}

func TestApplyRefusesABrokenAnswer(t *testing.T) {
	f := newDebate(t, "1")
	step, _ := f.load(t).Next()
	_, err := step.Apply(map[string]sm.Answer{Pro: {Text: []byte("Tea.")}, Con: {Text: []byte(" ")}}, now)
	var r *sm.Refused
	if !errors.As(err, &r) || r.Role != Con || !r.Answer {
		t.Fatalf("Apply = %v, want con's answer refused", err)
	}
}

// TestCheckFindsProblems edits a complete debate's files by hand and
// checks that each edit is found, naming the file.
func TestCheckFindsProblems(t *testing.T) {
	tests := []struct {
		name string
		edit func(f files)
		file string
		want string
	}{
		{"a total changed", func(f files) {
			f[sm.StateFile].Data = regexp.MustCompile(`"pro": [0-9]+`).ReplaceAll(f[sm.StateFile].Data, []byte(`"pro": 99`))
		}, sm.StateFile, "totals.pro is 99, but the verdicts give pro "},
		{"a verdict removed", func(f files) { delete(f, "rounds/r02-judge.md") }, "rounds/r02-judge.md", "is missing: round 2 was judged"},
		{"a statement removed", func(f files) { delete(f, "rounds/r01-con.md") }, "rounds/r01-con.md", "is missing: round 1 was spoken"},
		{"a file that is no round's", func(f files) { f["rounds/notes.md"] = &fstest.MapFile{Data: []byte("x")} }, "rounds/notes.md", "is no file of a round"},
		{"a score out of range", func(f files) {
			d := f["rounds/r01-judge.md"]
			d.Data = []byte(strings.Replace(string(d.Data), `"score": `, `"score": 1`, 1))
		}, "rounds/r01-judge.md", "not a whole number from 0 to 10"},
		// The judges' folders, as every protocol's are checked.
		{"a file that is no judge's", func(f files) { f["judgments/other/notes.md"] = &fstest.MapFile{Data: []byte("x")} },
			"judgments/other/notes.md", "is not a file of a judge's folder, which holds judge.json and rNN.md"},
		{"a judge's round without its record", func(f files) { f["judgments/other/r01.md"] = &fstest.MapFile{Data: f["rounds/r01-judge.md"].Data} },
			"judgments/other/judge.json", "is missing: judgments/other holds the judge's r01.md"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newDebate(t, "2")
			play(t, f, func() sm.Debate { return f.load(t) })
			tt.edit(f)
			d, err := Protocol{}.Load(fstest.MapFS(f))
			if err != nil {
				if tt.file == "" || !strings.Contains(err.Error(), tt.want) {
					t.Fatalf("Load: %v", err)
				}
				return
			}
			probs := d.Check().Problems
			if !slices.ContainsFunc(probs, func(p sm.Problem) bool {
				return (tt.file == "" || p.File == tt.file) && strings.Contains(p.Message, tt.want)
			}) {
				t.Errorf("Check = %v, want a problem of %s saying %q", probs, tt.file, tt.want)
			}
		})
	}
}

// TestRejudge judges a debate again from round 2: only the judge's folder
// is written, its record with the first commit alone, and a folder another
// model judged in is refused.
func TestRejudge(t *testing.T) {
	f := newDebate(t, "3")
	play(t, f, func() sm.Debate { return f.load(t) })
	before := len(f)
	rj := sm.Rejudging{Judge: sm.Judge{Name: "other", Model: "m2"}, From: 2, To: -1}
	var records int
	for range 10 {
		view, err := f.load(t).Rejudge(rj)
		if err != nil {
			t.Fatal(err)
		}
		step, err := view.Next()
		if err != nil {
			t.Fatal(err)
		}
		if step == nil {
			if st := view.Status(); !st.Complete || st.Done != 2 || st.Total != 2 {
				t.Errorf("status = %+v, want 2 of 2 rounds judged again", st)
			}
			break
		}
		if step.Calls[0].Model != "m2" {
			t.Errorf("the call asks %q, want the re-judging's model", step.Calls[0].Model)
		}
		c, err := step.Apply(answer(t, step, true), now)
		if err != nil {
			t.Fatal(err)
		}
		for _, file := range c.Files {
			if !strings.HasPrefix(file.Name, "judgments/other/") {
				t.Errorf("the re-judging writes %s, outside its folder", file.Name)
			}
			if file.Name == sm.JudgeRecordPath("other") {
				records++
			}
		}
		f.write(c)
	}
	if records != 1 {
		t.Errorf("the record was written %d times, want once, with the first commit", records)
	}
	if got := len(f) - before; got != 3 {
		t.Errorf("the re-judging wrote %d files, want its record and rounds 2 and 3", got)
	}
	d := f.load(t)
	if fs := d.Check(); len(fs.Problems) > 0 {
		t.Errorf("the debate has problems after the re-judging: %v", fs.Problems)
	}
	if js := d.Judgments().Judges; len(js) != 2 || js[1].Kind != sm.KindRejudge || len(js[1].Final) != 4 {
		t.Errorf("judges = %+v, want the official one and other, with 4 scores", js)
	}
	if _, err := d.Rejudge(sm.Rejudging{Judge: sm.Judge{Name: "other", Model: "m3"}, To: -1}); err == nil || !strings.Contains(err.Error(), "was judged by m2, not m3") {
		t.Errorf("Rejudge by another model into other's folder = %v, want it refused", err)
	}
	if _, err := d.Rejudge(sm.Rejudging{Judge: sm.Judge{Name: "late", Model: "m3"}, From: 4, To: -1}); err == nil {
		t.Error("Rejudge from round 4 of 3 was accepted")
	}
}

// TestScriptNeedsNoWording checks that the built-in model answers every
// role of a prompt that says neither motion nor round, as a template a
// user reworded may not, with an answer its call accepts.
func TestScriptNeedsNoWording(t *testing.T) {
	msgs := []sm.Message{{Role: "system", Content: "Argue."}, {Role: "user", Content: "Go on."}}
	for _, role := range []string{Pro, Con} {
		text, err := Protocol{}.Script(sm.ScriptCall{Role: role, Messages: msgs})
		if err != nil || !checkStatement([]byte(text)).OK() {
			t.Errorf("%s's scripted statement = %q, %v, want one its call accepts", role, text, err)
		}
	}
	text, err := Protocol{}.Script(sm.ScriptCall{Role: Judge, Messages: msgs})
	if _, errs := parseScores([]byte(text)); err != nil || len(errs) > 0 {
		t.Errorf("the scripted scores = %q, %v %v, want scores the judge's call accepts", text, err, errs)
	}
	if _, err := (Protocol{}).Script(sm.ScriptCall{Role: "referee", Messages: msgs}); err == nil {
		t.Error("the script answered a role duet does not have")
	}
}
