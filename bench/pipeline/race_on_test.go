//go:build race

package pipeline

// raceEnabled reports whether the race detector is built in.
const raceEnabled = true
