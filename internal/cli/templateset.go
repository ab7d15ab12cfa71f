package cli

import (
	"fmt"
	"io"
	"path/filepath"
	"strings"

	ucli "github.com/urfave/cli/v3"

	sm "github.com/moot-dev/moot/statemachine"
	"github.com/moot-dev/moot/store"
	"github.com/moot-dev/moot/templates"
)

// protocolTemplates returns the built-in templates of protocol overridden
// by the debate's templates/ folder and then by --templates DIR. A
// template that is wrong, or a folder of them that cannot be read, is a
// bad input file rather than a bad command line: its error, which names
// the file, exits 1, like the template errors found when the prompts are
// built.
func protocolTemplates(protocol string, d *store.Dir, dir string) (*templates.Set, error) {
	set := templates.For(protocol)
	if d != nil {
		files, err := d.ReadDebateFolder("templates", ".md")
		if err != nil {
			return nil, fmt.Errorf("read %s: %w", filepath.Join(d.Path(), "templates"), err)
		}
		if err := set.Override(files, filepath.Join(d.Path(), "templates")); err != nil {
			return nil, err
		}
	}
	if dir != "" {
		files, err := store.ReadFolder(dir, ".md")
		if err != nil {
			return nil, fmt.Errorf("read --templates: %w", err)
		}
		if err := set.Override(files, dir); err != nil {
			return nil, err
		}
	}
	return set, nil
}

// withTemplates returns p writing its prompts from the templates in force
// for the debate d (nil: none) and cmd's --templates, when p's prompts
// come from templates (sm.Templated); else p itself.
func withTemplates(cmd *ucli.Command, d *store.Dir, p sm.Protocol) (sm.Protocol, error) {
	t, ok := p.(sm.Templated)
	if !ok {
		return p, nil
	}
	set, err := protocolTemplates(p.Name(), d, cmd.String("templates"))
	if err != nil {
		return nil, err
	}
	return t.WithTemplates(set), nil
}

// listTemplates is `moot templates`: the templates in force for the
// debate cmd names, or for --protocol, with where each comes from; or,
// given neither, every protocol's built-in ones under its name. --print
// prints one template instead; without a debate or --protocol it and
// --templates concern the default protocol.
func (a *app) listTemplates(cmd *ucli.Command) error {
	if cmd.Args().Len() > 1 {
		return usageError("templates takes at most one debate")
	}
	var d *store.Dir
	protocols := a.io.Protocols
	switch {
	case cmd.Args().Len() == 1 && cmd.IsSet("protocol"):
		return usageError("templates takes a debate or --protocol, not both: a debate's templates are its protocol's")
	case cmd.Args().Len() == 1:
		var err error
		if d, err = openDebate(cmd); err != nil {
			return err
		}
		defer d.Close()
		p, err := a.protocolOf(d)
		if err != nil {
			return err
		}
		protocols = sm.Protocols{p}
	case cmd.IsSet("protocol"):
		p, err := a.io.Protocols.Lookup(cmd.String("protocol"))
		if err != nil {
			return badUsage(fmt.Errorf("no protocol %q", cmd.String("protocol")), "'moot protocols' lists the protocols")
		}
		protocols = sm.Protocols{p}
	case cmd.IsSet("print") || cmd.IsSet("templates"):
		p, err := a.io.Protocols.Lookup(sm.Default)
		if err != nil {
			return err
		}
		protocols = sm.Protocols{p}
	}
	if name := cmd.String("print"); name != "" {
		set, err := protocolTemplates(protocols[0].Name(), d, cmd.String("templates"))
		if err != nil {
			return err
		}
		text, ok := set.Text(name)
		if !ok && !strings.HasSuffix(name, ".md") {
			text, ok = set.Text(name + ".md")
		}
		if !ok {
			return templateNotFound(set, name)
		}
		fmt.Fprint(a.io.Stdout, text)
		return nil
	}
	if len(protocols) == 1 {
		set, err := protocolTemplates(protocols[0].Name(), d, cmd.String("templates"))
		if err != nil {
			return err
		}
		printTemplates(a.io.Stdout, set)
		return nil
	}
	first := true
	for _, p := range protocols {
		set := templates.For(p.Name())
		if len(set.List()) == 0 {
			continue
		}
		if !first {
			fmt.Fprintln(a.io.Stdout)
		}
		first = false
		fmt.Fprintf(a.io.Stdout, "%s:\n", p.Name())
		printTemplates(a.io.Stdout, set)
	}
	return nil
}

// printTemplates prints each template of set and where it comes from, a
// line each.
func printTemplates(w io.Writer, set *templates.Set) {
	for _, s := range set.List() {
		fmt.Fprintf(w, "%-22s %s\n", s.Name, s.From)
	}
}
