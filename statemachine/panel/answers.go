package panel

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/moot-dev/moot/internal/frontmatter"
	"github.com/moot-dev/moot/internal/lenient"
)

// object returns the JSON object in text, from its first "{" to its last
// "}", so that a fence or a word around it does no harm.
func object(text []byte) []byte {
	i, j := bytes.IndexByte(text, '{'), bytes.LastIndexByte(text, '}')
	if i < 0 || j < i {
		return nil
	}
	return text[i : j+1]
}

// decode reads the JSON object of text into v, strictly: unknown keys are
// errors.
//
// When that span is not JSON, the answer is read as a person would
// (lenient.JSON: the one object among sentences, in any fence, with a
// trailing comma or smart quotes); the strict error is kept when that
// finds no object either. A flag written as a string ("true", "yes") is
// read as the boolean it is, and a kind, type or position in another case
// as the one it is.
func decode(text []byte, v any) []string {
	obj := object(text)
	if obj == nil || !json.Valid(obj) {
		if b, ok := lenient.JSON(text); ok && b[0] == '{' {
			obj = b
		}
	}
	if obj == nil {
		return []string{"the answer holds no JSON object: answer with the JSON object only"}
	}
	if json.Valid(obj) {
		// A flag written "true" or "yes", a kind or position in capitals.
		obj = lenient.Bools(obj, "has_direct_opposition", "has_specific_claim", "topic_relevant",
			"crux_surfaced", "converged", "resolved", "shifted")
		obj = lenient.Enums(obj, "type", convergenceKinds)
		obj = lenient.Enums(obj, "kind", cardKinds)
		obj = lenient.Enums(obj, "position", append(append([]string(nil), cardPositions...), stancePositions...))
	}
	dec := json.NewDecoder(bytes.NewReader(obj))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return []string{"the JSON object does not read: " + err.Error()}
	}
	if err := frontmatter.CheckDuplicates(obj[:dec.InputOffset()]); err != nil {
		return []string{err.Error() + ": give each field once"}
	}
	return nil
}

// resolve finds the persona a model named, as the original did: by id,
// whole name, first name, last name, then a unique prefix or part of the
// name, leaving out except. A name as models dress it (spaces, quotes,
// emphasis, a title: "**Prof. Chen**") is read without its dress when it
// does not resolve as written.
func resolve(name string, ps []Persona, except string) (string, bool) {
	if id, ok := resolveAs(name, ps, except); ok {
		return id, true
	}
	for _, n := range []string{lenient.Clean(name), lenient.Untitled(name)} {
		if n != name {
			if id, ok := resolveAs(n, ps, except); ok {
				return id, true
			}
		}
	}
	return "", false
}

// tidyName returns a persona's name as a model wrote it in a text moot
// keeps: as written when it names a persona so, else without the quotes,
// emphasis and spaces around it (see lenient.Clean), and then without a
// title, when that names one; else as written.
func tidyName(name string, ps []Persona) string {
	if _, ok := resolveAs(name, ps, ""); ok {
		return name
	}
	c := lenient.Clean(name)
	for _, n := range []string{c, lenient.StripTitles(c)} {
		if n != name {
			if _, ok := resolveAs(n, ps, ""); ok {
				return n
			}
		}
	}
	return name
}

func resolveAs(name string, ps []Persona, except string) (string, bool) {
	n := strings.ToLower(strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(name), "@")))
	if n == "" {
		return "", false
	}
	var cands []Persona
	for _, p := range ps {
		if p.ID != except {
			cands = append(cands, p)
		}
	}
	tests := []func(Persona) bool{
		func(p Persona) bool { return p.ID == n },
		func(p Persona) bool { return strings.ToLower(p.Name) == n },
		func(p Persona) bool { return strings.ToLower(p.First()) == n },
		func(p Persona) bool {
			f := strings.Fields(strings.ToLower(p.Name))
			return len(f) > 1 && f[len(f)-1] == n
		},
		func(p Persona) bool { return strings.HasPrefix(strings.ToLower(p.Name), n) },
		func(p Persona) bool { return strings.Contains(strings.ToLower(p.Name), n) },
	}
	for _, t := range tests {
		var hit []string
		for _, p := range cands {
			if t(p) {
				hit = append(hit, p.ID)
			}
		}
		if len(hit) == 1 {
			return hit[0], true
		}
		if len(hit) > 1 {
			return "", false
		}
	}
	return "", false
}

// Aspect is one sub-question of the topic.
type Aspect struct {
	ID          string `json:"id"`
	Label       string `json:"label"`
	Description string `json:"description"`
}

type aspectsAnswer struct {
	Aspects []Aspect `json:"aspects"`
}

func parseAspects(text []byte, want int) ([]Aspect, []string) {
	var a aspectsAnswer
	if errs := decode(text, &a); errs != nil {
		return nil, errs
	}
	var errs []string
	if len(a.Aspects) != want {
		errs = append(errs, fmt.Sprintf("aspects: %d given, want exactly %d", len(a.Aspects), want))
	}
	seen := map[string]bool{}
	for i := range a.Aspects {
		x := &a.Aspects[i]
		x.ID = fmt.Sprintf("a%d", i+1)
		x.Label, x.Description = strings.TrimSpace(x.Label), strings.TrimSpace(x.Description)
		if x.Label == "" || x.Description == "" {
			errs = append(errs, fmt.Sprintf("aspects[%d]: label and description are both needed", i))
		}
		if w := len(strings.Fields(x.Label)); w > 8 {
			errs = append(errs, fmt.Sprintf("aspects[%d].label has %d words, want at most 8", i, w))
		}
		if seen[strings.ToLower(x.Label)] {
			errs = append(errs, fmt.Sprintf("aspects[%d].label %q is given twice", i, x.Label))
		}
		seen[strings.ToLower(x.Label)] = true
	}
	return a.Aspects, errs
}

// reactAnswer is a persona's reaction to the others' takes.
type reactAnswer struct {
	ReplyTo string `json:"reply_to"`
	Text    string `json:"text"`
}

// parseReact reads a reaction of self, who may reply to any of targets.
func parseReact(text []byte, ps []Persona, self string, targets []string) (reactAnswer, string, []string) {
	var a reactAnswer
	if errs := decode(text, &a); errs != nil {
		return a, "", errs
	}
	var errs []string
	id, ok := resolve(a.ReplyTo, ps, self)
	if !ok || !slices.Contains(targets, id) {
		var names []string
		for _, t := range targets {
			for _, p := range ps {
				if p.ID == t {
					names = append(names, p.Name)
				}
			}
		}
		errs = append(errs, fmt.Sprintf("reply_to %q names none of %s", a.ReplyTo, strings.Join(names, ", ")))
	}
	errs = append(errs, spokenErrors(a.Text)...)
	return a, id, errs
}

// Detection is the disagreement check of an aspect: its three gates, the
// two personas and the question of a room.
type Detection struct {
	Opposition bool     `json:"has_direct_opposition"`
	Specific   bool     `json:"has_specific_claim"`
	OnTopic    bool     `json:"topic_relevant"`
	Named      []string `json:"personas"`
	Topic      string   `json:"topic"`
	ShortLabel string   `json:"short_label"`
	// Pair is the two personas' ids, as moot resolved them; Ran is false
	// when the check was not asked (fewer than two messages) and Reason
	// says why, or why it was skipped.
	Pair   []string `json:"pair,omitempty"`
	Ran    bool     `json:"ran"`
	Reason string   `json:"reason,omitempty"`
}

// Spawn reports whether the check opens a room: all three gates hold and
// two personas resolved.
func (x Detection) Spawn() bool {
	return x.Ran && x.Opposition && x.Specific && x.OnTopic && len(x.Pair) == 2
}

type detectionAnswer struct {
	Opposition *bool    `json:"has_direct_opposition"`
	Specific   *bool    `json:"has_specific_claim"`
	OnTopic    *bool    `json:"topic_relevant"`
	Personas   []string `json:"personas"`
	Topic      string   `json:"topic"`
	ShortLabel string   `json:"short_label"`
}

func parseDetection(text []byte, ps []Persona) (Detection, []string) {
	var a detectionAnswer
	if errs := decode(text, &a); errs != nil {
		return Detection{}, errs
	}
	var errs []string
	if a.Opposition == nil || a.Specific == nil || a.OnTopic == nil {
		return Detection{}, []string{"has_direct_opposition, has_specific_claim and topic_relevant are all needed, each true or false"}
	}
	for i, n := range a.Personas {
		a.Personas[i] = tidyName(n, ps)
	}
	x := Detection{Opposition: *a.Opposition, Specific: *a.Specific, OnTopic: *a.OnTopic, Named: a.Personas,
		Topic: strings.TrimSpace(a.Topic), ShortLabel: strings.TrimSpace(a.ShortLabel), Ran: true}
	if x.Opposition && x.Specific && x.OnTopic {
		if len(a.Personas) != 2 {
			errs = append(errs, fmt.Sprintf("personas: %d named, want the two who disagree", len(a.Personas)))
		} else {
			first, ok1 := resolve(a.Personas[0], ps, "")
			second, ok2 := resolve(a.Personas[1], ps, first)
			if !ok1 || !ok2 {
				errs = append(errs, fmt.Sprintf("personas %q: want two different names of the panel", a.Personas))
			}
			x.Pair = []string{first, second}
		}
		if x.Topic == "" {
			errs = append(errs, "topic: the yes/no question of the disagreement is needed")
		}
	}
	return x, errs
}

// Exit is a room's exit check after a turn.
type Exit struct {
	Surfaced bool   `json:"crux_surfaced"`
	Reason   string `json:"reason"`
	After    int    `json:"after_turn"`
}

func parseExit(text []byte) (Exit, []string) {
	var a struct {
		Surfaced *bool  `json:"crux_surfaced"`
		Reason   string `json:"reason"`
	}
	if errs := decode(text, &a); errs != nil {
		return Exit{}, errs
	}
	if a.Surfaced == nil {
		return Exit{}, []string{"crux_surfaced is needed, true or false"}
	}
	return Exit{Surfaced: *a.Surfaced, Reason: strings.TrimSpace(a.Reason)}, nil
}

// convergenceKinds are the kinds of a room's core disagreement.
var convergenceKinds = []string{"factual", "values", "definitional"}

// Convergence is what a room converged on.
type Convergence struct {
	Core      string `json:"core_disagreement"`
	Kind      string `json:"type"`
	Converged bool   `json:"converged"`
}

func parseConvergence(text []byte) (Convergence, []string) {
	var a struct {
		Core      string `json:"core_disagreement"`
		Kind      string `json:"type"`
		Converged *bool  `json:"converged"`
	}
	if errs := decode(text, &a); errs != nil {
		return Convergence{}, errs
	}
	var errs []string
	if strings.TrimSpace(a.Core) == "" {
		errs = append(errs, "core_disagreement is needed")
	}
	if !slices.Contains(convergenceKinds, a.Kind) {
		errs = append(errs, fmt.Sprintf("type %q is none of %s", a.Kind, strings.Join(convergenceKinds, ", ")))
	}
	if a.Converged == nil {
		errs = append(errs, "converged is needed, true or false")
		return Convergence{}, errs
	}
	return Convergence{Core: strings.TrimSpace(a.Core), Kind: a.Kind, Converged: *a.Converged}, errs
}

// cardKinds are the kinds of disagreement a crux card names.
var cardKinds = []string{"horizon", "evidence", "values", "definition", "claim", "premise"}

// cardPositions are the positions a persona takes on a card's question.
var cardPositions = []string{"YES", "NO", "NUANCED"}

// Stance is one persona's side of a crux card.
type Stance struct {
	Position  string `json:"position"`
	Reasoning string `json:"reasoning"`
	Falsifier string `json:"falsifier"`
}

// Card is a crux card: the question a room found, each side's position,
// the kind of disagreement and what would change each mind.
type Card struct {
	ID         string            `json:"id"`
	Aspect     int               `json:"aspect"`
	Question   string            `json:"question"`
	Kind       string            `json:"kind"`
	Diagnosis  string            `json:"diagnosis"`
	Resolved   bool              `json:"resolved"`
	Resolution string            `json:"resolution,omitempty"`
	Personas   map[string]Stance `json:"personas"`
	Pair       []string          `json:"pair"`
	Sources    []string          `json:"source_messages"`
	Room       string            `json:"room"`
}

type cardAnswer struct {
	Question   string            `json:"question"`
	Kind       string            `json:"kind"`
	Diagnosis  string            `json:"diagnosis"`
	Resolved   *bool             `json:"resolved"`
	Resolution *string           `json:"resolution"`
	Personas   map[string]Stance `json:"personas"`
}

// parseCard reads a card answer about the two personas of pair, keyed by
// their ids (or names) in the answer.
func parseCard(text []byte, ps []Persona, pair []string) (Card, []string) {
	var a cardAnswer
	if errs := decode(text, &a); errs != nil {
		return Card{}, errs
	}
	var errs []string
	c := Card{Question: strings.TrimSpace(a.Question), Kind: a.Kind, Diagnosis: strings.TrimSpace(a.Diagnosis), Personas: map[string]Stance{}}
	if c.Question == "" {
		errs = append(errs, "question is needed: the crux as a yes/no question")
	} else if w := len(strings.Fields(c.Question)); w > 25 {
		errs = append(errs, fmt.Sprintf("question has %d words, want at most 15", w))
	}
	if !slices.Contains(cardKinds, a.Kind) {
		errs = append(errs, fmt.Sprintf("kind %q is none of %s", a.Kind, strings.Join(cardKinds, ", ")))
	}
	if c.Diagnosis == "" {
		errs = append(errs, "diagnosis is needed")
	}
	if a.Resolved == nil {
		errs = append(errs, "resolved is needed, true or false")
	} else {
		c.Resolved = *a.Resolved
		if a.Resolution != nil {
			c.Resolution = strings.TrimSpace(*a.Resolution)
		}
		if c.Resolved && c.Resolution == "" {
			errs = append(errs, "resolution is needed when resolved is true")
		}
	}
	for key, s := range a.Personas {
		id, ok := resolve(key, ps, "")
		if !ok || !slices.Contains(pair, id) {
			errs = append(errs, fmt.Sprintf("personas: %q is neither of the room's two", key))
			continue
		}
		s.Position = strings.ToUpper(strings.TrimSpace(s.Position))
		if !slices.Contains(cardPositions, s.Position) {
			errs = append(errs, fmt.Sprintf("personas.%s.position %q is none of %s", key, s.Position, strings.Join(cardPositions, ", ")))
		}
		if strings.TrimSpace(s.Reasoning) == "" {
			errs = append(errs, fmt.Sprintf("personas.%s.reasoning is needed", key))
		}
		c.Personas[id] = s
	}
	for _, id := range pair {
		if _, ok := c.Personas[id]; !ok {
			errs = append(errs, fmt.Sprintf("personas.%s is missing", id))
		}
	}
	return c, errs
}

// Shift says whether a persona moved between its opening and closing.
type Shift struct {
	Persona string `json:"persona"`
	Shifted bool   `json:"shifted"`
	Summary string `json:"summary"`
}

// parseShifts reads the shifts of the personas of ids (those with both an
// opening and a closing).
func parseShifts(text []byte, ps []Persona, ids []string) ([]Shift, []string) {
	var a struct {
		Shifts []struct {
			Persona string `json:"persona"`
			Shifted *bool  `json:"shifted"`
			Summary string `json:"summary"`
		} `json:"shifts"`
	}
	if errs := decode(text, &a); errs != nil {
		return nil, errs
	}
	var errs []string
	got := map[string]Shift{}
	for i, s := range a.Shifts {
		id, ok := resolve(s.Persona, ps, "")
		if !ok || !slices.Contains(ids, id) {
			errs = append(errs, fmt.Sprintf("shifts[%d].persona %q is none of the panel's", i, s.Persona))
			continue
		}
		if s.Shifted == nil {
			errs = append(errs, fmt.Sprintf("shifts[%d].shifted is needed, true or false", i))
			continue
		}
		got[id] = Shift{Persona: id, Shifted: *s.Shifted, Summary: strings.TrimSpace(s.Summary)}
	}
	var out []Shift
	for _, id := range ids {
		s, ok := got[id]
		if !ok {
			errs = append(errs, fmt.Sprintf("shifts: %s is missing", id))
		}
		out = append(out, s)
	}
	return out, errs
}

// Summary is what the debate's participants actually said, by claim.
type Summary struct {
	Claims []struct {
		Claim   string `json:"claim"`
		Stances []struct {
			Persona   string `json:"persona"`
			Position  string `json:"position"`
			Reasoning string `json:"reasoning"`
		} `json:"stances"`
	} `json:"claims"`
	Agreements     []string `json:"agreements"`
	EvidenceLedger []struct {
		Persona    string `json:"persona"`
		Accepted   []Item `json:"accepted"`
		Challenged []Item `json:"challenged"`
	} `json:"evidence_ledger"`
	FlipConditions []struct {
		Persona    string   `json:"persona"`
		Conditions []string `json:"conditions"`
	} `json:"flip_conditions"`
	ResolutionPaths []string `json:"resolution_paths"`
}

// Item is one claim of an evidence ledger with its reason.
type Item struct {
	Claim  string `json:"claim"`
	Reason string `json:"reason"`
}

var stancePositions = []string{"for", "against", "mixed"}

// parseSummary reads the summary of the debate of the personas ps. A
// persona's name dressed as models dress names (quotes, emphasis, spaces)
// is kept without its dress (see tidyName).
func parseSummary(text []byte, ps []Persona) (Summary, []string) {
	var s Summary
	if errs := decode(text, &s); errs != nil {
		return s, errs
	}
	for i := range s.Claims {
		for j := range s.Claims[i].Stances {
			s.Claims[i].Stances[j].Persona = tidyName(s.Claims[i].Stances[j].Persona, ps)
		}
	}
	for i := range s.EvidenceLedger {
		s.EvidenceLedger[i].Persona = tidyName(s.EvidenceLedger[i].Persona, ps)
	}
	for i := range s.FlipConditions {
		s.FlipConditions[i].Persona = tidyName(s.FlipConditions[i].Persona, ps)
	}
	var errs []string
	if len(s.Claims) == 0 {
		errs = append(errs, "claims: at least one is needed")
	}
	for i, c := range s.Claims {
		if strings.TrimSpace(c.Claim) == "" {
			errs = append(errs, fmt.Sprintf("claims[%d].claim is empty", i))
		}
		for j, st := range c.Stances {
			if !slices.Contains(stancePositions, st.Position) {
				errs = append(errs, fmt.Sprintf("claims[%d].stances[%d].position %q is none of %s", i, j, st.Position, strings.Join(stancePositions, ", ")))
			}
		}
	}
	if s.EvidenceLedger == nil {
		errs = append(errs, "evidence_ledger is needed (an empty list if no evidence was weighed)")
	}
	if len(s.ResolutionPaths) == 0 {
		errs = append(errs, "resolution_paths: at least one is needed")
	}
	return s, errs
}
