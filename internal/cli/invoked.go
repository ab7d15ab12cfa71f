package cli

import (
	"strings"

	ucli "github.com/urfave/cli/v3"
)

// onlyInvoked drops the flags and subcommands of every command but the
// one that args invoke. urfave/cli sets up and walks the whole tree of
// commands on every run, every protocol's flags included, which was a
// good part of what a short command such as status cost. Nothing is
// dropped when args invoke no known command, invoke help (whose pages
// list the other commands), or give the root any flag but --dir: the
// tree is then whole, as it was.
func onlyInvoked(root *ucli.Command, args []string) {
	name := invokedName(args)
	if name == "" || name == "help" || root.Command(name) == nil {
		return
	}
	for _, c := range root.Commands {
		if !c.HasName(name) {
			c.Flags, c.Commands = nil, nil
		}
	}
}

// invokedName returns the command that args (args[0] being the program)
// invoke, "" when it cannot tell for certain.
func invokedName(args []string) string {
	for i := 1; i < len(args); i++ {
		switch a := args[i]; {
		case a == "--dir" || a == "-dir":
			i++
		case strings.HasPrefix(a, "--dir=") || strings.HasPrefix(a, "-dir="):
		case a == "" || a[0] == '-':
			return ""
		default:
			return a
		}
	}
	return ""
}
