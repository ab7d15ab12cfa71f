//go:build race

package cachemarks

// raceEnabled reports whether the race detector is built in.
const raceEnabled = true
