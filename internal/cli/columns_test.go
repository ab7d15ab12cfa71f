package cli

import (
	"bytes"
	"strings"
	"testing"

	"github.com/moot-dev/moot/internal/termwidth"
)

// TestWriteColumnsWideCharacters lists debates whose names and motions
// hold CJK and emoji, which take two columns each: the second column must
// start in the same column of the terminal on every row, and a cut motion
// must fit its columns.
func TestWriteColumnsWideCharacters(t *testing.T) {
	rows := [][]string{
		{"tea", "panel", oneLine(strings.Repeat("茶は珈琲より良い。", 10), 30)},
		{"討論-会", "forum", "🙂 short"},
		{"a-very-long-name", "refine", "plain"},
	}
	var b bytes.Buffer
	writeColumns(&b, rows)
	col := -1
	for _, line := range strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n") {
		i := strings.Index(line, "  ")
		rest := strings.TrimLeft(line[i:], " ")
		at := termwidth.Width(line[:len(line)-len(rest)])
		if col < 0 {
			col = at
		} else if at != col {
			t.Errorf("the second column starts at %d here, %d above:\n%s", at, col, b.String())
		}
	}
	if got := termwidth.Width(rows[0][2]); got > 30 {
		t.Errorf("the cut motion takes %d columns, more than 30: %q", got, rows[0][2])
	}
}
