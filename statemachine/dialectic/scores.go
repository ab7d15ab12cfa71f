package dialectic

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/moot-dev/moot/internal/frontmatter"
)

// TimeLayout is how scored_at is written: RFC 3339 in UTC with
// microseconds and an explicit +00:00 offset, as the original tool wrote it.
const TimeLayout = "2006-01-02T15:04:05.000000+00:00"

// HistoryEntry is one score an argument was given.
type HistoryEntry struct {
	Score         float64
	Reasoning     string
	ScoredAt      string
	TriggeredBy   string
	PreviousScore *float64
	Diff          *float64
	// extra keeps keys moot does not know, so that rewriting loses nothing.
	extra frontmatter.Object
}

// Record is everything scores.json holds about one argument.
type Record struct {
	CurrentScore float64
	History      []HistoryEntry
	extra        frontmatter.Object
}

// Scores is scores.json: a record per argument, in file order.
type Scores struct {
	ids     []string
	records map[string]*Record
}

// NewScores returns an empty scores.json.
func NewScores() *Scores { return &Scores{records: map[string]*Record{}} }

// IDs lists the scored arguments in file order.
func (s *Scores) IDs() []string { return append([]string(nil), s.ids...) }

// Get returns the record of id.
func (s *Scores) Get(id string) (*Record, bool) {
	r, ok := s.records[id]
	return r, ok
}

// Current maps every scored argument to its current score.
func (s *Scores) Current() map[string]float64 {
	m := make(map[string]float64, len(s.ids))
	for _, id := range s.ids {
		m[id] = s.records[id].CurrentScore
	}
	return m
}

// ParseScores reads scores.json.
func ParseScores(data []byte) (*Scores, error) {
	if err := frontmatter.CheckUTF8(data); err != nil {
		return nil, err
	}
	var top frontmatter.Object
	if err := json.Unmarshal(data, &top); err != nil {
		return nil, frontmatter.JSONError(err)
	}
	s := NewScores()
	for _, f := range top.Fields {
		var rec frontmatter.Object
		if err := json.Unmarshal(f.Value, &rec); err != nil {
			return nil, fmt.Errorf("%s: %w", f.Key, frontmatter.JSONError(err))
		}
		r := &Record{}
		for _, rf := range rec.Fields {
			switch rf.Key {
			case "current_score":
				v, err := finite(rf.Value)
				if err != nil {
					return nil, fmt.Errorf("%s.current_score: %w", f.Key, err)
				}
				r.CurrentScore = v
			case "history":
				var hist []frontmatter.Object
				if err := json.Unmarshal(rf.Value, &hist); err != nil {
					return nil, fmt.Errorf("%s.history: %w", f.Key, frontmatter.JSONError(err))
				}
				for i, h := range hist {
					e, err := parseEntry(h)
					if err != nil {
						return nil, fmt.Errorf("%s.history[%d].%w", f.Key, i, err)
					}
					r.History = append(r.History, e)
				}
			default:
				r.extra.Set(rf.Key, rf.Value)
			}
		}
		if _, ok := rec.Get("current_score"); !ok {
			return nil, fmt.Errorf("%s: field \"current_score\" is missing", f.Key)
		}
		s.ids = append(s.ids, f.Key)
		s.records[f.Key] = r
	}
	return s, nil
}

func finite(raw json.RawMessage) (float64, error) {
	var v float64
	// encoding/json leaves a float64 at 0 for null: a null score would read
	// as 0 and be written back as 0.
	if bytes.Equal(bytes.TrimSpace(raw), []byte("null")) {
		return 0, errors.New("must be a number, found null")
	}
	if err := json.Unmarshal(raw, &v); err != nil {
		var typ *json.UnmarshalTypeError
		if errors.As(err, &typ) && strings.HasPrefix(typ.Value, "number") {
			return 0, fmt.Errorf("must be a finite number, found %.20s", bytes.TrimSpace(raw))
		}
		return 0, fmt.Errorf("must be a number, found %.20s", bytes.TrimSpace(raw))
	}
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return 0, errors.New("must be a finite number")
	}
	return v, nil
}

func parseEntry(o frontmatter.Object) (HistoryEntry, error) {
	var e HistoryEntry
	seen := false
	for _, f := range o.Fields {
		var err error
		switch f.Key {
		case "score":
			e.Score, err = finite(f.Value)
			seen = true
		case "reasoning":
			err = json.Unmarshal(f.Value, &e.Reasoning)
		case "scored_at":
			err = json.Unmarshal(f.Value, &e.ScoredAt)
		case "triggered_by":
			err = json.Unmarshal(f.Value, &e.TriggeredBy)
		case "previous_score":
			var v float64
			v, err = finite(f.Value)
			e.PreviousScore = &v
		case "diff":
			var v float64
			v, err = finite(f.Value)
			e.Diff = &v
		default:
			e.extra.Set(f.Key, f.Value)
		}
		if err != nil {
			return e, fmt.Errorf("%s: %w", f.Key, frontmatter.JSONError(err))
		}
	}
	if !seen {
		return e, errors.New("score: is missing")
	}
	return e, nil
}

// Apply appends the history entries of an accepted judgment, stamped with
// at, and moves each argument's current score.
func (s *Scores) Apply(entries []Entry, at time.Time) {
	stamp := at.UTC().Format(TimeLayout)
	// New arguments join the file in moot's id order, whatever order the
	// judge listed them in, so that the same judgment gives the same bytes.
	var added []string
	for _, e := range entries {
		if _, ok := s.records[e.ArgumentID]; !ok {
			s.records[e.ArgumentID] = &Record{}
			added = append(added, e.ArgumentID)
		}
	}
	SortIDs(added)
	s.ids = append(s.ids, added...)
	for _, e := range entries {
		r := s.records[e.ArgumentID]
		r.History = append(r.History, HistoryEntry{
			Score: e.Score, Reasoning: e.Reasoning, ScoredAt: stamp,
			TriggeredBy: e.TriggeredBy, PreviousScore: e.PreviousScore, Diff: e.Diff,
		})
		r.CurrentScore = e.Score
	}
}

// Render writes scores.json.
func (s *Scores) Render() ([]byte, error) {
	var top frontmatter.Object
	for _, id := range s.ids {
		r := s.records[id]
		var rec frontmatter.Object
		if err := rec.SetValue("current_score", r.CurrentScore); err != nil {
			return nil, err
		}
		hist := make([]frontmatter.Object, 0, len(r.History))
		for _, e := range r.History {
			var o frontmatter.Object
			o.SetValue("score", e.Score)
			o.SetValue("reasoning", e.Reasoning)
			o.SetValue("scored_at", e.ScoredAt)
			if e.TriggeredBy != "" {
				o.SetValue("triggered_by", e.TriggeredBy)
			}
			if e.PreviousScore != nil {
				o.SetValue("previous_score", *e.PreviousScore)
			}
			if e.Diff != nil {
				o.SetValue("diff", *e.Diff)
			}
			o.Fields = append(o.Fields, e.extra.Fields...)
			hist = append(hist, o)
		}
		if err := rec.SetValue("history", hist); err != nil {
			return nil, err
		}
		rec.Fields = append(rec.Fields, r.extra.Fields...)
		if err := top.SetValue(id, rec); err != nil {
			return nil, err
		}
	}
	if len(top.Fields) == 0 {
		return []byte("{}\n"), nil
	}
	compact, err := top.MarshalJSON()
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	if err := json.Indent(&b, compact, "", "  "); err != nil {
		return nil, err
	}
	b.WriteByte('\n')
	return b.Bytes(), nil
}
