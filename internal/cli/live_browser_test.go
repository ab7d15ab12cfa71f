package cli

import (
	"context"
	"os"
	"strings"
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
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
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
// reports how long that took; false when it was not within d.
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
// by another process against a slow model shows first as calls in flight,
// then as the new arguments, within a second of its commit and without a
// reload; the motion's <script> shows as text and never runs.
func TestServeInBrowser(t *testing.T) {
	if testing.Short() {
		t.Skip("starts Chromium")
	}
	ctx := browser(t)
	slow := modeltest.NewServer(t, sparring.Handler(sparring.Options{Delay: 400 * time.Millisecond}))
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
	if _, ok := within(t, ctx, `document.getElementById("moot-now").textContent.includes("nobody")`, 5*time.Second); !ok {
		t.Fatalf("the page never heard from the event stream: %q\n%s", eval[string](t, ctx, `document.getElementById("moot-now").textContent`), s.errs.String())
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
	if _, ok := within(t, ctx, `/asking now: .*proposition/.test(document.getElementById("moot-now").textContent)`, 2*time.Second); !ok {
		t.Errorf("the page never showed the calls in flight: %q", eval[string](t, ctx, `document.getElementById("moot-now").textContent`))
	}
	if err := step.Wait(); err != nil {
		t.Fatalf("step: %v", err)
	}
	committed := time.Now()
	took, ok := within(t, ctx, `document.body.innerText.includes(`+jsString(title)+`)`, 3*time.Second)
	t.Logf("the step showed %v after moot step exited", took)
	if !ok || time.Since(committed) > time.Second+100*time.Millisecond {
		t.Fatalf("the new step showed after %v (found: %v), want within a second:\n%s", took, ok, eval[string](t, ctx, `document.body.innerText`))
	}
	if got := eval[int](t, ctx, `window.__mootMarker || 0`); got != 7 {
		t.Errorf("the page was reloaded (its marker is %d)", got)
	}
	if _, ok := within(t, ctx, `document.getElementById("moot-now").textContent.includes("nobody")`, 2*time.Second); !ok {
		t.Errorf("the strip still shows calls after the run: %q", eval[string](t, ctx, `document.getElementById("moot-now").textContent`))
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
