//go:build !race

package prefix_test

// raceEnabled reports whether the race detector is built in.
const raceEnabled = false
