package responsesfake

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/moot-dev/moot/internal/testkit/modeltest"
)

// TestRefusesWhatTheAPIRefuses checks that the fake answers as strictly
// as OpenAI's endpoint, so that a client sending a Chat Completions
// field, a malformed item or the wrong path fails its tests.
func TestRefusesWhatTheAPIRefuses(t *testing.T) {
	s := NewServer(t, func(Request) Reply { return Reply{Reply: modeltest.Reply{Content: "ok"}} })
	for _, tc := range []struct {
		name, path, contentType, body string
		status                        int
		param                         string
	}{
		{"a whole answer", "/v1/responses", "application/json", `{"model":"m","input":"hi"}`, 200, ""},
		{"chat's messages", "/v1/responses", "application/json", `{"model":"m","messages":[]}`, 400, "messages"},
		{"chat's max_tokens", "/v1/responses", "application/json", `{"model":"m","input":"hi","max_tokens":5}`, 400, "max_tokens"},
		{"chat's response_format", "/v1/responses", "application/json", `{"model":"m","input":"hi","response_format":{"type":"json_object"}}`, 400, "response_format"},
		{"no input", "/v1/responses", "application/json", `{"model":"m"}`, 400, "input"},
		{"an unknown item", "/v1/responses", "application/json", `{"model":"m","input":[{"type":"tool","content":"x"}]}`, 400, "input[0].type"},
		{"an output naming no call", "/v1/responses", "application/json", `{"model":"m","input":[{"type":"function_call_output","output":"x"}]}`, 400, "input[0].call_id"},
		{"a schema without a name", "/v1/responses", "application/json", `{"model":"m","input":"hi","text":{"format":{"type":"json_schema","schema":{}}}}`, 400, "text.format.name"},
		{"not JSON", "/v1/responses", "text/plain", `{"model":"m","input":"hi"}`, 400, ""},
		{"the chat path", "/v1/chat/completions", "application/json", `{"model":"m","messages":[]}`, 404, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, err := http.Post(strings.TrimSuffix(s.URL, "/v1")+tc.path, tc.contentType, strings.NewReader(tc.body))
			if err != nil {
				t.Fatal(err)
			}
			defer res.Body.Close()
			b, _ := io.ReadAll(res.Body)
			var e struct {
				Error struct {
					Param *string `json:"param"`
				} `json:"error"`
			}
			_ = json.Unmarshal(b, &e)
			param := ""
			if e.Error.Param != nil {
				param = *e.Error.Param
			}
			if res.StatusCode != tc.status || param != tc.param {
				t.Errorf("answered %d naming %q (%s), want %d naming %q", res.StatusCode, param, b, tc.status, tc.param)
			}
		})
	}
}
