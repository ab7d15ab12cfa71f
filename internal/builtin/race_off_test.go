//go:build !race

package builtin_test

// raceEnabled reports whether the race detector is built in.
const raceEnabled = false
