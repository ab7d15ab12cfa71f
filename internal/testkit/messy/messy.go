// Package messy is a catalogue of the ways chat models write an answer
// that a person would accept but that is not exactly what was asked: JSON
// in a fence or among sentences, a trailing comma, single or smart quotes,
// a score written "7/10", a name in bold or with a title, a byte order
// mark, CRLF line ends. Each Style takes a right answer and writes it so.
//
// Handler makes a fake OpenAI-compatible model of it: it answers every
// request as another handler would (a protocol's scripted fake, or the
// built-in model through Builtin), in the next style of a Rotation, so
// that a test can run a debate of every protocol to its end against
// answers as real models write them. The styles moot reads are documented
// with internal/lenient, which reads them.
package messy

import (
	"fmt"
	"strings"
	"sync"
)

// Kind is the kind of answer a style applies to.
type Kind int

const (
	// JSON is an answer that is a JSON object or array.
	JSON Kind = iota
	// Name is an answer that is a name alone, such as forum's winner
	// confirmation.
	Name
)

// Style is one way a model writes an answer.
type Style struct {
	Name string
	Kind Kind
	// apply writes a right answer in the style; ok is false when the
	// style has nothing to change in it (a score style, say, applied to
	// an answer without a score).
	apply func(answer string) (string, bool)
	// specific is set for a style that applies only to answers holding
	// some kind of value (a score, a name, an id, a flag).
	specific bool
}

// Apply returns answer written in the style, and false when the style
// does not apply to it (answer is then returned as it is).
func (s Style) Apply(answer string) (string, bool) {
	if KindOf(answer) != s.Kind {
		return answer, false
	}
	out, ok := s.apply(answer)
	if !ok {
		return answer, false
	}
	return out, true
}

// KindOf says what kind of answer answer is: JSON when it is one JSON
// object or array, Name when it is a line of a few words, and -1 for
// anything else (prose, which no style changes).
func KindOf(answer string) Kind {
	t := strings.TrimSpace(answer)
	if strings.HasPrefix(t, "{") || strings.HasPrefix(t, "[") {
		if _, err := parse(t); err == nil {
			return JSON
		}
		return -1
	}
	if t != "" && !strings.Contains(t, "\n") && len(strings.Fields(t)) <= 5 {
		return Name
	}
	return -1
}

// Keys whose values are names of the cast, ids of a debate's arguments or
// points, scores and choices from a list.
var (
	nameKeys  = map[string]bool{"winner": true, "reply_to": true, "persona": true, "personas": true}
	idKeys    = map[string]bool{"argument_id": true, "target_id": true, "triggered_by": true, "id": true}
	scoreKeys = map[string]bool{"score": true, "new_score": true, "old_score": true}
	// enumKeys hold one of a list of words: a severity, a status, a kind.
	enumKeys = map[string]bool{"severity": true, "status": true, "attack_type": true, "defense_type": true,
		"type": true, "kind": true, "position": true}
	// scoreMaps hold scores by name: forum's verdict, refine's criteria.
	scoreMaps = map[string]bool{"scores": true, "criteria": true}
)

// visit calls f for n and every value inside it, with the key it is
// under (an array's element is under the array's key) and the key of the
// object around that.
func visit(n *node, key, parent string, f func(n *node, key, parent string)) {
	f(n, key, parent)
	for i, v := range n.vals {
		switch n.kind {
		case 'o':
			visit(v, n.keys[i], key, f)
		case 'a':
			visit(v, key, parent, f)
		}
	}
}

// score reports whether n is a score: a number under a score key or in a
// map of scores.
func score(n *node, key, parent string) bool {
	return n.kind == 'n' && (scoreKeys[key] || scoreMaps[parent])
}

// tenth reports whether the score n is a whole number from 2 to 10, which
// is a score on a scale to 10 whatever the protocol (dialectic's scale
// ends at 1).
func tenth(n *node) bool {
	switch n.str {
	case "2", "3", "4", "5", "6", "7", "8", "9", "10":
		return true
	}
	return false
}

// jsonStyle is a style that rewrites the values of a JSON answer with
// values (which reports whether it changed any), prints it with p and
// wraps the text with wrap ("%s" the JSON).
func jsonStyle(name string, values func(n *node) bool, p printer, wrap string) Style {
	if wrap == "" {
		wrap = "%s"
	}
	return Style{Name: name, Kind: JSON, specific: values != nil, apply: func(answer string) (string, bool) {
		n, err := parse(strings.TrimSpace(answer))
		if err != nil {
			return "", false
		}
		if values != nil && !values(n) {
			return "", false
		}
		out := fmt.Sprintf(wrap, p.print(n))
		if p.nl == "\r\n" {
			out = strings.ReplaceAll(strings.ReplaceAll(out, "\r\n", "\n"), "\n", "\r\n")
		}
		return out, true
	}}
}

// scores rewrites every score that keep accepts with f.
func scores(keep func(n *node) bool, f func(n *node)) func(n *node) bool {
	return func(root *node) bool {
		changed := false
		visit(root, "", "", func(n *node, key, parent string) {
			if score(n, key, parent) && keep(n) {
				f(n)
				changed = true
			}
		})
		return changed
	}
}

// strs rewrites every string under one of keys with f.
func strs(keys map[string]bool, f func(s string) (string, bool)) func(n *node) bool {
	return func(root *node) bool {
		changed := false
		visit(root, "", "", func(n *node, key, parent string) {
			if n.kind == 's' && keys[key] && n.str != "" {
				if s, ok := f(n.str); ok {
					n.str = s
					changed = true
				}
			}
		})
		return changed
	}
}

func every(*node) bool { return true }

func asString(n *node) { n.kind = 's' }

func nameStyle(name string, f func(s string) string) Style {
	return Style{Name: name, Kind: Name, apply: func(answer string) (string, bool) {
		return f(strings.TrimSpace(answer)), true
	}}
}

var indented = printer{indent: "  "}

// Styles returns the catalogue, in a fixed order: the JSON styles, then
// the styles of a name alone.
func Styles() []Style {
	return []Style{
		// Where the JSON is.
		jsonStyle("fence tagged json", nil, indented, "```json\n%s\n```"),
		jsonStyle("fence without a tag", nil, indented, "```\n%s\n```"),
		jsonStyle("fence tagged JSON in capitals", nil, indented, "```JSON\n%s\n```"),
		jsonStyle("fence with prose around it", nil, indented, "Here is the JSON you asked for:\n\n```json\n%s\n```\n\nLet me know if you need anything else."),
		jsonStyle("here is my answer", nil, printer{}, "Here is my answer: %s"),
		jsonStyle("a sentence after", nil, indented, "%s\n\nI hope this helps!"),
		jsonStyle("sentences on both sides", nil, indented, "Sure! After careful thought, my evaluation is below.\n\n%s\n\nThis reflects my honest assessment."),
		jsonStyle("bold label and a fence", nil, indented, "**Answer:**\n\n```json\n%s\n```"),
		jsonStyle("answer tags", nil, indented, "<answer>\n%s\n</answer>"),
		jsonStyle("fence never closed", nil, indented, "```json\n%s\n"),
		jsonStyle("braces in the prose after", nil, printer{}, "%s\n\n(Every score is on the {0-10} scale given.)"),
		jsonStyle("byte order mark", nil, printer{}, "\ufeff%s"),
		jsonStyle("CRLF line ends", nil, printer{indent: "  ", nl: "\r\n"}, "```json\n%s\n```\n"),
		jsonStyle("blank lines and spaces around", nil, printer{indent: "    "}, "\n\n   %s   \n\n\n"),
		jsonStyle("tab indents", nil, printer{indent: "\t"}, ""),
		jsonStyle("a reasoning preamble", nil, indented, "Let me think about this step by step. The arguments differ in strength.\n\nFinal answer:\n%s"),
		// How the JSON is written.
		jsonStyle("trailing commas", nil, printer{indent: "  ", trailingComma: true}, ""),
		jsonStyle("single quotes", nil, printer{indent: "  ", keys: single, strs: single}, ""),
		jsonStyle("a Python dict", nil, printer{keys: single, strs: single, python: true}, ""),
		jsonStyle("smart quotes", nil, printer{indent: "  ", keys: smart, strs: smart}, ""),
		jsonStyle("bare keys", nil, printer{indent: "  ", keys: bare}, ""),
		jsonStyle("a comment", nil, printer{indent: "  ", comment: true}, "```json\n%s\n```"),
		jsonStyle("raw line ends in strings", func(n *node) bool {
			found := false
			visit(n, "", "", func(n *node, _, _ string) { found = found || n.kind == 's' && strings.Contains(n.str, "\n") })
			return found
		}, printer{indent: "  ", rawNewlines: true}, ""),
		// How a score is written.
		jsonStyle("scores as strings", scores(every, asString), indented, ""),
		jsonStyle("scores as fractions of ten", scores(tenth, func(n *node) { n.kind, n.str = 's', n.str+"/10" }), indented, ""),
		jsonStyle("scores out of ten", scores(tenth, func(n *node) { n.kind, n.str = 's', n.str+" out of 10" }), indented, ""),
		jsonStyle("scores with a point", scores(tenth, func(n *node) { n.str += ".0" }), indented, ""),
		jsonStyle("scores as strings with a point", scores(tenth, func(n *node) { n.kind, n.str = 's', n.str+".0" }), indented, ""),
		jsonStyle("bare fractions", scores(tenth, func(n *node) { n.str += "/10" }), indented, ""),
		// How a flag or a choice is written.
		jsonStyle("flags as strings", func(root *node) bool {
			changed := false
			visit(root, "", "", func(n *node, _, _ string) {
				if n.kind == 'b' {
					n.kind, n.str, changed = 's', map[bool]string{true: "true", false: "false"}[n.b], true
				}
			})
			return changed
		}, indented, ""),
		jsonStyle("flags as yes or no", func(root *node) bool {
			changed := false
			visit(root, "", "", func(n *node, _, _ string) {
				if n.kind == 'b' {
					n.kind, n.str, changed = 's', map[bool]string{true: "Yes", false: "No"}[n.b], true
				}
			})
			return changed
		}, indented, ""),
		jsonStyle("choices capitalised", strs(enumKeys, func(s string) (string, bool) {
			t := strings.ToUpper(s[:1]) + s[1:]
			return t, t != s
		}), indented, ""),
		jsonStyle("choices with spaces", strs(enumKeys, func(s string) (string, bool) {
			return strings.ReplaceAll(s, "_", " "), strings.Contains(s, "_")
		}), indented, ""),
		// How a name or an id is written.
		jsonStyle("names with trailing spaces", strs(nameKeys, func(s string) (string, bool) { return s + "  ", true }), indented, ""),
		jsonStyle("names in smart quotes", strs(nameKeys, func(s string) (string, bool) { return "“" + s + "”", true }), indented, ""),
		jsonStyle("names in bold", strs(nameKeys, func(s string) (string, bool) { return "**" + s + "**", true }), indented, ""),
		jsonStyle("names with a title", strs(nameKeys, func(s string) (string, bool) { return "Prof. " + s, true }), indented, ""),
		jsonStyle("names with unicode dashes", strs(nameKeys, func(s string) (string, bool) {
			return strings.ReplaceAll(s, "-", "‐"), strings.Contains(s, "-")
		}), indented, ""),
		jsonStyle("ids in spaces and smart quotes", strs(idKeys, func(s string) (string, bool) { return " “" + s + "” ", true }), indented, ""),
		jsonStyle("ids in back quotes", strs(idKeys, func(s string) (string, bool) { return "`" + s + "`", true }), indented, ""),

		// A name alone.
		nameStyle("the winner is", func(s string) string { return "The winner is " + s + "." }),
		nameStyle("bold name wins", func(s string) string { return "**" + s + "** wins" }),
		nameStyle("trailing whitespace", func(s string) string { return s + "   \n" }),
		nameStyle("lower case", strings.ToLower),
		nameStyle("capitals and a bang", func(s string) string { return strings.ToUpper(s) + "!" }),
		nameStyle("smart quotes around", func(s string) string { return "“" + s + "”" }),
		nameStyle("a label", func(s string) string { return "Winner: " + s }),
		nameStyle("a sentence", func(s string) string { return "After weighing both cases, I confirm " + s + " as the winner." }),
	}
}

// Rotation hands out the styles in turn: each answer takes, of the
// styles of its kind that apply to it, the one used least so far (on a
// tie, one that applies to some values only, then the next in turn), so
// that a style that applies to few answers (a name's, an id's) is not
// passed over. It counts how often each was used
// and remembers each answer it wrote, to give a fake its own answers back
// (see Handler). It is safe for concurrent use.
type Rotation struct {
	mu     sync.Mutex
	styles []Style
	next   map[Kind]int
	used   map[string]int
	plain  map[string]string
}

// NewRotation returns a rotation of the catalogue's styles, starting at
// each kind's first.
func NewRotation() *Rotation {
	return &Rotation{styles: Styles(), next: map[Kind]int{}, used: map[string]int{}, plain: map[string]string{}}
}

// Apply writes answer in the style its turn gives (see Rotation), and
// returns the style's name ("" when none applies: prose, or an answer no
// style changes).
func (r *Rotation) Apply(answer string) (string, string) {
	k := KindOf(answer)
	r.mu.Lock()
	defer r.mu.Unlock()
	var of []Style
	for _, s := range r.styles {
		if s.Kind == k {
			of = append(of, s)
		}
	}
	best, bestAt, out := -1, 0, ""
	for i := range of {
		at := (r.next[k] + i) % len(of)
		s := of[at]
		styled, ok := s.Apply(answer)
		if ok && (best < 0 || r.used[s.Name] < r.used[of[best].Name] ||
			r.used[s.Name] == r.used[of[best].Name] && s.specific && !of[best].specific) {
			best, bestAt, out = at, i, styled
		}
	}
	if best < 0 {
		return answer, ""
	}
	r.next[k] = (r.next[k] + bestAt + 1) % len(of)
	r.used[of[best].Name]++
	r.plain[strings.TrimSpace(out)] = answer
	return out, of[best].Name
}

// Plain returns the answer that Apply wrote as styled, and false when it
// wrote no such text.
func (r *Rotation) Plain(styled string) (string, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	a, ok := r.plain[strings.TrimSpace(styled)]
	return a, ok
}

// Used returns how many answers each style has written.
func (r *Rotation) Used() map[string]int {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make(map[string]int, len(r.used))
	for k, v := range r.used {
		out[k] = v
	}
	return out
}
