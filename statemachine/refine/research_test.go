package refine_test

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/moot-dev/moot/internal/driver"
	"github.com/moot-dev/moot/internal/evidence"
	"github.com/moot-dev/moot/internal/testkit/protocoltest"
	"github.com/moot-dev/moot/internal/testkit/researchfake"
	sm "github.com/moot-dev/moot/statemachine"
	"github.com/moot-dev/moot/statemachine/refine"
	"github.com/moot-dev/moot/statemachine/refine/refinetest"
)

func TestRefineResearch(t *testing.T) {
	web := researchfake.NewWeb()
	defer web.Close()
	srv := server(t, refinetest.Options{}, nil)
	opts := protocoltest.Served(t, srv.URL)
	r := &researchfake.Researching{Inner: opts.Client, Web: web}
	opts.Client = r
	opts = researchfake.On(opts, web)
	dir := newDebate(t, nil)
	if _, err := protocoltest.Advance(t, context.Background(), refine.Protocol{}, dir, driver.UnitGoal{All: true}, opts); err != nil {
		t.Fatal(err)
	}
	deb, err := refine.Protocol{}.Load(os.DirFS(dir))
	if err != nil {
		t.Fatal(err)
	}
	if f := deb.Check(); len(f.Problems)+len(f.Warnings) > 0 {
		t.Errorf("check: %+v", f)
	}
	fs := files(t, dir)
	for name, data := range fs {
		if (strings.Contains(name, "proposal") || name == refine.SynthesisFile) && !strings.HasSuffix(name, "/") {
			if !strings.Contains(data, `"check": "verified"`) || !strings.Contains(data, `"check": "not found"`) {
				t.Errorf("%s lacks its checks:\n%s", name, data)
			}
		}
	}
	if _, ok := fs[evidence.Name(web.URL+"/b")]; !ok {
		t.Error("page /b is not stored")
	}
	rep, err := deb.(interface{ Report() ([]sm.File, error) }).Report()
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(rep[0].Data), "*Quotations checked:* 1. ✓ quote verified (1.00) · 2. ✗ quote not found") {
		t.Error("the report does not mark the checks")
	}
	skeptic, judge := false, false
	for _, req := range r.Asked() {
		text := ""
		for _, m := range req.Messages {
			text += m.Content
		}
		has := strings.Contains(text, "[moot checked the quotations of this text")
		if req.Schema != nil && strings.Contains(text, "critique") {
			skeptic = skeptic || has
		}
		if req.Schema != nil && strings.Contains(strings.ToLower(req.Messages[0].Content), "judge") {
			judge = judge || has
		}
	}
	if !skeptic || !judge {
		t.Errorf("the checks reach the skeptic %v, the judge %v: want both", skeptic, judge)
	}
}
