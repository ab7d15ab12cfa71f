package cli

import (
	"context"
	"errors"
	"io/fs"

	"github.com/moot-dev/moot/internal/driver"
	"github.com/moot-dev/moot/statemachine/dialectic"
	"github.com/moot-dev/moot/store"
)

// This file holds what the commands still do for dialectic alone, through
// the driver's generic paths, until dialectic's commands are reached
// through the step model's interfaces like every other protocol's.

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

// plainBadFiles unwraps a *driver.BadFilesError: a dialectic debate's file
// that cannot be read fails its commands with the plain error, and its
// exit status, as it always has (a check of it still says exit 4).
func plainBadFiles(err error) error {
	var bad *driver.BadFilesError
	if errors.As(err, &bad) {
		return bad.Err
	}
	return err
}

// readRaw reads the files of the dialectic debate in d as one commit left
// them.
func readRaw(d *store.Dir) (dialectic.Raw, error) {
	var raw dialectic.Raw
	err := driver.ReadFiles(d, func(files fs.FS) error {
		var err error
		raw, err = dialectic.ReadRaw(files)
		return err
	})
	return raw, err
}
