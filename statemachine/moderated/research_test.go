package moderated_test

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
	"github.com/moot-dev/moot/statemachine/moderated"
	"github.com/moot-dev/moot/statemachine/moderated/moderatedtest"
)

func TestModeratedResearch(t *testing.T) {
	for _, format := range []string{"md", "json", "txt"} {
		t.Run(format, func(t *testing.T) {
			web := researchfake.NewWeb()
			defer web.Close()
			srv := modeltest.NewServer(t, moderatedtest.Handler(moderatedtest.Options{}))
			opts := protocoltest.Served(t, srv.URL)
			r := &researchfake.Researching{Inner: opts.Client, Web: web}
			opts.Client = r
			opts = researchfake.On(opts, web)
			dir := newDebate(t, map[string]string{"rounds": "1", "output-format": format})
			if _, err := protocoltest.Advance(t, context.Background(), moderated.Protocol{}, dir, driver.UnitGoal{All: true}, opts); err != nil {
				t.Fatal(err)
			}
			deb, err := moderated.Protocol{}.Load(os.DirFS(dir))
			if err != nil {
				t.Fatal(err)
			}
			if f := deb.Check(); len(f.Problems)+len(f.Warnings) > 0 {
				t.Errorf("check: %+v", f)
			}
			fs := files(t, dir)
			checked := 0
			for _, name := range messageFiles(fs) {
				data := fs["messages/"+name]
				if strings.Contains(data, "citations") {
					checked++
					if !strings.Contains(data, "verified") || !strings.Contains(data, "not found") {
						t.Errorf("%s lacks its checks:\n%s", name, data)
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
			for _, want := range []string{"*Quotations checked:* 1. ✓ quote verified (1.00) · 2. ✗ quote not found", "## Sources", "| Advocate A | ", "50% |"} {
				if !strings.Contains(string(rep[0].Data), want) {
					t.Errorf("the report does not say %q", want)
				}
			}
			shown := false
			for _, req := range r.Asked() {
				if len(req.Tools) > 0 {
					continue
				}
				for _, m := range req.Messages {
					shown = shown || strings.Contains(m.Content, "[moot checked the quotations of this text")
				}
			}
			if !shown {
				t.Error("no later prompt shows the checks beside a message")
			}
		})
	}
}
