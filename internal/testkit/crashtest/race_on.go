//go:build race

package crashtest

// raceEnabled reports whether the race detector is built in.
const raceEnabled = true
