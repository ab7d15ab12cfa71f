//go:build race

package schemafake_test

// raceEnabled reports whether the race detector is built in.
const raceEnabled = true
