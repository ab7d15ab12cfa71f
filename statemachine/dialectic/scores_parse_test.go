package dialectic

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/moot-dev/moot/internal/frontmatter"
)

// parseScoresReference is ParseScores as it was before it read the file
// in one pass: the differential tests hold the two to the same results.
func parseScoresReference(data []byte) (*Scores, error) {
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
				r.whole = wholeLiteral(rf.Value)
			case "history":
				var hist []frontmatter.Object
				if err := json.Unmarshal(rf.Value, &hist); err != nil {
					return nil, fmt.Errorf("%s.history: %w", f.Key, frontmatter.JSONError(err))
				}
				for i, h := range hist {
					e, err := parseEntryReference(h)
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

func parseEntryReference(o frontmatter.Object) (HistoryEntry, error) {
	var e HistoryEntry
	seen := false
	for _, f := range o.Fields {
		var err error
		switch f.Key {
		case "score":
			e.Score, err = finite(f.Value)
			e.whole = wholeLiteral(f.Value)
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
			e.prevWhole = wholeLiteral(f.Value)
		case "diff":
			var v float64
			v, err = finite(f.Value)
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

// sameParse fails t unless ParseScores and parseScoresReference give the
// same error, or the same scores in both of their renderings.
func sameParse(t *testing.T, in []byte) {
	t.Helper()
	got, gotErr := ParseScores(in)
	want, wantErr := parseScoresReference(in)
	if (gotErr == nil) != (wantErr == nil) || gotErr != nil && gotErr.Error() != wantErr.Error() {
		t.Fatalf("ParseScores(%q)\nerror %v\nwant  %v", in, gotErr, wantErr)
	}
	if gotErr != nil {
		return
	}
	for _, render := range []func(*Scores) ([]byte, error){(*Scores).Render, (*Scores).RenderDialectic} {
		g, gerr := render(got)
		w, werr := render(want)
		if !bytes.Equal(g, w) || fmt.Sprint(gerr) != fmt.Sprint(werr) {
			t.Fatalf("ParseScores(%q) renders\n%s (%v)\nwant\n%s (%v)", in, g, gerr, w, werr)
		}
	}
	if g, w := string(got.DialecticTotals()), string(want.DialecticTotals()); g != w {
		t.Fatalf("ParseScores(%q) totals %s, want %s", in, g, w)
	}
}

// scoresCases are the inputs both readers are held to: valid files, and
// each way a layer can be of the wrong kind.
var scoresCases = []string{
	`{}`, `[1]`, `null`, `"x"`, `3`, ` {"prop_001": {`, `{"a": 1,}`,
	`{"prop_001": 3}`, `{"prop_001": null}`, `{"prop_001": "s"}`, `{"prop_001": []}`,
	`{"prop_001": {"history": []}}`,
	`{"prop_001": {"current_score": "0.1", "history": []}}`,
	`{"prop_001": {"current_score": 1e999, "history": []}}`,
	`{"prop_001": {"current_score": -0, "history": null}}`,
	`{"prop_001": {"current_score": 0.5e1, "history": {}}}`,
	`{"prop_001": {"current_score": 0, "history": 3}}`,
	`{"prop_001": {"current_score": 0, "history": "h"}}`,
	`{"prop_001": {"current_score": 0, "history": [1]}}`,
	`{"prop_001": {"current_score": 0, "history": [null]}}`,
	`{"prop_001": {"current_score": 0, "history": [{"score": "x"}, 2]}}`,
	`{"prop_001": {"current_score": 0, "history": [{"reasoning": "r"}]}}`,
	`{"prop_001": {"current_score": 0, "history": [{"score": 0}, {"score": 0, "previous_score": null}]}}`,
	`{"prop_001": {"current_score": null, "history": []}}`,
	`{"prop_001": {"current_score": true, "history": []}}`,
	`{"prop_001": {"current_score": 0, "history": [{"score": 0, "reasoning": 5}]}}`,
	`{"prop_001": {"current_score": 0, "history": [{"score": 0, "reasoning": null, "scored_at": "a\"b\u00e9\n"}]}}`,
	`{"prop_001": {"current_score": 0, "history": [{"score": 0, "triggered_by": ["x"]}]}}`,
	`{"prop_001": {"current_score": 1, "x": {"y": [1, "}"]}, "current_score": 0.25, "history": [ { "score" : 1 , "diff": 1E2, "previous_score": 0, "k": "v" } ] }, "opp_000a": {"current_score": -0.3, "history": []}}`,
	"{\"prop_001\":\t{\"current_score\":\r\n0}}",
	`{"p\u0072op_001": {"current_score": 0}, "prop_001": {"current_score": 1}}`,
	"{\"prop_001\": {\"current_score\": 0, \"history\": [{\"score\": 0, \"reasoning\": \"\xff\"}]}}",
}

func TestParseScoresAsBefore(t *testing.T) {
	golden, err := os.ReadFile(filepath.Join("testdata", "scores.json"))
	if err != nil {
		t.Fatal(err)
	}
	for i, in := range append(scoresCases, string(golden), string(benchScores(t, 3))) {
		t.Run(fmt.Sprint(i), func(t *testing.T) { sameParse(t, []byte(in)) })
	}
}

// FuzzParseScores holds ParseScores, which checks the file once, to the
// results of reading it layer by layer with json.Unmarshal.
func FuzzParseScores(f *testing.F) {
	for _, in := range scoresCases {
		f.Add([]byte(in))
	}
	f.Fuzz(func(t *testing.T, in []byte) { sameParse(t, in) })
}

// benchScores renders scores.json for a debate of n exchanges: four
// arguments a side an exchange, each scored, then rescored once.
func benchScores(tb testing.TB, n int) []byte {
	tb.Helper()
	s := NewScores()
	at := time.Date(2026, 1, 2, 3, 4, 5, 6000, time.UTC)
	for e := 0; e < n; e++ {
		var entries []Entry
		for _, side := range Sides() {
			for _, id := range ArgumentIDs(e, side) {
				entries = append(entries, Entry{ArgumentID: id, Score: 0.25, Reasoning: strings.Repeat("Because. ", 20)})
			}
		}
		s.Apply(entries, at)
		prev, diff := 0.25, -0.15
		for i := range entries {
			entries[i].Score, entries[i].PreviousScore, entries[i].Diff = 0.1, &prev, &diff
		}
		s.Apply(entries, at)
	}
	out, err := s.Render()
	if err != nil {
		tb.Fatal(err)
	}
	return out
}

// BenchmarkParseScores reads the scores.json of a 9-exchange debate.
func BenchmarkParseScores(b *testing.B) {
	in := benchScores(b, 9)
	b.SetBytes(int64(len(in)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := ParseScores(in); err != nil {
			b.Fatal(err)
		}
	}
}
