package lenient

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Clean returns a name or an id as a model may dress it, undressed: the
// spaces around it, the quotes (straight, smart or back quotes), Markdown
// emphasis and brackets around it, and a final full stop, comma, colon,
// semicolon or exclamation mark removed, again until nothing changes. A
// name as the cast gives it comes back unchanged.
func Clean(s string) string {
	for {
		t := strings.TrimFunc(s, unicode.IsSpace)
		t = strings.TrimRight(t, ".,;:!")
		t = strings.TrimFunc(t, unicode.IsSpace)
		if len(t) >= 2 {
			for _, pair := range [][2]string{{"(", ")"}, {"[", "]"}, {"<", ">"}} {
				if strings.HasPrefix(t, pair[0]) && strings.HasSuffix(t, pair[1]) {
					t = t[len(pair[0]) : len(t)-len(pair[1])]
				}
			}
		}
		t = strings.Trim(t, "'\"`*_“”‘’«»")
		if t == s {
			return t
		}
		s = t
	}
}

// titles are the titles a name may be given, lower case and without a
// final full stop.
var titles = []string{
	"prof", "professor", "dr", "doctor", "mr", "mrs", "ms", "mx", "miss", "sir", "dame", "lord", "lady",
	"rev", "reverend", "judge", "justice", "hon", "senator", "sen", "rep", "gov", "governor", "president",
	"minister", "captain", "capt", "col", "gen", "general", "dean", "father", "sister", "brother", "rabbi", "imam",
}

// Fold returns s as names are compared: in lower case, with its dashes and
// hyphens as "-", its apostrophes as "'" and its runs of spaces as one.
func Fold(s string) string {
	var b strings.Builder
	space := false
	for _, r := range strings.TrimSpace(s) {
		switch {
		case unicode.IsSpace(r):
			space = true
			continue
		case unicode.Is(unicode.Pd, r) || r == '\u2212':
			r = '-'
		case r == '’' || r == '‘' || r == 'ʼ':
			r = '\''
		}
		if space {
			b.WriteByte(' ')
			space = false
		}
		b.WriteRune(unicode.ToLower(r))
	}
	return b.String()
}

// StripTitles returns name without the titles it starts with, as
// written otherwise ("Prof. Mara Okafor" gives "Mara Okafor"). A name
// that is only a title keeps it.
func StripTitles(name string) string {
	for {
		word, rest, ok := strings.Cut(strings.TrimSpace(name), " ")
		if !ok || !isTitle(Fold(strings.TrimSuffix(word, "."))) {
			return strings.TrimSpace(name)
		}
		name = rest
	}
}

func isTitle(w string) bool {
	for _, t := range titles {
		if w == t {
			return true
		}
	}
	return false
}

// Untitled returns name, Clean and Fold applied, without the titles it
// starts with ("Prof. Chen" gives "chen"). A name that is only a title
// keeps it.
func Untitled(name string) string { return untitled(Fold(Clean(name))) }

// untitled returns folded name f without the titles it starts with.
func untitled(f string) string {
	for {
		word, rest, ok := strings.Cut(f, " ")
		if !ok {
			return f
		}
		if !isTitle(strings.TrimSuffix(word, ".")) {
			return f
		}
		f = rest
	}
}

// Match returns the index in names of the name answer gives: the one it
// is, once Clean and Fold have been applied to both; else the one it is
// once titles are left out of both ("Prof. Chen" for "Chen", "Chen" for
// "Dr. Chen"), when exactly one name is. ok is false when none is, or
// more than one.
func Match(answer string, names []string) (int, bool) {
	a := Fold(Clean(answer))
	if a == "" {
		return 0, false
	}
	for i, n := range names {
		if Fold(Clean(n)) == a {
			return i, true
		}
	}
	bare := untitled(a)
	hit := -1
	for i, n := range names {
		if untitled(Fold(Clean(n))) == bare {
			if hit >= 0 {
				return 0, false
			}
			hit = i
		}
	}
	return hit, hit >= 0
}

// Named returns the indices, in order, of the names of names that answer
// mentions as whole words (in any case, dashes and quotes folded). A
// name that is part of a longer one mentioned at the same place (Chen in
// Prof. Chen) is not counted there.
func Named(answer string, names []string) []int {
	a := Fold(strings.NewReplacer("*", " ", "_", " ", "`", " ", "\"", " ", "“", " ", "”", " ").Replace(answer))
	// The longest names are found first and blanked out, so that a
	// shorter name is only counted where it stands alone.
	order := make([]int, len(names))
	for i := range order {
		order[i] = i
	}
	for i := 1; i < len(order); i++ {
		for j := i; j > 0 && len(names[order[j]]) > len(names[order[j-1]]); j-- {
			order[j], order[j-1] = order[j-1], order[j]
		}
	}
	found := make([]bool, len(names))
	for _, i := range order {
		n := Fold(Clean(names[i]))
		if n == "" {
			continue
		}
		from := 0
		for {
			k := strings.Index(a[from:], n)
			if k < 0 {
				break
			}
			k += from
			end := k + len(n)
			if boundary(a, k, end) {
				found[i] = true
				a = a[:k] + strings.Repeat(" ", len(n)) + a[end:]
			}
			from = end
		}
	}
	var out []int
	for i, f := range found {
		if f {
			out = append(out, i)
		}
	}
	return out
}

// wordRune reports whether r continues a word.
func wordRune(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }

// boundary reports whether s[:k] ends and s[end:] starts outside a word.
func boundary(s string, k, end int) bool {
	if r, n := utf8.DecodeLastRuneInString(s[:k]); n > 0 && wordRune(r) {
		return false
	}
	if r, n := utf8.DecodeRuneInString(s[end:]); n > 0 && wordRune(r) {
		return false
	}
	return true
}
