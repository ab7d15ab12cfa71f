package forum

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// The sides a debater argues, as the cast file names its pools; they are
// also the debaters' roles.
const (
	For     = "for"
	Against = "against"
	Judge   = "judge"
)

// Persona is one person of a cast, with the fields of the original
// system's cast files.
type Persona struct {
	Name            string `json:"name"`
	Side            string `json:"side,omitempty"`
	Model           string `json:"model,omitempty"`
	Color           string `json:"color,omitempty"`
	Type            string `json:"type,omitempty"`
	Personality     string `json:"personality,omitempty"`
	Position        string `json:"position,omitempty"`
	Instructions    string `json:"instructions,omitempty"`
	JudgingCriteria string `json:"judging_criteria,omitempty"`
}

// Cast is a cast file as read: the topic and the three pools personas are
// drawn from.
type Cast struct {
	Topic    string
	Premise  string
	Turns    int // 0 when the file sets none
	Audience []Persona
	For      []Persona
	Against  []Persona
	// Notes say which keys were accepted but have no use in moot.
	Notes []string
}

var topKeys = []string{"topic", "premise", "turns", "line_width", "web_research", "audience", "for", "against"}

var personaKeys = []string{"name", "model", "color", "type", "personality", "position", "instructions", "judging_criteria"}

// ParseCast reads a cast file in the original system's format: a mapping
// with topic (required), premise, turns, line_width, web_research and
// the pools audience, for and against. A key the format does not have, a
// value of the wrong kind, a missing required field or a side without a
// persona is an error naming the field and its line.
func ParseCast(data []byte) (*Cast, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, fmt.Errorf("not YAML: %w", err)
	}
	if doc.Kind != yaml.DocumentNode || len(doc.Content) != 1 || doc.Content[0].Kind != yaml.MappingNode {
		return nil, errors.New("want a mapping of topic, premise, turns, audience, for and against")
	}
	root := doc.Content[0]
	c := &Cast{}
	seen := map[string]*yaml.Node{}
	for i := 0; i+1 < len(root.Content); i += 2 {
		k, v := root.Content[i], root.Content[i+1]
		key := k.Value
		if key == "agents" {
			return nil, fmt.Errorf("line %d: agents: this is the older format of the original, without sides; list each side's personas under for and against", k.Line)
		}
		if !contains(topKeys, key) {
			return nil, fmt.Errorf("line %d: %s: unknown key (a cast file has %s)", k.Line, key, strings.Join(topKeys, ", "))
		}
		if seen[key] != nil {
			return nil, fmt.Errorf("line %d: %s: given twice", k.Line, key)
		}
		seen[key] = v
	}
	var err error
	if v := seen["topic"]; v == nil {
		return nil, errors.New("topic: missing (the topic of the debate is required)")
	} else if c.Topic, err = str(v, "topic"); err != nil {
		return nil, err
	}
	if strings.TrimSpace(c.Topic) == "" {
		return nil, fmt.Errorf("line %d: topic: is empty", seen["topic"].Line)
	}
	if v := seen["premise"]; v != nil {
		if c.Premise, err = str(v, "premise"); err != nil {
			return nil, err
		}
	}
	if v := seen["turns"]; v != nil {
		n, err := strconv.Atoi(v.Value)
		if err != nil || v.Kind != yaml.ScalarNode || n < 1 || n > MaxTurns {
			return nil, fmt.Errorf("line %d: turns: want a whole number from 1 to %d, found %q", v.Line, MaxTurns, v.Value)
		}
		c.Turns = n
	}
	if v := seen["line_width"]; v != nil {
		if _, err := strconv.Atoi(v.Value); err != nil || v.Kind != yaml.ScalarNode {
			return nil, fmt.Errorf("line %d: line_width: want a whole number, found %q", v.Line, v.Value)
		}
		c.Notes = append(c.Notes, "line_width is ignored: moot's files and reports are not wrapped")
	}
	if v := seen["web_research"]; v != nil {
		var on bool
		if err := v.Decode(&on); err != nil {
			return nil, fmt.Errorf("line %d: web_research: want true or false, found %q", v.Line, v.Value)
		}
		if on {
			c.Notes = append(c.Notes, "web_research is ignored: forum runs without web research until moot has its research tools")
		}
	}
	if c.Audience, err = pool(seen["audience"], "audience", "", true); err != nil {
		return nil, err
	}
	if c.For, err = pool(seen["for"], For, For, false); err != nil {
		return nil, err
	}
	if c.Against, err = pool(seen["against"], Against, Against, false); err != nil {
		return nil, err
	}
	return c, nil
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func str(v *yaml.Node, field string) (string, error) {
	if v.Kind != yaml.ScalarNode || (v.Tag != "!!str" && v.Tag != "!!int" && v.Tag != "!!float" && v.Tag != "!!bool") {
		return "", fmt.Errorf("line %d: %s: want text", v.Line, field)
	}
	return strings.TrimSpace(v.Value), nil
}

// pool reads a list of personas. The audience may also be one persona, as
// in the original's older files. A side must have at least one persona;
// the audience may be missing, which means no judge.
func pool(v *yaml.Node, field, side string, optional bool) ([]Persona, error) {
	if v == nil || (v.Kind == yaml.ScalarNode && v.Tag == "!!null") {
		if optional {
			return nil, nil
		}
		return nil, fmt.Errorf("%s: no persona (each side needs at least one)", field)
	}
	var items []*yaml.Node
	switch {
	case v.Kind == yaml.SequenceNode:
		items = v.Content
	case v.Kind == yaml.MappingNode && optional:
		items = []*yaml.Node{v}
	default:
		return nil, fmt.Errorf("line %d: %s: want a list of personas", v.Line, field)
	}
	if len(items) == 0 && !optional {
		return nil, fmt.Errorf("line %d: %s: no persona (each side needs at least one)", v.Line, field)
	}
	out := make([]Persona, 0, len(items))
	for i, it := range items {
		name := fmt.Sprintf("%s[%d]", field, i)
		if v.Kind == yaml.MappingNode {
			name = field
		}
		p, err := persona(it, name)
		if err != nil {
			return nil, err
		}
		p.Side = side
		out = append(out, p)
	}
	return out, nil
}

func persona(v *yaml.Node, field string) (Persona, error) {
	var p Persona
	if v.Kind != yaml.MappingNode {
		return p, fmt.Errorf("line %d: %s: want a persona (name, personality, ...)", v.Line, field)
	}
	dst := map[string]*string{
		"name": &p.Name, "model": &p.Model, "color": &p.Color, "type": &p.Type, "personality": &p.Personality,
		"position": &p.Position, "instructions": &p.Instructions, "judging_criteria": &p.JudgingCriteria,
	}
	seen := map[string]bool{}
	for i := 0; i+1 < len(v.Content); i += 2 {
		k, val := v.Content[i], v.Content[i+1]
		ptr, ok := dst[k.Value]
		if !ok {
			return p, fmt.Errorf("line %d: %s.%s: unknown key (a persona has %s)", k.Line, field, k.Value, strings.Join(personaKeys, ", "))
		}
		if seen[k.Value] {
			return p, fmt.Errorf("line %d: %s.%s: given twice", k.Line, field, k.Value)
		}
		seen[k.Value] = true
		if val.Kind == yaml.ScalarNode && val.Tag == "!!null" {
			continue
		}
		s, err := str(val, field+"."+k.Value)
		if err != nil {
			return p, err
		}
		*ptr = s
	}
	if p.Name == "" {
		return p, fmt.Errorf("line %d: %s.name: missing (every persona needs a name)", v.Line, field)
	}
	return p, nil
}

// BuiltinCast is the cast of a debate made without --cast: two personas
// for each side and two judges, written for moot and fit for any motion.
func BuiltinCast() *Cast {
	const brief = "Keep every response to three or four sentences. Speak as yourself: no stage directions."
	return &Cast{
		For: []Persona{
			{Name: "Maren", Side: For, Type: "analyst",
				Personality:  "You are Maren, a policy analyst of forty who has spent her career turning contested proposals into budgets and timelines. You are calm, exact and you like numbers that can be checked.",
				Position:     "You argue in favour of the motion. Make the strongest honest case for it, and meet the other side's best objection rather than its weakest.",
				Instructions: brief},
			{Name: "Tobias", Side: For, Type: "practitioner",
				Personality:  "You are Tobias, a site manager of fifty-five who has seen plans succeed and fail on the ground. You speak plainly and distrust theory that never met a real deadline.",
				Position:     "You argue in favour of the motion, from what happens in practice to the people it touches.",
				Instructions: brief},
		},
		Against: []Persona{
			{Name: "Ilse", Side: Against, Type: "economist",
				Personality:  "You are Ilse, an economist of forty-eight who studies how good intentions turn into unintended costs. You are courteous, sceptical and precise about causes and effects.",
				Position:     "You argue against the motion. Show where its case is weaker than it looks, and offer what would work better.",
				Instructions: brief},
			{Name: "Rafael", Side: Against, Type: "organiser",
				Personality:  "You are Rafael, a community organiser of thirty-six who has watched many promises land on the people least able to carry them. You are warm but you do not let a vague answer pass.",
				Position:     "You argue against the motion, from its effect on ordinary people and on those with the least say.",
				Instructions: brief},
		},
		Audience: []Persona{
			{Name: "Judge Okafor", Type: "proceduralist",
				Personality:     "You are Judge Okafor, a retired appeals judge who has heard every kind of argument and is moved by none of them on style alone.",
				JudgingCriteria: "You judge the coherence of the reasoning, whether the evidence offered supports the conclusion drawn from it, and how directly each side answers what the other actually said. Catching a real flaw in the opponent's argument is a strong move. Repetition adds nothing; concision counts."},
			{Name: "Wren", Type: "ordinary",
				Personality:     "You are Wren, a nurse of forty-two who follows public debates closely and votes on substance, not on who sounds clever.",
				JudgingCriteria: "You judge whether the arguments connect to how things really work for people, whether claims are backed by something you could check, and whether each side deals honestly with the other's points. Long answers that say little lose you."},
		},
	}
}

// Drawn is the cast of one debate: the two debaters, the judge if there
// is an audience, and the side that speaks first.
type Drawn struct {
	For, Against Persona
	Judge        *Persona
	First        string // For or Against
}

// Draw picks one persona of each pool and the first speaker, the same way
// for the same seed.
func (c *Cast) Draw(seed int64) (Drawn, error) {
	r := rand.New(rand.NewPCG(uint64(seed), uint64(seed)^0x666f72756d))
	d := Drawn{For: c.For[r.IntN(len(c.For))], Against: c.Against[r.IntN(len(c.Against))]}
	if len(c.Audience) > 0 {
		j := c.Audience[r.IntN(len(c.Audience))]
		j.Side = ""
		d.Judge = &j
	}
	d.First = []string{For, Against}[r.IntN(2)]
	names := []string{d.For.Name, d.Against.Name}
	if d.Judge != nil {
		names = append(names, d.Judge.Name)
	}
	for i := range names {
		for j := i + 1; j < len(names); j++ {
			if strings.EqualFold(names[i], names[j]) {
				return d, fmt.Errorf("two of the drawn personas are both called %q: give the personas of a cast different names", names[i])
			}
		}
	}
	return d, nil
}
