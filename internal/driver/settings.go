package driver

import (
	"cmp"
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/moot-dev/moot/internal/frontmatter"
	"github.com/moot-dev/moot/internal/model"
	"github.com/moot-dev/moot/internal/prices"
	"github.com/moot-dev/moot/internal/research"
	sm "github.com/moot-dev/moot/statemachine"
	"github.com/moot-dev/moot/store"
)

// SettingsKey is the debate.md frontmatter key under which moot keeps the
// settings of its runs, so that a resumed run uses the same models.
const SettingsKey = "moot"

// RoleSettings is how one role is asked.
type RoleSettings struct {
	Model       string   `json:"model"`
	Temperature *float64 `json:"temperature,omitempty"`
	MaxTokens   int      `json:"max_tokens,omitempty"`
}

// Settings is what debate.md keeps under SettingsKey.
type Settings struct {
	// Models maps each role, by its name, to its model; kept as its own
	// map so that readers (the report) find the models in one place.
	Models map[string]string `json:"models"`
	// Temperature and MaxTokens are per role, set only where chosen.
	Temperature map[string]float64 `json:"temperature,omitempty"`
	MaxTokens   map[string]int     `json:"max_tokens,omitempty"`
	// ResponseFormat is the structured output mode the endpoint accepted,
	// remembered so that later runs start with it.
	ResponseFormat string `json:"response_format,omitempty"`
	// Research, when set, turns research on for the debate with these
	// limits (see research.go); absent, the debate runs as it always has.
	Research *research.Limits `json:"research,omitempty"`
	// People lists, for each role a person played (moot run --human,
	// moot answer), the units in which the person answered for it.
	People map[string][]int `json:"people,omitempty"`
	// Budget is the --budget of the debate in US dollars, kept as the
	// models are, so that a later run without the flag keeps it.
	Budget *float64 `json:"budget,omitempty"`
	// JudgeContext is the --judge-context of a debate whose protocol is
	// an sm.JudgeContexter, as the protocol spells it; absent, the
	// protocol's default. The protocol reads and checks it.
	JudgeContext string `json:"judge_context,omitempty"`
	// CacheMarks is the --cache-marks of the debate (see CacheMarks);
	// absent, the automatic default.
	CacheMarks string `json:"cache_marks,omitempty"`
	// panel is the judge panel the state file names, kept apart from
	// the settings under its own key (sm.PanelKey).
	panel []sm.Judge
}

// RoleNames lists the names of p's roles, in the order p declares them.
func RoleNames(p sm.Protocol) []string {
	roles := p.Roles()
	names := make([]string, len(roles))
	for i, r := range roles {
		names[i] = r.Name
	}
	return names
}

// LoadSettings reads the settings kept in the frontmatter of a state
// file; a debate never run has none.
func LoadSettings(front frontmatter.Object) (Settings, error) {
	var s Settings
	raw, ok := front.Get(SettingsKey)
	if !ok || string(raw) == "null" {
		return s, nil
	}
	if err := json.Unmarshal(raw, &s); err != nil {
		return s, fmt.Errorf("read %s: field %q: %w", sm.StateFile, SettingsKey, err)
	}
	if err := s.check(); err != nil {
		return s, fmt.Errorf("read %s: field %q: %w", sm.StateFile, SettingsKey, err)
	}
	return s, nil
}

// check validates what was read: a response format moot does not know
// would otherwise reach the model client as is.
func (s *Settings) check() error {
	m, err := model.ParseMode(s.ResponseFormat)
	if err != nil {
		return fmt.Errorf("response_format: %w", err)
	}
	s.ResponseFormat = string(m)
	if s.Research != nil {
		l := s.Research.Normal()
		s.Research = &l
	}
	if _, err := ParseCacheMarks(s.CacheMarks); err != nil {
		return fmt.Errorf("%s: %w", CacheMarksField, err)
	}
	return nil
}

// Role returns the settings of the role called r.
func (s Settings) Role(r string) RoleSettings {
	rs := RoleSettings{Model: s.Models[r], MaxTokens: s.MaxTokens[r]}
	if t, ok := s.Temperature[r]; ok {
		rs.Temperature = &t
	}
	return rs
}

// Overrides are the settings given on the command line; empty fields keep
// what debate.md holds.
type Overrides struct {
	Models      map[string]string
	Temperature map[string]float64
	MaxTokens   map[string]int
	// Research, when set, turns research on with these limits.
	Research *research.Limits
	// Budget, when set, is the debate's budget from now on.
	Budget *float64
	// JudgeContext, when set, is the debate's judge context from now on,
	// as its protocol (an sm.JudgeContexter) spells it, and
	// JudgeContextDefault the name of the protocol's default, which is
	// stored as an absent field.
	JudgeContext, JudgeContextDefault string
	// CacheMarks, when set, is the debate's cache marks from now on.
	CacheMarks CacheMarks
	// Defaults are the models of roles that neither Models nor the
	// debate's stored settings name, by role, before the default model
	// (moot.yaml's models).
	Defaults map[string]string
}

// Merge applies o to s for the roles called roles, giving each role
// without a model defaultModel, and describes each setting a flag set or
// changed, for a person to be told of: a value that replaces a different
// stored one, or one stored where there was none. The same change for
// several roles is described once.
func (s Settings) Merge(o Overrides, defaultModel string, roles []string) (Settings, []string) {
	out := Settings{
		Models:         map[string]string{},
		Temperature:    map[string]float64{},
		MaxTokens:      map[string]int{},
		ResponseFormat: s.ResponseFormat,
		Research:       s.Research,
		People:         clonePeople(s.People),
		Budget:         s.Budget,
		JudgeContext:   s.JudgeContext,
		CacheMarks:     s.CacheMarks,
		panel:          s.panel,
	}
	for k, v := range s.Models {
		out.Models[k] = v
	}
	for k, v := range s.Temperature {
		out.Temperature[k] = v
	}
	for k, v := range s.MaxTokens {
		out.MaxTokens[k] = v
	}
	var n notices
	for _, r := range roles {
		if m, ok := o.Models[r]; ok && m != "" {
			if old := out.Models[r]; old != m {
				n.add(r, "model", "changes", old, m)
			}
			out.Models[r] = m
		}
		if out.Models[r] == "" {
			out.Models[r] = cmp.Or(o.Defaults[r], defaultModel)
		}
		if t, ok := o.Temperature[r]; ok {
			if old, had := out.Temperature[r]; !had || old != t {
				n.add(r, "temperature", "changes", formatIf(had, "%g", old), fmt.Sprintf("%g", t))
			}
			out.Temperature[r] = t
		}
		if t, ok := o.MaxTokens[r]; ok {
			if old, had := out.MaxTokens[r]; !had || old != t {
				n.add(r, "max tokens", "change", formatIf(had, "%d", old), fmt.Sprint(t))
			}
			out.MaxTokens[r] = t
		}
	}
	lines := n.lines()
	if o.Research != nil {
		l := o.Research.Normal()
		if out.Research == nil || *out.Research != l {
			lines = append(lines, fmt.Sprintf("research on: at most %d searches, %d pages, %d bytes of pages and %s an answer",
				l.Searches, l.Pages, l.Bytes, l.Time))
		}
		out.Research = &l
	}
	if b := o.Budget; b != nil && (out.Budget == nil || *out.Budget != *b) {
		lines = append(lines, fmt.Sprintf("budget %s", prices.USD(*b)))
		v := *b
		out.Budget = &v
	}
	if c := o.JudgeContext; c != "" {
		old := cmp.Or(out.JudgeContext, o.JudgeContextDefault)
		if old != c {
			lines = append(lines, fmt.Sprintf("judge context changes from %s to %s", old, c))
		}
		// The default is stored as an absent field, so that a debate
		// run without the flag keeps its bytes.
		out.JudgeContext = ""
		if c != o.JudgeContextDefault {
			out.JudgeContext = c
		}
	}
	if c := o.CacheMarks; c != "" {
		old, _ := ParseCacheMarks(out.CacheMarks)
		if old != c {
			lines = append(lines, fmt.Sprintf("cache marks change from %s to %s", old, c))
		}
		// As the judge context, the default is stored as an absent field.
		out.CacheMarks = ""
		if c != CacheAuto {
			out.CacheMarks = string(c)
		}
	}
	return out, lines
}

// StoredResearch returns the research limits stored in the state file of
// d, nil when the debate does not research.
func StoredResearch(d *store.Dir) (*research.Limits, error) {
	s, err := readSettings(d)
	return s.Research, err
}

// StoredBudget returns the budget stored in the state file of d, if any.
func StoredBudget(d *store.Dir) (*float64, error) {
	s, err := readSettings(d)
	return s.Budget, err
}

func formatIf(ok bool, format string, v any) string {
	if !ok {
		return ""
	}
	return fmt.Sprintf(format, v)
}

// notices collects setting changes, merging those that differ only in
// their role.
type notices struct {
	list []*notice
}

type notice struct {
	roles                []string
	what, verb, from, to string
}

func (n *notices) add(r string, what, verb, from, to string) {
	for _, c := range n.list {
		if c.what == what && c.from == from && c.to == to {
			c.roles = append(c.roles, r)
			return
		}
	}
	n.list = append(n.list, &notice{roles: []string{r}, what: what, verb: verb, from: from, to: to})
}

func (n *notices) lines() []string {
	var out []string
	for _, c := range n.list {
		who := c.roles[0]
		if k := len(c.roles); k > 1 {
			who = strings.Join(c.roles[:k-1], ", ") + " and " + c.roles[k-1]
		}
		if c.from == "" {
			out = append(out, fmt.Sprintf("%s %s set to %s", who, c.what, c.to))
		} else {
			out = append(out, fmt.Sprintf("%s %s %s from %s to %s", who, c.what, c.verb, c.from, c.to))
		}
	}
	sort.Strings(out)
	return out
}

// SeedState returns the state file state of a new debate with the models
// of its roles stored as a run stores them, and its judge panel when
// panel is not empty: a debate made ready to run with these models, as a
// tournament makes its debates. A model the state already names for a
// role that models does not set (such as the judge a forum cast names)
// is kept.
func SeedState(state []byte, models map[string]string, panel []sm.Judge) ([]byte, error) {
	front, body, err := frontmatter.Parse(state)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", sm.StateFile, err)
	}
	var s Settings
	if raw, ok := front.Get(SettingsKey); ok {
		if err := json.Unmarshal(raw, &s); err != nil {
			return nil, fmt.Errorf("read %s: field %q: %w", sm.StateFile, SettingsKey, frontmatter.JSONError(err))
		}
	}
	if s.Models == nil {
		s.Models = map[string]string{}
	}
	for role, m := range models {
		s.Models[role] = m
	}
	raw, err := frontmatter.Marshal(s)
	if err != nil {
		return nil, err
	}
	front.Set(SettingsKey, raw)
	if len(panel) > 0 {
		if err := sm.CheckPanel(panel); err != nil {
			return nil, err
		}
		if raw, err = frontmatter.Marshal(panel); err != nil {
			return nil, err
		}
		front.Set(sm.PanelKey, raw)
	}
	return frontmatter.Render(front, body)
}
