package cli

import (
	"fmt"
	"slices"
	"strings"

	ucli "github.com/urfave/cli/v3"

	"github.com/moot-dev/moot/internal/driver"
	"github.com/moot-dev/moot/internal/prices"
	"github.com/moot-dev/moot/store"
)

// budgetFlag is --budget of run and step.
func budgetFlag() ucli.Flag {
	return &ucli.FloatFlag{Name: "budget", HideDefault: true,
		Usage: "stop before a step whose estimated cost would take the debate's cost, over all its runs, past `USD` dollars"}
}

// budget is what --budget keeps to: the most the debate may cost, over
// all its runs, at the prices of table.
type budget struct {
	limit float64
	table prices.Table
	// earlier is the usage log as it was before this run.
	earlier []driver.Usage
	// unit is what the debate's steps count, for messages.
	unit string
}

// budgetStop is a run stopped by --budget before a step: nothing of that
// step was asked or written.
type budgetStop struct {
	limit float64
	// unit and at name the step not taken ("exchange", 3).
	unit string
	at   int
	// spent is what the debate had cost, estimate what the step would.
	spent, estimate float64
	// unknown lists the models whose price is unknown, when that is why.
	unknown []string
}

func (e *budgetStop) Error() string {
	if len(e.unknown) > 0 {
		return fmt.Sprintf("stopped before %s %d: --budget %s cannot be kept, for no price is known for %s",
			e.unit, e.at, prices.USD(e.limit), strings.Join(slices.Compact(slices.Sorted(slices.Values(e.unknown))), ", "))
	}
	return fmt.Sprintf("stopped before %s %d: its estimated cost of %s would take the debate from %s to %s, past --budget %s",
		e.unit, e.at, prices.USD(e.estimate), prices.USD(e.spent), prices.USD(e.spent+e.estimate), prices.USD(e.limit))
}

// newBudget returns the budget of --budget for a run of the debate whose
// usage log, before the run, is earlier; nil when --budget is not given.
func newBudget(limit *float64, table prices.Table, earlier []driver.Usage, unit string) (*budget, error) {
	if limit == nil {
		return nil, nil
	}
	if !(*limit > 0) {
		return nil, usageError("--budget %v is not an amount of US dollars above 0", *limit)
	}
	return &budget{limit: *limit, table: table, earlier: earlier, unit: unit}, nil
}

// budgetOf returns the budget of a run of d: --budget when it is given,
// else the one stored in debate.md by an earlier run, else nil.
func budgetOf(cmd *ucli.Command, d *store.Dir) *float64 {
	if cmd.IsSet("budget") {
		v := cmd.Float("budget")
		return &v
	}
	if b, err := driver.StoredBudget(d); err == nil && b != nil {
		return b
	}
	return nil
}

// check is the driver's BeforeStep: it estimates what the step of plan
// will cost and stops the run when that, added to what the debate has
// cost so far, would exceed the limit. A step that asks no model (its
// answers kept by an interrupted run) costs nothing and always goes on.
//
// A call is estimated at its model's input price for its prompt, taken
// as a token every four bytes (prices.EstimateTokens), and its output
// price for its answer: the call's cap on its length when it has one,
// else the mean answer of its role in the debate so far, else the mean
// of every answer so far, else prices.TypicalAnswer. Repairs, which send a refused answer back, are
// not foreseen: a step can cost more than its estimate. The calls of the
// plan's InFlight, asked and not yet answered, count as spent at their
// estimate.
func (b *budget) check(plan driver.StepPlan) error {
	lines := append(append([]driver.Usage{}, b.earlier...), plan.Spent...)
	spent := b.table.Bill(usageCalls(lines), nil).Total
	stop := &budgetStop{limit: b.limit, unit: b.unit, at: plan.Unit, spent: spent.USD}
	if !spent.Known() {
		stop.unknown = spent.Unknown
		return stop
	}
	// The calls asked and not yet answered (of the step under way, when
	// this one is asked ahead of its turn) are spent as estimated.
	spent.USD += b.estimate(plan.InFlight, lines, &stop.unknown)
	stop.spent = spent.USD
	var calls []driver.PlannedCall
	for _, c := range plan.Calls {
		if !c.Kept && !c.Person {
			calls = append(calls, c)
		}
	}
	stop.estimate = b.estimate(calls, lines, &stop.unknown)
	if len(stop.unknown) > 0 {
		return stop
	}
	if stop.estimate > 0 && spent.USD+stop.estimate > b.limit {
		return stop
	}
	return nil
}

// estimate is what calls are estimated to cost, as check says; the
// models whose price is unknown are added to unknown.
func (b *budget) estimate(calls []driver.PlannedCall, lines []driver.Usage, unknown *[]string) float64 {
	total := 0.0
	for _, c := range calls {
		p, _, ok := b.table.Lookup(c.Model)
		if !ok {
			*unknown = append(*unknown, c.Model)
			continue
		}
		answer := 0
		if !c.Embed {
			answer = c.MaxTokens
			if answer == 0 {
				answer = meanAnswer(lines, c.Role)
			}
		}
		total += p.Cost(prices.EstimateTokens(c.PromptBytes), 0, answer)
	}
	return total
}

// meanAnswer is the mean completion tokens of the answered calls of role
// in lines; for a role that has answered nothing yet, the mean of every
// role's answers, so that a new role of a debate whose answers run long
// is not estimated short; prices.TypicalAnswer when nothing has answered.
func meanAnswer(lines []driver.Usage, role string) int {
	n, sum, allN, allSum := 0, 0, 0, 0
	for _, u := range lines {
		if !u.OK || u.CompletionTokens <= 0 {
			continue
		}
		allN++
		allSum += u.CompletionTokens
		if u.Role == role {
			n++
			sum += u.CompletionTokens
		}
	}
	if n == 0 {
		n, sum = allN, allSum
	}
	if n == 0 {
		return prices.TypicalAnswer
	}
	return (sum + n - 1) / n
}
