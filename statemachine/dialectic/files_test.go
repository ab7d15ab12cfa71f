package dialectic_test

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/moot-dev/moot/internal/frontmatter"
	"github.com/moot-dev/moot/internal/testkit/fixture"
	"github.com/moot-dev/moot/statemachine/dialectic"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// golden compares got with testdata/name, or rewrites it with -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	fixture.Golden(t, name, got, *update)
}

// trickyOpening is an opening argument whose text only looks dangerous:
// braces, a motion heading, quotes, emoji, HTML, multi-line ground content.
func trickyOpening() dialectic.Submission {
	return dialectic.Submission{
		Title: `The "Safe" Path }` + "\u00a0" + `Is 🐢 Slow`,
		Claim: "A claim with } and # Motion and \"quotes\" and <script>alert('x')</script> & 🎉 must stay text.",
		Grounds: []dialectic.Ground{
			{
				Source:    "Report\non two lines",
				Content:   "First line of the finding.\n\nSecond paragraph, after a blank line.\n# Motion\n}",
				Relevance: "It shows the point. <b>bold?</b>",
			},
			{Source: "Second source 📚", Content: "One line.", Relevance: "Backs the first."},
		},
		Warrant:   "When the finding holds, the claim follows.",
		Backing:   "Decades of practice, \"by the book\".",
		Qualifier: "In most cases",
	}
}

func rebuttal() dialectic.Submission {
	return dialectic.Submission{
		Title:   "Their Evidence Predates The Change",
		Claim:   "The opposition's data is from before the policy existed.",
		Grounds: []dialectic.Ground{{Source: "Agency statistics, 2023", Content: "Rates fell after 2021.", Relevance: "Postdates their source."}},
		Warrant: "Newer data about the same thing outweighs older data.",
		Attacks: []dialectic.Link{
			{TargetID: "prop_001", Type: "grounds_attack", Content: "Their numbers are stale."},
			{TargetID: "prop_000a", Type: "warrant_attack", Content: "The inference does not hold:\nthe trend reversed."},
		},
		Defends: []dialectic.Link{
			{TargetID: "opp_000b", Type: "concede_and_pivot", Content: "Granted the cost, the benefit is larger."},
		},
	}
}

func TestArgumentGolden(t *testing.T) {
	tests := []struct {
		file string
		arg  *dialectic.Argument
	}{
		{"prop_000a.md.golden", dialectic.NewArgument("prop_000a", dialectic.Prop, 0, trickyOpening())},
		{"opp_002.md.golden", dialectic.NewArgument("opp_002", dialectic.Opp, 2, rebuttal())},
	}
	for _, tc := range tests {
		t.Run(tc.file, func(t *testing.T) {
			data, err := tc.arg.Render()
			if err != nil {
				t.Fatal(err)
			}
			golden(t, tc.file, data)
		})
	}
}

// TestArgumentRoundTrip checks that what moot writes it reads back exactly.
func TestArgumentRoundTrip(t *testing.T) {
	for _, a := range []*dialectic.Argument{
		dialectic.NewArgument("prop_000a", dialectic.Prop, 0, trickyOpening()),
		dialectic.NewArgument("opp_002", dialectic.Opp, 2, rebuttal()),
		dialectic.NewArgument("prop_1000", dialectic.Prop, 1000, dialectic.Submission{Title: "t", Claim: "}", Grounds: []dialectic.Ground{{Source: "s", Content: "c", Relevance: "r"}}, Warrant: "w"}),
	} {
		t.Run(a.ID, func(t *testing.T) {
			data, err := a.Render()
			if err != nil {
				t.Fatal(err)
			}
			back, err := dialectic.ParseArgument(data)
			if err != nil {
				t.Fatalf("ParseArgument(Render): %v\n%s", err, data)
			}
			if back.ID != a.ID || back.Side != a.Side || back.Exchange != a.Exchange {
				t.Errorf("identity %s %s %d, want %s %s %d", back.ID, back.Side, back.Exchange, a.ID, a.Side, a.Exchange)
			}
			if back.Title != a.Title || back.Claim != a.Claim {
				t.Errorf("title/claim %q / %q, want %q / %q", back.Title, back.Claim, a.Title, a.Claim)
			}
			if !reflect.DeepEqual(back.Attacks, a.Attacks) || !reflect.DeepEqual(back.Defends, a.Defends) {
				t.Errorf("targets %+v %+v, want %+v %+v", back.Attacks, back.Defends, a.Attacks, a.Defends)
			}
			if back.Body != a.Body+"\n" && back.Body != a.Body {
				t.Errorf("body changed:\n%q\n%q", back.Body, a.Body)
			}
			if !reflect.DeepEqual(back.Targets(), a.Targets()) {
				t.Errorf("Targets %v, want %v", back.Targets(), a.Targets())
			}
			again, err := back.Render()
			if err != nil || !bytes.Equal(again, data) {
				t.Errorf("second render differs:\n%s\n%s", data, again)
			}
		})
	}
}

// TestArgumentFrontmatterShape checks the frontmatter keys and their order,
// which the original tool reads.
func TestArgumentFrontmatterShape(t *testing.T) {
	data, err := dialectic.NewArgument("opp_002", dialectic.Opp, 2, rebuttal()).Render()
	if err != nil {
		t.Fatal(err)
	}
	front, _, err := frontmatter.Parse(data)
	if err != nil {
		t.Fatal(err)
	}
	var ks []string
	for _, f := range front.Fields {
		ks = append(ks, f.Key)
	}
	if got := strings.Join(ks, " "); got != "id side exchange title claim attacks defends" {
		t.Errorf("keys %q", got)
	}
	var attacks []map[string]any
	if err := front.Decode("attacks", &attacks); err != nil {
		t.Fatal(err)
	}
	if len(attacks) != 2 || len(attacks[0]) != 2 || attacks[0]["target_id"] != "prop_001" || attacks[0]["type"] != "grounds_attack" {
		t.Errorf("attacks %v", attacks)
	}
	// An opening argument has empty lists, not null.
	data, _ = dialectic.NewArgument("prop_000a", dialectic.Prop, 0, trickyOpening()).Render()
	if !bytes.Contains(data, []byte(`"attacks": [],`)) || !bytes.Contains(data, []byte(`"defends": []`)) {
		t.Errorf("empty lists not written as []:\n%s", data)
	}
}

func TestParseArgumentErrors(t *testing.T) {
	good, _ := dialectic.NewArgument("prop_001", dialectic.Prop, 1, rebuttal()).Render()
	edit := func(key string, raw string) []byte {
		front, body, err := frontmatter.Parse(good)
		if err != nil {
			t.Fatal(err)
		}
		if raw == "" {
			var kept []frontmatter.Field
			for _, f := range front.Fields {
				if f.Key != key {
					kept = append(kept, f)
				}
			}
			front.Fields = kept
		} else {
			front.Set(key, json.RawMessage(raw))
		}
		out, err := frontmatter.Render(front, body)
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	tests := []struct {
		name string
		data []byte
		err  string
	}{
		{"no frontmatter", []byte("## Claim\n\nx\n"), "no JSON frontmatter"},
		{"id missing", edit("id", ""), `"id" is missing`},
		{"title missing", edit("title", ""), `"title" is missing`},
		{"exchange a string", edit("exchange", `"1"`), `field "exchange"`},
		{"side unknown", edit("side", `"proposition"`), `field "side": "proposition" is not "prop" or "opp"`},
		{"attacks not a list", edit("attacks", `{"target_id": "opp_000a"}`), `field "attacks"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := dialectic.ParseArgument(tc.data)
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("error %v, want %q", err, tc.err)
			}
		})
	}
	// attacks and defends may be absent.
	if a, err := dialectic.ParseArgument(edit("defends", "")); err != nil || len(a.Defends) != 0 {
		t.Errorf("without defends: %v", err)
	}
}

func TestNewHeaderGolden(t *testing.T) {
	h := dialectic.NewHeader("ai-pause", dialectic.Motion{
		Text: "This house would pause frontier AI development.",
		Definitions: []dialectic.Definition{
			{Term: "Frontier AI", Meaning: "the most capable general models"},
			{Term: "Pause", Meaning: "a halt of training runs,\nnot of research"},
		},
		Scope: "Labs and states; not academic safety work.",
	})
	data, err := h.Render()
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "debate.md.golden", data)

	back, err := dialectic.ParseHeader(data)
	if err != nil {
		t.Fatal(err)
	}
	if back.ID != "ai-pause" || back.State != (dialectic.State{Exchange: 0, Phase: dialectic.AwaitingArguments}) || back.Totals != (dialectic.Totals{}) {
		t.Errorf("header %+v", back)
	}
	if back.Motion.Text != h.Motion.Text || back.Motion.Scope != h.Motion.Scope || len(back.Motion.Definitions) != 2 {
		t.Errorf("motion %+v", back.Motion)
	}
	if d := back.Motion.Definitions[1]; d.Term != "Pause" || d.Meaning != "a halt of training runs, not of research" {
		t.Errorf("definition %+v", d)
	}
}

// TestHeaderRenderKeepsUnknownKeys rewrites a debate.md that has keys moot
// does not know, one between the known keys and one after them.
func TestHeaderRenderKeepsUnknownKeys(t *testing.T) {
	in, err := os.ReadFile(filepath.Join("testdata", "header-extra-keys.md"))
	if err != nil {
		t.Fatal(err)
	}
	h, err := dialectic.ParseHeader(in)
	if err != nil {
		t.Fatal(err)
	}
	if h.State != (dialectic.State{Exchange: 2, Phase: dialectic.AwaitingJudgment}) {
		t.Fatalf("state %+v", h.State)
	}
	raw, ok := h.Setting("moot_models")
	if !ok || !strings.Contains(string(raw), "judge") {
		t.Fatalf("Setting(moot_models) = %s, %v", raw, ok)
	}
	h.State = h.State.Next()
	h.Totals = dialectic.Totals{Proposition: dialectic.Total{Total: 0.35, Count: 8}, Opposition: dialectic.Total{Total: -0.35, Count: 8}}
	out, err := h.Render()
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "header-extra-keys.md.golden", out)

	front, body, err := frontmatter.Parse(out)
	if err != nil {
		t.Fatal(err)
	}
	var ks []string
	for _, f := range front.Fields {
		ks = append(ks, f.Key)
	}
	if got := strings.Join(ks, " "); got != "debate_id current_exchange moot_models current_phase cumulative_scores protocol" {
		t.Errorf("key order %q", got)
	}
	// The unknown values are untouched; the body is kept byte for byte.
	inFront, inBody, _ := frontmatter.Parse(in)
	for _, k := range []string{"moot_models", "protocol"} {
		a, _ := inFront.Get(k)
		b, _ := front.Get(k)
		var ca, cb bytes.Buffer
		json.Compact(&ca, a)
		json.Compact(&cb, b)
		if ca.String() != cb.String() {
			t.Errorf("%s changed: %s -> %s", k, ca.String(), cb.String())
		}
	}
	if body != inBody {
		t.Errorf("body changed:\n%q\n%q", inBody, body)
	}
	back, err := dialectic.ParseHeader(out)
	if err != nil || back.State != (dialectic.State{Exchange: 3, Phase: dialectic.AwaitingArguments}) || back.Totals != h.Totals {
		t.Errorf("reparsed %+v, %v", back, err)
	}

	// A setting added later goes after the known keys, and in place on update.
	if err := h.SetSetting("protocol", "v2"); err != nil {
		t.Fatal(err)
	}
	if err := h.SetSetting("added", 1); err != nil {
		t.Fatal(err)
	}
	out, _ = h.Render()
	front, _, _ = frontmatter.Parse(out)
	ks = ks[:0]
	for _, f := range front.Fields {
		ks = append(ks, f.Key)
	}
	if got := strings.Join(ks, " "); got != "debate_id current_exchange moot_models current_phase cumulative_scores protocol added" {
		t.Errorf("key order after SetSetting %q", got)
	}
}

func TestParseHeaderErrors(t *testing.T) {
	base := "{\n  \"debate_id\": \"d\",\n  \"current_exchange\": 1,\n  \"current_phase\": \"awaiting_arguments\",\n  \"cumulative_scores\": {\"proposition\": {\"total\": 0, \"count\": 0}, \"opposition\": {\"total\": 0, \"count\": 0}}\n}\n\n# Motion\n\nThis house would test.\n"
	if _, err := dialectic.ParseHeader([]byte(base)); err != nil {
		t.Fatalf("base fixture: %v", err)
	}
	tests := []struct {
		name, old, new, err string
	}{
		{"debate_id missing", `"debate_id": "d",`, ``, `"debate_id" is missing`},
		{"exchange negative", `"current_exchange": 1`, `"current_exchange": -1`, `field "current_exchange"`},
		{"exchange fractional", `"current_exchange": 1`, `"current_exchange": 1.5`, `"current_exchange"`},
		{"exchange huge", `"current_exchange": 1`, `"current_exchange": 1e9`, `"current_exchange"`},
		{"phase unknown", `"awaiting_arguments"`, `"finished"`, `field "current_phase"`},
		{"phase missing", `"current_phase": "awaiting_arguments",`, ``, `"current_phase" is missing`},
		{"totals missing", ",\n  \"cumulative_scores\": {\"proposition\": {\"total\": 0, \"count\": 0}, \"opposition\": {\"total\": 0, \"count\": 0}}", ``, `"cumulative_scores" is missing`},
		{"totals wrong type", `{"total": 0, "count": 0}, "opposition"`, `{"total": "0", "count": 0}, "opposition"`, `field "cumulative_scores"`},
		{"no motion", "# Motion\n\nThis house would test.\n", "Just text.\n", "no motion"},
		{"empty motion", "This house would test.\n", "", "no motion"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			in := strings.Replace(base, tc.old, tc.new, 1)
			if in == base {
				t.Fatalf("fixture edit %q did not apply", tc.old)
			}
			_, err := dialectic.ParseHeader([]byte(in))
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("error %v, want %q", err, tc.err)
			}
		})
	}
}

func TestParseMotion(t *testing.T) {
	tests := []struct {
		name string
		body string
		want dialectic.Motion
	}{
		{
			name: "motion only",
			body: "# Motion\n\nThis house would pause AI.\n",
			want: dialectic.Motion{Text: "This house would pause AI."},
		},
		{
			name: "motion with markdown kept as written",
			body: "# Motion\n\nThis house would *pause* `AGI` [now](https://example.org).\n",
			want: dialectic.Motion{Text: "This house would *pause* `AGI` [now](https://example.org)."},
		},
		{
			name: "motion spanning two paragraphs",
			body: "# Motion\n\nThis house would pause AI\nuntil it is safe.\n\nThe pause is global.\n\n## Scope\n\nEverything.\n",
			want: dialectic.Motion{Text: "This house would pause AI\nuntil it is safe.\n\nThe pause is global.", Scope: "Everything."},
		},
		{
			name: "definitions and scope, loose list",
			body: "# Motion\n\nThis house would pause AGI.\n\n## Definitions\n\n- **Artificial General Intelligence (AGI)**: systems that can do any task\n\n- **Robust safety frameworks**: checks that hold\n\n## Scope\n\nFrontier labs only.\nNot academia.\n",
			want: dialectic.Motion{
				Text: "This house would pause AGI.",
				Definitions: []dialectic.Definition{
					{Term: "Artificial General Intelligence (AGI)", Meaning: "systems that can do any task"},
					{Term: "Robust safety frameworks", Meaning: "checks that hold"},
				},
				Scope: "Frontier labs only.\nNot academia.",
			},
		},
		{
			name: "colon inside the bold",
			body: "# Motion\n\nM.\n\n## Definitions\n\n- **Term:** its meaning\n- **Other:**  two spaces: and a colon\n",
			want: dialectic.Motion{Text: "M.", Definitions: []dialectic.Definition{{Term: "Term", Meaning: "its meaning"}, {Term: "Other", Meaning: "two spaces: and a colon"}}},
		},
		{
			name: "emphasis inside the term",
			body: "# Motion\n\nM.\n\n## Definitions\n\n- **A *b* c**: d: e\n- **x *y***: z\n",
			want: dialectic.Motion{Text: "M.", Definitions: []dialectic.Definition{{Term: "A *b* c", Meaning: "d: e"}, {Term: "x *y*", Meaning: "z"}}},
		},
		{
			name: "definition without bold term",
			body: "# Motion\n\nM.\n\n## Definitions\n\n* plain words only\n",
			want: dialectic.Motion{Text: "M.", Definitions: []dialectic.Definition{{Meaning: "plain words only"}}},
		},
		{
			name: "scope without definitions",
			body: "# Motion\n\nM.\n\n## Scope\n\nOnly **this**.\n",
			want: dialectic.Motion{Text: "M.", Scope: "Only **this**."},
		},
		{
			name: "other sections ignored",
			body: "Preamble.\n\n# Motion\n\nM.\n\n## Notes\n\nIgnore me.\n\n## Scope\n\nS.\n",
			want: dialectic.Motion{Text: "M.", Scope: "S."},
		},
		{
			name: "headings in any case",
			body: "# MOTION\n\nM.\n\n## definitions\n\n- **a**: b\n",
			want: dialectic.Motion{Text: "M.", Definitions: []dialectic.Definition{{Term: "a", Meaning: "b"}}},
		},
		{
			name: "no motion heading",
			body: "This house would pause AI.\n",
			want: dialectic.Motion{},
		},
		{
			name: "a motion that looks like a heading stays text",
			body: "# Motion\n\nThis house would ban `# Motion` lines } {.\n",
			want: dialectic.Motion{Text: "This house would ban `# Motion` lines } {."},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := dialectic.ParseMotion(tc.body)
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("ParseMotion =\n%#v\nwant\n%#v", got, tc.want)
			}
		})
	}
}

func TestRenderMotionRoundTrip(t *testing.T) {
	for _, m := range []dialectic.Motion{
		{Text: "This house would test."},
		{Text: "Two\n\nparagraphs.", Scope: "All of it."},
		{Text: "M.", Definitions: []dialectic.Definition{{Term: "A *b*", Meaning: "c: d"}, {Term: "é 🎉", Meaning: "<tag> & more"}}},
	} {
		got := dialectic.ParseMotion(dialectic.RenderMotion(m))
		if !reflect.DeepEqual(got, m) {
			t.Errorf("ParseMotion(RenderMotion(%#v)) = %#v", m, got)
		}
	}
}
