package evidence

import (
	"strings"
	"unicode"
)

// Check results, as the argument file records them.
const (
	Verified    = "verified"
	NotFound    = "not found"
	Unreachable = "unreachable"
)

// Threshold is the lowest fuzzy score that verifies a quote.
const Threshold = 0.85

// Match says how a quote was found in a text.
type Match struct {
	// How is "exact", "normalised", "fuzzy" or "" when nothing came close.
	How string
	// Score is 1 for an exact or normalised match, else the share of the
	// quote's words found together in the text, from 0 to 1.
	Score float64
}

// Found reports whether the match verifies the quote.
func (m Match) Found() bool { return m.Score >= Threshold }

// Find looks for quote in text: as it is, then with case, white space,
// punctuation and the kinds of quotation marks and dashes ignored, then
// word by word, scoring the window of the text's words that holds the
// most of the quote's. An empty quote is never found.
func Find(quote, text string) Match {
	quote = strings.TrimSpace(quote)
	if quote == "" {
		return Match{}
	}
	if strings.Contains(text, quote) {
		return Match{How: "exact", Score: 1}
	}
	qw, tw := words(quote), words(text)
	if len(qw) == 0 {
		return Match{}
	}
	if strings.Contains(" "+strings.Join(tw, " ")+" ", " "+strings.Join(qw, " ")+" ") {
		return Match{How: "normalised", Score: 1}
	}
	best := bestWindow(qw, tw)
	if best == 0 {
		return Match{}
	}
	return Match{How: "fuzzy", Score: best}
}

// words splits s into its words, lower case, with quotation marks, dashes
// and other punctuation taken for space.
func words(s string) []string {
	return strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	})
}

// bestWindow returns the largest share of the quote's words (counted with
// their repeats) that one run of as many of the text's words holds.
func bestWindow(qw, tw []string) float64 {
	m := len(qw)
	need := map[string]int{}
	for _, w := range qw {
		need[w]++
	}
	have := map[string]int{}
	hits, best := 0, 0
	for i, w := range tw {
		if n, ok := need[w]; ok {
			have[w]++
			if have[w] <= n {
				hits++
			}
		}
		if i >= m {
			old := tw[i-m]
			if n, ok := need[old]; ok {
				if have[old] <= n {
					hits--
				}
				have[old]--
			}
		}
		best = max(best, hits)
	}
	return float64(best) / float64(m)
}

// Quotes returns what of a ground's content is to be looked for: the
// passages in quotation marks of at least four words, when it has any,
// else the whole content with any surrounding quotation marks removed.
func Quotes(content string) []string {
	var out []string
	for _, pair := range [][2]string{{"\"", "\""}, {"“", "”"}} {
		rest := content
		for {
			i := strings.Index(rest, pair[0])
			if i < 0 {
				break
			}
			rest = rest[i+len(pair[0]):]
			j := strings.Index(rest, pair[1])
			if j < 0 {
				break
			}
			if q := strings.TrimSpace(rest[:j]); len(words(q)) >= 4 {
				out = append(out, q)
			}
			rest = rest[j+len(pair[1]):]
		}
	}
	if len(out) > 0 {
		return out
	}
	return []string{strings.Trim(strings.TrimSpace(content), "\"“”'")}
}

// Check is the check of one ground against its source.
type Check struct {
	Result string  `json:"check"`
	Score  float64 `json:"score"`
	// Copy is the stored copy's path inside the debate; "" when none.
	Copy string `json:"copy,omitempty"`
	URL  string `json:"url,omitempty"`
	// Quote is the passage looked for, in the check of a free text's
	// quotation (CheckText); "" for a ground's.
	Quote string `json:"quote,omitempty"`
}

// CheckGround checks a ground's content against the page it cites (nil
// when the page was never read): unreachable when it could not be read,
// else verified when every quoted passage is found, with the lowest score
// of them.
func CheckGround(content string, src *Source) Check {
	if src == nil || !src.OK() {
		c := Check{Result: Unreachable}
		if src != nil {
			c.URL, c.Copy = src.URL, Name(src.URL)
		}
		return c
	}
	c := Check{URL: src.URL, Copy: Name(src.URL), Score: 1}
	for _, q := range Quotes(content) {
		c.Score = min(c.Score, Find(q, src.Text).Score)
	}
	c.Score = float64(int(c.Score*100+0.5)) / 100
	c.Result = NotFound
	if c.Score >= Threshold {
		c.Result = Verified
	}
	return c
}
