// Package trio is a debate protocol written only for moot's tests: small,
// but with every shape the step model has to carry. Two speakers, alpha
// and beta, answer in parallel each round (a step of two calls); alpha
// also writes a plan that only alpha may see (a private file); an arbiter
// then names the round's winner (a step of one call); the debate ends
// after its rounds. It uses nothing outside its own package and the step
// model, which is the point: a protocol is a package.
package trio

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/moot-dev/moot/internal/frontmatter"
	sm "github.com/moot-dev/moot/statemachine"
)

// Name is the protocol's name.
const Name = "trio"

// The roles.
const (
	Alpha   = "alpha"
	Beta    = "beta"
	Arbiter = "arbiter"
)

// Protocol is the trio protocol.
type Protocol struct{}

var _ sm.Protocol = Protocol{}

func (Protocol) Name() string { return Name }

func (Protocol) Summary() string {
	return "a test protocol: two speakers in parallel, a private plan, an arbiter, a fixed number of rounds"
}

func (Protocol) Roles() []sm.Role {
	return []sm.Role{
		{Name: Alpha, Description: "speaks first in each round, with a private plan"},
		{Name: Beta, Description: "speaks in each round"},
		{Name: Arbiter, Description: "names each round's winner"},
	}
}

var (
	roundsFlag = sm.Flag{Name: "rounds", Usage: "how many `ROUNDS` the debate has", Placeholder: "ROUNDS", Default: "2"}
	briefFlag  = sm.Flag{Name: "brief", Usage: "a `FILE` of background both speakers read", Placeholder: "FILE", File: true}
)

// BriefFile is where a debate keeps the brief given with --brief.
const BriefFile = "brief.md"

func (Protocol) Flags() []sm.Flag { return []sm.Flag{roundsFlag, briefFlag} }

// state is what debate.md holds.
type state struct {
	Protocol string         `json:"protocol"`
	Rounds   int            `json:"rounds"`
	Round    int            `json:"round"` // rounds judged
	Phase    string         `json:"phase"` // "speak" or "judge"
	Wins     map[string]int `json:"wins"`
}

const (
	speak = "speak"
	judge = "judge"
)

func (Protocol) New(in sm.NewInput) ([]sm.File, error) {
	n, err := strconv.Atoi(in.Value(roundsFlag))
	if err != nil || n < 1 || n > 99 {
		return nil, fmt.Errorf("--rounds %q is not a whole number from 1 to 99", in.Value(roundsFlag))
	}
	st := state{Protocol: Name, Rounds: n, Phase: speak, Wins: map[string]int{Alpha: 0, Beta: 0}}
	data, err := render(st, in.Motion)
	if err != nil {
		return nil, err
	}
	files := []sm.File{{Name: sm.StateFile, Data: data}}
	if brief, ok := in.Files[briefFlag.Name]; ok {
		if !utf8.Valid(brief) || len(bytes.TrimSpace(brief)) == 0 {
			return nil, fmt.Errorf("--brief %s: want a text file, not an empty or binary one", in.Value(briefFlag))
		}
		files = append([]sm.File{{Name: BriefFile, Data: brief}}, files...)
	}
	return files, nil
}

func render(st state, motion string) ([]byte, error) {
	var front frontmatter.Object
	for _, kv := range []struct {
		k string
		v any
	}{{"protocol", st.Protocol}, {"rounds", st.Rounds}, {"round", st.Round}, {"phase", st.Phase}, {"wins", st.Wins}} {
		if err := front.SetValue(kv.k, kv.v); err != nil {
			return nil, err
		}
	}
	return frontmatter.Render(front, "# Motion\n\n"+strings.TrimSpace(motion)+"\n")
}

// debate is a trio debate as read from its files.
type debate struct {
	st     state
	motion string
	brief  string
	// files holds every file of the rounds folders, by name.
	files map[string]string
	front map[string]frontmatter.Object
}

func (Protocol) Load(files fs.FS) (sm.Debate, error) {
	data, err := fs.ReadFile(files, sm.StateFile)
	if err != nil {
		return nil, err
	}
	front, body, err := frontmatter.Parse(data)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", sm.StateFile, err)
	}
	raw, err := front.MarshalJSON()
	if err != nil {
		return nil, err
	}
	d := &debate{files: map[string]string{}, front: map[string]frontmatter.Object{}}
	if err := json.Unmarshal(raw, &d.st); err != nil {
		return nil, fmt.Errorf("read %s: %w", sm.StateFile, err)
	}
	d.motion = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(body), "# Motion"))
	if brief, err := fs.ReadFile(files, BriefFile); err == nil {
		d.brief = strings.TrimSpace(string(brief))
	} else if !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	for _, dir := range []string{"rounds", "private"} {
		entries, err := fs.ReadDir(files, dir)
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return nil, err
		}
		for _, e := range entries {
			name := dir + "/" + e.Name()
			data, err := fs.ReadFile(files, name)
			if err != nil {
				return nil, err
			}
			f, body, err := frontmatter.Parse(data)
			if err != nil {
				return nil, fmt.Errorf("read %s: %w", name, err)
			}
			d.files[name], d.front[name] = body, f
		}
	}
	return d, nil
}

func speechFile(round int, role string) string { return fmt.Sprintf("rounds/r%02d-%s.md", round, role) }
func planFile(round int) string                { return fmt.Sprintf("private/r%02d-alpha-plan.md", round) }
func verdictFile(round int) string             { return fmt.Sprintf("rounds/r%02d-verdict.md", round) }

func (d *debate) Status() sm.Status {
	st := sm.Status{Unit: "round", Done: d.st.Round, Total: d.st.Rounds, Complete: d.st.Round >= d.st.Rounds, Phase: d.st.Phase}
	switch {
	case st.Complete:
		st.Next = "nothing: the debate is complete"
	case d.st.Phase == speak:
		st.Next = fmt.Sprintf("alpha and beta speak in round %d", d.st.Round+1)
	default:
		st.Next = fmt.Sprintf("the arbiter names the winner of round %d", d.st.Round+1)
	}
	st.Lines = []sm.Line{{Label: "wins", Text: fmt.Sprintf("alpha %d · beta %d", d.st.Wins[Alpha], d.st.Wins[Beta])}}
	st.Data = map[string]any{"wins": map[string]int{Alpha: d.st.Wins[Alpha], Beta: d.st.Wins[Beta]}}
	return st
}

func (d *debate) Check() sm.Findings {
	var f sm.Findings
	problem := func(file, format string, args ...any) {
		f.Problems = append(f.Problems, sm.Problem{File: file, Message: fmt.Sprintf(format, args...)})
	}
	if d.st.Protocol != Name {
		problem(sm.StateFile, "protocol is %q, not %q", d.st.Protocol, Name)
	}
	if d.st.Phase != speak && d.st.Phase != judge {
		problem(sm.StateFile, "phase %q is neither %q nor %q", d.st.Phase, speak, judge)
	}
	if d.st.Round < 0 || d.st.Round > d.st.Rounds {
		problem(sm.StateFile, "round %d is outside 0 to %d", d.st.Round, d.st.Rounds)
	}
	wins := map[string]int{}
	spoken := d.st.Round
	if d.st.Phase == judge {
		spoken++
	}
	for r := 1; r <= spoken; r++ {
		for _, name := range []string{speechFile(r, Alpha), speechFile(r, Beta), planFile(r)} {
			if _, ok := d.files[name]; !ok {
				problem(name, "is missing: round %d was spoken", r)
			}
		}
	}
	for r := 1; r <= d.st.Round; r++ {
		name := verdictFile(r)
		f, ok := d.front[name]
		if !ok {
			problem(name, "is missing: round %d was judged", r)
			continue
		}
		var w string
		if err := f.Decode("winner", &w); err != nil || (w != Alpha && w != Beta) {
			problem(name, "names no winner")
			continue
		}
		wins[w]++
	}
	for _, role := range []string{Alpha, Beta} {
		if wins[role] != d.st.Wins[role] {
			problem(sm.StateFile, "wins.%s is %d, but %d verdicts name %s", role, d.st.Wins[role], wins[role], role)
		}
	}
	return f
}

func (d *debate) Next() (*sm.Step, error) {
	if d.st.Round >= d.st.Rounds {
		return nil, nil
	}
	round := d.st.Round + 1
	if d.st.Phase == speak {
		return d.speakStep(round), nil
	}
	return d.judgeStep(round), nil
}

// transcript is the public record so far: every speech and verdict, in
// order. Plans are never in it.
func (d *debate) transcript(upTo int) string {
	var b strings.Builder
	for r := 1; r <= upTo; r++ {
		for _, name := range []string{speechFile(r, Alpha), speechFile(r, Beta), verdictFile(r)} {
			if body, ok := d.files[name]; ok {
				fmt.Fprintf(&b, "## %s\n\n%s\n", name, strings.TrimSpace(body))
			}
		}
	}
	return b.String()
}

var speechSchema = map[string]any{
	"type":                 "object",
	"properties":           map[string]any{"plan": map[string]any{"type": "string"}, "speech": map[string]any{"type": "string"}},
	"required":             []string{"plan", "speech"},
	"additionalProperties": false,
}

type speech struct {
	Plan   string `json:"plan"`
	Speech string `json:"speech"`
}

func parseSpeech(a []byte) (speech, sm.Report) {
	var s speech
	if err := json.Unmarshal(a, &s); err != nil {
		return s, sm.Report{Errors: []string{"the answer is not the JSON object asked for: " + err.Error()}}
	}
	var rep sm.Report
	if strings.TrimSpace(s.Speech) == "" {
		rep.Errors = append(rep.Errors, "speech: is empty")
	}
	return s, rep
}

func (d *debate) speakStep(round int) *sm.Step {
	calls := make([]sm.Call, 0, 2)
	for _, role := range []string{Alpha, Beta} {
		system := fmt.Sprintf("You are %s in a trio debate on: %s\nAnswer with JSON {\"plan\": ..., \"speech\": ...}; the plan stays private to you.", role, d.motion)
		if d.brief != "" {
			system += "\n\nBackground: " + d.brief
		}
		user := fmt.Sprintf("Round %d.\n\nThe debate so far:\n\n%s", round, d.transcript(round-1))
		if role == Alpha {
			// alpha sees its own earlier plans, and only alpha does.
			for r := 1; r < round; r++ {
				user += fmt.Sprintf("\n\nYour private plan of round %d: %s", r, strings.TrimSpace(d.files[planFile(r)]))
			}
		}
		calls = append(calls, sm.Call{
			ID: role, Role: role,
			Messages:   []sm.Message{{Role: "system", Content: system}, {Role: "user", Content: user}},
			Schema:     speechSchema,
			SchemaName: "speech",
			Validate:   func(a []byte) sm.Report { _, rep := parseSpeech(a); return rep },
		})
	}
	return &sm.Step{
		Key: fmt.Sprintf("r%02d-speak", round), Unit: round, Calls: calls,
		Apply: func(answers map[string]sm.Answer, now time.Time) (*sm.Commit, error) {
			c := &sm.Commit{}
			for _, role := range []string{Alpha, Beta} {
				s, rep := parseSpeech(answers[role].Text)
				if !rep.OK() {
					return nil, &sm.Refused{Reasons: rep.Errors}
				}
				file, err := page(map[string]any{"round": round, "role": role, "visibility": "public"}, s.Speech)
				if err != nil {
					return nil, err
				}
				c.Files = append(c.Files, sm.File{Name: speechFile(round, role), Data: file})
				if role == Alpha {
					plan, err := page(map[string]any{"round": round, "role": role, "visibility": "private:alpha"}, s.Plan)
					if err != nil {
						return nil, err
					}
					c.Files = append(c.Files, sm.File{Name: planFile(round), Data: plan})
				}
				c.Events = append(c.Events, sm.Event{Kind: "spoke", Role: role, Message: fmt.Sprintf("round %d", round)})
			}
			st := d.st
			st.Phase = judge
			state, err := render(st, d.motion)
			if err != nil {
				return nil, err
			}
			c.Files = append(c.Files, sm.File{Name: sm.StateFile, Data: state})
			return c, nil
		},
	}
}

type verdict struct {
	Winner string `json:"winner"`
	Reason string `json:"reason"`
}

func parseVerdict(a []byte) (verdict, sm.Report) {
	var v verdict
	if err := json.Unmarshal(a, &v); err != nil {
		return v, sm.Report{Errors: []string{"the answer is not the JSON object asked for: " + err.Error()}}
	}
	if v.Winner != Alpha && v.Winner != Beta {
		return v, sm.Report{Errors: []string{fmt.Sprintf("winner: %q is neither alpha nor beta", v.Winner)}}
	}
	return v, sm.Report{}
}

func (d *debate) judgeStep(round int) *sm.Step {
	system := fmt.Sprintf("You are the arbiter of a trio debate on: %s\nAnswer with JSON {\"winner\": \"alpha\" or \"beta\", \"reason\": ...}.", d.motion)
	user := fmt.Sprintf("Name the winner of round %d.\n\nThe debate so far:\n\n%s", round, d.transcript(round))
	return &sm.Step{
		Key: fmt.Sprintf("r%02d-judge", round), Unit: round,
		Calls: []sm.Call{{
			ID: Arbiter, Role: Arbiter,
			Messages:   []sm.Message{{Role: "system", Content: system}, {Role: "user", Content: user}},
			SchemaName: "verdict",
			Schema: map[string]any{
				"type":                 "object",
				"properties":           map[string]any{"winner": map[string]any{"type": "string", "enum": []string{Alpha, Beta}}, "reason": map[string]any{"type": "string"}},
				"required":             []string{"winner", "reason"},
				"additionalProperties": false,
			},
			Validate: func(a []byte) sm.Report { _, rep := parseVerdict(a); return rep },
		}},
		Apply: func(answers map[string]sm.Answer, now time.Time) (*sm.Commit, error) {
			v, rep := parseVerdict(answers[Arbiter].Text)
			if !rep.OK() {
				return nil, &sm.Refused{Reasons: rep.Errors}
			}
			file, err := page(map[string]any{"round": round, "role": Arbiter, "winner": v.Winner, "visibility": "public"}, v.Reason)
			if err != nil {
				return nil, err
			}
			st := d.st
			st.Wins = map[string]int{Alpha: st.Wins[Alpha], Beta: st.Wins[Beta]}
			st.Wins[v.Winner]++
			st.Round, st.Phase = round, speak
			state, err := render(st, d.motion)
			if err != nil {
				return nil, err
			}
			return &sm.Commit{
				Files:  []sm.File{{Name: verdictFile(round), Data: file}, {Name: sm.StateFile, Data: state}},
				Events: []sm.Event{{Kind: "judged", Role: Arbiter, ID: v.Winner, Message: fmt.Sprintf("round %d to %s", round, v.Winner)}},
			}, nil
		},
	}
}

// page writes a file of a round: its keys as JSON frontmatter, the text as
// body.
func page(keys map[string]any, text string) ([]byte, error) {
	var front frontmatter.Object
	for _, k := range []string{"round", "role", "winner", "visibility"} {
		if v, ok := keys[k]; ok {
			if err := front.SetValue(k, v); err != nil {
				return nil, err
			}
		}
	}
	return frontmatter.Render(front, strings.TrimSpace(text)+"\n")
}

// Report writes README.md: the rounds in order, each verdict, and alpha's
// plans folded away and marked private.
func (d *debate) Report() ([]sm.File, error) {
	var b strings.Builder
	fmt.Fprintf(&b, "# %s\n\nalpha %d · beta %d after %d of %d rounds\n", d.motion, d.st.Wins[Alpha], d.st.Wins[Beta], d.st.Round, d.st.Rounds)
	for r := 1; r <= d.st.Rounds; r++ {
		if _, ok := d.files[speechFile(r, Alpha)]; !ok {
			break
		}
		fmt.Fprintf(&b, "\n## Round %d\n\n**alpha:** %s\n\n", r, strings.TrimSpace(d.files[speechFile(r, Alpha)]))
		if plan, ok := d.files[planFile(r)]; ok {
			fmt.Fprintf(&b, "<details><summary>alpha's plan (private to alpha)</summary>\n\n%s\n\n</details>\n\n", strings.TrimSpace(plan))
		}
		fmt.Fprintf(&b, "**beta:** %s\n", strings.TrimSpace(d.files[speechFile(r, Beta)]))
		if f, ok := d.front[verdictFile(r)]; ok {
			var w string
			_ = f.Decode("winner", &w)
			fmt.Fprintf(&b, "\n**arbiter:** %s wins: %s\n", w, strings.TrimSpace(d.files[verdictFile(r)]))
		}
	}
	return []sm.File{{Name: "README.md", Data: []byte(b.String())}}, nil
}

// Fake answers a trio prompt as a model would, from the prompt alone and
// always the same way, for tests: each speech and plan names its role and
// round, and the arbiter gives odd rounds to beta, even ones to alpha.
func Fake(system, user string) string {
	round := 0
	if i := strings.Index(user, "ound "); i >= 0 {
		fmt.Sscanf(user[i+len("ound "):], "%d", &round)
	}
	switch {
	case strings.HasPrefix(system, "You are alpha"), strings.HasPrefix(system, "You are beta"):
		role := strings.Fields(system)[2]
		return fmt.Sprintf(`{"plan": "SECRET-PLAN-%s-r%d", "speech": "SPEECH-%s-r%d"}`, role, round, role, round)
	}
	return fmt.Sprintf(`{"winner": %q, "reason": "VERDICT-r%d"}`, []string{Alpha, Beta}[round%2], round)
}
