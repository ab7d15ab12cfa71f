package builtin

import (
	"context"
	"math"
	"strings"
	"unicode"

	"github.com/moot-dev/moot/internal/model"
)

// Note says, in one sentence for a report or a status line, that moot's
// scripted built-in model wrote text of roles (all of it, or some where
// another model wrote the rest), or, when all is set, all of the
// debate's text. It returns "" when roles is empty.
func Note(roles []string, all bool) string {
	if len(roles) == 0 {
		return ""
	}
	const by = "was written by moot's scripted built-in model (" + Name + "), not by a language model"
	if all {
		return "The text of this debate " + by + ": it shows how moot runs a debate and argues nothing."
	}
	names := make([]string, len(roles))
	for i, r := range roles {
		names[i] = "the " + r
	}
	list := names[0]
	if n := len(names); n > 1 {
		list = strings.Join(names[:n-1], ", ") + " and " + names[n-1]
	}
	return "Text of " + list + " in this debate " + by + "."
}

// dimensions is the length of the built-in model's embeddings: one
// common part and 255 buckets of words.
const dimensions = 1024

// Embed returns a vector for every text of req. It is no language
// model's embedding: each word of the text (of refine's reasoning
// templates, the words of the name and of "When to use"), lower case and
// of three letters or more, counts in one of 1023 buckets by a hash of it,
// and every vector has besides a common part twice as heavy as its
// words, so that the cosine of two texts is 2/3 for texts without a word
// in common and rises to 1 with the words they share. Refine's retrieval
// thus keeps the templates whose words are closest to the question's,
// the same ones every time.
func (Client) Embed(ctx context.Context, req model.EmbedRequest) (model.EmbedResponse, error) {
	if err := ctx.Err(); err != nil {
		return model.EmbedResponse{}, err
	}
	out := model.EmbedResponse{Model: Name, Attempts: 1, Vectors: make([][]float64, len(req.Input))}
	n := 0
	for i, text := range req.Input {
		out.Vectors[i] = vector(text)
		n += len(text)
	}
	out.PromptTokens = estimate(n)
	return out, nil
}

// shortWord reports whether w is left out of an embedding: it says
// nothing of a text's subject. (A switch, not a map, so that it costs
// nothing at start-up.)
func shortWord(w string) bool {
	switch w {
	case "the", "and", "for", "with", "that", "this", "are", "was", "how", "what", "when", "which", "why", "does",
		"from", "its", "you", "your", "use", "into", "there", "their", "name", "not", "has", "have", "can", "will",
		"would", "should":
		return true
	}
	return false
}

// vector is the embedding of text (see Embed), of length 1.
func vector(text string) []float64 {
	if name, ok := strings.CutPrefix(text, "Name: "); ok {
		// A reasoning template: its name and when to use it.
		text, _, _ = strings.Cut(name, "\n\n")
	}
	v := make([]float64, dimensions)
	for _, w := range strings.FieldsFunc(strings.ToLower(text), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	}) {
		if len(w) < 3 || shortWord(w) {
			continue
		}
		v[1+Pick(w, dimensions-1)]++
	}
	var norm float64
	for _, x := range v[1:] {
		norm += x * x
	}
	// The words weigh 1 and the common part sqrt(2), so that the common
	// part alone gives a cosine of 2/3.
	v[0] = math.Sqrt2
	if norm > 0 {
		norm = math.Sqrt(norm)
		for i := 1; i < dimensions; i++ {
			v[i] /= norm
		}
	}
	var total float64
	for _, x := range v {
		total += x * x
	}
	total = math.Sqrt(total)
	for i := range v {
		v[i] = math.Round(v[i]/total*1e6) / 1e6
	}
	return v
}
