package statemachine_test

import (
	"reflect"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/moot-dev/moot/internal/frontmatter"
	sm "github.com/moot-dev/moot/statemachine"
)

func TestReadBench(t *testing.T) {
	front, _, err := frontmatter.Parse([]byte(`{"judges": [{"name": "a", "model": "m1"}, {"name": "b", "model": "m2"}]}` + "\n"))
	if err != nil {
		t.Fatal(err)
	}
	files := fstest.MapFS{
		"judgments/a/judge.json":    {Data: []byte(`{"name": "a", "model": "m1", "kind": "panel", "from": 1, "created": "x"}`)},
		"judgments/a/scores.json":   {Data: []byte(`{}`)},
		"judgments/new/scores.json": {Data: []byte(`{}`)},
		"judgments/notes.txt":       {Data: []byte("stray")},
	}
	b, err := sm.ReadBench(files, front)
	if err != nil {
		t.Fatal(err)
	}
	if want := []sm.Judge{{Name: "a", Model: "m1"}, {Name: "b", Model: "m2"}}; !reflect.DeepEqual(b.Panel, want) {
		t.Errorf("Panel = %v, want %v", b.Panel, want)
	}
	if !reflect.DeepEqual(b.Folders, []string{"a", "new"}) {
		t.Errorf("Folders = %v, want a and new (a folder without a record is still a folder)", b.Folders)
	}
	if len(b.Records) != 1 || b.Records["a"] == nil || b.Records["a"].From != 1 {
		t.Errorf("Records = %v, want a's alone", b.Records)
	}
	if !reflect.DeepEqual(b.Loose, []string{"notes.txt"}) {
		t.Errorf("Loose = %v, want notes.txt", b.Loose)
	}
	if want := map[string][]string{"a": {"judge.json", "scores.json"}, "new": {"scores.json"}}; !reflect.DeepEqual(b.Entries, want) {
		t.Errorf("Entries = %v, want %v", b.Entries, want)
	}

	read := map[string]*sm.JudgeRecord{}
	got, err := sm.EachFolder(b, func(name string, rec *sm.JudgeRecord) (string, error) {
		read[name] = rec
		return "folder " + name, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, map[string]string{"a": "folder a", "new": "folder new"}) || read["a"] != b.Records["a"] || read["new"] != nil {
		t.Errorf("EachFolder = %v, given records %v", got, read)
	}

	t.Run("bad panel", func(t *testing.T) {
		front, _, err := frontmatter.Parse([]byte(`{"judges": [{"name": "a", "model": "m1"}]}` + "\n"))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := sm.ReadBench(fstest.MapFS{}, front); err == nil || !strings.Contains(err.Error(), sm.StateFile) {
			t.Errorf("err = %v, want one naming %s", err, sm.StateFile)
		}
	})
	t.Run("no judgments", func(t *testing.T) {
		b, err := sm.ReadBench(fstest.MapFS{}, frontmatter.Object{})
		if err != nil || b.Panel != nil || len(b.Folders)+len(b.Records)+len(b.Loose) != 0 {
			t.Errorf("a debate without a panel or judgments/: %+v, %v", b, err)
		}
	})
}

// TestBenchProblems: the check of the judges' folders every protocol
// shares names the file and says what is wrong, whatever the protocol
// keeps in a folder (here, as refine does, score.json).
func TestBenchProblems(t *testing.T) {
	record := func(name, kind string) *fstest.MapFile {
		return &fstest.MapFile{Data: []byte(`{"name": "` + name + `", "model": "m", "kind": "` + kind + `", "from": 1, "created": "x"}`)}
	}
	sound := func() fstest.MapFS {
		return fstest.MapFS{
			"judgments/a/judge.json":     record("a", sm.KindPanel),
			"judgments/a/score.json":     {Data: []byte(`{}`)},
			"judgments/again/judge.json": record("again", sm.KindRejudge),
			"judgments/again/score.json": {Data: []byte(`{}`)},
		}
	}
	layout := sm.FolderLayout{Owns: func(n string) bool { return n == "score.json" }, Want: []string{"score.json"}}
	for _, tt := range []struct {
		name string
		edit func(fstest.MapFS)
		want []sm.Problem
	}{
		{"sound folders", func(fstest.MapFS) {}, nil},
		{"a file in no judge's folder", func(fs fstest.MapFS) { fs["judgments/notes.txt"] = &fstest.MapFile{} },
			[]sm.Problem{{File: "judgments/notes.txt", Message: "is not a judge's folder: judgments/ holds a folder per judge, named after it"}}},
		{"a folder no judge may be named", func(fs fstest.MapFS) { fs["judgments/Old/score.json"] = &fstest.MapFile{} },
			[]sm.Problem{{File: "judgments/Old", Message: `is not a judge's folder: judge name "Old" may hold only lower-case letters, digits, dots and dashes, and starts with a letter or digit`}}},
		{"a stray file and folder in a judge's folder", func(fs fstest.MapFS) {
			fs["judgments/a/notes.txt"] = &fstest.MapFile{}
			fs["judgments/a/old/score.json"] = &fstest.MapFile{}
		}, []sm.Problem{
			{File: "judgments/a/notes.txt", Message: "is not a file of a judge's folder, which holds judge.json and score.json"},
			{File: "judgments/a/old/", Message: "is not a file of a judge's folder, which holds judge.json and score.json"},
		}},
		{"an editor's backups and autosaves", func(fs fstest.MapFS) {
			fs["judgments/a/score.json~"] = &fstest.MapFile{}
			fs["judgments/a/#score.json#"] = &fstest.MapFile{}
			fs["judgments/notes.md~"] = &fstest.MapFile{}
		}, nil},
		{"a judge's files without its record", func(fs fstest.MapFS) { delete(fs, "judgments/a/judge.json") },
			[]sm.Problem{{File: "judgments/a/judge.json", Message: "is missing: judgments/a holds the judge's score.json"}}},
		{"a record without the judge's files, as a re-judging cut short leaves it", func(fs fstest.MapFS) { delete(fs, "judgments/again/score.json") }, nil},
		{"a re-judging in a panel judge's folder", func(fs fstest.MapFS) {
			fs["judgments/b/judge.json"], fs["judgments/b/score.json"] = record("b", sm.KindRejudge), &fstest.MapFile{}
		},
			[]sm.Problem{{File: "judgments/b/judge.json", Message: `kind is "rejudge", but debate.md names b as a judge of its panel (field "judges")`}}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			front, _, err := frontmatter.Parse([]byte(`{"judges": [{"name": "a", "model": "m"}, {"name": "b", "model": "m"}]}` + "\n"))
			if err != nil {
				t.Fatal(err)
			}
			files := sound()
			tt.edit(files)
			b, err := sm.ReadBench(files, front)
			if err != nil {
				t.Fatal(err)
			}
			if got := b.Problems(layout); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Problems =\n%v\nwant\n%v", got, tt.want)
			}
		})
	}
}

func TestSortedNames(t *testing.T) {
	m := map[string]int{"c": 3, "a": 1, "b": 2}
	if got := sm.SortedNames(m, nil); !reflect.DeepEqual(got, []string{"a", "b", "c"}) {
		t.Errorf("all: %v", got)
	}
	if got := sm.SortedNames(m, func(v int) bool { return v != 2 }); !reflect.DeepEqual(got, []string{"a", "c"}) {
		t.Errorf("kept: %v", got)
	}
}

func TestFirstRecord(t *testing.T) {
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	j := sm.Judge{Name: "gpt", Model: "openai/gpt"}
	kept := []sm.File{{Name: "x"}}
	got := sm.FirstRecord(kept, nil, j, sm.KindRejudge, 2, 4, now)
	if len(got) != 2 || got[1].Name != "judgments/gpt/judge.json" {
		t.Fatalf("a judge's first commit: %v, want x and its record", got)
	}
	var rec sm.JudgeRecord
	if err := frontmatter.Unmarshal(got[1].Data, &rec); err != nil {
		t.Fatal(err)
	}
	if rec.Name != j.Name || rec.Model != j.Model || rec.Kind != sm.KindRejudge || rec.From != 2 || rec.To == nil || *rec.To != 4 || rec.Created != "2026-01-02T03:04:05Z" {
		t.Errorf("record %+v", rec)
	}
	if got := sm.FirstRecord(kept, &rec, j, sm.KindRejudge, 2, 4, now); len(got) != 1 {
		t.Errorf("a judge with a record got another: %v", got)
	}
	open := sm.NewJudgeRecord(j, sm.KindPanel, 0, -1, now)
	if strings.Contains(string(open.Data), `"to"`) {
		t.Errorf("a record to the last unit names one: %s", open.Data)
	}
}

func TestRefusedAddJudge(t *testing.T) {
	var r sm.Refused
	r.AddJudge("judge", "a", []string{"no score"})
	r.AddJudge("judge", "b", []string{"bad winner", "too long"})
	if r.Role != "judge" || !reflect.DeepEqual(r.RoleReasons, []string{"no score"}) {
		t.Errorf("Role %q, RoleReasons %v: want the first judge's", r.Role, r.RoleReasons)
	}
	if want := []string{"judge a: no score", "judge b: bad winner", "judge b: too long"}; !reflect.DeepEqual(r.Reasons, want) {
		t.Errorf("Reasons = %v, want %v", r.Reasons, want)
	}
}

func TestPanelMissing(t *testing.T) {
	a := &sm.Missing{Call: "c", Answers: []sm.MissingAnswer{{Answer: "x", Problems: []string{"p1"}}}}
	b := &sm.Missing{Call: "c", Answers: []sm.MissingAnswer{{Answer: "y", Problems: []string{"p2", "p3"}}}}
	m := sm.PanelMissing("003/judge", "judge", "panel: m1, m2", []*sm.Missing{a.Of("judge a"), b.Of("judge b")})
	want := &sm.Missing{Call: "003/judge", Role: "judge", Model: "panel: m1, m2", Note: sm.MissingNote, Answers: []sm.MissingAnswer{
		{Answer: "x", Problems: []string{"judge a: p1"}},
		{Answer: "y", Problems: []string{"judge b: p2", "judge b: p3"}},
	}}
	if !reflect.DeepEqual(m, want) {
		t.Errorf("PanelMissing = %+v, want %+v", m, want)
	}
	if a.Answers[0].Problems[0] != "p1" {
		t.Errorf("Of changed the record it was given: %v", a.Answers)
	}
}

func TestCheckRejudgeSeat(t *testing.T) {
	r := sm.Rejudging{Judge: sm.Judge{Name: "x", Model: "m"}}
	panel := []sm.Judge{{Name: "x", Model: "m"}, {Name: "y", Model: "m"}}
	for _, tt := range []struct {
		name  string
		panel []sm.Judge
		rec   *sm.JudgeRecord
		want  string // "" for none
	}{
		{"new folder", nil, nil, ""},
		{"its own folder", nil, &sm.JudgeRecord{Name: "x", Model: "m", Kind: sm.KindRejudge}, ""},
		{"a panel judge's folder", nil, &sm.JudgeRecord{Name: "x", Model: "m", Kind: sm.KindPanel}, "judgments/x is the folder of a judge of the debate's panel"},
		{"another model's folder", nil, &sm.JudgeRecord{Name: "x", Model: "other", Kind: sm.KindRejudge}, "judgments/x was judged by other, not m"},
		{"a panel seat before its first commit", panel, nil, "judgments/x is the folder of a judge of the debate's panel"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			err := sm.CheckRejudgeSeat(r, tt.panel, tt.rec)
			if got := errText(err); got != tt.want {
				t.Errorf("CheckRejudgeSeat = %q, want %q", got, tt.want)
			}
			if tt.panel == nil {
				if got := errText(sm.CheckRejudgeRecord(r, tt.rec)); got != tt.want {
					t.Errorf("CheckRejudgeRecord = %q, want %q", got, tt.want)
				}
			}
		})
	}
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

func TestRejudgingSpan(t *testing.T) {
	for _, tt := range []struct {
		from, to, first, last int
		wantFrom, wantTo      int
	}{
		{0, -1, 1, 5, 1, 5},
		{3, -1, 1, 5, 3, 5},
		{2, 4, 0, 5, 2, 4},
		{2, 9, 0, 5, 2, 5},
		{7, -1, 0, 5, 7, 5}, // past the last: empty, the protocol says why
	} {
		r := sm.Rejudging{From: tt.from, To: tt.to}
		if from, to := r.Span(tt.first, tt.last); from != tt.wantFrom || to != tt.wantTo {
			t.Errorf("--from %d --to %d of %d to %d: %d to %d, want %d to %d", tt.from, tt.to, tt.first, tt.last, from, to, tt.wantFrom, tt.wantTo)
		}
	}
}

func TestRejudgeKey(t *testing.T) {
	if got := sm.RejudgeKey("gpt-4o", "r02"); got != "rejudge-gpt-4o-r02" {
		t.Errorf("RejudgeKey = %q", got)
	}
}

func TestStatusRetryMissing(t *testing.T) {
	st := sm.Status{Next: "m judges turn 3 again"}
	st.RetryMissing(2, "call")
	if st.Next != "m judges turn 3 again" {
		t.Errorf("a re-judging with work left: Next = %q", st.Next)
	}
	want := []sm.Line{{Label: "missing", Text: "2 calls, no value invented (moot rejudge --retry-missing asks again)"}}
	if !reflect.DeepEqual(st.Lines, want) {
		t.Errorf("Lines = %v, want %v", st.Lines, want)
	}
	done := sm.Status{Complete: true, Next: "nothing"}
	done.RetryMissing(1, "score")
	if done.Next != "nothing but the missing score: moot rejudge --retry-missing asks for it again" || done.Lines[0].Text != "1 score, no value invented (moot rejudge --retry-missing asks again)" {
		t.Errorf("a re-judging with only its gap left: Next = %q, Lines %v", done.Next, done.Lines)
	}
	two := sm.Status{Complete: true}
	if two.RetryMissing(2, "score"); two.Next != "nothing but the missing scores: moot rejudge --retry-missing asks for them again" {
		t.Errorf("a re-judging with only its gaps left: Next = %q", two.Next)
	}
}

// folder is a judge's folder as a protocol might read it.
type folder struct {
	rec   *sm.JudgeRecord
	score float64
}

func (f *folder) Seat() *sm.JudgeRecord { return f.rec }

func TestAddJudges(t *testing.T) {
	folders := map[string]*folder{
		"b":     {rec: &sm.JudgeRecord{Name: "b", Model: "mb", Kind: sm.KindRejudge}, score: 2},
		"a":     {rec: &sm.JudgeRecord{Name: "a", Model: "ma", Kind: sm.KindPanel}, score: 1},
		"early": {score: 9},
	}
	if sm.RecordOf(folders, "a") != folders["a"].rec || sm.RecordOf(folders, "early") != nil || sm.RecordOf(folders, "none") != nil {
		t.Error("RecordOf does not give each folder's record, nil for none")
	}
	var j sm.Judgments
	j.AddOfficial(sm.JudgeScores{Name: "debate", Kind: sm.KindOfficial}, false)
	sm.AddJudges(&j, folders, func(f *folder) sm.JudgeScores {
		return sm.JudgeScores{Final: map[string]float64{"x": f.score}}
	})
	var got []string
	for _, js := range j.Judges {
		got = append(got, js.Name+"/"+js.Model+"/"+js.Kind)
	}
	if want := []string{"debate//official", "a/ma/panel", "b/mb/rejudge"}; !reflect.DeepEqual(got, want) {
		t.Errorf("judges %v, want %v (the official first, then each recorded folder in name order)", got, want)
	}
	if j.Judges[1].Final["x"] != 1 || j.Judges[2].Final["x"] != 2 {
		t.Errorf("scores %v, %v", j.Judges[1].Final, j.Judges[2].Final)
	}
	var p sm.Judgments
	p.AddOfficial(sm.JudgeScores{Name: "panel"}, true)
	if p.Aggregate == nil || p.Aggregate.Kind != "aggregate" || len(p.Judges) != 0 {
		t.Errorf("a panel's official scores: %+v", p)
	}
}

func TestPanelCalls(t *testing.T) {
	base := sm.Call{ID: "moderator", Role: "moderator", Model: "house", Kind: "score"}
	panel := []sm.Judge{{Name: "a", Model: "ma"}, {Name: "b", Model: "mb"}}
	calls := sm.PanelCalls(base, "moderator", panel)
	if len(calls) != 2 {
		t.Fatalf("%d calls, want one a judge", len(calls))
	}
	for k, c := range calls {
		if c.ID != "moderator-"+panel[k].Name || c.Model != panel[k].Model || !c.Missable || c.Role != "moderator" || c.Kind != "score" {
			t.Errorf("call %d: %+v", k, c)
		}
	}
	if base.ID != "moderator" || base.Model != "house" || base.Missable {
		t.Errorf("the base call changed: %+v", base)
	}
	if c := base.AskedOf("moderator", panel[1]); c.ID != "moderator-b" || c.Model != "mb" || c.Missable {
		t.Errorf("AskedOf = %+v", c)
	}
}

// TestRejudgingStep: a re-judging's step is keyed after the debate's, asks
// the call it is given, and commits what apply makes of the answer, with
// the judge's record first when its folder has none yet; a refusal keeps
// apply's commit (its warnings) and adds no record.
func TestRejudgingStep(t *testing.T) {
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	r := sm.Rejudging{Judge: sm.Judge{Name: "again", Model: "m"}, From: 2, To: -1}
	own := sm.File{Name: "judgments/again/r03.md", Data: []byte("x")}
	apply := func(a sm.Answer, _ time.Time) (*sm.Commit, error) {
		if string(a.Text) == "bad" {
			return &sm.Commit{Warnings: []string{"w"}}, &sm.Refused{Reasons: []string{"bad"}}
		}
		return &sm.Commit{Files: []sm.File{own}}, nil
	}
	c := sm.Call{ID: "judge", Model: "m"}
	first := r.Step("r03", 3, c, nil, 2, apply)
	if first.Key != "rejudge-again-r03" || first.Unit != 3 || len(first.Calls) != 1 || first.Calls[0].ID != "judge" {
		t.Fatalf("step %+v", first)
	}
	cm, err := first.Apply(map[string]sm.Answer{"judge": {Text: []byte("ok")}}, now)
	if err != nil || len(cm.Files) != 2 || cm.Files[0].Name != "judgments/again/judge.json" || cm.Files[1].Name != own.Name {
		t.Fatalf("first commit %v, %v: want the record, then the judge's file", cm, err)
	}
	var rec sm.JudgeRecord
	if err := frontmatter.Unmarshal(cm.Files[0].Data, &rec); err != nil || rec.Kind != sm.KindRejudge || rec.From != 2 || rec.To != nil {
		t.Errorf("record %+v, %v: want a re-judging's from unit 2 to the last", rec, err)
	}
	if cm, err := first.Apply(map[string]sm.Answer{"judge": {Text: []byte("bad")}}, now); err == nil || cm == nil || len(cm.Warnings) != 1 || len(cm.Files) != 0 {
		t.Errorf("a refused answer: %v, %v; want apply's warnings, no record and the refusal", cm, err)
	}
	if _, err := first.Apply(map[string]sm.Answer{"other": {}}, now); err == nil {
		t.Error("a step without the judge's answer was applied")
	}
	later := r.Step("r04", 4, c, &rec, 2, apply)
	if cm, err := later.Apply(map[string]sm.Answer{"judge": {Text: []byte("ok")}}, now); err != nil || len(cm.Files) != 1 {
		t.Errorf("a later commit %v, %v: want the judge's file alone", cm, err)
	}
}

// TestPanelRefill: the step that asks a panel's judge again for its
// missing answer asks that judge alone, on its model, under its call's
// ID, may go missing again, and gives apply the judge's answer.
func TestPanelRefill(t *testing.T) {
	j := sm.Judge{Name: "b", Model: "mb"}
	var got sm.Answer
	step := sm.PanelRefill("006-score", 2, sm.Call{ID: "judge", Model: "official"}, "judge", j, func(a sm.Answer, _ time.Time) (*sm.Commit, error) {
		got = a
		return &sm.Commit{}, nil
	})
	if step.Key != "006-score" || step.Unit != 2 || len(step.Calls) != 1 {
		t.Fatalf("step %+v", step)
	}
	if c := step.Calls[0]; c.ID != sm.PanelCallID("judge", "b") || c.Model != "mb" || !c.Missable {
		t.Errorf("call %+v: want judge b's, on its model, missable", c)
	}
	if _, err := step.Apply(map[string]sm.Answer{sm.PanelCallID("judge", "b"): {Text: []byte("again")}}, time.Time{}); err != nil || string(got.Text) != "again" {
		t.Errorf("apply had %q, %v: want judge b's answer", got.Text, err)
	}
	if _, err := step.Apply(map[string]sm.Answer{"judge": {}}, time.Time{}); err == nil || !strings.Contains(err.Error(), "judge b") {
		t.Errorf("a step without judge b's answer: %v", err)
	}
}
