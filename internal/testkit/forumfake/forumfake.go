// Package forumfake answers the prompts of the forum protocol as a model
// would, from the conversation alone and always the same way, for tests.
// Every reply carries a marker naming its kind, its agent (a short hash of
// the system prompt) and the length of the conversation, so that a test
// can tell which text reached which request.
package forumfake

import (
	"encoding/json"
	"fmt"
	"hash/fnv"
	"regexp"
	"strings"
)

// Message is one message of a conversation.
type Message struct {
	Role    string
	Content string
}

// Kinds of prompt the fake tells apart.
const (
	Plan         = "PLAN"
	Think        = "THINK"
	Turn         = "TURN"
	Evaluate     = "EVAL"
	Score        = "SCORE"
	Deliberation = "DELIB"
	Confirmation = "CONFIRM"
	Verdict      = "VERDICT"
	Announcement = "ANNOUNCE"
)

// Kind names the prompt the newest user message of msgs is, looking past
// a repair message to the prompt it repairs.
func Kind(msgs []Message) string {
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i].Role != "user" {
			continue
		}
		u := msgs[i].Content
		switch {
		case strings.Contains(u, "could not be accepted"):
			continue
		case strings.Contains(u, "Plan your case in private"):
			return Plan
		case strings.Contains(u, "about to give the opening statement"), strings.Contains(u, "Reflect in private before you answer"):
			return Think
		case strings.Contains(u, "Give your opening statement now"), strings.Contains(u, "Give your closing argument"), strings.Contains(u, "Now give your answer in the debate"):
			return Turn
		case strings.Contains(u, " just argued:"):
			return Evaluate
		case strings.Contains(u, `{"score"`):
			return Score
		case strings.Contains(u, "The debate is over."):
			return Deliberation
		case strings.Contains(u, "who won? Answer with exactly one of these names"):
			return Confirmation
		case strings.Contains(u, `{"winner"`):
			return Verdict
		case strings.Contains(u, "announce your verdict"):
			return Announcement
		}
		return "UNKNOWN"
	}
	return "UNKNOWN"
}

// Tag is the short name of the agent whose system prompt is system.
func Tag(system string) string {
	h := fnv.New32a()
	h.Write([]byte(system))
	return fmt.Sprintf("%08x", h.Sum32())
}

// Marker is the marker of the reply to msgs.
func Marker(msgs []Message) string {
	return fmt.Sprintf("%s-%s-%02d", Kind(msgs), Tag(msgs[0].Content), len(msgs))
}

// Options change the fake's answers.
type Options struct {
	// PickFirst makes the judge confirm the first speaker as the winner;
	// by default it names the second.
	PickFirst bool
	// Scores, when not empty, script the judge's scores: its n-th score,
	// counted in its own conversation, is Scores[n-1], and the last one
	// past the end. By default a score follows the conversation's length.
	Scores []int
	// Final, when set, holds the verdict's scores of the winner and of
	// the loser; by default 8 and 4.
	Final []int
}

var quoted = regexp.MustCompile(`'([^']+)' or '([^']+)'`)

// Reply answers msgs.
func Reply(msgs []Message, o Options) string {
	mark := Marker(msgs)
	last := msgs[len(msgs)-1].Content
	switch Kind(msgs) {
	case Score:
		score := 3 + (len(msgs)/2)%7
		if len(o.Scores) > 0 {
			n := 0
			for _, m := range msgs {
				if m.Role == "user" && strings.Contains(m.Content, `{"score"`) && !strings.Contains(m.Content, "could not be accepted") {
					n++
				}
			}
			score = o.Scores[min(n, len(o.Scores))-1]
		}
		return fmt.Sprintf(`{"score": %d, "reasoning": %q}`, score, mark)
	case Confirmation:
		m := quoted.FindStringSubmatch(last)
		if m == nil {
			return mark
		}
		if o.PickFirst {
			return m[1]
		}
		return m[2]
	case Verdict:
		for _, line := range strings.Split(promptOf(msgs), "\n") {
			var ex struct {
				Winner string         `json:"winner"`
				Scores map[string]int `json:"scores"`
			}
			if !strings.HasPrefix(line, `{"winner"`) || json.Unmarshal([]byte(line), &ex) != nil {
				continue
			}
			loser := ""
			for n := range ex.Scores {
				if n != ex.Winner {
					loser = n
				}
			}
			win, lose := 8, 4
			if len(o.Final) == 2 {
				win, lose = o.Final[0], o.Final[1]
			}
			b, _ := json.Marshal(map[string]any{"winner": ex.Winner, "scores": map[string]int{ex.Winner: win, loser: lose}})
			return string(b)
		}
		return mark
	}
	return mark + ": a reply in the fake's own words."
}

// promptOf returns the prompt a reply answers: the newest user message
// that is not a repair.
func promptOf(msgs []Message) string {
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i].Role == "user" && !strings.Contains(msgs[i].Content, "could not be accepted") {
			return msgs[i].Content
		}
	}
	return ""
}
