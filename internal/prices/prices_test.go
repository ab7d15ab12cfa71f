package prices

import (
	"math"
	"strings"
	"testing"
)

func TestLookupRules(t *testing.T) {
	tab := Builtin()
	tests := []struct {
		id      string
		wantRow string
	}{
		{"gpt-4o", "gpt-4o"},
		{"  GPT-4o ", "gpt-4o"},
		{"openai/gpt-4o", "gpt-4o"},
		{"openai/gpt-4o-mini", "gpt-4o-mini"},
		{"anthropic/claude-sonnet-4", "anthropic/claude-sonnet-4"},
		{"gpt-4o-2024-08-06", "gpt-4o-2024-08-06"},
		// Never guessed: other prefixes, other dated versions, near names.
		{"azure/gpt-4o", ""},
		{"anthropic/gpt-4o", ""},
		{"gpt-4o-2024-05-13", ""},
		{"gpt-4o-latest", ""},
		{"claude-sonnet-4", ""},
		{"llama3.1:8b", ""},
		{"meta-llama/llama-3.3-70b-instruct", ""},
		{"/gpt-4o", ""},
		{"", ""},
	}
	for _, tt := range tests {
		t.Run(tt.id, func(t *testing.T) {
			_, row, ok := tab.Lookup(tt.id)
			if ok != (tt.wantRow != "") || row != tt.wantRow {
				t.Errorf("Lookup(%q) = row %q, %v; want %q", tt.id, row, ok, tt.wantRow)
			}
		})
	}
}

func TestEveryBuiltinRowIsDatedAndSourced(t *testing.T) {
	for _, r := range Builtin().Rows() {
		if r.Date == "" || !strings.HasPrefix(r.Source, "https://") {
			t.Errorf("%s: date %q, source %q; want both", r.Model, r.Date, r.Source)
		}
		if r.Input <= 0 || r.Cached > r.Input || r.Output < 0 {
			t.Errorf("%s: %+v is not a price", r.Model, r.Price)
		}
		if r.Model != key(r.Model) {
			t.Errorf("%s: a row's name is its key", r.Model)
		}
	}
}

func TestCost(t *testing.T) {
	p := Price{Input: 2.5, Cached: 1.25, Output: 10}
	tests := []struct {
		name                       string
		prompt, cached, completion int
		want                       float64
	}{
		{"none cached", 1_000_000, 0, 0, 2.5},
		{"all cached", 1_000_000, 1_000_000, 0, 1.25},
		{"mixed", 2000, 1000, 500, (1000*2.5 + 1000*1.25 + 500*10) / 1e6},
		{"cached beyond the prompt", 100, 500, 0, 100 * 1.25 / 1e6},
		{"negative", -5, -5, -5, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := p.Cost(tt.prompt, tt.cached, tt.completion); math.Abs(got-tt.want) > 1e-12 {
				t.Errorf("Cost = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestCostWritten(t *testing.T) {
	// Anthropic's Sonnet: a read at 0.1 of the input price, a write at 1.25.
	p := Price{Input: 3, Cached: 0.3, CacheWrite: 3.75, Output: 15}
	tests := []struct {
		name                                string
		prompt, cached, written, completion int
		want                                float64
	}{
		{"nothing cached", 1000, 0, 0, 100, (1000*3 + 100*15) / 1e6},
		{"read, written and new", 1000, 600, 300, 100, (100*3 + 600*0.3 + 300*3.75 + 100*15) / 1e6},
		{"written beyond the prompt left", 1000, 600, 900, 0, (600*0.3 + 400*3.75) / 1e6},
		{"negative writes are none", 1000, 0, -5, 0, 1000 * 3 / 1e6},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := p.CostWritten(tt.prompt, tt.cached, tt.written, tt.completion); math.Abs(got-tt.want) > 1e-12 {
				t.Errorf("CostWritten = %v, want %v", got, tt.want)
			}
		})
	}
	if got, want := Builtin().rows["anthropic/claude-sonnet-4.5"].CacheWrite, 3.75; got != want {
		t.Errorf("Sonnet 4.5's cache write costs %v, want %v (1.25 of its input price)", got, want)
	}
}

func TestParse(t *testing.T) {
	tests := []struct {
		name    string
		data    string
		want    map[string]Price
		wantErr string
	}{
		{"json", `{"gpt-4o": {"input": 3, "cached": 1, "output": 12}, "My-Model": {"input": 0.2, "output": 0.8}}`,
			map[string]Price{"gpt-4o": {Input: 3, Cached: 1, CacheWrite: 3, Output: 12, Source: "f"}, "my-model": {Input: 0.2, Cached: 0.2, NoCachedPrice: true, CacheWrite: 0.2, Output: 0.8, Source: "f"}}, ""},
		{"yaml", "gpt-4o:\n  input: 3\n  cached: 1\n  output: 12\nllama3.1:8b:\n  input: 0\n  output: 0\n",
			map[string]Price{"gpt-4o": {Input: 3, Cached: 1, CacheWrite: 3, Output: 12, Source: "f"}, "llama3.1:8b": {NoCachedPrice: true, Source: "f"}}, ""},
		{"cache writes", "claude:\n  input: 3\n  cached: 0.3\n  cache_write: 3.75\n  output: 15\n",
			map[string]Price{"claude": {Input: 3, Cached: 0.3, CacheWrite: 3.75, Output: 15, Source: "f"}}, ""},
		{"no output", `{"m": {"input": 1}}`, nil, `model "m" has no output price`},
		{"negative", "m: {input: -1, output: 1}", nil, "not a price of 0 or more"},
		{"unknown field", `{"m": {"inptu": 1, "output": 1}}`, nil, "inptu"},
		{"unknown yaml field", "m:\n  inptu: 1\n  output: 1\n", nil, "inptu"},
		{"empty", "  \n", nil, "no prices"},
		{"not a map", "[1, 2]", nil, "f:"},
		{"twice", `{"M": {"input": 1, "output": 1}, "m": {"input": 2, "output": 2}}`, nil, "given twice"},
		{"trailing", `{"m": {"input": 1, "output": 1}} {}`, nil, "more after"},
		{"a key written twice", `{"m": {"input": 1, "output": 1, "output": 0}}`, nil, `field "output" appears twice in m`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Parse([]byte(tt.data), "f")
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("Parse = %v, %v; want an error with %q", got, err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(tt.want) {
				t.Fatalf("Parse = %+v, want %+v", got, tt.want)
			}
			for k, p := range tt.want {
				if got[k] != p {
					t.Errorf("%s = %+v, want %+v", k, got[k], p)
				}
			}
		})
	}
}

func TestFileRowsWin(t *testing.T) {
	file, err := Parse([]byte(`{"gpt-4o": {"input": 5, "cached": 2, "output": 20}, "llama3.1:8b": {"input": 0, "output": 0}}`), "mine.json")
	if err != nil {
		t.Fatal(err)
	}
	tab := Builtin().With(file)
	for _, id := range []string{"gpt-4o", "openai/gpt-4o"} {
		p, _, ok := tab.Lookup(id)
		if !ok || p.Input != 5 || p.Source != "mine.json" || p.Date != "" {
			t.Errorf("%s = %+v, %v; want the file's price", id, p, ok)
		}
	}
	if p, _, ok := tab.Lookup("llama3.1:8b"); !ok || p.Cost(1000, 0, 1000) != 0 {
		t.Errorf("llama3.1:8b = %+v, %v; want the file's free row", p, ok)
	}
	if p, _, ok := Builtin().Lookup("gpt-4o"); !ok || p.Input != 2.5 {
		t.Errorf("the built-in table changed: %+v", p)
	}
}

func TestBill(t *testing.T) {
	calls := []Call{
		{Role: "judge", Model: "gpt-4o-2024-08-06", Asked: "gpt-4o", Prompt: 1000, Cached: 500, Completion: 100},
		{Role: "proposition", Model: "gpt-4o-mini", Prompt: 2000, Completion: 300},
		{Role: "opposition", Model: "llama3", Prompt: 2000, Completion: 300},
		{Role: "opposition", Model: "llama3", Prompt: 10, Completion: 3},
		// A dated answer without a row of its own is priced as asked.
		{Role: "judge", Model: "gpt-4o-2099-01-01", Asked: "gpt-4o", Prompt: 1000, Completion: 100},
		{Role: "extra", Model: "gpt-4o", Prompt: 1, Completion: 1},
	}
	b := Builtin().Bill(calls, []string{"proposition", "opposition", "judge"})
	var roles []string
	for _, r := range b.Roles {
		roles = append(roles, r.Role)
	}
	if strings.Join(roles, ",") != "proposition,opposition,judge,extra" {
		t.Errorf("roles %v, want the order given, then the others", roles)
	}
	judge := b.Roles[2]
	want := (500*2.5+500*1.25+100*10)/1e6 + (1000*2.5+100*10)/1e6
	if judge.Calls != 2 || judge.Cached != 500 || math.Abs(judge.USD-want) > 1e-12 || !judge.Known() {
		t.Errorf("judge = %+v, want 2 calls, 500 cached, $%v", judge, want)
	}
	opp := b.Roles[1]
	if opp.Known() || opp.USD != 0 || strings.Join(opp.Unknown, ",") != "llama3" || opp.Cost() != "unknown (no price for llama3)" {
		t.Errorf("opposition = %+v (%s), want unknown for llama3", opp, opp.Cost())
	}
	if b.Total.Known() || b.Total.Calls != 6 || b.Total.Cached != 500 || !strings.Contains(b.Total.Cost(), " and unknown (no price for llama3)") {
		t.Errorf("total = %+v (%s), want a partial cost", b.Total, b.Total.Cost())
	}
	var priced []string
	for _, r := range b.Priced {
		priced = append(priced, r.Model)
	}
	if strings.Join(priced, ",") != "gpt-4o,gpt-4o-2024-08-06,gpt-4o-mini" {
		t.Errorf("priced %v", priced)
	}
	md := b.Markdown(2)
	for _, s := range []string{"## Cost\n", "| judge | 2 | 2000 | 500 | 200 | \\$0.0064 |", "| opposition | 2 | 2010 | 0 | 303 | unknown |",
		"| **total** | **6** |", "+ unknown** |", "- gpt-4o-mini: \\$0.15 input, \\$0.075 cached, \\$0.60 output, published 2026-05-27 at https://openai.com/api/pricing.",
		"No price is known for llama3, so the cost of its calls is unknown", "check them before relying on the figures"} {
		if !strings.Contains(md, s) {
			t.Errorf("markdown lacks %q:\n%s", s, md)
		}
	}
}

func TestFormats(t *testing.T) {
	for _, tt := range []struct {
		got, want string
	}{
		{USD(0), "$0.0000"}, {USD(0.01234), "$0.0123"}, {USD(1.234), "$1.23"}, {USD(12), "$12.00"},
		{PerMillion(2.5), "$2.50"}, {PerMillion(0.075), "$0.075"}, {PerMillion(0.025), "$0.025"}, {PerMillion(10), "$10.00"}, {PerMillion(0.275), "$0.275"},
	} {
		if tt.got != tt.want {
			t.Errorf("got %q, want %q", tt.got, tt.want)
		}
	}
	if EstimateTokens(0) != 0 || EstimateTokens(1) != 1 || EstimateTokens(8) != 2 || EstimateTokens(9) != 3 {
		t.Error("EstimateTokens is not a quarter of the bytes rounded up")
	}
}
