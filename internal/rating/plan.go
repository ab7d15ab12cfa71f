package rating

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// MaxSlug is the longest slug Plan makes, the longest a debate's name may
// be.
const MaxSlug = 64

// Pairing is one debate of a tournament.
type Pairing struct {
	// Prop argues the proposition and Opp the opposition.
	Prop, Opp string
	Motion    string
	// MotionIndex is the motion's index in Plan's motions, from 0; Round
	// counts from 1. The slug shows both counting from 1.
	MotionIndex, Round int
	// Run numbers a batch's debates of one model on one motion, from 1
	// (Batch); 0 in a Plan.
	Run int
	// Slug names the debate's directory: lower-case letters, digits and
	// single hyphens, starting and ending with a letter or digit, at most
	// MaxSlug characters, unique in the plan.
	Slug string
}

// Plan pairs every two models on every motion twice, once on each side,
// and repeats that rounds times: n models, m motions and r rounds make
// n·(n-1)·m·r debates. The order is stable: round by round, motion by
// motion, then each pair of models in the order given, the first of the two
// on the proposition and then on the opposition.
//
// A slug reads like "m03-r1-gpt-4o-vs-llama3": the motion and round, both
// from 1 and zero-padded to sort, then the two models' names in lower case,
// every run of other characters a hyphen, each cut to a fair share of the
// length left. Models whose names come out the same (GPT-4o and gpt 4o)
// get -2, -3 and so on in the order given; a name with no letter or digit
// is "model". Should two slugs still meet, the later gets a number too.
//
// Plan fails with fewer than two models, a model named twice or with an
// empty name, no motions or an empty motion, or rounds below 1.
func Plan(models, motions []string, rounds int) ([]Pairing, error) {
	if len(models) < 2 {
		return nil, fmt.Errorf("a tournament needs at least two models, got %d", len(models))
	}
	if err := checkNames(models, motions, "a tournament"); err != nil {
		return nil, err
	}
	if rounds < 1 {
		return nil, fmt.Errorf("rounds is %d: it must be at least 1", rounds)
	}

	mWidth := max(2, len(strconv.Itoa(len(motions))))
	rWidth := len(strconv.Itoa(rounds))
	prefixLen := len("m-r-") + mWidth + rWidth
	share := (MaxSlug - prefixLen - len("-vs-")) / 2
	names := modelSlugs(models, share)

	n := len(models)
	out := make([]Pairing, 0, n*(n-1)*len(motions)*rounds)
	taken := make(map[string]bool, cap(out))
	for r := 1; r <= rounds; r++ {
		for mi, motion := range motions {
			prefix := fmt.Sprintf("m%0*d-r%0*d-", mWidth, mi+1, rWidth, r)
			for i := range n {
				for j := i + 1; j < n; j++ {
					for _, side := range [2][2]int{{i, j}, {j, i}} {
						p, o := side[0], side[1]
						slug := unique(prefix+names[p]+"-vs-"+names[o], MaxSlug, taken)
						out = append(out, Pairing{
							Prop: models[p], Opp: models[o], Motion: motion,
							MotionIndex: mi, Round: r, Slug: slug,
						})
					}
				}
			}
		}
	}
	return out, nil
}

// MaxRuns is the most runs Batch makes of one model on one motion.
const MaxRuns = 10000

// Batch plans a batch, as silicon-forum's multi_debate.py runs one: each
// model debates itself runs times on every motion, taking both sides, so
// that what differs from run to run is the draw (a protocol's personas and
// first speaker), not the model. The order is run by run, motion by
// motion, then the models in the order given. A slug reads like
// "m01-run007-gpt-4o".
//
// Batch fails with no model, a model named twice or with an empty name,
// no motions or an empty motion, or runs outside 1 to MaxRuns.
func Batch(models, motions []string, runs int) ([]Pairing, error) {
	if len(models) == 0 {
		return nil, errors.New("a batch needs a model")
	}
	if err := checkNames(models, motions, "a batch"); err != nil {
		return nil, err
	}
	if runs < 1 || runs > MaxRuns {
		return nil, fmt.Errorf("runs is %d: it must be from 1 to %d", runs, MaxRuns)
	}
	if len(models)*len(motions)*runs > MaxRuns*10 {
		return nil, fmt.Errorf("%d models × %d motions × %d runs is more than %d debates", len(models), len(motions), runs, MaxRuns*10)
	}
	mWidth := max(2, len(strconv.Itoa(len(motions))))
	rWidth := max(3, len(strconv.Itoa(runs)))
	names := modelSlugs(models, MaxSlug-len("m-run-")-mWidth-rWidth)
	out := make([]Pairing, 0, len(models)*len(motions)*runs)
	taken := make(map[string]bool, cap(out))
	for r := 1; r <= runs; r++ {
		for mi, motion := range motions {
			for i, m := range models {
				slug := unique(fmt.Sprintf("m%0*d-run%0*d-%s", mWidth, mi+1, rWidth, r, names[i]), MaxSlug, taken)
				out = append(out, Pairing{Prop: m, Opp: m, Motion: motion, MotionIndex: mi, Round: 1, Run: r, Slug: slug})
			}
		}
	}
	return out, nil
}

// modelSlugs returns each model's name for slugs, at most limit characters,
// each different from the others.
func modelSlugs(models []string, limit int) []string {
	out := make([]string, len(models))
	taken := make(map[string]bool, len(models))
	for i, m := range models {
		s := trimTo(slugify(m), limit)
		if s == "" {
			s = trimTo("model", limit)
		}
		out[i] = unique(s, limit, taken)
	}
	return out
}

// slugify returns s in lower case with every run of characters other than
// ASCII letters and digits as one hyphen, and no hyphen at either end.
func slugify(s string) string {
	var b strings.Builder
	hyphen := false
	for _, r := range strings.ToLower(s) {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' {
			if hyphen && b.Len() > 0 {
				b.WriteByte('-')
			}
			hyphen = false
			b.WriteRune(r)
			continue
		}
		hyphen = true
	}
	return b.String()
}

// trimTo returns the slug s cut to at most n bytes, with no hyphen at its
// end.
func trimTo(s string, n int) string {
	if len(s) > n {
		s = s[:n]
	}
	return strings.TrimRight(s, "-")
}

// unique returns s, or when taken has it, s cut short enough to end in the
// first of -2, -3, ... that makes a slug of at most limit bytes that taken
// does not have; it adds the result to taken.
func unique(s string, limit int, taken map[string]bool) string {
	out := s
	for k := 2; taken[out]; k++ {
		suffix := "-" + strconv.Itoa(k)
		out = trimTo(s, limit-len(suffix)) + suffix
	}
	taken[out] = true
	return out
}

// checkNames refuses a model without a name or named twice, and no
// motions or an empty one, for what (a tournament, a batch).
func checkNames(models, motions []string, what string) error {
	seen := make(map[string]bool, len(models))
	for i, m := range models {
		if strings.TrimSpace(m) == "" {
			return fmt.Errorf("model %d of %d has no name", i+1, len(models))
		}
		if seen[m] {
			return fmt.Errorf("model %q is named twice", m)
		}
		seen[m] = true
	}
	if len(motions) == 0 {
		return errors.New(what + " needs at least one motion")
	}
	for i, m := range motions {
		if strings.TrimSpace(m) == "" {
			return fmt.Errorf("motion %d of %d is empty", i+1, len(motions))
		}
	}
	return nil
}
