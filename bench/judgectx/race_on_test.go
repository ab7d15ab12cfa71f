//go:build race

package judgectx

// raceEnabled reports whether the race detector is built in.
const raceEnabled = true
