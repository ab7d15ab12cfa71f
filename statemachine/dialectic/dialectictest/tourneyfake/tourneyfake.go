// Package tourneyfake is a fake model server's handler for tournaments of
// dialectic debates whose results are known in advance: debaters answer
// as package sparring's do, each argument's claim marked with the model
// that made it, and the judge gives every exchange to the stronger of the
// two models it finds, by a table of strengths; two models of the same
// strength draw. The same request always gets the same answer.
package tourneyfake

import (
	"encoding/json"
	"regexp"
	"strings"

	"github.com/moot-dev/moot/internal/testkit/modeltest"
	"github.com/moot-dev/moot/statemachine/dialectic"
	"github.com/moot-dev/moot/statemachine/dialectic/dialectictest/sparring"
)

var (
	idsRe  = regexp.MustCompile(`Score every new argument exactly once: ([a-z0-9_, ]+)\.`)
	markRe = regexp.MustCompile(`model=([A-Za-z0-9._-]+);`)
)

// Handler answers every role of a dialectic debate; strength ranks the
// debaters' models (a model it does not name has strength 0).
func Handler(strength map[string]float64) modeltest.Handler {
	debaters := sparring.Handler(sparring.Options{})
	return func(req modeltest.Request) modeltest.Reply {
		switch modeltest.RoleOf(req) {
		case modeltest.Proposition, modeltest.Opposition:
			reply := debaters(req)
			reply.Content = mark(reply.Content, req.Model)
			return reply
		case modeltest.Judge:
			return judge(req, strength)
		}
		return debaters(req)
	}
}

// mark puts "model=NAME;" in front of every claim of a debater's answer.
func mark(content, model string) string {
	var list []map[string]any
	if err := json.Unmarshal([]byte(content), &list); err == nil {
		for _, a := range list {
			a["claim"] = "model=" + model + "; " + a["claim"].(string)
		}
		b, _ := json.Marshal(list)
		return string(b)
	}
	var one map[string]any
	if err := json.Unmarshal([]byte(content), &one); err == nil {
		if args, ok := one["arguments"].([]any); ok {
			for _, x := range args {
				a := x.(map[string]any)
				a["claim"] = "model=" + model + "; " + a["claim"].(string)
			}
		} else if c, ok := one["claim"].(string); ok {
			one["claim"] = "model=" + model + "; " + c
		}
		b, _ := json.Marshal(one)
		return string(b)
	}
	return content
}

// judge scores the new arguments for the stronger model: +0.1 for each of
// its arguments and -0.1 for each of the other's, 0 for all on a tie.
func judge(req modeltest.Request, strength map[string]float64) modeltest.Reply {
	var user string
	for _, m := range req.Messages {
		if m.Role == "user" {
			user = m.Content
			break
		}
	}
	// The new arguments are the last of the prompt's arguments, from the
	// heading of the first id to score to the next section.
	ids := idsRe.FindStringSubmatch(user)
	i := -1
	if ids != nil {
		first, _, _ := strings.Cut(ids[1], ", ")
		i = strings.Index(user, "### "+first+" (")
	}
	if i < 0 {
		return modeltest.Failf("tourneyfake: the judge's prompt has no new arguments")
	}
	news := user[i:]
	if end := strings.Index(news, "\n## The current scores"); end >= 0 {
		news = news[:end]
	}
	marks := markRe.FindAllStringSubmatch(news, -1)
	if len(marks) < 2 {
		return modeltest.Failf("tourneyfake: the new arguments name no models")
	}
	prop, opp := marks[0][1], marks[len(marks)-1][1]
	d := 0.0
	switch {
	case strength[prop] > strength[opp]:
		d = 0.1
	case strength[prop] < strength[opp]:
		d = -0.1
	}
	var scores []map[string]any
	for _, id := range strings.Split(ids[1], ", ") {
		v := d
		if strings.HasPrefix(id, string(dialectic.Opp)+"_") {
			v = -d
		}
		scores = append(scores, map[string]any{"argument_id": id, "score": v, "reasoning": "The stronger model's argument."})
	}
	b, _ := json.Marshal(map[string]any{"scores": scores})
	return modeltest.Reply{Content: string(b)}
}
