package cli

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"strings"

	ucli "github.com/urfave/cli/v3"

	"github.com/moot-dev/moot/internal/builtin"
	"github.com/moot-dev/moot/internal/driver"
	"github.com/moot-dev/moot/internal/english"
	"github.com/moot-dev/moot/internal/prices"
	"github.com/moot-dev/moot/internal/termwidth"
	"github.com/moot-dev/moot/store"
)

// This file is the bill of a debate: its tokens and what they cost, for
// status, the summary of a run and the report, and --budget.

// pricesFlag is --prices, of every command that shows a cost.
func pricesFlag() ucli.Flag {
	return &ucli.StringFlag{Name: "prices", Usage: "model prices from `FILE` (JSON or YAML: each model's input, cached and output USD per million tokens) over the built-in ones (default $MOOT_PRICES)"}
}

// priceTable returns the built-in prices with those of the file --prices
// names, else MOOT_PRICES, over them. A file that cannot be read or
// parsed is an error naming it (exit 1).
func (a *app) priceTable(cmd *ucli.Command) (prices.Table, error) {
	// moot's built-in model runs in the moot process: its calls cost
	// nothing, unless a prices file says otherwise.
	t := prices.Builtin().With(map[string]prices.Price{builtin.Name: {Source: "moot's built-in model, which runs in the moot process and costs nothing"}})
	path, from := "", "--prices"
	if cmd != nil {
		path = cmd.String("prices")
	}
	if path == "" {
		path, from = strings.TrimSpace(a.io.Getenv("MOOT_PRICES")), "MOOT_PRICES"
	}
	if cfg, err := a.config(); path == "" && err == nil && cfg.prices != "" {
		path, from = cfg.prices, cfg.path+"'s prices"
	}
	if path == "" {
		return t, nil
	}
	data, err := store.ReadInput(path, MaxFlagFileSize)
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return t, withCode(ExitError, fmt.Errorf("read %s %s: %w", from, path, err))
	}
	rows, err := prices.Parse(data, path)
	if err != nil {
		return t, withCode(ExitError, fmt.Errorf("read %s: %w", from, err),
			`a prices file maps each model to its prices in USD per million tokens, e.g. {"gpt-4o": {"input": 2.5, "cached": 1.25, "output": 10}}`)
	}
	return t.With(rows), nil
}

// usageCalls turns lines of the usage log into calls to bill.
func usageCalls(lines []driver.Usage) []prices.Call {
	out := make([]prices.Call, len(lines))
	for i, u := range lines {
		out[i] = prices.Call{Role: u.Role, Model: u.Model, Asked: u.Asked,
			Prompt: u.PromptTokens, Cached: u.CachedTokens, Written: u.CacheWriteTokens, Completion: u.CompletionTokens}
	}
	return out
}

// debateBill reads the usage log of d and bills it at t, its roles in
// the order roles gives.
func debateBill(d *store.Dir, t prices.Table, roles []string) (prices.Bill, error) {
	lines, err := driver.ReadUsageLines(d)
	if err != nil {
		return prices.Bill{}, fmt.Errorf("read usage log: %w", err)
	}
	return t.Bill(usageCalls(lines), roles), nil
}

// tokensText says what tokens t counts: "1200 tokens (1000 prompt, 400
// of them cached, 200 completion)".
func tokensText(t prices.Tally) string {
	return fmt.Sprintf("%d tokens (%d prompt, %d of them cached, %d completion)", t.Tokens(), t.Prompt, t.Cached, t.Completion)
}

// writeCost writes the cost lines of status: the total, then a line per
// role with its calls, tokens and cost.
func writeCost(w io.Writer, b prices.Bill) {
	t := b.Total
	if t.Calls == 0 {
		return
	}
	switch {
	case t.Known() && b.From() == "":
		fmt.Fprintf(w, "cost      %s\n", prices.USD(t.USD))
	case t.Known():
		fmt.Fprintf(w, "cost      ≈ %s, estimated at %s (--prices FILE or MOOT_PRICES gives yours)\n", prices.USD(t.USD), b.From())
	default:
		fmt.Fprintf(w, "cost      %s; a prices file (--prices FILE or MOOT_PRICES) can give the missing prices\n", visible(t.Cost(), false))
	}
	width := 0
	for _, r := range b.Roles {
		width = max(width, termwidth.Width(visible(r.Role, false)))
	}
	for _, r := range b.Roles {
		fmt.Fprintf(w, "          %s  %s · %d prompt, %d cached · %d completion · %s\n", termwidth.Pad(visible(r.Role, false), width),
			english.Count(r.Calls, "call"), r.Prompt, r.Cached, r.Completion, visible(r.Cost(), false))
	}
	if s := t.Saving(); s != "" && t.Written > 0 {
		fmt.Fprintf(w, "cache     %d prompt tokens written to the cache, %d read from it: %s\n", t.Written, t.Cached, s)
	}
}

// costJSON is a bill as status --json and the summary event give it: usd
// is the cost of every call, null when a model has no price; known_usd
// the cost of those that have one.
func costJSON(b prices.Bill) map[string]any {
	tally := func(t prices.Tally) map[string]any {
		m := map[string]any{"calls": t.Calls, "prompt_tokens": t.Prompt, "cached_tokens": t.Cached,
			"completion_tokens": t.Completion, "usd": nil, "known_usd": t.USD, "unknown_models": append([]string{}, t.Unknown...)}
		if t.Known() {
			m["usd"] = t.USD
		}
		if t.Written > 0 {
			m["cache_write_tokens"] = t.Written
			m["saved_usd"] = t.Saved
		}
		if t.Role != "" {
			m["role"] = t.Role
		}
		return m
	}
	out := tally(b.Total)
	roles := make([]map[string]any, len(b.Roles))
	for i, r := range b.Roles {
		roles[i] = tally(r)
	}
	out["by_role"] = roles
	used := make([]map[string]any, len(b.Priced))
	for i, r := range b.Priced {
		p := map[string]any{"model": r.Model, "input": r.Input, "cached": r.Cached, "output": r.Output, "source": r.Source}
		if r.CacheWrite != r.Input {
			p["cache_write"] = r.CacheWrite
		}
		if r.NoCachedPrice {
			p["cached"] = nil
		}
		if r.Date != "" {
			p["date"] = r.Date
		}
		used[i] = p
	}
	out["prices"] = used
	return out
}

// cost says what a run and the whole debate cost, for the summary of
// run and step: "cost ≈ $0.0040 in this run, $0.0123 in all runs".
func (rb *runBill) cost(run, all prices.Tally) string {
	switch {
	case run.Calls == 0 && all.Calls == 0:
		return ""
	case rb.unread && run.Known():
		return fmt.Sprintf("cost ≈ %s in this run (at %s); earlier runs unknown", prices.USD(run.USD), rb.from)
	case rb.unread:
		return fmt.Sprintf("cost: %s in this run; earlier runs unknown", run.Cost())
	case run.Known() && all.Known() && rb.from == "":
		return fmt.Sprintf("cost: %s in this run, %s in all runs", prices.USD(run.USD), prices.USD(all.USD))
	case run.Known() && all.Known():
		return fmt.Sprintf("cost ≈ %s in this run, %s in all runs (at %s)", prices.USD(run.USD), prices.USD(all.USD), rb.from)
	}
	return fmt.Sprintf("cost: %s in this run, %s in all runs", run.Cost(), all.Cost())
}

// tallies bills the calls of a run, sum, and of the whole debate.
func (rb *runBill) tallies(sum driver.Summary) (run, all prices.Tally) {
	run = rb.table.Bill(usageCalls(sum.Usage), nil).Total
	whole := rb.table.Bill(usageCalls(append(append([]driver.Usage{}, rb.earlier...), sum.Usage...)), nil)
	rb.from = whole.From()
	return run, whole.Total
}

// addCostKeys adds to a summary event what the run and the debate cost:
// cost_usd and debate_cost_usd, null when a model has no price (or the
// earlier runs' log could not be read), and unknown_models, those models.
func (rb *runBill) addCostKeys(ev map[string]any, run, all prices.Tally) {
	ev["cost_usd"], ev["debate_cost_usd"] = nil, nil
	if run.Known() {
		ev["cost_usd"] = run.USD
	}
	if all.Known() && !rb.unread {
		ev["debate_cost_usd"] = all.USD
	}
	ev["unknown_models"] = append([]string{}, all.Unknown...)
}

// costSection is the report's section on what the debate cost, "" for a
// debate that never asked a model.
func costSection(b prices.Bill) string {
	if b.Total.Calls == 0 {
		return ""
	}
	return b.Markdown(2)
}
