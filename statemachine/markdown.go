package statemachine

import (
	"strings"

	"github.com/moot-dev/moot/internal/escape"
)

// Blockquote makes text from a model safe as markdown paragraphs inside a
// blockquote: each paragraph (split at blank lines, trimmed) escaped and
// quoted, the paragraphs apart by a quoted blank line; "> (empty)" when
// text has none.
func Blockquote(text string) string {
	var paras []string
	for _, p := range strings.Split(strings.ReplaceAll(text, "\r\n", "\n"), "\n\n") {
		if p = strings.TrimSpace(p); p != "" {
			paras = append(paras, "> "+escape.Markdown(p))
		}
	}
	if len(paras) == 0 {
		return "> (empty)"
	}
	return strings.Join(paras, "\n>\n")
}
