// Package judgefake is a scripted dialectic judge for tests of panels
// and re-judging: a modeltest.Handler whose judgments depend on the model
// asked, so that several judges of known leans sit on one fake server.
// Every other request goes to a handler of the test's choosing (package
// sparring's debaters, say).
package judgefake

import (
	"encoding/json"
	"regexp"
	"strings"

	"github.com/moot-dev/moot/internal/testkit/modeltest"
	"github.com/moot-dev/moot/statemachine/dialectic"
)

// Scorer gives a judge's scores of the new arguments ids of exchange x.
// They must sum to zero, as a judgment's do.
type Scorer func(x int, ids []string) map[string]float64

// idsRe finds the ids the judge's prompt asks it to score.
var idsRe = regexp.MustCompile(`Score every new argument exactly once: ([a-z0-9_, ]+)\.`)

// Lean scores every proposition argument +margin/2 and every opposition
// argument -margin/2: a judge whose margin for the proposition is margin
// in every exchange.
func Lean(margin float64) Scorer {
	return func(x int, ids []string) map[string]float64 {
		out := map[string]float64{}
		for _, id := range ids {
			if strings.HasPrefix(id, "prop_") {
				out[id] = dialectic.Round3(margin / 2)
			} else {
				out[id] = dialectic.Round3(-margin / 2)
			}
		}
		return out
	}
}

// Alternating leans margin to the proposition in even exchanges and to
// the opposition in odd ones: over an even number of exchanges, no side
// bias at all.
func Alternating(margin float64) Scorer {
	return func(x int, ids []string) map[string]float64 {
		if x%2 == 1 {
			return Lean(-margin)(x, ids)
		}
		return Lean(margin)(x, ids)
	}
}

// Table scores each argument as scores says; an argument it does not name
// gets 0.
func Table(scores map[string]float64) Scorer {
	return func(x int, ids []string) map[string]float64 {
		out := map[string]float64{}
		for _, id := range ids {
			out[id] = scores[id]
		}
		return out
	}
}

// Handler answers the judge's requests with the Scorer of the model
// asked, as a server that is down (503) for a model without one, and
// passes every other request to others.
func Handler(judges map[string]Scorer, others modeltest.Handler) modeltest.Handler {
	return func(req modeltest.Request) modeltest.Reply {
		if modeltest.RoleOf(req) != modeltest.Judge {
			return others(req)
		}
		s, ok := judges[req.Model]
		if !ok {
			return modeltest.Reply{Status: 503, ErrorMessage: "the model " + req.Model + " is down"}
		}
		var user string
		for _, m := range req.Messages {
			if m.Role == "user" {
				user = m.Content
				break
			}
		}
		m := idsRe.FindStringSubmatch(user)
		if m == nil {
			return modeltest.Failf("judgefake: no ids to score in the judge's prompt")
		}
		ids := strings.Split(m[1], ", ")
		id, err := dialectic.ParseID(ids[0])
		if err != nil {
			return modeltest.Failf("judgefake: %v", err)
		}
		scores := s(id.Exchange, ids)
		var list []map[string]any
		for _, id := range ids {
			list = append(list, map[string]any{"argument_id": id, "score": scores[id], "reasoning": "Scored by the script."})
		}
		data, _ := json.Marshal(map[string]any{"scores": list})
		return modeltest.Reply{Content: string(data)}
	}
}
