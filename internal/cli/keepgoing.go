package cli

import (
	"fmt"
	"path/filepath"
	"slices"

	ucli "github.com/urfave/cli/v3"

	driver "github.com/moot-dev/moot/internal/driver"
	sm "github.com/moot-dev/moot/statemachine"
	"github.com/moot-dev/moot/store"
)

// keepGoingFlag is --keep-going, which every command that asks models
// for a debate's steps takes.
func keepGoingFlag() ucli.Flag {
	return &ucli.BoolFlag{Name: "keep-going", Usage: "record a call the debate can do without (a judge's score, a take) as missing when its answers are refused after every repair, and go on; no value is invented"}
}

// sequentialFlag is --sequential, which every command that asks models
// for a debate's steps takes (see driver.Options.Sequential).
func sequentialFlag() ucli.Flag {
	return &ucli.BoolFlag{Name: "sequential", Usage: "ask each step's calls only once the step before is committed, instead of asking a call as soon as what its prompt reads is (the files are the same either way)"}
}

// retryMissingFlag is run's --retry-missing.
func retryMissingFlag() ucli.Flag {
	return &ucli.BoolFlag{Name: "retry-missing", Usage: "first ask again for every call recorded as missing by a run with --keep-going"}
}

// retryGaps returns the calls that --retry-missing asks again of deb,
// the debate in d of the protocol called protocol: an error (exit 2) for
// a protocol that asks no call again.
func retryGaps(d *store.Dir, deb sm.Debate, protocol string) ([]string, error) {
	f, ok := deb.(sm.Filler)
	if !ok {
		return nil, badUsage(fmt.Errorf("--retry-missing: a %s debate does not ask again for a call recorded as missing, since its later steps were made without it", protocol),
			"run the command again without --retry-missing")
	}
	return driver.RetryGaps(d, f, "")
}

// noGaps says that --retry-missing has nothing to ask again of the
// debate in d.
func (a *app) noGaps(d *store.Dir) {
	fmt.Fprintf(a.io.Stderr, "moot: %s has no call recorded as missing left to ask again (--retry-missing)\n", d.Path())
}

// modelHints are the hints of a run stopped because roles in failed gave
// no acceptable answer (exit 6): that nothing of the step was written,
// where the refused answers are kept, whether --keep-going would have
// gone on without them, and how to switch the role's model and resume,
// again being the command that resumes.
func modelHints(d *store.Dir, failed []*driver.RoleError, again string) []string {
	hints := []string{"nothing of the failed step was written; answers already accepted are kept and reused by the next run (--fresh asks again)"}
	for _, re := range failed {
		if re.Saved == "" {
			continue
		}
		if len(failed) == 1 {
			hints = append(hints, "the refused answers are in "+filepath.Join(d.Path(), re.Saved))
		} else {
			hints = append(hints, fmt.Sprintf("the %s's refused answers are in %s", re.Role, filepath.Join(d.Path(), re.Saved)))
		}
	}
	for _, re := range failed {
		var h string
		switch {
		case re.Missable:
			h = fmt.Sprintf("to go on without the %s's answer, recorded as missing with no value invented, run again with --keep-going (moot run --retry-missing asks again later)", re.Role)
		default:
			h = fmt.Sprintf("the debate cannot go on without the %s's answer, so --keep-going does not skip it", re.Role)
		}
		if !slices.Contains(hints, h) {
			hints = append(hints, h)
		}
	}
	for _, re := range failed {
		var h string
		if re.Model != "" {
			h = fmt.Sprintf("to replace the judge on model %s, run: %s --judges with other models", re.Model, again)
		} else {
			h = fmt.Sprintf("to switch the %s's model and resume, run: %s --%s-model MODEL", re.Role, again, re.Role)
		}
		if !slices.Contains(hints, h) {
			hints = append(hints, h)
		}
	}
	return hints
}

// addSummaries adds up what two runs in one command did: the steps,
// calls, tokens, time, warnings and usage.
func addSummaries(a, b driver.Summary) driver.Summary {
	a.Steps += b.Steps
	a.Calls += b.Calls
	a.Failed += b.Failed
	a.PromptTokens += b.PromptTokens
	a.CachedTokens += b.CachedTokens
	a.CompletionTokens += b.CompletionTokens
	a.Elapsed += b.Elapsed
	a.Warnings = append(a.Warnings, b.Warnings...)
	a.Usage = append(a.Usage, b.Usage...)
	return a
}

// again is the command that asks for what r asked again: command (run or
// step) on the debate at dir, with its --all or --until.
func (r runRequest) again(command, dir string) string {
	s := "moot " + command + " " + shellQuote(dir)
	switch {
	case r.step:
	case r.all:
		s += " --all"
	case r.hasU:
		s += fmt.Sprintf(" --until %d", r.until)
	}
	return s
}
