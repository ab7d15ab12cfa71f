// Package judgectx measures what the dialectic judge's context costs: a
// 40-exchange debate with real-size arguments (5-9 KB each), run against a
// deterministic fake under the default focused context and under
// --judge-context full, side by side.
//
//	go test ./bench/judgectx -run JudgeContext -v
package judgectx

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/moot-dev/moot/internal/testkit/modeltest"
	"github.com/moot-dev/moot/statemachine/dialectic"
)

var (
	exchangeRe = regexp.MustCompile(`This is exchange (\d+)`)
	scoreRe    = regexp.MustCompile(`Score every new argument exactly once: ([a-z0-9_, ]+)\.`)
)

// filler is deterministic prose of about n bytes, different for each seed.
func filler(seed string, n int) string {
	var b strings.Builder
	for i := 0; b.Len() < n; i++ {
		fmt.Fprintf(&b, "Point %d of %s: the evidence in this line is specific, sourced and weighed against the strongest reply the other side has made. ", i, seed)
	}
	return b.String()
}

// argument is one argument of about 5 to 9 KB: three long grounds, a
// warrant and a backing, attacking and defending targets.
func argument(id string, attacks, defends []string) map[string]any {
	size := 700 + 200*(len(id)%5) // 1.1 to 1.5 KB a ground: 5 to 7 KB an argument
	var grounds []map[string]string
	for g := range 3 {
		grounds = append(grounds, map[string]string{
			"source":    fmt.Sprintf("Study %d cited by %s", g+1, id),
			"content":   filler(fmt.Sprintf("%s ground %d", id, g), size),
			"relevance": "It bears directly on the claim.",
		})
	}
	a := map[string]any{
		"title":   "Argument " + id + " Holds Its Ground",
		"claim":   "The claim of " + id + ": " + filler(id+" claim", 180),
		"grounds": grounds,
		"warrant": filler(id+" warrant", 400),
		"backing": filler(id+" backing", 200),
	}
	var at, df []map[string]string
	for _, t := range attacks {
		at = append(at, map[string]string{"target_id": t, "attack_type": "warrant_attack", "content": filler(id+" attacks "+t, 300)})
	}
	for _, t := range defends {
		df = append(df, map[string]string{"target_id": t, "defense_type": "reinforce", "content": filler(id+" defends "+t, 200)})
	}
	if len(at) > 0 {
		a["attacks"] = at
	}
	if len(df) > 0 {
		a["defends"] = df
	}
	return a
}

func sideIDs(x int, side string) []string {
	var out []string
	for _, id := range dialectic.ExchangeIDs(x) {
		if strings.HasPrefix(id, side+"_") {
			out = append(out, id)
		}
	}
	return out
}

// answer is the fake debater's answer for side at exchange x: three
// openings, then one rebuttal that attacks the other side's last argument
// and one of its openings, and defends its own last argument and one of
// its own openings, as the real debate's rebuttals do.
func answer(side string, x int) any {
	other := "opp"
	if side == "opp" {
		other = "prop"
	}
	if x == 0 {
		var args []map[string]any
		for _, id := range sideIDs(0, side) {
			args = append(args, argument(id, nil, nil))
		}
		return map[string]any{"arguments": args}
	}
	opening := func(s string) string { return sideIDs(0, s)[x%3] }
	attacks := []string{sideIDs(x-1, other)[0], opening(other)}
	defends := []string{sideIDs(x-1, side)[0], opening(side)}
	if attacks[0] == attacks[1] {
		attacks = attacks[:1]
	}
	if defends[0] == defends[1] {
		defends = defends[:1]
	}
	return argument(sideIDs(x, side)[0], attacks, defends)
}

// Handler is the deterministic fake of the benchmarks of 40 exchanges
// with real-size arguments: the debaters answer with the arguments
// argument makes, the judge scores each new argument 0.2 for the
// proposition and -0.2 for the opposition.
func Handler(req modeltest.Request) modeltest.Reply {
	user := req.Messages[len(req.Messages)-1].Content
	var v any
	switch role := modeltest.RoleOf(req); role {
	case modeltest.Proposition, modeltest.Opposition:
		m := exchangeRe.FindStringSubmatch(user)
		if m == nil {
			return modeltest.Failf("judgectx: no exchange in the %s's prompt", role)
		}
		x, _ := strconv.Atoi(m[1])
		v = answer(map[string]string{modeltest.Proposition: "prop", modeltest.Opposition: "opp"}[role], x)
	case modeltest.Judge:
		m := scoreRe.FindStringSubmatch(user)
		if m == nil {
			return modeltest.Failf("judgectx: no ids to score in the judge's prompt")
		}
		var scores []map[string]any
		for _, id := range strings.Split(m[1], ", ") {
			s := 0.2
			if strings.HasPrefix(id, "opp") {
				s = -0.2
			}
			scores = append(scores, map[string]any{"argument_id": id, "score": s, "reasoning": "The grounds carry it."})
		}
		v = map[string]any{"scores": scores, "rescores": []any{}}
	default:
		return modeltest.Failf("judgectx: unknown role %q", role)
	}
	b, _ := json.Marshal(v)
	return modeltest.Reply{Content: string(b)}
}
