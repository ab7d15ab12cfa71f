package cli

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"

	ucli "github.com/urfave/cli/v3"

	"github.com/moot-dev/moot/internal/driver"
	sm "github.com/moot-dev/moot/statemachine"
)

// roleSetting is one setting a role flag sets: --ROLE-model,
// --ROLE-temperature or --ROLE-max-tokens, and --model, --temperature or
// --max-tokens for every role.
type roleSetting struct {
	suffix string // the flag's name for every role, and after ROLE-
	flag   func(name, usage string, hidden bool) ucli.Flag
	usage  string // what the flag sets, its placeholder in backquotes
	all    string // the usage of the flag for every role
}

var roleSettings = []roleSetting{
	{
		suffix: "model",
		flag: func(name, usage string, hidden bool) ucli.Flag {
			return &ucli.StringFlag{Name: name, Usage: usage, Hidden: hidden}
		},
		usage: "model `NAME` for ",
		all: "model `NAME` for every role (default: the debate's stored models, else $MOOT_MODEL, else moot.yaml's models and model, else " + DefaultModel + "; " +
			"builtin is moot's scripted built-in model, which needs no key or server); " +
			"--ROLE-model, --ROLE-temperature and --ROLE-max-tokens set one role or group of the debate's protocol ('moot protocols' lists them)",
	},
	{
		suffix: "temperature",
		flag: func(name, usage string, hidden bool) ucli.Flag {
			return &ucli.FloatFlag{Name: name, Usage: usage, Hidden: hidden, HideDefault: true}
		},
		usage: "sampling `TEMPERATURE` for ",
		all:   "sampling `TEMPERATURE` for every role (default: the server's)",
	},
	{
		suffix: "max-tokens",
		flag: func(name, usage string, hidden bool) ucli.Flag {
			return &ucli.IntFlag{Name: name, Usage: usage, Hidden: hidden, HideDefault: true}
		},
		usage: "cap on each answer's length in `TOKENS`, for ",
		all:   "cap on each answer's length in `TOKENS`, every role (default: the server's)",
	},
}

// roleTarget is what a flag prefix (a role's name or alias, or a group)
// sets in one protocol: the roles, and how specific it is (a group 1, a
// role 2), the more specific winning.
type roleTarget struct {
	roles []string
	rank  int
}

// roleTargets maps each prefix of p's role flags to what it sets.
func roleTargets(p sm.Protocol) map[string]roleTarget {
	out := map[string]roleTarget{}
	for _, r := range p.Roles() {
		if r.Group != "" {
			t := out[r.Group]
			if t.rank == 0 {
				t.rank = 1
			}
			t.roles = append(t.roles, r.Name)
			out[r.Group] = t
		}
	}
	for _, r := range p.Roles() {
		for _, n := range append([]string{r.Name}, r.Aliases...) {
			out[n] = roleTarget{roles: []string{r.Name}, rank: 2}
		}
	}
	return out
}

// rolePrefix is one prefix of role flags, over all the protocols moot
// knows, with what it stands for in each, for help.
type rolePrefix struct {
	name  string
	alias string // the role whose alias it is, when it is one
	// shown marks a prefix of the default protocol's, whose flags help
	// lists; the others' are hidden, so that help stays short, and
	// the --model flag's usage says how they are made.
	shown  bool
	says   []string
	protos [][]string
}

// rolePrefixes lists the prefixes of the role flags of every protocol
// moot knows, each once, in the order the protocols declare them (a
// group before its first role).
func (a *app) rolePrefixes() []*rolePrefix {
	var out []*rolePrefix
	byName := map[string]*rolePrefix{}
	add := func(name, alias, says string, p sm.Protocol) {
		proto := p.Name()
		rp := byName[name]
		if rp == nil {
			rp = &rolePrefix{name: name, alias: alias}
			byName[name] = rp
			out = append(out, rp)
		}
		if isDefault(p) {
			rp.shown = true
		}
		if i := slices.Index(rp.says, says); i >= 0 {
			if !slices.Contains(rp.protos[i], proto) {
				rp.protos[i] = append(rp.protos[i], proto)
			}
			return
		}
		rp.says = append(rp.says, says)
		rp.protos = append(rp.protos, []string{proto})
	}
	for _, p := range a.io.Protocols {
		targets := roleTargets(p)
		for _, r := range p.Roles() {
			if r.Name == "" {
				continue
			}
			if g := r.Group; g != "" {
				add(g, "", "every "+g+": "+strings.Join(targets[g].roles, " and "), p)
			}
			add(r.Name, "", "the "+r.Name, p)
			for _, al := range r.Aliases {
				add(al, r.Name, "the "+r.Name, p)
			}
		}
	}
	return out
}

// help says whom the flags of rp set, for their usage.
func (rp *rolePrefix) help(suffix string, aliases []string) string {
	parts := make([]string, len(rp.says))
	for i, s := range rp.says {
		parts[i] = fmt.Sprintf("%s (%s)", s, strings.Join(rp.protos[i], ", "))
	}
	s := strings.Join(parts, "; ")
	if rp.alias != "" {
		return s + ", as --" + rp.alias + "-" + suffix
	}
	if len(aliases) > 0 {
		names := make([]string, len(aliases))
		for i, al := range aliases {
			names[i] = "--" + al + "-" + suffix
		}
		s += "; also " + strings.Join(names, ", ")
	}
	return s
}

// roleFlags are the flags of run and step that set a model, a temperature
// and a cap on answers, for every role and for each role, alias and group
// of every protocol moot knows. An alias's flags are hidden: the usage of
// its role's flags names them.
func (a *app) roleFlags() []ucli.Flag {
	prefixes := a.rolePrefixes()
	aliases := map[string][]string{}
	for _, rp := range prefixes {
		if rp.alias != "" {
			aliases[rp.alias] = append(aliases[rp.alias], rp.name)
		}
	}
	var out []ucli.Flag
	for _, s := range roleSettings {
		out = append(out, s.flag(s.suffix, s.all, false))
		for _, rp := range prefixes {
			out = append(out, s.flag(rp.name+"-"+s.suffix, s.usage+rp.help(s.suffix, aliases[rp.name]), rp.alias != "" || !rp.shown))
		}
	}
	return out
}

// overrides collects the model settings given as flags for a debate of
// protocol p: a flag for every role first, then one for a group, then one
// for a role, the most specific winning. A role flag p has no role for
// is a usage error that names p's roles.
func (a *app) overrides(cmd *ucli.Command, p sm.Protocol) (driver.Overrides, error) {
	o := driver.Overrides{Models: map[string]string{}, Temperature: map[string]float64{}, MaxTokens: map[string]int{}}
	if cmd.IsSet("budget") {
		// Stored in debate.md with the models, once it is valid.
		if v := cmd.Float("budget"); v > 0 {
			o.Budget = &v
		}
	}
	c, err := judgeContext(cmd, p)
	if err != nil {
		return o, err
	}
	o.JudgeContext = c
	if o.CacheMarks, err = cacheMarks(cmd); err != nil {
		return o, err
	}
	targets := roleTargets(p)
	o.Defaults = a.roleDefaults(targets)
	all := driver.RoleNames(p)
	for _, rp := range a.rolePrefixes() {
		for _, s := range roleSettings {
			name := rp.name + "-" + s.suffix
			if _, ok := targets[rp.name]; !ok && cmd.IsSet(name) {
				return o, badUsage(fmt.Errorf("--%s: a %s debate has no role %s (its roles: %s)", name, p.Name(), rp.name, strings.Join(all, ", ")),
					"'moot protocols' lists each protocol's roles")
			}
		}
	}
	var bad error
	set := func(suffix, flag string, roles []string) {
		if !cmd.IsSet(flag) {
			return
		}
		// A value no endpoint takes is refused before it is stored.
		switch suffix {
		case "temperature":
			if v := cmd.Float(flag); v < 0 || v > 2 {
				bad = cmp.Or(bad, badUsage(fmt.Errorf("--%s %s is not a temperature from 0 to 2", flag, strconv.FormatFloat(v, 'g', -1, 64))))
				return
			}
		case "max-tokens":
			if v := cmd.Int(flag); v < 0 {
				bad = cmp.Or(bad, badUsage(fmt.Errorf("--%s %d is not a number of tokens: give 1 or more (0 leaves the cap to the server)", flag, v)))
				return
			}
		}
		for _, r := range roles {
			switch suffix {
			case "model":
				o.Models[r] = cmd.String(flag)
			case "temperature":
				o.Temperature[r] = cmd.Float(flag)
			case "max-tokens":
				o.MaxTokens[r] = cmd.Int(flag)
			}
		}
	}
	for _, s := range roleSettings {
		set(s.suffix, s.suffix, all)
		for rank := 1; rank <= 2; rank++ {
			for _, rp := range a.rolePrefixes() {
				if t, ok := targets[rp.name]; ok && t.rank == rank {
					set(s.suffix, rp.name+"-"+s.suffix, t.roles)
				}
			}
		}
	}
	if bad != nil {
		return o, bad
	}
	return o, nil
}
