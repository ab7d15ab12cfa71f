// Package evidence is what moot keeps of the pages its debaters read, and
// how a ground's quote is checked against them. It is pure: it touches no
// file, clock or network (internal/research reads the pages, store writes
// them).
//
// A page read is kept in the debate as sources/HASH.md: a JSON
// frontmatter (url, fetched, status, and final_url or error when they
// apply) and, as its body, the text as it was read.
package evidence

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/moot-dev/moot/internal/frontmatter"
)

// Dir is the folder of a debate that holds the pages read.
const Dir = "sources"

// Source is one page as it was read.
type Source struct {
	URL      string    `json:"url"`
	FinalURL string    `json:"final_url,omitempty"`
	Fetched  time.Time `json:"fetched"`
	// Status is the HTTP status of the answer; 0 when none came.
	Status int `json:"status"`
	// Error says why the page could not be read; "" when it was.
	Error string `json:"error,omitempty"`
	// Text is the page's text as read, the whole of it that was kept.
	Text string `json:"-"`
	// Copy is the path of the stored copy of this version of the page,
	// when it is known: Name(URL) for the first version a debate keeps,
	// VersionName for a later one whose text differs. "" means Name(URL).
	Copy string `json:"-"`
}

// Same reports whether s and o are the same version of a page: the same
// text, read or failed alike.
func (s Source) Same(o Source) bool {
	return s.Text == o.Text && s.OK() == o.OK() && s.Error == o.Error
}

// OK reports whether the page was read.
func (s Source) OK() bool { return s.Error == "" && s.Status >= 200 && s.Status < 300 }

// Name returns the path of the stored copy of the page at url, inside the
// debate: sources/ and the start of the URL's SHA-256.
func Name(url string) string {
	sum := sha256.Sum256([]byte(url))
	return Dir + "/" + hex.EncodeToString(sum[:8]) + ".md"
}

// VersionName returns the path of the stored copy of a later version of
// the page at url, whose text differs from the first copy's: Name(url)
// with the start of the text's SHA-256 added, so that every version a
// debater read is kept and a check names the one it was made against.
func VersionName(url, text string) string {
	sum := sha256.Sum256([]byte(text))
	return strings.TrimSuffix(Name(url), ".md") + "-" + hex.EncodeToString(sum[:4]) + ".md"
}

// Render writes the stored copy of s.
func (s Source) Render() ([]byte, error) {
	s.Fetched = s.Fetched.UTC()
	raw, err := json.Marshal(s)
	if err != nil {
		return nil, err
	}
	var front frontmatter.Object
	if err := json.Unmarshal(raw, &front); err != nil {
		return nil, err
	}
	return frontmatter.Render(front, s.Text)
}

// Parse reads a stored copy.
func Parse(data []byte) (Source, error) {
	var s Source
	_, body, err := frontmatter.ParseInto(data, &s)
	if err != nil {
		return s, err
	}
	if s.URL == "" {
		return s, fmt.Errorf("the copy names no url")
	}
	s.Text = strings.TrimRight(body, "\n")
	return s, nil
}

var urlPattern = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`https?://[^\s<>"'\x60)\]]+`) })

// URLOf returns the first http(s) URL in a ground's source, trailing
// punctuation cut off; "" when it has none.
func URLOf(source string) string {
	u := urlPattern().FindString(source)
	return strings.TrimRight(u, ".,;:!?")
}
