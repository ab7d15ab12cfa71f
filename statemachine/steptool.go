package statemachine

import "time"

// StepTool is a Protocol whose original system took its steps by hand
// through a tool of its own, which moot stands in for: dialectic's plugin
// runs its debate_ops. moot mounts the tool as a command of its own name,
// which takes the tool's command lines and prints the objects it printed,
// on the same streams, as Python's json module wrote them, so that the
// original system can call moot instead.
type StepTool interface {
	StepTool() Tool
}

// Tool is a protocol's step tool, as `moot NAME` stands in for it. Its
// every failure exits with status 1, as the original's did.
type Tool struct {
	// Name is the command's name, such as "debate-ops".
	Name string
	// Usage says in one line what it is, for `moot help`.
	Usage string
	// Help is what `moot NAME --help` says after the commands' usage
	// lines.
	Help string
	// Commands are the tool's commands, in the order its help lists
	// them.
	Commands []ToolCommand
}

// ToolCommand is one command of a step tool. Its command line is its
// name, the debate's directory (relative to the working directory, as the
// original took it) and then its own arguments, among which the flags
// that name its input files. moot reads the files, opens and locks the
// debate, and commits what Take returns; the input files are removed once
// the answers they hold have been taken or refused, as the original
// removed them, and kept when the step could not be taken at all.
type ToolCommand struct {
	Name string
	// ArgsUsage follows the name in the command's usage line, such as
	// "<debate> --json-file <path>".
	ArgsUsage string
	// Args is how many arguments the command line has, its name and the
	// debate's included.
	Args int
	// Files are the flags that name the input files, such as
	// "--json-file", in the order they are read. Each must be given; it
	// may stand anywhere on the command line.
	Files []string
	// Check, when set, checks the command line before any file is read:
	// its error is printed as the tool's failure.
	Check func(args []string) error
	// Take takes the step on the debate read from its files, with the
	// command line and the input files' contents in the order of Files.
	// An error says that the step could not be taken at all: it is
	// printed as the tool's failure and the input files are kept.
	Take func(deb Debate, args []string, inputs [][]byte, now time.Time) (ToolResult, error)
}

// ToolResult is what a step tool's command did with the answers it was
// given.
type ToolResult struct {
	// Files are written as one commit, the state file last; nil when the
	// answers broke a rule and nothing is written.
	Files []File
	// Object is what the tool prints: on stdout with an indent of two,
	// or with Stderr on stderr on one line.
	Object ToolObject
	Stderr bool
	// Failed makes the tool exit with its failure's status.
	Failed bool
	// Notes are moot's own warnings, which the original tool did not give:
	// moot prints them apart, so that Object stays the original's.
	Notes []string
}

// ToolObject is a JSON object whose keys keep their order. Its values are
// nil, a bool, a string, a float64 (printed as Python prints a float,
// 1.0), a ToolInt, a ToolObject, or a slice of strings, float64s or any of
// these.
type ToolObject []ToolField

// ToolField is one key and value of a ToolObject.
type ToolField struct {
	Key   string
	Value any
}

// ToolInt is a whole number that the original tool printed as an int (1),
// not as a float (1.0).
type ToolInt int64
