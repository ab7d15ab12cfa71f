package evidence

import (
	"errors"
	"fmt"
	"io/fs"
	"strings"
)

// ReadDir reads the stored copies of a debate's files, by URL (the first
// copy of each, Name(URL)) and each copy also by its path (sources/...),
// later versions included; a debate that never researched has none. A copy that does not parse is left out:
// it verifies nothing.
func ReadDir(files fs.FS) (map[string]*Source, error) {
	entries, err := fs.ReadDir(files, Dir)
	if errors.Is(err, fs.ErrNotExist) || len(entries) == 0 {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", Dir, err)
	}
	out := map[string]*Source{}
	for _, e := range entries {
		if !strings.HasSuffix(e.Name(), ".md") {
			continue
		}
		name := Dir + "/" + e.Name()
		data, err := fs.ReadFile(files, name)
		if err != nil {
			return nil, fmt.Errorf("read %s: %w", name, err)
		}
		if src, err := Parse(data); err == nil {
			src.Copy = name
			out[name] = &src
			if name == Name(src.URL) || out[src.URL] == nil {
				out[src.URL] = &src
			}
		}
	}
	return out, nil
}

// Cited lists the http(s) URLs of a text, in order, once each.
func Cited(text string) []string {
	var out []string
	seen := map[string]bool{}
	for _, u := range urlPattern().FindAllString(text, -1) {
		u = strings.TrimRight(u, ".,;:!?")
		if !seen[u] {
			seen[u] = true
			out = append(out, u)
		}
	}
	return out
}

// CheckText checks the quotations of a free text, such as a speech: in
// each paragraph that cites a URL, each passage in quotation marks of at
// least four words is looked for in the pages the paragraph cites (page
// gives the page read for a URL, nil when none was), the best match
// kept. A paragraph without a URL or without such a passage has no check.
func CheckText(text string, page func(url string) *Source) []Check {
	var out []Check
	for _, para := range strings.Split(strings.ReplaceAll(text, "\r\n", "\n"), "\n\n") {
		urls := Cited(para)
		if len(urls) == 0 {
			continue
		}
		for _, q := range Quotes(para) {
			if len(words(q)) < 4 || q == strings.Trim(strings.TrimSpace(para), "\"“”'") {
				// Quotes fell back to the whole paragraph: no passage
				// in quotation marks.
				continue
			}

			var best Check
			for i, u := range urls {
				c := CheckGround(`"`+q+`"`, page(u))
				c.URL = u
				if i == 0 || rank(c) > rank(best) {
					best = c
				}
			}
			best.Quote = q
			out = append(out, best)
		}
	}
	return out
}

// rank orders checks: verified above not found above unreachable, then by
// score.
func rank(c Check) float64 {
	switch c.Result {
	case Verified:
		return 2 + c.Score
	case NotFound:
		return 1 + c.Score
	}
	return 0
}

// Line says what a check found in a few words, for a prompt or a report:
// `verified (1.00, sources/HASH.md)`.
//
// It says what was checked: the quoted words, never the claim made of
// them.
func (c Check) Line() string {
	switch {
	case c.Result == Unreachable && c.Copy != "":
		return fmt.Sprintf("unreachable (%s could not be read)", c.URL)
	case c.Result == Unreachable:
		return "unreachable (the page was not read)"
	case c.Result == TooShort:
		return fmt.Sprintf("too short to check (a quote needs at least %d words; nothing was verified)", MinQuoteWords)
	case c.Result == Verified:
		return fmt.Sprintf("quote verified (match %.2f against %s; only the quoted words were checked, not what is concluded from them)", c.Score, c.Copy)
	case c.Negation:
		return fmt.Sprintf("quote not found (match %.2f against %s, but a negation differs from the page's)", c.Score, c.Copy)
	}
	return fmt.Sprintf("quote not found (match %.2f against %s)", c.Score, c.Copy)
}

// Annotate is a text as prompts quote it to the roles that read it: the
// text, then what the checks of its quotations found, when it has any.
func Annotate(text string, checks []Check) string {
	if len(checks) == 0 {
		return text
	}
	var b strings.Builder
	b.WriteString(text)
	b.WriteString("\n\n[moot checked the quotations of this text against the pages cited:")
	for _, c := range checks {
		b.WriteString("\n- \"" + strings.Join(strings.Fields(c.Quote), " ") + "\": " + c.Line())
	}
	b.WriteString("]")
	return b.String()
}

// Marks marks each check, for a report: "1. ✓ quote verified (1.00) ·
// 2. ✗ quote not found (0.25)"; "" for none.
func Marks(checks []Check) string {
	var parts []string
	for i, c := range checks {
		mark := "✗"
		if c.Result == Verified {
			mark = "✓"
		}
		switch {
		case c.Result == Unreachable:
			parts = append(parts, fmt.Sprintf("%d. %s %s", i+1, mark, c.Result))
		case c.Result == TooShort:
			parts = append(parts, fmt.Sprintf("%d. %s too short to check", i+1, mark))
		case c.Negation:
			parts = append(parts, fmt.Sprintf("%d. %s quote %s, a negation differs (%.2f)", i+1, mark, c.Result, c.Score))
		default:
			parts = append(parts, fmt.Sprintf("%d. %s quote %s (%.2f)", i+1, mark, c.Result, c.Score))
		}
	}
	return strings.Join(parts, " · ")
}

// CheckAnswer checks the quotations of an answer (CheckText) against the
// pages read for it, else the stored copies a debate holds, by URL.
func CheckAnswer(text string, read []Source, stored map[string]*Source) []Check {
	byURL := map[string]*Source{}
	for i := range read {
		byURL[read[i].URL] = &read[i]
	}
	return CheckText(text, func(u string) *Source {
		if s := byURL[u]; s != nil {
			return s
		}
		return stored[u]
	})
}
