package panel

import (
	"bytes"
	"errors"
	"fmt"
	"regexp"
	"sort"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	yamlfront "github.com/adrg/frontmatter"
	"go.yaml.in/yaml/v3"

	"github.com/moot-dev/moot/internal/frontmatter"
	"github.com/moot-dev/moot/templates"
)

// PersonasDir is the folder of a debate that holds the contracts of its
// panel, one file per persona, copied there by `moot new`.
const PersonasDir = "personas"

// DefaultPanel returns the panel of a debate made without --personas, a
// new slice each time.
func DefaultPanel() []string { return []string{"mara", "theo", "ines"} }

// Persona is a persona's contract: who it is, how it thinks, what changes
// its mind and how it speaks. A persona file holds it as YAML frontmatter
// between two "---" lines; the body, if any, is more about the persona in
// prose.
type Persona struct {
	ID          string   `yaml:"id"`
	Name        string   `yaml:"name"`
	Identity    string   `yaml:"identity"`
	Bias        string   `yaml:"bias"`
	Stakes      string   `yaml:"stakes"`
	Thinks      string   `yaml:"thinks"`
	Horizon     string   `yaml:"horizon"`
	ChangesMind []string `yaml:"changes_mind"`
	Voice       Voice    `yaml:"voice"`
	Never       []string `yaml:"never"`
	Anchors     []string `yaml:"anchors"`
	// More is the file's body.
	More string `yaml:"-"`
}

// Voice is how a persona speaks.
type Voice struct {
	Hint       string   `yaml:"hint"`
	Patterns   []string `yaml:"patterns"`
	Vocabulary []string `yaml:"vocabulary"`
	Examples   []string `yaml:"examples"`
}

var personaID = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[a-z][a-z0-9-]{0,31}$`) })

// First is the persona's first name, as other personas and models call it.
func (p Persona) First() string {
	f, _, _ := strings.Cut(strings.TrimSpace(p.Name), " ")
	return f
}

// personaFront is a persona's frontmatter: YAML between two "---"
// lines, as adrg/frontmatter splits it, decoded strictly, so that a key
// the contract does not have is refused with its line.
var personaFront = yamlfront.NewFormat("---", "---", func(data []byte, v any) error {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	return dec.Decode(v)
})

// ParsePersona reads a persona file named file (such as "mara.md"); the
// persona's id must be the file's name without ".md".
func ParsePersona(file string, data []byte) (Persona, error) {
	var p Persona
	if err := frontmatter.CheckUTF8(data); err != nil {
		return p, err
	}
	// A byte-order mark, as Windows editors save one, is no part of the
	// text.
	text := strings.TrimPrefix(strings.ReplaceAll(string(data), "\r\n", "\n"), "\ufeff")
	if !strings.HasPrefix(text, "---\n") {
		return p, errors.New(`does not start with a "---" line opening its YAML frontmatter`)
	}
	body, err := yamlfront.Parse(strings.NewReader(text), &p, personaFront)
	if err != nil {
		return p, fmt.Errorf("frontmatter: %w", err)
	}
	if len(body) == len(text) {
		// adrg/frontmatter gives the whole text back when no line closes
		// the frontmatter.
		return p, errors.New(`has no "---" line closing its YAML frontmatter`)
	}
	p.More = strings.TrimSpace(string(body))
	want := strings.TrimSuffix(file, ".md")
	switch {
	case !personaID().MatchString(p.ID):
		return p, fmt.Errorf("id %q: want a lower-case letter, then lower-case letters, digits or hyphens (at most 32)", p.ID)
	case p.ID != want:
		return p, fmt.Errorf("id %q differs from the file's name %q", p.ID, want)
	case strings.TrimSpace(p.Name) == "":
		return p, errors.New("name is missing")
	case strings.TrimSpace(p.Identity) == "":
		return p, errors.New("identity is missing")
	case strings.ContainsAny(p.Name, "\n\r"):
		return p, errors.New("name is more than one line")
	}
	return p, nil
}

// Builtin returns the personas moot ships, by id.
func Builtin() (map[string]Persona, map[string][]byte, error) {
	return parsePersonas(templates.Folder(Name, PersonasDir), "built-in persona")
}

// parsePersonas reads persona files by file name.
func parsePersonas(files map[string][]byte, what string) (map[string]Persona, map[string][]byte, error) {
	out := map[string]Persona{}
	raw := map[string][]byte{}
	names := make([]string, 0, len(files))
	for n := range files {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		p, err := ParsePersona(n, files[n])
		if err != nil {
			return nil, nil, fmt.Errorf("%s %s: %w", what, n, err)
		}
		out[p.ID] = p
		raw[p.ID] = files[n]
	}
	return out, raw, nil
}

// universalNever are the phrases no persona uses, on top of its own.
var universalNever = []string{
	"as an AI", "great question", "that's a great point", "I hear you",
	"let's unpack", "at the end of the day", "it's important to note", "delve",
}

// bannedOpenings are the AI-sounding openings stripped from a persona's
// answer wherever they open a sentence: the original's six (a compliment
// on the point, "as an AI", "firstly", "in conclusion", "let's break this
// down" and "the X argument misses") and moot's own few more.
var bannedOpenings = sync.OnceValue(func() []*regexp.Regexp {
	var out []*regexp.Regexp
	for _, p := range []string{
		`(that'?s|that is|what) an? (really )?(great|good|excellent|fair|interesting|important|valid) (point|question|observation)\b`,
		`(great|excellent|good|fair|valid) (point|question)\b`,
		`as an ai( language model)?\b`,
		`(firstly|secondly|thirdly|first of all|to begin with)\b`,
		`in (summary|conclusion)\b`,
		`let'?s break this down\b`,
		`the ['"]?[\w\s-]+?['"]?\s+(argument|critique|framing|claim|thesis|point)\s+(misses|ignores|overlooks|fails)\b`,
		`i (completely |totally |really )?(understand|hear|appreciate) (your|the|that) (concern|point|perspective)s?\b`,
		`(absolutely|certainly|indeed|of course)[,.!—-]`,
	} {
		// Each is matched at a sentence's start, with what punctuation
		// and space follow it.
		out = append(out, regexp.MustCompile(`(?i)^(?:`+p+`)[,.!:;—–-]*\s*`))
	}
	return out
})

// sentenceStart matches the end of a sentence and the space after it:
// what follows opens a sentence.
var sentenceStart = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`[.!?]["'”’)]*\s+`) })

// minSpoken is the shortest persona answer kept once a banned opening is
// stripped.
const minSpoken = 20

// StripBanned removes every banned AI-sounding opening that opens a
// sentence of text, and capitalises what follows each; what it removed
// is returned too, the pieces joined by " … ".
func StripBanned(text string) (string, string) {
	text = strings.TrimSpace(text)
	starts := []int{0}
	for _, loc := range sentenceStart().FindAllStringIndex(text, -1) {
		if loc[1] < len(text) {
			starts = append(starts, loc[1])
		}
	}
	var cuts []string
	// From the last sentence back, so that the earlier starts hold.
	for k := len(starts) - 1; k >= 0; k-- {
		at := starts[k]
		for cut := true; cut; {
			cut = false
			for _, re := range bannedOpenings() {
				loc := re.FindStringIndex(text[at:])
				if loc == nil || loc[1] == 0 {
					continue
				}
				cuts = append(cuts, strings.TrimSpace(text[at:at+loc[1]]))
				text = text[:at] + capitalise(text[at+loc[1]:])
				cut = true
			}
		}
	}
	for i, j := 0, len(cuts)-1; i < j; i, j = i+1, j-1 {
		cuts[i], cuts[j] = cuts[j], cuts[i]
	}
	return strings.TrimSpace(text), strings.Join(cuts, " … ")
}

// capitalise upper-cases the first letter of s.
func capitalise(s string) string {
	r, n := utf8.DecodeRuneInString(s)
	if n == 0 || r == utf8.RuneError {
		return s
	}
	return string(unicode.ToUpper(r)) + s[n:]
}

// spokenErrors checks a persona's text once stripped.
func spokenErrors(text string) []string {
	kept, cut := StripBanned(text)
	if len([]rune(kept)) >= minSpoken {
		return nil
	}
	if cut != "" {
		return []string{fmt.Sprintf("once %q is dropped, fewer than %d characters are left: speak in your own voice, without filler openings", cut, minSpoken)}
	}
	return []string{fmt.Sprintf("the answer has fewer than %d characters: say something of substance", minSpoken)}
}
