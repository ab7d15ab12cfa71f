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
	// TooShort is a quote of fewer than MinQuoteWords words: so few
	// words are found in almost any page and prove nothing.
	TooShort = "too short"
)

// MinQuoteWords is the fewest words a quote must have to be checked.
const MinQuoteWords = 8

// Threshold is the lowest fuzzy score that verifies a quote.
const Threshold = 0.85

// Match says how a quote was found in a text.
type Match struct {
	// How is "exact", "normalised", "fuzzy" or "" when nothing came close.
	How string
	// Score is 1 for an exact or normalised match, else the share of the
	// quote's words found together in the text, from 0 to 1.
	Score float64
	// Negation marks a fuzzy match close enough to verify but for a
	// negation ("not", "never", "didn't", ...) that the quote holds and
	// the text does not, or the other way round: it never verifies.
	Negation bool
}

// Found reports whether the match verifies the quote.
func (m Match) Found() bool { return m.Score >= Threshold && !m.Negation }

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
	best, negation := bestWindow(qw, tw)
	if best == 0 {
		return Match{}
	}
	return Match{How: "fuzzy", Score: best, Negation: negation}
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
// there, and in at most maxOrdered windows. A window whose negations do
// not match the quote's (negationDiffers) cannot verify it. It returns
// the best score of a window that could verify, or, when none reaches the
// threshold but one whose negation differs does, that one's score and
// true.
func bestWindow(qw, tw []string) (float64, bool) {
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
	negated := 0
	for n, c := range cands {
		if c.hits <= best || n == maxOrdered {
			break
		}
		win := tw[max(0, c.end-m):c.end]
		o := inOrder(qw, win)
		if o <= best {
			continue
		}
		if negationDiffers(qw, win) {
			negated = max(negated, o)
			continue
		}
		best = o
	}
	verifies := func(n int) bool { return float64(n) >= Threshold*float64(m) }
	if !verifies(best) && verifies(negated) {
		return float64(negated) / float64(m), true
	}
	return float64(max(best, negated)) / float64(m), false
}

// negations are the words that turn a statement into its denial. The "t"
// of a contraction ("didn't" is split "didn", "t") counts too.
var negations = map[string]bool{"not": true, "no": true, "never": true, "none": true, "nor": true, "neither": true,
	"nobody": true, "nothing": true, "nowhere": true, "cannot": true, "without": true}

// negates reports whether ws[i] is a negation.
func negates(ws []string, i int) bool {
	return negations[ws[i]] || ws[i] == "t" && i > 0 && strings.HasSuffix(ws[i-1], "n")
}

// maxAligned bounds the quotes whose negations negationDiffers finds
// word by word (its table holds (n+1)² counts); longer ones are compared
// by their number of negations.
const maxAligned = 400

// negationDiffers reports whether the quote qw and a window win of the
// text disagree on a negation: a negation of the quote that the best
// alignment of the two (their longest run in order) leaves unmatched, or
// one of the window's, between its first and last matched words, left
// unmatched. Every negation is taken for one word, so that "no" in the
// quote may stand for "not" in the text.
func negationDiffers(qw, win []string) bool {
	if len(qw) > maxAligned || len(win) > maxAligned {
		count := func(ws []string) int {
			n := 0
			for i := range ws {
				if negates(ws, i) {
					n++
				}
			}
			return n
		}
		return count(qw) != count(win)
	}
	class := func(ws []string) []string {
		out := make([]string, len(ws))
		for i, w := range ws {
			if negates(ws, i) {
				w = "\x00not"
			}
			out[i] = w
		}
		return out
	}
	a, b := class(qw), class(win)
	// lcs[i][j] is the longest run in order of a[i:] and b[j:].
	cols := len(b) + 1
	lcs := make([]uint16, (len(a)+1)*cols)
	for i := len(a) - 1; i >= 0; i-- {
		for j := len(b) - 1; j >= 0; j-- {
			switch {
			case a[i] == b[j]:
				lcs[i*cols+j] = lcs[(i+1)*cols+j+1] + 1
			default:
				lcs[i*cols+j] = max(lcs[(i+1)*cols+j], lcs[i*cols+j+1])
			}
		}
	}
	matchedA, matchedB := make([]bool, len(a)), make([]bool, len(b))
	first, last := -1, -1
	for i, j := 0, 0; i < len(a) && j < len(b); {
		switch {
		case a[i] == b[j]:
			matchedA[i], matchedB[j] = true, true
			if first < 0 {
				first = j
			}
			last = j
			i++
			j++
		case lcs[(i+1)*cols+j] >= lcs[i*cols+j+1]:
			i++
		default:
			j++
		}
	}
	for i := range a {
		if negates(qw, i) && !matchedA[i] {
			return true
		}
	}
	for j := first + 1; first >= 0 && j < last; j++ {
		if negates(win, j) && !matchedB[j] {
			return true
		}
	}
	return false
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
	// Negation marks a quote not found because a negation differs from
	// the page's (see Match.Negation), its score close enough otherwise.
	Negation bool `json:"negation,omitempty"`
}

// CheckGround checks a ground's content against the page it cites (nil
// when the page was never read): unreachable when it could not be read,
// too short when a quoted passage (or the whole content, when it quotes
// none) has fewer than MinQuoteWords words, else verified when every
// quoted passage is found, with the lowest score of them. Only the quoted
// words are checked: what the ground concludes from them is not.
func CheckGround(content string, src *Source) Check {
	if src == nil || !src.OK() {
		c := Check{Result: Unreachable}
		if src != nil {
			c.URL, c.Copy = src.URL, src.copyName()
		}
		return c
	}
	c := Check{URL: src.URL, Copy: src.copyName(), Score: 1}
	quotes := Quotes(content)
	for _, q := range quotes {
		if len(words(q)) < MinQuoteWords {
			c.Result, c.Score = TooShort, 0
			return c
		}
	}
	for _, q := range quotes {
		m := Find(q, src.Text)
		if m.Score < c.Score || m.Score == c.Score && m.Negation {
			c.Score, c.Negation = m.Score, m.Negation
		}
	}
	c.Score = float64(int(c.Score*100+0.5)) / 100
	c.Result = NotFound
	if c.Score >= Threshold && !c.Negation {
		c.Result = Verified
	}
	return c
}

// copyName is the path of the stored copy of s: Copy when set, else the
// first copy of its URL.
func (s *Source) copyName() string {
	if s.Copy != "" {
		return s.Copy
	}
	return Name(s.URL)
}
