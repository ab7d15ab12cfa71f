package refine

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"math"
	"regexp"
	"sort"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/adrg/frontmatter"
	"go.yaml.in/yaml/v3"
)

// Template is one reasoning template: a markdown file with a "## Steps"
// section, named by a "# Name" heading, by the name of its YAML
// frontmatter (the original's files) or by its file name, and told apart
// by a "## When to use" section or the frontmatter's description.
type Template struct {
	ID     string
	Name   string
	When   string
	Body   string // the file as it is
	Source string // "built in" or the debate's file
}

var templateID = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[a-z0-9][a-z0-9_-]{0,63}$`) })

// templateFront is what moot reads of a template's YAML frontmatter, as
// the original's templates carry it.
type templateFront struct {
	Name        string `yaml:"name"`
	Description string `yaml:"description"`
}

// yamlFront is the only frontmatter format of a template: YAML between
// "---" lines.
var yamlFront = frontmatter.NewFormat("---", "---", yaml.Unmarshal)

// parseTemplate reads the template id from its file's content.
func parseTemplate(id string, data []byte) (Template, error) {
	// A byte-order mark, as Windows editors save one, is no part of the
	// text.
	text := strings.TrimPrefix(strings.ReplaceAll(string(data), "\r\n", "\n"), "\ufeff")
	t := Template{ID: id, Body: strings.TrimSpace(text)}
	if !templateID().MatchString(id) {
		return t, fmt.Errorf("name %q: want lower-case letters, digits, '-' or '_' (at most 64) before .md", id)
	}
	if !utf8.ValidString(t.Body) {
		return t, errors.New("is not UTF-8 text")
	}
	text = t.Body
	var front templateFront
	if strings.HasPrefix(text, "---\n") {
		rest, err := frontmatter.Parse(strings.NewReader(text), &front, yamlFront)
		if err != nil {
			return t, fmt.Errorf("frontmatter: %w", err)
		}
		if strings.HasPrefix(string(rest), "---\n") {
			return t, errors.New(`frontmatter: no "---" line closes it`)
		}
		text = string(rest)
	}
	t.Name = strings.TrimSpace(front.Name)
	var section string
	var when []string
	steps := false
	for _, line := range strings.Split(text, "\n") {
		switch {
		case strings.HasPrefix(line, "# ") && t.Name == "":
			t.Name = strings.TrimSpace(line[2:])
		case strings.HasPrefix(line, "## "):
			section = strings.ToLower(strings.TrimSpace(line[3:]))
			steps = steps || section == "steps"
		case section == "when to use" && strings.TrimSpace(line) != "":
			when = append(when, strings.TrimSpace(line))
		}
	}
	t.When = strings.Join(when, " ")
	if t.When == "" {
		t.When = strings.TrimSpace(front.Description)
	}
	if t.Name == "" {
		t.Name = nameOf(id)
	}
	switch {
	case t.When == "":
		return t, errors.New(`has no "## When to use" section with text and no description in its frontmatter`)
	case !steps:
		return t, errors.New(`has no "## Steps" section`)
	}
	return t, nil
}

// nameOf makes a template's name of its file name: "tree-of-thoughts"
// is "Tree of thoughts".
func nameOf(id string) string {
	n := strings.TrimSpace(strings.NewReplacer("-", " ", "_", " ").Replace(id))
	if n == "" {
		return id
	}
	return strings.ToUpper(n[:1]) + n[1:]
}

// sha returns the hex SHA-256 of a template's content.
func sha(s string) string {
	h := sha256.Sum256([]byte(s))
	return hex.EncodeToString(h[:])
}

// document is what is embedded of a template: its name, when to use it
// and the first 1000 characters of the file, after the original's recipe.
func (t Template) document() string {
	body := t.Body
	if n := 0; len(body) > 1000 {
		for i := range body {
			if n == 1000 {
				body = body[:i]
				break
			}
			n++
		}
	}
	return "Name: " + t.Name + "\nWhen to use: " + t.When + "\n\n" + body
}

// candidates returns the templates retrieval ranks, sorted by id: the
// library's, with those of the debate's reasoning/ added or in their
// place.
func (d *debate) candidates() ([]Template, []string) {
	byID := map[string]Template{}
	var warnings []string
	for name, data := range d.library {
		id := strings.TrimSuffix(name, ".md")
		t, err := parseTemplate(id, data)
		if err != nil {
			warnings = append(warnings, fmt.Sprintf("built-in template %s: %v", name, err))
			continue
		}
		t.Source = "built in"
		byID[id] = t
	}
	for id, t := range d.own {
		byID[id] = t
	}
	out := make([]Template, 0, len(byID))
	for _, t := range byID {
		out = append(out, t)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	if len(out) > maxTemplates {
		out = out[:maxTemplates]
	}
	return out, warnings
}

// Candidate is one template as retrieval ranked it.
type Candidate struct {
	ID     string  `json:"id"`
	Name   string  `json:"name"`
	Source string  `json:"source"`
	Score  float64 `json:"score"`
	Kept   bool    `json:"kept"`
	SHA256 string  `json:"sha256"`
}

// Retrieval is what retrieval.json holds.
type Retrieval struct {
	// Method is "embeddings", "lexical" (the endpoint had none) or "off".
	Method string `json:"method"`
	Model  string `json:"model,omitempty"`
	// Unavailable says why the endpoint gave no embeddings.
	Unavailable string `json:"unavailable,omitempty"`
	Query       string `json:"query"`
	// Score names the measure: "cosine", or "bm25" relative to the best.
	Score      string      `json:"score,omitempty"`
	Threshold  float64     `json:"threshold"`
	TopK       int         `json:"top_k"`
	Candidates []Candidate `json:"candidates"`
	Kept       []string    `json:"kept"`
	ElapsedMS  int64       `json:"elapsed_ms"`
}

// LexicalThreshold is the part of the best BM25 score a template needs to
// be kept when retrieval falls back to words.
const LexicalThreshold = 0.5

// Cosine returns the cosine similarity of a and b; 0 when either is zero
// or their lengths differ.
func Cosine(a, b []float64) float64 {
	if len(a) != len(b) || len(a) == 0 {
		return 0
	}
	var dot, na, nb float64
	for i := range a {
		dot += a[i] * b[i]
		na += a[i] * a[i]
		nb += b[i] * b[i]
	}
	if na == 0 || nb == 0 {
		return 0
	}
	return dot / (math.Sqrt(na) * math.Sqrt(nb))
}

// Similarity is the score of vector b against a on scale: the original's
// (1 + cosine) / 2 for ScaleHalfCosine, the cosine itself otherwise.
func Similarity(a, b []float64, scale string) float64 {
	c := Cosine(a, b)
	if scale == ScaleHalfCosine {
		return (1 + c) / 2
	}
	return c
}

// Rank sorts candidates by score, highest first, ties by id, and keeps
// the first topK whose score is at least threshold.
func Rank(cs []Candidate, topK int, threshold float64) ([]Candidate, []string) {
	out := append([]Candidate(nil), cs...)
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Score != out[j].Score {
			return out[i].Score > out[j].Score
		}
		return out[i].ID < out[j].ID
	})
	var kept []string
	for i := range out {
		out[i].Kept = len(kept) < topK && out[i].Score >= threshold
		if out[i].Kept {
			kept = append(kept, out[i].ID)
		}
	}
	return out, kept
}

var wordRe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`[\p{L}\p{N}]+`) })

// stopwords are the words retrieval does not count, made on first use.
var stopwords = sync.OnceValue(func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields("a an and are as at be by can do does for from has have how i if in is it its of on or should so that the their there this to was we what when which who why will with would you your") {
		m[w] = true
	}
	return m
})

func words(s string) []string {
	var out []string
	for _, w := range wordRe().FindAllString(strings.ToLower(s), -1) {
		if !stopwords()[w] {
			out = append(out, w)
		}
	}
	return out
}

// BM25 scores each document against query with Okapi BM25 (k1 1.2, b
// 0.75), over lower-cased words without common stop words.
func BM25(query string, docs []string) []float64 {
	const k1, b = 1.2, 0.75
	tf := make([]map[string]int, len(docs))
	df := map[string]int{}
	total := 0
	lens := make([]int, len(docs))
	for i, doc := range docs {
		tf[i] = map[string]int{}
		ws := words(doc)
		lens[i] = len(ws)
		total += len(ws)
		for _, w := range ws {
			if tf[i][w] == 0 {
				df[w]++
			}
			tf[i][w]++
		}
	}
	scores := make([]float64, len(docs))
	if len(docs) == 0 || total == 0 {
		return scores
	}
	avg := float64(total) / float64(len(docs))
	seen := map[string]bool{}
	for _, q := range words(query) {
		if seen[q] || df[q] == 0 {
			continue
		}
		seen[q] = true
		n, nq := float64(len(docs)), float64(df[q])
		idf := math.Log(1 + (n-nq+0.5)/(nq+0.5))
		for i := range docs {
			f := float64(tf[i][q])
			if f == 0 {
				continue
			}
			scores[i] += idf * f * (k1 + 1) / (f + k1*(1-b+b*float64(lens[i])/avg))
		}
	}
	return scores
}

func round4(x float64) float64 { return math.Round(x*10000) / 10000 }

// retrieve ranks cs for the question: by the cosine of their vectors to
// the question's (vectors[0] is the question's, then one per candidate),
// on the scale scale names, or by BM25 when vectors is nil.
func retrieve(question string, cs []Template, vectors [][]float64, topK int, threshold float64, scale string) Retrieval {
	r := Retrieval{Query: question, TopK: topK}
	list := make([]Candidate, len(cs))
	for i, t := range cs {
		list[i] = Candidate{ID: t.ID, Name: t.Name, Source: t.Source, SHA256: sha(t.Body)}
	}
	if vectors != nil {
		r.Method, r.Score, r.Threshold = "embeddings", "cosine", threshold
		if scale == ScaleHalfCosine {
			r.Score = "(1 + cosine) / 2"
		}
		for i := range list {
			list[i].Score = round4(Similarity(vectors[0], vectors[i+1], scale))
		}
	} else {
		r.Method, r.Score, r.Threshold = "lexical", "bm25 relative to the best", LexicalThreshold
		docs := make([]string, len(cs))
		for i, t := range cs {
			docs[i] = t.document()
		}
		scores := BM25(question, docs)
		best := 0.0
		for _, s := range scores {
			best = max(best, s)
		}
		for i := range list {
			if best > 0 {
				list[i].Score = round4(scores[i] / best)
			}
		}
	}
	r.Candidates, r.Kept = Rank(list, topK, r.Threshold)
	if r.Kept == nil {
		r.Kept = []string{}
	}
	return r
}
