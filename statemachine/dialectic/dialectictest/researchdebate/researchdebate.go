// Package researchdebate is a fake tool-calling model of a dialectic
// debate for the tests of research, on package researchfake's web: an
// OpenAI-compatible endpoint whose debaters search, read two pages and
// answer with an opening citing both, one ground quoting page A (found)
// and one quoting what page B does not hold (not found).
package researchdebate

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"sync"

	"github.com/moot-dev/moot/internal/testkit/researchfake"
	"github.com/moot-dev/moot/statemachine/dialectic"
)

// Model is the fake endpoint. It keeps every request body.
type Model struct {
	Web *researchfake.Web
	// NoTools makes it refuse requests that offer tools, as an endpoint
	// without function calling does.
	NoTools bool
	mu      sync.Mutex
	bodies  []map[string]any
}

var sideRe = regexp.MustCompile(`arguing for the (proposition|opposition)`)

// ServeHTTP answers POST .../chat/completions.
func (f *Model) ServeHTTP(rw http.ResponseWriter, r *http.Request) {
	raw, _ := io.ReadAll(r.Body)
	var body map[string]any
	if json.Unmarshal(raw, &body) != nil {
		rw.WriteHeader(400)
		return
	}
	f.mu.Lock()
	f.bodies = append(f.bodies, body)
	f.mu.Unlock()
	rw.Header().Set("Content-Type", "application/json")
	msgs, _ := body["messages"].([]any)
	system := ""
	if len(msgs) > 0 {
		system, _ = msgs[0].(map[string]any)["content"].(string)
	}
	if f.NoTools && body["tools"] != nil && sideRe.MatchString(system) {
		rw.WriteHeader(400)
		io.WriteString(rw, `{"error":{"message":"tools are not supported","type":"invalid_request_error"}}`)
		return
	}
	results := 0
	for _, m := range msgs {
		if m.(map[string]any)["role"] == "tool" {
			results++
		}
	}
	text, call := f.Answer(system, body["tools"] != nil, results)
	researchfake.Reply(rw, text, call)
}

// Answer is what the fake model answers a request whose first message
// is system, offering tools or not, after results tool results: text, or
// one tool call (name, arguments). A debater offered tools searches,
// then reads its side's page A, then page B, then answers with openings
// citing both; the judge scores exchange 0. Another API's fake can
// answer as this one with it.
func (f *Model) Answer(system string, tools bool, results int) (text string, call []string) {
	side := sideRe.FindStringSubmatch(system)
	if side == nil { // the judge
		return string(judgment()), nil
	}
	a, b := "/a", "/b"
	if side[1] == "opposition" && !f.Web.Shared.Load() {
		a, b = "/a2", "/b2"
	}
	if tools {
		switch results {
		case 0:
			return "", []string{"search", `{"query":"boiling point of water"}`}
		case 1:
			return "", []string{"read", `{"url":"` + f.Web.URL + a + `"}`}
		case 2:
			return "", []string{"read", `{"url":"` + f.Web.URL + b + `"}`}
		}
	}
	var args []any
	for i, l := range []string{"first", "second", "third"} {
		title := fmt.Sprintf("The %s %s opening argument here", side[1], l)
		arg := map[string]any{"title": title, "claim": "The claim of " + title + " holds.",
			"grounds": []map[string]any{{"source": "A study of the question", "content": "It found what the claim says.", "relevance": "It supports the claim."}},
			"warrant": "What the study found is what the claim says."}
		if i == 0 {
			arg["grounds"] = []map[string]any{
				{"source": "Boiling facts, " + f.Web.URL + a, "content": `The page says "` + researchfake.QuotedA + `".`, "relevance": "It supports the claim."},
				{"source": "Kettle history " + f.Web.URL + b, "content": `"` + researchfake.NotInPageB + `"`, "relevance": "It supports the claim."},
			}
		}
		args = append(args, arg)
	}
	out, _ := json.Marshal(args)
	return string(out), nil
}

// judgment scores exchange 0, zero-sum.
func judgment() []byte {
	vals := []float64{0.3, 0.1, -0.2, 0.1, -0.2, -0.1}
	var scores []map[string]any
	for i, id := range dialectic.ExchangeIDs(0) {
		scores = append(scores, map[string]any{"argument_id": id, "score": vals[i], "reasoning": "Weighed against its opponent."})
	}
	out, _ := json.Marshal(map[string]any{"scores": scores})
	return out
}

// Requests returns the bodies of the requests so far.
func (f *Model) Requests() []map[string]any {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]map[string]any(nil), f.bodies...)
}
