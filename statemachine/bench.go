package statemachine

import (
	"fmt"
	"io/fs"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/moot-dev/moot/internal/english"
	"github.com/moot-dev/moot/internal/frontmatter"
)

// The bookkeeping every protocol with a panel of judges shares: reading
// the panel and the judges' folders, naming a panel judge's call,
// recording a judge's first commit, refusing a panel's answers judge by
// judge, the record of a panel's call no judge answered (--keep-going),
// the checks of a re-judging, and the listing of the judges'
// scores. Each protocol keeps only what its judges answer and how the
// panel's answers make the official one.

// Bench is the judges of a debate as read: the panel its state file
// names, the record of every judge's folder that has one, the names of
// all the folders under JudgmentsDir and of what each holds, and of the
// files there, which are in no judge's folder.
type Bench struct {
	Panel   []Judge
	Records map[string]*JudgeRecord
	Folders []string
	// Entries holds, by folder, the names of the files and folders
	// directly in it, sorted, a folder's ending in "/".
	Entries map[string][]string
	Loose   []string
}

// ReadBench reads the panel of the state file's frontmatter front and the
// folders under JudgmentsDir of files. A panel or a record that does not
// parse is an error naming its file.
func ReadBench(files fs.FS, front frontmatter.Object) (Bench, error) {
	panel, err := PanelOf(front)
	if err != nil {
		return Bench{}, fmt.Errorf("read %s: %w", StateFile, err)
	}
	records, err := ReadJudgeRecords(files)
	if err != nil {
		return Bench{}, err
	}
	folders, err := Folders(files, JudgmentsDir)
	if err != nil {
		return Bench{}, fmt.Errorf("read %s: %w", JudgmentsDir, err)
	}
	names, err := FileNames(files, JudgmentsDir)
	if err != nil {
		return Bench{}, err
	}
	b := Bench{Panel: panel, Records: make(map[string]*JudgeRecord, len(records)), Folders: folders, Entries: make(map[string][]string, len(folders))}
	b.Loose = withoutFolders(names, folders)
	for _, name := range folders {
		if b.Entries[name], err = ListDir(files, JudgeFolder(name)); err != nil {
			return Bench{}, err
		}
	}
	for i := range records {
		b.Records[records[i].Name] = &records[i]
	}
	return b, nil
}

// ListDir returns the names of the files and folders directly in dir,
// sorted, a folder's ending in "/"; a missing dir has none.
func ListDir(files fs.FS, dir string) ([]string, error) {
	folders, err := Folders(files, dir)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", dir, err)
	}
	names, err := FileNames(files, dir)
	if err != nil {
		return nil, err
	}
	out := withoutFolders(names, folders)
	for _, f := range folders {
		out = append(out, f+"/")
	}
	slices.Sort(out)
	return out, nil
}

// withoutFolders returns names without those of folders: the debate's
// files, as moot shows them, list folders with the files.
func withoutFolders(names, folders []string) []string {
	var out []string
	for _, n := range names {
		if !slices.Contains(folders, n) {
			out = append(out, n)
		}
	}
	return out
}

// editorLeftover reports whether name (a file's, or a folder's ending in
// "/") is what an editor leaves beside a file edited by hand: a backup
// ("score.json~") or an autosave ("#score.json#").
func editorLeftover(name string) bool {
	return strings.HasSuffix(name, "~") || len(name) > 2 && strings.HasPrefix(name, "#") && strings.HasSuffix(name, "#")
}

// FolderLayout is what a protocol keeps in a judge's folder beside its
// record, for Bench.Problems.
type FolderLayout struct {
	// Owns reports whether name, a file or a folder (its name ending in
	// "/") directly in a judge's folder, is one the protocol keeps there.
	Owns func(name string) bool
	// Want names what Owns accepts, for people: "score.json"; "calls/"
	// and "verdict.md".
	Want []string
}

// Problems returns what is wrong with the judges' folders whatever the
// protocol keeps in them, which layout says: a file under JudgmentsDir in
// no judge's folder; a folder that no judge's name may have; in a judge's
// folder, a file or folder that is neither its record nor layout's; a
// folder that holds a judge's files but not its record; the record of a
// re-judging in the folder of a judge of the panel. An editor's backup
// (a name ending in "~") or autosave ("#name#") is no problem anywhere,
// as hidden files are not. A record without any
// of the judge's files is not a problem: a re-judging cut short resumes
// from it. What the judge's files say, and whether a panel's are all
// there, is the protocol's to check.
func (b Bench) Problems(layout FolderLayout) []Problem {
	var out []Problem
	for _, n := range b.Loose {
		if editorLeftover(n) {
			continue
		}
		out = append(out, Problem{File: JudgmentsDir + "/" + n, Message: "is not a judge's folder: " + JudgmentsDir + "/ holds a folder per judge, named after it"})
	}
	for _, name := range b.Folders {
		dir := JudgeFolder(name)
		if err := CheckJudgeName(name); err != nil {
			out = append(out, Problem{File: dir, Message: "is not a judge's folder: " + err.Error()})
			continue
		}
		var held []string
		for _, e := range b.Entries[name] {
			switch {
			case e == JudgeRecordFile, editorLeftover(e):
			case layout.Owns(e):
				held = append(held, e)
			default:
				out = append(out, Problem{File: dir + "/" + e, Message: "is not a file of a judge's folder, which holds " + english.List(append([]string{JudgeRecordFile}, layout.Want...), "and")})
			}
		}
		rec := b.Records[name]
		switch {
		case rec == nil && len(held) > 0:
			out = append(out, Problem{File: JudgeRecordPath(name), Message: fmt.Sprintf("is missing: %s holds the judge's %s", dir, strings.Join(held, ", "))})
		case rec != nil && rec.Kind == KindRejudge && InPanel(b.Panel, name):
			out = append(out, Problem{File: JudgeRecordPath(name), Message: fmt.Sprintf("kind is %q, but %s names %s as a judge of its panel (field %q)", rec.Kind, StateFile, name, PanelKey)})
		}
	}
	return out
}

// EachFolder reads every folder under JudgmentsDir, in name order, by
// read, given the folder's name and record (nil when it has none), and
// returns what read made of each by name.
func EachFolder[F any](b Bench, read func(name string, rec *JudgeRecord) (F, error)) (map[string]F, error) {
	out := make(map[string]F, len(b.Folders))
	for _, name := range b.Folders {
		f, err := read(name, b.Records[name])
		if err != nil {
			return nil, err
		}
		out[name] = f
	}
	return out, nil
}

// PanelCallID returns the ID of the call asked of the panel's judge
// called name in the protocol's judge role.
func PanelCallID(role, name string) string { return role + "-" + name }

// AskedOf returns c as the call asked of the judge j in role, on its own
// model: a panel's judge's, or a re-judging's, its ID PanelCallID(role,
// j.Name).
func (c Call) AskedOf(role string, j Judge) Call {
	c.ID, c.Model = PanelCallID(role, j.Name), j.Model
	return c
}

// PanelCalls returns c asked of every judge of panel in role (AskedOf),
// each missable: a judge's answer may go missing (--keep-going), the
// panel's aggregate then being the others'.
func PanelCalls(c Call, role string, panel []Judge) []Call {
	calls := make([]Call, len(panel))
	for k, j := range panel {
		calls[k] = c.AskedOf(role, j)
		calls[k].Missable = true
	}
	return calls
}

// InPanel reports whether the panel has a judge called name.
func InPanel(panel []Judge, name string) bool {
	return slices.ContainsFunc(panel, func(j Judge) bool { return j.Name == name })
}

// SortedNames returns the keys of judges, sorted, of the values keep
// accepts (all when keep is nil).
func SortedNames[V any](judges map[string]V, keep func(V) bool) []string {
	names := make([]string, 0, len(judges))
	for _, n := range slices.Sorted(maps.Keys(judges)) {
		if keep == nil || keep(judges[n]) {
			names = append(names, n)
		}
	}
	return names
}

// FirstRecord returns, in files, the record of judge j of kind made at
// now when its folder has none yet (rec is nil): a judge's first commit
// writes its record.
func FirstRecord(files []File, rec *JudgeRecord, j Judge, kind string, from, to int, now time.Time) []File {
	if rec != nil {
		return files
	}
	return append(files, NewJudgeRecord(j, kind, from, to, now))
}

// AddJudge adds to r the problems errs of the answer of the panel's judge
// called name, in role, each under the judge's name; the first judge
// refused gives r its Role and RoleReasons.
func (r *Refused) AddJudge(role, name string, errs []string) {
	if r.Role == "" {
		r.Role, r.RoleReasons = role, errs
	}
	for _, e := range errs {
		r.Reasons = append(r.Reasons, "judge "+name+": "+e)
	}
}

// PanelMissing returns the record of a panel's call, call in role, that
// no judge answered, on model: every judge's refused answers, in the
// order of gaps.
func PanelMissing(call, role, model string, gaps []*Missing) *Missing {
	m := &Missing{Call: call, Role: role, Model: model, Note: MissingNote}
	for _, g := range gaps {
		m.Answers = append(m.Answers, g.Answers...)
	}
	return m
}

// Of returns m's answers with each problem said of who, as "judge NAME:
// problem".
func (m *Missing) Of(who string) *Missing {
	out := *m
	out.Answers = make([]MissingAnswer, len(m.Answers))
	for i, a := range m.Answers {
		ps := make([]string, len(a.Problems))
		for k, p := range a.Problems {
			ps[k] = who + ": " + p
		}
		out.Answers[i] = MissingAnswer{Answer: a.Answer, Problems: ps}
	}
	return &out
}

// CheckRejudgeRecord reports why r may not judge a debate again into the
// folder of r.Judge, whose record is rec (nil when it has none): the
// folder of a panel's judge, or one another model judged in.
func CheckRejudgeRecord(r Rejudging, rec *JudgeRecord) error {
	if rec == nil {
		return nil
	}
	if rec.Kind != KindRejudge {
		return fmt.Errorf("%s is the folder of a judge of the debate's panel", JudgeFolder(r.Judge.Name))
	}
	if rec.Model != r.Judge.Model {
		return fmt.Errorf("%s was judged by %s, not %s", JudgeFolder(r.Judge.Name), rec.Model, r.Judge.Model)
	}
	return nil
}

// CheckRejudgeSeat is CheckRejudgeRecord for a debate whose panel is
// panel, whose judges' folders a re-judging may not take even before
// their first commit.
func CheckRejudgeSeat(r Rejudging, panel []Judge, rec *JudgeRecord) error {
	if InPanel(panel, r.Judge.Name) {
		return fmt.Errorf("%s is the folder of a judge of the debate's panel", JudgeFolder(r.Judge.Name))
	}
	return CheckRejudgeRecord(r, rec)
}

// AddOfficial adds the scores of the debate's own judgment to j: with a
// panel, as its Aggregate, of kind "aggregate"; else as its first judge.
func (j *Judgments) AddOfficial(official JudgeScores, panel bool) {
	if panel {
		official.Kind = "aggregate"
		j.Aggregate = &official
		return
	}
	j.Judges = append(j.Judges, official)
}

// AddJudge adds the scores js of the judge whose folder's record is rec.
func (j *Judgments) AddJudge(js JudgeScores, rec *JudgeRecord) {
	js.Name, js.Model, js.Kind = rec.Name, rec.Model, rec.Kind
	j.Judges = append(j.Judges, js)
}

// Benched is the Debate of a Panelist protocol: it can be judged again,
// and its judges' scores compared.
type Benched interface {
	Debate
	Rejudger
	Judged
}

// RejudgeKey returns the key of the step of a re-judging by the judge
// called name that judges again what the debate's step keyed key judged:
// "rejudge-NAME-KEY".
func RejudgeKey(name, key string) string { return "rejudge-" + name + "-" + key }

// Step returns the step of r that asks its judge the call c, for unit,
// in place of the debate's step keyed key: keyed RejudgeKey, its commit
// the one apply makes of the judge's answer, with, first, the record of
// r judging from unit from when the judge's folder has none yet (rec is
// nil): a re-judging's first commit writes its record.
func (r Rejudging) Step(key string, unit int, c Call, rec *JudgeRecord, from int, apply func(a Answer, now time.Time) (*Commit, error)) *Step {
	return &Step{
		Key: RejudgeKey(r.Judge.Name, key), Unit: unit, Calls: []Call{c},
		Apply: func(answers map[string]Answer, now time.Time) (*Commit, error) {
			a, ok := answers[c.ID]
			if !ok {
				return nil, &Refused{Reasons: []string{"no answer for the judge"}}
			}
			cm, err := apply(a, now)
			if err != nil || rec != nil {
				return cm, err
			}
			cm.Files = append([]File{NewJudgeRecord(r.Judge, KindRejudge, from, r.To, now)}, cm.Files...)
			return cm, nil
		},
	}
}

// PanelRefill returns the step, keyed key, of unit, that asks the judge
// j of the panel alone, in role, again for its answer to the call c
// recorded as missing (--keep-going): c asked of j (AskedOf), which may
// go missing again, its commit the one apply makes of j's answer.
func PanelRefill(key string, unit int, c Call, role string, j Judge, apply func(a Answer, now time.Time) (*Commit, error)) *Step {
	c = c.AskedOf(role, j)
	c.Missable = true
	return &Step{
		Key: key, Unit: unit, Calls: []Call{c},
		Apply: func(answers map[string]Answer, now time.Time) (*Commit, error) {
			a, ok := answers[c.ID]
			if !ok {
				return nil, &Refused{Reasons: []string{"no answer for the judge " + j.Name}}
			}
			return apply(a, now)
		},
	}
}

// Span returns the units r judges again of a debate whose judged units
// are first to last: from r.From, but not before first, to r.To, but not
// past last (a negative r.To: to last). The span is empty when to < from;
// each protocol says why in its own words.
func (r Rejudging) Span(first, last int) (from, to int) {
	from, to = max(r.From, first), last
	if r.To >= 0 && r.To < to {
		to = r.To
	}
	return from, to
}

// RetryMissing says in st, the status of a re-judging, that n of its
// answers, each a noun (such as "call"), are recorded as missing: a line,
// and, when nothing else is left (st.Complete), the next step, which asks
// for them again.
func (st *Status) RetryMissing(n int, noun string) {
	st.Lines = append(st.Lines, Line{Label: "missing", Text: english.Count(n, noun) + ", no value invented (moot rejudge --retry-missing asks again)"})
	if !st.Complete {
		return
	}
	if n == 1 {
		st.Next = "nothing but the missing " + noun + ": moot rejudge --retry-missing asks for it again"
	} else {
		st.Next = "nothing but the missing " + english.Plural(noun) + ": moot rejudge --retry-missing asks for them again"
	}
}

// Seated is a judge's folder as a protocol reads it, which knows its
// record: nil before the judge's first commit.
type Seated interface {
	Seat() *JudgeRecord
}

// Seating is the record of a judge's folder, nil before the judge's first
// commit: a protocol's type of a judge's folder embeds it, and so is
// Seated.
type Seating struct {
	Record *JudgeRecord
}

// Seat returns the folder's record.
func (s Seating) Seat() *JudgeRecord { return s.Record }

// RecordOf returns the record of the folder of the judge called name
// among folders; nil when it has no folder or no record yet.
func RecordOf[F Seated](folders map[string]F, name string) *JudgeRecord {
	if f, ok := folders[name]; ok {
		return f.Seat()
	}
	return nil
}

// AddJudges adds to j the scores of every judge among folders whose
// folder has its record, in name order, as scores reads them.
func AddJudges[F Seated](j *Judgments, folders map[string]F, scores func(F) JudgeScores) {
	for _, n := range SortedNames(folders, func(f F) bool { return f.Seat() != nil }) {
		j.AddJudge(scores(folders[n]), folders[n].Seat())
	}
}
