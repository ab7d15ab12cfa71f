package cli

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"

	ucli "github.com/urfave/cli/v3"

	"github.com/moot-dev/moot/internal/tournament"
	"github.com/moot-dev/moot/store"
)

// completionShells are the shells `moot completion` writes a script for.
var completionShells = []string{"bash", "zsh", "fish"}

// configureCompletion makes urfave/cli's completion command moot's own:
// listed in help, for bash, zsh and fish, and a usage error for another
// shell.
func configureCompletion(c *ucli.Command) {
	c.Hidden = false
	c.Usage = "print the shell completion script for bash, zsh or fish: commands, flags, debate slugs and tournament names"
	c.ArgsUsage = "bash|zsh|fish"
	var keep []*ucli.Command
	for _, sub := range c.Commands {
		for _, sh := range completionShells {
			if sub.Name == sh {
				keep = append(keep, sub)
			}
		}
	}
	for _, sub := range keep {
		sub.Usage = "print the " + sub.Name + " completion script"
	}
	c.Commands = keep
	c.Description = ""
	c.CustomHelpTemplate = ucli.CommandHelpTemplate + escapeTemplate(helpSections(helpFor()["completion"]))
	groupAction(c, "completion")
}

// addCompletions gives every command under c that takes a debate first
// the debate slugs under the root as completions, each tournament command
// that takes a tournament's name the names of the tournaments, and help
// (when c is the root) the commands.
func addCompletions(c *ucli.Command, isRoot bool) {
	for _, sub := range c.Commands {
		addCompletions(sub, false)
		args := sub.ArgsUsage
		switch {
		case strings.HasPrefix(args, "<debate>") || strings.HasPrefix(args, "[<debate>]"):
			sub.ShellComplete = completeFirst(func(cmd *ucli.Command) ([]string, error) {
				return listDebates(root(cmd))
			})
		case c.Name == "tournament" && strings.HasPrefix(args, "<name>") && sub.Name != "new":
			sub.ShellComplete = completeFirst(func(cmd *ucli.Command) ([]string, error) {
				return store.Debates(filepath.Join(root(cmd), tournament.Dir), tournament.FileName)
			})
		case sub.Name == "help" && isRoot:
			sub.ShellComplete = completeFirst(func(cmd *ucli.Command) ([]string, error) {
				var names []string
				for _, c := range cmd.Root().Commands {
					if !c.Hidden && c.Name != "help" {
						names = append(names, c.Name)
					}
				}
				return names, nil
			})
		}
	}
}

// completeFirst completes a command's first argument with what names
// lists, and its flags as urfave/cli does: the completion scripts pass
// the word being completed only when it starts with a dash.
func completeFirst(names func(cmd *ucli.Command) ([]string, error)) ucli.ShellCompleteFunc {
	return func(ctx context.Context, cmd *ucli.Command) {
		args := cmd.Args().Slice()
		if n := len(args); n > 0 && strings.HasPrefix(args[n-1], "-") {
			ucli.DefaultCompleteWithFlags(ctx, cmd)
			return
		}
		if len(args) > 0 {
			return
		}
		list, err := names(cmd)
		if err != nil {
			// A completion has nowhere to say why: it offers nothing.
			return
		}
		for _, n := range list {
			fmt.Fprintln(cmd.Root().Writer, n)
		}
	}
}
