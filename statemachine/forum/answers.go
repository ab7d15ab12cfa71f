package forum

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strings"

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

// object reads an answer that must be one JSON object.
func object(text []byte) (map[string]json.RawMessage, []string) {
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
	switch {
	case !ok:
		errs = append(errs, `winner: missing: the object must have "winner"`)
	case json.Unmarshal(raw, &v.Winner) != nil:
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

// confirmName reads a confirmation answer: exactly one of the two names,
// allowing for surrounding quotes, emphasis, spaces and a final full stop,
// and for case. A name that only contains or is contained in the answer
// (Chen and Prof. Chen) is not a match.
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
	shown := s
	if len(shown) > 80 {
		shown = shown[:80] + "..."
	}
	return "", []string{fmt.Sprintf("the answer must be exactly '%s' or '%s' and nothing else; found %q", a, b, shown)}
}

// quote writes s as a JSON string.
func quote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}
