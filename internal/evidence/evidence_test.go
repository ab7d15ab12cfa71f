package evidence

import (
	"strings"
	"testing"
	"time"
)

func TestFind(t *testing.T) {
	text := "The Treaty was signed in 1648. It ended the “Thirty Years’ War” in Europe,\nand redrew many borders."
	tests := []struct {
		name, quote, how string
		found            bool
	}{
		{"exact", "signed in 1648", "exact", true},
		{"exact at the text's ends", "The Treaty", "exact", true},
		{"words cut at both ends are no quote", "reaty was signed in 164", "fuzzy", false},
		{"a word inside another is no quote", "Trea", "", false},
		{"normalised case and space", "the treaty WAS   signed\nin 1648", "normalised", true},
		{"normalised quotes", `ended the "Thirty Years' War" in Europe`, "normalised", true},
		{"fuzzy one word off", "It ended the Thirty Years War across Europe and redrew many borders", "fuzzy", true},
		{"fuzzy words in another order do not verify", "in Europe the Thirty Years War it ended", "", false},
		{"a moved word in a short quote does not verify", "It the ended Thirty", "fuzzy", false},
		{"absent", "The moon is made of green cheese entirely", "", false},
		{"empty", "", "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := Find(tt.quote, text)
			if m.Found() != tt.found || (tt.how != "" && m.How != tt.how) {
				t.Errorf("Find = %+v, want how %q found %v", m, tt.how, tt.found)
			}
		})
	}
}

func TestCheckGround(t *testing.T) {
	src := &Source{URL: "https://a.example/x", Status: 200, Text: "Water boils at 100 degrees Celsius at sea level."}
	tests := []struct {
		name, content, want string
		src                 *Source
	}{
		{"verified", `As the page says, "water boils at 100 degrees Celsius at sea level".`, Verified, src},
		{"not found", `"Water freezes at 40 degrees on the moon"`, NotFound, src},
		{"unreachable", "anything", Unreachable, &Source{URL: "https://b.example", Error: "refused"}},
		{"never read", "anything", Unreachable, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if c := CheckGround(tt.content, tt.src); c.Result != tt.want {
				t.Errorf("check = %+v, want %s", c, tt.want)
			}
		})
	}
}

func TestSourceRoundTrip(t *testing.T) {
	s := Source{URL: "https://a.example/x?y=1", Fetched: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC), Status: 200, Text: "Line one.\n\nLine two."}
	data, err := s.Render()
	if err != nil {
		t.Fatal(err)
	}
	got, err := Parse(data)
	if err != nil {
		t.Fatal(err)
	}
	if got != s {
		t.Errorf("round trip = %+v, want %+v", got, s)
	}
	if n := Name(s.URL); !strings.HasPrefix(n, "sources/") || len(n) != len("sources/")+16+3 {
		t.Errorf("name = %q", n)
	}
	if u := URLOf("Smith (2020), https://a.example/x?y=1."); u != "https://a.example/x?y=1" {
		t.Errorf("URLOf = %q", u)
	}
}

func TestCheckText(t *testing.T) {
	pages := map[string]*Source{
		"https://a.example/1": {URL: "https://a.example/1", Status: 200, Text: "Water boils at 100 degrees Celsius at sea level."},
		"https://b.example/2": {URL: "https://b.example/2", Status: 200, Text: "Kettles are popular."},
	}
	page := func(u string) *Source { return pages[u] }
	text := "As https://a.example/1 says, \"water boils at 100 degrees Celsius at sea level\".\n\n" +
		"And (https://b.example/2) \"kettles were invented on the moon in 1850\".\n\n" +
		"\"A quote with no link at all here.\"\n\n" +
		"A link with no quote: https://a.example/1.\n\n" +
		"Dead link https://c.example/3 \"this page was never read at all\"."
	got := CheckText(text, page)
	want := []string{Verified, NotFound, Unreachable}
	if len(got) != len(want) {
		t.Fatalf("checks = %+v, want %v", got, want)
	}
	for i, c := range got {
		if c.Result != want[i] {
			t.Errorf("check %d = %+v, want %s", i, c, want[i])
		}
	}
	if got[0].Quote != "water boils at 100 degrees Celsius at sea level" || got[1].URL != "https://b.example/2" {
		t.Errorf("checks = %+v", got)
	}
	if u := Cited(text); len(u) != 3 {
		t.Errorf("cited = %v", u)
	}
}
