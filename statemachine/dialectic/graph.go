package dialectic

import (
	"fmt"
	"strings"

	"github.com/moot-dev/moot/internal/escape"
)

// Graph returns the argument graph as a mermaid flowchart: a node per
// argument with its id, title and current score, the sides in two colours,
// attacks and defences as edges labelled with their type, concede-and-pivot
// dotted. It is written to argument-graph.mmd after every step.
func Graph(d *Debate) string {
	var b strings.Builder
	b.WriteString("graph TD\n")
	b.WriteString("    classDef prop fill:#1b5e20,stroke:#66bb6a,stroke-width:2px,color:#ffffff\n")
	b.WriteString("    classDef opp fill:#b71c1c,stroke:#ef5350,stroke-width:2px,color:#ffffff\n")
	current := d.Scores.Current()
	for _, a := range d.Arguments {
		score := "unscored"
		if s, ok := current[a.ID]; ok {
			score = FormatScore(s)
		}
		fmt.Fprintf(&b, "    %s[\"%s<br/>%s<br/>%s\"]:::%s\n", a.ID, a.ID, escape.Mermaid(a.Title), score, a.Side)
	}
	var styles []string
	edge := 0
	for _, a := range d.Arguments {
		for _, t := range a.Attacks {
			if _, ok := d.Argument(t.TargetID); !ok {
				continue
			}
			fmt.Fprintf(&b, "    %s -->|%s| %s\n", a.ID, escape.Mermaid(strings.TrimSuffix(t.Type, "_attack")+" attack"), t.TargetID)
			styles = append(styles, fmt.Sprintf("    linkStyle %d stroke:#ef6c00,stroke-width:2px\n", edge))
			edge++
		}
		for _, t := range a.Defends {
			if _, ok := d.Argument(t.TargetID); !ok {
				continue
			}
			arrow := "-->"
			if t.Type == "concede_and_pivot" {
				arrow = "-.->"
			}
			fmt.Fprintf(&b, "    %s %s|%s| %s\n", a.ID, arrow, escape.Mermaid(strings.ReplaceAll(t.Type, "_", " ")), t.TargetID)
			styles = append(styles, fmt.Sprintf("    linkStyle %d stroke:#1e88e5,stroke-width:2px\n", edge))
			edge++
		}
	}
	for _, s := range styles {
		b.WriteString(s)
	}
	return b.String()
}
