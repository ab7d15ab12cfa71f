package cli

import "strings"

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
