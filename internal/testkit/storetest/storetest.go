// Package storetest opens debate directories for tests as a writing
// command does. It lives outside package store because only tests need it,
// and outside package fixture because store's own tests import fixture.
package storetest

import (
	"context"

	"github.com/moot-dev/moot/store"
)

// OpenForWrite opens the debate directory at dir for a test that writes
// it: Open, Lock without waiting, then Recover, so that the test can load,
// validate and commit. Close releases the lock.
func OpenForWrite(dir, command string) (*store.Dir, error) {
	d, err := store.Open(dir)
	if err != nil {
		return nil, err
	}
	if err := d.Lock(context.Background(), command, false); err != nil {
		d.Close()
		return nil, err
	}
	if err := d.Recover(); err != nil {
		d.Close()
		return nil, err
	}
	return d, nil
}
