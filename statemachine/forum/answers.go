package forum

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strings"

	"github.com/moot-dev/moot/internal/frontmatter"
	"github.com/moot-dev/moot/internal/lenient"
	sm "github.com/moot-dev/moot/statemachine"
)

// scoreAnswer is a judge's score of one turn.
type scoreAnswer struct {
	Score     int    `json:"score"`
	Reasoning string `json:"reasoning"`
}

// unfence takes a JSON answer out of a markdown code fence, as models
// writing without structured output often wrap it.
func unfence(text []byte) []byte {
	t := bytes.TrimSpace(text)
	if !bytes.HasPrefix(t, []byte("```")) {
		return t
	}
	t = t[3:]
	if i := bytes.IndexByte(t, '\n'); i >= 0 {
		t = t[i+1:]
	}
	t = bytes.TrimSpace(t)
	t = bytes.TrimSuffix(t, []byte("```"))
	return bytes.TrimSpace(t)
}

// object reads an answer that must be one JSON object. It is read
// strictly first; only when that fails is it read as a person would
// (lenient.JSON: the JSON among sentences, in any fence, with a trailing
// comma or smart quotes), and the strict error is kept when that finds no
// object either. A score written as a string ("7", "7/10", "7 out of
// 10") is then read as the number it is, on the scale from 0 to 10.
func object(text []byte) (map[string]json.RawMessage, []string) {
	obj, errs := strictObject(text)
	if errs != nil {
		body, ok := lenient.JSON(text)
		if !ok || body[0] != '{' {
			return nil, errs
		}
		obj = nil
		if json.Unmarshal(body, &obj) != nil {
			return nil, errs
		}
	}
	for k, v := range obj {
		if k == "score" || k == "scores" {
			obj[k] = lenient.Numbers(v, func(p lenient.Path) float64 {
				if k == "score" && len(p) == 0 || k == "scores" && len(p) == 1 {
					return 10
				}
				return 0
			})
		}
	}
	return obj, nil
}

// strictObject reads an answer that is one JSON object, alone or in a
// fence.
func strictObject(text []byte) (map[string]json.RawMessage, []string) {
	var obj map[string]json.RawMessage
	body := unfence(text)
	if len(body) == 0 || body[0] != '{' {
		return nil, []string{"the answer is not a JSON object: it must start with {"}
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	if err := dec.Decode(&obj); err != nil {
		return nil, []string{"the answer is not valid JSON: " + err.Error()}
	}
	if dec.More() {
		return nil, []string{"the answer holds more than one JSON object: give only one"}
	}
	if err := frontmatter.CheckDuplicates(body[:dec.InputOffset()]); err != nil {
		return nil, []string{err.Error() + ": give each field once"}
	}
	return obj, nil
}

// wholeScore reads a score that must be a whole number from 0 to 10.
func wholeScore(raw json.RawMessage, field string) (int, string) {
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		return 0, fmt.Sprintf("%s: %s is not JSON", field, raw)
	}
	f, ok := v.(float64)
	switch {
	case !ok:
		return 0, fmt.Sprintf("%s: want a whole number from 0 to 10, found %s", field, raw)
	case f != math.Trunc(f):
		return 0, fmt.Sprintf("%s: %s is not a whole number: give a whole number from 0 to 10", field, raw)
	case f < 0 || f > 10:
		return 0, fmt.Sprintf("%s: %s is outside 0 to 10", field, raw)
	}
	return int(f), ""
}

// parseScore checks a score answer: a JSON object whose score is a whole
// number from 0 to 10 and whose reasoning is text. Nothing is made up
// for what is missing.
func parseScore(text []byte) (scoreAnswer, []string) {
	var s scoreAnswer
	obj, errs := object(text)
	if errs != nil {
		return s, errs
	}
	if raw, ok := obj["score"]; !ok {
		errs = append(errs, `score: missing: the object must have "score"`)
	} else if n, e := wholeScore(raw, "score"); e != "" {
		errs = append(errs, e)
	} else {
		s.Score = n
	}
	if raw, ok := obj["reasoning"]; !ok {
		errs = append(errs, `reasoning: missing: the object must have "reasoning"`)
	} else if err := json.Unmarshal(raw, &s.Reasoning); err != nil {
		errs = append(errs, fmt.Sprintf("reasoning: want text, found %s", raw))
	}
	return s, errs
}

// scoreSchema is the shape of a score answer.
var scoreSchema = map[string]any{
	"type": "object",
	"properties": map[string]any{
		"score":     map[string]any{"type": "integer", "minimum": 0, "maximum": 10},
		"reasoning": map[string]any{"type": "string"},
	},
	"required":             []string{"score", "reasoning"},
	"additionalProperties": false,
}

// verdictSchema is the shape of a verdict answer for debaters named a and
// b: the winner one of the two names, or the name confirmed when the judge
// confirmed one, and each of the two scored 0 to 10.
func verdictSchema(a, b, confirmed string) map[string]any {
	winners := []string{a, b}
	if confirmed != "" {
		winners = []string{confirmed}
	}
	score := sm.SchemaInteger(0, 10)
	return sm.SchemaObject(map[string]any{
		"winner": sm.SchemaEnum(winners),
		"scores": sm.SchemaObject(map[string]any{a: score, b: score}, a, b),
	}, "winner", "scores")
}

// verdictAnswer is the judge's verdict, by name.
type verdictAnswer struct {
	Winner string
	Scores map[string]int
}

// parseVerdict checks a verdict answer for debaters named a and b: the
// winner one of the two names exactly, the one confirmed when one was,
// both scored 0 to 10, and the winner not below the loser. A winner below
// the loser is sent back to be put right, never swapped silently.
func parseVerdict(text []byte, a, b, confirmed string) (verdictAnswer, []string) {
	v := verdictAnswer{Scores: map[string]int{}}
	obj, errs := object(text)
	if errs != nil {
		return v, errs
	}
	raw, ok := obj["winner"]
	if ok && json.Unmarshal(raw, &v.Winner) == nil && v.Winner != a && v.Winner != b {
		// "Archie ", "**Archie**", "Prof. Archie": the name it is.
		if i, ok := lenient.Match(v.Winner, []string{a, b}); ok {
			v.Winner = []string{a, b}[i]
		}
	}
	switch {
	case !ok:
		errs = append(errs, `winner: missing: the object must have "winner"`)
	case json.Unmarshal(raw, new(string)) != nil:
		errs = append(errs, fmt.Sprintf("winner: want a name, found %s", raw))
	case v.Winner != a && v.Winner != b:
		errs = append(errs, fmt.Sprintf("winner: %q is neither %q nor %q: give one of the two names exactly", v.Winner, a, b))
	case confirmed != "" && v.Winner != confirmed:
		errs = append(errs, fmt.Sprintf("winner: you confirmed %q as the winner, but the JSON names %q: the winner must be %q, consistent with your deliberation", confirmed, v.Winner, confirmed))
	}
	var scores map[string]json.RawMessage
	if raw, ok := obj["scores"]; !ok {
		errs = append(errs, `scores: missing: the object must have "scores"`)
	} else if err := json.Unmarshal(raw, &scores); err != nil {
		errs = append(errs, fmt.Sprintf("scores: want an object of the two names and their scores, found %s", raw))
	} else {
		scores = byName(scores, a, b)
		for _, n := range []string{a, b} {
			r, ok := scores[n]
			if !ok {
				errs = append(errs, fmt.Sprintf("scores: %q has no score", n))
				continue
			}
			s, e := wholeScore(r, fmt.Sprintf("scores.%s", n))
			if e != "" {
				errs = append(errs, e)
				continue
			}
			v.Scores[n] = s
		}
		for n := range scores {
			if n != a && n != b {
				errs = append(errs, fmt.Sprintf("scores: %q is not a debater: name only %q and %q", n, a, b))
			}
		}
	}
	if len(errs) == 0 {
		loser := a
		if v.Winner == a {
			loser = b
		}
		if v.Scores[v.Winner] < v.Scores[loser] {
			errs = append(errs, fmt.Sprintf("scores: the winner, %s, has %d and %s has %d: a winner cannot score lower than the loser; if the scores are the wrong way round, swap them", v.Winner, v.Scores[v.Winner], loser, v.Scores[loser]))
		}
	}
	return v, errs
}

// byName returns scores with each key that is not a or b but that
// lenient.Match reads as one of them ("Archie ", "Prof. Archie") keyed by
// that name, unless the name is given as it is too.
func byName(scores map[string]json.RawMessage, a, b string) map[string]json.RawMessage {
	out := make(map[string]json.RawMessage, len(scores))
	for k, v := range scores {
		out[k] = v
	}
	for k, v := range scores {
		if k == a || k == b {
			continue
		}
		i, ok := lenient.Match(k, []string{a, b})
		if !ok {
			continue
		}
		n := []string{a, b}[i]
		if _, given := out[n]; given {
			continue
		}
		delete(out, k)
		out[n] = v
	}
	return out
}

// confirmName reads a confirmation answer: the one of the two names it
// names. An answer that is one of the names (spaces, quotes, emphasis, a
// final full stop and case aside) is that name; else an answer that
// mentions exactly one of the two as whole words ("The winner is
// Archie.", "**Archie** wins") is that one. A name inside the other
// (Chen in Prof. Chen) counts only where it stands alone. An answer that
// names both or neither is sent back, saying what to write.
func confirmName(text []byte, a, b string) (string, []string) {
	s := strings.TrimSpace(string(text))
	for {
		t := strings.TrimSpace(strings.TrimRight(s, ".!"))
		t = strings.Trim(t, "'\"`*_“”‘’")
		t = strings.TrimSpace(t)
		if t == s {
			break
		}
		s = t
	}
	for _, n := range []string{a, b} {
		if strings.EqualFold(s, n) {
			return n, nil
		}
	}
	named := lenient.Named(string(text), []string{a, b})
	if len(named) == 1 {
		return []string{a, b}[named[0]], nil
	}
	shown := s
	if len(shown) > 80 {
		shown = shown[:80] + "..."
	}
	what := "names neither of them"
	if len(named) == 2 {
		what = "names both"
	}
	return "", []string{fmt.Sprintf("your answer %s (found %q): write only the winner's name, exactly '%s' or '%s', and nothing else", what, shown, a, b)}
}

// quote writes s as a JSON string.
func quote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}
