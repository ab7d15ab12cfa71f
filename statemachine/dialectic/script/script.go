// Package script is dialectic's script for moot's built-in model
// (internal/builtin): what each role answers, found by the call's role.
package script

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/moot-dev/moot/internal/builtin"
	sm "github.com/moot-dev/moot/statemachine"
)

// Answer is the built-in model's answer to a call of a dialectic debate:
// a debater's arguments, or the judge's scores.
func Answer(call sm.ScriptCall) (string, error) {
	c := builtin.Read(call)
	switch call.Role {
	case "judge":
		return judgment(c)
	case "proposition", "opposition":
		return debater(c, call.Role)
	}
	return "", builtin.Errorf("a dialectic call of role %q", call.Role)
}

// point is one line of argument a scripted debater can make.
type point struct {
	title, claim, warrant string
}

// propositionPoints and oppositionPoints are the lines of argument of
// each side, in the order they are made: the opening takes the first
// three, each rebuttal the next. (Slices, not a map, so that they cost
// nothing at start-up.)
var propositionPoints = []point{
	{"The Problem Is Real And Growing", "The harm the motion targets is real today, and it grows for as long as nothing is done.",
		"A harm that is real and growing calls for action, and the motion is the action on the table."},
	{"The Benefits Outweigh The Costs", "Counted honestly, what the motion gains is larger than what it costs, and its costs can be softened.",
		"A measure whose gains exceed its costs, with the costs softened, leaves people better off."},
	{"Comparable Measures Have Worked Elsewhere", "Where measures like this one were tried, they did what was promised within a few years.",
		"What worked under comparable conditions is likely to work again here."},
	{"Fairness Asks For The Motion", "Those who bear the harm did not choose it; fairness asks that its cost move to its cause.",
		"A burden should rest with whoever causes it, and the motion puts it there."},
	{"The Plan Can Be Carried Out", "The motion asks for nothing that institutions cannot already do with the tools they have.",
		"A measure within existing means can start at once, so its benefits come sooner."},
}

var oppositionPoints = []point{
	{"The Costs Fall On The Wrong People", "The burden of the motion lands on those least able to carry it, not on the cause of the harm.",
		"A measure that burdens the least able is unjust whatever its aim."},
	{"Side Effects Outrun The Benefits", "People and markets adapt around the measure, and its side effects undo what it gains.",
		"A measure whose side effects cancel its gains achieves nothing at a real cost."},
	{"Cheaper And Freer Tools Already Exist", "The same goal is reached more cheaply by measures that restrict no one's choices.",
		"Where a cheaper and freer way reaches the same end, the costlier way should not be chosen."},
	{"The Evidence Is Thinner Than Claimed", "The successes cited are short, local and confounded; they do not show the effect would hold here.",
		"Evidence that cannot be carried over to this case cannot support acting on it."},
	{"Choice Deserves More Weight Here", "Adults may weigh their own risks, and the motion overrides that choice without showing the need.",
		"Overriding a free choice needs a strong case, and none has been made."},
}

type dialecticGround struct {
	Source    string `json:"source"`
	Content   string `json:"content"`
	Relevance string `json:"relevance"`
}

type dialecticLink struct {
	TargetID    string `json:"target_id"`
	AttackType  string `json:"attack_type,omitempty"`
	DefenseType string `json:"defense_type,omitempty"`
	Content     string `json:"content"`
}

type dialecticArgument struct {
	Title     string            `json:"title"`
	Claim     string            `json:"claim"`
	Grounds   []dialecticGround `json:"grounds"`
	Warrant   string            `json:"warrant"`
	Backing   string            `json:"backing,omitempty"`
	Qualifier string            `json:"qualifier,omitempty"`
	Attacks   []dialecticLink   `json:"attacks"`
	Defends   []dialecticLink   `json:"defends"`
}

// motionOf returns the first paragraph under a prompt's "# Motion"
// heading.
func motionOf(prompt string) string {
	m, ok := builtin.Between(prompt, "# Motion\n", "\n#")
	if !ok {
		return "the motion"
	}
	m = strings.TrimSpace(m)
	first, _, _ := strings.Cut(m, "\n\n")
	return strings.TrimSpace(first)
}

// argument is side's n-th line of argument (counted from 0) in a debate
// on motion.
func argument(side string, n int, motion string) dialecticArgument {
	points := propositionPoints
	if side == "opposition" {
		points = oppositionPoints
	}
	p := points[n%len(points)]
	return dialecticArgument{
		Title: p.title,
		Claim: p.claim,
		Grounds: []dialecticGround{{
			Source: "A placeholder: moot's built-in model cites no real source",
			Content: fmt.Sprintf("Here a language model would give the evidence for this claim on the motion %q: a study, a dataset, a named report or a historical case. The built-in model has none; it fills the place so that the argument has its full shape.",
				builtin.Unquoted(builtin.Clip(motion, 30))),
			Relevance: "It would show that the claim holds beyond a single case.",
		}},
		Warrant:   p.warrant,
		Backing:   "Scripted: the built-in model gives no backing of substance.",
		Qualifier: "in most cases",
		Attacks:   []dialecticLink{},
		Defends:   []dialecticLink{},
	}
}

// attackTypes and defenceTypes are dialectic's kinds of attack and
// defence, used in turn.
var (
	attackTypes  = []string{"claim_attack", "grounds_attack", "warrant_attack", "backing_attack"}
	defenceTypes = []string{"reinforce", "clarify", "concede_and_pivot"}
)

// heading is an argument as a debater's prompt lists it.
type heading struct {
	id, side string
	exchange int
}

// headings lists the arguments a debater's prompt shows, in its order:
// lines such as "### prop_001 (proposition, exchange 1): Title".
func headings(prompt string) []heading {
	var out []heading
	for _, line := range strings.Split(prompt, "\n") {
		rest, ok := strings.CutPrefix(line, "### ")
		if !ok {
			continue
		}
		id, rest, ok := strings.Cut(rest, " (")
		if !ok {
			continue
		}
		side, rest, ok := strings.Cut(rest, ", exchange ")
		if !ok {
			continue
		}
		num, _, ok := strings.Cut(rest, ")")
		x, err := strconv.Atoi(num)
		if !ok || err != nil {
			continue
		}
		out = append(out, heading{id: id, side: side, exchange: x})
	}
	return out
}

// exchangeOf reads "This is exchange N" from a debater's prompt.
func exchangeOf(prompt string) (int, bool) {
	rest, ok := builtin.Between(prompt, "This is exchange ", "")
	if !ok {
		return 0, false
	}
	end := strings.IndexFunc(rest, func(r rune) bool { return r < '0' || r > '9' })
	if end < 0 {
		end = len(rest)
	}
	x, err := strconv.Atoi(rest[:end])
	return x, err == nil
}

// debater is the answer of the debater of side: its opening arguments
// in exchange 0, then an argument a rebuttal that attacks the other
// side's latest and defends its own.
func debater(c builtin.Conversation, side string) (string, error) {
	x, ok := exchangeOf(c.Prompt)
	if !ok {
		return "", builtin.Errorf("a dialectic debater's prompt without %q", "This is exchange N")
	}
	motion := motionOf(c.Prompt)
	if x == 0 {
		args := []dialecticArgument{argument(side, 0, motion), argument(side, 1, motion), argument(side, 2, motion)}
		return builtin.Marshal(map[string]any{"arguments": args})
	}
	a := argument(side, x+2, motion)
	var own, other *heading
	for _, h := range headings(c.Prompt) {
		if h.exchange >= x {
			continue
		}
		if h.side == side {
			own = &h
		} else {
			other = &h
		}
	}
	if other != nil {
		a.Attacks = append(a.Attacks, dialecticLink{TargetID: other.id, AttackType: attackTypes[x%len(attackTypes)],
			Content: "Its grounds are a placeholder and its warrant assumes what it should show: nothing in it carries the step from its claim to the motion."})
	}
	if own != nil {
		a.Defends = append(a.Defends, dialecticLink{TargetID: own.id, DefenseType: defenceTypes[x%len(defenceTypes)],
			Content: "The attacks on it answer a weaker version of the claim than the one made; the claim as stated still stands."})
	}
	return builtin.Marshal(a)
}

// rebuttalScores are the proposition's scores of the rebuttals of
// exchanges 1, 2, ... in turn; the opposition's are their opposites.
var rebuttalScores = []float64{0.15, -0.1, 0.1, -0.05, 0.2}

type dialecticScore struct {
	ArgumentID string  `json:"argument_id"`
	Score      float64 `json:"score"`
	Reasoning  string  `json:"reasoning"`
}

type dialecticRescore struct {
	ArgumentID string  `json:"argument_id"`
	OldScore   float64 `json:"old_score"`
	NewScore   float64 `json:"new_score"`
	Reasoning  string  `json:"reasoning"`
}

// indexEntry is an earlier argument as the judge's prompt lists it, with
// its current score.
type indexEntry struct {
	id    string
	score float64
}

// index reads the current scores of the earlier arguments from the
// judge's prompt, in the order the arguments were made: the lines
// "- prop_001: +0.10" under its heading "## The current scores ...", and
// in a focused prompt the index lines "- prop_001 (proposition, current
// score +0.10): claim" under "## The other arguments so far"; in a prompt
// of an older layout, the lines "- prop_001 (proposition, exchange 1,
// current score +0.10): ..." wherever they are.
func index(prompt string) []indexEntry {
	var out []indexEntry
	section, ok := builtin.Between(prompt, "## The current scores", "\n## ")
	for _, line := range strings.Split(section, "\n") {
		rest, found := strings.CutPrefix(strings.TrimSpace(line), "- ")
		if !ok || !found {
			continue
		}
		id, num, found := strings.Cut(rest, ": ")
		if s, err := strconv.ParseFloat(strings.TrimPrefix(strings.TrimSpace(num), "+"), 64); found && err == nil {
			out = append(out, indexEntry{id: id, score: s})
		}
	}
	if ok {
		if rest, found := builtin.Between(prompt, "## The other arguments so far", "\n## "); found {
			out = append(out, indexLines(rest)...)
			sort.SliceStable(out, func(i, j int) bool { return argumentOrder(out[i].id, out[j].id) })
		}
		return out
	}
	return indexLines(prompt)
}

// indexLines reads the lines "- ID (..., current score S)..." of text.
func indexLines(text string) []indexEntry {
	var out []indexEntry
	for _, line := range strings.Split(text, "\n") {
		rest, ok := strings.CutPrefix(line, "- ")
		if !ok {
			continue
		}
		id, rest, ok := strings.Cut(rest, " (")
		if !ok {
			continue
		}
		_, rest, ok = strings.Cut(rest, ", current score ")
		if !ok {
			continue
		}
		num, _, ok := strings.Cut(rest, ")")
		s, err := strconv.ParseFloat(strings.TrimPrefix(num, "+"), 64)
		if !ok || err != nil {
			continue
		}
		out = append(out, indexEntry{id: id, score: s})
	}
	return out
}

// argumentOrder tells whether the argument a was made before b: by
// exchange, the proposition's first, then by letter, as a dialectic
// prompt lists them.
func argumentOrder(a, b string) bool {
	key := func(id string) (int, int, string) {
		side, rest, _ := strings.Cut(id, "_")
		digits := strings.TrimRight(rest, "abcdefghijklmnopqrstuvwxyz")
		x, _ := strconv.Atoi(digits)
		rank := 1
		if side == "prop" {
			rank = 0
		}
		return x, rank, rest[len(digits):]
	}
	xa, sa, la := key(a)
	xb, sb, lb := key(b)
	if xa != xb {
		return xa < xb
	}
	if sa != sb {
		return sa < sb
	}
	return la < lb
}

// round2 rounds to hundredths, as scores are written.
func round2(x float64) float64 { return math.Round(x*100) / 100 }

// judgment scores the new arguments the judge's prompt names:
// zero-sum, and from exchange 1 on with a rescore of the earlier argument
// whose score is farthest from zero, brought 0.1 nearer. Its first answer
// for exchange 2 breaks the zero-sum rule; the repair puts it right.
func judgment(c builtin.Conversation) (string, error) {
	list, ok := builtin.Between(c.Prompt, "Score every new argument exactly once: ", "\n")
	if !ok {
		return "", builtin.Errorf("a dialectic judge's prompt without the ids to score")
	}
	list, _, _ = strings.Cut(list, ". ")
	ids := strings.Split(strings.TrimSuffix(strings.TrimSpace(list), "."), ", ")
	x := 0
	if digits := strings.TrimLeft(strings.TrimPrefix(strings.TrimPrefix(ids[0], "prop_"), "opp_"), "0"); digits != "" {
		x, _ = strconv.Atoi(strings.TrimRight(digits, "abcdefghijklmnopqrstuvwxyz"))
	}
	opening := []float64{0.2, -0.1, 0.1}
	var scores []dialecticScore
	nProp, nOpp := 0, 0
	for _, id := range ids {
		var s float64
		prop := strings.HasPrefix(id, "prop_")
		switch {
		case x == 0 && prop:
			s = opening[nProp%len(opening)]
		case x == 0:
			s = -opening[nOpp%len(opening)]
		case prop:
			s = rebuttalScores[(x-1)%len(rebuttalScores)]
		default:
			s = -rebuttalScores[(x-1)%len(rebuttalScores)]
		}
		if prop {
			nProp++
		} else {
			nOpp++
		}
		if x == 2 && !prop && !c.Repair {
			// The first answer of exchange 2 is out by 0.2, so that the
			// repair shows.
			s += 0.2
		}
		s = round2(s)
		why := "Scripted: it restates more than it proves and leaves the attacks on its side unanswered. The built-in model scores by a fixed pattern."
		if s > 0 {
			why = "Scripted: its claim is clear and its warrant ties it to the motion, so it gains ground. The built-in model scores by a fixed pattern."
		}
		scores = append(scores, dialecticScore{ArgumentID: id, Score: s, Reasoning: why})
	}
	out := map[string]any{"scores": scores, "rescores": []dialecticRescore{}}
	if x > 0 {
		var far *indexEntry
		for _, e := range index(c.Prompt) {
			if far == nil || math.Abs(e.score) > math.Abs(far.score) {
				far = &e
			}
		}
		if far != nil && far.score != 0 {
			step := math.Copysign(math.Min(0.1, math.Abs(far.score)), far.score)
			out["rescores"] = []dialecticRescore{{ArgumentID: far.id, OldScore: far.score, NewScore: round2(far.score - step),
				Reasoning: fmt.Sprintf("Scripted: the arguments of exchange %d took some of its force.", x)}}
		}
	}
	return builtin.Marshal(out)
}
