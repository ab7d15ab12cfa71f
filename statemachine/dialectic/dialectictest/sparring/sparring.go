// Package sparring is a fake proposition, opposition and judge of a
// dialectic debate for tests and benchmarks: a modeltest.Handler that
// reads from moot's prompts which exchange is asked for and answers with
// the scripted debate of package dialectictest (valid, deterministic JSON
// with attacks, defences and rescores), so that a debate can be run end to
// end without a model. The same prompt always gets the same answer.
package sparring

import (
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/moot-dev/moot/internal/testkit/modeltest"
	"github.com/moot-dev/moot/statemachine/dialectic"
	"github.com/moot-dev/moot/statemachine/dialectic/dialectictest"
)

// Options shape the partner's answers.
type Options struct {
	// Delay is how long every answer takes.
	Delay time.Duration
	// HoldFrom, when above 0, makes the debaters' calls of exchange
	// HoldFrom and later wait for the client to go away instead of
	// answering: a run is then surely still in a call when a test stops
	// it, however slowly a loaded machine runs it.
	HoldFrom int
}

var (
	// A debater's prompt says "This is exchange N"; the judge's names the
	// ids to score, whose digits give the exchange.
	exchangeRe = regexp.MustCompile(`This is exchange (\d+)`)
	scoreRe    = regexp.MustCompile(`Score every new argument exactly once: (?:prop|opp)_(\d+)`)
	// The report's request for a narrative names no role; it asks for an
	// analysis of so many words.
	narrativeRe = regexp.MustCompile(`^Write an analysis of the debate`)
)

// Narrative is what the partner answers to the report's request for a
// written analysis: 550 words of plain prose.
var Narrative = strings.TrimSpace(strings.Repeat("The proposition framed the question early and held it. "+
	"Its strongest arguments were answered, but not undone, and the judge said so. ", 25))

// Handler returns the fake for all three roles.
func Handler(o Options) modeltest.Handler {
	return func(req modeltest.Request) modeltest.Reply {
		user := ""
		for _, m := range req.Messages {
			if m.Role == "user" {
				user = m.Content
				break
			}
		}
		var answer []byte
		switch role := modeltest.RoleOf(req); role {
		case modeltest.Proposition, modeltest.Opposition:
			m := exchangeRe.FindStringSubmatch(user)
			if m == nil {
				return modeltest.Failf("sparring: no exchange number in the %s's prompt", role)
			}
			x, _ := strconv.Atoi(m[1])
			if o.HoldFrom > 0 && x >= o.HoldFrom {
				return modeltest.Reply{Delay: time.Hour}
			}
			side, _ := dialectic.ParseSide(role)
			answer = dialectictest.Answer(side, x)
		case modeltest.Judge:
			m := scoreRe.FindStringSubmatch(user)
			if m == nil {
				return modeltest.Failf("sparring: no ids to score in the judge's prompt")
			}
			x, _ := strconv.Atoi(m[1])
			answer = dialectictest.Judgment(x)
		case "":
			if !narrativeRe.MatchString(user) {
				return modeltest.Failf("sparring: no role in the request")
			}
			answer = []byte(Narrative)
		default:
			return modeltest.Failf("sparring: unknown role %q", role)
		}
		return modeltest.Reply{Content: string(answer), Delay: o.Delay}
	}
}
