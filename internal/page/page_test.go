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

// TestInsertNoteHTML: the note goes right under the page's title, boxed,
// its text escaped, and a page without a title gets it at the top of its
// body.
func TestInsertNoteHTML(t *testing.T) {
	const box = `<p class="scripted" style="border:2px solid #b45309;background:#fffbeb;padding:.6em 1em;border-radius:6px"><strong>Scripted.</strong> `
	note := `moot's "built-in" model <b>wrote</b> this & that.`
	for _, tc := range []struct{ name, page, want string }{
		{"title", "<body><h1>T</h1><p>x</p></body>", "<body><h1>T</h1>\n" + box + "moot&#39;s &#34;built-in&#34; model &lt;b&gt;wrote&lt;/b&gt; this &amp; that.</p>\n<p>x</p></body>"},
		{"no title", "<body><p>x</p></body>", "<body>\n" + box + "moot&#39;s &#34;built-in&#34; model &lt;b&gt;wrote&lt;/b&gt; this &amp; that.</p>\n<p>x</p></body>"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := string(InsertNoteHTML([]byte(tc.page), note)); got != tc.want {
				t.Errorf("InsertNoteHTML =\n%s\nwant\n%s", got, tc.want)
			}
		})
	}
	if got := string(InsertNoteHTML([]byte("<body></body>"), "")); got != "<body></body>" {
		t.Errorf("an empty note changed the page: %s", got)
	}
}
