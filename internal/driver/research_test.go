package driver_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"
	"time"

	driver "github.com/moot-dev/moot/internal/driver"
	"github.com/moot-dev/moot/internal/evidence"
	"github.com/moot-dev/moot/internal/model"
	"github.com/moot-dev/moot/internal/research"
	"github.com/moot-dev/moot/internal/testkit/researchfake"
	"github.com/moot-dev/moot/statemachine/dialectic"
	"github.com/moot-dev/moot/statemachine/dialectic/dialectictest/researchdebate"
	"github.com/moot-dev/moot/store"
)

type web = researchfake.Web
type researcher = researchdebate.Model

func newWeb(t *testing.T) *web {
	w := researchfake.NewWeb()
	t.Cleanup(w.Close)
	return w
}

func researchOptions(t *testing.T, f *researcher, allowPrivate bool) driver.Options {
	srv := httptest.NewServer(f)
	t.Cleanup(srv.Close)
	return researchOptionsAt(t, f, model.Config{BaseURL: srv.URL + "/v1"}, allowPrivate)
}

// researchOptionsAt are the options of a run whose debaters research on
// f's web, with a client of the endpoint cfg names.
func researchOptionsAt(t *testing.T, f *researcher, cfg model.Config, allowPrivate bool) driver.Options {
	cfg.APIKey, cfg.Timeout = "test-key", 10*time.Second
	c, err := model.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	opts := options(c)
	opts.Serial = true
	opts.Overrides.Research = &research.Limits{}
	opts.Research = func() (*driver.ResearchTools, error) {
		p, err := research.NewProvider("searxng:"+f.Web.URL, nil, nil)
		if err != nil {
			return nil, err
		}
		return &driver.ResearchTools{Provider: p, Reader: &research.Reader{AllowPrivate: allowPrivate}}, nil
	}
	var warns []string
	opts.Warn = func(s string) { warns = append(warns, s) }
	return opts
}

func argumentFile(t *testing.T, d *store.Dir, id string) *dialectic.Argument {
	t.Helper()
	data, err := d.ReadFile(dialectic.ArgumentFile(id))
	if err != nil {
		t.Fatal(err)
	}
	a, err := dialectic.ParseArgument(data)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// researchExchange runs exchange 0 of a new debate whose debaters
// research on w, and checks it.
func researchExchange(t *testing.T, w *web) (*store.Dir, *researcher) {
	t.Helper()
	f := &researcher{Web: w}
	d := newRunDebate(t)
	if _, err := driver.Run(context.Background(), d, driver.Goal{Exchange: 1}, researchOptions(t, f, true)); err != nil {
		t.Fatal(err)
	}
	mustCheck(t, d)
	return d, f
}

func TestResearchVerifiesGrounds(t *testing.T) {
	w := newWeb(t)
	d, f := researchExchange(t, w)
	prop := argumentFile(t, d, dialectic.ArgumentIDs(0, dialectic.Prop)[0])
	if len(prop.Grounds) != 2 || prop.Grounds[0].Result != evidence.Verified || prop.Grounds[1].Result != evidence.NotFound {
		t.Fatalf("checks = %+v, want verified then not found", prop.Grounds)
	}
	if prop.Grounds[0].Copy != evidence.Name(w.URL+"/a") || prop.Grounds[1].Copy != evidence.Name(w.URL+"/b") {
		t.Errorf("copies = %+v", prop.Grounds)
	}
	for _, path := range []string{"/a", "/b", "/a2", "/b2"} {
		data, err := d.ReadFile(evidence.Name(w.URL + path))
		if err != nil {
			t.Fatalf("no stored copy of %s: %v", path, err)
		}
		src, err := evidence.Parse(data)
		if err != nil || src.URL != w.URL+path || src.Status != 200 || !strings.Contains(src.Text, "Kettles") && !strings.Contains(src.Text, "boils") {
			t.Errorf("copy of %s = %+v, %v", path, src, err)
		}
	}
	// A ground without a URL is not checked.
	if other := argumentFile(t, d, dialectic.ArgumentIDs(0, dialectic.Prop)[1]); other.Grounds != nil {
		t.Errorf("a ground citing no URL was checked: %+v", other.Grounds)
	}
	var judgePrompt string
	for _, b := range f.Requests() {
		data, _ := json.Marshal(b["messages"])
		if b["tools"] == nil && strings.Contains(string(data), "You are the judge") {
			judgePrompt = string(data)
		}
		if b["tools"] != nil {
			// Page B asks to ignore instructions: it reaches the model
			// only inside the fences of quoted, untrusted data.
			for _, m := range researchfake.ToolMessages(b) {
				if i := strings.Index(m, "IGNORE ALL PREVIOUS"); i >= 0 {
					fence := regexp.MustCompile(`\n(PAGE-[0-9a-f]+)\n`).FindStringSubmatch(m)
					if !strings.HasPrefix(m, "UNTRUSTED PAGE TEXT") || fence == nil ||
						!(strings.Index(m, fence[1]) < i && strings.LastIndex(m, fence[1]) > i) {
						t.Errorf("the page is not quoted data: %q", m)
					}
				}
			}
		}
	}
	if judgePrompt == "" {
		t.Fatal("no judge request")
	}
	for _, want := range []string{"**Check:** quote verified (match 1.00", "**Check:** quote not found (match"} {
		if !strings.Contains(judgePrompt, want) {
			t.Errorf("the judge's prompt does not show %q", want)
		}
	}
	deb, err := driver.Load(d)
	if err != nil {
		t.Fatal(err)
	}
	md := string(dialectic.Build(deb, nil).Markdown())
	for _, want := range []string{"## Sources", "| Proposition | 2 | 1 | 50% |", "| Opposition | 2 | 1 | 50% |",
		"**Grounds checked:** 1. ✓ quote verified (1.00) · 2. ✗ quote not found (0.25)"} {
		if !strings.Contains(md, want) {
			t.Errorf("the report does not say %q", want)
		}
	}
	if w.Searches() != 2 || w.Reads("/a") != 1 || w.Reads("/b") != 1 {
		t.Errorf("searches %d, reads of a %d, b %d: want 2, 1, 1", w.Searches(), w.Reads("/a"), w.Reads("/b"))
	}
	// Each debater's call keeps, with its prompt, the tool calls it made
	// and what they gave back, as moot serve shows them.
	for _, u := range usageLines(t, d.Path()) {
		tr, err := driver.ReadTranscript(d, u.Transcript)
		if err != nil {
			t.Fatalf("%s: %v", u.Role, err)
		}
		asked, given := 0, 0
		for _, m := range tr.Messages {
			asked += len(m.ToolCalls)
			if m.Role == "tool" && m.ToolCallID != "" && m.Content != "" {
				given++
			}
		}
		if u.Role != "judge" && (asked == 0 || given != asked) {
			t.Errorf("the %s's transcript keeps %d tool calls and %d results", u.Role, asked, given)
		}
	}
}

func TestResearchOffChangesNothing(t *testing.T) {
	w := newWeb(t)
	run := func(withTools bool) (map[string]string, []map[string]any) {
		f := &researcher{Web: w}
		d := newRunDebate(t)
		opts := researchOptions(t, f, true)
		opts.Overrides.Research = nil
		if !withTools {
			opts.Research = nil
		}
		if _, err := driver.Run(context.Background(), d, driver.Goal{Exchange: 1}, opts); err != nil {
			t.Fatal(err)
		}
		return runSnapshot(t, d), f.Requests()
	}
	plainFiles, plainReqs := run(false)
	files, reqs := run(true)
	sameSnapshot(t, files, plainFiles)
	a, _ := json.Marshal(reqs)
	b, _ := json.Marshal(plainReqs)
	if string(a) != string(b) {
		t.Errorf("the requests differ with research tools given but research off")
	}
	if w.Searches() != 0 {
		t.Errorf("%d searches with research off", w.Searches())
	}
	// Both runs could leak alike: neither may show a trace of research.
	for _, b := range reqs {
		msgs := fmt.Sprint(b["messages"])
		for _, leak := range []string{research.Instructions[:40], "**Check:**", "sources/", "UNTRUSTED PAGE TEXT"} {
			if strings.Contains(msgs, leak) {
				t.Errorf("a request with research off holds %q", leak)
			}
		}
		if b["tools"] != nil {
			t.Errorf("a request with research off offers tools")
		}
	}
	for name, data := range files {
		if strings.HasPrefix(name, "sources/") || strings.Contains(data, `"grounds"`) || strings.Contains(data, "**Check:**") {
			t.Errorf("%s shows research with research off", name)
		}
	}
}

func TestResearchTrouble(t *testing.T) {
	tests := []struct {
		name         string
		failing      bool
		noTools      bool
		allowPrivate bool
		wantTool     string // in a tool answer the proposition got
		wantChecks   []string
		wantWarn     string
	}{
		{name: "provider fails", failing: true, allowPrivate: true, wantTool: "error: the search failed: searxng at ",
			wantChecks: []string{evidence.Verified, evidence.NotFound}},
		{name: "private address refused", wantTool: "refused: the address is private, loopback or link-local",
			wantChecks: []string{evidence.Unreachable, evidence.Unreachable}},
		{name: "endpoint without tools", noTools: true, allowPrivate: true, wantWarn: "takes no tools"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := newWeb(t)
			w.Failing.Store(tt.failing)
			f := &researcher{Web: w, NoTools: tt.noTools}
			d := newRunDebate(t)
			opts := researchOptions(t, f, tt.allowPrivate)
			var warns []string
			opts.Warn = func(s string) { warns = append(warns, s) }
			if _, err := driver.Run(context.Background(), d, driver.Goal{Exchange: 1}, opts); err != nil {
				t.Fatal(err)
			}
			mustCheck(t, d)
			if tt.wantTool != "" {
				found := false
				for _, b := range f.Requests() {
					for _, m := range researchfake.ToolMessages(b) {
						found = found || strings.Contains(m, tt.wantTool)
					}
				}
				if !found {
					t.Errorf("no tool answer says %q", tt.wantTool)
				}
			}
			if tt.failing && !strings.Contains(fmt.Sprint(f.Requests()), "answered 502") {
				t.Errorf("the failure does not name the provider's answer")
			}
			prop := argumentFile(t, d, dialectic.ArgumentIDs(0, dialectic.Prop)[0])
			var got []string
			for _, c := range prop.Grounds {
				got = append(got, c.Result)
			}
			if fmt.Sprint(got) != fmt.Sprint(tt.wantChecks) {
				t.Errorf("checks = %v, want %v", got, tt.wantChecks)
			}
			if tt.noTools {
				for _, b := range f.Requests() {
					if b["tools"] == nil && strings.Contains(fmt.Sprint(b["messages"]), "You can research before you answer") {
						t.Errorf("a request without tools tells the model of them")
					}
				}
			}
			if tt.wantWarn != "" {
				n := 0
				for _, s := range warns {
					if strings.Contains(s, tt.wantWarn) {
						n++
					}
				}
				if n != 1 {
					t.Errorf("warnings %q: want %q once", warns, tt.wantWarn)
				}
			}
		})
	}
}

func TestResearchResumes(t *testing.T) {
	w := newWeb(t)
	f := &researcher{Web: w}
	// An uninterrupted run, for the files to compare with.
	whole := newRunDebate(t)
	if _, err := driver.Run(context.Background(), whole, driver.Goal{Exchange: 1}, researchOptions(t, f, true)); err != nil {
		t.Fatal(err)
	}
	w.Reset()

	d := newRunDebate(t)
	ctx, cancel := context.WithCancel(context.Background())
	// The opposition's research is stopped in the middle of a read,
	// after the proposition's answer was accepted.
	hold := func(path string) {
		if path == "/a2" {
			cancel()
			<-ctx.Done()
		}
	}
	w.Hold.Store(&hold)
	if _, err := driver.Run(ctx, d, driver.Goal{Exchange: 1}, researchOptions(t, f, true)); err == nil {
		t.Fatal("the interrupted run did not fail")
	}
	if _, err := d.ReadFile(evidence.Name(w.URL + "/a")); err == nil {
		t.Fatal("a page was committed by an interrupted step")
	}
	w.Hold.Store(nil)
	searches, readsA, readsB := w.Searches(), w.Reads("/a"), w.Reads("/b")
	if readsA != 1 || readsB != 1 || searches != 2 {
		t.Fatalf("before the interruption: %d searches, %d and %d reads; want the proposition's research done and the opposition's begun", searches, readsA, readsB)
	}
	if _, err := driver.Run(context.Background(), d, driver.Goal{Exchange: 1}, researchOptions(t, f, true)); err != nil {
		t.Fatal(err)
	}
	if w.Searches() != searches+1 || w.Reads("/a") != readsA || w.Reads("/b") != readsB {
		t.Errorf("the resumed run searched %d times and read a %d, b %d times more: want only the opposition's one search",
			w.Searches()-searches, w.Reads("/a")-readsA, w.Reads("/b")-readsB)
	}
	sameSnapshot(t, runSnapshot(t, d), runSnapshot(t, whole))
}

func TestResearchNeedsTools(t *testing.T) {
	w := newWeb(t)
	f := &researcher{Web: w}
	d := newRunDebate(t)
	// Exchange 0 argued with research, then judged by a command that has
	// no research tools: the judge does not research, so that goes.
	opts := researchOptions(t, f, true)
	if _, err := driver.Run(context.Background(), d, driver.Goal{Steps: 1}, opts); err != nil {
		t.Fatal(err)
	}
	opts.Research, opts.Overrides.Research = nil, nil
	if _, err := driver.Run(context.Background(), d, driver.Goal{Steps: 1}, opts); err != nil {
		t.Fatalf("judging a researching debate without research tools: %v", err)
	}
	// The next arguments need them.
	_, err := driver.Run(context.Background(), d, driver.Goal{Steps: 1}, opts)
	if err == nil || !strings.Contains(err.Error(), "no research tools") {
		t.Fatalf("err = %v, want one saying the run has no research tools", err)
	}
}

// TestResearchKeepsEveryVersion: the page both debaters read changes
// between their reads. Each version is kept, each check names the copy
// of the version its debater read, and the check agrees with that copy.
func TestResearchKeepsEveryVersion(t *testing.T) {
	w := newWeb(t)
	w.Shared.Store(true)
	edit := func(path string, n int, text string) string {
		if path == "/a" && n > 1 {
			return strings.Replace(text, "boils at 100 degrees", "freezes at 0 degrees", 1)
		}
		return text
	}
	w.Edit.Store(&edit)
	d, _ := researchExchange(t, w)
	if w.Reads("/a") != 2 {
		t.Fatalf("page a read %d times, want 2 (once by each debater)", w.Reads("/a"))
	}
	copies := map[string]string{}
	for _, side := range []dialectic.Side{dialectic.Prop, dialectic.Opp} {
		a := argumentFile(t, d, dialectic.ArgumentIDs(0, side)[0])
		c := a.Grounds[0]
		data, err := d.ReadFile(c.Copy)
		if err != nil {
			t.Fatalf("%s: the copy its check names, %s: %v", side, c.Copy, err)
		}
		src, err := evidence.Parse(data)
		if err != nil {
			t.Fatal(err)
		}
		again := evidence.CheckGround(`The page says "`+researchfake.QuotedA+`".`, &src)
		if again.Result != c.Result || again.Score != c.Score {
			t.Errorf("%s: the check says %s (%.2f) against %s, but that copy gives %s (%.2f)", side, c.Result, c.Score, c.Copy, again.Result, again.Score)
		}
		copies[c.Result] = c.Copy
	}
	if len(copies) != 2 || copies[evidence.Verified] == copies[evidence.NotFound] {
		t.Errorf("checks %v: want one verified and one not found, against two copies", copies)
	}
}
