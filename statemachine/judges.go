package statemachine

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/moot-dev/moot/internal/frontmatter"
)

// JudgmentsDir is the folder of a debate that keeps every judgment besides
// the debate's own: a folder per judge, named after it, holding the
// judgment in the protocol's own format and JudgeRecordFile.
const JudgmentsDir = "judgments"

// JudgeRecordFile is the file of a judge's folder that says who judged
// and how: a JudgeRecord.
const JudgeRecordFile = "judge.json"

// PanelKey is the key of the state file's frontmatter that holds the
// debate's judge panel, a list of Judge. A debate without it has one
// judge, its judge role's model.
const PanelKey = "judges"

// Kinds of JudgeRecord.
const (
	// KindPanel is a judge of the debate's panel: its answers made the
	// debate's official judgment together with the others'.
	KindPanel = "panel"
	// KindRejudge is a judge that judged the saved debate again, after
	// the fact, without touching its official judgment.
	KindRejudge = "rejudge"
)

// Judge is one judge: its name, which names its folder under
// JudgmentsDir, and the model that judges.
type Judge struct {
	Name  string `json:"name"`
	Model string `json:"model"`
}

// JudgeRecord is what JudgeRecordFile holds.
type JudgeRecord struct {
	Name  string `json:"name"`
	Model string `json:"model"`
	Kind  string `json:"kind"`
	// From is the first unit the judge judged or judges; To, when set,
	// the last of a re-judging.
	From    int    `json:"from"`
	To      *int   `json:"to,omitempty"`
	Created string `json:"created"`
}

// JudgeFolder returns the folder of the judge called name.
func JudgeFolder(name string) string { return JudgmentsDir + "/" + name }

// JudgeRecordPath returns the path of the record of the judge called name.
func JudgeRecordPath(name string) string { return JudgeFolder(name) + "/" + JudgeRecordFile }

// NewJudgeRecord returns the record of judge j of kind, made at now, as a
// file to commit; a negative to leaves the last unit open.
func NewJudgeRecord(j Judge, kind string, from, to int, now time.Time) File {
	r := JudgeRecord{Name: j.Name, Model: j.Model, Kind: kind, From: from, Created: now.UTC().Format(time.RFC3339)}
	if to >= 0 {
		r.To = &to
	}
	data, _ := json.MarshalIndent(r, "", "  ") // a struct of strings and ints always marshals
	return File{Name: JudgeRecordPath(j.Name), Data: append(data, '\n')}
}

// CheckJudgeName reports whether name may name a judge's folder: 1 to 64
// lower-case letters, digits, dots and dashes, starting with a letter or
// digit.
func CheckJudgeName(name string) error {
	if name == "" || len(name) > 64 {
		return fmt.Errorf("judge name %q is not 1 to 64 characters", name)
	}
	for i, r := range name {
		ok := r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || (i > 0 && (r == '-' || r == '.'))
		if !ok {
			return fmt.Errorf("judge name %q may hold only lower-case letters, digits, dots and dashes, and starts with a letter or digit", name)
		}
	}
	return nil
}

// JudgeName returns a folder name for a judge on model that no name of
// taken has: the model's name in lower case, from its last slash on, with
// every other character made a dash, and "-2", "-3"... added when needed.
func JudgeName(model string, taken []string) string {
	if i := strings.LastIndexByte(model, '/'); i >= 0 && i < len(model)-1 {
		model = model[i+1:]
	}
	var b strings.Builder
	for _, r := range strings.ToLower(model) {
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9', r == '.':
			b.WriteRune(r)
		default:
			b.WriteByte('-')
		}
	}
	base := strings.Trim(b.String(), "-.")
	if len(base) > 56 {
		base = strings.Trim(base[:56], "-.")
	}
	if base == "" {
		base = "judge"
	}
	name := base
	for n := 2; slices.Contains(taken, name); n++ {
		name = base + "-" + strconv.Itoa(n)
	}
	return name
}

// NewPanel returns the judges of a panel of models, each named by
// JudgeName. Duplicate models are allowed: the same model asked twice
// measures its own consistency.
func NewPanel(models []string) ([]Judge, error) {
	if len(models) < 2 {
		return nil, errors.New("a panel needs at least two judges")
	}
	var panel []Judge
	var names []string
	for _, m := range models {
		m = strings.TrimSpace(m)
		if m == "" {
			return nil, errors.New("a judge's model is empty")
		}
		n := JudgeName(m, names)
		names = append(names, n)
		panel = append(panel, Judge{Name: n, Model: m})
	}
	return panel, nil
}

// ReadPanel returns the judge panel the state file names; nil when it has
// none.
func ReadPanel(state []byte) ([]Judge, error) {
	front, _, err := frontmatter.Parse(state)
	if err != nil {
		return nil, err
	}
	return PanelOf(front)
}

// PanelOf returns the judge panel of a state file's frontmatter; nil when
// it has none.
func PanelOf(front frontmatter.Object) ([]Judge, error) {
	raw, ok := front.Get(PanelKey)
	if !ok || string(raw) == "null" {
		return nil, nil
	}
	var panel []Judge
	if err := json.Unmarshal(raw, &panel); err != nil {
		return nil, fmt.Errorf("field %q: %w", PanelKey, err)
	}
	if err := CheckPanel(panel); err != nil {
		return nil, fmt.Errorf("field %q: %w", PanelKey, err)
	}
	return panel, nil
}

// CheckPanel checks a panel: at least two judges, each with a model and a
// valid name of its own.
func CheckPanel(panel []Judge) error {
	if len(panel) < 2 {
		return errors.New("a panel needs at least two judges")
	}
	seen := map[string]bool{}
	for _, j := range panel {
		if err := CheckJudgeName(j.Name); err != nil {
			return err
		}
		if seen[j.Name] {
			return fmt.Errorf("two judges are named %q", j.Name)
		}
		seen[j.Name] = true
		if strings.TrimSpace(j.Model) == "" {
			return fmt.Errorf("judge %q has no model", j.Name)
		}
	}
	return nil
}

// ReadJudgeRecords reads the record of every judge's folder under
// JudgmentsDir, in name order. A folder without a record is skipped, as a
// judging that never committed its first step; a record that does not
// parse, or names another folder, is an error naming its file.
func ReadJudgeRecords(files fs.FS) ([]JudgeRecord, error) {
	folders, err := Folders(files, JudgmentsDir)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", JudgmentsDir, err)
	}
	var out []JudgeRecord
	for _, name := range folders {
		file := JudgeRecordPath(name)
		data, err := fs.ReadFile(files, file)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("read %s: %w", file, err)
		}
		var r JudgeRecord
		if err := frontmatter.Unmarshal(data, &r); err != nil {
			return nil, fmt.Errorf("read %s: %w", file, err)
		}
		switch {
		case r.Name != name:
			return nil, fmt.Errorf("read %s: field \"name\" is %q but the folder is %s", file, r.Name, name)
		case r.Kind != KindPanel && r.Kind != KindRejudge:
			return nil, fmt.Errorf("read %s: field \"kind\" is %q, not %q or %q", file, r.Kind, KindPanel, KindRejudge)
		case strings.TrimSpace(r.Model) == "":
			return nil, fmt.Errorf("read %s: field \"model\" is empty", file)
		}
		out = append(out, r)
	}
	return out, nil
}

// FolderLister is an fs.FS that lists the folders of a directory, which
// the debate's files, as moot shows them to a protocol, do: their ReadDir
// lists files alone.
type FolderLister interface {
	Folders(dir string) ([]string, error)
}

// Folders returns the names of the folders directly in dir, sorted; a
// missing dir has none.
func Folders(files fs.FS, dir string) ([]string, error) {
	if fl, ok := files.(FolderLister); ok {
		return fl.Folders(dir)
	}
	entries, err := fs.ReadDir(files, dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []string
	for _, e := range entries {
		if e.IsDir() {
			out = append(out, e.Name())
		}
	}
	return out, nil
}

// Panelist is a Protocol whose debates a panel of judges may judge: the
// calls of its judge role (JudgeRole) are then asked of every judge of
// the panel the state file names, each answer kept in the judge's own
// folder, and the official judgment is their aggregate.
type Panelist interface {
	JudgeRole() string
}

// Rejudger is a Debate that can be judged again, after the fact, by
// another judge, without touching its own judgment.
type Rejudger interface {
	// Rejudge returns the debate as its re-judging r: a Debate whose steps
	// ask r.Judge alone and write only under its folder, the first one
	// writing its JudgeRecord. Its Status counts the units judged.
	Rejudge(r Rejudging) (Debate, error)
}

// Rejudging is one re-judging of a saved debate.
type Rejudging struct {
	Judge Judge
	// From and To bound the units judged again; a negative To judges to
	// the last.
	From, To int
}

// Check returns an error when r's judge has a name no folder may have, or
// no model: what every protocol's Rejudge refuses first.
func (r Rejudging) Check() error {
	if err := CheckJudgeName(r.Judge.Name); err != nil {
		return err
	}
	if strings.TrimSpace(r.Judge.Model) == "" {
		return errors.New("the judge has no model")
	}
	return nil
}

// RoleModel returns the model of role as the settings a run keeps in the
// state file's frontmatter front (under "moot", the driver's SettingsKey)
// name it; empty for a debate no run has stored one for.
func RoleModel(front frontmatter.Object, role string) string {
	var set struct {
		Models map[string]string `json:"models"`
	}
	if err := front.Decode("moot", &set); err != nil {
		return ""
	}
	return set.Models[role]
}

// Judged is a Debate whose judges' scores can be compared, for `moot
// judges`, the report and export.
type Judged interface {
	Judgments() Judgments
}

// Judgments is what a debate's judges made of it.
type Judgments struct {
	// Unit is what the debate counts, such as "exchange".
	Unit string
	// Min and Max bound a score.
	Min, Max float64
	// Items are what the judges score, in the debate's order.
	Items []Item
	// Judges are the official judge, when the debate has one judge, and
	// every judge with a folder under JudgmentsDir.
	Judges []JudgeScores
	// Aggregate, when the debate has a panel, holds the official scores,
	// the panel's aggregate: it is not a judge of its own.
	Aggregate *JudgeScores
	// FirstSpeaker reports that the protocol has a speaking order, so
	// that Item.First means something.
	FirstSpeaker bool
	// Graph reports that the items attack and support one another
	// (Item.Attacks and Item.Supports).
	Graph bool
}

// Item is one thing the judges score: an argument, a turn, a statement.
type Item struct {
	ID    string
	Unit  int
	Title string
	// Side is "proposition", "opposition" or "" for an item of neither,
	// whatever the protocol calls its sides.
	Side string
	// First reports that the item's speaker spoke first in its unit.
	First bool
	// Length is the item's text length in characters.
	Length int
	// Attacks and Supports list the items this one attacks and supports.
	Attacks, Supports []string
}

// JudgeScores is one judge's scores.
type JudgeScores struct {
	Name  string
	Model string
	// Kind is "official", KindPanel or KindRejudge.
	Kind string
	// Final holds each scored item's last score, First its first.
	Final, First map[string]float64
}

// KindOfficial is the Kind of the judge of a debate without a panel.
const KindOfficial = "official"
