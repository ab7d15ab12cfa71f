// Package refinetest is a fake model for the tests of the refine
// protocol: it reads what a request asks for from the prompt alone, as a
// model would, and answers the same way every time. Each text carries a
// marker naming its role and round (<<proposal-r2>>, <<critique-r1>>,
// <<synthesis>>), so that a test can see which text reached which request.
package refinetest

import (
	"encoding/json"
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"

	"github.com/moot-dev/moot/internal/testkit/modeltest"
)

// Options change how the fake answers.
type Options struct {
	// Critical gives the number of new critical points of round r's
	// critique; nil means one in every round.
	Critical func(r int) int
	// ReadyAt is the round whose critique says the answer is ready; 0
	// never does.
	ReadyAt int
	// ReadyScore is the score the ready critique gives; 0 means 9.
	ReadyScore int
	// Judge is the judge's first answer; "" answers well at once. A repair
	// is always answered well.
	Judge string
	// Judges scripts the judges by the model asked: a judge's request to a
	// model it names is answered with that model's answer every time,
	// repairs included, so that an answer that breaks a rule stays
	// broken. A model it does not name answers as Judge says.
	Judges map[string]string
}

// Kind is what a request asks for: "proposer", "skeptic", "synthesizer",
// "judge" or "".
func Kind(req modeltest.Request) string {
	if len(req.Messages) == 0 {
		return ""
	}
	system := req.Messages[0].Content
	for _, k := range []struct{ prefix, kind string }{
		{"You are the Proposer", "proposer"}, {"You are the Skeptic", "skeptic"},
		{"You are the Synthesizer", "synthesizer"}, {"You are a quality assessment judge", "judge"},
	} {
		if strings.HasPrefix(system, k.prefix) {
			return k.kind
		}
	}
	return ""
}

var (
	roundRe = regexp.MustCompile(`round (\d+) of at most`)
	pointRe = regexp.MustCompile(`(?m)^- (R\d+\.\d+) \(`)
)

// Round reads the round a proposer or skeptic request is for.
func Round(req modeltest.Request) int {
	if len(req.Messages) < 2 {
		return 0
	}
	m := roundRe.FindStringSubmatch(req.Messages[1].Content)
	if m == nil {
		return 0
	}
	n, _ := strconv.Atoi(m[1])
	return n
}

// Points lists the ids of the open points a request asks to answer or
// rate.
func Points(req modeltest.Request) []string {
	var out []string
	seen := map[string]bool{}
	text := req.Messages[1].Content
	i := max(strings.LastIndex(text, "## Earlier points to rate"), strings.LastIndex(text, "## Points to answer"))
	if i < 0 {
		return nil
	}
	for _, m := range pointRe.FindAllStringSubmatch(text[i:], -1) {
		if !seen[m[1]] {
			seen[m[1]] = true
			out = append(out, m[1])
		}
	}
	return out
}

// GoodJudge is a judge's answer that is accepted: 7, with criteria whose
// weighted mean is 7.
const GoodJudge = `{"score": 7, "criteria": {"correctness": 7, "completeness": 7, "clarity": 7, "depth": 7}, "justification": "Sound and clear, if not deep.", "would_benefit_from_finetune": false}`

// JudgeAnswer is a judge's answer of score with the criteria's marks, in
// the order correctness, completeness, clarity, depth; it is accepted
// when every mark is a whole number from 1 to 10 and score is within 1.5
// of their weighted mean.
func JudgeAnswer(score, correctness, completeness, clarity, depth int) string {
	data, _ := json.Marshal(map[string]any{
		"score": score,
		"criteria": map[string]int{"correctness": correctness, "completeness": completeness,
			"clarity": clarity, "depth": depth},
		"justification":               fmt.Sprintf("Scripted: %d/10.", score),
		"would_benefit_from_finetune": score < 8,
	})
	return string(data)
}

// Handler answers every chat request of a refine debate.
func Handler(o Options) modeltest.Handler {
	return func(req modeltest.Request) modeltest.Reply {
		if Kind(req) == "" {
			return modeltest.Failf("refinetest: a request of no known role")
		}
		return modeltest.Reply{Content: Reply(req, o)}
	}
}

// Reply is the fake's answer to req; "" for a request of no known role.
func Reply(req modeltest.Request, o Options) string {
	r := Round(req)
	switch Kind(req) {
	case "proposer":
		var b strings.Builder
		fmt.Fprintf(&b, "<<proposal-r%d>> An answer.\n", r)
		for _, id := range Points(req) {
			fmt.Fprintf(&b, "\n**%s** Accepted and revised.\n", id)
		}
		return b.String()
	case "skeptic":
		crit := 1
		if o.Critical != nil {
			crit = o.Critical(r)
		}
		type prev struct {
			ID     string `json:"id"`
			Status string `json:"status"`
			Note   string `json:"note"`
		}
		type point struct {
			Severity string `json:"severity"`
			Text     string `json:"text"`
		}
		previous := []prev{}
		for _, id := range Points(req) {
			previous = append(previous, prev{ID: id, Status: "resolved", Note: "fixed"})
		}
		points := []point{}
		for i := 0; i < crit; i++ {
			points = append(points, point{Severity: "critical", Text: fmt.Sprintf("critical flaw %d of round %d", i+1, r)})
		}
		points = append(points, point{Severity: "minor", Text: fmt.Sprintf("a minor flaw of round %d", r)})
		ready := r == o.ReadyAt
		score := 5
		if ready {
			score = 9
			if o.ReadyScore != 0 {
				score = o.ReadyScore
			}
		}
		data, _ := json.Marshal(map[string]any{
			"critique": fmt.Sprintf("<<critique-r%d>> The answer is not yet Ready for Synthesis ✅. 🔴 Critical issues remain.", r),
			"previous": previous, "points": points, "score": score, "ready": ready,
		})
		return string(data)
	case "synthesizer":
		return "<<synthesis>>\n\n## Answer\n\nThe final answer.\n\n---\n\n## Confidence: 8/10"
	case "judge":
		if a, ok := o.Judges[req.Model]; ok {
			return a
		}
		if len(req.Messages) <= 2 && o.Judge != "" {
			return o.Judge
		}
		return GoodJudge
	}
	return ""
}

// Embeddings returns vectors for the embedding requests of a refine
// debate: the question (any text that is not a template's document) gets
// (1, 0), and the document of the template named name gets a vector whose
// cosine to it is scores[name], or 0.1 when scores does not name it.
func Embeddings(scores map[string]float64) modeltest.EmbedHandler {
	return func(model, text string) []float64 {
		name, ok := strings.CutPrefix(text, "Name: ")
		if !ok {
			return []float64{1, 0}
		}
		name, _, _ = strings.Cut(name, "\n")
		s, ok := scores[name]
		if !ok {
			s = 0.1
		}
		return []float64{s, math.Sqrt(1 - s*s)}
	}
}
