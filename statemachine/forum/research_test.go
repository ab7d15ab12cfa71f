package forum_test

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/moot-dev/moot/internal/driver"
	"github.com/moot-dev/moot/internal/evidence"
	"github.com/moot-dev/moot/internal/model"
	"github.com/moot-dev/moot/internal/research"
	"github.com/moot-dev/moot/internal/testkit/forumfake"
	"github.com/moot-dev/moot/internal/testkit/protocoltest"
	"github.com/moot-dev/moot/internal/testkit/researchfake"
	sm "github.com/moot-dev/moot/statemachine"
	"github.com/moot-dev/moot/statemachine/forum"
)

// researching is fakeModel with debaters that search and read two pages
// when offered tools, and whose speeches quote both: one quotation is in
// its page, the other is not.
type researching struct {
	*fakeModel
	web *researchfake.Web
}

func (m researching) Complete(ctx context.Context, req model.Request) (model.Response, error) {
	if len(req.Tools) > 0 {
		n := 0
		for _, msg := range req.Messages {
			if msg.Role == "tool" {
				n++
			}
		}
		calls := []model.ToolCall{
			{ID: "s", Name: "search", Arguments: `{"query":"boiling"}`},
			{ID: "a", Name: "read", Arguments: `{"url":"` + m.web.URL + `/a"}`},
			{ID: "b", Name: "read", Arguments: `{"url":"` + m.web.URL + `/b"}`},
		}
		if n < len(calls) {
			return model.Response{ToolCalls: calls[n : n+1], Model: req.Model, PromptTokens: 1}, nil
		}
	}
	resp, err := m.fakeModel.Complete(ctx, req)
	if err == nil && len(req.Tools) > 0 && forumfake.Kind(toFake(req.Messages)) == forumfake.Turn {
		resp.Text += "\n\nAs " + m.web.URL + "/a puts it, \"" + researchfake.QuotedA + "\". And " + m.web.URL + "/b says \"" + researchfake.NotInPageB + "\"."
	}
	return resp, err
}

func TestForumResearch(t *testing.T) {
	web := researchfake.NewWeb()
	defer web.Close()
	m := researching{fakeModel: &fakeModel{}, web: web}
	dir := newDebate(t, setup{turns: 2, judge: true})
	opts := driver.Options{Client: m, DefaultModel: "m", Repairs: 2, Now: func() time.Time { return protocoltest.When }}
	opts.Overrides.Research = &research.Limits{}
	opts.Research = func() (*driver.ResearchTools, error) {
		p, err := research.NewProvider("searxng:"+web.URL, nil, nil)
		if err != nil {
			return nil, err
		}
		return &driver.ResearchTools{Provider: p, Reader: &research.Reader{AllowPrivate: true}}, nil
	}
	if _, err := protocoltest.Advance(t, context.Background(), forum.Protocol{}, dir, driver.UnitGoal{All: true}, opts); err != nil {
		t.Fatal(err)
	}
	deb, err := forum.Protocol{}.Load(os.DirFS(dir))
	if err != nil {
		t.Fatal(err)
	}
	if f := deb.Check(); len(f.Problems)+len(f.Warnings) > 0 {
		t.Errorf("check: %+v", f)
	}
	fs := files(t, dir)
	speeches := 0
	for name, data := range fs {
		if !strings.HasPrefix(name, forum.CallsDir+"/") || !strings.Contains(data, `"kind": "speech"`) {
			continue
		}
		speeches++
		if !strings.Contains(data, `"citations": [`) || !strings.Contains(data, `"check": "verified"`) || !strings.Contains(data, `"check": "not found"`) {
			t.Errorf("%s has not its two checks:\n%s", name, data)
		}
	}
	if speeches != 2 {
		t.Errorf("%d speeches, want 2", speeches)
	}
	for _, p := range []string{"/a", "/b"} {
		if _, ok := fs[evidence.Name(web.URL+p)]; !ok {
			t.Errorf("no stored copy of %s", p)
		}
	}
	rep, err := deb.(interface{ Report() ([]sm.File, error) }).Report()
	if err != nil {
		t.Fatal(err)
	}
	readme := string(rep[0].Data)
	for _, want := range []string{"*Quotations checked:* 1. ✓ quote verified (1.00) · 2. ✗ quote not found", "## Sources", "| 2 | 1 | 50% |"} {
		if !strings.Contains(readme, want) {
			t.Errorf("the report does not say %q", want)
		}
	}
	shown := false
	for _, req := range m.asked() {
		if roleOf(req) == forum.Judge && forumfake.Kind(toFake(req.Messages)) == forumfake.Evaluate {
			text := all(req)
			shown = shown || (strings.Contains(text, "[moot checked the quotations of this text") &&
				strings.Contains(text, `"`+researchfake.QuotedA+`": quote verified`) && strings.Contains(text, `": quote not found`))
		}
		if roleOf(req) == forum.Judge && len(req.Tools) > 0 {
			t.Errorf("the judge was offered tools")
		}
	}
	if !shown {
		t.Error("no evaluation prompt of the judge shows the checks beside the speech")
	}
}
