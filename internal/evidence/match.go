package evidence

import (
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"
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
// most of the quote's in the quote's order. An empty quote is never found.
func Find(quote, text string) Match {
	quote = strings.TrimSpace(quote)
	if quote == "" {
		return Match{}
	}
	if containsWhole(text, quote) {
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

// containsWhole reports whether text holds quote without cutting a word
// at either end: "ox jumps ove" is not a quote of "fox jumps over".
func containsWhole(text, quote string) bool {
	for from := 0; ; {
		i := strings.Index(text[from:], quote)
		if i < 0 {
			return false
		}
		i += from
		before, _ := utf8.DecodeLastRuneInString(text[:i])
		after, _ := utf8.DecodeRuneInString(text[i+len(quote):])
		first, _ := utf8.DecodeRuneInString(quote)
		last, _ := utf8.DecodeLastRuneInString(quote)
		if !(inWord(first) && inWord(before)) && !(inWord(last) && inWord(after)) {
			return true
		}
		_, size := utf8.DecodeRuneInString(text[i:])
		from = i + size
	}
}

func inWord(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }

// words splits s into its words, lower case, with quotation marks, dashes
// and other punctuation taken for space.
func words(s string) []string {
	return strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	})
}

// bestWindow scores the windows of the text's words as long as the
// quote: a window's score is the share of the quote's words it holds
// (counted with their repeats), and, where that share could verify, the
// share it holds in the quote's order, so that a quote with its words
// shuffled (or a "not" moved) does not verify. Order is counted only
// there, and in at most maxOrdered windows. It returns
// the best score.
func bestWindow(qw, tw []string) float64 {
	m := len(qw)
	need := map[string]int{}
	for _, w := range qw {
		need[w]++
	}
	have := map[string]int{}
	hits, best := 0, 0
	type window struct{ end, hits int }
	var cands []window
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
		switch {
		case float64(hits) >= Threshold*float64(m):
			cands = append(cands, window{end: i + 1, hits: hits})
		case hits > best:
			best = hits
		}
	}
	// The windows that could verify, most words in common first: the
	// words in common bound the words in order.
	sort.SliceStable(cands, func(a, b int) bool { return cands[a].hits > cands[b].hits })
	for n, c := range cands {
		if c.hits <= best || n == maxOrdered {
			break
		}
		best = max(best, inOrder(qw, tw[max(0, c.end-m):c.end]))
	}
	return float64(best) / float64(m)
}

// maxOrdered caps the windows whose words bestWindow counts in order,
// so that a page that repeats itself costs little.
const maxOrdered = 32

// inOrder returns the length of the longest run of words, not
// necessarily adjacent, that a and b hold in the same order.
func inOrder(a, b []string) int {
	prev, cur := make([]int, len(b)+1), make([]int, len(b)+1)
	for i := range a {
		for j := range b {
			switch {
			case a[i] == b[j]:
				cur[j+1] = prev[j] + 1
			case prev[j+1] >= cur[j]:
				cur[j+1] = prev[j+1]
			default:
				cur[j+1] = cur[j]
			}
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
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
