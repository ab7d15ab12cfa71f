//go:build race

package cli_test

// raceEnabled reports whether the race detector is built in.
const raceEnabled = true
