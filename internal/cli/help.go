package cli

import (
	"cmp"
	"context"
	"fmt"
	"maps"
	"runtime/debug"
	"slices"
	"strings"
	"sync"

	ucli "github.com/urfave/cli/v3"

	"github.com/moot-dev/moot/templates"
)

// commandHelp is what a command's help shows after its flags: examples,
// and the environment variables the command reads.
type commandHelp struct {
	examples []string // a command line, two spaces, what it does
	env      []string // names from envDoc
}

// envDoc says what each environment variable moot reads is for. It is
// built on first use, so that commands that show no help do not pay for it
// at start-up.
var envDoc = sync.OnceValue(func() map[string]string {
	return map[string]string{
		"MOOT_DIR":        "the debates root when --dir is not given (default ./debates)",
		"MOOT_MODEL":      "the model of a role that neither a flag nor the debate names (default " + DefaultModel + ")",
		"OPENAI_BASE_URL": "the OpenAI-compatible endpoint (default OpenAI's); a local server needs no key",
		"OPENAI_API_KEY":  "the key for the endpoint",
		"MOOT_API":        "the API moot speaks to the endpoint when --api is not given: chat (the default) or responses (OpenAI's Responses API)",
		"AZURE_OPENAI_ENDPOINT": "an Azure OpenAI resource (https://NAME.openai.azure.com), used instead of OPENAI_BASE_URL; " +
			"a model then names a deployment",
		"OPENAI_API_VERSION":    "the Azure OpenAI API version, such as 2024-10-21 (needed with AZURE_OPENAI_ENDPOINT)",
		"AZURE_OPENAI_API_KEY":  "the Azure OpenAI resource's key",
		"AZURE_OPENAI_AD_TOKEN": "instead of AZURE_OPENAI_API_KEY, a Microsoft Entra ID access token (moot does not renew it)",
		"NO_COLOR":              "no colour in progress lines, even on a terminal",
		"MOOT_SEARCH":           "the search provider of --research: searxng:URL, brave or tavily",
		"BRAVE_API_KEY":         "the key of Brave Search, for MOOT_SEARCH=brave (never written anywhere)",
		"TAVILY_API_KEY":        "the key of Tavily, for MOOT_SEARCH=tavily (never written anywhere)",
		"MOOT_PRICES":           "a prices file over the built-in model prices, when --prices is not given",
		TranscriptsEnv:          "off keeps no copy of what each model call was sent and answered (.moot/calls/, shown by moot serve)",
		"MOOT_TOKEN":            "the token moot serve requires on every request, when --token is not given",
	}
})

// envOrder is the order in which help lists environment variables.
var envOrder = []string{"MOOT_DIR", "OPENAI_BASE_URL", "OPENAI_API_KEY", "MOOT_API", "AZURE_OPENAI_ENDPOINT", "OPENAI_API_VERSION",
	"AZURE_OPENAI_API_KEY", "AZURE_OPENAI_AD_TOKEN", "MOOT_MODEL", "MOOT_PRICES", "MOOT_SEARCH", "BRAVE_API_KEY", "TAVILY_API_KEY", TranscriptsEnv, "NO_COLOR", "MOOT_TOKEN"}

// modelEnv is what commands that ask models read.
var modelEnv = []string{"MOOT_DIR", "OPENAI_BASE_URL", "OPENAI_API_KEY", "MOOT_API", "AZURE_OPENAI_ENDPOINT", "OPENAI_API_VERSION",
	"AZURE_OPENAI_API_KEY", "AZURE_OPENAI_AD_TOKEN", "MOOT_MODEL", TranscriptsEnv, "NO_COLOR"}

// helpFor holds every command's examples and environment, by name; the
// root's is under "". It is built on first use, as envDoc is.
var helpFor = sync.OnceValue(func() map[string]commandHelp {
	help := map[string]commandHelp{
		"": {
			examples: []string{
				"moot demo  a whole debate with moot's scripted built-in model: no key, no network",
				"moot new sugar-tax --motion 'This house would tax sugary drinks.'  create a debate",
				"OPENAI_BASE_URL=http://localhost:11434/v1 moot run sugar-tax 3  three exchanges with a local model",
				"moot status sugar-tax  where it stands and the next command",
				"moot report sugar-tax  write its README.md",
				"moot help run  the flags and examples of one command",
			},
			env: modelEnv,
		},
		"doctor": {
			examples: []string{
				"moot doctor  check the endpoint and every configured model: what each supports, and what moot will lack",
				"OPENAI_BASE_URL=http://localhost:11434/v1 moot doctor --model llama3.1:8b  check a local Ollama's model",
				"AZURE_OPENAI_ENDPOINT=https://NAME.openai.azure.com OPENAI_API_VERSION=2024-10-21 moot doctor --model my-deployment  check an Azure OpenAI deployment (with AZURE_OPENAI_API_KEY set)",
				"moot doctor --api responses --model o3  check that the endpoint serves OpenAI's Responses API, and o3 there",
				"moot doctor --json  the same for scripts",
			},
			env: []string{"OPENAI_BASE_URL", "OPENAI_API_KEY", "MOOT_API", "AZURE_OPENAI_ENDPOINT", "OPENAI_API_VERSION",
				"AZURE_OPENAI_API_KEY", "AZURE_OPENAI_AD_TOKEN", "MOOT_MODEL"},
		},
		"config": {
			examples: []string{
				"moot config  the settings in force, and whether each comes from moot.yaml, the environment or moot's defaults",
				"moot --dir ~/debates config --json  the same for another root, for scripts",
			},
			env: []string{"MOOT_DIR", "OPENAI_BASE_URL", "OPENAI_API_KEY", "MOOT_API", "AZURE_OPENAI_ENDPOINT", "OPENAI_API_VERSION",
				"AZURE_OPENAI_API_KEY", "AZURE_OPENAI_AD_TOKEN", "MOOT_MODEL", "MOOT_PRICES", "MOOT_SEARCH"},
		},
		"completion": {
			examples: []string{
				"source <(moot completion bash)  complete moot's commands, flags, debates and tournaments in this bash",
				"moot completion bash > ~/.local/share/bash-completion/completions/moot  in every bash from now on",
				"source <(moot completion zsh)  in zsh, after compinit (in ~/.zshrc for every zsh)",
				"moot completion fish > ~/.config/fish/completions/moot.fish  in fish",
			},
			env: []string{"MOOT_DIR"},
		},
		"help": {
			examples: []string{
				"moot help  every command",
				"moot help run  the arguments, flags, examples and environment of run",
			},
		},
		"new": {
			examples: []string{
				"moot new sugar-tax --motion 'This house would tax sugary drinks.'",
				"moot new sugar-tax --motion 'This house would tax sugary drinks.' --definition 'sugary drink: a drink with added sugar' --scope 'Rich countries.'",
				"moot --dir ~/debates new tea --motion 'This house prefers tea.'  create it under another root",
			},
			env: []string{"MOOT_DIR"},
		},
		"demo": {
			examples: []string{
				"moot demo  a dialectic debate, run to its end and reported, in debates/demo",
				"moot demo --protocol forum  a forum debate, in debates/demo-forum",
				"moot --dir /tmp/try demo  under another root",
			},
			env: []string{"MOOT_DIR"},
		},
		"status": {
			examples: []string{
				"moot status  every debate, a line each",
				"moot status sugar-tax  one debate: phase, next command, scores, model usage",
				"moot status sugar-tax --json  the same for scripts",
				"moot status sugar-tax --prices my-prices.yaml  its cost at prices of your own",
			},
			env: []string{"MOOT_DIR", "MOOT_PRICES"},
		},
		"list": {
			examples: []string{
				"moot list  every debate under the root, tournaments' too: protocol, state, leader, cost",
				"moot list --json  the same for scripts",
			},
			env: []string{"MOOT_DIR", "MOOT_PRICES"},
		},
		"show": {
			examples: []string{
				"moot show sugar-tax  every argument: id, side, exchange, score, title",
				"moot show sugar-tax prop_001  one argument with its score history",
				"moot show sugar-tax opp_000a --json  the same for scripts",
			},
			env: []string{"MOOT_DIR"},
		},
		"check": {
			examples: []string{
				"moot check sugar-tax  verify every invariant (exit 4 if any is broken)",
				"moot check ./path/to/debate --json",
				"moot check --all  every debate and tournament under the root, a line each",
			},
			env: []string{"MOOT_DIR"},
		},
		"process-exchange": {
			examples: []string{
				"moot process-exchange sugar-tax 0 --prop-file prop.json --opp-file opp.json  the opening",
				"moot process-exchange sugar-tax 1 --prop-file prop.json --opp-file opp.json  a rebuttal each",
			},
			env: []string{"MOOT_DIR"},
		},
		"protocols": {
			examples: []string{
				"moot protocols  the protocols, their roles and their flags of 'moot new'",
				"moot new tea --protocol NAME --motion \"...\"  a debate of another protocol",
			},
			env: []string{},
		},
		"debate-ops": {
			examples: []string{
				"moot debate-ops process-exchange debates/sugar-tax 1 --prop-file /tmp/prop.json --opp-file /tmp/opp.json  as dialectic's plugin calls it",
				"moot debate-ops process-judge debates/sugar-tax --json-file /tmp/judge.json",
			},
		},
		"process-judge": {
			examples: []string{
				"moot process-judge sugar-tax --json-file judgment.json",
			},
			env: []string{"MOOT_DIR"},
		},
		"run": {
			examples: []string{
				"moot run sugar-tax  one exchange",
				"moot run sugar-tax 3 --model gpt-4o --judge-model o3-mini  three exchanges",
				"moot run sugar-tax --until 5  up to exchange 5",
				"moot run sugar-tax 3 --judges openai/gpt-4o,anthropic/claude-sonnet-4,openai/gpt-4o-mini  a panel judges each exchange",
				"OPENAI_BASE_URL=http://localhost:11434/v1 MOOT_MODEL=llama3.1 moot run sugar-tax  with a local Ollama",
				"moot run sugar-tax 10 --budget 0.50  stop before a step that would take the debate's cost past $0.50",
				"moot run sugar-tax 10 --dry-run  the calls of ten exchanges, their estimated tokens and cost; nothing asked or written",
				"moot run sugar-tax --model builtin  moot's scripted built-in model: no key, no network, no real arguments",
				"moot run sugar-tax --human proposition  you argue for the motion, in $EDITOR",
				"MOOT_SEARCH=searxng:http://localhost:8888 moot run sugar-tax --research  debaters search, read and cite; every cited quote is checked",
			},
			env: append(modelEnv[:len(modelEnv):len(modelEnv)], "MOOT_PRICES", "MOOT_EDITOR", "VISUAL", "EDITOR", "MOOT_SEARCH", "BRAVE_API_KEY", "TAVILY_API_KEY"),
		},
		"research": {
			examples: []string{
				"MOOT_SEARCH=searxng:http://localhost:8888 moot research test  search once and show what came back",
				"MOOT_SEARCH=brave BRAVE_API_KEY=... moot research test \"boiling point\"  the same with Brave Search",
			},
			env: []string{"MOOT_SEARCH", "BRAVE_API_KEY", "TAVILY_API_KEY"},
		},
		"form": {
			examples: []string{
				"moot form sugar-tax proposition > answer.md  what the proposition sees, and its form",
				"moot form net judge --call judge-strict  one judge of a panel",
			},
			env: []string{"MOOT_DIR"},
		},
		"answer": {
			examples: []string{
				"moot answer sugar-tax proposition answer.md  a filled form",
				"moot answer sugar-tax judge judgment.json  the JSON a model would give",
				"moot answer net for plan.md --call 001-plan/for  for that call only, as the hints name it",
			},
			env: []string{"MOOT_DIR"},
		},
		"rejudge": {
			examples: []string{
				"moot rejudge sugar-tax --judge-model o3-mini  judge every exchange again into judgments/o3-mini/",
				"moot rejudge sugar-tax --judge-model gpt-4o --name second --from 2 --to 4  exchanges 2 to 4, into judgments/second/",
				"moot rejudge sugar-tax --name second  resume an interrupted judgment",
			},
			env: modelEnv,
		},
		"judges": {
			examples: []string{
				"moot judges sugar-tax  the judges' agreement and leans, and the arguments' strength from the graph",
				"moot judges --all --json  every judge model over every debate of the root",
			},
			env: []string{"MOOT_DIR"},
		},
		"tournament": {
			examples: []string{
				"moot tournament new spring --models openai/gpt-4o,anthropic/claude-sonnet-4,openai/gpt-4o-mini --motions motions.txt --exchanges 3  plan it",
				"moot tournament run spring --jobs 8 --rpm 120  run its debates, 8 at a time, within 120 requests a minute",
				"moot tournament status spring  the debates and the leaderboard so far",
				"moot tournament report spring --html  README.md, win-matrix.svg and report.html",
				"moot tournament plan spring | parallel -j 16  run it on many machines over a shared file system",
			},
			env: modelEnv,
		},
		"step": {
			examples: []string{
				"moot step sugar-tax  the arguments of the current exchange, or its judgment",
				"moot step sugar-tax --judge-model o3-mini --json",
				"moot step sugar-tax --budget 0.10  only if the debate's cost stays within $0.10",
			},
			env: append(modelEnv[:len(modelEnv):len(modelEnv)], "MOOT_PRICES"),
		},
		"templates": {
			examples: []string{
				"moot templates  every protocol's built-in prompt templates",
				"moot templates --protocol forum  forum's",
				"moot templates sugar-tax  those in force for a debate, and where each comes from",
				"moot templates --print judge  print one (the .md may be left out)",
			},
			env: []string{"MOOT_DIR"},
		},
		"report": {
			examples: []string{
				"moot report sugar-tax  write README.md and argument-graph.mmd",
				"moot report sugar-tax --html  also report.html",
				"moot report sugar-tax --narrative  ask the judge's model for a written analysis",
			},
			env: []string{"MOOT_DIR", "OPENAI_BASE_URL", "OPENAI_API_KEY", "MOOT_MODEL", "MOOT_PRICES"},
		},
		"export": {
			examples: []string{
				"moot export sugar-tax  JSON on standard output",
				"moot export sugar-tax --format csv -o sugar-tax.csv",
			},
			env: []string{"MOOT_DIR"},
		},
	}
	maps.Copy(help, liveHelp())
	return help
})

// helpSections renders the EXAMPLES and ENVIRONMENT sections of h.
func helpSections(h commandHelp) string {
	var b strings.Builder
	if len(h.examples) > 0 {
		b.WriteString("\nEXAMPLES:\n")
		for _, e := range h.examples {
			line, what, ok := strings.Cut(e, "  ")
			b.WriteString("   " + line + "\n")
			if ok {
				b.WriteString("       " + what + "\n")
			}
		}
	}
	if len(h.env) > 0 {
		b.WriteString("\nENVIRONMENT:\n")
		width := 0
		for _, name := range h.env {
			width = max(width, len(name))
		}
		for _, name := range envOrder {
			for _, n := range h.env {
				if n == name {
					fmt.Fprintf(&b, "   %-*s  %s\n", width, name, envDoc()[name])
				}
			}
		}
	}
	return b.String()
}

// escapeTemplate makes text literal inside a text/template.
func escapeTemplate(s string) string {
	return strings.ReplaceAll(s, "{{", `{{"{{"}}`)
}

// addHelp gives root and each of its commands the help sections of
// helpFor, and marks usage errors of each command with its name.
func addHelp(root *ucli.Command) {
	root.CustomRootCommandHelpTemplate = ucli.RootCommandHelpTemplate + escapeTemplate(helpSections(helpFor()[""]))
	for _, c := range root.Commands {
		groupAction(c, c.Name)
		c.CustomHelpTemplate = ucli.CommandHelpTemplate + escapeTemplate(helpSections(helpFor()[c.Name]))
		if act := c.Action; act != nil {
			name := c.Name
			c.Action = func(ctx context.Context, cmd *ucli.Command) error {
				return forCommand(act(ctx, cmd), name)
			}
		}
	}
}

// helpCommand is "moot help [COMMAND]": the same page as --help.
func (a *app) helpCommand() *ucli.Command {
	return &ucli.Command{
		Name:         "help",
		Usage:        "show the commands, or the arguments, flags, examples and environment of one",
		ArgsUsage:    "[<command> [<subcommand>]]",
		OnUsageError: usageOnError,
		Action: func(ctx context.Context, cmd *ucli.Command) error {
			root := cmd.Root()
			switch cmd.Args().Len() {
			case 0:
				return ucli.ShowRootCommandHelp(root)
			case 1, 2:
			default:
				return usageError("help takes a command, or a command and one of its own (help tournament run)")
			}
			name := cmd.Args().First()
			c := root.Command(name)
			if c == nil {
				return unknownCommand(root, name)
			}
			if sub := cmd.Args().Get(1); sub != "" {
				// A group's command: moot help tournament run.
				if len(c.Commands) == 0 {
					return forCommand(usageError("%s has no commands of its own", name), name)
				}
				if c.Command(sub) == nil {
					return unknownIn(c, sub, name+" "+sub, fmt.Sprintf("'moot help %s' lists its commands", name))
				}
				return ucli.ShowCommandHelp(ctx, c, sub)
			}
			return ucli.ShowCommandHelp(ctx, root, name)
		},
	}
}

// unknownCommand is the usage error for a command moot does not have,
// suggesting the nearest one.
func unknownCommand(root *ucli.Command, name string) error {
	return unknownIn(root, name, name, "'moot help' lists the commands")
}

// unknownIn is the usage error for name, given as said, that is none of
// the commands of group, suggesting the nearest one, then hint.
func unknownIn(group *ucli.Command, name, said, hint string) error {
	var names []string
	for _, c := range group.Commands {
		names = append(names, c.Name)
	}
	hints := []string{}
	if near, ok := nearest(name, names); ok {
		hints = append(hints, fmt.Sprintf("did you mean '%s'?", near))
	}
	hints = append(hints, hint)
	return &exitError{code: ExitUsage, usage: true, err: fmt.Errorf("unknown command %q", said), hints: hints}
}

// groupAction gives c, and each command under it that only groups
// commands of its own (moot tournament, moot research), the action of a
// group: its help when no command is named, else a usage error for the
// one named, which is not one of its commands (urfave/cli would say "No
// help topic" and exit 1); path is c's name after "moot".
func groupAction(c *ucli.Command, path string) {
	if len(c.Commands) == 0 {
		return
	}
	for _, sub := range c.Commands {
		groupAction(sub, path+" "+sub.Name)
	}
	if c.Action != nil {
		return
	}
	if c.OnUsageError == nil {
		c.OnUsageError = usageOnError
	}
	c.Action = func(ctx context.Context, cmd *ucli.Command) error {
		if cmd.Args().Len() == 0 {
			return ucli.ShowSubcommandHelp(cmd)
		}
		name := cmd.Args().First()
		return unknownIn(cmd, name, path+" "+name, fmt.Sprintf("'moot help %s' lists its commands", path))
	}
}

// flagError turns an error of urfave/cli's flag parsing into moot's own
// usage error: the flag named as typed on the command line (--bogus, not
// -bogus), the nearest flag suggested, and the help of the command named.
// urfave/cli gives these errors no type, so its messages are read here,
// in this one place.
func flagError(cmd *ucli.Command, err error) error {
	msg := err.Error()
	var hints []string
	switch {
	case strings.HasPrefix(msg, "flag provided but not defined: -"):
		name := strings.TrimPrefix(msg, "flag provided but not defined: -")
		msg = fmt.Sprintf("unknown flag %s", dashed(name))
		if near, ok := nearest(name, flagNames(cmd)); ok {
			hints = append(hints, fmt.Sprintf("did you mean %s?", dashed(near)))
		}
	case strings.HasPrefix(msg, "flag needs an argument: "):
		name := strings.TrimLeft(strings.TrimPrefix(msg, "flag needs an argument: "), "-")
		msg = fmt.Sprintf("%s needs a value", dashed(name))
	case strings.HasPrefix(msg, "invalid value ") && strings.Contains(msg, " for flag -"):
		value, after, _ := strings.Cut(strings.TrimPrefix(msg, "invalid value "), " for flag -")
		name, reason, _ := strings.Cut(after, ": ")
		if kind := valueKind(cmd, name); kind != "" || reason == "" {
			msg = fmt.Sprintf("%s %s is not %s", dashed(name), value, cmp.Or(kind, "a valid value"))
		} else {
			// A flag of moot's own type explains itself: keep its words.
			msg = reason
		}
	}
	if cmd.Root() == cmd {
		hints = append(hints, "'moot help' lists the commands and the global flags")
	} else {
		hints = append(hints, fmt.Sprintf("'moot help %s' shows its arguments, flags and examples", cmd.Name))
	}
	return &exitError{code: ExitUsage, usage: true, err: fmt.Errorf("%s", msg), hints: hints}
}

// templateNotFound is the usage error of --print NAME for a template
// that set does not hold, suggesting the nearest name.
func templateNotFound(set *templates.Set, name string) error {
	var names []string
	for _, s := range set.List() {
		names = append(names, strings.TrimSuffix(s.Name, ".md"))
	}
	hints := []string{}
	if near, ok := nearest(strings.TrimSuffix(name, ".md"), names); ok {
		hints = append(hints, fmt.Sprintf("did you mean --print %s?", near))
	}
	hints = append(hints, "'moot templates' lists them")
	return badUsage(fmt.Errorf("no template %q", name), hints...)
}

// valueKind says what kind of value the flag name of cmd takes, or "" for a
// flag of moot's own type, whose parser says it itself.
func valueKind(cmd *ucli.Command, name string) string {
	for _, c := range cmd.Lineage() {
		for _, f := range c.Flags {
			if !slices.Contains(f.Names(), name) {
				continue
			}
			switch f.(type) {
			case *ucli.BoolFlag:
				return "true or false"
			case *ucli.IntFlag:
				return "a whole number"
			case *ucli.FloatFlag:
				return "a number"
			case *ucli.DurationFlag:
				return "a duration such as 90s or 5m"
			}
		}
	}
	return ""
}

// dashed writes a flag name as it is typed: --name, or -n for one letter.
func dashed(name string) string {
	if len(name) == 1 {
		return "-" + name
	}
	return "--" + name
}

// flagNames lists the long names of the flags cmd accepts, its own and
// the global ones.
func flagNames(cmd *ucli.Command) []string {
	var names []string
	for _, c := range cmd.Lineage() {
		for _, f := range c.Flags {
			for _, n := range f.Names() {
				if len(n) > 1 {
					names = append(names, n)
				}
			}
		}
	}
	return append(names, "help")
}

// version is moot's version: the one set with -ldflags, else the module
// version of a `go install`, else the commit of a local build.
func version() string {
	info, ok := debug.ReadBuildInfo()
	return versionOf(Version, info, ok)
}

// versionOf computes version from what the build left: set (from
// -ldflags) wins, then the main module's version, then the VCS settings
// Go stamps into local builds (revision, time, and whether the tree had
// changes), else "dev".
func versionOf(set string, info *debug.BuildInfo, ok bool) string {
	if set != "" {
		return set
	}
	if !ok || info == nil {
		return "dev"
	}
	if v := info.Main.Version; v != "" && v != "(devel)" {
		return v
	}
	var rev, at string
	dirty := false
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.time":
			at = s.Value
		case "vcs.modified":
			dirty = s.Value == "true"
		}
	}
	if rev == "" {
		return "dev"
	}
	if len(rev) > 12 {
		rev = rev[:12]
	}
	v := "dev " + rev
	if dirty {
		v += " with local changes"
	}
	if at != "" {
		v += " (" + at + ")"
	}
	return v
}
