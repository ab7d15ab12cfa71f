package schemafake_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/moot-dev/moot/internal/driver"
	"github.com/moot-dev/moot/internal/testkit/modeltest"
	"github.com/moot-dev/moot/internal/testkit/protocoltest"
	"github.com/moot-dev/moot/internal/testkit/schemafake"
	"github.com/moot-dev/moot/internal/testkit/storetest"
	sm "github.com/moot-dev/moot/statemachine"
	"github.com/moot-dev/moot/statemachine/dialectic"
	"github.com/moot-dev/moot/statemachine/forum"
	"github.com/moot-dev/moot/statemachine/moderated"
	"github.com/moot-dev/moot/statemachine/panel"
	"github.com/moot-dev/moot/statemachine/refine"
	"github.com/moot-dev/moot/templates"
)

// A kind of run: the debate made by new, run to its end, and then, when
// judged, by a panel of judges from the start, or judged again.
const (
	plain   = "debate"
	judges  = "panel of judges"
	rejudge = "rejudge"
)

// protocolCase is a protocol's debate for the tests: how it is made, the
// runs it takes, and what its fake model does for the rules no schema can
// say, as a model that reads its prompt does.
type protocolCase struct {
	name   string
	p      sm.Protocol
	values map[string][]string
	runs   []string
	fix    func(req modeltest.Request, name string, v any, r *rand.Rand)
	text   func(req modeltest.Request, prose string, r *rand.Rand) string
	// kinds are the protocol's call kinds, as kindOf names them: every
	// one a whole debate asks of its roles in the runs, the judges and
	// the re-judging included. A kind whose schema is "text" is answered
	// in prose, not JSON.
	kinds []string
	// detect makes a panel's disagreement checks open a room, so that a
	// walk meets the room's calls.
	detect bool
}

func cases() []protocolCase {
	return []protocolCase{
		{
			name: "dialectic", p: dialectic.Protocol{Templates: templates.Default()},
			values: map[string][]string{"exchanges": {"3"}},
			runs:   []string{plain, judges, rejudge},
			fix:    fixDialectic,
			kinds: []string{
				"judge:judgment", "judge@panel:judgment", "judge@rejudge:judgment",
				"opposition:opening", "opposition:rebuttal", "proposition:opening", "proposition:rebuttal",
			},
		},
		{
			name: "forum", p: forum.Protocol{},
			values: map[string][]string{"premise": {"Cities should ban cars."}, "turns": {"3"}, "seed": {"1"}},
			runs:   []string{plain, judges, rejudge},
			fix:    fixForum,
			text:   textForum,
			// The judge's plan, evaluations, deliberation and confirmation
			// of the winner are prose, as the debaters' speeches are.
			kinds: []string{
				"against:text", "for:text",
				"judge:score", "judge:text", "judge:verdict",
				"judge@panel:score", "judge@panel:text", "judge@panel:verdict",
				"judge@rejudge:score", "judge@rejudge:text", "judge@rejudge:verdict",
			},
		},
		{
			name: "moderated", p: moderated.Protocol{},
			values: map[string][]string{"position-a": {"Ban cars."}, "position-b": {"Keep cars."}, "fact-checker": {"true"}, "rounds": {"1"}},
			runs:   []string{plain, judges, rejudge},
			// Only the scores are JSON: the moderator's introduction,
			// transitions, summaries and conclusion are prose.
			kinds: []string{
				"advocate-a:text", "advocate-b:text", "fact-checker:text",
				"moderator:rubric", "moderator:text", "moderator@panel:rubric", "moderator@rejudge:rubric",
			},
		},
		{
			name: "refine", p: refine.Protocol{},
			runs: []string{plain, judges, rejudge},
			fix:  fixRefine,
			text: textRefine,
			kinds: []string{
				"judge:score", "judge@panel:score", "judge@rejudge:score",
				"proposer:text", "skeptic:critique", "synthesizer:text",
			},
		},
		{
			name: "panel", p: panel.Protocol{},
			values: map[string][]string{"aspects": {"2"}},
			runs:   []string{plain},
			fix:    fixPanel,
			detect: true,
			// A persona speaks in prose, but for its reaction; the summary
			// of a round is prose too.
			kinds: []string{
				"card:card", "convergence:convergence", "crux:text", "decompose:decompose", "detect:detect",
				"exit-check:exit_check", "persona:reaction", "persona:text", "round-summary:text",
				"shifts:shifts", "summary:summary",
			},
		},
	}
}

// fixDialectic makes a judgment's scores sum to zero and its rescores
// move a score by at most 0.5 from the one its prompt shows.
func fixDialectic(req modeltest.Request, name string, v any, r *rand.Rand) {
	if name != "judgment" {
		return
	}
	obj := v.(map[string]any)
	scores, _ := obj["scores"].([]any)
	n := len(scores)
	sum := 0.0
	for i, s := range scores {
		m := s.(map[string]any)
		if i == n-1 {
			m["score"] = math.Round(-sum*100) / 100
			break
		}
		x := math.Trunc((r.Float64()*2-1)/float64(n-1)*100) / 100
		m["score"] = x
		sum += x
	}
	current := map[string]float64{}
	// The scores of the arguments shown in full, "- id: S", and of those
	// in the one-line index, "- id (side, current score S): claim".
	for _, m := range regexp.MustCompile(`(?m)^- ([a-z]+_[0-9a-z]+)(?:: | \([a-z]+, current score )([-+]?[0-9.]+)`).FindAllStringSubmatch(last(req), -1) {
		if x, err := strconv.ParseFloat(m[2], 64); err == nil {
			current[m[1]] = x
		}
	}
	rescores, _ := obj["rescores"].([]any)
	for _, s := range rescores {
		m := s.(map[string]any)
		cur := current[m["argument_id"].(string)]
		m["old_score"] = cur
		// Small moves, as a judge reading its prompt makes them: a
		// judgment's rescores together move the margin by at most 1.
		m["new_score"] = math.Round(math.Max(-1, math.Min(1, cur+(r.Float64()-0.5)*0.3))*100) / 100
		if math.Abs(m["new_score"].(float64)-cur) > 0.5 {
			m["new_score"] = cur
		}
	}
}

// fixForum puts a verdict's winner's score at or above the loser's.
func fixForum(_ modeltest.Request, name string, v any, _ *rand.Rand) {
	if name != "verdict" {
		return
	}
	obj := v.(map[string]any)
	scores := obj["scores"].(map[string]any)
	winner := obj["winner"].(string)
	for k, s := range scores {
		if k != winner && s.(int64) > scores[winner].(int64) {
			scores[k], scores[winner] = scores[winner], s
		}
	}
}

var confirmRe = regexp.MustCompile(`exactly one of these names and nothing else: '([^']+)' or '([^']+)'`)

// textForum names one of the two debaters when the judge is asked to
// confirm the winner.
func textForum(req modeltest.Request, prose string, r *rand.Rand) string {
	if m := confirmRe.FindStringSubmatch(last(req)); m != nil {
		return m[1+r.IntN(2)]
	}
	return prose
}

// fixRefine gives a skeptic that says ready the top score, and a judge's
// overall score the rounded weighted mean of its criteria.
func fixRefine(_ modeltest.Request, name string, v any, _ *rand.Rand) {
	obj := v.(map[string]any)
	switch name {
	case "critique":
		if obj["ready"] == true {
			obj["score"] = int64(10)
		}
	case "score":
		weights := map[string]float64{"correctness": 40, "completeness": 25, "clarity": 20, "depth": 15}
		sum := 0.0
		for k, x := range obj["criteria"].(map[string]any) {
			sum += float64(x.(int64)) * weights[k]
		}
		obj["score"] = int64(math.Round(sum / 100))
	}
}

var pointRe = regexp.MustCompile(`\bR\d+\.\d+\b`)

// textRefine starts a paragraph with each point id the proposer's prompt
// names, as it is asked to.
func textRefine(req modeltest.Request, prose string, _ *rand.Rand) string {
	var b strings.Builder
	seen := map[string]bool{}
	for _, id := range pointRe.FindAllString(last(req), -1) {
		if !seen[id] {
			seen[id] = true
			fmt.Fprintf(&b, "%s: %s\n\n", id, prose)
		}
	}
	if b.Len() == 0 {
		return prose
	}
	return b.String()
}

// fixPanel gives a card that says resolved a resolution.
func fixPanel(_ modeltest.Request, name string, v any, r *rand.Rand) {
	if name != "card" {
		return
	}
	obj := v.(map[string]any)
	if obj["resolved"] == true && obj["resolution"] == nil {
		obj["resolution"] = schemafake.Prose(r, 1)
	}
}

func last(req modeltest.Request) string {
	if len(req.Messages) == 0 {
		return ""
	}
	return req.Messages[len(req.Messages)-1].Content
}

// inexpressible are the repairs a schema cannot prevent: rules of prose,
// of sums and of relations between fields or to what the prompt shows,
// and of values given twice (no grammar engine holds a list's items
// apart).
var inexpressible = regexp.MustCompile(strings.Join([]string{
	`scored twice`, `rescored twice`, `rated twice`, `is not rated`, `missing scores for`,
	`the scores sum to`, `a rescore moves at most`, `rescores may move it by at most`,
	`cannot score lower than the loser`, `ready is true but the score`, `weighted mean of the criteria`,
	`has \d+ words, want at most`, `is given twice`, `resolution is needed when resolved is true`,
	`is not answered: start its paragraph with its id`, `the answer must be exactly`,
	`fewer than \d+ characters`, `shifts: \w+ is missing`, `want two different names of the panel`,
}, "|"))

// run makes the debate of c and runs it with the fake of seed: to its
// end, or, for judges, with a panel of two judges from the start, or, for
// rejudge, to its end and then judged again. It returns every repair
// problem that a schema could have prevented, and counts the others.
func run(t *testing.T, c protocolCase, kind string, seed uint64, person driver.Person) (bad []string, others int) {
	t.Helper()
	srv := modeltest.NewServer(t, schemafake.Handler(schemafake.Options{Seed: seed, Fix: c.fix, Text: c.text}))
	values := map[string][]string{}
	for k, v := range c.values {
		values[k] = v
	}
	if _, ok := values["seed"]; ok {
		// The draw of a forum's cast and first speaker changes with the
		// seed too.
		values["seed"] = []string{strconv.FormatUint(seed+1, 10)}
	}
	dir := protocoltest.Create(t, c.p, sm.NewInput{Slug: "d", Motion: "Should cities ban private cars from their centres?", Values: values, Now: protocoltest.When})
	if kind == judges {
		p, err := sm.NewPanel([]string{"judge-one", "judge-two"})
		if err != nil {
			t.Fatal(err)
		}
		d, err := storetest.OpenForWrite(dir, "test")
		if err != nil {
			t.Fatal(err)
		}
		_, err = driver.SetPanel(d, c.p, p)
		d.Close()
		if err != nil {
			t.Fatal(err)
		}
	}
	var mu sync.Mutex
	o := protocoltest.Served(t, srv.URL)
	o.Person = person
	o.Emit = func(e driver.Event) {
		if e.Kind != driver.EventRepair {
			return
		}
		mu.Lock()
		defer mu.Unlock()
		for _, p := range e.Problems {
			if inexpressible.MatchString(p) {
				others++
			} else {
				bad = append(bad, fmt.Sprintf("%s in unit %d: %s", e.Role, e.Exchange, p))
			}
		}
	}
	if _, err := protocoltest.Advance(t, context.Background(), c.p, dir, driver.UnitGoal{All: true}, o); err != nil {
		t.Fatalf("seed %d: the debate stopped: %v", seed, err)
	}
	if kind == rejudge {
		d, err := storetest.OpenForWrite(dir, "test")
		if err != nil {
			t.Fatal(err)
		}
		_, err = driver.Rejudge(context.Background(), d, c.p, sm.Rejudging{Judge: sm.Judge{Name: "again", Model: "again"}, To: -1}, o)
		d.Close()
		if err != nil {
			t.Fatalf("seed %d: the re-judging stopped: %v", seed, err)
		}
	}
	for _, req := range srv.Requests() {
		if req.ResponseFormat == "json_schema" && !req.Strict {
			t.Errorf("seed %d: schema %q was not sent strict: every schema of moot's fits OpenAI's strict subset", seed, req.SchemaName)
		}
	}
	d, err := storetest.OpenForWrite(dir, "test")
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	deb, err := driver.ReadDebate(d, c.p)
	if err != nil {
		t.Fatal(err)
	}
	if st := deb.Status(); !st.Complete {
		t.Errorf("seed %d: the debate stopped at %d of %d %ss", seed, st.Done, st.Total, st.Unit)
	}
	if f := deb.Check(); !f.OK() {
		t.Errorf("seed %d: check: %v", seed, f.Problems)
	}
	return bad, others
}

// TestSchemaInstances runs every protocol, with panels of judges and
// re-judgings, against a model that answers every JSON call with a random
// instance of the schema the call sent: no debate may stop, and no answer
// may be sent back for a rule the schema could have said.
func TestSchemaInstances(t *testing.T) {
	seeds := 30
	// Under -race one seed a case is enough to find a race; test.sh runs
	// the others in its pass without -race (MOOT_SEEDS_APART set in the
	// first), where they take a fraction of the time: the thirty in CI,
	// ten elsewhere (MOOT_SAMPLE set), seeds 0 to 9 every time.
	switch {
	case testing.Short() || raceEnabled && os.Getenv("MOOT_SEEDS_APART") != "":
		seeds = 1
	case os.Getenv("MOOT_SAMPLE") != "":
		seeds = 10
	}
	for _, c := range cases() {
		for _, kind := range c.runs {
			t.Run(c.name+"/"+kind, func(t *testing.T) {
				t.Parallel()
				others := 0
				for seed := range uint64(seeds) {
					bad, n := run(t, c, kind, seed, nil)
					for _, b := range bad {
						t.Errorf("seed %d: a repair the schema could have prevented: %s", seed, b)
					}
					others += n
				}
				t.Logf("%d seeds: %d repairs for rules no schema can say", seeds, others)
			})
		}
	}
}

// walker is a person who plays every role of a debate: it answers each
// call as the fake model would, and records the call's kind.
type walker struct {
	c     protocolCase
	run   string
	seed  uint64
	mu    sync.Mutex
	kinds map[string]bool
	asked int
}

func (w *walker) Plays(string) bool { return true }

// kindOf names a call's kind: its role, "@panel" or "@rejudge" for a call
// on a model of its own, and its schema's name or "text".
func (w *walker) kindOf(c sm.Call) string {
	role := c.Role
	if c.Model != "" {
		role += "@" + map[string]string{judges: "panel", rejudge: "rejudge"}[w.run]
	}
	name := "text"
	if c.Schema != nil {
		name = c.SchemaName
	}
	return role + ":" + name
}

func (w *walker) Answer(_ context.Context, q driver.Question) ([]byte, error) {
	c := q.Call
	kind := w.kindOf(c)
	w.mu.Lock()
	w.kinds[kind] = true
	w.asked++
	n := w.asked
	w.mu.Unlock()
	req := modeltest.Request{SchemaName: c.SchemaName}
	for _, m := range c.Messages {
		req.Messages = append(req.Messages, modeltest.Message{Role: m.Role, Content: m.Content})
	}
	r := rand.New(rand.NewPCG(w.seed, uint64(n)))
	if c.Schema == nil {
		// A call without a schema must take prose: a JSON object where
		// prose is wanted is taken too, so only prose tells.
		text := schemafake.Prose(r, 3)
		if w.c.text != nil {
			text = w.c.text(req, text, r)
		}
		if rep := q.Validate([]byte(text)); !rep.OK() {
			return nil, fmt.Errorf("%s: a call without a schema refused prose (is its answer read as JSON?): %v", kind, rep.Errors)
		}
		return []byte(text), nil
	}
	raw, err := json.Marshal(c.Schema)
	if err != nil {
		return nil, err
	}
	var schema map[string]any
	if err := json.Unmarshal(raw, &schema); err != nil {
		return nil, err
	}
	v, err := schemafake.Instance(schema, r)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", kind, err)
	}
	if w.c.fix != nil {
		w.c.fix(req, c.SchemaName, v, r)
	}
	if w.c.detect && c.SchemaName == "detect" {
		obj := v.(map[string]any)
		obj["has_direct_opposition"], obj["has_specific_claim"], obj["topic_relevant"] = true, true, true
	}
	out, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	if rep := q.Validate(out); !rep.OK() {
		return nil, fmt.Errorf("%s: an instance of the call's own schema was refused: %v\n%s", kind, rep.Errors, out)
	}
	return out, nil
}

// casesApartEnv, set in the environment of `go test -race`, makes
// TestEveryCallKindHasASchema walk the panel's debate alone under the race
// detector: test.sh's pass without it walks every protocol's (go test -run
// '^TestEveryCallKindHasASchema$').
const casesApartEnv = "MOOT_CASES_APART"

// TestEveryCallKindHasASchema walks every protocol's debates, with panels
// of judges and re-judgings, answering every call in place of a model:
// every call kind a debate asks must be one the protocol lists, every call
// whose answer is read as JSON must send a schema (a call without one is
// answered in prose, which its validation must take), and an instance of a
// call's own schema must pass its validation. Under the race detector with
// casesApartEnv set it walks the panel's alone, whose calls to the person
// run most in parallel: TestSchemaInstances runs the others' debates under
// the detector, and what this test asserts of them holds without it.
func TestEveryCallKindHasASchema(t *testing.T) {
	for _, c := range cases() {
		t.Run(c.name, func(t *testing.T) {
			if raceEnabled && os.Getenv(casesApartEnv) != "" && c.name != "panel" {
				t.Skipf("the panel's walk alone under the race detector: run without it by test.sh's second pass (go test -run '^TestEveryCallKindHasASchema$'), as %s is set", casesApartEnv)
			}
			t.Parallel()
			kinds := map[string]bool{}
			for _, kind := range c.runs {
				w := &walker{c: c, run: kind, seed: 1, kinds: kinds}
				run(t, c, kind, 1, w)
			}
			var got []string
			for k := range kinds {
				got = append(got, k)
			}
			sort.Strings(got)
			if !slices.Equal(got, c.kinds) {
				t.Errorf("call kinds:\n got %q\nwant %q", got, c.kinds)
			}
		})
	}
}
