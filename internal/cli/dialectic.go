package cli

import (
	"context"

	"github.com/moot-dev/moot/internal/driver"
	"github.com/moot-dev/moot/statemachine/dialectic"
	"github.com/moot-dev/moot/store"
)

// This file holds what run, step and debate-ops still do for dialectic
// alone, through the driver's generic paths, until they reach dialectic
// through the step model's interfaces like every other protocol; it goes
// with the last of them.

// dialecticGoal says when a run of a dialectic debate stops: after Steps
// steps when Steps > 0, else when Exchange exchanges are judged, that is
// when the debate waits for the arguments of exchange Exchange (or is
// past it).
type dialecticGoal struct {
	Exchange int
	Steps    int
}

// runDialectic advances the dialectic debate in d until g, with the
// prompt templates of opts.
func runDialectic(ctx context.Context, d *store.Dir, g dialecticGoal, opts driver.Options) (driver.Summary, error) {
	return driver.Advance(ctx, d, dialectic.Protocol{Templates: opts.Templates}, driver.UnitGoal{Done: g.Exchange, Steps: g.Steps}, opts)
}

// loadDialectic reads the dialectic debate in d; a writer (d locked) is
// refused one with problems.
func loadDialectic(d *store.Dir) (*dialectic.Debate, error) {
	deb, err := dialectic.Loaded(driver.LoadDebate(d, dialectic.Protocol{}))
	return deb, plainBadFiles(err)
}
