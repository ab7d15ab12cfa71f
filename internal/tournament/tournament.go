package tournament

import (
	"errors"
	"fmt"
	"strings"

	"github.com/moot-dev/moot/internal/english"
	"github.com/moot-dev/moot/internal/frontmatter"
	"github.com/moot-dev/moot/internal/rating"
	"github.com/moot-dev/moot/store"
)

// FileName is the file that holds a tournament's plan, in its folder
// under the debates root's tournaments/.
const FileName = "tournament.md"

// Dir is the folder of the debates root that holds the tournaments.
const Dir = "tournaments"

// FailuresDir is the folder of a tournament that keeps, a file each, why
// a debate failed, so that the tournament goes on without it until
// `run --retry-failed`.
const FailuresDir = "failures"

// Tournament is the plan of a tournament: who meets whom, on which
// motions, under which protocol and settings.
type Tournament struct {
	Name     string   `json:"tournament"`
	Protocol string   `json:"protocol"`
	Models   []string `json:"models"`
	Motions  []Motion `json:"motions"`
	// Rounds is how many times every pair meets on every motion, twice
	// each time, sides swapped.
	Rounds int `json:"rounds_per_pair"`
	// Runs, when set, makes the tournament a batch (rating.Batch): each
	// model debates itself Runs times on every motion, a fresh draw each.
	Runs int `json:"runs,omitempty"`
	// Judges is the judge panel of every debate; JudgeModel the judge
	// when there is no panel ("" leaves it to the default model).
	Judges     []string `json:"judges,omitempty"`
	JudgeModel string   `json:"judge_model,omitempty"`
	// Settings holds the protocol's flags of `moot new` every debate was
	// made with, by flag name; a seed is the first debate's, each next
	// debate's being one more.
	Settings map[string][]string `json:"settings,omitempty"`
	Created  string              `json:"created"`
	Debates  []Debate            `json:"debates"`
}

// Debate is one debate of a tournament.
type Debate struct {
	// Slug names the debate's folder in the tournament's.
	Slug        string `json:"slug"`
	Proposition string `json:"proposition"`
	Opposition  string `json:"opposition"`
	// Motion is the index of the debate's motion in Tournament.Motions.
	Motion int `json:"motion"`
	Round  int `json:"round"`
	// Run numbers a batch's debates of one model on one motion, from 1.
	Run int `json:"run,omitempty"`
}

// Render writes tournament.md: the plan as JSON frontmatter and, below
// it, the same in words for a person.
func (t *Tournament) Render() ([]byte, error) {
	raw, err := frontmatter.Marshal(t)
	if err != nil {
		return nil, err
	}
	var front frontmatter.Object
	if err := front.UnmarshalJSON(raw); err != nil {
		return nil, err
	}
	var b strings.Builder
	fmt.Fprintf(&b, "# Tournament %s\n\n", t.Name)
	if t.Runs > 0 {
		fmt.Fprintf(&b, "%s, %s, %s of the %s protocol: a batch, each model debating itself %s on every motion, a fresh draw each time",
			english.Count(len(t.Models), "model"), english.Count(len(t.Motions), "motion"), english.Count(len(t.Debates), "debate"), t.Protocol, english.Count(t.Runs, "time"))
	} else {
		fmt.Fprintf(&b, "%s, %s, %s of the %s protocol: every pair of models meets on every motion twice, sides swapped",
			english.Count(len(t.Models), "model"), english.Count(len(t.Motions), "motion"), english.Count(len(t.Debates), "debate"), t.Protocol)
	}
	if t.Rounds > 1 {
		fmt.Fprintf(&b, ", %d times over", t.Rounds)
	}
	b.WriteString(".\n\n## Models\n\n")
	for _, m := range t.Models {
		fmt.Fprintf(&b, "- `%s`\n", strings.ReplaceAll(m, "`", "'"))
	}
	b.WriteString("\n## Motions\n\n")
	for i, m := range t.Motions {
		fmt.Fprintf(&b, "%d. %s\n", i+1, strings.Join(strings.Fields(m.Text), " "))
	}
	b.WriteString("\nRun it with `moot tournament run " + t.Name + "`, see where it stands with `moot tournament status " + t.Name + "`.\n")
	return frontmatter.Render(front, "\n"+b.String())
}

// Parse reads tournament.md.
func Parse(data []byte) (*Tournament, error) {
	var t Tournament
	if _, _, err := frontmatter.ParseInto(data, &t); err != nil {
		return nil, err
	}
	if err := t.Check(); err != nil {
		return nil, err
	}
	return &t, nil
}

// Check verifies the plan: models, motions and debates that refer to
// them, each debate's folder a safe name of its own.
func (t *Tournament) Check() error {
	switch {
	case t.Name == "":
		return errors.New("field \"tournament\" is empty")
	case t.Protocol == "":
		return errors.New("field \"protocol\" is empty")
	case t.Runs < 0 || t.Runs > rating.MaxRuns:
		return fmt.Errorf("field \"runs\": %d is not from 1 to %d", t.Runs, rating.MaxRuns)
	case len(t.Models) == 0:
		return errors.New("field \"models\" is empty")
	case len(t.Models) < 2 && t.Runs == 0:
		return errors.New("field \"models\" needs two models or more")
	case len(t.Motions) == 0:
		return errors.New("field \"motions\" is empty")
	case t.Rounds < 1:
		return errors.New("field \"rounds_per_pair\" is below 1")
	}
	models := map[string]bool{}
	for _, m := range t.Models {
		if strings.TrimSpace(m) == "" || models[m] {
			return fmt.Errorf("field \"models\": %q is empty or named twice", m)
		}
		models[m] = true
	}
	slugs := map[string]bool{}
	for i, d := range t.Debates {
		switch {
		case !store.ValidSlug(d.Slug) || slugs[d.Slug]:
			return fmt.Errorf("debates[%d]: slug %q is not a valid name of its own", i, d.Slug)
		case !models[d.Proposition] || !models[d.Opposition] || (d.Proposition == d.Opposition) != (t.Runs > 0):
			return fmt.Errorf("debates[%d]: %q against %q is not two models of the tournament", i, d.Proposition, d.Opposition)
		case d.Motion < 0 || d.Motion >= len(t.Motions):
			return fmt.Errorf("debates[%d]: motion %d is not one of the %d motions", i, d.Motion, len(t.Motions))
		}
		slugs[d.Slug] = true
	}
	return nil
}
