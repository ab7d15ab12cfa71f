package page

import (
	"strings"
	"testing"
)

// TestMarkdownPage: a protocol's markdown report becomes one page with
// report.html's shell, its tables rendered, and nothing a debate wrote
// able to become markup.
func TestMarkdownPage(t *testing.T) {
	page, err := MarkdownPage("Is <b>x</b> y?", []byte("# Q\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n<script>alert(1)</script>\n\n[link](javascript:alert(1))\n"))
	if err != nil {
		t.Fatal(err)
	}
	s := string(page)
	for _, want := range []string{"<title>Is &lt;b&gt;x&lt;/b&gt; y?</title>", "Content-Security-Policy", "<h1 id=\"q\">Q</h1>", "<td>1</td>", "</main>\n</body>\n</html>\n"} {
		if !strings.Contains(s, want) {
			t.Errorf("the page lacks %q:\n%s", want, s)
		}
	}
	for _, bad := range []string{"<script", "javascript:"} {
		if strings.Contains(s, bad) {
			t.Errorf("the page holds %q:\n%s", bad, s)
		}
	}
}
