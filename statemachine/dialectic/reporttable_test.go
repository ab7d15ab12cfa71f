package dialectic_test

import (
	"bytes"
	"strconv"
	"testing"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/parser"

	"github.com/moot-dev/moot/internal/escape"
	"github.com/moot-dev/moot/internal/testkit/fixture"
	"github.com/moot-dev/moot/statemachine/dialectic"
)

// gfm is how report.html was rendered before moot drew its tables itself:
// goldmark with its GFM table extension and heading ids. It is the oracle
// the tests below hold the page to, and is linked into the tests only.
var gfm = goldmark.New(
	goldmark.WithExtensions(extension.Table),
	goldmark.WithParserOptions(parser.WithAutoHeadingID()),
)

// sameAsGFM checks that dialectic.RenderMarkdown renders src byte for byte as
// gfm does.
func sameAsGFM(t *testing.T, src []byte) {
	t.Helper()
	var want, got bytes.Buffer
	if err := gfm.Convert(src, &want); err != nil {
		t.Fatal(err)
	}
	if err := dialectic.RenderMarkdown(src, &got); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got.Bytes(), want.Bytes()) {
		t.Errorf("rendered differently from GFM:\n%s\nmarkdown:\n%s", firstDiff(want.Bytes(), got.Bytes()), src)
	}
}

// TestReportTablesRenderAsGFM renders every stretch of markdown of real
// and generated reports and checks that report.html comes out as it did
// with goldmark's table extension: tables, headings and their ids, all.
func TestReportTablesRenderAsGFM(t *testing.T) {
	reports := map[string]*dialectic.Report{
		"hostile":           dialectic.Build(loadDir(t, hostileDir), nil),
		"hostile-narrative": dialectic.Build(loadDir(t, hostileDir), hostileNarrative),
	}
	if !testing.Short() {
		reports["halt-ai-development"] = dialectic.Build(loadDir(t, fixture.Shared(t, "compat", "halt-ai-development")), nil)
	}
	for _, n := range []int{1, 2, 5, 30} {
		deb, err := dialectic.Load(genDebate(t, n))
		if err != nil {
			t.Fatal(err)
		}
		reports["generated-"+strconv.Itoa(n)] = dialectic.Build(deb, nil)
	}
	for name, r := range reports {
		t.Run(name, func(t *testing.T) {
			runs := r.MarkdownRuns()
			tables := 0
			for _, run := range runs {
				tables += bytes.Count(run, []byte("\n|---"))
				sameAsGFM(t, run)
			}
			if tables == 0 {
				t.Fatal("the report has no table to compare")
			}
		})
	}
}

// TestTableCellsRenderAsGFM checks tables of every shape moot could write
// against GFM: each hostile text escaped in a cell, alignments, a head with
// no rows, rows short of cells or with too many, and cells that would
// start a block if they were not in a table.
func TestTableCellsRenderAsGFM(t *testing.T) {
	cells := []string{"", "x", "# not a heading", "- not a list", "1. not a list", "> not a quote",
		"---", "***", "    indented", "<div>raw</div>", "```", "**bold** and *em*", "a \\| b", `a \\`,
		"[x]: /url", "&amp; &copy;", "n/a", "+0.05", "-0.20"}
	for _, s := range hostile {
		cells = append(cells, escape.Markdown(s))
	}
	for i, c := range cells {
		t.Run(strconv.Itoa(i), func(t *testing.T) {
			sameAsGFM(t, []byte("| a | b | c |\n|---|:---:|---:|\n| x | "+c+" | y |\n\n"))
			sameAsGFM(t, []byte("Before.\n\n| "+c+" | h |\n|:---|---|\n| "+c+" | "+c+" |\n"))
		})
	}
	for name, src := range map[string]string{
		"head only":        "## T\n\n| A | B |\n|---|---:|\n\nAfter.\n",
		"short row":        "| A | B | C |\n|---|---|---|\n| x |\n| x | y | z | w |\n\n",
		"empty first head": "| | Proposition | Opposition |\n|---|---:|---:|\n| Total | **+1** | -1 |\n",
		"two tables":       "### S\n\n| A |\n|---|\n| 1 |\n\n### S\n\n| A |\n|---|\n| 2 |\n\n### S\n",
		"not a table":      "| A | B |\n|---|\n| 1 | 2 |\n\n| A |\n| B |\n",
		"no outer pipes":   "| A | B\n|---|---\n| 1 | 2\n\n",
		"no table":         "# Title\n\nA paragraph.\n",
	} {
		t.Run(name, func(t *testing.T) { sameAsGFM(t, []byte(src)) })
	}
}
