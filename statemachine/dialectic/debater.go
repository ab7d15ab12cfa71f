package dialectic

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/moot-dev/moot/internal/english"
)

// Ground is one piece of evidence for a claim.
type Ground struct {
	Source    string
	Content   string
	Relevance string
}

// Link is an attack on an opponent's argument or a defence of one's own.
type Link struct {
	TargetID string
	Type     string
	Content  string
	// Unlinked marks an attack or defence handed in without a target,
	// which only the dialectic rules accept (see ParseDialecticSubmissions):
	// it is written in the argument's body, TargetID and Type as dialectic
	// showed them, and links nothing.
	Unlinked bool
}

// Submission is one argument in Toulmin form, as a debater hands it in.
type Submission struct {
	Title     string
	Claim     string
	Grounds   []Ground
	Warrant   string
	Backing   string
	Qualifier string
	Attacks   []Link
	Defends   []Link
	// Unknown lists the keys of the argument that are none of the above,
	// in the order given; they are ignored.
	Unknown []string
}

// AttackTypes() returns the attack types, in FORMAT.md's order. Each call
// returns a new slice, which the caller may change.
func AttackTypes() []string {
	return []string{"claim_attack", "grounds_attack", "warrant_attack", "backing_attack"}
}

// DefenceTypes() returns the defence types, in FORMAT.md's order. Each call
// returns a new slice, which the caller may change.
func DefenceTypes() []string { return []string{"reinforce", "clarify", "concede_and_pivot"} }

// Limits of a submission's lists.
const (
	MaxGrounds = 3
	MaxAttacks = 3
	MaxDefends = 2
)

func oneOf(s string, set []string) bool {
	for _, x := range set {
		if s == x {
			return true
		}
	}
	return false
}

// ParseSubmissions reads what side handed in for exchange and checks it
// against every rule: the shape (three arguments in the opening, one after),
// the required fields, the attack and defence types, and that every target
// is an existing argument of the right side from an earlier exchange. Soft
// limits and unknown keys are warnings. Problems are worded for the person or
// model that wrote the answer.
func ParseSubmissions(data []byte, side Side, exchange int, known Known) ([]Submission, Problems) {
	return parseSubmissions(data, side, exchange, known, false)
}

// ParseDialecticSubmissions is ParseSubmissions under the rules of
// dialectic's debate_ops, for moot debate-ops, which stands in for it: an
// attack or defence whose target_id is missing, null or the empty string
// is accepted and links nothing, as dialectic dropped it from the
// argument's links and kept it in the body.
func ParseDialecticSubmissions(data []byte, side Side, exchange int, known Known) ([]Submission, Problems) {
	return parseSubmissions(data, side, exchange, known, true)
}

func parseSubmissions(data []byte, side Side, exchange int, known Known, dialectic bool) ([]Submission, Problems) {
	var p Problems
	raw, err := answerJSON(data)
	if err != nil {
		p.errorf("%s", err)
		return nil, p
	}
	var items []json.RawMessage
	want := ArgumentsPerSide(exchange)
	switch kind(raw) {
	case "an array":
		if err := json.Unmarshal(raw, &items); err != nil {
			p.errorf("invalid JSON array: %s", err)
			return nil, p
		}
		if want == 1 {
			if len(items) != 1 {
				p.errorf("exchange %d is a rebuttal: hand in one argument as a JSON object, not an array of %d", exchange, len(items))
				return nil, p
			}
			p.warnf("exchange %d is a rebuttal: expected a JSON object, took the one argument out of its array", exchange)
		}
	case "an object":
		items = []json.RawMessage{raw}
		// moot's opening template asks for {"arguments": [three]}: an
		// object holding nothing but that array is the opening. Models
		// send the same shape for a rebuttal, with one argument in it.
		if inner, ok := argumentsArray(raw); ok {
			if err := json.Unmarshal(inner, &items); err != nil {
				p.errorf("arguments: invalid JSON array: %s", err)
				return nil, p
			}
			if want == 1 {
				if len(items) != 1 {
					p.errorf("exchange %d is a rebuttal: hand in one argument as a JSON object, not \"arguments\" holding %d", exchange, len(items))
					return nil, p
				}
				p.warnf("exchange %d is a rebuttal: expected a JSON object, took the one argument out of \"arguments\"", exchange)
			}
		}
	default:
		p.errorf("the answer must be a JSON object (or an array of three for the opening), found %s", kind(raw))
		return nil, p
	}
	if len(items) != want {
		if want == 3 {
			p.errorf("exchange 0 is the opening: hand in an array of exactly 3 arguments, found %d", len(items))
		} else {
			p.errorf("exchange %d is a rebuttal: hand in exactly 1 argument, found %d", exchange, len(items))
		}
		return nil, p
	}
	subs := make([]Submission, 0, len(items))
	for i, item := range items {
		path := ""
		if want > 1 {
			path = fmt.Sprintf("argument %d: ", i+1)
		}
		subs = append(subs, parseSubmission(&p, path, item, side, exchange, known, dialectic))
	}
	if !p.OK() {
		return nil, p
	}
	return subs, p
}

// argumentsArray returns the array of an object whose one key is
// "arguments" and holds an array.
func argumentsArray(raw json.RawMessage) (json.RawMessage, bool) {
	f, err := decodeObject(raw)
	if err != nil || len(f.keys) != 1 || !f.present("arguments") {
		return nil, false
	}
	v := f.vals["arguments"]
	if kind(v) != "an array" {
		return nil, false
	}
	return v, true
}

func parseSubmission(p *Problems, path string, raw json.RawMessage, side Side, exchange int, known Known, dialectic bool) Submission {
	var s Submission
	f, err := decodeObject(raw)
	if err != nil {
		p.errorf("%s%s", path, err)
		return s
	}
	keys := []string{"title", "claim", "grounds", "warrant", "backing", "qualifier", "attacks", "defends"}
	f.unknown(p, path, keys...)
	for _, k := range f.keys {
		if !oneOf(k, keys) {
			s.Unknown = append(s.Unknown, k)
		}
	}
	s.Title = f.str(p, path, "title", true)
	s.Claim = f.str(p, path, "claim", true)
	s.Warrant = f.str(p, path, "warrant", true)
	s.Backing = f.str(p, path, "backing", false)
	s.Qualifier = f.str(p, path, "qualifier", false)

	if n := words(s.Title); s.Title != "" && (n < 5 || n > 7) {
		p.warnf("%stitle: %s, outside the soft limit of 5-7", path, english.Count(n, "word"))
		p.Soft = append(p.Soft, p.Warnings[len(p.Warnings)-1])
	}
	softMax(p, path, "claim", s.Claim, 25)
	softMax(p, path, "warrant", s.Warrant, 50)
	softMax(p, path, "backing", s.Backing, 50)
	softMax(p, path, "qualifier", s.Qualifier, 10)

	grounds, ok := f.list(p, path, "grounds")
	switch {
	case !f.present("grounds"):
		p.errorf("%sgrounds: is required (1 to %d grounds)", path, MaxGrounds)
	case ok && (len(grounds) < 1 || len(grounds) > MaxGrounds):
		p.errorf("%sgrounds: must hold 1 to %d grounds, found %d", path, MaxGrounds, len(grounds))
	case ok:
		for i, g := range grounds {
			gp := fmt.Sprintf("%sgrounds[%d]", path, i)
			gf, err := decodeObject(g)
			if err != nil {
				p.errorf("%s: %s", gp, err)
				continue
			}
			gf.unknown(p, gp+": ", "source", "content", "relevance")
			gr := Ground{
				Source:    gf.str(p, gp+".", "source", true),
				Content:   gf.str(p, gp+".", "content", true),
				Relevance: gf.str(p, gp+".", "relevance", true),
			}
			softMax(p, gp+".", "content", gr.Content, 100)
			softMax(p, gp+".", "relevance", gr.Relevance, 30)
			s.Grounds = append(s.Grounds, gr)
		}
	}

	s.Attacks = parseLinks(p, path, f, "attacks", "attack_type", AttackTypes(), MaxAttacks, side.Other(), exchange, known, dialectic)
	s.Defends = parseLinks(p, path, f, "defends", "defense_type", DefenceTypes(), MaxDefends, side, exchange, known, dialectic)
	return s
}

func parseLinks(p *Problems, path string, f *fields, key, typeKey string, types []string, max int, targetSide Side, exchange int, known Known, dialectic bool) []Link {
	items, _ := f.list(p, path, key)
	if len(items) > max {
		p.errorf("%s%s: at most %d allowed, found %d", path, key, max, len(items))
		return nil
	}
	verb := "attack"
	whose := "an opponent's"
	if key == "defends" {
		verb = "defend"
		whose = "your own side's"
	}
	var links []Link
	seen := map[[2]string]bool{}
	for i, item := range items {
		at := fmt.Sprintf("%s%s[%d]", path, key, i)
		lp := at + "."
		lf, err := decodeObject(item)
		if err != nil {
			p.errorf("%s: %s", at, err)
			continue
		}
		lf.unknown(p, at+": ", "target_id", typeKey, "content")
		if dialectic {
			if l, ok := unlinked(p, lp, lf, typeKey); ok {
				links = append(links, l)
				continue
			}
		}
		l := Link{
			TargetID: lf.str(p, lp, "target_id", true),
			Type:     lf.str(p, lp, typeKey, true),
			Content:  lf.str(p, lp, "content", true),
		}
		softMax(p, lp, "content", l.Content, 75)
		if l.Type != "" && !oneOf(l.Type, types) {
			p.errorf("%s%s: %q is not one of %v", lp, typeKey, truncate(l.Type, 40), types)
		}
		if l.TargetID != "" {
			checkTarget(p, lp, verb, whose, l.TargetID, targetSide, exchange, known)
		}
		k := [2]string{l.TargetID, l.Type}
		if seen[k] && l.TargetID != "" {
			p.warnf("%s%s %s twice with %s", lp, verb+"s", l.TargetID, l.Type)
		}
		seen[k] = true
		links = append(links, l)
	}
	return links
}

// unlinked reads a link without a target under dialectic's rules: ok is
// set when target_id is missing, null or "". Its body shows the target as
// dialectic did ("unknown" when missing, "None" when null) and its type as
// given, or "unspecified"; the type is not checked, as dialectic did not
// check it.
func unlinked(p *Problems, lp string, lf *fields, typeKey string) (Link, bool) {
	raw, ok := lf.vals["target_id"]
	var l Link
	switch {
	case !ok:
		l.TargetID = "unknown"
	case bytes.Equal(bytes.TrimSpace(raw), []byte("null")):
		l.TargetID = "None"
	case bytes.Equal(bytes.TrimSpace(raw), []byte(`""`)):
	default:
		return Link{}, false
	}
	l.Unlinked = true
	l.Type = lf.str(p, lp, typeKey, false)
	if l.Type == "" {
		l.Type = "unspecified"
	}
	l.Content = lf.str(p, lp, "content", false)
	return l, true
}

func checkTarget(p *Problems, lp, verb, whose, target string, side Side, exchange int, known Known) {
	id, err := ParseID(target)
	if err != nil {
		p.errorf("%starget_id: %s", lp, err)
		return
	}
	a, ok := known[target]
	if !ok || id.Exchange >= exchange {
		if Opening(exchange) {
			p.errorf("%starget_id: the opening attacks and defends nothing (found %s)", lp, target)
			return
		}
		// An argument of this exchange is written beside this one, and a
		// known one of a later exchange exists but is not earlier; an unknown
		// id of a later exchange is simply no argument of this debate.
		if id.Exchange == exchange || (ok && id.Exchange > exchange) {
			p.errorf("%starget_id: %s is not from an earlier exchange; you can only %s arguments from exchanges 0 to %d", lp, target, verb, exchange-1)
			return
		}
		p.errorf("%starget_id: %s does not exist in this debate", lp, target)
		return
	}
	if a.Side != side {
		p.errorf("%starget_id: %s is %s; you can only %s %s arguments", lp, target, english.A(a.Side.Name()+" argument"), verb, whose)
	}
}
