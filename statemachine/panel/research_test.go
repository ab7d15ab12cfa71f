package panel_test

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/moot-dev/moot/internal/driver"
	"github.com/moot-dev/moot/internal/evidence"
	"github.com/moot-dev/moot/internal/testkit/modeltest"
	"github.com/moot-dev/moot/internal/testkit/protocoltest"
	"github.com/moot-dev/moot/internal/testkit/researchfake"
	sm "github.com/moot-dev/moot/statemachine"
	"github.com/moot-dev/moot/statemachine/panel"
	"github.com/moot-dev/moot/statemachine/panel/paneltest"
)

func TestPanelResearch(t *testing.T) {
	web := researchfake.NewWeb()
	defer web.Close()
	srv := modeltest.NewServer(t, paneltest.Handler(paneltest.Options{}))
	opts := protocoltest.Served(t, srv.URL)
	r := &researchfake.Researching{Inner: opts.Client, Web: web}
	opts.Client = r
	opts = researchfake.On(opts, web)
	dir := newDebate(t, nil)
	if _, err := protocoltest.Advance(t, context.Background(), panel.Protocol{}, dir, driver.UnitGoal{All: true}, opts); err != nil {
		t.Fatal(err)
	}
	deb, err := panel.Protocol{}.Load(os.DirFS(dir))
	if err != nil {
		t.Fatal(err)
	}
	if f := deb.Check(); len(f.Problems)+len(f.Warnings) > 0 {
		t.Errorf("check: %+v", f)
	}
	fs := files(t, dir)
	checked := 0
	for name, data := range fs {
		if strings.Contains(data, `"citations"`) {
			checked++
			if !strings.Contains(data, `"check": "verified"`) || !strings.Contains(data, `"check": "not found"`) {
				t.Errorf("%s lacks its checks", name)
			}
		}
	}
	if checked == 0 {
		t.Fatal("no message has its quotations checked")
	}
	if _, ok := fs[evidence.Name(web.URL+"/a")]; !ok {
		t.Error("page /a is not stored")
	}
	rep, err := deb.(interface{ Report() ([]sm.File, error) }).Report()
	if err != nil {
		t.Fatal(err)
	}
	if md := string(rep[0].Data); !strings.Contains(md, "Quotations checked") || !strings.Contains(md, "✓ quote verified (1.00) · 2. ✗ quote not found") {
		t.Error("the report does not mark the checks")
	}
	shown := false
	for _, req := range r.Asked() {
		for _, m := range req.Messages {
			shown = shown || strings.Contains(m.Content, "[moot checked the quotations of this text")
		}
	}
	if !shown {
		t.Error("no later prompt shows the checks beside a message")
	}
}
