package prices

import (
	"cmp"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/moot-dev/moot/internal/escape"
)

// Call is one model call as the bill sees it: a line of the usage log.
type Call struct {
	Role string
	// Model is the model that answered, as the server named it, and
	// Asked the model asked when that was another name ("" otherwise).
	Model, Asked string
	// Prompt counts the prompt tokens, Cached those of them read from
	// the server's cache, Written those written to it, Completion the
	// answer's.
	Prompt, Cached, Written, Completion int
}

// name is the model a call is known by to people: the one asked.
func (c Call) name() string { return cmp.Or(c.Asked, c.Model) }

// Tally is the tokens and the cost of some calls.
type Tally struct {
	// Role is the role of the calls; "" for a total.
	Role                                string
	Calls                               int
	Prompt, Cached, Written, Completion int
	// USD is the cost of those of the calls whose model has a price.
	USD float64
	// Saved is what the server's prompt cache saved of those calls: what
	// they would have cost had it read and written nothing, less USD. A
	// cache written and never read saves less than nothing.
	Saved float64
	// Unknown lists, sorted, the models of the calls that have none.
	Unknown []string
}

// Known reports whether every call of t has a price, so that USD is the
// cost of them all.
func (t Tally) Known() bool { return len(t.Unknown) == 0 }

// Tokens is the prompt and completion tokens of t.
func (t Tally) Tokens() int { return t.Prompt + t.Completion }

func (t *Tally) add(c Call, usd, uncached float64, priced bool) {
	t.Calls++
	t.Prompt += c.Prompt
	t.Cached += c.Cached
	t.Written += c.Written
	t.Completion += c.Completion
	if priced {
		t.USD += usd
		t.Saved += uncached - usd
	} else if !slices.Contains(t.Unknown, c.name()) {
		t.Unknown = append(t.Unknown, c.name())
		sort.Strings(t.Unknown)
	}
}

// Bill is the cost of a debate's calls, by role and in all.
type Bill struct {
	// Roles has a tally per role that made calls.
	Roles []Tally
	Total Tally
	// Priced lists the rows the calls were priced by, sorted by name.
	Priced []Row
}

// Price returns the price of call c: its answering model's, else, when
// that has none (a dated version of the model asked, say), the asked
// model's. row names the table's row.
func (t Table) Price(c Call) (p Price, row string, ok bool) {
	if p, row, ok := t.Lookup(c.Model); ok {
		return p, row, true
	}
	if c.Asked != "" {
		return t.Lookup(c.Asked)
	}
	return Price{}, "", false
}

// Bill tallies calls at the prices of t, by role: the roles named in
// order first, in that order, then any others by name.
func (t Table) Bill(calls []Call, order []string) Bill {
	var b Bill
	byRole := map[string]*Tally{}
	used := map[string]Price{}
	for _, c := range calls {
		p, row, ok := t.Price(c)
		usd, uncached := 0.0, 0.0
		if ok {
			usd = p.CostWritten(c.Prompt, c.Cached, c.Written, c.Completion)
			uncached = p.Cost(c.Prompt, 0, c.Completion)
			used[row] = p
		}
		tl := byRole[c.Role]
		if tl == nil {
			tl = &Tally{Role: c.Role}
			byRole[c.Role] = tl
		}
		tl.add(c, usd, uncached, ok)
		b.Total.add(c, usd, uncached, ok)
	}
	rank := func(role string) int {
		if i := slices.Index(order, role); i >= 0 {
			return i
		}
		return len(order)
	}
	for _, tl := range byRole {
		b.Roles = append(b.Roles, *tl)
	}
	sort.Slice(b.Roles, func(i, j int) bool {
		ri, rj := rank(b.Roles[i].Role), rank(b.Roles[j].Role)
		if ri != rj {
			return ri < rj
		}
		return b.Roles[i].Role < b.Roles[j].Role
	})
	for row, p := range used {
		b.Priced = append(b.Priced, Row{Model: row, Price: p})
	}
	sort.Slice(b.Priced, func(i, j int) bool { return b.Priced[i].Model < b.Priced[j].Model })
	return b
}

// Cost says what t cost: "$0.0123", "unknown (no price for m)", or for
// calls of which only some have a price "$0.0123 and unknown (no price
// for m)".
func (t Tally) Cost() string {
	switch {
	case t.Calls == 0:
		return USD(0)
	case t.Known():
		return USD(t.USD)
	case t.USD > 0:
		return fmt.Sprintf("%s and unknown (no price for %s)", USD(t.USD), strings.Join(t.Unknown, ", "))
	}
	return fmt.Sprintf("unknown (no price for %s)", strings.Join(t.Unknown, ", "))
}

// Saving says what the prompt cache saved, for calls that read from it
// or wrote to it and have a price: "the prompt cache saved $1.23 (21% of
// the $5.90 the prompts would have cost without it)"; "" otherwise.
func (t Tally) Saving() string {
	if (t.Cached == 0 && t.Written == 0) || t.USD+t.Saved <= 0 {
		return ""
	}
	verb := "saved"
	saved := t.Saved
	if saved < 0 {
		verb, saved = "cost", -saved
	}
	return fmt.Sprintf("the prompt cache %s %s (%.0f%% of the %s the calls would have cost without it)",
		verb, USD(saved), 100*saved/(t.USD+t.Saved), USD(t.USD+t.Saved))
}

// Describe says where a price came from: "published 2025-06-03 at URL",
// or the file it was read from.
func (p Price) Describe() string {
	if p.Date == "" {
		return "from " + p.Source
	}
	return fmt.Sprintf("published %s at %s", p.Date, p.Source)
}

// Markdown writes b as a section of a report, with a heading of the given
// level: a table of tokens and cost by role and in all, the prices used
// and where each came from, and the models that have none.
func (b Bill) Markdown(level int) string {
	var w strings.Builder
	fmt.Fprintf(&w, "%s Cost\n\n", strings.Repeat("#", level))
	w.WriteString("| role | calls | prompt tokens | cached | completion tokens | estimated cost |\n")
	w.WriteString("|---|---:|---:|---:|---:|---:|\n")
	cell := func(t Tally) string {
		switch {
		case t.Known():
			return escape.Markdown(USD(t.USD))
		case t.USD > 0:
			return escape.Markdown(USD(t.USD)) + " + unknown"
		}
		return "unknown"
	}
	for _, t := range b.Roles {
		fmt.Fprintf(&w, "| %s | %d | %d | %d | %d | %s |\n", escape.Markdown(t.Role), t.Calls, t.Prompt, t.Cached, t.Completion, cell(t))
	}
	t := b.Total
	fmt.Fprintf(&w, "| **total** | **%d** | **%d** | **%d** | **%d** | **%s** |\n\n", t.Calls, t.Prompt, t.Cached, t.Completion, cell(t))
	w.WriteString("Tokens as the model servers reported them in the usage log (`.moot/usage.jsonl`); *cached* is the part of " +
		"the prompt tokens a server read from its prompt cache, where it says so. ")
	if t.Written > 0 {
		// Only a marked prompt is written to a cache that bills writes
		// (--cache-marks); the saving is told of with it.
		fmt.Fprintf(&w, "The servers wrote %d of the prompt tokens to their caches. ", t.Written)
		if s := t.Saving(); s != "" {
			w.WriteString(escape.Markdown(strings.ToUpper(s[:1])+s[1:]) + ". ")
		}
	}
	if len(b.Priced) > 0 {
		w.WriteString("The cost is estimated at the prices below, in US dollars per million tokens: " +
			"moot cannot check them, so check them before relying on the figures " +
			"(a prices file, `--prices FILE` or `MOOT_PRICES`, replaces them).\n\n")
		for _, r := range b.Priced {
			cached := escape.Markdown(PerMillion(r.Cached)) + " cached"
			if r.NoCachedPrice {
				cached = "no cached price (a cached token counts as input)"
			}
			if r.CacheWrite != r.Input {
				cached += ", " + escape.Markdown(PerMillion(r.CacheWrite)) + " a cache write"
			}
			fmt.Fprintf(&w, "- %s: %s input, %s, %s output, %s.\n", escape.Markdown(r.Model),
				escape.Markdown(PerMillion(r.Input)), cached, escape.Markdown(PerMillion(r.Output)), escape.Markdown(r.Describe()))
		}
	} else {
		w.WriteString("\n")
	}
	if !t.Known() {
		if len(b.Priced) > 0 {
			w.WriteString("\n")
		}
		names := make([]string, len(t.Unknown))
		for i, m := range t.Unknown {
			names[i] = escape.Markdown(m)
		}
		fmt.Fprintf(&w, "No price is known for %s, so the cost of %s calls is unknown: moot never guesses one. "+
			"A prices file (`--prices FILE` or `MOOT_PRICES`) can give it.\n", strings.Join(names, ", "), pronoun(len(names)))
	}
	return w.String()
}

func pronoun(n int) string {
	if n == 1 {
		return "its"
	}
	return "their"
}

// From says where the prices of b came from, for a cost line: "moot's
// table of published prices (2025-06-03 to 2026-11-23), which moot cannot
// check", "the prices in my-prices.json", or both joined by "and". It is
// "" when no call was priced.
func (b Bill) From() string {
	var dates, files []string
	for _, r := range b.Priced {
		switch {
		case r.Date != "":
			dates = append(dates, r.Date)
		case r.Source != "" && r.Cost(1, 0, 1) > 0:
			// A row of a prices file: no date, its file as source. The
			// built-in model's row, which costs nothing, is no source.
			if !slices.Contains(files, r.Source) {
				files = append(files, r.Source)
			}
		}
	}
	var parts []string
	if len(dates) > 0 {
		slices.Sort(dates)
		when := dates[0]
		if last := dates[len(dates)-1]; last != when {
			when += " to " + last
		}
		parts = append(parts, "moot's table of published prices ("+when+"), which moot cannot check")
	}
	if len(files) > 0 {
		sort.Strings(files)
		parts = append(parts, "the prices in "+strings.Join(files, ", "))
	}
	return strings.Join(parts, " and ")
}
