package dialectic

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
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
	// whole, prevWhole and diffWhole are set when Score, PreviousScore and
	// Diff are whole numbers as Python reads them (written 1, not 1.0);
	// only RenderDialectic uses them.
	whole, prevWhole, diffWhole bool
}

// Record is everything scores.json holds about one argument.
type Record struct {
	CurrentScore float64
	History      []HistoryEntry
	extra        frontmatter.Object
	// whole is set when CurrentScore is a whole number as Python reads it.
	whole bool
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
//
// The file is checked once, as a whole: json.Unmarshal at each layer (the
// file, a record, a history, a value) would check each again, which was
// most of what reading scores.json cost. Where a value is not of the kind
// expected, the layer goes through json.Unmarshal after all, for the same
// result and the same error as reading it that way from the start.
func ParseScores(data []byte) (*Scores, error) {
	if err := frontmatter.CheckUTF8(data); err != nil {
		return nil, err
	}
	if !json.Valid(data) {
		var top frontmatter.Object
		return nil, frontmatter.JSONError(json.Unmarshal(data, &top))
	}
	// Unknown keys keep their bytes: a copy, as the caller may reuse data.
	top, err := frontmatter.SplitValidObject(bytes.Clone(data))
	if err != nil {
		return nil, frontmatter.JSONError(err)
	}
	s := NewScores()
	for _, f := range top.Fields {
		rec, err := frontmatter.SplitValidObject(f.Value)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", f.Key, frontmatter.JSONError(err))
		}
		r := &Record{}
		for _, rf := range rec.Fields {
			switch rf.Key {
			case "current_score":
				v, err := validFinite(rf.Value)
				if err != nil {
					return nil, fmt.Errorf("%s.current_score: %w", f.Key, err)
				}
				r.CurrentScore = v
				r.whole = wholeLiteral(rf.Value)
			case "history":
				hist, err := validHistory(rf.Value)
				if err != nil {
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

// validHistory reads raw, valid JSON, as json.Unmarshal into a list of
// objects does: every entry is split before any is read, so that an entry
// that is not an object is reported first, as before.
func validHistory(raw json.RawMessage) ([]frontmatter.Object, error) {
	elems, ok := frontmatter.SplitValidArray(raw)
	if !ok {
		// null (no history), or the type error.
		var hist []frontmatter.Object
		err := json.Unmarshal(raw, &hist)
		return hist, err
	}
	hist := make([]frontmatter.Object, 0, len(elems))
	for _, el := range elems {
		o, err := frontmatter.SplitValidObject(el)
		if err != nil {
			return nil, err
		}
		hist = append(hist, o)
	}
	return hist, nil
}

// validFinite is finite for raw known to be valid JSON with no space
// around it: a number literal is read as encoding/json reads it, with
// strconv.ParseFloat; anything else goes through finite, for its error.
func validFinite(raw json.RawMessage) (float64, error) {
	if len(raw) > 0 && (raw[0] == '-' || raw[0] >= '0' && raw[0] <= '9') {
		if v, err := strconv.ParseFloat(string(raw), 64); err == nil {
			return v, nil
		}
	}
	return finite(raw)
}

// validString reads raw, valid JSON in a file found to be valid UTF-8,
// into *s as json.Unmarshal does; a string with no escape is taken as it
// is, anything else goes through json.Unmarshal.
func validString(raw json.RawMessage, s *string) error {
	if len(raw) >= 2 && raw[0] == '"' && bytes.IndexByte(raw, '\\') < 0 {
		*s = string(raw[1 : len(raw)-1])
		return nil
	}
	return json.Unmarshal(raw, s)
}

// wholeLiteral tells whether the JSON number raw is written as a whole
// number, which Python's json reads as an int.
func wholeLiteral(raw json.RawMessage) bool {
	t := bytes.TrimSpace(raw)
	return len(t) > 0 && !bytes.ContainsAny(t, ".eE")
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

// parseEntry reads one history entry of a file found to be valid JSON.
func parseEntry(o frontmatter.Object) (HistoryEntry, error) {
	var e HistoryEntry
	seen := false
	for _, f := range o.Fields {
		var err error
		switch f.Key {
		case "score":
			e.Score, err = validFinite(f.Value)
			e.whole = wholeLiteral(f.Value)
			seen = true
		case "reasoning":
			err = validString(f.Value, &e.Reasoning)
		case "scored_at":
			err = validString(f.Value, &e.ScoredAt)
		case "triggered_by":
			err = validString(f.Value, &e.TriggeredBy)
		case "previous_score":
			var v float64
			v, err = validFinite(f.Value)
			e.PreviousScore = &v
			e.prevWhole = wholeLiteral(f.Value)
		case "diff":
			var v float64
			v, err = validFinite(f.Value)
			e.Diff = &v
			e.diffWhole = wholeLiteral(f.Value)
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
	s.apply(entries, at, true)
}

// ApplyAsGiven is Apply as dialectic's debate_ops applied a judgment: new
// arguments join the file in the order of entries (the judge's order),
// not in id order.
func (s *Scores) ApplyAsGiven(entries []Entry, at time.Time) {
	s.apply(entries, at, false)
}

func (s *Scores) apply(entries []Entry, at time.Time, sorted bool) {
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
	if sorted {
		SortIDs(added)
	}
	s.ids = append(s.ids, added...)
	for _, e := range entries {
		r := s.records[e.ArgumentID]
		r.History = append(r.History, HistoryEntry{
			Score: e.Score, Reasoning: e.Reasoning, ScoredAt: stamp,
			TriggeredBy: e.TriggeredBy, PreviousScore: e.PreviousScore, Diff: e.Diff,
			whole: e.whole, prevWhole: e.prevWhole, diffWhole: e.whole && e.prevWhole,
		})
		r.CurrentScore, r.whole = e.Score, e.whole
	}
}

// Render writes scores.json.
func (s *Scores) Render() ([]byte, error) {
	return s.render(func(x float64, _ bool) json.RawMessage {
		b, _ := json.Marshal(x)
		return b
	})
}

// RenderDialectic writes scores.json with its numbers as dialectic's
// debate_ops wrote them through Python: a score the judge wrote as a whole
// number stays one (0, 1), any other is a float written as Python writes
// floats (0.0, 1.0, 0.35). moot's own commands write 0 and 1 for both.
func (s *Scores) RenderDialectic() ([]byte, error) {
	return s.render(func(x float64, whole bool) json.RawMessage {
		return json.RawMessage(PythonNumber(x, whole))
	})
}

// DialecticTotals returns the cumulative_scores of debate.md as dialectic's
// debate_ops computed and wrote them: each side's current scores summed in
// file order and rounded to three decimals, an int when every one of them
// is an int (0 for a side with none), as JSON.
func (s *Scores) DialecticTotals() json.RawMessage {
	type side struct {
		sum   float64
		count int
		whole bool
	}
	sides := map[Side]*side{Prop: {whole: true}, Opp: {whole: true}}
	for _, id := range s.ids {
		pid, err := ParseID(id)
		if err != nil {
			continue
		}
		r := s.records[id]
		t := sides[pid.Side]
		t.sum += r.CurrentScore
		t.count++
		t.whole = t.whole && r.whole
	}
	total := func(t *side) string {
		if t.whole {
			return PythonNumber(t.sum, true)
		}
		r, err := strconv.ParseFloat(strconv.FormatFloat(t.sum, 'f', 3, 64), 64)
		if err != nil {
			r = t.sum
		}
		return PythonNumber(r, false)
	}
	return json.RawMessage(fmt.Sprintf(`{"proposition": {"total": %s, "count": %d}, "opposition": {"total": %s, "count": %d}}`,
		total(sides[Prop]), sides[Prop].count, total(sides[Opp]), sides[Opp].count))
}

func (s *Scores) render(num func(x float64, whole bool) json.RawMessage) ([]byte, error) {
	if len(s.ids) == 0 {
		return []byte("{}\n"), nil
	}
	// The whole is built compact in one pass, the values moot makes being
	// compact already, and indented once at the end.
	w := compactWriter{}
	w.b.WriteByte('{')
	for i, id := range s.ids {
		r := s.records[id]
		w.comma(i)
		w.key(id)
		w.b.WriteString(`{"current_score":`)
		w.b.Write(num(r.CurrentScore, r.whole))
		w.b.WriteString(`,"history":[`)
		for j, e := range r.History {
			w.comma(j)
			w.b.WriteString(`{"score":`)
			w.b.Write(num(e.Score, e.whole))
			w.b.WriteString(`,"reasoning":`)
			w.str(e.Reasoning)
			w.b.WriteString(`,"scored_at":`)
			w.str(e.ScoredAt)
			if e.TriggeredBy != "" {
				w.b.WriteString(`,"triggered_by":`)
				w.str(e.TriggeredBy)
			}
			if e.PreviousScore != nil {
				w.b.WriteString(`,"previous_score":`)
				w.b.Write(num(*e.PreviousScore, e.prevWhole))
			}
			if e.Diff != nil {
				w.b.WriteString(`,"diff":`)
				w.b.Write(num(*e.Diff, e.diffWhole))
			}
			w.foreign(e.extra.Fields)
			w.b.WriteByte('}')
		}
		w.b.WriteByte(']')
		w.foreign(r.extra.Fields)
		w.b.WriteByte('}')
	}
	w.b.WriteByte('}')
	if w.err != nil {
		return nil, w.err
	}
	var b bytes.Buffer
	b.Grow(w.b.Len() * 3 / 2)
	if err := json.Indent(&b, w.b.Bytes(), "", "  "); err != nil {
		return nil, err
	}
	b.WriteByte('\n')
	return b.Bytes(), nil
}

// compactWriter builds compact JSON: strings as frontmatter.Marshal
// writes them (no HTML escapes), and the keys moot does not know with
// their values compacted. Its first error is kept in err.
type compactWriter struct {
	b, scratch bytes.Buffer
	enc        *json.Encoder
	err        error
}

// comma writes the comma before the i-th member of an object or array.
func (w *compactWriter) comma(i int) {
	if i > 0 {
		w.b.WriteByte(',')
	}
}

// str writes s as a JSON string.
func (w *compactWriter) str(s string) {
	if w.enc == nil {
		w.enc = json.NewEncoder(&w.scratch)
		w.enc.SetEscapeHTML(false)
	}
	w.scratch.Reset()
	if err := w.enc.Encode(s); err != nil && w.err == nil {
		w.err = err
	}
	w.b.Write(bytes.TrimSuffix(w.scratch.Bytes(), []byte("\n")))
}

// key writes k as a key and its colon.
func (w *compactWriter) key(k string) {
	w.str(k)
	w.b.WriteByte(':')
}

// foreign writes fields, each after a comma: keys moot does not know,
// kept from the file.
func (w *compactWriter) foreign(fields []frontmatter.Field) {
	for _, f := range fields {
		w.b.WriteByte(',')
		w.key(f.Key)
		v := f.Value
		if len(v) == 0 {
			v = json.RawMessage("null")
		}
		if err := json.Compact(&w.b, v); err != nil && w.err == nil {
			w.err = fmt.Errorf("key %q: %w", f.Key, err)
		}
	}
}
