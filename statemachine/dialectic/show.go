package dialectic

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"github.com/moot-dev/moot/internal/escape"
	"github.com/moot-dev/moot/internal/judging"
	sm "github.com/moot-dev/moot/statemachine"
)

var (
	_ sm.PartIDs    = Protocol{}
	_ sm.ShowLayout = (*stepDebate)(nil)
)

// CheckPartID says what is wrong with id as an argument's id.
func (Protocol) CheckPartID(id string) error {
	_, err := ParseID(id)
	return err
}

// looseID reads ids as people type them: any case, any number of
// leading zeros, a dash for the underscore (Prop-1, opp_0a).
var looseID = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^(?i)(prop|opp)[_-]?0*([0-9]{1,5})([a-c]?)$`) })

// PartIDsMeant returns the argument ids that id, as a person may type it,
// most likely means: "prop_001" for "Prop-1", then "prop_000a" for
// "prop_0", the first opening argument.
func (Protocol) PartIDsMeant(id string) []string {
	m := looseID().FindStringSubmatch(strings.TrimSpace(id))
	if m == nil {
		return nil
	}
	n, _ := strconv.Atoi(m[2])
	want := fmt.Sprintf("%s_%03d%s", strings.ToLower(m[1]), n, strings.ToLower(m[3]))
	if n == 0 && m[3] == "" {
		return []string{want, want + "a"}
	}
	return []string{want}
}

// PartNoun returns "argument".
func (s *stepDebate) PartNoun() string { return "argument" }

// PartList lists every argument, a line each: id, side, exchange, current
// score and title.
func (s *stepDebate) PartList() sm.PartList {
	deb := s.deb
	rows := []map[string]any{}
	for _, arg := range deb.Arguments {
		row := map[string]any{"id": arg.ID, "side": arg.Side, "exchange": arg.Exchange, "score": nil, "title": arg.Title}
		if rec, ok := deb.Scores.Get(arg.ID); ok {
			row["score"] = rec.CurrentScore
		}
		rows = append(rows, row)
	}
	l := sm.PartList{JSON: rows}
	if len(deb.Arguments) == 0 {
		id := escape.Terminal(deb.Header.ID, false)
		l.None = fmt.Sprintf("%s has no arguments yet; 'moot status %s' says what it waits for", id, id)
		return l
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%-10s %-12s %-9s %-6s %s\n", "id", "side", "exchange", "score", "title")
	for _, arg := range deb.Arguments {
		score := "-"
		if rec, ok := deb.Scores.Get(arg.ID); ok {
			score = FormatScore(rec.CurrentScore)
		}
		fmt.Fprintf(&b, "%-10s %-12s %-9d %-6s %s\n", arg.ID, arg.Side.Name(), arg.Exchange, score, escape.Terminal(arg.Title, false))
	}
	l.Text = b.String()
	return l
}

// ShowPart shows the argument called id with its score, the history of
// its score, its strength in the graph of attacks and defences, the
// scores of the panel's judges, and its body.
func (s *stepDebate) ShowPart(id string) (string, any, bool) {
	arg, ok := s.deb.Argument(id)
	if !ok {
		return "", nil, false
	}
	rec, scored := s.deb.Scores.Get(id)
	j := s.Judgments()
	strength, hasStrength := judging.Strengths(j)[id]
	judges := map[string]float64{}
	var judgeNames []string
	for _, js := range j.Judges {
		if v, ok := js.Final[id]; ok && js.Kind != sm.KindOfficial {
			judges[js.Name] = v
			judgeNames = append(judgeNames, js.Name)
		}
	}
	out := map[string]any{
		"id": arg.ID, "side": arg.Side, "exchange": arg.Exchange, "title": arg.Title, "claim": arg.ClaimText(),
		"attacks": nonNilTargets(arg.Attacks), "defends": nonNilTargets(arg.Defends), "body": arg.Body,
		"current_score": nil, "history": []any{}, "graph_strength": nil, "judges": judges,
	}
	if hasStrength && scored {
		out["graph_strength"] = strength
	}
	if scored {
		out["current_score"] = rec.CurrentScore
		var hist []map[string]any
		for _, e := range rec.History {
			h := map[string]any{"score": e.Score, "reasoning": e.Reasoning, "scored_at": e.ScoredAt}
			if e.TriggeredBy != "" {
				h["triggered_by"] = e.TriggeredBy
			}
			if e.PreviousScore != nil {
				h["previous_score"] = *e.PreviousScore
			}
			if e.Diff != nil {
				h["diff"] = *e.Diff
			}
			hist = append(hist, h)
		}
		out["history"] = hist
	}
	visible := escape.Terminal
	var w strings.Builder
	fmt.Fprintf(&w, "%s · %s · exchange %d\n", arg.ID, arg.Side.Name(), arg.Exchange)
	fmt.Fprintf(&w, "%s\n\n", visible(arg.Title, false))
	if !scored {
		fmt.Fprintf(&w, "score: not scored yet\n")
	} else {
		fmt.Fprintf(&w, "score: %s\n", FormatScore(rec.CurrentScore))
		for _, e := range rec.History {
			if e.PreviousScore != nil {
				fmt.Fprintf(&w, "  %s  rescored %s → %s", visible(e.ScoredAt, false), FormatScore(*e.PreviousScore), FormatScore(e.Score))
				if e.TriggeredBy != "" {
					fmt.Fprintf(&w, " after %s", visible(e.TriggeredBy, false))
				}
				fmt.Fprintln(&w)
			} else {
				fmt.Fprintf(&w, "  %s  scored %s\n", visible(e.ScoredAt, false), FormatScore(e.Score))
			}
			fmt.Fprintf(&w, "      %s\n", visible(e.Reasoning, false))
		}
		if hasStrength {
			fmt.Fprintf(&w, "graph strength: %.3f (DF-QuAD, from the attacks and defences alone, with the first score as base)\n", strength)
		} else {
			fmt.Fprintf(&w, "graph strength: not evaluated (on a cycle of attacks and defences, or depending on one)\n")
		}
	}
	if len(judgeNames) > 0 {
		parts := make([]string, len(judgeNames))
		for i, n := range judgeNames {
			parts[i] = n + " " + FormatScore(judges[n])
		}
		fmt.Fprintf(&w, "judges: %s\n", strings.Join(parts, ", "))
	}
	fmt.Fprintf(&w, "\n%s\n", visible(strings.TrimRight(arg.Body, "\n"), true))
	return w.String(), out, true
}

// nonNilTargets is t, or an empty list for none, which JSON writes as [].
func nonNilTargets(t []Target) []Target {
	if t == nil {
		return []Target{}
	}
	return t
}
