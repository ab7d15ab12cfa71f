package evidence

import (
	"strings"
	"testing"
)

// page is a page of thirty-odd words, as a debater reads it.
const page = "The committee reviewed the sugar levy in its third year and found that the consumption of sweetened drinks among children fell by eleven percent while the revenue it raised was spent on school sport and water fountains across the country."

func TestNegationNeverVerifies(t *testing.T) {
	for _, tc := range []struct {
		name, quote, text string
	}{
		{"did not inserted into a thirty-word quote",
			"The committee reviewed the sugar levy in its third year and found that the consumption of sweetened drinks among children did not fall by eleven percent while the revenue it raised was spent on school sport",
			page},
		{"never inserted",
			"reviewed the sugar levy in its third year and found that the consumption of sweetened drinks among children never fell by eleven percent while the revenue",
			page},
		{"a negation removed",
			"the revenue it raised was spent on school sport and water fountains across the country",
			strings.Replace(page, "was spent", "was not spent", 1)},
		{"a contraction removed",
			"while the revenue it raised was spent on school sport and water fountains across the country",
			strings.Replace(page, "was spent", "wasn't spent", 1)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := Find(tc.quote, tc.text)
			if m.Found() {
				t.Errorf("Find = %+v: a quote whose negation differs from the page verifies", m)
			}
			if m.Score < Threshold || !m.Negation {
				t.Errorf("Find = %+v, want the close match kept with its negation flagged", m)
			}
			c := CheckGround(`"`+tc.quote+`"`, &Source{URL: "https://a.example", Status: 200, Text: tc.text})
			if c.Result != NotFound || !strings.Contains(c.Line(), "negation") {
				t.Errorf("check %+v (%s), want not found naming the negation", c, c.Line())
			}
		})
	}
	// The same quote with its negation as the page has it verifies.
	if m := Find("found that the consumption of sweetened drinks among children did not fall by eleven percent", strings.Replace(page, "children fell", "children did not fall", 1)); !m.Found() {
		t.Errorf("a faithful quote with a negation: %+v", m)
	}
	// A fuzzy quote, one word off, whose negations agree, verifies.
	if m := Find("The committee reviewed the sugar levy in its fourth year and found that the consumption of sweetened drinks among children fell by eleven percent", page); !m.Found() || m.Negation {
		t.Errorf("one word off: %+v", m)
	}
}

func TestShortQuotesAreTooShortToCheck(t *testing.T) {
	src := &Source{URL: "https://a.example", Status: 200, Text: page}
	for _, content := range []string{"the levy", `As the report says, "the sugar levy in its third year".`, `"fell by eleven percent"`} {
		c := CheckGround(content, src)
		if c.Result != TooShort || !strings.Contains(c.Line(), "too short to check") {
			t.Errorf("%q: check %+v (%s), want too short to check", content, c, c.Line())
		}
	}
	// Eight words are enough.
	if c := CheckGround(`"reviewed the sugar levy in its third year"`, src); c.Result != Verified {
		t.Errorf("eight words: %+v", c)
	}
	// In prose, a quotation of four to seven words is reported too short.
	checks := CheckText(`As https://a.example says, "fell by eleven percent" and so on.`, func(string) *Source { return src })
	if len(checks) != 1 || checks[0].Result != TooShort {
		t.Errorf("prose checks = %+v, want one too short", checks)
	}
}

// TestLabelSaysTheQuoteWasChecked: a true quote inside a false claim is
// verified as a quote, and the label says that only the quoted words were
// checked, never that the ground is true.
func TestLabelSaysTheQuoteWasChecked(t *testing.T) {
	src := &Source{URL: "https://a.example", Status: 200, Text: page}
	c := CheckGround(`The page says "the consumption of sweetened drinks among children fell by eleven percent" and therefore it doubled life expectancy.`, src)
	if c.Result != Verified {
		t.Fatalf("check %+v", c)
	}
	line := c.Line()
	for _, want := range []string{"quote", "only the quoted words were checked"} {
		if !strings.Contains(line, want) {
			t.Errorf("label %q lacks %q", line, want)
		}
	}
	if m := Marks([]Check{c}); !strings.Contains(m, "quote verified") {
		t.Errorf("marks %q do not say the quote was verified", m)
	}
}

// TestCheckNamesItsCopy: a check names the copy of the page it was made
// against, which may be a later version than the first copy of its URL.
func TestCheckNamesItsCopy(t *testing.T) {
	url := "https://a.example/x"
	first := &Source{URL: url, Status: 200, Text: page}
	if c := CheckGround("anything at all that is long enough to be checked", first); c.Copy != Name(url) {
		t.Errorf("copy %q, want %q", c.Copy, Name(url))
	}
	v := VersionName(url, "another text")
	if v == Name(url) || !strings.HasPrefix(v, strings.TrimSuffix(Name(url), ".md")+"-") || VersionName(url, "another text") != v || VersionName(url, "a third") == v {
		t.Errorf("version name %q", v)
	}
	later := &Source{URL: url, Status: 200, Text: "another text", Copy: v}
	if c := CheckGround("anything at all that is long enough to be checked", later); c.Copy != v {
		t.Errorf("copy %q, want %q", c.Copy, v)
	}
}
