package dialectic_test

import (
	"bytes"
	"html"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/extension"

	"github.com/moot-dev/moot/internal/escape"
	"github.com/moot-dev/moot/statemachine/dialectic"
)

// hostile is text a model might write that means something to markdown,
// GitHub, HTML or mermaid.
var hostile = []string{
	"plain words",
	"a | pipe and || two",
	`"double" and 'single' quotes`,
	"brackets ] [ ]] [[x]] (paren) {brace}",
	"arrows --> and -.-> and ==> and ---",
	"backticks ` `` ``` and ```code```",
	"<script>alert(1)</script>",
	`<img src=x onerror="alert(1)">`,
	"[click](javascript:alert(1)) and ![img](x.png)",
	"line one\nline two\r\n\nline three",
	"*stars* **bold** _under_ __dunder__ ~~strike~~ snake_case_id prop_000a",
	"# heading\n- item\n1. item\n> quote",
	"entities &amp; &lt;b&gt; &#60; &#x3C; AT&T R & D",
	"math $x^2$ and $$y$$ costs $40",
	`back\slash\ and \| and \*`,
	"%%{init: {\"theme\":\"dark\"}}%% #35; #quot; ;semi;colon",
	"tab\tand\x00nul\x07bell and \u202eRTL override",
	"unicode: café — “quoted” 😀",
	"trailing backslash \\",
	"",
}

// plain is what a reader should see: the text on one line, control
// characters gone.
func plain(s string) string {
	s = strings.Map(func(r rune) rune {
		switch {
		case r == '\t' || r == '\n' || r == '\r':
			return ' '
		case r < 0x20 || r == 0x7f || r == '\u202e':
			return -1
		}
		return r
	}, s)
	return strings.Join(strings.Fields(s), " ")
}

var md = goldmark.New(goldmark.WithExtensions(extension.Table))

func render(t *testing.T, src string) string {
	t.Helper()
	var b bytes.Buffer
	if err := md.Convert([]byte(src), &b); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

var tag = regexp.MustCompile(`<[^>]*>`)

// textOf strips the tags goldmark wrote and decodes the entities, leaving
// the text a reader sees.
func textOf(h string) string { return html.UnescapeString(tag.ReplaceAllString(h, "")) }

func TestMarkdownTextParagraph(t *testing.T) {
	for i, s := range hostile {
		t.Run(strconv.Itoa(i), func(t *testing.T) {
			esc := escape.Markdown(s)
			if strings.ContainsAny(esc, "\n\r") {
				t.Fatalf("escaped text spans lines: %q", esc)
			}
			out := render(t, "Before: "+esc+"\n")
			if !strings.HasPrefix(out, "<p>") || strings.Count(out, "<p>") != 1 {
				t.Fatalf("not one paragraph: %s", out)
			}
			inner := strings.TrimSuffix(strings.TrimPrefix(strings.TrimSpace(out), "<p>"), "</p>")
			if tag.MatchString(inner) {
				t.Errorf("markup came out of %q: %s", s, out)
			}
			if got, want := strings.TrimSpace(textOf(inner)), strings.TrimSpace("Before: "+plain(s)); got != want {
				t.Errorf("reads %q, want %q", got, want)
			}
		})
	}
}

func TestMarkdownTextTableCell(t *testing.T) {
	for i, s := range hostile {
		t.Run(strconv.Itoa(i), func(t *testing.T) {
			esc := escape.Markdown(s)
			src := "| a | b | c |\n|---|---|---|\n| x | " + esc + " | y |\n"
			out := render(t, src)
			cells := regexp.MustCompile(`(?s)<td>(.*?)</td>`).FindAllStringSubmatch(out, -1)
			if len(cells) != 3 {
				t.Fatalf("the row has %d cells, want 3: %s", len(cells), out)
			}
			if cells[0][1] != "x" || cells[2][1] != "y" {
				t.Errorf("the neighbouring cells changed: %q %q", cells[0][1], cells[2][1])
			}
			if tag.MatchString(cells[1][1]) {
				t.Errorf("markup came out of %q: %s", s, cells[1][1])
			}
			if got := textOf(cells[1][1]); got != plain(s) {
				t.Errorf("the cell reads %q, want %q", got, plain(s))
			}
		})
	}
}

func TestMarkdownTextHeading(t *testing.T) {
	for i, s := range hostile {
		t.Run(strconv.Itoa(i), func(t *testing.T) {
			out := render(t, "#### prop_001: "+escape.Markdown(s)+"\n")
			m := regexp.MustCompile(`^<h4>(.*)</h4>\n$`).FindStringSubmatch(out)
			if m == nil {
				t.Fatalf("not one heading: %q", out)
			}
			if got, want := textOf(m[1]), strings.TrimSpace("prop_001: "+plain(s)); got != want {
				t.Errorf("the heading reads %q, want %q", got, want)
			}
		})
	}
}

// mermaidDecode undoes mermaid's entity codes (#quot;, #35;, ...).
func mermaidDecode(s string) string {
	return regexp.MustCompile(`#([a-z]+|[0-9]+);`).ReplaceAllStringFunc(s, func(e string) string {
		name := e[1 : len(e)-1]
		if n, err := strconv.Atoi(name); err == nil {
			return string(rune(n))
		}
		return html.UnescapeString("&" + name + ";")
	})
}

func TestMermaidText(t *testing.T) {
	for i, s := range hostile {
		t.Run(strconv.Itoa(i), func(t *testing.T) {
			esc := escape.Mermaid(s)
			// Outside entity codes, nothing mermaid reads as syntax.
			bare := regexp.MustCompile(`#([a-z]+|[0-9]+);`).ReplaceAllString(esc, "")
			if strings.ContainsAny(bare, "\"[](){}<>|`#&\n\r") {
				t.Errorf("%q escapes to %q, which still holds syntax", s, esc)
			}
			if got := mermaidDecode(esc); got != plain(s) {
				t.Errorf("%q reads back as %q, want %q", s, got, plain(s))
			}
		})
	}
}

// TestGraphLines checks that hostile titles stay inside their node: every
// line of the graph has the shape moot writes.
func TestGraphLines(t *testing.T) {
	g := dialectic.Graph(loadDir(t, hostileDir))
	shapes := []*regexp.Regexp{
		regexp.MustCompile(`^graph TD$`),
		regexp.MustCompile(`^    classDef (prop|opp) [^"]+$`),
		regexp.MustCompile(`^    (prop|opp)_[0-9a-c]+\["(prop|opp)_[0-9a-c]+<br/>[^"\[\]<>|]*<br/>[^"<>]+"\]:::(prop|opp)$`),
		regexp.MustCompile(`^    (prop|opp)_[0-9a-c]+ (-->|-\.->)\|[a-z ]+\| (prop|opp)_[0-9a-c]+$`),
		regexp.MustCompile(`^    linkStyle [0-9]+ stroke:#[0-9a-f]{6},stroke-width:2px$`),
	}
	lines := strings.Split(strings.TrimSuffix(g, "\n"), "\n")
	for _, l := range lines {
		ok := false
		for _, re := range shapes {
			ok = ok || re.MatchString(l)
		}
		if !ok {
			t.Errorf("unexpected graph line: %q", l)
		}
	}
	if n := strings.Count(g, ":::"); n != 14 {
		t.Errorf("%d nodes, want 14", n)
	}
}

// TestTrajectoryChart checks the xychart block: one x label and one value
// per judged exchange in its one line, the margin.
func TestTrajectoryChart(t *testing.T) {
	an := dialectic.Analyze(loadDir(t, hostileDir))
	c := dialectic.TrajectoryChart(an.Trajectory)
	for _, want := range []string{
		"```mermaid\n",
		"xychart-beta\n",
		`    x-axis "exchange" [0, 1, 2, 3]` + "\n",
		"    line [0.8, 1.8, 2.55, 3.35]\n",
	} {
		if !strings.Contains(c, want) {
			t.Errorf("the chart lacks %q:\n%s", want, c)
		}
	}
}
