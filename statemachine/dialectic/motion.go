// This file keeps dialectic's names for the motion every state file holds,
// whose format internal/motion reads and writes.

package dialectic

import "github.com/moot-dev/moot/internal/motion"

// Definition is one defined term of the motion.
type Definition = motion.Definition

// Motion is what is debated: the motion itself, its definitions and scope,
// as written in the body of debate.md.
type Motion = motion.Motion

// MotionError is a motion that debate.md cannot hold as given.
type MotionError = motion.Error

// ParseMotion reads the motion from the body of debate.md (see
// motion.Parse).
func ParseMotion(body string) Motion { return motion.Parse(body) }

// RenderMotion writes the body of debate.md for m (see motion.Render).
func RenderMotion(m Motion) string { return motion.Render(m) }

// CheckMotion reports whether debate.md can hold m exactly (see
// motion.Check).
func CheckMotion(m Motion) error { return motion.Check(m) }

// oneLine folds the line breaks of s into spaces.
func oneLine(s string) string { return motion.OneLine(s) }
