// Package paneltest is a fake model for the tests of the panel protocol:
// it reads what a request asks for from the prompt alone, as a model
// would, and answers the same way every time. Each persona message
// carries a marker naming its speaker and place (<<mara-a1-m0>>,
// <<theo-a2-t05>>), so that a test can see which text reached which
// request.
package paneltest

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"sync"

	"github.com/moot-dev/moot/internal/testkit/modeltest"
)

// Options change how the fake answers.
type Options struct {
	// Detect decides the three gates and the two names of aspect k's
	// disagreement check; nil answers all false.
	Detect func(k int) (gates [3]bool, names []string)
	// Exit decides the exit check after turn t of aspect k's room; nil
	// answers false.
	Exit func(k, t int) bool
	// ProseCards is how many card answers, from the first, are prose
	// rather than JSON; BadKinds how many, after those, name a kind out
	// of the set.
	ProseCards, BadKinds int
	// Short makes persona p answer only "That's a great point!".
	Short string
	// ShortTask, when set, limits Short to the requests whose task is
	// ShortTask ("reply", "take", ...).
	ShortTask string
}

// Kind is what a request asks for: its "Task:" line.
func Kind(req modeltest.Request) string {
	return Field(req, "Task")
}

// Field returns the value of the first line of the request's first user
// message that starts with label and ": ".
func Field(req modeltest.Request, label string) string {
	if len(req.Messages) < 2 {
		return ""
	}
	for _, line := range strings.Split(req.Messages[1].Content, "\n") {
		if v, ok := strings.CutPrefix(line, label+": "); ok {
			return strings.TrimSpace(v)
		}
	}
	return ""
}

var youAre = regexp.MustCompile(`^You are ([A-Za-z]+)`)

// Speaker is the first name of the persona a request speaks as, lower
// case; "" for an analysis call.
func Speaker(req modeltest.Request) string {
	if len(req.Messages) == 0 {
		return ""
	}
	m := youAre.FindStringSubmatch(req.Messages[0].Content)
	if m == nil {
		return ""
	}
	return strings.ToLower(m[1])
}

var entryName = regexp.MustCompile(`(?m)^\[[a-z0-9-]+\] ([A-Za-z]+)`)

// Handler answers every request of a panel debate.
func Handler(o Options) modeltest.Handler {
	var mu sync.Mutex
	cards := 0
	return func(req modeltest.Request) modeltest.Reply {
		user := req.Messages[len(req.Messages)-1].Content
		first := req.Messages[1].Content
		who := Speaker(req)
		aspect := strings.TrimPrefix(Field(req, "Aspect"), "a")
		var k int
		fmt.Sscan(aspect, &k)
		task := Kind(req)
		short := who == o.Short && (o.ShortTask == "" || o.ShortTask == task)
		switch task {
		case "opening", "take", "reply", "closing", "crux-position", "crux-turn":
			if short {
				return modeltest.Reply{Content: "That's a great point!"}
			}
			place := task
			switch task {
			case "take":
				place = "a" + aspect + "-m0"
			case "reply":
				place = "a" + aspect + "-reply"
			case "crux-turn":
				place = "t" + Field(req, "Turn")
			}
			return modeltest.Reply{Content: fmt.Sprintf("<<%s-%s>> %s speaks at length about this.", who, place, who)}
		case "react":
			if short {
				return modeltest.Reply{Content: `{"reply_to": "x", "text": "That's a great point!"}`}
			}
			names := entryName.FindAllStringSubmatch(first, -1)
			target := ""
			if len(names) > 0 {
				target = names[0][1]
			}
			return modeltest.Reply{Content: fmt.Sprintf(`{"reply_to": %q, "text": "<<%s-a%s-m1>> %s answers %s at length."}`, target, who, aspect, who, target)}
		case "decompose":
			n := 3
			if i := strings.Index(first, "into "); i >= 0 {
				fmt.Sscan(first[i+5:], &n)
			}
			var parts []string
			for i := 1; i <= n; i++ {
				parts = append(parts, fmt.Sprintf(`{"label": "Aspect number %d", "description": "Is aspect %d true?"}`, i, i))
			}
			return modeltest.Reply{Content: `{"aspects": [` + strings.Join(parts, ", ") + `]}`}
		case "detect":
			var g [3]bool
			var names []string
			if o.Detect != nil {
				g, names = o.Detect(k)
			}
			raw, _ := json.Marshal(names)
			q := string(raw)
			return modeltest.Reply{Content: fmt.Sprintf(`{"has_direct_opposition": %t, "has_specific_claim": %t, "topic_relevant": %t, "personas": %s, "topic": "Is aspect %d settled?", "short_label": "aspect %d"}`, g[0], g[1], g[2], q, k, k)}
		case "exit-check":
			var t int
			fmt.Sscan(Field(req, "Turn"), &t)
			surfaced := o.Exit != nil && o.Exit(k, t)
			return modeltest.Reply{Content: fmt.Sprintf(`{"crux_surfaced": %t, "reason": "EXIT-%d"}`, surfaced, t)}
		case "convergence":
			return modeltest.Reply{Content: `{"core_disagreement": "They weigh the evidence differently.", "type": "factual", "converged": false}`}
		case "card":
			mu.Lock()
			cards++
			n := cards
			mu.Unlock()
			if n <= o.ProseCards {
				return modeltest.Reply{Content: "The crux is whether the evidence holds; one says yes, the other no."}
			}
			kind := "evidence"
			if n <= o.ProseCards+o.BadKinds {
				kind = "empirical"
			}
			ids := regexp.MustCompile(`"([a-z][a-z0-9-]*)": \{"position"`).FindAllStringSubmatch(first, -1)
			var parts []string
			for i, m := range ids {
				pos := "YES"
				if i == 1 {
					pos = "NO"
				}
				parts = append(parts, fmt.Sprintf(`%q: {"position": %q, "reasoning": "REASON-%s", "falsifier": "FALSIFY-%s"}`, m[1], pos, m[1], m[1]))
			}
			return modeltest.Reply{Content: fmt.Sprintf(`{"question": "Does the evidence hold?", "kind": %q, "diagnosis": "They read the data differently.", "resolved": false, "resolution": null, "personas": {%s}}`, kind, strings.Join(parts, ", "))}
		case "round-summary":
			return modeltest.Reply{Content: fmt.Sprintf("SUMMARY-a%s: the panel split.", aspect)}
		case "shifts":
			ids := regexp.MustCompile(`(?m)^[A-Za-z ]+ \(([a-z0-9-]+)\)$`).FindAllStringSubmatch(first, -1)
			var parts []string
			for _, m := range ids {
				parts = append(parts, fmt.Sprintf(`{"persona": %q, "shifted": false, "summary": "SHIFT-%s held."}`, m[1], m[1]))
			}
			return modeltest.Reply{Content: `{"shifts": [` + strings.Join(parts, ", ") + `]}`}
		case "summary":
			return modeltest.Reply{Content: `{"claims": [{"claim": "CLAIM-1", "stances": [{"persona": "mara", "position": "for", "reasoning": "r"}]}], "agreements": ["AGREE-1"], "evidence_ledger": [], "flip_conditions": [], "resolution_paths": ["If X, then Y"]}`}
		}
		_ = user
		return modeltest.Failf("a request the fake cannot place: %q", first)
	}
}
