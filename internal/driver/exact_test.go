package driver_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	driver "github.com/moot-dev/moot/internal/driver"
	"github.com/moot-dev/moot/internal/model"
	"github.com/moot-dev/moot/internal/testkit/modeltest"
	"github.com/moot-dev/moot/statemachine/dialectic"
	"github.com/moot-dev/moot/statemachine/dialectic/dialectictest/sparring"
	"github.com/moot-dev/moot/templates"
)

// usageLines reads the usage log of the debate at dir.
func usageLines(t *testing.T, dir string) []driver.Usage {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, ".moot", driver.UsageFile))
	if err != nil {
		t.Fatal(err)
	}
	var out []driver.Usage
	for _, line := range bytes.Split(bytes.TrimSpace(data), []byte("\n")) {
		var u driver.Usage
		if err := json.Unmarshal(line, &u); err != nil {
			t.Fatal(err)
		}
		out = append(out, u)
	}
	return out
}

func TestAnswerOverTheLimitIsRefused(t *testing.T) {
	good := sparring.Handler(sparring.Options{})
	srv := modeltest.NewServer(t, modeltest.ByRole(
		func(r modeltest.Request) modeltest.Reply {
			rep := good(r)
			rep.Content += strings.Repeat(" ", driver.MaxAnswerSize) // still a valid answer, but 1 MiB too long
			return rep
		},
		good, nil))
	d := newRunDebate(t)
	before := runSnapshot(t, d)
	_, err := driver.Run(context.Background(), d, driver.Goal{Steps: 1}, options(client(t, srv)))
	var re *driver.RoleError
	if !errors.As(err, &re) || re.Role != string(dialectic.Proposition) {
		t.Fatalf("err = %v, want the proposition's failure", err)
	}
	if !strings.Contains(err.Error(), "proposition") || !strings.Contains(err.Error(), "1 MiB") {
		t.Errorf("error %q does not name the role and the limit", err)
	}
	if !equal(before, runSnapshot(t, d)) {
		t.Error("an answer over the limit changed the debate")
	}
	if _, err := d.ReadPrivate("answers/00000-proposition.json"); err == nil {
		t.Error("an answer over the limit was kept for the next run")
	}
}

func TestKeyIsMaskedInEverythingWritten(t *testing.T) {
	const key = "sk-test-ECHOED-7731"
	good := sparring.Handler(sparring.Options{})
	withKey := func(r modeltest.Request) modeltest.Reply {
		rep := good(r)
		rep.Content = strings.Replace(rep.Content, `"title": "The `, `"title": "`+key+` The `, 1)
		rep.Model = "echo-" + key // the server reports the key as its model name
		return rep
	}
	tests := []struct {
		name    string
		handler modeltest.Handler
		goal    driver.Goal
	}{
		{"key in the model name and the accepted answers", withKey, driver.Goal{Exchange: 1}},
		{"key in a refused answer", modeltest.ByRole(withKey, func(modeltest.Request) modeltest.Reply {
			return modeltest.Reply{Content: "No JSON from me, " + key, Model: key}
		}, nil), driver.Goal{Steps: 1}},
		{"key in an error", modeltest.ByRole(withKey, func(modeltest.Request) modeltest.Reply {
			return modeltest.Reply{Status: 400, ErrorMessage: "bad model " + key}
		}, nil), driver.Goal{Steps: 1}},
		{"key in retried errors", modeltest.ByRole(withKey, func(modeltest.Request) modeltest.Reply {
			return modeltest.Reply{Status: 503, RetryAfter: "0", ErrorMessage: "overloaded for " + key}
		}, nil), driver.Goal{Steps: 1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := modeltest.NewServer(t, tt.handler)
			c, err := model.New(model.Config{BaseURL: srv.URL, APIKey: key, MaxRetries: 1})
			if err != nil {
				t.Fatal(err)
			}
			d := newRunDebate(t)
			var shown bytes.Buffer
			var mu sync.Mutex
			opts := options(c)
			opts.Emit = func(e driver.Event) {
				mu.Lock()
				defer mu.Unlock()
				json.NewEncoder(&shown).Encode(e)
			}
			opts.Warn = func(s string) {
				mu.Lock()
				defer mu.Unlock()
				shown.WriteString(s + "\n")
			}
			sum, err := driver.Run(context.Background(), d, tt.goal, opts)
			if err != nil {
				shown.WriteString(err.Error())
			}
			for _, w := range sum.Warnings {
				shown.WriteString(w)
			}
			if !strings.Contains(string(srv.Requests()[0].Header.Get("Authorization")), key) {
				t.Fatal("the test does not send the key it checks for")
			}
			if strings.Contains(shown.String(), key) {
				t.Errorf("the key was shown:\n%s", shown.String())
			}
			written := 0
			filepath.WalkDir(d.Path(), func(p string, e fs.DirEntry, err error) error {
				if err == nil && !e.IsDir() {
					written++
					b, _ := os.ReadFile(p)
					if strings.HasSuffix(p, ".gz") { // a call's transcript, read as it is shown
						zr, err := gzip.NewReader(bytes.NewReader(b))
						if err != nil {
							t.Fatalf("%s: %v", p, err)
						}
						b, _ = io.ReadAll(zr)
					}
					if bytes.Contains(b, []byte(key)) {
						t.Errorf("the key was written to %s", p)
					}
				}
				return nil
			})
			if written < 4 {
				t.Errorf("only %d files: the run wrote less than the test expects", written)
			}
		})
	}
}

// blockingClient answers the opposition at once with failure and the
// proposition only when released or cancelled, recording when its call
// ends.
type blockingClient struct {
	release chan struct{}
	// started, when not nil, is closed as the proposition's call begins.
	started   chan struct{}
	startOnce sync.Once
	cancelled atomic.Bool
	ended     atomic.Bool
	failed    atomic.Bool // the opposition's call has returned its failure
}

func (c *blockingClient) Complete(ctx context.Context, req model.Request) (model.Response, error) {
	if strings.Contains(req.Messages[0].Content, "arguing for the opposition") {
		defer c.failed.Store(true)
		return model.Response{}, errors.New("opposition model is broken")
	}
	defer c.ended.Store(true)
	if c.started != nil {
		c.startOnce.Do(func() { close(c.started) })
	}
	select {
	case <-c.release:
		time.Sleep(20 * time.Millisecond) // the call's last moments
		return model.Response{}, errors.New("proposition model is broken too")
	case <-ctx.Done():
		c.cancelled.Store(true)
		time.Sleep(20 * time.Millisecond)
		return model.Response{}, ctx.Err()
	}
}

func TestNoCallOutlivesItsStep(t *testing.T) {
	t.Run("a failing side waits for the other", func(t *testing.T) {
		c := &blockingClient{release: make(chan struct{})}
		d := newRunDebate(t)
		done := make(chan error, 1)
		go func() {
			_, err := driver.Run(context.Background(), d, driver.Goal{Steps: 1}, options(c))
			done <- err
		}()
		// The opposition's failure is in; Run must now wait for the
		// proposition's call, which returns only once released.
		for guard := time.Now().Add(time.Minute); !c.failed.Load() || !waitsInTake(); {
			select {
			case err := <-done:
				t.Fatalf("Run returned (%v) while the proposition's call was still going", err)
			default:
			}
			if time.Now().After(guard) {
				t.Fatal("timed out after a minute waiting for Run to wait for the proposition's call after the opposition failed")
			}
			time.Sleep(time.Millisecond) // polls; decides nothing
		}
		close(c.release)
		err := <-done
		if !c.ended.Load() {
			t.Error("Run returned before the proposition's call ended")
		}
		// Both failures are reported, each with its reason.
		for _, want := range []string{"proposition's model failed: proposition model is broken too", "opposition's model failed: opposition model is broken"} {
			if err == nil || !strings.Contains(err.Error(), want) {
				t.Errorf("error %v does not say %q", err, want)
			}
		}
	})
	t.Run("an interruption cancels the call and waits for it", func(t *testing.T) {
		c := &blockingClient{release: make(chan struct{}), started: make(chan struct{})}
		d := newRunDebate(t)
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		// The interruption comes once the proposition's call is under
		// way, however long the machine takes to start it.
		go func() {
			select {
			case <-c.started:
				cancel()
			case <-time.After(time.Minute):
				t.Error("timed out after a minute waiting for the proposition's call to start")
				cancel()
			}
		}()
		_, err := driver.Run(ctx, d, driver.Goal{Steps: 1}, options(c))
		if !errors.Is(err, context.Canceled) {
			t.Errorf("err = %v, want the interruption", err)
		}
		if !c.cancelled.Load() || !c.ended.Load() {
			t.Errorf("cancelled %v, ended %v: Run returned before the call saw its cancellation and ended", c.cancelled.Load(), c.ended.Load())
		}
	})
}

func TestBothDebatersFailing(t *testing.T) {
	srv := modeltest.NewServer(t, modeltest.ByRole(
		func(modeltest.Request) modeltest.Reply {
			return modeltest.Reply{Status: 404, ErrorMessage: "no model prop-x"}
		},
		func(modeltest.Request) modeltest.Reply {
			return modeltest.Reply{Status: 400, ErrorMessage: "context too long for opp-y"}
		},
		nil))
	d := newRunDebate(t)
	_, err := driver.Run(context.Background(), d, driver.Goal{Steps: 1}, options(client(t, srv)))
	for _, want := range []string{"proposition's model failed", "no model prop-x", "opposition's model failed", "context too long for opp-y"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("error %v does not say %q", err, want)
		}
	}
	// Both failures are there to be found, each with its role and the
	// server's answer, not only the first.
	joined, ok := err.(interface{ Unwrap() []error })
	if !ok {
		t.Fatalf("err = %T, want both failures joined", err)
	}
	want := map[dialectic.Role]int{dialectic.Proposition: 404, dialectic.Opposition: 400}
	for _, e := range joined.Unwrap() {
		var re *driver.RoleError
		var api *model.APIError
		if !errors.As(e, &re) || !errors.As(re, &api) {
			t.Errorf("failure %v is not a RoleError with the server's answer", e)
			continue
		}
		if api.Status != want[dialectic.Role(re.Role)] {
			t.Errorf("the %s failed with %d, want %d", re.Role, api.Status, want[dialectic.Role(re.Role)])
		}
		delete(want, dialectic.Role(re.Role))
	}
	if len(want) > 0 {
		t.Errorf("no failure of %v in %v", want, err)
	}
}

// TestBothDebatersRefused checks that when both debaters' answers are
// refused after every repair, both failures are returned, each with its
// problems and its own file of refused answers.
func TestBothDebatersRefused(t *testing.T) {
	broken := func(modeltest.Request) modeltest.Reply {
		return modeltest.Reply{Content: `{"arguments": [{"title": "No Claim Here"}]}`}
	}
	srv := modeltest.NewServer(t, modeltest.ByRole(broken, broken, nil))
	d := newRunDebate(t)
	_, err := driver.Run(context.Background(), d, driver.Goal{Steps: 1}, options(client(t, srv)))
	joined, ok := err.(interface{ Unwrap() []error })
	if !ok {
		t.Fatalf("err = %v, want both failures joined", err)
	}
	var roles []dialectic.Role
	saved := map[string]bool{}
	for _, e := range joined.Unwrap() {
		var re *driver.RoleError
		if !errors.As(e, &re) || len(re.Problems) == 0 || re.Saved == "" {
			t.Fatalf("failure %v: want a RoleError with problems and saved answers", e)
		}
		roles = append(roles, dialectic.Role(re.Role))
		saved[re.Saved] = true
		if _, err := os.Stat(filepath.Join(d.Path(), re.Saved)); err != nil {
			t.Errorf("the %s's refused answers: %v", re.Role, err)
		}
	}
	if len(roles) != 2 || roles[0] != dialectic.Proposition || roles[1] != dialectic.Opposition || len(saved) != 2 {
		t.Errorf("roles %v with %d files, want the proposition and the opposition, each with its own", roles, len(saved))
	}
}

// countingClient counts calls and answers nothing useful.
type countingClient struct{ calls atomic.Int32 }

func (c *countingClient) Complete(context.Context, model.Request) (model.Response, error) {
	c.calls.Add(1)
	return model.Response{}, errors.New("no model here")
}

func TestBadTemplateFoundBeforeAnyCall(t *testing.T) {
	tests := []struct{ file, text string }{
		{"judge.md", "{{.Bogus}}"},
		{"debater-rebuttal.md", "{{range .Others}}{{.Author}}{{end}}"},
		{"debater-system.md", `{{if eq .Side "opposition"}}{{.Nope}}{{end}}You are a debater arguing for the {{.Side}}.`},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			set := templates.Default()
			if err := set.Override(map[string][]byte{tt.file: []byte(tt.text)}, "my-templates"); err != nil {
				t.Fatal(err)
			}
			c := &countingClient{}
			opts := options(c)
			opts.Templates = set
			d := newRunDebate(t)
			before := runSnapshot(t, d)
			_, err := driver.Run(context.Background(), d, driver.Goal{Exchange: 3}, opts)
			var te *dialectic.TemplateError
			if !errors.As(err, &te) || !strings.Contains(err.Error(), "my-templates/"+tt.file) || !strings.Contains(err.Error(), ".Motion") {
				t.Fatalf("err = %v, want a template error naming the file and the fields", err)
			}
			if n := c.calls.Load(); n != 0 {
				t.Errorf("%d model calls before the bad template was found", n)
			}
			if !equal(before, runSnapshot(t, d)) {
				t.Error("the debate changed")
			}
		})
	}
}

func TestRetriesAreReported(t *testing.T) {
	good := sparring.Handler(sparring.Options{})
	var n atomic.Int32
	srv := modeltest.NewServer(t, func(r modeltest.Request) modeltest.Reply {
		if modeltest.RoleOf(r) == modeltest.Opposition && n.Add(1) <= 2 {
			return modeltest.Reply{Status: 429, RetryAfter: "0", ErrorMessage: "slow down", Delay: 20 * time.Millisecond}
		}
		return good(r)
	})
	d := newRunDebate(t)
	opts := options(client(t, srv))
	var mu sync.Mutex
	var retries []driver.Event
	opts.Emit = func(e driver.Event) {
		mu.Lock()
		defer mu.Unlock()
		if e.Kind == driver.EventRetry {
			retries = append(retries, e)
		}
	}
	if _, err := driver.Run(context.Background(), d, driver.Goal{Steps: 1}, opts); err != nil {
		t.Fatal(err)
	}
	if len(retries) != 2 || retries[0].Role != "opposition" || !strings.Contains(retries[0].Message, "429") || !strings.Contains(retries[0].Message, "attempt 1 of 3") {
		t.Errorf("retry events = %+v, want two for the opposition's 429s", retries)
	}
	for _, u := range usageLines(t, d.Path()) {
		if u.Role == "opposition" && (u.Attempts != 3 || u.Seconds < 0.04) {
			t.Errorf("usage of the opposition = %+v, want 3 attempts and the time of all of them", u)
		}
	}
}

func TestFailedCallsAreTimedAndCounted(t *testing.T) {
	good := sparring.Handler(sparring.Options{})
	var oppFails atomic.Bool
	oppFails.Store(true)
	srv := modeltest.NewServer(t, modeltest.ByRole(good, func(r modeltest.Request) modeltest.Reply {
		if oppFails.Load() {
			return modeltest.Reply{Status: 503, RetryAfter: "0", Delay: 30 * time.Millisecond}
		}
		return good(r)
	}, nil))
	d := newRunDebate(t)
	first, err := driver.Run(context.Background(), d, driver.Goal{Steps: 1}, options(client(t, srv)))
	if err == nil {
		t.Fatal("want the opposition's failure")
	}
	var failed *driver.Usage
	for _, u := range usageLines(t, d.Path()) {
		if !u.OK {
			failed = &u
		}
	}
	if failed == nil || failed.Attempts != 3 || failed.Seconds < 0.09 {
		t.Fatalf("usage of the failed call = %+v, want 3 attempts and at least 0.09 s", failed)
	}
	oppFails.Store(false)
	second, err := driver.Run(context.Background(), d, driver.Goal{Steps: 1}, options(client(t, srv)))
	if err != nil {
		t.Fatal(err)
	}
	total, err := driver.ReadUsage(d)
	if err != nil {
		t.Fatal(err)
	}
	if first.Failed != 1 || second.Failed != 0 || total.Calls != first.Calls+second.Calls || total.Failed != 1 {
		t.Errorf("runs counted %d (%d failed) and %d (%d failed) calls; the log %d (%d failed)",
			first.Calls, first.Failed, second.Calls, second.Failed, total.Calls, total.Failed)
	}
}

// TestMergeDefaults checks that a role's default (moot.yaml's models)
// fills in only a role that neither a flag nor the stored settings name,
// and that the default model fills in the rest.
func TestMergeDefaults(t *testing.T) {
	stored := driver.Settings{Models: map[string]string{"proposition": "stored"}}
	o := driver.Overrides{Models: map[string]string{"opposition": "flag"},
		Defaults: map[string]string{"proposition": "dp", "opposition": "do", "judge": "dj"}}
	got, _ := stored.Merge(o, "default", driver.RoleNames(dialectic.Protocol{}))
	want := map[string]string{"proposition": "stored", "opposition": "flag", "judge": "dj"}
	for r, m := range want {
		if got.Models[r] != m {
			t.Errorf("%s's model = %q, want %q", r, got.Models[r], m)
		}
	}
	got, _ = driver.Settings{}.Merge(driver.Overrides{Defaults: map[string]string{"judge": "dj"}}, "default", driver.RoleNames(dialectic.Protocol{}))
	if got.Models["proposition"] != "default" || got.Models["judge"] != "dj" {
		t.Errorf("models = %v, want the judge's default and the default model for the rest", got.Models)
	}
}

func TestFlagsThatSetStoredSettingsSaySo(t *testing.T) {
	stored := driver.Settings{
		Models:      map[string]string{"proposition": "a", "opposition": "a", "judge": "j"},
		Temperature: map[string]float64{"judge": 0.2},
		MaxTokens:   map[string]int{"judge": 500},
	}
	tests := []struct {
		name string
		o    driver.Overrides
		want []string
	}{
		{"nothing given", driver.Overrides{}, nil},
		{"same values", driver.Overrides{Models: map[string]string{"judge": "j"}, Temperature: map[string]float64{"judge": 0.2}}, nil},
		{"temperature for every role", driver.Overrides{Temperature: map[string]float64{"proposition": 0.3, "opposition": 0.3, "judge": 0.3}},
			[]string{"judge temperature changes from 0.2 to 0.3", "proposition and opposition temperature set to 0.3"}},
		{"max tokens", driver.Overrides{MaxTokens: map[string]int{"proposition": 800, "judge": 900}},
			[]string{"judge max tokens change from 500 to 900", "proposition max tokens set to 800"}},
		{"models", driver.Overrides{Models: map[string]string{"proposition": "b", "opposition": "b", "judge": "j"}},
			[]string{"proposition and opposition model changes from a to b"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, got := stored.Merge(tt.o, "default", driver.RoleNames(dialectic.Protocol{}))
			if strings.Join(got, "|") != strings.Join(tt.want, "|") {
				t.Errorf("notices = %q, want %q", got, tt.want)
			}
		})
	}
	t.Run("a run with --temperature on a new debate", func(t *testing.T) {
		srv := modeltest.NewServer(t, sparring.Handler(sparring.Options{}))
		d := newRunDebate(t)
		opts := options(client(t, srv))
		opts.Overrides = driver.Overrides{Temperature: map[string]float64{"proposition": 0.3, "opposition": 0.3, "judge": 0.3}}
		var warnings []string
		opts.Warn = func(s string) { warnings = append(warnings, s) }
		if _, err := driver.Run(context.Background(), d, driver.Goal{Steps: 1}, opts); err != nil {
			t.Fatal(err)
		}
		want := "proposition, opposition and judge temperature set to 0.3 (stored in debate.md)"
		if len(warnings) != 1 || warnings[0] != want {
			t.Errorf("notices = %q, want %q", warnings, want)
		}
		if st := state(t, d); st.Phase != dialectic.AwaitingJudgment {
			t.Errorf("state = %+v", st)
		}
	})
}

// TestTemplateFailingForOneSideCostsNoCall uses a template that passes
// the check before the run but fails for the opposition of exchange 1
// only: the proposition must not be asked, and nothing may be written
// once Run has returned.
func TestTemplateFailingForOneSideCostsNoCall(t *testing.T) {
	set := templates.Default()
	text, _ := set.Text("debater-rebuttal.md")
	text += `{{if and (eq .Exchange 1) (eq .Side "opposition")}}{{index .Own 5}}{{end}}`
	if err := set.Override(map[string][]byte{"debater-rebuttal.md": []byte(text)}, "my-templates"); err != nil {
		t.Fatal(err)
	}
	srv := modeltest.NewServer(t, sparring.Handler(sparring.Options{Delay: 30 * time.Millisecond}))
	d := newRunDebate(t)
	opts := options(client(t, srv))
	opts.Templates = set
	_, err := driver.Run(context.Background(), d, driver.Goal{Exchange: 3}, opts)
	if err == nil || !strings.Contains(err.Error(), "debater-rebuttal.md") {
		t.Fatalf("err = %v, want the template's failure", err)
	}
	// A request that could still arrive after Run returned would need a
	// goroutine of the driver (or a model call) that outlives Run.
	if live := outliving(); len(live) > 0 {
		t.Errorf("goroutines of the run outlive it:\n%s", strings.Join(live, "\n\n"))
	}
	for _, r := range srv.Requests() {
		if strings.Contains(r.Messages[1].Content, "This is exchange 1") {
			t.Errorf("the %s was asked for exchange 1 although the step could not go on", modeltest.RoleOf(r))
		}
	}
	if _, err := d.ReadPrivate("answers/00001-proposition.json"); err == nil {
		t.Error("an answer was written for a step that had already failed")
	}
}

// TestShortKeyIsNotMasked runs a step with the short "keys" people give
// local servers, which are no secret: an answer that contains the key's
// text is committed as the model wrote it, not mangled or refused.
func TestShortKeyIsNotMasked(t *testing.T) {
	const phrase = "health tea is good for you"
	good := sparring.Handler(sparring.Options{})
	srv := modeltest.NewServer(t, func(r modeltest.Request) modeltest.Reply {
		rep := good(r)
		rep.Content = strings.Replace(rep.Content, `"title": "The `, `"title": "`+phrase+`: the `, 1)
		return rep
	})
	for _, key := range []string{"tea", "e", "ollama", "EMPTY"} {
		t.Run(key, func(t *testing.T) {
			c, err := model.New(model.Config{BaseURL: srv.URL, APIKey: key, MaxRetries: 1})
			if err != nil {
				t.Fatal(err)
			}
			d := newRunDebate(t)
			if _, err := driver.Run(context.Background(), d, driver.Goal{Steps: 1}, options(c)); err != nil {
				t.Fatalf("run with key %q: %v", key, err)
			}
			found := 0
			filepath.WalkDir(filepath.Join(d.Path(), "arguments"), func(p string, e fs.DirEntry, err error) error {
				if err == nil && !e.IsDir() {
					b, _ := os.ReadFile(p)
					if bytes.Contains(b, []byte("[redacted]")) {
						t.Errorf("%s was masked:\n%s", p, b)
					}
					if bytes.Contains(b, []byte(phrase)) {
						found++
					}
				}
				return nil
			})
			if found != 2 {
				t.Errorf("%d argument files keep %q, want 2", found, phrase)
			}
		})
	}
}

// outliving returns the stacks of the goroutines, other than the caller's,
// that run code of the driver or the model client or were started by it:
// once Run has returned, any such goroutine is work outliving the run. The
// test package runs no test in parallel with the callers of outliving.
func outliving() []string {
	buf := make([]byte, 1<<20)
	for {
		n := runtime.Stack(buf, true)
		if n < len(buf) {
			buf = buf[:n]
			break
		}
		buf = make([]byte, 2*len(buf))
	}
	var live []string
	for i, g := range strings.Split(string(buf), "\n\n") {
		if i == 0 {
			continue // the caller's own goroutine comes first
		}
		if strings.Contains(g, "moot/internal/driver.") || strings.Contains(g, "moot/internal/model.") {
			live = append(live, g)
		}
	}
	return live
}

// waitsInTake reports whether some goroutine waits on a WaitGroup called
// from the driver's take, which waits there for the calls of its step.
func waitsInTake() bool {
	buf := make([]byte, 1<<20)
	n := runtime.Stack(buf, true)
	for _, g := range strings.Split(string(buf[:n]), "\n\n") {
		lines := strings.Split(g, "\n")
		for i, l := range lines {
			if strings.HasPrefix(l, "sync.(*WaitGroup).Wait(") && i+2 < len(lines) &&
				strings.Contains(lines[i+2], "moot/internal/driver.(*runner).take(") {
				return true
			}
		}
	}
	return false
}
