package judgectx

import (
	"context"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/moot-dev/moot/internal/driver"
	"github.com/moot-dev/moot/internal/model"
	"github.com/moot-dev/moot/internal/testkit/modeltest"
	"github.com/moot-dev/moot/internal/testkit/protocoltest"
	"github.com/moot-dev/moot/statemachine/dialectic"
	"github.com/moot-dev/moot/templates"
)

// Issue 30's targets for 40 exchanges: total prompt bytes at most the
// original dialectic's floor (see floor), and the judge's prompt at
// exchange 39 at most 60 KB.
const (
	exchanges   = 40
	judgeTarget = 60_000
)

type result struct {
	// debaters and judge hold the prompt bytes each exchange's requests
	// sent, by role.
	debaters, judge [exchanges]int
	judge39         int
	prompt39        string
	deb             *dialectic.Debate
	// files holds the size of each argument's file, by id, as the run
	// wrote it (the original's format: its JSON frontmatter, then the
	// body).
	files map[string]int
}

// upTo returns the prompt bytes the debaters' and the judge's requests
// of the first n exchanges sent: those an n-exchange debate sends, as a
// prompt is a function of the files before it.
func (r result) upTo(n int) (debaters, judge int) {
	for x := range n {
		debaters += r.debaters[x]
		judge += r.judge[x]
	}
	return debaters, judge
}

// sent is what the original dialectic's debaters and judge read, at
// least, of a debate: its argument files whole, and their text alone.
type sent struct{ debaters, judge, debatersText, judgeText int }

func (s sent) total() int     { return s.debaters + s.judge }
func (s sent) totalText() int { return s.debatersText + s.judgeText }

// floor is the least the original dialectic sends in prompts for the
// first n exchanges of the debate r ran: its rebuttal template names, for
// each debater at exchange x of 1 and more, the file of every argument of
// the exchanges before x, and its judge's template the files of exchange
// x's new arguments only; each file is read whole, frontmatter and body.
// The original's own instructions (its agents' prompts and templates,
// which ../shared does not hold) are not counted, so what it really sends
// is more. The text counts are the same with the arguments' bodies alone,
// without their frontmatter: what prompts holding nothing but the
// arguments' text, without title or id, would send.
func floor(r result, n int) sent {
	var f sent
	for x := range n {
		for _, a := range r.deb.Arguments {
			switch {
			case a.Exchange < x:
				f.debaters += 2 * r.files[a.ID]
				f.debatersText += 2 * len(a.Body)
			case a.Exchange == x:
				f.judge += r.files[a.ID]
				f.judgeText += len(a.Body)
			}
		}
	}
	return f
}

var judgeExchangeRe = regexp.MustCompile(`(?m)^Exchange (\d+)\. Score every new argument`)

func run(t *testing.T, c dialectic.JudgeContext) result {
	t.Helper()
	srv := modeltest.NewServer(t, Handler)
	dir := filepath.Join(t.TempDir(), "d")
	d, err := driver.CreateDebate(dir, dialectic.Protocol{}, dialectic.NewInput("d", dialectic.Motion{Text: "This house would pause frontier AI development."}))
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	cl, err := model.New(model.Config{BaseURL: srv.URL, APIKey: "k"})
	if err != nil {
		t.Fatal(err)
	}
	opts := driver.Options{
		Client: cl, Templates: templates.Default(), DefaultModel: "fake", Repairs: 2,
		Now:       func() time.Time { return protocoltest.When },
		Overrides: driver.Overrides{JudgeContext: string(c)},
	}
	if _, err := driver.Advance(context.Background(), d, dialectic.Protocol{}, driver.UnitGoal{Done: exchanges}, opts); err != nil {
		t.Fatal(err)
	}
	var r result
	for _, req := range srv.Requests() {
		n := 0
		for _, m := range req.Messages {
			n += len(m.Content)
		}
		user := req.Messages[len(req.Messages)-1].Content
		role := modeltest.RoleOf(req)
		re, sent := exchangeRe, &r.debaters
		if role == modeltest.Judge {
			re, sent = judgeExchangeRe, &r.judge
		}
		m := re.FindStringSubmatch(user)
		x, err := 0, error(nil)
		if m != nil {
			x, err = strconv.Atoi(m[1])
		}
		if m == nil || err != nil || x < 0 || x >= exchanges {
			t.Fatalf("a %s's request names no exchange from 0 to %d", role, exchanges-1)
		}
		sent[x] += n
		if role == modeltest.Judge && x == exchanges-1 {
			r.judge39 = n
			r.prompt39 = user
		}
	}
	if r.judge39 == 0 {
		t.Fatal("no judge's prompt for exchange 39")
	}
	if r.deb, err = dialectic.Loaded(driver.LoadDebate(d, dialectic.Protocol{})); err != nil {
		t.Fatal(err)
	}
	r.files = map[string]int{}
	for _, a := range r.deb.Arguments {
		b, err := os.ReadFile(filepath.Join(dir, "arguments", a.ID+".md"))
		if err != nil {
			t.Fatal(err)
		}
		r.files[a.ID] = len(b)
	}
	return r
}

// TestJudgeContext runs the debate under both contexts and prints the
// figures of its first 10, 20 and 40 exchanges side by side with the
// original's floor; the focused default must meet issue 30's targets for
// 40 exchanges and show in full every argument the new ones attack or
// defend. Below 31 exchanges of these arguments the focused default sends
// more than the floor: its judge shows in full, besides the new
// arguments, those they attack or defend, which grows with the exchanges,
// where the debaters' saving on the original's frontmatter grows with
// their square.
func TestJudgeContext(t *testing.T) {
	if testing.Short() {
		t.Skip("a 40-exchange debate twice with real-size arguments; run without -short")
	}
	// A measurement, in one process: under the race detector it takes
	// several times as long and measures nothing more, so test.sh runs it
	// in its pass without -race (MOOT_BENCH_APART set in the first).
	if raceEnabled && os.Getenv("MOOT_BENCH_APART") != "" {
		t.Skip("a measurement: run without -race by test.sh's second pass, as MOOT_BENCH_APART is set")
	}
	focused, full := run(t, dialectic.ContextFocused), run(t, dialectic.ContextFull)
	sizes := map[int]int{}
	for _, a := range focused.deb.Arguments {
		sizes[len(a.Body)/1000]++
	}
	t.Logf("argument bodies by KB: %v", sizes)
	// The fake's debaters answer alike under both contexts, so both
	// runs wrote the same argument files and have one floor.
	if !maps.Equal(focused.files, full.files) {
		t.Fatal("the two runs wrote argument files of different sizes: the fake's debaters must answer alike under both contexts")
	}
	// The table: the first 10, 20 and 40 exchanges of the runs
	// (what debates of that many exchanges send), side by side with the
	// original's floor for the same arguments.
	var b strings.Builder
	fmt.Fprintf(&b, "\n%-10s %12s %12s %12s %9s %9s %12s", "exchanges", "focused", "full", "original", "focused/", "full/", "text only")
	fmt.Fprintf(&b, "\n%-10s %12s %12s %12s %9s %9s", "", "", "", "(floor)", "floor", "floor")
	for _, n := range []int{10, 20, exchanges} {
		fd, fj := focused.upTo(n)
		ud, uj := full.upTo(n)
		f := floor(focused, n)
		fmt.Fprintf(&b, "\n%-10d %12d %12d %12d %9.3f %9.3f %12d", n, fd+fj, ud+uj, f.total(),
			float64(fd+fj)/float64(f.total()), float64(ud+uj)/float64(f.total()), f.totalText())
	}
	fd, fj := focused.upTo(exchanges)
	ud, uj := full.upTo(exchanges)
	f := floor(focused, exchanges)
	fmt.Fprintf(&b, "\n%-10s %12d %12d %12d %19s %12d\n%-10s %12d %12d %12d %19s %12d\n%-10s %12d %12d %12s",
		"debaters'", fd, ud, f.debaters, "", f.debatersText,
		"judge's", fj, uj, f.judge, "", f.judgeText,
		"judge, 39", focused.judge39, full.judge39, "target 60000")
	t.Log(b.String())
	for n := 1; n <= exchanges; n++ {
		d, j := focused.upTo(n)
		if d+j <= floor(focused, n).total() {
			t.Logf("focused: at most the original's floor for debates of %d exchanges and more (of the first %d)", n, exchanges)
			break
		}
	}
	if fd+fj > f.total() {
		t.Errorf("focused: %d prompt bytes in all (%d of them the debaters'), want at most %d, the original's floor", fd+fj, fd, f.total())
	}
	if focused.judge39 > judgeTarget {
		t.Errorf("focused: the judge's prompt at exchange 39 is %d bytes, want at most %d", focused.judge39, judgeTarget)
	}
	if focused.judge39 >= full.judge39 || fj >= uj {
		t.Errorf("the focused context sends no less than the full one: %d/%d bytes of the judge's in all, %d/%d at exchange 39", fj, uj, focused.judge39, full.judge39)
	}
	byID := map[string]*dialectic.Argument{}
	for _, a := range focused.deb.Arguments {
		byID[a.ID] = a
	}
	for _, id := range append(dialectic.Context(focused.deb, 39), dialectic.ExchangeIDs(39)...) {
		if !strings.Contains(focused.prompt39, byID[id].Body) {
			t.Errorf("the judge's prompt at exchange 39 lacks %s in full", id)
		}
	}
	if len(dialectic.Context(focused.deb, 39)) == 0 {
		t.Error("the arguments of exchange 39 attack or defend nothing: the check above checked nothing")
	}
}
