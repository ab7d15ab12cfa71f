package driver_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	driver "github.com/moot-dev/moot/internal/driver"
	"github.com/moot-dev/moot/internal/evidence"
	"github.com/moot-dev/moot/internal/model"
	"github.com/moot-dev/moot/internal/testkit/modeltest"
	"github.com/moot-dev/moot/internal/testkit/responsesfake"
	"github.com/moot-dev/moot/statemachine/dialectic"
)

// TestResearchOverResponses runs a researched exchange over OpenAI's
// Responses API: the debaters' tool calls come as function_call items,
// their results go back as function_call_output items naming them, and
// the grounds are checked against the pages as over Chat Completions.
func TestResearchOverResponses(t *testing.T) {
	w := newWeb(t)
	f := &researcher{Web: w}
	srv := responsesfake.NewServer(t, func(req responsesfake.Request) responsesfake.Reply {
		text, call := f.Answer(req.Messages[0].Content, len(req.Tools) > 0, len(req.Outputs))
		r := responsesfake.Reply{Reply: modeltest.Reply{Content: text}}
		if call != nil {
			r.Calls = []responsesfake.Call{{CallID: fmt.Sprintf("call_%d", len(req.Outputs)), Name: call[0], Arguments: call[1]}}
		}
		return r
	})
	d := newRunDebate(t)
	opts := researchOptionsAt(t, f, model.Config{BaseURL: srv.URL, API: model.APIResponses}, true)
	if _, err := driver.Run(context.Background(), d, driver.Goal{Exchange: 1}, opts); err != nil {
		t.Fatal(err)
	}
	mustCheck(t, d)
	prop := argumentFile(t, d, dialectic.ArgumentIDs(0, dialectic.Prop)[0])
	if len(prop.Grounds) != 2 || prop.Grounds[0].Result != evidence.Verified || prop.Grounds[1].Result != evidence.NotFound {
		t.Fatalf("checks = %+v, want verified then not found", prop.Grounds)
	}
	researched := 0
	for _, r := range srv.Requests() {
		if r.Path != "/v1/responses" {
			t.Errorf("a request went to %s", r.Path)
		}
		if len(r.Tools) == 0 || len(r.Outputs) < 3 {
			continue
		}
		researched++
		for i, out := range r.Outputs {
			if out.CallID != r.Calls[i].CallID || out.CallID != fmt.Sprintf("call_%d", i) {
				t.Errorf("output %d answers %q after call %q, want call_%d", i, out.CallID, r.Calls[i].CallID, i)
			}
		}
		if !strings.Contains(r.Outputs[1].Output, "UNTRUSTED PAGE TEXT") {
			t.Errorf("the page read went back as %q, want it quoted as untrusted data", r.Outputs[1].Output)
		}
	}
	if researched != 2 || w.Searches() != 2 {
		t.Errorf("%d answers after three tool rounds and %d searches, want both debaters' (2, 2)", researched, w.Searches())
	}
}
