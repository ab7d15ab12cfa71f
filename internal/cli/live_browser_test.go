package cli

import (
	"context"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/moot-dev/moot/internal/testkit/modeltest"
	"github.com/moot-dev/moot/statemachine/dialectic/dialectictest/sparring"
)

// chromium is Debian's Chromium, which .ci/run installs.
const chromium = "/usr/bin/chromium"

// browser starts headless Chromium, with the flags of the report's
// browser test, and returns a context that drives it.
func browser(t *testing.T) context.Context {
	t.Helper()
	if _, err := os.Stat(chromium); err != nil {
		t.Skipf("%s is absent (%v): install Debian's chromium package (apt-get install -y chromium) to run the browser test of moot serve", chromium, err)
	}
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(chromium),
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.UserDataDir(t.TempDir()),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.Env("HOME="+t.TempDir()),
	)
	// A guard only, for a browser that hangs: Chromium and the moot
	// processes of the test take long to start on a loaded machine.
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	t.Cleanup(cancel)
	actx, acancel := chromedp.NewExecAllocator(ctx, opts...)
	t.Cleanup(acancel)
	bctx, bcancel := chromedp.NewContext(actx)
	t.Cleanup(bcancel)
	if err := chromedp.Do(bctx); err != nil {
		t.Fatalf("start chromium: %v", err)
	}
	return bctx
}

// eval runs the expression js in the page and returns its value.
func eval[T any](t *testing.T, ctx context.Context, js string) T {
	t.Helper()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[T](js))
	if err != nil {
		t.Fatalf("evaluate %s: %v", js, err)
	}
	return v
}

// within polls the expression js in the page until it is true, and
// reports how long that took; false when it was not within d, a guard
// that the caller names in its failure.
func within(t *testing.T, ctx context.Context, js string, d time.Duration) (time.Duration, bool) {
	t.Helper()
	start := time.Now()
	for time.Since(start) < d {
		if eval[bool](t, ctx, js) {
			return time.Since(start), true
		}
		time.Sleep(20 * time.Millisecond)
	}
	return time.Since(start), false
}

// TestServeInBrowser opens a debate's page from moot serve (with a token,
// which the page's script must pass on) in headless Chromium. A step run
// by another process shows first as calls in flight (the fake holds them
// until the page has shown them), then as the new arguments, without a
// reload; the motion's <script> shows as text and never runs. How soon
// after the commit the arguments showed is logged: a loaded machine may
// take longer than the second it takes when quiet, and a speed target is
// not a unit test's to time.
func TestServeInBrowser(t *testing.T) {
	if testing.Short() {
		t.Skip("starts Chromium")
	}
	ctx := browser(t)
	// The model answers once the page has shown its calls in flight, or
	// after a minute's guard (the test has failed by then).
	good := sparring.Handler(sparring.Options{})
	shown := make(chan struct{})
	var once sync.Once
	show := func() { once.Do(func() { close(shown) }) }
	t.Cleanup(show)
	slow := modeltest.NewServer(t, func(r modeltest.Request) modeltest.Reply {
		select {
		case <-shown:
		case <-time.After(time.Minute):
		}
		return good(r)
	})
	e := newLiveEnv(t, slow.URL)
	const motion = `This house would run <script>window.__pwned = 1</script> scripts.`
	e.must("new", "browsed", "--motion", motion)
	s := e.startServe("--token", "tok-123")
	url := "http://" + s.addr + "/debates/browsed/?token=tok-123"
	if err := chromedp.Do(ctx, chromedp.Navigate(url), chromedp.WaitVisible(chromedp.CSS("#moot-now"))); err != nil {
		t.Fatalf("open %s: %v\n%s", url, err, s.errs.String())
	}
	if !eval[bool](t, ctx, `document.body.innerText.includes(`+jsString(`<script>window.__pwned = 1</script>`)+`)`) {
		t.Errorf("the motion's <script> does not show as text:\n%s", eval[string](t, ctx, `document.body.innerText`))
	}
	if got := eval[string](t, ctx, `typeof window.__pwned`); got != "undefined" {
		t.Errorf("the motion's script ran: window.__pwned is %s", got)
	}
	// The stream is open once the strip has heard from it.
	if _, ok := within(t, ctx, `document.getElementById("moot-now").textContent.includes("nobody")`, time.Minute); !ok {
		t.Fatalf("the page did not hear from the event stream within a minute: %q\n%s", eval[string](t, ctx, `document.getElementById("moot-now").textContent`), s.errs.String())
	}
	eval[int](t, ctx, `window.__mootMarker = 7`)
	const title = "The proposition point 1 of exchange 0"
	if eval[bool](t, ctx, `document.body.innerText.includes(`+jsString(title)+`)`) {
		t.Fatal("the step shows before it is run")
	}
	step := e.cmd("step", "browsed")
	if err := step.Start(); err != nil {
		t.Fatal(err)
	}
	if _, ok := within(t, ctx, `/asking now: .*proposition/.test(document.getElementById("moot-now").textContent)`, time.Minute); !ok {
		t.Errorf("the page did not show the calls in flight within a minute: %q", eval[string](t, ctx, `document.getElementById("moot-now").textContent`))
	}
	show()
	if err := step.Wait(); err != nil {
		t.Fatalf("step: %v", err)
	}
	committed := time.Now()
	took, ok := within(t, ctx, `document.body.innerText.includes(`+jsString(title)+`)`, time.Minute)
	if !ok {
		t.Fatalf("the new step did not show within a minute of its commit:\n%s", eval[string](t, ctx, `document.body.innerText`))
	}
	t.Logf("the step showed %v after moot step exited (%v after its commit)", took, time.Since(committed))
	if got := eval[int](t, ctx, `window.__mootMarker || 0`); got != 7 {
		t.Errorf("the page was reloaded (its marker is %d)", got)
	}
	if _, ok := within(t, ctx, `document.getElementById("moot-now").textContent.includes("nobody")`, time.Minute); !ok {
		t.Errorf("the strip still shows calls a minute after the run: %q", eval[string](t, ctx, `document.getElementById("moot-now").textContent`))
	}
	if got := eval[string](t, ctx, `typeof window.__pwned`); got != "undefined" {
		t.Errorf("the motion's script ran after the update: window.__pwned is %s", got)
	}
}

// jsString quotes s as a JavaScript string literal.
func jsString(s string) string {
	r := strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`, "<", `\x3c`)
	return `"` + r.Replace(s) + `"`
}
