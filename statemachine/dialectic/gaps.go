package dialectic

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	sm "github.com/moot-dev/moot/statemachine"
)

// A judge of a panel, or of a re-judging, whose judgment of an exchange
// is refused after every repair in a run with --keep-going has that
// judgment recorded as missing in its folder's missing.json: which call,
// on which model, what was wrong with each answer, and that no score was
// invented. Its scores.json has no score of the exchange's arguments, and
// the panel's official scores are the means of the judges that scored.
// moot run --retry-missing (and, for a re-judging, moot rejudge) asks
// again; the answer goes into the judge's folder and the gap is taken out
// of missing.json. The official scores of a panel stay as they were: the
// later exchanges were argued and judged against them.

// MissingFile is the file of a judge's folder that lists its gaps.
const MissingFile = "missing.json"

// JudgeMissingFile returns the path of the gaps of the judge called name.
func JudgeMissingFile(name string) string { return sm.JudgeFolder(name) + "/" + MissingFile }

// Gap is a judgment of one exchange that a judge could not give.
type Gap struct {
	Exchange int         `json:"exchange"`
	Missing  *sm.Missing `json:"missing"`
}

// gapsFile is missing.json: the judge's gaps, by exchange; an empty list
// once every one was filled.
type gapsFile struct {
	Gaps []Gap `json:"gaps"`
}

// parseGaps reads a missing.json.
func parseGaps(data []byte) ([]Gap, error) {
	var f gapsFile
	if err := json.Unmarshal(data, &f); err != nil {
		return nil, err
	}
	for i, g := range f.Gaps {
		if g.Missing == nil {
			return nil, fmt.Errorf("gap %d: no \"missing\" record", i+1)
		}
	}
	return f.Gaps, nil
}

// renderGaps is the missing.json of gaps, sorted by exchange.
func renderGaps(gaps []Gap) ([]byte, error) {
	gaps = slices.Clone(gaps)
	slices.SortFunc(gaps, func(a, b Gap) int { return a.Exchange - b.Exchange })
	if gaps == nil {
		gaps = []Gap{}
	}
	data, err := json.MarshalIndent(gapsFile{Gaps: gaps}, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(data, '\n'), nil
}

// gap returns the judge's gap at exchange x.
func (f *judgeFolder) gap(x int) (Gap, bool) {
	for _, g := range f.gaps {
		if g.Exchange == x {
			return g, true
		}
	}
	return Gap{}, false
}

// withGap records m as the judge's gap at exchange x and returns the file
// that says so.
func (f *judgeFolder) withGap(name string, x int, m *sm.Missing) (sm.File, error) {
	f.gaps = append(slices.DeleteFunc(f.gaps, func(g Gap) bool { return g.Exchange == x }), Gap{Exchange: x, Missing: m})
	data, err := renderGaps(f.gaps)
	if err != nil {
		return sm.File{}, fmt.Errorf("render %s: %w", JudgeMissingFile(name), err)
	}
	return sm.File{Name: JudgeMissingFile(name), Data: data}, nil
}

// filled takes the gap at exchange x out of the judge's gaps and returns
// the file that says so; none when the judge had no gap at x.
func (f *judgeFolder) filled(name string, x int) ([]sm.File, error) {
	if _, ok := f.gap(x); !ok {
		return nil, nil
	}
	f.gaps = slices.DeleteFunc(f.gaps, func(g Gap) bool { return g.Exchange == x })
	data, err := renderGaps(f.gaps)
	if err != nil {
		return nil, fmt.Errorf("render %s: %w", JudgeMissingFile(name), err)
	}
	return []sm.File{{Name: JudgeMissingFile(name), Data: data}}, nil
}

// gapLine says in words which judgments are missing, for status.
func gapLine(names []string, folders map[string]*judgeFolder) string {
	var parts []string
	for _, n := range names {
		f := folders[n]
		if f == nil || len(f.gaps) == 0 {
			continue
		}
		var xs []string
		for _, g := range f.gaps {
			xs = append(xs, strconv.Itoa(g.Exchange))
		}
		parts = append(parts, fmt.Sprintf("judge %s, exchange %s", n, strings.Join(xs, ", ")))
	}
	if len(parts) == 0 {
		return ""
	}
	return strings.Join(parts, "; ") + ": no score invented (moot run --retry-missing asks again)"
}

// sortedJudges is the names of the judges with a folder, sorted.
func (s *stepDebate) sortedJudges() []string {
	names := make([]string, 0, len(s.judges))
	for n := range s.judges {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

var _ sm.Filler = (*stepDebate)(nil)

// Gaps lists every judgment a judge's folder records as missing, by
// exchange, then by judge.
func (s *stepDebate) Gaps() []string {
	type at struct {
		x    int
		call string
	}
	var all []at
	for _, n := range s.sortedJudges() {
		for _, g := range s.judges[n].gaps {
			all = append(all, at{g.Exchange, g.Missing.Call})
		}
	}
	slices.SortStableFunc(all, func(a, b at) int { return a.x - b.x })
	out := make([]string, len(all))
	for i, a := range all {
		out[i] = a.call
	}
	return out
}

// Fill asks again for the missing judgment gap: a panel judge's, whose
// answer goes into its folder alone, or a re-judging's.
func (s *stepDebate) Fill(gap string) (*sm.Step, error) {
	for _, n := range s.sortedJudges() {
		f := s.judges[n]
		for _, g := range f.gaps {
			if g.Missing.Call != gap {
				continue
			}
			if f.Record != nil && f.Record.Kind == sm.KindRejudge {
				to := -1
				if f.Record.To != nil {
					to = *f.Record.To
				}
				rd, err := s.Rejudge(sm.Rejudging{Judge: sm.Judge{Name: n, Model: f.Record.Model}, From: f.Record.From, To: to})
				if err != nil {
					return nil, err
				}
				return rd.(*rejudgeDebate).step(g.Exchange)
			}
			model := g.Missing.Model
			if f.Record != nil {
				model = f.Record.Model
			}
			return s.fillPanel(sm.Judge{Name: n, Model: model}, g.Exchange)
		}
	}
	return nil, fmt.Errorf("no call %q is missing", gap)
}

// fillPanel is the step that asks the panel judge j again for its
// judgment of exchange x, which goes into its folder alone.
func (s *stepDebate) fillPanel(j sm.Judge, x int) (*sm.Step, error) {
	known := s.deb.Known()
	view := overlay(s.deb.Scores.Current(), s.own(j.Name).Current(), nil)
	c, err := s.panelCall(j, x, view)
	if err != nil {
		return nil, err
	}
	c.Missable = true
	return &sm.Step{
		Key: fmt.Sprintf("%05d", x), Unit: x, Calls: []sm.Call{c},
		Apply: func(answers map[string]sm.Answer, now time.Time) (*sm.Commit, error) {
			ans := answers[c.ID]
			f := s.judges[j.Name]
			if ans.Missing != nil {
				file, err := f.withGap(j.Name, x, ans.Missing)
				if err != nil {
					return nil, err
				}
				return &sm.Commit{Files: []sm.File{file}, Events: []sm.Event{missingEvent(j.Name, x)}}, nil
			}
			jg, p := ParseJudgment(ans.Text, x, known, view)
			if !p.OK() {
				return &sm.Commit{Warnings: p.Warnings, Soft: p.Soft}, &sm.Refused{Reasons: p.Errors, Role: string(Judge), RoleReasons: p.Errors, Answer: true}
			}
			f.scores.Apply(jg.Entries(known, view), now)
			data, err := f.scores.Render()
			if err != nil {
				return nil, fmt.Errorf("render %s: %w", JudgeScoresFile(j.Name), err)
			}
			out := &sm.Commit{Warnings: p.Warnings, Soft: p.Soft, Files: []sm.File{{Name: JudgeScoresFile(j.Name), Data: data}}}
			gone, err := f.filled(j.Name, x)
			if err != nil {
				return nil, err
			}
			out.Files = append(out.Files, gone...)
			out.Events = append(out.Events, sm.Event{Kind: "exchange", Ends: true,
				Message: fmt.Sprintf("judge %s's missing judgment of exchange %d given (the official scores stay as they are)", j.Name, x)})
			return out, nil
		},
	}, nil
}

// missingEvent says that judge name's judgment of exchange x is recorded
// as missing.
func missingEvent(name string, x int) sm.Event {
	return sm.Event{Kind: "missing", Role: string(Judge),
		Message: fmt.Sprintf("judge %s's judgment of exchange %d is recorded as missing: no score invented", name, x),
		Data:    map[string]any{"judge": name, "exchange": x}}
}

// checkGaps adds to f what is wrong with the judges' gaps: a gap of an
// exchange not yet judged, a gap of an exchange the judge scored, or one
// whose call is not the judge's.
func (s *stepDebate) checkGaps(f *sm.Findings) {
	st := s.deb.Header.State
	for _, n := range s.sortedJudges() {
		jf := s.judges[n]
		file := JudgeMissingFile(n)
		seen := map[int]bool{}
		for _, g := range jf.gaps {
			problem := func(format string, args ...any) {
				f.Problems = append(f.Problems, sm.Problem{File: file, Message: fmt.Sprintf(format, args...)})
			}
			if seen[g.Exchange] {
				problem("exchange %d is listed twice", g.Exchange)
			}
			seen[g.Exchange] = true
			switch {
			case jf.Record == nil:
				// A folder without its record: sm.Bench.Problems says so.
			case g.Exchange < 0 || g.Exchange >= st.Exchange:
				problem("exchange %d is missing, but it has not been judged yet", g.Exchange)
			case g.Missing.Call != gapCall(jf.Record.Kind, n, g.Exchange):
				problem("exchange %d: the call %q is not judge %s's judgment of it (want %q)", g.Exchange, g.Missing.Call, n, gapCall(jf.Record.Kind, n, g.Exchange))
			}
			if _, ok := jf.scores.Get(ExchangeIDs(g.Exchange)[0]); ok {
				problem("exchange %d is missing, but %s scores it", g.Exchange, JudgeScoresFile(n))
			}
		}
	}
}

// gapCall is the call a judge's gap at exchange x names: the panel's step
// of x, or the re-judging's.
func gapCall(kind, name string, x int) string {
	if kind == sm.KindRejudge {
		return rejudgeKey(name, x) + "/" + string(Judge)
	}
	return fmt.Sprintf("%05d/%s", x, panelCallID(name))
}

// rejudgeKey is the key of the step that judges exchange x again for the
// judge called name.
func rejudgeKey(name string, x int) string { return sm.RejudgeKey(name, fmt.Sprintf("%05d", x)) }
