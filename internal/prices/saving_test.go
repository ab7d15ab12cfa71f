package prices

import (
	"math"
	"strings"
	"testing"
)

// TestBillSaving: a bill of calls that wrote to the cache and read from it
// says what the cache saved, against the same calls uncached; a bill of
// calls that wrote nothing says nothing of it.
func TestBillSaving(t *testing.T) {
	calls := []Call{
		{Role: "proposition", Model: "anthropic/claude-sonnet-4.5", Prompt: 10_000, Written: 8_000, Completion: 1_000},
		{Role: "proposition", Model: "anthropic/claude-sonnet-4.5", Prompt: 12_000, Cached: 8_000, Written: 2_000, Completion: 1_000},
	}
	b := Builtin().Bill(calls, nil)
	uncached := (22_000*3.0 + 2_000*15.0) / 1e6
	cost := (2_000*3.0 + 10_000*3.75 + 8_000*0.3 + 2_000*3.0 + 2_000*15.0) / 1e6
	if math.Abs(b.Total.USD-cost) > 1e-12 || math.Abs(b.Total.Saved-(uncached-cost)) > 1e-12 {
		t.Errorf("cost %v, saved %v; want %v, %v", b.Total.USD, b.Total.Saved, cost, uncached-cost)
	}
	md := b.Markdown(2)
	for _, want := range []string{"wrote 10000 of the prompt tokens", "The prompt cache saved \\" + USD(uncached-cost), "\\$3.75 a cache write"} {
		if !strings.Contains(md, want) {
			t.Errorf("the bill lacks %q:\n%s", want, md)
		}
	}
	// Written and never read, the cache costs more than it saves.
	lost := Builtin().Bill(calls[:1], nil).Total.Saving()
	if !strings.HasPrefix(lost, "the prompt cache cost $") {
		t.Errorf("Saving of a write never read = %q", lost)
	}
	plain := Builtin().Bill([]Call{{Role: "judge", Model: "gpt-4o", Prompt: 1000, Cached: 500, Completion: 10}}, nil).Markdown(2)
	if strings.Contains(plain, "prompt cache saved") || strings.Contains(plain, "wrote") {
		t.Errorf("a bill without cache writes speaks of them:\n%s", plain)
	}
}
