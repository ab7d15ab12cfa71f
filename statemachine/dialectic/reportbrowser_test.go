package dialectic_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/moot-dev/moot/statemachine/dialectic"
)

const chromium = "/usr/bin/chromium"

// dumpDOM opens page in headless Chromium and returns the DOM after the
// page has loaded and any script on it has run.
func dumpDOM(t *testing.T, page string) string {
	t.Helper()
	if _, err := os.Stat(chromium); err != nil {
		t.Skipf("%s is absent (%v): install Debian's chromium package (apt-get install -y chromium) to run the browser test", chromium, err)
	}
	// A guard only, for a browser that hangs: Chromium can take long to
	// start on a loaded machine.
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, chromium,
		"--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
		"--disable-component-update", "--disable-sync", "--no-first-run", "--disable-dev-shm-usage",
		"--user-data-dir="+t.TempDir(), "--virtual-time-budget=2000",
		"--dump-dom", "file://"+page)
	cmd.Env = append(os.Environ(), "HOME="+t.TempDir())
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if ctx.Err() != nil {
		t.Fatalf("chromium still ran after 3 minutes, the guard: %v\n%s", err, stderr.String())
	}
	if err != nil {
		t.Fatalf("chromium: %v\n%s", err, stderr.String())
	}
	return string(out)
}

var (
	scriptTag   = regexp.MustCompile(`(?i)<script`)
	onAttribute = regexp.MustCompile(`(?i)<[^>]*\son[a-z]+\s*=`)
	jsURL       = regexp.MustCompile(`(?i)<[^>]*javascript:`)
	titleTag    = regexp.MustCompile(`(?s)<title>(.*?)</title>`)
)

// TestBrowserControl shows that the checks below can fail: a page that
// does run a script has its effects in the dumped DOM.
func TestBrowserControl(t *testing.T) {
	page := filepath.Join(t.TempDir(), "control.html")
	src := `<!DOCTYPE html><html><head><title>before</title></head><body><p>x</p>` +
		`<script>document.title='PWNED';document.body.setAttribute('data-pwned','1')</script></body></html>`
	if err := os.WriteFile(page, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	dom := dumpDOM(t, page)
	if !strings.Contains(dom, "<title>PWNED</title>") || !strings.Contains(dom, `data-pwned="1"`) {
		t.Fatalf("the control script did not run, so the browser test could not see an attack:\n%s", dom)
	}
}

// TestBrowserReport opens report.html of the hostile debate, whose text is
// seeded with <script>, onerror= and javascript:, and checks that it
// renders, that both drawings are there, and that none of it ran.
func TestBrowserReport(t *testing.T) {
	r := dialectic.Build(loadDir(t, hostileDir), hostileNarrative)
	html, err := r.HTML()
	if err != nil {
		t.Fatal(err)
	}
	// Nothing on the page may be fetched: no src at all, links only within
	// the page or to the graph file beside it.
	for _, m := range regexp.MustCompile(`(?i)\s(src|href|xlink:href|action)\s*=\s*"([^"]*)"`).FindAllStringSubmatch(string(html), -1) {
		if strings.ToLower(m[1]) != "href" || !(strings.HasPrefix(m[2], "#") || m[2] == "argument-graph.mmd") {
			t.Errorf("the page refers to %s=%q", m[1], m[2])
		}
	}
	page := filepath.Join(t.TempDir(), dialectic.HTMLFile)
	if err := os.WriteFile(page, html, 0o644); err != nil {
		t.Fatal(err)
	}
	dom := dumpDOM(t, page)

	want := "The proposition leads by 3.35 points: +1.30 to -2.05 after 4 judged exchanges."
	if !strings.Contains(dom, want) {
		t.Errorf("the page did not render the verdict %q", want)
	}
	if n := strings.Count(dom, "<svg"); n != 2 {
		t.Errorf("%d <svg> elements in the DOM, want 2 (trajectory and graph)", n)
	}
	if !strings.Contains(dom, `class="chart graph"`) || strings.Count(dom, `<g class="node">`) != 14 {
		t.Error("the argument graph's 14 nodes are not in the DOM")
	}
	if !strings.Contains(dom, "<table>") {
		t.Error("no table rendered")
	}
	// The seeded text is on the page, as text.
	if !strings.Contains(dom, "&lt;script&gt;document.title='PWNED'&lt;/script&gt;") {
		t.Error("the seeded <script> text is not shown as text")
	}
	if m := titleTag.FindStringSubmatch(dom); m == nil || !strings.HasPrefix(m[1], "This house would ban cars") {
		t.Errorf("the page title changed: %v", m)
	}
	if strings.Contains(dom, `data-pwned="`) {
		t.Error("a seeded onerror handler ran")
	}
	if loc := scriptTag.FindStringIndex(dom); loc != nil {
		t.Errorf("a <script> element is in the DOM: %q", dom[loc[0]:min(len(dom), loc[0]+80)])
	}
	if loc := onAttribute.FindStringIndex(dom); loc != nil {
		t.Errorf("an on* attribute is in the DOM: %q", dom[loc[0]:min(len(dom), loc[1]+40)])
	}
	if loc := jsURL.FindStringIndex(dom); loc != nil {
		t.Errorf("a javascript: URL is in the DOM: %q", dom[loc[0]:min(len(dom), loc[1]+40)])
	}
}
