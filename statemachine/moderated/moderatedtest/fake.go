// Package moderatedtest is a fake model for the tests of the moderated
// protocol: it reads what a request asks for from the prompt alone, as a
// model would, and answers the same way every time. Each statement carries
// a marker naming its speaker, kind and round (<<A-argument-r1>>), each
// other message one naming its kind, and each justification a JUST-
// marker, so that a test can see which text reached which request.
package moderatedtest

import (
	"fmt"
	"regexp"
	"strings"
	"sync"

	"github.com/moot-dev/moot/internal/testkit/modeltest"
)

// StatementMarker matches the marker of an advocate's statement.
var StatementMarker = regexp.MustCompile(`<<[AB]-(opening|argument|rebuttal|closing)-r[0-9]+>>`)

// Options change how the fake answers.
type Options struct {
	// Marks are the scores of every criterion, in the rubric's order; nil
	// gives 8, 6, 7, 7, 9.
	Marks []float64
	// Criteria are the rubric's names; nil means the default five.
	Criteria []string
	// BadRubrics is how many rubric replies, from the first, break the
	// shape (a score of 11); a negative number breaks every one.
	BadRubrics int
	// Judges, when set, gives the marks of the rubric replies by the
	// model asked, in the rubric's order: judges of known scores on one
	// server. A model it does not name replies with Marks. A mark outside
	// 0 to 10 makes every reply of its model break the range, a judge
	// that never gets it right. Their justifications name the model.
	Judges map[string][]float64
}

var defaultCriteria = []string{"logical_coherence", "evidence_quality", "responsiveness", "persuasiveness", "rule_adherence"}

// Kind is what a request asks for: "A", "B", "moderator", "scorer" or
// "fact-checker".
func Kind(req modeltest.Request) string {
	if len(req.Messages) == 0 {
		return ""
	}
	system := req.Messages[0].Content
	switch {
	case strings.HasPrefix(system, "You are Advocate A"):
		return "A"
	case strings.HasPrefix(system, "You are Advocate B"):
		return "B"
	case strings.Contains(system, "you score one statement"):
		return "scorer"
	case strings.HasPrefix(system, "You are the fact checker"):
		return "fact-checker"
	case strings.HasPrefix(system, "You are the moderator"):
		return "moderator"
	}
	return ""
}

// Field returns the value of the last line of the request's first user
// message that starts with label and ": ". A prompt names its phase and
// task after the debate so far, so the last such line is the prompt's
// own even if a statement quoted before it has one.
func Field(req modeltest.Request, label string) string {
	if len(req.Messages) < 2 {
		return ""
	}
	lines := strings.Split(req.Messages[1].Content, "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		if v, ok := strings.CutPrefix(lines[i], label+": "); ok {
			return strings.TrimSpace(v)
		}
	}
	return ""
}

// Round reads the round from the request's phase line: 0 for openings.
func Round(req modeltest.Request) string {
	phase := Field(req, "Current phase")
	var r int
	switch {
	case strings.HasPrefix(phase, "Argument Round"):
		fmt.Sscanf(phase, "Argument Round %d", &r)
		return fmt.Sprint(r)
	case strings.HasPrefix(phase, "Opening"):
		return "0"
	}
	return "c"
}

// Handler answers every request of a moderated debate.
func Handler(o Options) modeltest.Handler {
	if o.Marks == nil {
		o.Marks = []float64{8, 6, 7, 7, 9}
	}
	if o.Criteria == nil {
		o.Criteria = defaultCriteria
	}
	var mu sync.Mutex
	bad := 0
	return func(req modeltest.Request) modeltest.Reply {
		switch k := Kind(req); k {
		case "A", "B":
			task := Field(req, "Your task")
			return modeltest.Reply{Content: fmt.Sprintf("<<%s-%s-r%s>> %s makes its %s.", k, task, Round(req), k, task)}
		case "moderator":
			return modeltest.Reply{Content: fmt.Sprintf("<<M-%s-r%s>> The moderator speaks.", Field(req, "Next action"), Round(req))}
		case "fact-checker":
			target := StatementMarker.FindString(req.Messages[1].Content)
			return modeltest.Reply{Content: "FACT-CHECK of " + target + ": one claim, unverifiable."}
		case "scorer":
			target := StatementMarker.FindString(req.Messages[1].Content)
			mu.Lock()
			broken := o.BadRubrics < 0 || bad < o.BadRubrics
			bad++
			mu.Unlock()
			marks, just := o.Marks, "JUST-"
			if m, ok := o.Judges[req.Model]; ok {
				marks, just = m, "JUST-"+req.Model+"-"
			}
			var b strings.Builder
			b.WriteString("{")
			for i, c := range o.Criteria {
				if i > 0 {
					b.WriteString(", ")
				}
				mark := marks[i%len(marks)]
				if broken {
					mark = 11
				}
				fmt.Fprintf(&b, "%q: {\"score\": %v, \"justification\": \"%s%s-%s\"}", c, mark, just, c, target)
			}
			b.WriteString("}")
			return modeltest.Reply{Content: b.String()}
		}
		return modeltest.Failf("a request the fake cannot place: %q", req.Messages[0].Content)
	}
}
