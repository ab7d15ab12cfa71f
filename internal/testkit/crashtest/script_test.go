package crashtest

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"

	"github.com/moot-dev/moot/statemachine/dialectic"
	"github.com/moot-dev/moot/statemachine/dialectic/dialectictest"
)

// The harness's own tests run a dialectic debate: its scripted answers,
// its states and its records (each argument's score history) are theirs,
// not the harness's, which knows no protocol.

// Script writes the scripted answers of a debate of the given number of
// exchanges into dir and returns its steps: new, then for each exchange
// process-exchange and process-judge.
func Script(dir, slug string, exchanges int) ([]Step, error) {
	steps := []Step{{
		Args:   []string{"new", slug, "--motion", "This house would keep every debate on disk."},
		Until:  State{0, string(dialectic.AwaitingArguments)},
		Redone: []int{2}, // "already exists": a command line naming a debate that is there
	}}
	for e := 0; e < exchanges; e++ {
		files := map[string][]byte{
			fmt.Sprintf("prop-%d.json", e):  dialectictest.Answer(dialectic.Prop, e),
			fmt.Sprintf("opp-%d.json", e):   dialectictest.Answer(dialectic.Opp, e),
			fmt.Sprintf("judge-%d.json", e): dialectictest.Judgment(e),
		}
		for name, data := range files {
			if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
				return nil, err
			}
		}
		steps = append(steps,
			Step{
				Args: []string{"process-exchange", slug, fmt.Sprint(e),
					"--prop-file", filepath.Join(dir, fmt.Sprintf("prop-%d.json", e)),
					"--opp-file", filepath.Join(dir, fmt.Sprintf("opp-%d.json", e))},
				Until: State{e, string(dialectic.AwaitingJudgment)},
			},
			Step{
				Args:  []string{"process-judge", slug, "--json-file", filepath.Join(dir, fmt.Sprintf("judge-%d.json", e))},
				Until: State{e + 1, string(dialectic.AwaitingArguments)},
			})
	}
	return steps, nil
}

// dialecticHarness is a Harness for a dialectic debate under root: its
// records are the score histories, and the times in scores.json differ
// between runs.
func dialecticHarness(root, slug string) *Harness {
	return &Harness{Bin: bin, Root: root, Slug: slug, Records: scoreHistories, Normalise: blankScoredAt}
}

var scoredAt = regexp.MustCompile(`"scored_at": "[^"]*"`)

// blankScoredAt blanks the times in scores.json.
func blankScoredAt(name, data string) string {
	if name != dialectic.ScoresFile {
		return data
	}
	return scoredAt.ReplaceAllString(data, `"scored_at": "*"`)
}

// scoreHistories reads a dialectic debate's records: each argument's score
// history in scores.json, an entry for each score or rescore, its time
// left out.
func scoreHistories(read func(name string) ([]byte, error)) (map[string][]string, error) {
	data, err := read(dialectic.ScoresFile)
	if err != nil {
		return nil, err
	}
	s, err := dialectic.ParseScores(data)
	if err != nil {
		return nil, err
	}
	out := map[string][]string{}
	for _, id := range s.IDs() {
		r, _ := s.Get(id)
		entries := []string{}
		for _, e := range r.History {
			entries = append(entries, historyEntry(e))
		}
		out[id] = entries
	}
	return out, nil
}

// historyEntry writes what two runs must agree on of a history entry:
// all of it but its time.
func historyEntry(e dialectic.HistoryEntry) string {
	num := func(v float64) string {
		if v == 0 {
			v = 0 // -0 and 0 are the same score
		}
		return strconv.FormatFloat(v, 'g', -1, 64)
	}
	opt := func(p *float64) string {
		if p == nil {
			return "none"
		}
		return num(*p)
	}
	return fmt.Sprintf("{score %s, previous %s, diff %s, triggered by %q, reasoning %q}",
		num(e.Score), opt(e.PreviousScore), opt(e.Diff), e.TriggeredBy, e.Reasoning)
}
