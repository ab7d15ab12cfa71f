package cli_test

import (
	"testing"

	"github.com/moot-dev/moot/internal/testkit/modeltest"
	"github.com/moot-dev/moot/statemachine/dialectic/dialectictest/sparring"
)

// personRebuttal is the proposition's rebuttal that human.txtar's person
// gives in a form: $PERSON's model gives it as JSON, so that the argument
// files of the two can be compared.
const personRebuttal = `{
  "title": "Subsidies <b>keep</b> smallholders afloat",
  "claim": "Cutting cocoa subsidies would push smallholders off their land.",
  "grounds": [
    {"source": "Farm income survey", "content": "Most growers earn under two dollars a day.\n\nSubsidies are a third of it.", "relevance": "Without them, farming stops paying."},
    {"source": "Cooperative records", "content": "Members who lost support sold their plots.", "relevance": "Shows what happens next."}
  ],
  "warrant": "A policy that drives growers out harms those it means to help.",
  "backing": null,
  "qualifier": "in most producing regions",
  "attacks": [
    {"target_id": "opp_000a", "attack_type": "grounds_attack", "content": "The figures quoted are from one district only."}
  ],
  "defends": []
}`

// personFake is a model server that answers as the sparring partner,
// but the proposition's rebuttals with personRebuttal.
func personFake(t *testing.T) string {
	spar := sparring.Handler(sparring.Options{})
	return modeltest.NewServer(t, func(req modeltest.Request) modeltest.Reply {
		if modeltest.RoleOf(req) == modeltest.Proposition && req.SchemaName == "rebuttal" {
			return modeltest.Reply{Content: personRebuttal}
		}
		return spar(req)
	}).URL
}
